"""Per-question run state: budgets, the first-wins exit reason, usage, trace and event sink.

The state lives in a context variable, so concurrent questions (threads, ``dspy.Evaluate``) never
share it, and helpers deep in the program (the guarded LM, the retriever) find the run they serve.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from groundqa.errors import GroundQAError
from groundqa.runtime.redact import redact_text
from groundqa.signatures.types import ExitReason, Usage


class Budgets(BaseModel):
    """Per-question limits. Every LM call and every retrieval call counts."""

    max_lm_calls: int = Field(default=16, ge=1)
    max_lm_retries: int = Field(default=3, ge=0, description="transient-error retries per LM call")
    max_retrievals: int = Field(default=10, ge=1)
    max_context_chars: int = Field(default=6000, ge=200)
    max_answer_tokens: int | None = Field(
        default=None, ge=8, description="tokens the LM may write for one answer (None: the LM's own max_tokens); a "
        "small model that has not ended its sentence by then rarely ends it well, and its long answers are "
        "what makes the slowest questions slow")
    max_judgments: int | None = Field(
        default=None, ge=1, description="distinct passage sentences the tuned answer judge may read for one question "
        "(groundqa.judges.answer_judge; about 0.15 s each on 2 cores; None: no limit). Once they are read, the program "
        "decides the rest as the rules say, on what the judge has read so far; it does not stop. The slowest "
        "questions are those whose bridge and rescue readings go through many sentences")
    context_policy: str = Field(default="trim", pattern="^(trim|stop)$")
    timeout_s: float = Field(default=300.0, gt=0)
    backoff_base_s: float = Field(default=0.5, ge=0)
    backoff_max_s: float = Field(default=8.0, ge=0)


class RunStopped(Exception):
    """A terminal condition: the run ends with ``exit_reason``."""

    def __init__(self, exit_reason: ExitReason, message: str = "") -> None:
        super().__init__(message or exit_reason.value)
        self.exit_reason = exit_reason
        self.message = message or exit_reason.value


Event = dict[str, Any]


@dataclass
class RunState:
    """What one question's run has consumed and decided so far."""

    budgets: Budgets = field(default_factory=Budgets)
    usage: Usage = field(default_factory=Usage)
    trace: Any = None  # groundqa.runtime.trace.Trace
    on_event: Callable[[Event], None] | None = None
    started: float = field(default_factory=time.perf_counter)
    use_cache: bool = True
    _exit: ExitReason | None = None
    _exit_message: str = ""
    notes: list[str] = field(default_factory=list)
    _judged: set[Hashable] = field(default_factory=set)
    _judge_spent: bool = False

    # -- exit reason: the first terminal reason wins and is never overwritten -------------
    @property
    def exit_reason(self) -> ExitReason:
        return self._exit or ExitReason.COMPLETED

    @property
    def exit_message(self) -> str:
        return self._exit_message

    @property
    def stopped(self) -> bool:
        return self._exit is not None

    def stop(self, reason: ExitReason, message: str = "") -> RunStopped:
        """Record ``reason`` unless a terminal reason is already set; return the exception to raise."""
        if self._exit is None and reason is not ExitReason.COMPLETED:  # the message reaches users: no secrets
            self._exit, self._exit_message = reason, redact_text(message) if message else reason.value
        return RunStopped(self._exit or reason, self._exit_message or redact_text(message))

    # -- budgets ---------------------------------------------------------------------------
    @property
    def elapsed_s(self) -> float:
        return time.perf_counter() - self.started

    def check_deadline(self) -> None:
        if self.elapsed_s > self.budgets.timeout_s:
            raise self.stop(ExitReason.TIMEOUT, f"wall-clock timeout of {self.budgets.timeout_s:g}s reached")

    def before_lm_call(self) -> None:
        self.check_deadline()
        if self.usage.lm_calls >= self.budgets.max_lm_calls:
            raise self.stop(
                ExitReason.MAX_LM_CALLS_REACHED, f"LM call budget of {self.budgets.max_lm_calls} calls used up"
            )

    def before_retrieval(self) -> None:
        self.check_deadline()
        if self.usage.retrieval_calls >= self.budgets.max_retrievals:
            raise self.stop(
                ExitReason.MAX_RETRIEVALS_REACHED,
                f"retrieval budget of {self.budgets.max_retrievals} calls used up",
            )

    def judge_read(self, key: Hashable) -> bool:
        """Whether the tuned answer judge may read ``key`` (one sentence asked of one question) in this run. A key it
        has read already may be read again (its judgment is cached); a new one counts in ``usage.judgments``
        against ``budgets.max_judgments``. The first key refused is noted on the run."""
        if key in self._judged:
            return True
        limit = self.budgets.max_judgments
        if limit is not None and len(self._judged) >= limit:
            if not self._judge_spent:
                self._judge_spent = True
                self.note(f"the answer judge's budget of {limit} sentence{'s' if limit > 1 else ''} was spent; what "
                          "remained was decided without it")
            return False
        self._judged.add(key)
        self.usage.judgments += 1
        return True

    # -- events ----------------------------------------------------------------------------
    def emit(self, kind: str, **data: Any) -> None:
        if self.on_event is not None:
            self.on_event({"type": kind, **data})

    def note(self, text: str) -> None:
        self.notes.append(text)


_CURRENT: contextvars.ContextVar[RunState | None] = contextvars.ContextVar("groundqa_run", default=None)


def current_run() -> RunState | None:
    """The run this code serves, or ``None`` outside a run."""
    return _CURRENT.get()


@contextmanager
def run_scope(state: RunState) -> Iterator[RunState]:
    """Make ``state`` the current run for the duration of the block."""
    token = _CURRENT.set(state)
    try:
        yield state
    finally:
        _CURRENT.reset(token)


def recover(exc: BaseException, note: str) -> None:
    """For a step that can do without what failed (e.g. the LM's sub-question plan): re-raise ``exc`` when it
    must end the run (a terminal :class:`RunStopped`, a user-facing :class:`GroundQAError` such as a replay
    miss, an interrupt), else record ``note`` on the current run so the fallback is never silent."""
    if isinstance(exc, (RunStopped, GroundQAError)) or not isinstance(exc, Exception):
        raise exc
    run = current_run()
    if run is not None:
        run.note(f"{note} ({type(exc).__name__})")


_STAGE: contextvars.ContextVar[str] = contextvars.ContextVar("groundqa_stage", default="")


def current_stage() -> str:
    """The pipeline stage of the calling code ("premises", "retrieval", "answer", ...)."""
    return _STAGE.get()


@contextmanager
def stage_scope(name: str) -> Iterator[None]:
    """Label LM calls and retrievals made in this block with the stage ``name``."""
    token = _STAGE.set(name)
    try:
        yield
    finally:
        _STAGE.reset(token)
