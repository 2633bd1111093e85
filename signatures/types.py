"""Typed I/O of groundqa: passages, citations, premise verdicts, usage and the one result object.

The same :class:`GroundedResult` flows through the Python API, the CLI (``--json``), streaming
(the final event) and evaluation.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, Field


class ExitReason(str, Enum):
    """Why a run ended. Exactly one per run; the first terminal reason wins."""

    COMPLETED = "COMPLETED"
    EMPTY_INPUT = "EMPTY_INPUT"
    INVALID_INPUT = "INVALID_INPUT"
    MAX_LM_CALLS_REACHED = "MAX_LM_CALLS_REACHED"
    MAX_RETRIEVALS_REACHED = "MAX_RETRIEVALS_REACHED"
    MAX_CONTEXT_REACHED = "MAX_CONTEXT_REACHED"
    TIMEOUT = "TIMEOUT"
    RATE_LIMITED = "RATE_LIMITED"
    LM_ERROR = "LM_ERROR"
    LM_GENERATION_FAILURE = "LM_GENERATION_FAILURE"
    RETRIEVAL_ERROR = "RETRIEVAL_ERROR"


class AbstainReason(str, Enum):
    """Why the program declined to answer (recorded separately from the exit reason)."""

    NO_EVIDENCE = "no_evidence"
    LOW_CONFIDENCE = "low_confidence"
    TOO_FEW_SOURCES = "too_few_sources"
    PREMISE_UNSUPPORTED = "premise_unsupported"
    PREMISE_CONTRADICTED = "premise_contradicted"
    NOT_ANSWERED = "not_answered"
    CONTRACT_FAILED = "contract_failed"
    RUN_STOPPED = "run_stopped"


AnswerFormat = Literal["prose", "bullets", "table", "steps"]
AnswerMode = Literal["generated", "extractive", "none"]


class Passage(BaseModel):
    """One retrieved chunk."""

    chunk_id: str
    doc_id: str
    title: str = ""
    text: str
    score: float = 0.0
    metadata: dict[str, Any] = Field(default_factory=dict)


class Citation(BaseModel):
    """A passage the answer cites as ``[index]``."""

    index: int
    chunk_id: str
    doc_id: str
    title: str = ""
    snippet: str = ""
    score: float = 0.0


class PremiseVerdict(BaseModel):
    """The verdict on one presupposition of the question."""

    claim: str
    supported: bool
    confidence: float = 0.0
    retrieval_score: float = 0.0
    evidence: list[str] = Field(default_factory=list, description="chunk ids the judge relied on")
    rationale: str = ""
    status: Literal["supported", "unsupported", "contradicted", "unverified"] = "unverified"
    correction: Citation | None = Field(
        default=None, description="the passage that contradicts the claim (its sentence as the snippet), if any")


class Usage(BaseModel):
    """What one run consumed. Every LM call and every retrieval call counts."""

    lm_calls: int = 0
    lm_retries: int = 0
    lm_cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retrieval_calls: int = 0
    retrieval_cache_hits: int = 0
    context_chars: int = 0
    trimmed_passages: int = 0
    latency_ms: float = 0.0

    def add_lm(self, prompt_tokens: int = 0, completion_tokens: int = 0, cache_hit: bool = False) -> None:
        self.lm_calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.lm_cache_hits += int(cache_hit)


class GroundedResult(BaseModel):
    """The result of one question: the same object for API, CLI, streaming and evaluation."""

    question: str
    answer: str = ""
    citations: list[Citation] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list, description="the numbered context: [n] is passages[n-1]")
    confidence: float = 0.0
    abstained: bool = False
    abstain_reason: AbstainReason | None = None
    abstain_message: str = ""
    premises: list[PremiseVerdict] = Field(default_factory=list)
    correction: Citation | None = Field(
        default=None, description="with premise_contradicted: the passage that says the premise is false")
    premise_check: Literal["off", "passed", "failed", "fail_open", "fail_closed"] = "off"
    exit_reason: ExitReason = ExitReason.COMPLETED
    mode: AnswerMode = "none"
    format: AnswerFormat = "prose"
    usage: Usage = Field(default_factory=Usage)
    violations: dict[str, int] = Field(default_factory=dict, description="contract violations by kind")
    notes: list[str] = Field(default_factory=list, description="what the run changed or cut, never silently")
    trace_id: str | None = None

    def to_json(self, **kwargs: Any) -> str:
        return self.model_dump_json(**kwargs)
