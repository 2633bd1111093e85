"""GroundedQA: input checks -> premise verification -> retrieval (+ bridge hop) -> cited synthesis ->
answerability and output checks (a ``not_answered`` refusal rescued by the tuned answer judge, :mod:`.rescue`) ->
selection (answer or abstain, once a compile has fitted it).

One call answers one question and returns ``dspy.Prediction(answer=..., abstained=..., result=...)``
where ``result`` is the typed :class:`~groundqa.signatures.types.GroundedResult`. A normal
``dspy.Module``: ``save``/``load``, compile with any optimizer, evaluate with ``dspy.Evaluate``.

Every number the pipeline decides with is a field of :class:`~groundqa.programs.gates.Gates`, held as
``self.gates``: program state that ``save``/``load`` round-trip and the calibration optimizer fits.
The stages receive the gates with each call and hold none themselves. The last stage weighs the stages'
signals together (``self.selector``, :mod:`.selection`): off until ``--optimizer select`` fits it.

Confidence (documented formula): ``0.6 * s + 0.4 * r`` where ``s`` is the mean judge confidence of
the answer's sentences given their cited passages and ``r`` the mean retrieval score of the cited
passages (cosine similarity, 0..1). Extractive answers use the extractive sentence scores for ``s``.
"""

from __future__ import annotations

import contextlib
import math
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, Literal

import dspy
from pydantic import BaseModel, Field, model_validator

from groundqa import hypernyms
from groundqa.contracts import ContractError, ContractReport, constrained
from groundqa.judges import get_judge
from groundqa.judges.answer_judge import shared_answer_judge
from groundqa.judges.lexical import features
from groundqa.runtime.run import Budgets, RunState, RunStopped, current_run, recover, run_scope, stage_scope
from groundqa.runtime.safe_text import has_lone_surrogates, scrub_surrogates
from groundqa.runtime.trace import ContractAttempt, Trace
from groundqa.signatures.qa import SplitQuestion
from groundqa.signatures.types import (
    AbstainReason,
    Citation,
    ExitReason,
    GroundedResult,
    Passage,
    PremiseVerdict,
)
from groundqa.text import citation_numbers, opening, split_sentences, strip_citations

from .answerability import Answerability, asked, held_terms
from .bridging import Bridge, about, find_bridges, hop_question, second_hop_target
from .casing import truecase
from .citations import analyse, render
from .comparison import compared_question, decide, side_value
from .context import NumberedContext, build_context, merge_passages
from .extractive import Extraction, ScoredSentence, extractive_answer, rank_sentences
from .formats import detect_format
from .gates import GATE_NAMES, JUDGE_OFF, RESCUE_OFF, Gates
from .judge_budget import AnswerJudgment, budgeted
from .planning import heuristic_subqueries
from .polar import polar_answer
from .premises import PremiseVerifier, describe_contradicted, describe_unsupported
from .reranking import rerank
from .rescue import Rescue, rescue_answer, second_opinion
from .retriever import Retriever
from .selection import SELECTABLE, Candidate, Selector, Signals, read_signals
from .synthesizer import CitedSynthesizer
from .year_bridge import DatedQuestion, HeldPost, dated_question, find_year_bridge, held_post

GENERATION_FAILURES = {"format", "empty"}  # violation keys that mean the LM produced nothing usable
_YEAR_POOL = 3
"""How many times ``gates.k`` passages a year bridge reads for a term that holds its year, where the first ``k`` have
none (:meth:`GroundedQA._spanning`)."""


class QAConfig(BaseModel):
    """Behaviour of :class:`GroundedQA`: the gates (learnable numbers) and the switches (fixed choices).

    Gate names are also accepted flat (``QAConfig(evidence_floor=0.4)``) and land in ``gates``.
    """

    gates: Gates = Field(default_factory=Gates, description="decision thresholds and sizes: learnable state")
    verify_premises: bool = True
    premise_extractor: Literal["lm", "heuristic"] = "lm"
    premise_judge: Literal["lm", "offline"] = "lm"
    premise_fail_mode: Literal["open", "closed"] = "open"
    support_judge: Literal["offline", "lm"] = "offline"
    reasoning: bool = False
    max_attempts: int = Field(default=2, ge=1, description="synthesis attempts, the first included")
    fallback: Literal["extractive", "abstain"] = "extractive"
    generate_unanswered: bool = Field(
        default=True, description="ask the LM to write the answer where the extractive answer, tried first "
                                  "(gates.extractive_first < 1), finds no passage sentence that answers; off, such a "
                                  "question goes straight to the fallback")
    unsupported_policy: Literal["drop", "abstain"] = "drop"
    multi_hop: Literal["heuristic", "lm", "off"] = "heuristic"
    bridging: bool = Field(default=True, description="retrieve again for the entity a described question's "
                                                      "first hop names (multi-hop bridges)")
    max_question_chars: int = Field(default=1000, ge=10)
    answer_format: str = "auto"
    budgets: Budgets = Field(default_factory=Budgets)

    @model_validator(mode="before")
    @classmethod
    def _flat_gates(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not any(name in data for name in GATE_NAMES):
            return data
        data = dict(data)
        base = data.get("gates")
        values = base.model_dump() if isinstance(base, Gates) else dict(base or {})
        values.update({name: data.pop(name) for name in GATE_NAMES if name in data})
        data["gates"] = Gates(**values)
        return data

    @classmethod
    def for_lm(cls, model: str, **overrides: Any) -> QAConfig:
        """Defaults that suit the LM: a tiny local base model gets rule-based presuppositions and
        offline judges; a capable LM does extraction and premise judging itself."""
        if model.startswith("embedded"):
            # A 270M base model: short contexts keep prompts fast. At temperature 0 it repeats its answer
            # whatever the feedback, so one attempt, then the contract's fallback (extractive). Where a passage
            # sentence already answers what was asked it is not asked at all (extractive_first 0.0: any sentence
            # the extractive answer chooses): its answers changed no score on the five development sets at any
            # value from 1.0 down to 0.0 (bundled train, the three workbench corpora, the SQuAD training
            # articles; `groundqa evaluate ... --gate extractive_first=V`), so it is asked only where no passage
            # sentence answers. There, cut to nothing (GROUNDQA_MAX_TOKENS=1), its answers changed no development
            # score either: it rarely writes an answer the contracts keep, so an answer is cut at 48 tokens (no
            # development score changed at 48, 96 or 256; a sentence it has not ended by then fails the citation
            # contract, and those unended sentences are what made the slowest questions slow: p95 10.9 s at 256).
            # Nor is it asked at all since (generate_unanswered off): over the 795 questions of the eleven
            # development sets it was asked 231 times and none of its answers was kept, each call 2-3 s on 2 cores:
            # the slowest questions were all of them. A tuned adapter turns it back on (groundqa.app.build_program).
            # The model's tuned answer judge rescues refusals (answer_rescue 3.0, chosen on four fresh corpora kept
            # from its training: mean composite 0.849 -> 0.878 at 2 and 3, 0.862 at 4; docs/BENCHMARKS.md session 20).
            # Where none reaches 3, a sentence holding a value of the asked type needs 1.5 (typed_rescue): over the
            # development questions ending not_answered, 15 more right answers for 1 of every 2 should-refuse
            # questions sampled quoted; on the 15 corpora the judge never trained on, 7 for 1 (session 27).
            # After a premise refusal the judge reads the passages too (premise_rescue 2.0, session 53): a plain
            # look-up worded otherwise than its passage ("What land does the hero serve to protect?" against "… tries
            # to prevent Hyrule from being engulfed …") is answered where the judge reads a sentence as its answer by
            # a margin of 2. Session 21's -0.5 answered too many questions that should be refused where the judge had
            # not trained (docs/BENCHMARKS.md sessions 21 and 29); at 2, two SQuAD 2.0 training-file articles no rule
            # or judge had read (scripts/squad_articles.py) gained 8 answers for none lost, and the development
            # files 10 for 1, which a sentence that denies the presupposition made and which is no longer read.
            # For a question without an asked type ("Why ...?", "What kind of ...?") the judge gives a second opinion
            # on the rules' choice: another sentence it reads as the answer by a lead of 2 is quoted instead
            # (answer_preference), and where it prefers none and gives the choice less than -4 nothing is quoted
            # (preference_floor); a choice it gives 1 or more is kept without reading the others (preference_trust,
            # half the judgments, no development answer changed). Development 2,383 -> 2,426 of 2,719 correct
            # (23 answers made right and none wrong; 21 more should-refuse questions refused for 1 right answer
            # lost), chosen from the judge's logged margins (docs/BENCHMARKS.md session 28).
            # The judge reads at most 14 distinct sentences for one question (Budgets.max_judgments, about 0.15 s
            # each): the slowest questions were bridge and rescue readings of many sentences (up to 57). Over the 44
            # development sets (2,719 questions) 10 cost 9 right answers against no budget, 14 costs 5 and 18 costs 1;
            # bundled train p95 1.55 s at 10, 14 and 18, the bundled bridges' p95 2.0 s at 10 and 3.3 s at 18
            # (docs/BENCHMARKS.md sessions 29 and 30).
            base: dict[str, Any] = {"premise_extractor": "heuristic", "premise_judge": "offline", "max_passages": 3,
                                    "extractive_first": 0.0, "max_attempts": 1, "generate_unanswered": False,
                                    "answer_rescue": 3.0, "typed_rescue": 1.5, "bridge_rescue": 3.0,
                                    "premise_rescue": 2.0,
                                    "answer_preference": 2.0, "preference_trust": 1.0, "preference_floor": -4.0,
                                    "budgets": Budgets(max_context_chars=2400, max_answer_tokens=48, max_judgments=14)}
        else:
            base = {"premise_extractor": "lm", "premise_judge": "lm", "reasoning": False}
        return cls(**{**base, **overrides})


def check_question(question: Any, max_chars: int) -> tuple[ExitReason, str] | None:
    """The pre-contract: ``None`` when the question is acceptable, else (exit reason, message)."""
    if not isinstance(question, str):
        return ExitReason.INVALID_INPUT, f"the question must be text, not {type(question).__name__}"
    if not question.strip():
        return ExitReason.EMPTY_INPUT, "the question is empty"
    if len(question) > max_chars:
        return ExitReason.INVALID_INPUT, f"the question is {len(question)} characters long (limit {max_chars})"
    if has_lone_surrogates(question):  # UTF-8 cannot carry it: not text
        return ExitReason.INVALID_INPUT, "the question is not valid Unicode text (a lone surrogate, e.g. from bytes " \
                                         "that are not UTF-8)"
    if any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r" for ch in question):
        return ExitReason.INVALID_INPUT, "the question contains control characters"
    if not any(ch.isalnum() for ch in question):
        return ExitReason.INVALID_INPUT, "the question has no words"
    return None


class GroundedQA(dspy.Module):
    """The grounded, cited QA program."""

    def __init__(self, retriever: Retriever, config: QAConfig | None = None) -> None:
        super().__init__()
        self.config = config or QAConfig()
        cfg = self.config
        self.gates = cfg.gates  # learnable state (a dspy Parameter): saved, loaded, calibrated
        self.selector = Selector()  # learnable state: the answer-or-abstain model, off until a compile fits it
        self._selection_sink: Callable[[Signals, Candidate | None], None] | None = None
        self.retriever = retriever
        self.premises = PremiseVerifier(
            retriever, extractor=cfg.premise_extractor, judge=cfg.premise_judge, fail_mode=cfg.premise_fail_mode,
        )
        self.synthesize = constrained(
            CitedSynthesizer(judge=cfg.support_judge, reasoning=cfg.reasoning),
            max_attempts=cfg.max_attempts, policy="raise",
        )
        self.split = dspy.Predict(SplitQuestion)

    # -- the pipeline ----------------------------------------------------------------------
    def forward(self, question: str, format: str | None = None, on_event: Callable[[dict[str, Any]], None] | None = None,
                use_cache: bool = True, trace: Trace | None = None) -> dspy.Prediction:
        result = self.run(question, format=format, on_event=on_event, use_cache=use_cache, trace=trace)
        return dspy.Prediction(answer=result.answer, abstained=result.abstained, result=result,
                               passages=result.passages)

    def warm_up(self) -> list[str]:
        """Load now what the first question would otherwise wait for (a server calls it at start-up): the tuned
        answer judge where a gate asks for it (about 0.5 s, its files' sha256 checked) and WordNet's noun table
        (about 0.5 s). Returns what was loaded. A judge that cannot be loaded raises as it would in a run."""
        hypernyms.load()
        loaded = ["wordnet"]
        if self.gates.ask_judge:
            shared_answer_judge()
            loaded.append("answer judge")
        return loaded

    def run(self, question: str, format: str | None = None, on_event: Callable[[dict[str, Any]], None] | None = None,
            use_cache: bool = True, trace: Trace | None = None) -> GroundedResult:
        """Answer ``question``; never raises for a fault of the input, the LM or the store."""
        cfg = self.config
        trace = trace if trace is not None else Trace(question=question if isinstance(question, str) else "")
        state = RunState(budgets=cfg.budgets, trace=trace, on_event=on_event, use_cache=use_cache)
        text = scrub_surrogates(question) if isinstance(question, str) else ""  # the result always encodes
        result = GroundedResult(question=text, trace_id=trace.trace_id)
        with run_scope(state):
            try:
                problem = check_question(question, cfg.max_question_chars)
                if problem is not None:
                    raise state.stop(*problem)
                result.format = detect_format(text, format or cfg.answer_format)
                self._answer(text, result, state)
                self._select(text, result, state)
            except RunStopped as stop:
                result.abstained, result.abstain_reason = True, AbstainReason.RUN_STOPPED
                result.abstain_message = stop.message
                result.answer, result.citations, result.mode = "", [], "none"
        result.exit_reason = state.exit_reason
        result.usage = state.usage.model_copy(update={"latency_ms": round(state.elapsed_s * 1000, 2)})
        result.notes = list(state.notes)
        trace.result = result.model_dump(mode="json")
        state.emit("final", result=result.model_dump(mode="json"))
        return result

    def _answer(self, question: str, result: GroundedResult, state: RunState) -> None:
        self.retriever.refresh()
        question, seen = self._read_names(question, state)
        if self.config.verify_premises and question not in seen:
            # the question's own passages, read by the premise judge too, and kept for the answer (one retrieval)
            with stage_scope("retrieval"):
                seen = {**seen, question: self._retrieve(question)}
        if not (self.config.verify_premises and self._premises_fail(question, result, seen.get(question))):
            return self._answer_from_passages(question, result, state, seen)
        if result.abstain_reason is not AbstainReason.PREMISE_UNSUPPORTED or self.gates.premise_rescue >= RESCUE_OFF:
            return
        # the question's retrievals (itself, its sub-queries, a bridge hop per candidate) must fit the budget left:
        # a refusal is never turned into a stopped run
        queries = 1 + (len(heuristic_subqueries(question)) if self.config.multi_hop == "heuristic" else 3)
        if state.usage.retrieval_calls + queries + self.gates.bridge_candidates > state.budgets.max_retrievals:
            state.note("the answer judge did not read the passages after the premise refusal: too little of the "
                       "retrieval budget is left")
            return
        # no passage was found for a presupposition: the answer judge may still read a passage sentence as the answer
        # (a plain look-up whose premise the rules could not match); where it does not, the premise refusal stands
        refusal = result.abstain_message or ""
        self._answer_from_passages(question, result, state, seen, premise_refusal=refusal)
        if result.abstained:
            self._abstain(result, AbstainReason.PREMISE_UNSUPPORTED, refusal)

    def _answer_from_passages(self, question: str, result: GroundedResult, state: RunState,
                              seen: dict[str, list[Passage]], premise_refusal: str | None = None) -> None:
        """Retrieve (with a bridge hop), build the context and answer from it; after a ``premise_refusal``, only a
        sentence the answer judge reads as the answer is quoted (:meth:`_rescue`)."""
        gates = self.gates
        if premise_refusal is None and self._compare(question, result, state):
            return
        with stage_scope("retrieval"):
            queries = [question, *self._subqueries(question)]
            passages = merge_passages(*(seen[q] if q in seen else self._retrieve(q) for q in queries))
        if not passages:
            return self._abstain(result, AbstainReason.NO_EVIDENCE, "the corpus returned no passages")
        # a passage that names everything the question names is evidence whatever its score: a rare name embeds
        # poorly ("How high is Carn Tollow?" scores 0.2 against the passage that gives its height); so is one
        # that holds every word of what a question without names asks ("an adult return ticket in 2024")
        named = tuple(word for name in features(question).names for word in name)
        terms = asked(question).attribute
        words = named or (terms if len(terms) >= 2 else ())
        evidence = [p for p in passages if p.score >= gates.evidence_floor or (words and _holds_all(words, p))]
        if len(evidence) < gates.min_sources:
            best = max(p.score for p in passages)
            return self._abstain(result, AbstainReason.TOO_FEW_SOURCES,
                                 f"{len(evidence)} passage(s) clear the evidence floor {gates.evidence_floor} "
                                 f"(best score {best:.2f}); {gates.min_sources} needed")
        # What the LM is shown depends on the sizes only, never on the thresholds: a calibration trial that
        # moves a floor re-asks nothing. The floors decide what may be cited.
        shown, bridge, hop = self._bridge(question, passages, state)
        budgets = self.config.budgets
        context = build_context(shown[: gates.max_passages], budgets.max_context_chars, budgets.context_policy)
        result.passages = context.passages
        citable = self._citable(question, context, words, hop, bridge)
        if premise_refusal is not None:  # only a sentence the answer judge reads as the answer may overturn it
            rescued = self._rescue(question, context, citable, gates.premise_rescue, AbstainReason.PREMISE_UNSUPPORTED)
            if rescued is not None:
                self._finish(result, rescued.answer, context, [rescued.support], mode="extractive")
            return
        self._synthesize(bridge.asks if bridge and bridge.asks else question, result, context, state, bridge, citable)

    def _compare(self, question: str, result: GroundedResult, state: RunState) -> bool:
        """Answer a question that compares two named sides (:mod:`.comparison`): each side retrieved on its own (one
        retrieval each, within the budget), its value read off its best sentence that clears the evidence floor, and
        the winner said first with both sentences cited. ``False`` (nothing decided, the other stages read the
        question) where it compares nothing, a side has no value, or the two tie."""
        compared = compared_question(question) if self.config.bridging else None
        if compared is None or state.usage.retrieval_calls + 2 > state.budgets.max_retrievals:
            return False
        values = []
        for side in compared.sides:
            with stage_scope("comparison"):
                found = [p for p in self._retrieve(side if not compared.born else f"{side} born")
                         if p.score >= self.gates.evidence_floor]
            values.append(side_value(compared, side, found))
        verdict = decide(compared, *values)
        if verdict is None:
            unread = [side for side, value in zip(compared.sides, values, strict=True) if value is None]
            state.note(f"comparison: no value read for {', '.join(map(repr, unread))}" if unread
                       else "comparison: the two sides have the same value")
            return False
        budgets = self.config.budgets
        context = build_context(merge_passages([v.passage for v in verdict.values]), budgets.max_context_chars,
                                budgets.context_policy)
        numbers = {p.chunk_id: n for n, p in enumerate(context.passages, start=1)}
        quoted = list(dict.fromkeys(f"{v.sentence.rstrip()} [{numbers[v.passage.chunk_id]}]" for v in verdict.values))
        result.passages = context.passages
        state.emit("comparison", sides=list(compared.sides), measure=compared.measure, winner=verdict.winner,
                   values={v.side: v.value for v in verdict.values},
                   chunk_ids=[v.passage.chunk_id for v in verdict.values])
        state.note("comparison: " + "; ".join(f"{v.side!r} {v.value:g}" for v in verdict.values)
                   + f" -> {verdict.winner!r}")
        self._finish(result, " ".join([verdict.lead, *quoted]), context, [v.passage.score for v in verdict.values],
                     mode="extractive")
        return not result.abstained

    # -- selection -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def recording_selection(self, sink: Callable[[Signals, Candidate | None], None]) -> Iterator[None]:
        """For the block, each run hands its :class:`~.selection.Signals` and its candidate answer to ``sink``
        and decides as if no selector were fitted (what ``SelectAnswers`` fits on)."""
        saved, self._selection_sink = self._selection_sink, sink
        try:
            yield
        finally:
            self._selection_sink = saved

    def _select(self, question: str, result: GroundedResult, state: RunState) -> None:
        """The selective stage (:mod:`.selection`): with a fitted selector, keep an answer the model trusts and
        withhold one it does not; overturn a refusal with the candidate (the best passage sentence that holds
        what was asked, else the best one) where it trusts that. It reads the question's own passages, or, with
        the retrieval budget spent, the ones the stages kept: it never ends a run."""
        if (not self.selector.active and self._selection_sink is None) or result.abstain_reason not in SELECTABLE:
            return
        gates, budgets = self.gates, self.config.budgets
        spent = state.usage.retrieval_calls >= state.budgets.max_retrievals
        if spent and not result.passages:
            state.note("selection skipped: the retrieval budget is spent and the stages kept no passages")
            return
        with stage_scope("selection"):
            passages = result.passages if spent else self._retrieve(question)  # cached: the stages asked it first
            context = build_context(passages[: gates.max_passages], budgets.max_context_chars, budgets.context_policy)
            found = extractive_answer(question, context, floor=0.0, answerability=gates.answerability,
                                      value_bonus=gates.value_bonus)
            found = found if found.chosen else extractive_answer(question, context, floor=0.0, answerability=0.0,
                                                                 value_bonus=gates.value_bonus)
            signals = read_signals(question, result, found, context.passages)
        candidate = None
        if found.chosen:
            numbers, confidence = self._confidence(found.answer, context, [c.score for c in found.chosen])
            candidate = Candidate(found.answer, [_citation(n, context.passages[n - 1]) for n in numbers],
                                  list(context.passages), confidence)
        if self._selection_sink is not None:
            self._selection_sink(signals, candidate)
            return
        selector = self.selector
        p = selector.probability(signals)
        state.emit("selection", probability=round(p, 4), threshold=selector.threshold, answered=not result.abstained)
        if not result.abstained and p < selector.threshold:
            state.note(f"the selector withheld the answer: probability {p:.2f} < {selector.threshold}")
            self._abstain(result, AbstainReason.LOW_CONFIDENCE,
                          f"the fitted selector trusts this answer with probability {p:.2f}, below its threshold "
                          f"{selector.threshold}")
        elif result.abstained and candidate is not None and p >= selector.threshold:
            reason = result.abstain_reason.value if result.abstain_reason else "a refusal"
            state.note(f"the selector answered where the stages refused ({reason}): probability {p:.2f} >= "
                       f"{selector.threshold}")
            candidate.answer_in(result)

    def _read_names(self, question: str, state: RunState) -> tuple[str, dict[str, list[Passage]]]:
        """A question typed in lower case, with its names written as the passages retrieved for it write them
        (:mod:`.casing`), and those passages by query: a question it leaves as it was is not retrieved again;
        one that changes costs one more retrieval, and is noted."""
        if any(c.isupper() for c in question[1:]):
            return question, {}
        with stage_scope("retrieval"):
            passages = self._retrieve(question)
        cased = truecase(question, passages)
        if cased != question:
            state.note(f"read the question as {cased!r}: its names as the passages write them")
        return cased, {question: passages}

    def _retrieve(self, query: str) -> list[Passage]:
        """``gates.k`` passages for ``query``: twice as many dense hits, re-ranked with word overlap, in that
        order. The order is what the context cut keeps (``max_passages``): re-sorted by the dense score, the
        passage the overlap had brought in ("admitted women as full diploma students from 1906", cosine 0.29)
        came last and was cut."""
        gates = self.gates
        pool = gates.k * 2 if gates.lexical_weight > 0 else gates.k
        found = self.retriever.retrieve(query, pool, lexical=gates.lexical_pool)
        return rerank(query, found, gates.lexical_weight)[: gates.k]

    def _premises_fail(self, question: str, result: GroundedResult, near: list[Passage] | None = None) -> bool:
        """Verify the question's presuppositions (``near``: the passages retrieved for the question, which the judge
        reads beside each claim's own); abstain (and say so) when one is false."""
        verdict = self.premises(question=question, gates=self.gates, near=near)
        result.premises = list(verdict.verdicts)
        result.premise_check = "failed" if verdict.status == "contradicted" else verdict.status
        contradicted = next((v for v in result.premises if v.status == "contradicted"), None)
        if contradicted is not None:
            self._abstain(result, AbstainReason.PREMISE_CONTRADICTED, describe_contradicted(contradicted))
            result.correction = contradicted.correction
            return True
        if verdict.status in ("failed", "fail_closed"):
            message = describe_unsupported(result.premises) if verdict.status == "failed" else (
                "premise verification failed and is configured to fail closed: " + str(verdict.get("error", "")))
            self._abstain(result, AbstainReason.PREMISE_UNSUPPORTED, message)
            return True
        return False

    def _bridge(self, question: str, passages: list[Passage], state: RunState
                ) -> tuple[list[Passage], Bridge | None, set[str]]:
        """A second hop for a question that describes what it asks about: ``(passages to show, the bridge,
        the second hop's chunk ids)``. Up to ``gates.bridge_candidates`` names of the first hop are tried,
        best first (one retrieval each, within the retrieval budget); the first whose second hop (or own page:
        :func:`_answer_sites`) holds a sentence of the asked type that says what was asked of it is the bridge,
        unless a later one says all of the question where it said only part; else the best-ranked one.
        Its best passage is shown right after the passage that named it, so both survive the context cut;
        it counts as evidence from ``gates.bridge_floor``. What is shown depends on the sizes only, never on
        a threshold (a calibration trial re-asks nothing)."""
        dated = dated_question(question) if self.config.bridging else None
        by_year = self._year_bridge(dated, passages, state) if dated is not None else None
        if by_year is not None:
            return by_year
        held = held_post(question) if self.config.bridging and dated is None else None
        by_holder = self._holder_bridge(held, passages, state) if held is not None else None
        if by_holder is not None:
            return by_holder
        candidates = find_bridges(question, passages, limit=self.gates.bridge_candidates) if self.config.bridging else []
        chosen: tuple[Bridge, list[Passage], Passage] | None = None
        best = 0.0  # how much of the question the verified bridge's answer says, with the sentence that named it
        tried: list[tuple[Bridge, list[Passage], Passage]] = []
        for bridge in candidates:
            if chosen is not None and state.usage.retrieval_calls >= state.budgets.max_retrievals:
                break  # the budget is spent: keep the best candidate so far
            with stage_scope("bridge"):
                hop = self._retrieve(bridge.query)
            target = second_hop_target(question, hop, bridge)
            if target is None:
                state.note(f"bridge: the second hop for {bridge.entity!r} found no other passage")
                continue
            chosen = chosen or (bridge, hop, target)
            tried.append((bridge, hop, target))
            said, answering = next(((c, p) for p in _answer_sites(bridge, passages, hop, target)
                                    if (c := self._answers_about(question, bridge, passages, p))), (0.0, target))
            # the first candidate that answers is kept, unless a later one says all of what was asked where it
            # said only part ("Designed by Casimir Drell" says who the architect was; "a restoration overseen by
            # Tobiah Marrane" does not), or says more a hop further where it was answered on the page that named it
            # (the first hop again: "The Tessaval School of Viticulture … founded in 1968" for the fungus named by
            # the person who ran the school before 2014)
            if said > 0.0 and (best <= 0.0 or said >= 1.0 > best or (
                    said > best and _on_naming_page(chosen) and answering.chunk_id != bridge.chunk_id)):
                chosen, best = (bridge, hop, answering), said
            if best >= 1.0:
                break  # all of it said: no later candidate can say more
            if said <= 0.0:
                state.note(f"bridge: the second hop for {bridge.entity!r} does not say what was asked")
        if chosen is None:
            return passages, None, set()
        # where no candidate's second hop says all of what was asked, a candidate whose second hop the answer judge
        # reads as answering the question asked of it by name is the bridge, and that question is what its answer is
        # checked against (the rules' partial reading of the same name asks the description of the second hop too:
        # "the *architect* of the *former* Hotel Kurhaus Reindl" where its page says he built it)
        judged = self._judged_bridge(question, passages, tried, state) if best < 1.0 else None
        if judged is not None:
            chosen, best = judged, 1.0
        # where no second hop answers, or only the page that named the bridge does, a first hop that answers by
        # itself needs no bridge ("… races a single-handed dinghy named Marsh Hare" for "the dinghy raced by Amos
        # Quint's granddaughter")
        on_page = _on_naming_page(chosen)  # an unverified target is never the naming passage
        if (best <= 0.0 or on_page) and self._answers_itself(question, passages):
            state.note("bridge: no second hop says what was asked, and the first hop does; no bridge kept")
            return passages, None, set()
        bridge, hop, target = chosen
        bridge = replace(bridge, on_page=on_page)
        state.emit("bridge", entity=bridge.entity, query=bridge.query, chunk_id=bridge.chunk_id)
        state.note(f"bridge: the first hop names {bridge.entity!r}; retrieved again with {bridge.query!r}")
        first = next(p for p in passages if p.chunk_id == bridge.chunk_id)
        return _naming_first(first, target, passages, hop), bridge, {p.chunk_id for p in hop}

    def _year_bridge(self, dated: DatedQuestion, passages: list[Passage], state: RunState
                     ) -> tuple[list[Passage], Bridge, set[str]] | None:
        """A bridge by a year (:mod:`.year_bridge`) for a question dated by an event: one retrieval for the event,
        one for the question asked of the year the event's sentence gives; kept where a passage of the second
        (the first ``gates.bridge_candidates`` tried) holds a sentence that answers the question of that year,
        read after the event's sentence. ``None`` (the name bridges are tried) otherwise."""
        found = self._dated_term(dated, state, retrievals=2)
        if found is None:
            return None
        first, bridge, hop, target = found
        state.emit("bridge", entity=bridge.entity, query=bridge.query, chunk_id=bridge.chunk_id)
        state.note(f"bridge: the first hop dates {dated.event!r} to {bridge.entity}; asked {bridge.asks!r}")
        return _naming_first(first, target, passages, hop), bridge, {first.chunk_id, *(p.chunk_id for p in hop)}

    def _dated_term(self, dated: DatedQuestion, state: RunState, retrievals: int
                    ) -> tuple[Passage, Bridge, list[Passage], Passage] | None:
        """The year bridge's two hops for ``dated``, where ``retrievals`` fit the budget: ``(the event's passage, the
        bridge, the second hop, its passage that answers the question of the year)``, or ``None``."""
        if state.usage.retrieval_calls + retrievals > state.budgets.max_retrievals:
            return None
        with stage_scope("bridge"):
            events = self._retrieve(dated.event)
        bridge = find_year_bridge(dated, events)
        if bridge is None:
            state.note(f"bridge: no passage gives the year of {dated.event!r}")
            return None
        with stage_scope("bridge"):
            hop = self._retrieve(bridge.query)
            if not any(features(p.text).spans_year(bridge.entity) for p in hop) and (
                    state.usage.retrieval_calls < state.budgets.max_retrievals):
                hop += self._spanning(bridge)
        first = next(p for p in events if p.chunk_id == bridge.chunk_id)
        # a passage that states a term holding the year is tried first
        tried = sorted((p for p in hop if p.chunk_id != first.chunk_id),
                       key=lambda p: not features(p.text).spans_year(bridge.entity))[: self.gates.bridge_candidates]
        answering = [p for p in tried if self._answers_about(bridge.asks, bridge, events, p)]
        # a passage that states a term holding the year ("Henrik Oldeborg held the post from 1962 to 1979") before one
        # that only has the year ("Clay came from the Tessing pit until 1967")
        target = next((p for p in answering if features(p.text).spans_year(bridge.entity)),
                      answering[0] if answering else None)
        if target is None:
            state.note(f"bridge: no passage says {bridge.asks!r}")
            return None
        return first, replace(bridge, target=target.chunk_id), hop, target

    def _holder_bridge(self, held: HeldPost, passages: list[Passage], state: RunState
                       ) -> tuple[list[Passage], Bridge, set[str]] | None:
        """A bridge through whoever held a post when an event happened (:class:`~.year_bridge.HeldPost`: "In which
        town was the Collector of Customs in office when the Salt Barge Affair came to light born?"): the year bridge
        finds the term that holds the event's year (:meth:`_dated_term`), the holder is the name it gives the term
        (:func:`~.answerability.held_terms`), and the question is asked of that name (one retrieval more), whether or
        not a passage answers it about them: no other name is tried for a post whose holder the passages give.
        ``None`` (the name bridges are tried) where the year or the holder is not found. The event's passage is shown
        after the term's and the answer's, so that all three may be cited."""
        found = self._dated_term(held.holder, state, retrievals=3)
        if found is None:
            return None
        event, dated, hop, term = found
        # the narrowest term that holds the year, in any sentence of the passage (not the list's own span)
        sentences = [strip_citations(raw) for raw in split_sentences(term.text)]
        terms = sorted(((years, name, sentence) for sentence in sentences
                        for years, name in held_terms(dated.entity, sentence)), key=lambda term: term[0])
        if not terms:
            state.note(f"bridge: the term for {dated.entity} names no holder")
            return None
        _, name, sentence = terms[0]
        asks = held.of(name)
        bridge = Bridge(entity=name, chunk_id=term.chunk_id, sentence=sentence, query=asks, asks=asks)
        with stage_scope("bridge"):
            second = self._retrieve(asks)
        target = next((p for p in merge_passages([term], second) if self._answers_about(asks, bridge, [term], p)), None)
        if target is None:  # the holder is known and nothing says it of them: asked of them all the same, the
            state.note(f"bridge: no passage says {asks!r}")  # question is refused, not answered of someone else
        bridge = replace(bridge, target=target.chunk_id if target else "", on_page=target is None or (
            target.chunk_id == term.chunk_id))
        state.emit("bridge", entity=name, query=asks, chunk_id=term.chunk_id)
        state.note(f"bridge: the first hop dates {held.holder.event!r} to {dated.entity}, when {name} held the post; "
                   f"asked {asks!r}")
        shown = _naming_first(term, target or term, [event, *passages], second)
        return shown, bridge, {event.chunk_id, term.chunk_id, *(p.chunk_id for p in (*hop, *second))}

    def _spanning(self, bridge: Bridge) -> list[Passage]:
        """The passages a wider pool (``_YEAR_POOL`` times ``gates.k``) holds beyond the first ``gates.k`` that state a
        term holding the year bridge's year: a list of office holders runs over several chunks, and the one whose term
        holds it ("Dorli Amsel chaired the cooperative from 1990 to 2008" for 1994) need not share the query's year."""
        gates = self.gates
        found = self.retriever.retrieve(bridge.query, gates.k * _YEAR_POOL, lexical=gates.lexical_pool)
        ranked = rerank(bridge.query, found, gates.lexical_weight)
        return [p for p in ranked[gates.k:] if features(p.text).spans_year(bridge.entity)][:1]

    def _judged_bridge(self, question: str, passages: list[Passage], tried: list[tuple[Bridge, list[Passage], Passage]],
                       state: RunState) -> tuple[Bridge, list[Passage], Passage] | None:
        """Where no candidate's second hop says all of what was asked in the rules' reading, the question asked of each
        candidate by name (:func:`~.bridging.hop_question`: "Where did Tobias Quennell work for nine years before
        becoming director?"), which the tuned answer judge reads as it was trained to, a single-hop question: the
        first candidate whose answer sites (:func:`_answer_sites`) hold a sentence of the asked type the judge reads
        as the answer, with a margin of at least ``gates.bridge_rescue``, is the bridge, and asks that question of
        the second hop. A question that asks nothing of the name ("What was the name of Hester Vance?" for "… of
        Hester Vance's father") is not asked. Off (``None``) where the gate is ``RESCUE_OFF`` or above."""
        judge = self._answer_judge() if self.gates.bridge_rescue < RESCUE_OFF else None
        if judge is None:
            return None
        for bridge, hop, target in tried:
            asks = hop_question(question, bridge.entity)
            if asks is None or not asked(asks).attribute:  # the name's own words are no attribute
                continue  # "What was the name of Hester Vance?" asks nothing of her
            # the judge reads sentences, not a context the LM is shown: no budget to spend, nothing to trim
            context = NumberedContext(merge_passages(_answer_sites(bridge, passages, hop, target)), "")
            rescued = rescue_answer(asks, context, judge, self.gates.bridge_rescue, self.gates.rescue_candidates,
                                    typed=True)
            if rescued is not None:
                site = context.passages[rescued.number - 1]
                state.note(f"bridge: the answer judge reads {asks!r} as answered on {site.chunk_id} "
                           f"(margin {rescued.margin:.1f} >= {self.gates.bridge_rescue})")
                return replace(bridge, asks=asks), hop, site
        return None

    def _citable(self, question: str, context: NumberedContext, words: tuple[str, ...], hop: set[str],
                 bridge: Bridge | None) -> set[int]:
        """The numbers of the context's passages an answer may cite: those over the evidence floor (a bridge hop's
        over the bridge floor), those that hold every word the question names, the bridge's target, and a passage
        with one sentence that ranks at least ``sentence_evidence`` against the question (a passage about many
        things embeds far from a question one of its sentences answers)."""
        gates = self.gates
        citable = {n for n, p in enumerate(context.passages, start=1)
                   if p.score >= gates.evidence_floor or (p.chunk_id in hop and p.score >= gates.bridge_floor)
                   or (words and _holds_all(words, p)) or (bridge is not None and p.chunk_id == bridge.target)}
        if gates.sentence_evidence <= 1.0 and len(citable) < len(context.passages):
            citable |= {s.number for s in rank_sentences(question, context) if s.score >= gates.sentence_evidence}
        return citable

    def _answers_itself(self, question: str, passages: list[Passage]) -> bool:
        """Whether the first hop's best passage holds a sentence that says all of what was asked ("Its research
        *vessel*, the Skua" for "What is the station's research boat called?"): the description named the thing
        itself. The sentence must reach the answer floor (``answer_floor``) as the answer without a bridge would: one
        below it ("Born in Kelvasund, he … studied at the provincial college of building" for "where did the architect
        of Orrenbeck Town Hall study") is found only through the bridge."""
        budgets = self.config.budgets
        trial = extractive_answer(question, build_context(passages[:1], budgets.max_context_chars,
                                                          budgets.context_policy), floor=self.gates.answer_floor,
                                  answerability=1.0)
        return bool(trial.chosen)

    def _answers_about(self, question: str, bridge: Bridge, first_hop: list[Passage], target: Passage) -> float:
        """Whether the second hop's ``target``, read after the sentence that named the bridge, holds a sentence
        that answers ``question`` and is about the bridge itself (its passage's title or opening may name it),
        not about whoever else the passage mentions. A year bridge's entity, a year, names no one: there the answer
        need only answer (its ``asks``, the question of that year). Returns how much of the question the answer says
        with the naming sentence (:attr:`~.answerability.Answerability.coverage`), 0 where it does not answer."""
        first = next(p for p in first_hop if p.chunk_id == bridge.chunk_id)
        shown = [first] if target.chunk_id == first.chunk_id else [first, target]  # the bridge's own page named it
        budgets = self.config.budgets
        trial = extractive_answer(question, build_context(shown, budgets.max_context_chars, budgets.context_policy),
                                  floor=0.0, answerability=1e-9, bridge=bridge)
        found = trial.answering
        again = len(shown) == 2 and found is not None and found.text.strip() == bridge.sentence.strip()
        if found is None or found.number != len(shown) or again or not about(
                bridge.entity, f"{target.title}. {opening(target.text)} {found.text}"):
            return 0.0  # the naming sentence again in another chunk (chunks overlap) says nothing a hop further
        return trial.coverage

    def _subqueries(self, question: str) -> list[str]:
        mode = self.config.multi_hop
        if mode == "heuristic":
            return heuristic_subqueries(question)
        if mode == "lm":
            try:
                with stage_scope("planning"):
                    subs = [str(s) for s in (self.split(question=question).sub_questions or []) if str(s).strip()]
            except Exception as exc:  # an unusable plan (garbage reply, parse error): plan without the LM
                from groundqa.runtime.run import recover

                recover(exc, "planning: the LM's sub-questions were unusable; used the heuristic planner")
                return heuristic_subqueries(question)
            return [s for s in subs if s.strip().lower() != question.strip().lower()][:3] if len(subs) > 1 else []
        return []

    def _synthesize(self, question: str, result: GroundedResult, context: NumberedContext, state: RunState,
                    bridge: Bridge | None = None, citable: set[int] | None = None) -> None:
        cfg, gates = self.config, self.gates
        found = None  # the extractive answer, once computed: the fallbacks below reuse it
        if gates.extractive_first < 1.0 and asked(question).kind != "yes_no":  # polar answers need the judge
            found = self._extract(question, context, bridge, citable)
            scores = [c.score for c in found.chosen]
            if (scores and min(scores) >= gates.extractive_first
                    and self._confidence(found.answer, context, scores)[1] >= gates.min_confidence):
                state.note(f"answered from the passages without the LM: the extractive answer scores "
                           f"{min(scores):.2f} >= {gates.extractive_first}")
                return self._finish(result, found.answer, context, scores, mode="extractive")
        if not cfg.generate_unanswered and gates.extractive_first < 1.0:
            state.note("the LM is not asked to write an answer (generate_unanswered off)")
            return self._extractive(question, result, context, bridge, citable, found)
        texts = [p.text for p in context.passages]
        titles = [p.title for p in context.passages]
        try:
            pred = self.synthesize(question=question, context=context.text, passages=texts, format=result.format,
                                   titles=titles, gates=gates, max_tokens=self.config.budgets.max_answer_tokens)
        except ContractError as failure:
            self._record_attempts(state, failure)
            result.violations = _violation_counts(failure)
            state.note(f"the LM did not meet the citation contract in {cfg.max_attempts} attempt(s)")
            if cfg.fallback == "extractive":
                return self._extractive(question, result, context, bridge, citable, found)
            if all(a.outcome == "error" or {v.key for v in a.violations} <= GENERATION_FAILURES
                   for a in failure.attempts):
                raise state.stop(ExitReason.LM_GENERATION_FAILURE,
                                 f"the LM produced no usable answer in {len(failure.attempts)} attempt(s)") from failure
            return self._abstain(result, AbstainReason.CONTRACT_FAILED, str(failure))
        self._record_attempts(state, pred)
        result.violations = _violation_counts(pred)
        if pred.declined:
            return self._abstain(result, AbstainReason.NO_EVIDENCE, "the LM found no answer in the passages")
        checks = analyse(pred.answer, context.size)
        if bridge is not None and {context.passages[n - 1].chunk_id for c in checks for n in c.cited} <= {bridge.chunk_id}:
            state.note(f"the generated answer cites only the passage that names {bridge.entity!r}, not a second hop")
            pred.relevant = False
        if not pred.relevant:
            state.note(f"the generated answer does not contain what the question asks for "
                       f"(answerability {pred.answerability:.2f} < {gates.answerability})")
            if cfg.fallback == "extractive":
                return self._extractive(question, result, context, bridge, citable, found)
            return self._abstain(result, AbstainReason.NOT_ANSWERED, "the answer does not contain what was asked")
        weak = {s.index for s in pred.support if not s.supported}
        if citable is not None:  # a sentence resting only on passages below the evidence floor is not kept
            weak |= {c.index for c in checks if c.cited and not set(c.cited) & citable}
        if weak:
            if cfg.unsupported_policy == "abstain":
                return self._abstain(result, AbstainReason.CONTRACT_FAILED,
                                     f"{len(weak)} sentence(s) not supported by their citations")
            state.note(f"dropped {len(weak)} unsupported sentence(s)")
        keep = {c.index for c in checks if c.index not in weak and (c.cited or not c.factual)}
        if not any(c.factual and c.index in keep for c in checks):
            if cfg.fallback == "extractive":
                state.note("no supported sentence left; falling back to an extractive answer")
                return self._extractive(question, result, context, bridge, citable, found)
            return self._abstain(result, AbstainReason.CONTRACT_FAILED, "no supported sentence left")
        answer = render(checks, keep)
        supported = [s.confidence for s in pred.support if s.index in keep]
        self._finish(result, answer, context, supported, mode="generated")

    def _extract(self, question: str, context: NumberedContext, bridge: Bridge | None,
                 citable: set[int] | None) -> Extraction:
        gates = self.gates
        found = extractive_answer(question, context, floor=gates.answer_floor, answerability=gates.answerability,
                                  bridge=bridge, citable=citable, conflict_coverage=gates.contradiction,
                                  value_bonus=gates.value_bonus,
                                  judge=self._answer_judge() if gates.answer_judge > JUDGE_OFF else None,
                                  judge_floor=gates.answer_judge)
        run = current_run()
        if found.judged and run is not None:
            run.emit("answer_judge", margins=[round(m, 2) for _, m in found.judged], floor=gates.answer_judge)
            vetoed = sum(m < gates.answer_judge for _, m in found.judged)
            if vetoed:
                run.note(f"the answer judge doubted {vetoed} sentence(s) the answerability check accepted "
                         f"(margin below {gates.answer_judge})")
        if found.chosen and asked(question).kind is None:
            found = self._prefer(question, context, citable, found)
        return found

    def _rescue(self, question: str, context: NumberedContext, citable: set[int] | None, floor: float,
                refusal: AbstainReason = AbstainReason.NOT_ANSWERED, typed: bool = False) -> Rescue | None:
        """A sentence the tuned answer judge reads as the answer (:mod:`.rescue`), with a margin of at least ``floor``
        (a gate; ``RESCUE_OFF`` and above: not asked), where the program would refuse with ``refusal``: the rules
        found no sentence that answers (``answer_rescue``), or premise verification found no passage for a
        presupposition (``premise_rescue``; there no sentence that denies something is read: it is more likely to deny
        the presupposition than to answer). ``typed``: only sentences that hold a value of the asked type are read
        (``typed_rescue``: such a sentence needs less margin, since it holds the kind of thing asked for)."""
        judge = self._answer_judge() if floor < RESCUE_OFF else None
        if judge is None:
            return None
        rescued = rescue_answer(question, context, judge, floor, self.gates.rescue_candidates, citable, typed=typed,
                                denials=refusal is not AbstainReason.PREMISE_UNSUPPORTED)
        run = current_run()
        if rescued is not None and run is not None:
            run.emit("rescue", margin=round(rescued.margin, 2), floor=floor, passage=rescued.number,
                     refusal=refusal.value, typed=typed)
            held = ", holding a value of the asked type," if typed else ""
            run.note(f"the answer judge read a passage sentence{held} as the answer where the program would have "
                     f"refused ({refusal.value}): margin {rescued.margin:.1f} >= {floor}, so it is quoted")
        return rescued

    def _prefer(self, question: str, context: NumberedContext, citable: set[int] | None,
                found: Extraction) -> Extraction:
        """The judge's second opinion on the sentences the rules chose for a question without an asked type
        (:func:`.rescue.second_opinion`, gates ``answer_preference``, ``preference_trust`` and ``preference_floor``):
        ``found`` with the sentence it prefers quoted instead (scored by the judge's probability, as a rescue is), with
        nothing quoted where it doubts the rules' choice and prefers none, or ``found`` as it is."""
        gates = self.gates
        judge = self._answer_judge() if gates.answer_preference < RESCUE_OFF else None
        if judge is None:
            return found
        opinion = second_opinion(question, context, judge, found.chosen, gates.answer_preference,
                                 gates.rescue_candidates, citable,
                                 trust=gates.preference_trust if gates.preference_trust < RESCUE_OFF else math.inf)
        run = current_run()
        if opinion.preferred is not None:
            chosen = opinion.preferred
            if run is not None:
                run.emit("preference", margin=round(chosen.margin, 2), replaced=round(opinion.quoted, 2),
                         lead=gates.answer_preference, passage=chosen.number)
                run.note(f"the answer judge preferred another passage sentence to the one the rules chose: margin "
                         f"{chosen.margin:.1f} against {opinion.quoted:.1f} (lead {gates.answer_preference}), so it "
                         "is quoted")
            sentence = ScoredSentence(round(chosen.support, 4), chosen.number, chosen.text)
            return replace(found, answer=chosen.answer, chosen=[sentence], answering=sentence)
        if opinion.quoted < gates.preference_floor and gates.preference_floor > JUDGE_OFF:
            doubt = f"the answer judge reads no answer in it: margin {opinion.quoted:.1f} < {gates.preference_floor}"
            if run is not None:
                run.emit("preference", margin=None, replaced=round(opinion.quoted, 2), floor=gates.preference_floor)
                run.note(f"{doubt}, and in no other sentence; nothing is quoted")
            return replace(found, answer="", chosen=[], answering=None,
                           shortfall=Answerability(0.0, True, found.coverage, (doubt,)))
        return found

    @staticmethod
    def _answer_judge() -> AnswerJudgment | None:
        """The tuned answer judge's margin function (:mod:`groundqa.judges.answer_judge`). A missing or damaged
        adapter ends the run with one line (:func:`~groundqa.runtime.run.recover` re-raises it); any other failure
        to load it is noted on the run and the answer is chosen without it (``None``)."""
        try:
            return budgeted(shared_answer_judge().margin)
        except Exception as exc:
            recover(exc, "the answer judge could not be loaded; sentences were chosen without it")
            return None

    def _extractive(self, question: str, result: GroundedResult, context: NumberedContext,
                    bridge: Bridge | None = None, citable: set[int] | None = None,
                    found: Extraction | None = None) -> None:
        gates = self.gates
        kind = asked(question).kind
        if kind == "yes_no":
            polar = polar_answer(question, context, get_judge(self.config.support_judge), gates.support_threshold,
                                 gates.contradiction, citable, gates.denial_similarity)
            if polar is None:
                return self._abstain(result, AbstainReason.NOT_ANSWERED,
                                     "no passage says yes or no to what the question asks")
            return self._finish(result, polar.text, context, [polar.support], mode="extractive")
        found = found if found is not None else self._extract(question, context, bridge, citable)
        if found.chosen:
            return self._finish(result, found.answer, context, [c.score for c in found.chosen], mode="extractive")
        if found.denial is not None:  # "The circus never owned a locomotive": the premise is corrected
            return self._correct(result, question, found.denial, context)
        if found.swapped:  # the question was made from its best sentence by a swap: the judge may not overrule that
            return self._abstain(result, AbstainReason.NOT_ANSWERED,
                                 f"the passages near the question do not state what it asks for (the best sentence "
                                 f"{found.swapped})")
        if found.shortfall is not None:
            rescued = self._rescue(question, context, citable, gates.answer_rescue)
            if rescued is None and kind is not None:  # a second reading, of sentences holding the asked type
                rescued = self._rescue(question, context, citable, gates.typed_rescue, typed=True)
            if rescued is not None:
                return self._finish(result, rescued.answer, context, [rescued.support], mode="extractive")
            missing = ", ".join(found.shortfall.missing) or "the kind of value asked for"
            return self._abstain(result, AbstainReason.NOT_ANSWERED,
                                 f"the passages near the question do not state what it asks for ({missing})")
        return self._abstain(result, AbstainReason.LOW_CONFIDENCE,
                             "no passage sentence is close enough to the question for an extractive answer")

    def _correct(self, result: GroundedResult, question: str, denial: ScoredSentence, context: NumberedContext) -> None:
        """Abstain ``premise_contradicted`` with ``denial``, the sentence that says what the question asks about is not
        so, as the correction (CREPE's correction, read off the answer's sentences rather than the question's
        presuppositions)."""
        passage = context.passages[denial.number - 1]
        correction = _citation(denial.number, passage).model_copy(update={"snippet": denial.text})
        verdict = PremiseVerdict(claim=question.strip().rstrip("?"), supported=False, evidence=[passage.chunk_id],
                                 rationale="the sentence says it is not so", status="contradicted",
                                 correction=correction)
        result.premises = [*result.premises, verdict]
        self._abstain(result, AbstainReason.PREMISE_CONTRADICTED,
                      f'The question assumes what the sources say is not so: "{denial.text.rstrip()}"')
        result.correction = correction

    @staticmethod
    def _confidence(answer: str, context: NumberedContext, support: list[float]) -> tuple[list[int], float]:
        """(the passage numbers ``answer`` cites, its confidence by the documented formula)."""
        numbers = list(dict.fromkeys(n for n in citation_numbers(answer) if 1 <= n <= context.size))
        cited = [context.passages[n - 1] for n in numbers]
        s = sum(support) / len(support) if support else 0.0
        r = sum(p.score for p in cited) / len(cited) if cited else 0.0
        return numbers, round(max(0.0, min(1.0, 0.6 * s + 0.4 * r)), 4)

    def _finish(self, result: GroundedResult, answer: str, context: NumberedContext, support: list[float],
                mode: Literal["generated", "extractive"]) -> None:
        numbers, result.confidence = self._confidence(answer, context, support)
        cited = [context.passages[n - 1] for n in numbers]
        if result.confidence < self.gates.min_confidence:
            return self._abstain(result, AbstainReason.LOW_CONFIDENCE,
                                 f"confidence {result.confidence:.2f} is below {self.gates.min_confidence}")
        result.answer, result.mode, result.abstained = answer, mode, False
        result.abstain_reason, result.abstain_message = None, ""  # a premise refusal the answer judge overturned
        result.citations = [_citation(n, p) for n, p in zip(numbers, cited, strict=True)]

    @staticmethod
    def _abstain(result: GroundedResult, reason: AbstainReason, message: str) -> None:
        result.abstained, result.abstain_reason, result.abstain_message = True, reason, message
        result.answer, result.citations, result.mode = "", [], "none"

    @staticmethod
    def _record_attempts(state: RunState, outcome: Any) -> None:
        """Put every synthesis attempt (number, feedback, outcome, latency) in the trace and the stream."""
        report = _report_of(outcome)
        for attempt in report.attempts if report is not None else []:
            data = {"module": report.module, "attempt": attempt.number, "outcome": attempt.outcome,
                    "feedback": [*attempt.feedback.values(), *attempt.messages],
                    "latency_ms": round(attempt.latency_ms, 3)}
            if state.trace is not None:
                state.trace.add(ContractAttempt, "att", **data)
            state.emit("attempt", **data)


def _naming_first(first: Passage, target: Passage, passages: list[Passage], hop: list[Passage]) -> list[Passage]:
    """What a bridged question is shown: the passage that named the bridge, the second hop's passage that answers,
    then the rest of both retrievals (so the pair survives the context cut)."""
    pair = (first.chunk_id, target.chunk_id)
    return [*merge_passages([first], [target]), *merge_passages([p for p in passages if p.chunk_id not in pair],
                                           [p for p in hop if p.chunk_id not in pair])]


def _on_naming_page(chosen: tuple[Bridge, list[Passage], Passage] | None) -> bool:
    """Whether a bridge's answer was found on the page that named it (its own page, the first hop again)."""
    return chosen is not None and chosen[2].chunk_id == chosen[0].chunk_id


def _answer_sites(bridge: Bridge, first_hop: list[Passage], hop: list[Passage], target: Passage) -> list[Passage]:
    """Where the answer about a bridge is looked for, in order: the second hop's preferred passage, the rest of the
    bridge's own page among the second hop (a person's birth year is in the opening chunk of their page, though the
    chunk that says "born" may rank above it), then the passage that named the bridge where that is its page
    ("Anselm Varrick (1889–1962) was a mountain guide … and the founder of the Kessarn Valley Mountain Rescue")."""
    sites = [target, *(p for p in hop if p.chunk_id not in (target.chunk_id, bridge.chunk_id)
                       and about(bridge.entity, p.title))]
    naming = next(p for p in first_hop if p.chunk_id == bridge.chunk_id)
    if about(bridge.entity, naming.title):
        sites.append(naming)
    return sites


def _holds_all(words: tuple[str, ...], passage: Passage) -> bool:
    """Whether ``passage`` (title included) holds every one of ``words`` (word stems)."""
    unit = features(f"{passage.title}. {passage.text}")
    return all(unit.covers(word) for word in words)


def _report_of(outcome: Any) -> ContractReport | None:
    return outcome.report if isinstance(outcome, ContractError) else getattr(outcome, "contract", None)


def _citation(number: int, passage: Passage) -> Citation:
    return Citation.of(number, passage)


def _violation_counts(outcome: Any) -> dict[str, int]:
    """Violations by kind and by message key, over every attempt (visible to metrics)."""
    report = _report_of(outcome)
    if report is None:
        return {}
    return {"hard": report.hard_violations, "soft": report.soft_violations, **report.by_key}


__all__ = ["GroundedQA", "QAConfig", "check_question"]
