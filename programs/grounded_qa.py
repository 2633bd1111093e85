"""GroundedQA: input checks -> premise verification -> retrieval -> cited synthesis -> output checks.

One call answers one question and returns ``dspy.Prediction(answer=..., abstained=..., result=...)``
where ``result`` is the typed :class:`~groundqa.signatures.types.GroundedResult`. A normal
``dspy.Module``: ``save``/``load``, compile with any optimizer, evaluate with ``dspy.Evaluate``.

Confidence (documented formula): ``0.6 * s + 0.4 * r`` where ``s`` is the mean judge confidence of
the answer's sentences given their cited passages and ``r`` the mean retrieval score of the cited
passages (cosine similarity, 0..1). Extractive answers use the extractive sentence scores for ``s``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any, Literal

import dspy
from pydantic import BaseModel, Field

from groundqa.contracts import ContractError, ContractReport, constrained
from groundqa.runtime.run import Budgets, RunState, RunStopped, run_scope, stage_scope
from groundqa.runtime.trace import ContractAttempt, Trace
from groundqa.signatures.qa import SplitQuestion
from groundqa.signatures.types import (
    AbstainReason,
    Citation,
    ExitReason,
    GroundedResult,
    Passage,
)
from groundqa.text import citation_numbers, truncate

from .citations import analyse, render
from .context import NumberedContext, build_context, merge_passages
from .extractive import extractive_answer
from .formats import detect_format
from .planning import heuristic_subqueries
from .premises import PremiseVerifier, describe_unsupported
from .retriever import Retriever
from .synthesizer import CitedSynthesizer

GENERATION_FAILURES = {"format", "empty"}  # violation keys that mean the LM produced nothing usable


class QAConfig(BaseModel):
    """Behaviour of :class:`GroundedQA` (every threshold is a field, none is hidden)."""

    k: int = Field(default=4, ge=1, description="passages retrieved per query")
    max_passages: int = Field(default=5, ge=1, description="passages numbered in the context")
    evidence_floor: float = Field(default=0.3, description="retrieval score a passage needs to count as evidence")
    min_sources: int = Field(default=1, ge=1, description="evidence passages needed to attempt an answer")
    min_confidence: float = Field(default=0.35, description="answers below this confidence are withheld")
    verify_premises: bool = True
    premise_extractor: Literal["lm", "heuristic"] = "lm"
    premise_judge: Literal["lm", "offline"] = "lm"
    premise_threshold: float = 0.6
    premise_floor: float = 0.25
    premise_fail_mode: Literal["open", "closed"] = "open"
    support_judge: Literal["offline", "lm"] = "offline"
    support_threshold: float = 0.5
    reasoning: bool = False
    max_attempts: int = Field(default=2, ge=1, description="synthesis attempts, the first included")
    fallback: Literal["extractive", "abstain"] = "extractive"
    unsupported_policy: Literal["drop", "abstain"] = "drop"
    multi_hop: Literal["heuristic", "lm", "off"] = "heuristic"
    max_question_chars: int = Field(default=1000, ge=10)
    answer_format: str = "auto"
    budgets: Budgets = Field(default_factory=Budgets)

    @classmethod
    def for_lm(cls, model: str, **overrides: Any) -> QAConfig:
        """Defaults that suit the LM: a tiny local base model gets rule-based presuppositions and
        offline judges; a capable LM does extraction and premise judging itself."""
        if model.startswith("embedded"):
            # A 270M base model: short contexts keep prompts fast. At temperature 0 it repeats its answer
            # whatever the feedback, so one attempt, then the contract's fallback (extractive).
            base: dict[str, Any] = {"premise_extractor": "heuristic", "premise_judge": "offline", "max_passages": 3,
                                    "max_attempts": 1, "budgets": Budgets(max_context_chars=2400)}
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
        self.retriever = retriever
        self.premises = PremiseVerifier(
            retriever, extractor=cfg.premise_extractor, judge=cfg.premise_judge, threshold=cfg.premise_threshold,
            evidence_floor=cfg.premise_floor, fail_mode=cfg.premise_fail_mode,
        )
        self.synthesize = constrained(
            CitedSynthesizer(judge=cfg.support_judge, reasoning=cfg.reasoning, support_threshold=cfg.support_threshold),
            max_attempts=cfg.max_attempts, policy="raise",
        )
        self.split = dspy.Predict(SplitQuestion)

    # -- the pipeline ----------------------------------------------------------------------
    def forward(self, question: str, format: str | None = None, on_event: Callable[[dict[str, Any]], None] | None = None,
                use_cache: bool = True, trace: Trace | None = None) -> dspy.Prediction:
        result = self.run(question, format=format, on_event=on_event, use_cache=use_cache, trace=trace)
        return dspy.Prediction(answer=result.answer, abstained=result.abstained, result=result,
                               passages=result.passages)

    def run(self, question: str, format: str | None = None, on_event: Callable[[dict[str, Any]], None] | None = None,
            use_cache: bool = True, trace: Trace | None = None) -> GroundedResult:
        """Answer ``question``; never raises for a fault of the input, the LM or the store."""
        cfg = self.config
        trace = trace if trace is not None else Trace(question=question if isinstance(question, str) else "")
        state = RunState(budgets=cfg.budgets, trace=trace, on_event=on_event, use_cache=use_cache)
        text = question if isinstance(question, str) else ""
        result = GroundedResult(question=text, trace_id=trace.trace_id)
        with run_scope(state):
            try:
                problem = check_question(question, cfg.max_question_chars)
                if problem is not None:
                    raise state.stop(*problem)
                result.format = detect_format(text, format or cfg.answer_format)
                self._answer(text, result, state)
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
        cfg = self.config
        self.retriever.refresh()
        if cfg.verify_premises:
            verdict = self.premises(question=question)
            result.premises = list(verdict.verdicts)
            result.premise_check = verdict.status
            if verdict.status in ("failed", "fail_closed"):
                message = describe_unsupported(result.premises) if verdict.status == "failed" else (
                    "premise verification failed and is configured to fail closed: " + str(verdict.get("error", "")))
                return self._abstain(result, AbstainReason.PREMISE_UNSUPPORTED, message)

        with stage_scope("retrieval"):
            queries = [question, *self._subqueries(question)]
            passages = merge_passages(*(self.retriever.retrieve(q, cfg.k) for q in queries))
        if not passages:
            return self._abstain(result, AbstainReason.NO_EVIDENCE, "the corpus returned no passages")
        evidence = [p for p in passages if p.score >= cfg.evidence_floor]
        if len(evidence) < cfg.min_sources:
            best = passages[0].score
            return self._abstain(result, AbstainReason.TOO_FEW_SOURCES,
                                 f"{len(evidence)} passage(s) clear the evidence floor {cfg.evidence_floor} "
                                 f"(best score {best:.2f}); {cfg.min_sources} needed")
        context = build_context(evidence[: cfg.max_passages], cfg.budgets.max_context_chars, cfg.budgets.context_policy)
        result.passages = context.passages
        self._synthesize(question, result, context, state)

    def _subqueries(self, question: str) -> list[str]:
        mode = self.config.multi_hop
        if mode == "heuristic":
            return heuristic_subqueries(question)
        if mode == "lm":
            with stage_scope("planning"):
                subs = [str(s) for s in (self.split(question=question).sub_questions or []) if str(s).strip()]
            return [s for s in subs if s.strip().lower() != question.strip().lower()][:3] if len(subs) > 1 else []
        return []

    def _synthesize(self, question: str, result: GroundedResult, context: NumberedContext, state: RunState) -> None:
        cfg = self.config
        texts = [p.text for p in context.passages]
        try:
            pred = self.synthesize(question=question, context=context.text, passages=texts, format=result.format)
        except ContractError as failure:
            self._record_attempts(state, failure)
            result.violations = _violation_counts(failure)
            state.note(f"the LM did not meet the citation contract in {cfg.max_attempts} attempt(s)")
            if cfg.fallback == "extractive":
                return self._extractive(question, result, context)
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
        if not pred.relevant:
            state.note("the generated answer does not address the question")
            if cfg.fallback == "extractive":
                return self._extractive(question, result, context)
            return self._abstain(result, AbstainReason.CONTRACT_FAILED, "the answer does not address the question")
        weak = {s.index for s in pred.support if not s.supported}
        if weak:
            if cfg.unsupported_policy == "abstain":
                return self._abstain(result, AbstainReason.CONTRACT_FAILED,
                                     f"{len(weak)} sentence(s) not supported by their citations")
            state.note(f"dropped {len(weak)} unsupported sentence(s)")
        keep = {c.index for c in checks if c.index not in weak and (c.cited or not c.factual)}
        if not any(c.factual and c.index in keep for c in checks):
            if cfg.fallback == "extractive":
                state.note("no supported sentence left; falling back to an extractive answer")
                return self._extractive(question, result, context)
            return self._abstain(result, AbstainReason.CONTRACT_FAILED, "no supported sentence left")
        answer = render(checks, keep)
        supported = [s.confidence for s in pred.support if s.index in keep]
        self._finish(result, answer, context, supported, mode="generated")

    def _extractive(self, question: str, result: GroundedResult, context: NumberedContext) -> None:
        answer, chosen = extractive_answer(question, context, floor=self.config.evidence_floor)
        if not chosen:
            return self._abstain(result, AbstainReason.LOW_CONFIDENCE,
                                 "no passage sentence is close enough to the question for an extractive answer")
        self._finish(result, answer, context, [c.score for c in chosen], mode="extractive")

    def _finish(self, result: GroundedResult, answer: str, context: NumberedContext, support: list[float],
                mode: Literal["generated", "extractive"]) -> None:
        numbers = list(dict.fromkeys(n for n in citation_numbers(answer) if 1 <= n <= context.size))
        cited = [context.passages[n - 1] for n in numbers]
        s = sum(support) / len(support) if support else 0.0
        r = sum(p.score for p in cited) / len(cited) if cited else 0.0
        result.confidence = round(max(0.0, min(1.0, 0.6 * s + 0.4 * r)), 4)
        if result.confidence < self.config.min_confidence:
            return self._abstain(result, AbstainReason.LOW_CONFIDENCE,
                                 f"confidence {result.confidence:.2f} is below {self.config.min_confidence}")
        result.answer, result.mode, result.abstained = answer, mode, False
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


def _report_of(outcome: Any) -> ContractReport | None:
    return outcome.report if isinstance(outcome, ContractError) else getattr(outcome, "contract", None)


def _citation(number: int, passage: Passage) -> Citation:
    return Citation(index=number, chunk_id=passage.chunk_id, doc_id=passage.doc_id, title=passage.title,
                    snippet=truncate(passage.text, 240), score=passage.score)


def _violation_counts(outcome: Any) -> dict[str, int]:
    """Violations by kind and by message key, over every attempt (visible to metrics)."""
    report = _report_of(outcome)
    if report is None:
        return {}
    return {"hard": report.hard_violations, "soft": report.soft_violations, **report.by_key}


__all__ = ["GroundedQA", "QAConfig", "check_question"]
