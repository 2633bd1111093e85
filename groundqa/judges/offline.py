"""The offline entailment judge: deterministic, lexical + MiniLM; the default for tests and the embedded setup.

The premises are judged *jointly* (ALCE concatenates the cited passages into one premise); a premise
may start with a ``"Title: ...\\n"`` line, as :func:`groundqa.metrics.citations.format_passage` writes.
MiniLM is reached through an injected ``embedder``, or lazily through the store's shared one, so the
judge depends on the store layer only when it first embeds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

import numpy as np

from groundqa.judges.base import Verdict
from groundqa.judges.lexical import TextFeatures, features, names_conflict, token_features
from groundqa.judges.paraphrase import says
from groundqa.judges.premise_units import ParsedPremise, bridged, parse_premise, union

NEGATION_MISMATCH = "negation mismatch"
CONTRADICTED = "contradicted by a negated statement"


@dataclass
class _Scored:
    """One unit (or a bridged group of units) scored against the hypothesis."""

    unit_premises: tuple[int, ...]
    feats: TextFeatures
    sim: float
    coverage: float
    score: float
    problems: list[str]
    missing: list[str]


@dataclass
class _UnitSearch:
    """What scoring every single-premise unit found."""

    best: _Scored | None = None
    contradiction: _Scored | None = None
    """The best-covering one-sentence unit that negates the hypothesis."""
    joint_pool: list[_Scored] = field(default_factory=list)
    """Each premise's two units covering most of the hypothesis: the candidates for joint support."""


class OfflineJudge:
    """Deterministic entailment judge: content-token coverage + hard checks + MiniLM similarity.

    What it approximates: ALCE scores citations with an 11B NLI model (TRUE, T5-XXL), which cannot run
    here. This judge approximates "the premise states the hypothesis" for *extractive-style* grounded
    answers: it is strong on the errors grounded QA makes most (changed numbers/years, swapped names
    and namesakes, flipped negation, unrelated or partially supported sentences) and weak on deep
    paraphrase, inference and subtle contradictions with identical wording.

    Algorithm, per premise "unit" (one sentence or two adjacent sentences, with or without the
    passage title; units of up to 3 premises are also combined when they share a name — a bridge):

    * coverage = share of the hypothesis's content tokens (light stems, numbers) found in the unit;
    * similarity = cosine (MiniLM) between the hypothesis and the unit's best sentence, scaled to
      [0, 1] between ``sim_low`` and ``sim_high``;
    * score = ``coverage_weight * coverage + (1 - coverage_weight) * similarity``;
    * hard checks: every number/year of the hypothesis must be in the unit (else score <= 0.2),
      every token of a capitalised name must be in the unit (else score <= 0.3), units holding a
      namesake (same surname, other given name) of a hypothesis name are skipped, and a negation
      mismatch (one side negates what the other asserts) halves the score;
    * the best unit wins, unless a single sentence that negates the hypothesis covers it at least as
      well (then: contradicted);
    * entailed iff no hard check failed, coverage >= ``min_coverage`` (0.7) and score >= ``min_score``
      (0.62). ``confidence`` is the score when entailed and ``1 - score`` otherwise.

    Measured (``python -m benchmarks.judge_agreement``): agrees with the hand labels on 91% of 160 pairs
    (146/160, Cohen's kappa 0.82; entailed class precision 0.89, recall 0.95). Thresholds were set on
    the "dev" split (54 pairs, 98%); "test" (53, 87%) and "holdout" (26, 92%) were inspected while the
    rules were developed, so they are optimistic; the "final" split (27 pairs written after the judge
    was frozen) is the honest figure: 85% (kappa 0.70). Its errors are the expected ones: a single
    swapped common word ("physics" -> "chemistry", "younger" -> "older"), relation errors with all words
    present ("born in Duvelle" when she trained there) and inferences ("twenty years" = "two decades").
    Speed: 3,000-10,000 judgements/s (2 busy cores) once embeddings are cached; repeated verdicts are
    served from a cache. Call :meth:`warm_up` to embed many texts in one batch first.
    """

    name = "offline"

    def __init__(
        self,
        *,
        use_embeddings: bool = True,
        embedder: Any | None = None,
        min_coverage: float = 0.7,
        min_score: float = 0.62,
        coverage_weight: float = 0.6,
        sim_low: float = 0.3,
        sim_high: float = 0.85,
        cache_size: int = 100_000,
    ) -> None:
        self.use_embeddings = use_embeddings
        self._embedder = embedder
        self.min_coverage = min_coverage
        self.min_score = min_score
        self.coverage_weight = coverage_weight if use_embeddings else 1.0
        self.sim_low = sim_low
        self.sim_high = sim_high
        self._vectors: dict[str, np.ndarray] = {}
        self._verdicts: dict[tuple[str, tuple[str, ...]], Verdict] = {}
        self._cache_size = cache_size
        self._lock = threading.Lock()

    # -- embeddings ------------------------------------------------------------------------------
    def _embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            if self._embedder is None:
                from groundqa.store.embeddings import get_embedder

                self._embedder = get_embedder()
            vectors = self._embedder.embed(missing)
            with self._lock:
                if len(self._vectors) > self._cache_size:
                    self._vectors.clear()
                for text, vec in zip(missing, vectors, strict=True):
                    self._vectors[text] = np.asarray(vec, dtype=np.float32)
        return [self._vectors[t] for t in texts]

    def warm_up(self, texts: Sequence[str]) -> None:
        """Embed hypotheses and premises ahead of time in one batch (much faster than one by one).

        Each text is embedded whole and, if it is a passage, sentence by sentence.
        """
        if not self.use_embeddings:
            return
        batch: list[str] = []
        for text in texts:
            batch.append(text)
            batch.extend(parse_premise(text).sentences)
        self._embed(list(dict.fromkeys(batch)))

    def clear_memory(self) -> None:
        """Forget the cached vectors and verdicts (a benchmark's cold start); the embedder stays loaded."""
        with self._lock:
            self._vectors.clear()
            self._verdicts.clear()

    # -- judging -----------------------------------------------------------------------------------
    def judge(self, hypothesis: str, premises: Sequence[str], *, polarity: bool = True) -> Verdict:
        """Judge whether ``premises`` jointly entail ``hypothesis`` (deterministic, cached). Without
        ``polarity`` a premise that negates what the hypothesis asserts is read as near it, not as its opposite
        (how near a passage comes to what a question asks about, whichever way it says it); a negated hypothesis
        still needs a negated premise."""
        key = (hypothesis, tuple(premises), polarity)
        cached = self._verdicts.get(key)
        if cached is not None:
            return cached
        verdict = self._judge(hypothesis, list(premises), polarity)
        with self._lock:
            if len(self._verdicts) > self._cache_size:
                self._verdicts.clear()
            self._verdicts[key] = verdict
        return verdict

    def _judge(self, hypothesis: str, premises: list[str], polarity: bool = True) -> Verdict:
        hyp = features(hypothesis)
        if not hyp.content:
            return Verdict(entailed=False, confidence=1.0, rationale="the hypothesis has no content words")
        parsed = [parse_premise(p) for p in premises]
        if not any(p.sentences for p in parsed):
            return Verdict(entailed=False, confidence=1.0, rationale="no premise text")
        sims = self._sentence_similarities(hypothesis, parsed)
        asserted = token_features(hyp.content - hyp.negated)  # what the hypothesis states positively
        search = self._score_units(hyp, asserted, parsed, sims, polarity)
        best = search.best
        if len(parsed) > 1:
            best = self._better(self._best_joint(hyp, asserted, search.joint_pool, polarity), best)
        if best is None:
            return Verdict(entailed=False, confidence=0.9, rationale="every premise unit names a namesake")
        return self._verdict(self._unless_contradicted(best, search.contradiction))

    def _sentence_similarities(self, hypothesis: str, parsed: list[ParsedPremise]) -> list[np.ndarray]:
        """Per premise, the cosine of the hypothesis with each of its sentences (empty without embeddings)."""
        if not self.use_embeddings:
            return []
        all_sentences = [s for p in parsed for s in p.sentences]
        vecs = self._embed([hypothesis, *all_sentences])
        hvec, svecs = vecs[0], vecs[1:]
        sims: list[np.ndarray] = []
        offset = 0
        for p in parsed:
            n = len(p.sentences)
            sims.append(np.array([float(hvec @ v) for v in svecs[offset : offset + n]], dtype=np.float32))
            offset += n
        return sims

    def _score_units(self, hyp: TextFeatures, asserted: TextFeatures, parsed: list[ParsedPremise],
                     sims: list[np.ndarray], polarity: bool = True) -> _UnitSearch:
        """Score every unit of every premise on its own, skipping units that name a namesake."""
        search = _UnitSearch()
        for index, premise in enumerate(parsed):
            scored_units: list[_Scored] = []
            for unit in premise.units:
                if names_conflict(hyp.names, unit.conflict_names, hyp.tokens):
                    continue
                sim = max(float(sims[index][i]) for i in unit.sentences) if sims else 0.0
                scored = self._score(hyp, unit.feats, sim, (index,), asserted, polarity)
                scored_units.append(scored)
                if len(unit.sentences) == 1 and _negates(scored, search.contradiction):
                    search.contradiction = scored
                search.best = self._better(scored, search.best)
            # For joint support keep each premise's two units that cover most of the hypothesis.
            scored_units.sort(key=lambda s: (s.coverage, s.sim), reverse=True)
            search.joint_pool.extend(scored_units[:2])
        return search

    def _best_joint(self, hyp: TextFeatures, asserted: TextFeatures, pool: list[_Scored],
                    polarity: bool = True) -> _Scored | None:
        """The best bridged group of 2 or 3 units from different premises, scored as one text.

        ALCE judges the cited passages concatenated, so a claim may draw on several of them.
        """
        best: _Scored | None = None
        for combo in _joint_candidates(pool):
            used = tuple(sorted(c.unit_premises[0] for c in combo))
            feats = union([c.feats for c in combo])
            best = self._better(self._score(hyp, feats, max(c.sim for c in combo), used, asserted, polarity), best)
        return best

    def _unless_contradicted(self, best: _Scored, contradiction: _Scored | None) -> _Scored:
        """A negated statement covering the hypothesis at least as well as the best support wins."""
        if (
            contradiction is not None
            and not best.problems
            and contradiction.coverage >= max(self.min_coverage, best.coverage)
        ):
            return replace(contradiction, problems=[CONTRADICTED])
        return best

    def _verdict(self, best: _Scored) -> Verdict:
        entailed = self._passes(best)
        confidence = best.score if entailed else 1.0 - best.score
        return Verdict(
            entailed=entailed,
            confidence=round(min(1.0, max(0.0, confidence)), 4),
            evidence=list(best.unit_premises) if entailed else [],
            rationale=self._rationale(best),
        )

    def _rationale(self, best: _Scored) -> str:
        rationale = f"coverage {best.coverage:.2f}"
        if best.missing:
            rationale += f" (missing: {', '.join(best.missing[:6])})"
        if self.use_embeddings:
            rationale += f"; similarity {best.sim:.2f}"
        rationale += f"; score {best.score:.2f}; premises {[i + 1 for i in best.unit_premises]}"
        if best.problems:
            rationale += "; " + "; ".join(best.problems)
        return rationale

    def _passes(self, s: _Scored) -> bool:
        return not s.problems and s.coverage >= self.min_coverage and s.score >= self.min_score

    def _rank(self, s: _Scored) -> tuple[bool, float, float]:
        return (self._passes(s), s.score, -len(s.unit_premises))

    def _better(self, candidate: _Scored | None, incumbent: _Scored | None) -> _Scored | None:
        """``candidate`` if it ranks strictly higher than ``incumbent`` (ties keep the earlier one)."""
        if candidate is None:
            return incumbent
        if incumbent is None or self._rank(candidate) > self._rank(incumbent):
            return candidate
        return incumbent

    def _score(self, hyp: TextFeatures, unit: TextFeatures, sim: float, premises: tuple[int, ...],
               asserted: TextFeatures, polarity: bool = True) -> _Scored:
        # a word said otherwise counts ("quit the Board" / "resigned from the Board"; :mod:`.paraphrase`)
        missing = sorted(t for t in hyp.content
                         if not says(t, unit) and not unit.covers_in_compound(t, hyp.content - {t}))
        coverage = 1.0 - len(missing) / len(hyp.content)
        if self.use_embeddings:
            scaled = min(1.0, max(0.0, (sim - self.sim_low) / (self.sim_high - self.sim_low)))
            score = self.coverage_weight * coverage + (1.0 - self.coverage_weight) * scaled
        else:
            score = coverage
        problems: list[str] = []
        missing_numbers = sorted(n for n in hyp.numbers - unit.numbers if not unit.covers(n))  # a decade: a year of it
        if missing_numbers:
            problems.append(f"number(s) {', '.join(missing_numbers)} not in the premise")
            score = min(score, 0.2)
        missing_names = sorted({tok for name in hyp.names if not _named_by_surname(name, unit)
                                for tok in name if not unit.covers_misspelt(tok)
                                and not unit.covers_in_compound(tok, set(name) - {tok})})
        if missing_names:
            problems.append(f"name(s) {', '.join(missing_names)} not in the premise")
            score = min(score, 0.3)
        if (hyp.negated and not unit.negated) or (
            polarity and not hyp.negated and any(asserted.covers(h) for h in unit.negated)
        ):
            problems.append(NEGATION_MISMATCH)
            score *= 0.5
        return _Scored(premises, unit, sim, coverage, score, problems, missing)


def _named_by_surname(name: tuple[str, ...], unit: TextFeatures) -> bool:
    """A name of two words or more whose last word is in ``unit``, which names nobody else of that surname:
    passages name a person by surname after the first mention ("Westraven received the Halden Prize" for
    "Cormac Westraven"), but "Greta Voss" is not "Henrik Voss"."""
    return (len(name) >= 2 and unit.covers_misspelt(name[-1])
            and not any(len(other) >= 2 and other[-1] == name[-1] and other[:-1] != name[:-1] for other in unit.names))


def _negates(scored: _Scored, contradiction: _Scored | None) -> bool:
    """``scored`` negates the hypothesis and covers it better than the contradiction found so far."""
    return scored.problems == [NEGATION_MISMATCH] and (
        contradiction is None or scored.coverage > contradiction.coverage
    )


def _joint_candidates(pool: list[_Scored]) -> Iterator[tuple[_Scored, ...]]:
    """Bridged groups of 2 or 3 units, each from another of the 4 premises that cover most."""
    premise_rank = sorted({s.unit_premises[0] for s in pool},
                          key=lambda i: max(s.coverage for s in pool if s.unit_premises[0] == i),
                          reverse=True)[:4]
    kept = [s for s in pool if s.unit_premises[0] in premise_rank]
    for size in (2, 3):
        for combo in combinations(kept, size):
            if len({c.unit_premises[0] for c in combo}) < size:
                continue
            if bridged([c.feats for c in combo]):
                yield combo
