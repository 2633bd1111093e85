"""Typed I/O of groundqa: passages, citations, premise verdicts, usage and the one result object.

The same :class:`GroundedResult` flows through the Python API, the CLI (``--json``), streaming
(the final event) and evaluation.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field


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


class SourceLocation(BaseModel):
    """Where a chunk came from, so that a reader can find the cited words in the original file.

    ``path`` is relative to the folder that was ingested; ``page`` (PDF, 1-based) or ``section`` (the
    heading path of an HTML page, joined with " › "); ``char_start``/``char_end`` are offsets of the
    chunk in the extracted text of its page (PDF) or of its whole document (other formats).
    """

    path: str | None = None
    page: int | None = None
    section: str | None = None
    char_start: int | None = None
    char_end: int | None = None

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any]) -> SourceLocation | None:
        """The location recorded on a chunk's metadata at ingestion; ``None`` when it has none."""
        def _int(value: Any) -> int | None:
            try:
                return int(value) if value is not None and value != "" else None
            except (TypeError, ValueError):
                return None

        location = cls(
            path=str(metadata["path"]) if metadata.get("path") else None,
            page=_int(metadata.get("page")),
            section=str(metadata["section"]) if metadata.get("section") else None,
            char_start=_int(metadata.get("char_start")),
            char_end=_int(metadata.get("char_end")),
        )
        return None if location == cls() else location

    def __str__(self) -> str:
        parts = [self.path or "?"]
        if self.page is not None:
            parts.append(f"p. {self.page}")
        if self.section:
            parts.append(self.section)
        if self.char_start is not None and self.char_end is not None:
            parts.append(f"chars {self.char_start}-{self.char_end}")
        return ", ".join(parts)


def cite_label(title: str, page: int | None = None, section: str | None = None) -> str:
    """How a citation reads to a person: ``"title, p. 12"`` or ``"title › section"``."""
    label = title
    if section:
        label = f"{label} \u203a {section}" if label else section
    if page is not None:
        label = f"{label}, p. {page}" if label else f"p. {page}"
    return label


class Citation(BaseModel):
    """A passage the answer cites as ``[index]``; ``page``/``section``/``location`` say where in the
    original file it is (filled from the passage's metadata by :meth:`of` or :meth:`located`)."""

    index: int
    chunk_id: str
    doc_id: str
    title: str = ""
    snippet: str = ""
    score: float = 0.0
    page: int | None = Field(default=None, description="1-based PDF page of the cited chunk")
    section: str | None = Field(default=None, description="heading path of the cited chunk (HTML)")
    location: SourceLocation | None = Field(default=None, description="file, page or section, character offsets")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> str:
        """``"title, p. 12"`` / ``"title › section"``: what the CLI shows (also in ``--json``)."""
        return cite_label(self.title or self.doc_id, self.page, self.section)

    @classmethod
    def of(cls, index: int, passage: Passage, snippet_chars: int = 240) -> Citation:
        """The citation ``[index]`` of ``passage``, with its page, section and location."""
        from groundqa.text import truncate

        location = SourceLocation.from_metadata(passage.metadata)
        return cls(index=index, chunk_id=passage.chunk_id, doc_id=passage.doc_id, title=passage.title,
                   snippet=truncate(passage.text, snippet_chars), score=passage.score,
                   page=location.page if location else None, section=location.section if location else None,
                   location=location)

    def located(self, passages: list[Passage]) -> Citation:
        """This citation with page, section and location taken from the passage of the same chunk in
        ``passages`` (for citations built without them); unchanged when already located or not found."""
        if self.location is not None:
            return self
        for passage in passages:
            if passage.chunk_id == self.chunk_id:
                location = SourceLocation.from_metadata(passage.metadata)
                if location is None:
                    return self
                return self.model_copy(update={"page": location.page, "section": location.section,
                                               "location": location})
        return self


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
    judgments: int = 0
    """Distinct passage sentences the tuned answer judge read (``Budgets.max_judgments``)."""
    judge_ms: float = 0.0
    """Time in the tuned answer judge's forward passes (a judgment already cached costs next to nothing)."""
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
