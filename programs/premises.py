"""Premise verification: extract presuppositions, retrieve for each, judge each, in parallel.

A claim is supported only if the judge says so with confidence >= ``threshold`` (0.6 by default,
as in the seed) *and* its best retrieval score clears ``evidence_floor``: the adversarial signal
lives in retrieval scores as much as in the judge. When extraction or judging fails the verifier
fails open (the question goes on) or closed (the program abstains), as configured, and says which.
"""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import dspy

from groundqa.judges import get_judge
from groundqa.runtime.run import RunStopped, current_run, stage_scope
from groundqa.signatures.qa import ExtractPresuppositions, JudgeClaim, Presupposition
from groundqa.signatures.types import PremiseVerdict

from .context import build_context
from .presuppositions import MAX_CLAIMS, MAX_WORDS, heuristic_presuppositions
from .retriever import Retriever

Extractor = Literal["lm", "heuristic"]
JudgeKind = Literal["lm", "offline"]


class PremiseVerifier(dspy.Module):
    """``forward(question) -> dspy.Prediction(verdicts, status, unsupported)``.

    ``status`` is ``passed`` (every claim supported, or none to check), ``failed`` (a claim is
    unsupported), ``fail_open`` / ``fail_closed`` (extraction or judging failed).
    """

    def __init__(
        self,
        retriever: Retriever,
        extractor: Extractor = "lm",
        judge: JudgeKind = "lm",
        threshold: float = 0.6,
        evidence_floor: float = 0.25,
        k: int = 3,
        fail_mode: Literal["open", "closed"] = "open",
        max_workers: int = 3,
    ) -> None:
        super().__init__()
        self.retriever = retriever
        self.extractor = extractor
        self.judge_kind = judge
        self.threshold = threshold
        self.evidence_floor = evidence_floor
        self.k = k
        self.fail_mode = fail_mode
        self.max_workers = max_workers
        self.extract = dspy.Predict(ExtractPresuppositions)
        self.judge = dspy.Predict(JudgeClaim)

    # -- extraction ------------------------------------------------------------------------
    def presuppositions(self, question: str) -> list[Presupposition]:
        if self.extractor == "heuristic":
            return heuristic_presuppositions(question)
        with stage_scope("premises"):
            claims = self.extract(question=question).presuppositions or []
        cleaned: list[Presupposition] = []
        for claim in claims[:MAX_CLAIMS]:
            text = " ".join(str(claim.claim).split()[:MAX_WORDS])
            if text:
                cleaned.append(claim.model_copy(update={"claim": text}))
        return cleaned

    # -- judging ---------------------------------------------------------------------------
    def verify(self, claim: Presupposition) -> PremiseVerdict:
        with stage_scope("premises"):
            passages = self.retriever.retrieve(claim.claim, self.k)
        best = max((p.score for p in passages), default=0.0)
        if not passages:
            return PremiseVerdict(claim=claim.claim, supported=False, status="unsupported",
                                  rationale="nothing in the corpus matches this claim")
        if self.judge_kind == "offline":
            # One passage must carry the whole claim: joint support across passages would let a
            # namesake's page lend the name and another page the event (cross-entity confusion).
            judge = get_judge("offline")
            verdicts = [judge.judge(claim.claim, [p.text]) for p in passages]
            index = max(range(len(verdicts)), key=lambda i: verdicts[i].support)
            verdict = verdicts[index]
            said, confidence, rationale = verdict.entailed, verdict.support, verdict.rationale
            cited = [passages[index].chunk_id] if verdict.entailed else []
        else:
            context = build_context(passages, max_chars=4000)
            with stage_scope("premises"):
                out = self.judge(claim=claim.claim, passages=context.text)
            said, confidence = bool(out.supported), float(out.confidence or 0.0)
            cited = [context.passages[n - 1].chunk_id for n in (out.evidence or []) if 1 <= n <= context.size]
            rationale = str(out.rationale or "")
        supported = said and confidence >= self.threshold and best >= self.evidence_floor
        if said and not supported:
            rationale = (rationale + " " if rationale else "") + (
                f"(confidence {confidence:.2f} < {self.threshold})" if confidence < self.threshold
                else f"(best retrieval score {best:.2f} < floor {self.evidence_floor})"
            )
        return PremiseVerdict(
            claim=claim.claim, supported=supported, confidence=round(confidence, 4), retrieval_score=round(best, 4),
            evidence=cited, rationale=rationale.strip(), status="supported" if supported else "unsupported",
        )

    def forward(self, question: str) -> dspy.Prediction:
        try:
            claims = self.presuppositions(question)
        except RunStopped:
            raise
        except Exception as exc:  # unparseable extraction, judge errors: configurable, recorded
            return self._failed(f"presupposition extraction failed: {type(exc).__name__}: {exc}")
        if not claims:
            return dspy.Prediction(verdicts=[], status="passed", unsupported=[])
        try:
            verdicts = self._verify_all(claims)
        except RunStopped:
            raise
        except Exception as exc:
            return self._failed(f"premise judging failed: {type(exc).__name__}: {exc}")
        run = current_run()
        for verdict in verdicts:
            if run is not None:
                run.emit("premise", **verdict.model_dump())
        unsupported = [v.claim for v in verdicts if not v.supported]
        return dspy.Prediction(verdicts=verdicts, status="failed" if unsupported else "passed", unsupported=unsupported)

    def _verify_all(self, claims: list[Presupposition]) -> list[PremiseVerdict]:
        if len(claims) == 1 or self.max_workers <= 1:
            return [self.verify(c) for c in claims]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(claims))) as pool:
            futures = [pool.submit(contextvars.copy_context().run, self.verify, c) for c in claims]
            return [f.result() for f in futures]

    def _failed(self, message: str) -> dspy.Prediction:
        run = current_run()
        if run is not None:
            run.note(message)
        status = "fail_closed" if self.fail_mode == "closed" else "fail_open"
        return dspy.Prediction(verdicts=[], status=status, unsupported=[], error=message)

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return f"PremiseVerifier(extractor={self.extractor}, judge={self.judge_kind})"


def describe_unsupported(verdicts: list[PremiseVerdict]) -> str:
    """'The corpus does not support: "X"; "Y".'"""
    claims = [f'"{v.claim}"' for v in verdicts if not v.supported]
    return "The question presupposes what the sources do not support: " + "; ".join(claims) + "."


__all__ = ["PremiseVerifier", "describe_unsupported"]
