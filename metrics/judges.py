"""Entailment judges behind one interface: ``judge(hypothesis, premises) -> Verdict``.

* :class:`OfflineJudge` — deterministic, lexical + MiniLM; the default for tests and the embedded setup.
* :class:`LMJudge` — asks the configured DSPy LM with :class:`groundqa.signatures.qa.JudgeClaim`.
* :func:`get_judge` — ``"offline"`` | ``"lm"`` | ``"auto"`` (LM if one is configured, else offline).

The premises are judged *jointly* (ALCE concatenates the cited passages into one premise); a premise
may start with a ``"Title: ...\\n"`` line, as :func:`groundqa.metrics.citations.format_passage` writes.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, Field

from groundqa.metrics.lexical import TextFeatures, features, names_conflict, token_features
from groundqa.text import split_sentences

NEGATION_MISMATCH = "negation mismatch"


class JudgeNotConfiguredError(RuntimeError):
    """The LM judge was asked to judge but no DSPy LM is configured."""


class Verdict(BaseModel):
    """A judge's decision on one hypothesis against a set of premises."""

    entailed: bool
    confidence: float = Field(ge=0.0, le=1.0, description="confidence in the verdict as given")
    evidence: list[int] = Field(default_factory=list, description="0-based indices of supporting premises")
    rationale: str = ""

    @property
    def support(self) -> float:
        """Probability-like support for *entailed*: ``confidence`` if entailed else ``1 - confidence``."""
        return self.confidence if self.entailed else 1.0 - self.confidence


@runtime_checkable
class EntailmentJudge(Protocol):
    """Decides whether the premises (jointly) entail the hypothesis."""

    name: str

    def judge(self, hypothesis: str, premises: Sequence[str]) -> Verdict: ...


# --------------------------------------------------------------------------------------------------
# Offline judge
# --------------------------------------------------------------------------------------------------


def _union(parts: Sequence[TextFeatures]) -> TextFeatures:
    if len(parts) == 1:
        return parts[0]
    return TextFeatures(
        tokens=frozenset().union(*(p.tokens for p in parts)),
        content=frozenset().union(*(p.content for p in parts)),
        numbers=frozenset().union(*(p.numbers for p in parts)),
        names=tuple(n for p in parts for n in p.names),
        negated=frozenset().union(*(p.negated for p in parts)),
        prefixes=frozenset().union(*(p.prefixes for p in parts)),
    )


def _bridged(parts: Sequence[TextFeatures]) -> bool:
    """Joint support needs a bridge: every unit shares a name token with another unit of the group.

    Without one, the union of two unrelated passages ("the railway ..." + "... bought by Meerkant in
    2015") would lexically "support" a claim that neither makes.
    """
    name_sets = [{tok for name in p.names for tok in name} for p in parts]
    return all(any(name_sets[i] & name_sets[j] for j in range(len(parts)) if j != i) for i in range(len(parts)))


@dataclass(frozen=True)
class _Unit:
    """A window of one or two premise sentences, optionally with the premise's header (title)."""

    premise: int
    sentences: tuple[int, ...]
    with_header: bool
    feats: TextFeatures
    conflict_names: tuple[tuple[str, ...], ...]
    """Names for the namesake check: the unit's own, plus the header's for a sentence opening with a
    subject pronoun ("She retired in 2011." under the title "Odile Marchetti" is about Odile)."""


@dataclass(frozen=True)
class _Premise:
    header: str | None
    sentences: tuple[str, ...]
    units: tuple[_Unit, ...]


_SUBJECT_PRONOUN = re.compile(r"^\W*(?:he|she|they|it)\b", re.IGNORECASE)


@lru_cache(maxsize=20_000)
def _parse_premise(text: str) -> _Premise:
    header: str | None = None
    body = text.strip()
    first, _, rest = body.partition("\n")
    if first.lower().startswith("title:"):
        header, body = first[6:].strip() or None, rest.strip()
    sentences = tuple(split_sentences(body)) or ((body,) if body else ())
    if header is None and len(sentences) > 1:
        header = sentences[0]  # the first sentence usually names the subject of later pronouns
    sent_feats = [features(s) for s in sentences]
    head_feats = features(header) if header else None
    implied = [
        head_feats.names if head_feats is not None and _SUBJECT_PRONOUN.match(s) else () for s in sentences
    ]
    units: list[_Unit] = []
    windows = [(i,) for i in range(len(sentences))] + [(i, i + 1) for i in range(len(sentences) - 1)]
    for window in windows:
        parts = [sent_feats[i] for i in window]
        feats = _union(parts)
        conflict = feats.names + tuple(n for i in window for n in implied[i])
        units.append(_Unit(-1, window, False, feats, conflict))
        if head_feats is not None and not (header == sentences[0] and 0 in window):
            with_head = _union([head_feats, *parts])
            units.append(_Unit(-1, window, True, with_head, with_head.names + conflict))
    return _Premise(header, sentences, tuple(units))


@dataclass
class _Scored:
    unit_premises: tuple[int, ...]
    feats: TextFeatures
    sim: float
    coverage: float
    score: float
    problems: list[str]
    missing: list[str]


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
            batch.extend(_parse_premise(text).sentences)
        self._embed(list(dict.fromkeys(batch)))

    # -- judging -----------------------------------------------------------------------------------
    def judge(self, hypothesis: str, premises: Sequence[str]) -> Verdict:
        """Judge whether ``premises`` jointly entail ``hypothesis`` (deterministic, cached)."""
        key = (hypothesis, tuple(premises))
        cached = self._verdicts.get(key)
        if cached is not None:
            return cached
        verdict = self._judge(hypothesis, list(premises))
        with self._lock:
            if len(self._verdicts) > self._cache_size:
                self._verdicts.clear()
            self._verdicts[key] = verdict
        return verdict

    def _judge(self, hypothesis: str, premises: list[str]) -> Verdict:
        hyp = features(hypothesis)
        if not hyp.content:
            return Verdict(entailed=False, confidence=1.0, rationale="the hypothesis has no content words")
        parsed = [_parse_premise(p) for p in premises]
        if not any(p.sentences for p in parsed):
            return Verdict(entailed=False, confidence=1.0, rationale="no premise text")
        sims: list[np.ndarray] = []
        if self.use_embeddings:
            all_sentences = [s for p in parsed for s in p.sentences]
            vecs = self._embed([hypothesis, *all_sentences])
            hvec, svecs = vecs[0], vecs[1:]
            offset = 0
            for p in parsed:
                n = len(p.sentences)
                sims.append(np.array([float(hvec @ v) for v in svecs[offset : offset + n]], dtype=np.float32))
                offset += n

        asserted = token_features(hyp.content - hyp.negated)  # what the hypothesis states positively
        joint_pool: list[_Scored] = []
        best: _Scored | None = None
        contradiction: _Scored | None = None  # the best-covering unit that negates the hypothesis
        for index, premise in enumerate(parsed):
            scored_units: list[_Scored] = []
            for unit in premise.units:
                if names_conflict(hyp.names, unit.conflict_names, hyp.tokens):
                    continue
                sim = max(float(sims[index][i]) for i in unit.sentences) if sims else 0.0
                scored = self._score(hyp, unit.feats, sim, (index,), asserted)
                scored_units.append(scored)
                if len(unit.sentences) == 1 and scored.problems == [NEGATION_MISMATCH] and (
                    contradiction is None or scored.coverage > contradiction.coverage
                ):
                    contradiction = scored
                if best is None or self._rank(scored) > self._rank(best):
                    best = scored
            # For joint support keep each premise's two units that cover most of the hypothesis.
            scored_units.sort(key=lambda s: (s.coverage, s.sim), reverse=True)
            joint_pool.extend(scored_units[:2])
        # Joint support across passages (ALCE judges the cited passages concatenated).
        if len(parsed) > 1:
            premise_rank = sorted({s.unit_premises[0] for s in joint_pool},
                                  key=lambda i: max(s.coverage for s in joint_pool if s.unit_premises[0] == i),
                                  reverse=True)[:4]
            pool = [s for s in joint_pool if s.unit_premises[0] in premise_rank]
            for size in (2, 3):
                for combo in combinations(pool, size):
                    used = tuple(sorted(c.unit_premises[0] for c in combo))
                    if len(set(used)) < size:
                        continue
                    if not _bridged([c.feats for c in combo]):
                        continue
                    feats = _union([c.feats for c in combo])
                    scored = self._score(hyp, feats, max(c.sim for c in combo), used, asserted)
                    if best is None or self._rank(scored) > self._rank(best):
                        best = scored
        if best is None:
            return Verdict(entailed=False, confidence=0.9, rationale="every premise unit names a namesake")
        if (
            contradiction is not None
            and not best.problems
            and contradiction.coverage >= max(self.min_coverage, best.coverage)
        ):
            # A negated statement covering the hypothesis at least as well as the best support wins.
            best = _Scored(contradiction.unit_premises, contradiction.feats, contradiction.sim,
                           contradiction.coverage, contradiction.score,
                           ["contradicted by a negated statement"], contradiction.missing)
        entailed = not best.problems and best.coverage >= self.min_coverage and best.score >= self.min_score
        rationale = f"coverage {best.coverage:.2f}"
        if best.missing:
            rationale += f" (missing: {', '.join(best.missing[:6])})"
        if self.use_embeddings:
            rationale += f"; similarity {best.sim:.2f}"
        rationale += f"; score {best.score:.2f}; premises {[i + 1 for i in best.unit_premises]}"
        if best.problems:
            rationale += "; " + "; ".join(best.problems)
        confidence = best.score if entailed else 1.0 - best.score
        return Verdict(
            entailed=entailed,
            confidence=round(min(1.0, max(0.0, confidence)), 4),
            evidence=list(best.unit_premises) if entailed else [],
            rationale=rationale,
        )

    def _rank(self, s: _Scored) -> tuple[bool, float, float]:
        passes = not s.problems and s.coverage >= self.min_coverage and s.score >= self.min_score
        return (passes, s.score, -len(s.unit_premises))

    def _score(self, hyp: TextFeatures, unit: TextFeatures, sim: float, premises: tuple[int, ...],
               asserted: TextFeatures) -> _Scored:
        missing = sorted(t for t in hyp.content if not unit.covers(t))
        coverage = 1.0 - len(missing) / len(hyp.content)
        if self.use_embeddings:
            scaled = min(1.0, max(0.0, (sim - self.sim_low) / (self.sim_high - self.sim_low)))
            score = self.coverage_weight * coverage + (1.0 - self.coverage_weight) * scaled
        else:
            score = coverage
        problems: list[str] = []
        missing_numbers = sorted(hyp.numbers - unit.numbers)
        if missing_numbers:
            problems.append(f"number(s) {', '.join(missing_numbers)} not in the premise")
            score = min(score, 0.2)
        missing_names = sorted({tok for name in hyp.names for tok in name if not unit.covers(tok)})
        if missing_names:
            problems.append(f"name(s) {', '.join(missing_names)} not in the premise")
            score = min(score, 0.3)
        if (hyp.negated and not unit.negated) or (
            not hyp.negated and any(asserted.covers(h) for h in unit.negated)
        ):
            problems.append(NEGATION_MISMATCH)
            score *= 0.5
        return _Scored(premises, unit, sim, coverage, score, problems, missing)


# --------------------------------------------------------------------------------------------------
# LM judge
# --------------------------------------------------------------------------------------------------


class LMJudge:
    """Entailment by the configured DSPy LM, with :class:`groundqa.signatures.qa.JudgeClaim`.

    Uses ``lm`` if given, else ``dspy.settings.lm``; raises :class:`JudgeNotConfiguredError` if neither
    exists. An unparseable LM answer gives ``entailed=False, confidence=0.0``. The judge's own LM calls
    are kept out of the caller's trace (so a metric using it does not
    pollute BootstrapFewShot's demos). ``entailed`` requires ``supported`` and ``confidence >=
    min_confidence``.
    """

    name = "lm"

    def __init__(self, lm: Any | None = None, min_confidence: float = 0.5) -> None:
        import dspy

        from groundqa.signatures.qa import JudgeClaim

        self.lm = lm
        self.min_confidence = min_confidence
        self._predict = dspy.Predict(JudgeClaim)

    def judge(self, hypothesis: str, premises: Sequence[str]) -> Verdict:
        """Ask the LM whether the numbered ``premises`` support ``hypothesis``."""
        import dspy

        lm = self.lm or dspy.settings.lm
        if lm is None:
            raise JudgeNotConfiguredError(
                "LMJudge needs a language model: call dspy.configure(lm=dspy.LM(...)) or pass "
                "LMJudge(lm=...); use get_judge('offline') for the deterministic offline judge."
            )
        if not premises:
            return Verdict(entailed=False, confidence=1.0, rationale="no premises")
        passages = "\n\n".join(f"[{i}] {text}" for i, text in enumerate(premises, start=1))
        from dspy.utils.exceptions import AdapterParseError

        try:
            with dspy.context(lm=lm, trace=None):
                out = self._predict(claim=hypothesis, passages=passages)
        except AdapterParseError as exc:  # an unparseable verdict is "not shown to be entailed", unsure
            return Verdict(entailed=False, confidence=0.0, rationale=f"LM judge output unparseable: {exc}"[:500])
        try:
            confidence = float(out.confidence)
        except (TypeError, ValueError):
            confidence = 0.5
        confidence = min(1.0, max(0.0, confidence))
        supported = bool(out.supported)
        evidence: list[int] = []
        for n in out.evidence or []:
            try:
                idx = int(n) - 1
            except (TypeError, ValueError):
                continue
            if 0 <= idx < len(premises) and idx not in evidence:
                evidence.append(idx)
        entailed = supported and confidence >= self.min_confidence
        return Verdict(
            entailed=entailed,
            confidence=confidence if supported == entailed else 1.0 - confidence,
            evidence=sorted(evidence) if entailed else [],
            rationale=str(out.rationale or ""),
        )


# --------------------------------------------------------------------------------------------------

_offline_lock = threading.Lock()
_offline: OfflineJudge | None = None


def get_judge(name: str | EntailmentJudge = "offline") -> EntailmentJudge:
    """A judge by name: ``"offline"`` (shared, cached instance), ``"lm"``, or ``"auto"``.

    ``"auto"`` gives the LM judge when ``dspy.settings.lm`` is set and the offline judge otherwise.
    A judge object is returned unchanged.
    """
    global _offline
    if not isinstance(name, str):
        return name
    key = name.strip().lower()
    if key == "auto":
        import dspy

        key = "lm" if dspy.settings.lm is not None else "offline"
    if key == "offline":
        with _offline_lock:
            if _offline is None:
                _offline = OfflineJudge()
            return _offline
    if key == "lm":
        return LMJudge()
    raise ValueError(f"unknown judge {name!r}: expected 'offline', 'lm' or 'auto'")
