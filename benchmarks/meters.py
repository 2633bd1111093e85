"""Meters around an LM and a retriever: calls, tokens and time per question, for programs that keep no
traces of their own (the peers), and as a cross-check of GroundedQA's own usage figures.

:class:`Meter` tallies; :class:`MeteredLM` and :class:`MeteredRetriever` feed it; :class:`Instrumented`
runs a program one question at a time and keeps a :class:`QuestionUsage` per question, which
:func:`program_row` sums up with the program's evaluation report.
"""

from __future__ import annotations

import contextlib
import io
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import dspy
from dspy.utils.usage_tracker import UsageTracker

from groundqa.programs.retriever import Retriever
from groundqa.runtime.retrieval_cache import RetrievalCache
from groundqa.store.chroma_store import CorpusStore


@dataclass
class MeterReading:
    """What a meter saw between :meth:`Meter.begin` and :meth:`Meter.end` (one question)."""

    lm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    lm_s: float = 0.0
    retrievals: int = 0
    retrieval_s: float = 0.0
    busy_s: float = 0.0  # union of LM and retrieval intervals (parallel calls counted once)


@dataclass
class Meter:
    """Thread-safe tally of LM calls (tokens, time) and retrievals (time) with their intervals."""

    reading: MeterReading = field(default_factory=MeterReading)
    intervals: list[tuple[float, float]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def begin(self) -> None:
        with self._lock:
            self.reading, self.intervals = MeterReading(), []

    def end(self) -> MeterReading:
        with self._lock:
            reading = MeterReading(**vars(self.reading))
            reading.busy_s = union_length(self.intervals)
            return reading

    def add_lm(self, start: float, end: float, usage: dict[str, int]) -> None:
        with self._lock:
            self.reading.lm_calls += 1
            self.reading.prompt_tokens += int(usage.get("prompt_tokens", 0) or 0)
            self.reading.completion_tokens += int(usage.get("completion_tokens", 0) or 0)
            self.reading.lm_s += end - start
            self.intervals.append((start, end))

    def add_retrieval(self, start: float, end: float) -> None:
        with self._lock:
            self.reading.retrievals += 1
            self.reading.retrieval_s += end - start
            self.intervals.append((start, end))


def union_length(intervals: Sequence[tuple[float, float]]) -> float:
    """Total length covered by possibly overlapping ``(start, end)`` intervals."""
    total, current_start, current_end = 0.0, None, None
    for start, end in sorted(intervals):
        if current_end is None or start > current_end:
            if current_end is not None and current_start is not None:
                total += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    if current_end is not None and current_start is not None:
        total += current_end - current_start
    return total


def _token_totals(tracker: UsageTracker) -> dict[str, int]:
    totals = {"prompt_tokens": 0, "completion_tokens": 0}
    for usage in tracker.get_total_tokens().values():
        for key in totals:
            value = usage.get(key)
            if isinstance(value, int):
                totals[key] += value
    return totals


class MeteredLM(dspy.BaseLM):
    """Times and counts every call to ``base`` (any ``dspy.BaseLM``) on ``meter``.

    Token usage is read with a usage tracker of its own and passed on to the caller's tracker, so a
    :class:`~groundqa.runtime.guarded_lm.GuardedLM` around it still counts tokens. ``copy(**kwargs)``
    returns a metered LM whose calls carry those kwargs (what ``dspy.Refine`` needs for
    ``rollout_id`` and ``temperature=1.0``) without touching the shared base LM.
    """

    def __init__(self, base: dspy.BaseLM, meter: Meter, overrides: dict[str, Any] | None = None) -> None:
        super().__init__(model=base.model, model_type=base.model_type, cache=base.cache, num_retries=0)
        self.base = base
        self.meter = meter
        self.overrides = dict(overrides or {})
        self.kwargs = {**base.kwargs, **self.overrides}

    def __deepcopy__(self, memo: dict[int, Any]) -> MeteredLM:
        return self  # shared resource, never copied with a program

    def copy(self, **kwargs: Any) -> MeteredLM:
        return MeteredLM(self.base, self.meter, {**self.overrides, **kwargs})

    def __call__(self, prompt: Any = None, *, messages: Any = None, **kwargs: Any) -> list[Any]:
        outer = dspy.settings.usage_tracker
        tracker = UsageTracker()
        start = time.perf_counter()
        try:
            with dspy.context(usage_tracker=tracker):
                return self.base(prompt, messages=messages, **{**self.overrides, **kwargs})
        finally:
            self.meter.add_lm(start, time.perf_counter(), _token_totals(tracker))
            if outer is not None:
                for model, entries in tracker.usage_data.items():
                    for entry in entries:
                        outer.add_usage(model, entry)


class MeteredRetriever(Retriever):
    """A :class:`Retriever` that times every ``retrieve`` call on ``meter``."""

    def __init__(self, store: CorpusStore, meter: Meter, k: int = 4, cache: RetrievalCache | None = None) -> None:
        super().__init__(store, k=k, cache=cache)
        self.meter = meter

    def retrieve(self, query: str, k: int, contains: Sequence[str] = (), lexical: int = 0) -> list[Any]:
        start = time.perf_counter()
        try:
            return super().retrieve(query, k, contains=contains, lexical=lexical)
        finally:
            self.meter.add_retrieval(start, time.perf_counter())


# -- one program, instrumented ---------------------------------------------------------------
@dataclass
class QuestionUsage:
    """Cost of one question for one program."""

    latency_s: float
    lm_calls: int
    prompt_tokens: int
    completion_tokens: int
    lm_s: float
    retrievals: int
    retrieval_s: float
    busy_s: float
    source: str  # "trace" (GroundedQA's usage + trace) or "meter"
    meter: MeterReading | None = None
    refine_failures: int = 0
    mode: str = ""  # GroundedQA: generated / extractive / none
    judgments: int = 0  # GroundedQA: sentences its tuned answer judge read (usage.judgments)
    judge_s: float = 0.0  # ... and the time of those forward passes (usage.judge_ms)


class Instrumented:
    """``program(question=...)`` with per-question latency, LM and retrieval figures.

    GroundedQA runs with a fresh :class:`~groundqa.runtime.trace.Trace`; its figures come from
    ``result.usage`` and the trace. Peers' figures come from the meter. Peers' stdout (``dspy.Refine``
    prints every failed rollout) is captured and counted.
    """

    def __init__(self, name: str, program: Callable[..., Any], meter: Meter, grounded: bool) -> None:
        self.__name__ = name
        self.program = program
        self.meter = meter
        self.grounded = grounded
        self.usage: list[QuestionUsage] = []

    def __call__(self, question: str, **_: Any) -> Any:
        from groundqa.runtime.trace import Trace

        trace = Trace(question=question if isinstance(question, str) else "") if self.grounded else None
        captured = io.StringIO()
        pred: Any = None
        self.meter.begin()
        start = time.perf_counter()
        try:
            if self.grounded:
                pred = self.program(question=question, trace=trace)
            else:
                with contextlib.redirect_stdout(captured):
                    pred = self.program(question=question)
            return pred
        finally:
            wall = time.perf_counter() - start
            reading = self.meter.end()
            result = getattr(pred, "result", None) if pred is not None else None
            if self.grounded and result is not None and trace is not None:
                lm_s = sum(c.latency_ms for c in trace.lm_calls()) / 1000
                ret_s = sum(r.latency_ms for r in trace.retrievals()) / 1000
                usage = result.usage
                self.usage.append(QuestionUsage(
                    latency_s=wall, lm_calls=usage.lm_calls, prompt_tokens=usage.prompt_tokens,
                    completion_tokens=usage.completion_tokens, lm_s=lm_s, retrievals=usage.retrieval_calls,
                    retrieval_s=ret_s, busy_s=reading.busy_s, source="trace", meter=reading, mode=result.mode,
                    judgments=usage.judgments, judge_s=usage.judge_ms / 1000))
            else:
                self.usage.append(QuestionUsage(
                    latency_s=wall, lm_calls=reading.lm_calls, prompt_tokens=reading.prompt_tokens,
                    completion_tokens=reading.completion_tokens, lm_s=reading.lm_s, retrievals=reading.retrievals,
                    retrieval_s=reading.retrieval_s, busy_s=reading.busy_s, source="meter", meter=reading,
                    refine_failures=captured.getvalue().count("Refine: Attempt failed")))


# -- aggregation -----------------------------------------------------------------------------
def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100); ``None`` for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]
