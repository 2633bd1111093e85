"""The grounding gates: every number GroundedQA decides with, as learnable program state.

A grounded-QA program decides with thresholds (is this passage evidence? is this premise supported?
does this sentence answer what was asked?) as much as with prompts. Retrieval-score distributions
differ by corpus and embedder, so hand-set floors do not transfer: they belong to the program's
state, next to its prompts and demos. :class:`Gates` is a DSPy ``Parameter`` (:mod:`.state`), so ``program.save`` /
``load`` round-trip it, ``named_parameters()`` finds it, MLflow logs it as params and ``groundqa
compare --diff`` shows it; the calibration optimizer (:mod:`groundqa.programs.calibrate`) searches it.

Each field declares its search range (``search``: low, high) beside its description; the calibrator
reads the ranges from here, so a new gate is searchable the moment it is declared.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from pydantic import Field

from .state import StateModel

JUDGE_OFF = -8.0  # the answer_judge gate at or below this: the tuned answer judge vetoes nothing and is not asked
RESCUE_OFF = 10.0  # the answer_rescue gate at or above this: no rescue is tried


def _gate(default: float | int, low: float | int, high: float | int, description: str, **kw: Any) -> Any:
    return Field(default=default, description=description, json_schema_extra={"search": [low, high]}, **kw)


class Gates(StateModel):
    """Decision thresholds and sizes of :class:`~groundqa.programs.grounded_qa.GroundedQA`."""

    k: int = _gate(4, 2, 8, "passages retrieved per query", ge=1, le=50)
    lexical_weight: float = _gate(
        0.15, 0.0, 0.5, "weight of word overlap when re-ranking twice k dense hits (0: dense order only)")
    lexical_pool: int = _gate(
        1, 0, 4, "chunks BM25 ranks best for the question, beyond the dense hits, that join the re-ranked pool "
        "(hybrid retrieval; 0: dense only)", ge=0, le=20)
    premise_k: int = _gate(6, 2, 10, "passages retrieved to check one presupposition", ge=1, le=50)
    max_passages: int = _gate(5, 2, 6, "passages numbered in the context the LM sees", ge=1, le=50)
    evidence_floor: float = _gate(0.3, 0.1, 0.6, "retrieval score a passage needs to count as evidence")
    sentence_evidence: float = _gate(
        0.55, 0.3, 1.01, "rank score (0.6 × cosine + 0.4 × the share of the question's words it says: "
        "extractive.rank_sentences) from which one sentence makes its passage evidence whatever the passage's "
        "retrieval score: a passage about many things embeds far from a question one of its sentences answers "
        "('The team acknowledges reports within 48 hours' after a list of five products). Above 1: off")
    min_sources: int = _gate(1, 1, 2, "evidence passages needed to attempt an answer", ge=1)
    min_confidence: float = _gate(0.35, 0.1, 0.7, "answers below this confidence are withheld (low_confidence)")
    premise_threshold: float = _gate(0.6, 0.3, 0.9, "judge confidence a presupposition needs to count as supported")
    asked_premise_threshold: float = _gate(
        0.45, 0.2, 0.9, "support the relation a look-up asks about needs (the remainder of a non-why question, "
        "'Quorvane company sponsors development'); a passage may word it otherwise, so it is refused only "
        "below this, and the answerability check decides above it (0.2 and below: a number or year the "
        "passages do not hold)")
    premise_floor: float = _gate(0.25, 0.1, 0.6, "retrieval score a presupposition's best passage needs")
    support_threshold: float = _gate(0.5, 0.3, 0.8, "judge support a generated sentence needs from its citations")
    answer_floor: float = _gate(0.3, 0.1, 0.6, "score an extractive sentence needs to be quoted as an answer")
    value_bonus: float = _gate(
        0.05, 0.0, 0.2, "added to the score of a passage sentence that holds a value of the asked type (a month "
        "for 'which month', a number for 'how many') when the extractive answer is chosen: the sentence that "
        "holds an answer outranks one that only shares the question's words; twice that when the value stands "
        "within three words of the asked word ('born in Tellbrück')")
    extractive_first: float = _gate(
        1.0, 0.0, 1.0, "score an extractive answer needs to be given without asking the LM (1.0: the LM is "
        "always asked first); a passage sentence this close to the question, holding what it asks for, "
        "is the answer whatever a small LM would write")
    answerability: float = _gate(
        0.6, 0.0, 1.0, "how much of what the question asks (answer type and asked attribute) an answer must "
        "contain; below it the next-best sentence is tried, then the program abstains (not_answered)")
    answer_judge: float = _gate(
        JUDGE_OFF, JUDGE_OFF, 2.0, "margin logit(' yes') - logit(' no') the tuned answer judge "
        "(groundqa.judges.answer_judge) must give a sentence the answerability check accepted before it is quoted "
        "as an answer; below it the next-best sentence is tried, then the program abstains (not_answered). "
        f"{JUDGE_OFF} and below: the judge is not asked")
    answer_rescue: float = _gate(
        RESCUE_OFF, 0.0, RESCUE_OFF, "margin the tuned answer judge must give a passage sentence to be quoted where "
        "the rules found no sentence that answers (not_answered); the best of rescue_candidates sentences is "
        f"tried. {RESCUE_OFF} and above: no rescue")
    typed_rescue: float = _gate(
        RESCUE_OFF, 0.0, RESCUE_OFF, "margin the tuned answer judge must give, where answer_rescue found no "
        "sentence, to a sentence that holds a value of the type the question asks for (a date for 'when', a number "
        "for 'how many', a person for 'who'; questions without such a type are not asked again): the best of "
        f"rescue_candidates such sentences is tried. {RESCUE_OFF} and above: no second reading")
    answer_preference: float = _gate(
        RESCUE_OFF, 0.0, RESCUE_OFF, "lead in margin the tuned answer judge must give another of the "
        "rescue_candidates best-ranked passage sentences over the sentence the rules chose, for a question without an "
        "asked type ('Why …?', 'What kind of …?'), before that sentence is quoted instead; the judge must also read it "
        f"as an answer (margin above 0). {RESCUE_OFF} and above: no second opinion")
    preference_trust: float = _gate(
        RESCUE_OFF, 0.0, RESCUE_OFF, "margin from which the tuned answer judge's reading of the sentence the rules "
        "chose keeps it without reading the other sentences (answer_preference; each judgment costs about 0.15–0.18 s on "
        f"2 cores). {RESCUE_OFF} and above: the others are always read")
    preference_floor: float = _gate(
        JUDGE_OFF, JUDGE_OFF, 0.0, "margin the tuned answer judge must give the sentence the rules chose for a "
        "question without an asked type, where answer_preference found no other sentence to quote; below it nothing "
        f"is quoted and the program abstains (not_answered). {JUDGE_OFF} and below, or answer_preference off: no "
        "veto")
    rescue_candidates: int = _gate(6, 2, 12, "best-ranked passage sentences the answer judge reads for a rescue",
                                   ge=1, le=30)
    premise_rescue: float = _gate(
        RESCUE_OFF, -4.0, RESCUE_OFF, "margin the tuned answer judge must give a passage sentence to be quoted where "
        "premise verification found no passage for a presupposition (premise_unsupported; never where a passage "
        "contradicts one): the best of rescue_candidates sentences is tried, and below it the premise refusal "
        f"stands. {RESCUE_OFF} and above: no rescue")
    bridge_rescue: float = _gate(
        RESCUE_OFF, 0.0, RESCUE_OFF, "margin the tuned answer judge must give a sentence of a bridge's second hop, "
        "read as the question asked of the bridge by name ('Where did Tobias Quennell work …?' for 'Where did the "
        "zoo's current director work …?'), where no candidate's second hop says all of what was asked in the rules' "
        "reading; of each candidate's pages, the best rescue_candidates sentences that hold a value of the asked "
        f"type are tried, candidates in rank order. {RESCUE_OFF} and above: not asked")
    contradiction: float = _gate(
        0.6, 0.4, 0.95, "coverage of a presupposition a passage needs before its conflicting value or "
        "antonym counts as contradicting it (premise_contradicted); likewise of a question before an answer "
        "sentence that swaps one of its words for a conflicting one is refused as not answering it")
    denial_similarity: float = _gate(
        0.55, 0.4, 1.01, "cosine a negated sentence about a yes/no question's subject needs to its statement to "
        "answer 'No' in other words ('Sarn never exhibited outside the valley' for 'Did Sarn ever show her "
        "paintings outside the valley?'); above 1: only a sentence that denies it in the question's words")
    bridge_candidates: int = _gate(
        3, 1, 4, "names of the first hop tried as a multi-hop bridge, best first: the first whose second hop "
        "says what was asked of it is kept (each costs one retrieval)", ge=1, le=10)
    bridge_floor: float = _gate(0.3, 0.1, 0.6, "retrieval score a bridge-hop passage needs to join the evidence")

    @property
    def ask_judge(self) -> bool:
        """Whether any gate asks the tuned answer judge (:mod:`groundqa.judges.answer_judge`)."""
        return self.answer_judge > JUDGE_OFF or min(self.answer_rescue, self.typed_rescue, self.answer_preference,
                                                     self.premise_rescue, self.bridge_rescue) < RESCUE_OFF

    @contextlib.contextmanager
    def overridden(self, **values: Any) -> Iterator[Gates]:
        """These gate values for the duration of the block, then the previous ones again (validated as in
        :meth:`load_state`): e.g. ``extractive_first=1.0`` to have the LM asked about every question."""
        saved = self.model_dump()
        self.load_state(values)
        try:
            yield self
        finally:
            self.load_state(saved)

    @classmethod
    def search_space(cls) -> dict[str, tuple[float | int, float | int, type]]:
        """``{name: (low, high, int|float)}`` for every gate, from the fields' declarations."""
        space: dict[str, tuple[float | int, float | int, type]] = {}
        for name, field in cls.model_fields.items():
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            low, high = extra["search"]  # type: ignore[misc]
            space[name] = (low, high, field.annotation if field.annotation in (int, float) else float)  # type: ignore[assignment]
        return space

    def changed(self, other: Gates | None = None) -> dict[str, tuple[Any, Any]]:
        """Gates whose value differs from ``other`` (default: the declared defaults), as (theirs, ours)."""
        base = other.model_dump() if other is not None else type(self)().model_dump()
        return {k: (base[k], v) for k, v in self.model_dump().items() if base[k] != v}


GATE_NAMES = tuple(Gates.model_fields)
JUDGE_GATES = ("answer_judge", "answer_rescue", "typed_rescue", "answer_preference", "preference_trust",
               "preference_floor", "rescue_candidates", "premise_rescue", "bridge_rescue")
"""The gates that decide with the tuned answer judge's margins: fitted on questions the judge was trained on, they
learn a judge sharper than the one a new corpus meets (docs/BENCHMARKS.md, session 35)."""

__all__ = ["GATE_NAMES", "JUDGE_GATES", "Gates"]
