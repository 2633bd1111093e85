"""Peers suites: GroundedQA against plain DSPy RAG peers on the same LM and retriever; cold vs warm cache.

``quality``
    The same questions through :class:`~groundqa.programs.peers.PlainRAG`,
    :class:`~groundqa.programs.peers.RefineRAG`, GroundedQA with premise verification on and off, and
    GroundedQA compiled (``--program PATH``, else a quick BootstrapFewShot compile with the extractive
    teacher on at most 16 answerable train questions, 3 demos). One process, one LM object, one retriever,
    DSPy's cache and the retrieval cache off, so every program really calls the LM and the store.
    In-process memo caches (MiniLM embeddings, offline-judge verdicts) are emptied before each program.
    Scores come from :func:`groundqa.evaluation.evaluate` (offline judge). LM calls, tokens, LM time and
    retrieval time come from GroundedQA's own usage and traces, and for the peers from meters wrapped
    around the same LM and retriever (the meters also run under GroundedQA, as a cross-check).
``cache``
    GroundedQA on the same questions twice with DSPy's LM cache (memory + disk, under a temporary
    home) and the retrieval cache on: cold, warm, and warm from disk only (every memory cache emptied).

Options: the registry runner (``python -m benchmarks run --suite quality --quick``) takes the LM from
``GROUNDQA_LM`` (default ``embedded``) and the data/program from ``GROUNDQA_BENCH_DATA`` /
``GROUNDQA_BENCH_PROGRAM``; this module's own entry point takes them as flags::

    python -m benchmarks.peers quality --quick [--lm embedded] [--data bundled|squad] [--program PATH]
    python -m benchmarks.peers cache --quick
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import statistics
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dspy
from dspy.utils.usage_tracker import UsageTracker

from benchmarks import register
from groundqa.datasets.loaders import Document, Question
from groundqa.programs.retriever import Retriever
from groundqa.runtime.retrieval_cache import RetrievalCache
from groundqa.store.chroma_store import CorpusStore

QUICK_QUESTIONS = 9  # one per question type
SQUAD_FULL, SQUAD_QUICK = 30, 6
COMPILE_MAX, COMPILE_BUDGET = 16, 3
PLAIN, REFINE = "PlainRAG", "RefineRAG"
GQA, GQA_OFF, GQA_COMPILED = "GroundedQA", "GroundedQA (no premises)", "GroundedQA compiled"
PROGRAMS = (PLAIN, REFINE, GQA, GQA_OFF, GQA_COMPILED)

# DSPy's adapters hand an LM wrapper OpenAI-style messages; forwarding them is not the caller's doing.
warnings.filterwarnings("ignore", message="Passing OpenAI-style message dictionaries", category=DeprecationWarning)


# -- meters --------------------------------------------------------------------------------
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

    def retrieve(self, query: str, k: int) -> list[Any]:
        start = time.perf_counter()
        try:
            return super().retrieve(query, k)
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
                    retrieval_s=ret_s, busy_s=reading.busy_s, source="trace", meter=reading, mode=result.mode))
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


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def program_row(name: str, report: Any, usage: list[QuestionUsage], setup_s: float = 0.0) -> dict[str, Any]:
    """The figures of one program: quality from the evaluation report, cost from the usage records."""
    overall = report.metrics.overall.metrics
    answerable = [r.scores.score for r in report.records if not r.scores.should_abstain]
    n = max(1, len(usage))
    total = sum(u.latency_s for u in usage)
    lm_s = sum(u.lm_s for u in usage)
    ret_s = sum(u.retrieval_s for u in usage)
    busy = sum(u.busy_s for u in usage)
    meter_calls = sum(u.meter.lm_calls for u in usage if u.meter is not None)
    return {
        "program": name,
        "n": report.n,
        "score": overall.get("score"),
        "answerable_quality": _mean(answerable),
        "abstain_f1": overall.get("abstain_f1"),
        "over_abstention_rate": overall.get("over_abstention_rate"),
        "citation_precision": overall.get("citation_precision"),
        "citation_recall": overall.get("citation_recall"),
        "str_em": overall.get("str_em"),
        "answer_rate": overall.get("answer_rate"),
        "error_rate": overall.get("error_rate"),
        "lm_calls_per_q": sum(u.lm_calls for u in usage) / n,
        "prompt_tokens_per_q": sum(u.prompt_tokens for u in usage) / n,
        "completion_tokens_per_q": sum(u.completion_tokens for u in usage) / n,
        "retrievals_per_q": sum(u.retrievals for u in usage) / n,
        "latency_p50_s": percentile([u.latency_s for u in usage], 50),
        "latency_p95_s": percentile([u.latency_s for u in usage], 95),
        "total_s": total,
        "lm_s": lm_s,
        "retrieval_s": ret_s,
        "overhead_share": min(1.0, max(0.0, (total - lm_s - ret_s) / total)) if total > 0 else None,
        "overhead_share_union": min(1.0, max(0.0, (total - busy) / total)) if total > 0 else None,
        "lm_share": lm_s / total if total > 0 else None,
        "retrieval_share": ret_s / total if total > 0 else None,
        "figures_from": usage[0].source if usage else "",
        "meter_lm_calls_per_q": meter_calls / n,
        "refine_failed_rollouts": sum(u.refine_failures for u in usage),
        "modes": {m: sum(u.mode == m for u in usage) for m in ("generated", "extractive", "none")
                  if any(u.mode == m for u in usage)},
        "setup_s": setup_s,
    }


# -- the quality comparison ------------------------------------------------------------------
def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def compile_quick(student: Any, train: Sequence[Question], settings: Any, seed: int,
                  max_questions: int = COMPILE_MAX, budget: int = COMPILE_BUDGET) -> tuple[Any, dict[str, Any]]:
    """BootstrapFewShot with the extractive teacher on at most ``max_questions`` answerable train questions."""
    from groundqa.compile import CompileOptions, demo_counts, make_optimizer, optimizer_trainset
    from groundqa.experiment_data import stratified_sample, to_example
    from groundqa.metrics.composite import make_grounding_metric

    options = CompileOptions(optimizer="bootstrap", teacher_lm="extractive", budget=budget, seed=seed,
                             mlflow=False, progress=False)
    answerable = [q for q in train if not q.should_abstain]
    chosen = stratified_sample(answerable, max_questions, seed)
    trainset = optimizer_trainset(options, [to_example(q) for q in chosen])
    metric = make_grounding_metric("offline", pass_threshold=options.metric_threshold)
    optimizer = make_optimizer(options, metric, settings)
    started = time.perf_counter()
    compiled = optimizer.compile(student, trainset=trainset)
    info = {"how": "BootstrapFewShot, teacher 'extractive'", "train_questions": len(trainset), "budget": budget,
            "demos": demo_counts(compiled), "seconds": round(time.perf_counter() - started, 2)}
    return compiled, info


def drop_process_caches() -> None:
    """Empty the in-process memo caches (MiniLM embeddings, offline-judge vectors and verdicts, lexical
    features) so every program starts cold; the models themselves stay loaded. Without this, a program
    evaluated later would reuse embeddings computed for an earlier one (and for its scoring)."""
    from groundqa.metrics import judges, lexical
    from groundqa.store import embeddings

    embeddings.get_embedder().clear_memory()
    judge = judges.get_judge("offline")
    for name in ("_vectors", "_verdicts"):
        cache = getattr(judge, name, None)
        if cache is not None:
            cache.clear()
    for fn in (lexical.features, lexical.token_features, judges._parse_premise):
        fn.cache_clear()


def question_records(report: Any, usage: list[QuestionUsage]) -> list[dict[str, Any]]:
    """Per-question outcome and cost (for the JSON results)."""
    return [
        {"id": r.id, "type": r.type, "answer": r.answer, "abstained": r.abstained, "error": r.error,
         "score": round(r.scores.score, 4), "latency_s": round(u.latency_s, 3), "lm_calls": u.lm_calls,
         "prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens, "lm_s": round(u.lm_s, 3),
         "retrievals": u.retrievals, "retrieval_s": round(u.retrieval_s, 4), "mode": u.mode}
        for r, u in zip(report.records, usage, strict=False)
    ]


def run_quality(
    inner_lm: dspy.BaseLM,
    store: CorpusStore,
    questions: Sequence[Question],
    train: Sequence[Question],
    settings: Any,
    config_lm: str,
    program_path: str | Path | None = None,
    programs: Sequence[str] = PROGRAMS,
    peer_reasoning: bool = True,
    seed: int = 13,
    progress: bool = True,
    adapter: Any = None,
) -> dict[str, Any]:
    """Evaluate every program of ``programs`` on ``questions`` with ``inner_lm`` over ``store``.

    Peers call ``MeteredLM(inner_lm)``; GroundedQA calls ``GuardedLM(MeteredLM(inner_lm))`` (its runtime:
    budgets, usage, traces). Caches are not touched here: the caller turns them off. ``config_lm``
    picks GroundedQA's defaults (:meth:`QAConfig.for_lm`). Returns ``{"rows": [...], "compile": ...,
    "reports": {name: EvaluationReport}}``.
    """
    from groundqa.evaluation import evaluate
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig
    from groundqa.programs.peers import PlainRAG, RefineRAG
    from groundqa.runtime.guarded_lm import GuardedLM

    meter = Meter()
    metered = MeteredLM(inner_lm, meter)
    guarded = GuardedLM(metered)
    adapter = adapter or dspy.ChatAdapter(use_json_adapter_fallback=not config_lm.startswith("embedded"))
    k = int(getattr(settings, "k", 4))
    retriever = MeteredRetriever(store, meter, k=k, cache=None)
    base_config = QAConfig.for_lm(config_lm)
    peer_k = min(k, base_config.max_passages)  # the peers see as many passages as GroundedQA shows its LM

    def grounded(**overrides: Any) -> GroundedQA:
        return GroundedQA(retriever, QAConfig.for_lm(config_lm, **overrides))

    compile_info: dict[str, Any] | None = None
    built: dict[str, tuple[Any, bool, float]] = {}
    for name in programs:
        started = time.perf_counter()
        if name == PLAIN:
            built[name] = (PlainRAG(retriever, k=peer_k, reasoning=peer_reasoning), False, 0.0)
        elif name == REFINE:
            built[name] = (RefineRAG(retriever, k=peer_k, reasoning=peer_reasoning), False, 0.0)
        elif name == GQA:
            built[name] = (grounded(verify_premises=True), True, 0.0)
        elif name == GQA_OFF:
            built[name] = (grounded(verify_premises=False), True, 0.0)
        elif name == GQA_COMPILED:
            student = grounded(verify_premises=True)
            if program_path is not None:
                from groundqa.programs.persistence import load_program

                load_program(student, program_path)
                compile_info = {"how": f"loaded from {program_path}"}
                built[name] = (student, True, time.perf_counter() - started)
            else:
                if progress:
                    _say(f"quality: compiling GroundedQA (BootstrapFewShot, extractive teacher, "
                         f"<= {COMPILE_MAX} answerable train questions, {COMPILE_BUDGET} demos) ...")
                with dspy.context(lm=guarded, adapter=adapter):
                    compiled, compile_info = compile_quick(student, train, settings, seed)
                built[name] = (compiled, True, time.perf_counter() - started)
        else:
            raise ValueError(f"unknown program {name!r}; choose from {', '.join(PROGRAMS)}")

    rows: list[dict[str, Any]] = []
    reports: dict[str, Any] = {}
    records: dict[str, list[dict[str, Any]]] = {}
    for i, (name, (program, is_grounded, setup_s)) in enumerate(built.items(), start=1):
        if progress:
            _say(f"quality: [{i}/{len(built)}] {name} on {len(questions)} questions")
        drop_process_caches()
        wrapped = Instrumented(name, program, meter, grounded=is_grounded)
        with dspy.context(lm=guarded if is_grounded else metered, adapter=adapter):
            report = evaluate(wrapped, list(questions), threads=1, judge="offline", progress=progress)
        reports[name] = report
        rows.append(program_row(name, report, wrapped.usage, setup_s))
        records[name] = question_records(report, wrapped.usage)
        if progress:
            row = rows[-1]
            _say(f"quality: {name}: composite {row['score']:.3f}, abstention F1 {row['abstain_f1'] or 0:.3f}, "
                 f"{row['total_s']:.0f} s")
    return {"rows": rows, "compile": compile_info, "reports": reports, "records": records, "peer_k": peer_k}


# -- tables, notes, chart --------------------------------------------------------------------
QUALITY_COLUMNS = [
    ("Program", "program"), ("Composite", "score"), ("Answerable quality", "answerable_quality"),
    ("Abstention F1", "abstain_f1"), ("Over-abstention", "over_abstention_rate"),
    ("Citation precision", "citation_precision"), ("Citation recall", "citation_recall"), ("STR-EM", "str_em"),
    ("Errors", "error_rate"),
]
COST_COLUMNS = [
    ("Program", "program"), ("LM calls/q", "lm_calls_per_q"), ("Prompt tokens/q", "prompt_tokens_per_q"),
    ("Completion tokens/q", "completion_tokens_per_q"), ("Retrievals/q", "retrievals_per_q"),
    ("Latency p50 (s)", "latency_p50_s"), ("Latency p95 (s)", "latency_p95_s"), ("LM share", "lm_share"),
    ("Retrieval share", "retrieval_share"), ("Overhead share", "overhead_share"), ("Figures from", "figures_from"),
]


def _rows(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]]) -> list[list[Any]]:
    return [[_round(row.get(key)) for _, key in columns] for row in rows]


def _round(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def _f(value: Any, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def target_notes(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The issue's targets next to the measured values (reported, never asserted)."""
    by = {r["program"]: r for r in rows}
    peers = [by[p] for p in (PLAIN, REFINE) if p in by]
    notes: list[str] = []
    for name in (GQA, GQA_COMPILED, GQA_OFF):
        g = by.get(name)
        if g is None or not peers:
            continue
        parts = []
        met = True
        for p in peers:
            q_ok = (g["answerable_quality"] or 0.0) >= (p["answerable_quality"] or 0.0)
            f_ok = (g["abstain_f1"] or 0.0) > (p["abstain_f1"] or 0.0)
            met = met and q_ok and f_ok
            parts.append(f"vs {p['program']}: answerable quality {_f(g['answerable_quality'])} vs "
                         f"{_f(p['answerable_quality'])} ({'≥' if q_ok else '<'}), abstention F1 "
                         f"{_f(g['abstain_f1'])} vs {_f(p['abstain_f1'])} ({'>' if f_ok else '≤'})")
        notes.append(f"Target 'GroundedQA ≥ each peer on answerable quality while beating them on abstention F1' "
                     f"— {name}: {'MET' if met else 'MISSED'}; " + "; ".join(parts) + ".")
    for name in (GQA, GQA_OFF, GQA_COMPILED):
        g = by.get(name)
        if g is None or g.get("overhead_share") is None:
            continue
        ok = g["overhead_share"] < 0.05
        notes.append(f"Target 'program overhead < 5% of wall time' — {name}: {'MET' if ok else 'MISSED'}, "
                     f"{100 * g['overhead_share']:.1f}% outside LM and retrieval (LM {100 * (g['lm_share'] or 0):.1f}%, "
                     f"retrieval {100 * (g['retrieval_share'] or 0):.1f}%; counting parallel calls once: "
                     f"{100 * (g['overhead_share_union'] or 0):.1f}%).")
    on, off = by.get(GQA), by.get(GQA_OFF)
    if on and off:
        notes.append(
            "Premise verification (measured trade-off, on − off): composite "
            f"{_signed(on['score'], off['score'])}, answerable quality "
            f"{_signed(on['answerable_quality'], off['answerable_quality'])}, abstention F1 "
            f"{_signed(on['abstain_f1'], off['abstain_f1'])}, over-abstention "
            f"{_signed(on['over_abstention_rate'], off['over_abstention_rate'])}; cost: "
            f"{_signed(on['lm_calls_per_q'], off['lm_calls_per_q'], 2)} LM calls/q, "
            f"{_signed(on['retrievals_per_q'], off['retrievals_per_q'], 2)} retrievals/q, latency p50 "
            f"{_signed(on['latency_p50_s'], off['latency_p50_s'], 2)} s.")
    return notes


def _signed(a: float | None, b: float | None, digits: int = 3) -> str:
    if a is None or b is None:
        return "–"
    return f"{a - b:+.{digits}f}"


def quality_result(outcome: dict[str, Any], config: dict[str, Any], extra_notes: Sequence[str] = ()) -> dict[str, Any]:
    """The registry result dict (tables, notes, chart) of a :func:`run_quality` outcome."""
    rows = outcome["rows"]
    n = rows[0]["n"] if rows else 0
    notes = list(extra_notes) + target_notes(rows)
    by = {r["program"]: r for r in rows}
    if REFINE in by:
        notes.append(f"RefineRAG: {by[REFINE]['refine_failed_rollouts']} Refine rollout(s) or advice call(s) failed "
                     "with an exception (dspy.Refine prints and skips them); a question whose every rollout fails "
                     "counts as an error, not an abstention.")
    cross = [f"{r['program']} {r['lm_calls_per_q']:.2f} (usage) vs {r['meter_lm_calls_per_q']:.2f} (meter)"
             for r in rows if r["figures_from"] == "trace"]
    if cross:
        notes.append("LM calls per question, GroundedQA's own usage vs the meter around the same LM: "
                     + "; ".join(cross) + ".")
    modes = [f"{r['program']} {r['modes'].get('generated', 0)} generated / {r['modes'].get('extractive', 0)} "
             f"extractive / {r['modes'].get('none', 0)} none" for r in rows if r.get("modes")]
    if modes:
        notes.append("Where GroundedQA's answers came from (result.mode over all questions; 'none' = abstained): "
                     + "; ".join(modes) + ".")
    if outcome.get("compile"):
        notes.append(f"Compiled program: {outcome['compile']}.")
    notes.append(
        "Answerable quality = mean composite over should_abstain=False questions (an abstention there scores 0). "
        "Composite, abstention F1, over-abstention, citation precision/recall (ALCE, over answered items) and "
        "STR-EM come from groundqa.evaluation.evaluate with the offline judge. Latency is per question, "
        "program only (scoring excluded). Overhead share = (total − LM time − retrieval time) / total, summed "
        "over questions; GroundedQA's LM and retrieval time come from its traces (LMCall/RetrievalCall "
        "latency_ms), the peers' from meters around the same LM and retriever.")
    chart = {
        "title": f"Peers on {n} questions: composite, abstention F1, answerable quality",
        "ylabel": "score (0–1)",
        "series": {
            "composite": {r["program"]: r["score"] or 0.0 for r in rows},
            "abstention F1": {r["program"]: r["abstain_f1"] or 0.0 for r in rows},
            "answerable quality": {r["program"]: r["answerable_quality"] or 0.0 for r in rows},
        },
    }
    return {
        "title": "Peers: GroundedQA vs plain DSPy RAG on the same LM and retriever",
        "config": config,
        "results": {"rows": rows, "compile": outcome.get("compile"), "peer_k": outcome.get("peer_k"),
                    "per_type": {name: {t: g.metrics.get("score") for t, g in rep.metrics.by_type.items()}
                                 for name, rep in outcome.get("reports", {}).items()},
                    "questions": outcome.get("records", {})},
        "tables": [
            {"title": f"Quality ({n} questions)", "columns": [c for c, _ in QUALITY_COLUMNS],
             "rows": _rows(rows, QUALITY_COLUMNS)},
            {"title": "Cost per question", "columns": [c for c, _ in COST_COLUMNS], "rows": _rows(rows, COST_COLUMNS)},
        ],
        "notes": notes,
        "chart": chart,
        "headline": quality_headline(rows),
    }


def quality_headline(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Composite, abstention F1 and answerable quality per program; GroundedQA's overhead share."""
    if not rows:
        return []
    n = rows[0]["n"]
    lines = [f"{n} questions — " + "; ".join(
        f"{r['program']}: composite {_f(r['score'])}, abstention F1 {_f(r['abstain_f1'])}, answerable "
        f"{_f(r['answerable_quality'])}, {r['lm_calls_per_q']:.2f} LM calls/q" for r in rows)]
    by = {r["program"]: r for r in rows}
    if GQA in by and by[GQA].get("overhead_share") is not None:
        lines.append(f"GroundedQA overhead {100 * by[GQA]['overhead_share']:.1f}% of wall time (target < 5%)")
    return lines


# -- data and set-up -------------------------------------------------------------------------
def suite_option(args: argparse.Namespace, name: str, env: str, default: Any) -> Any:
    """An option from ``args`` (this module's flags), else the environment, else ``default``."""
    value = getattr(args, name, None)
    if value is None:
        value = os.environ.get(env) or None
    return default if value is None else value


def load_questions(data: str, quick: bool, seed: int, max_questions: int | None = None
                   ) -> tuple[list[Document], list[Question], list[Question], str | None]:
    """``(corpus, eval questions, train questions, skip reason)`` for ``bundled`` or ``squad[:PATH]``."""
    from groundqa.experiment_data import stratified_sample

    if data == "bundled":
        from groundqa.datasets.bundled import load_bundled

        docs, test = load_bundled("test")
        _, train = load_bundled("train")
        limit = QUICK_QUESTIONS if quick else None
        if max_questions:
            limit = min(limit or max_questions, max_questions)
        return docs, stratified_sample(test, limit, seed), train, None
    if data == "squad" or data.startswith("squad:"):
        import random

        from groundqa.datasets.squad import default_squad2_path, load_squad2

        path = Path(data.split(":", 1)[1]) if ":" in data else default_squad2_path()
        if not path.exists():
            return [], [], [], f"SQuAD 2.0 file not found at {path}; suite skipped"
        n_eval = SQUAD_QUICK if quick else SQUAD_FULL
        if max_questions:
            n_eval = min(n_eval, max_questions)
        docs, questions, _errors = load_squad2(path, sample=n_eval + 2 * COMPILE_MAX, seed=seed)
        shuffled = list(questions)
        random.Random(seed).shuffle(shuffled)
        train, rest = shuffled[: 2 * COMPILE_MAX], shuffled[2 * COMPILE_MAX:]
        order = {q.id: i for i, q in enumerate(questions)}
        return docs, sorted(rest, key=lambda q: order[q.id]), train, None
    raise ValueError(f"unknown --data {data!r}: use 'bundled' or 'squad[:PATH]'")


def build_store(directory: Path, docs: Sequence[Document], settings: Any, name: str) -> CorpusStore:
    """A Chroma collection of its own under ``directory`` holding ``docs``."""
    store = CorpusStore(directory, collection=name)
    report = store.ingest(list(docs), settings.chunk_size, settings.chunk_overlap)
    _say(f"ingested {report.documents} documents -> {report.chunks_total} chunks in {report.seconds:.1f} s")
    return store


def warm_up(inner_lm: Any, store: CorpusStore) -> float:
    """Load the LM, the embedding model and the offline judge before anything is timed; returns seconds."""
    from groundqa.metrics.judges import get_judge

    started = time.perf_counter()
    with contextlib.suppress(Exception):
        inner_lm(messages=[{"role": "user", "content": "Warm-up."}], max_tokens=4)
    store.query("warm-up", 1)
    get_judge("offline").judge("The harbor has lights.", ["The harbor has twelve lights."])
    return time.perf_counter() - started


def _quiet_logs() -> None:
    for name in ("dspy.clients.lm", "dspy.adapters.json_adapter", "dspy.predict.predict", "dspy.predict.refine",
                 "dspy.evaluate.evaluate"):
        logging.getLogger(name).setLevel(logging.ERROR)


def _load_text() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return f"{load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f}" if load else "?"


@contextlib.contextmanager
def scratch_dir(prefix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


@register("quality")
def quality_suite(args: argparse.Namespace) -> dict[str, Any]:
    """PlainRAG, RefineRAG and GroundedQA (premises on/off, compiled) on the same LM, retriever and questions."""
    from groundqa.app import configure_lm
    from groundqa.config import load_settings
    from groundqa.runtime.guarded_lm import unwrap

    _quiet_logs()
    quick = bool(getattr(args, "quick", False))
    seed = int(getattr(args, "seed", 13))
    data = str(suite_option(args, "data", "GROUNDQA_BENCH_DATA", "bundled"))
    program_path = suite_option(args, "program", "GROUNDQA_BENCH_PROGRAM", None)
    max_questions = getattr(args, "max_questions", None)
    peer_reasoning = not bool(getattr(args, "peer_predict", False))
    chosen = getattr(args, "programs", None)
    programs = [p.strip() for p in chosen.split(",") if p.strip()] if chosen else list(PROGRAMS)
    unknown = [p for p in programs if p not in PROGRAMS]
    if unknown:
        raise ValueError(f"unknown program(s) {', '.join(unknown)}; choose from {', '.join(PROGRAMS)}")
    settings = load_settings(lm=getattr(args, "lm", None), cache=False)
    docs, questions, train, skip = load_questions(data, quick, seed, max_questions)
    config = {"lm": settings.lm, "data": data, "split": "test" if data == "bundled" else "sample",
              "questions": len(questions), "quick": quick, "seed": seed, "program": program_path,
              "peer_module": "ChainOfThought" if peer_reasoning else "Predict", "dspy_cache": False,
              "retrieval_cache": False, "k": settings.k, "judge": "offline", "threads": 1, "programs": programs}
    if skip:
        return {"title": "Peers: skipped", "config": config, "results": {}, "tables": [], "notes": [skip]}
    guarded = configure_lm(settings)
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    inner = unwrap(guarded)
    with scratch_dir("groundqa-peers-") as tmp:
        store = build_store(tmp / "chroma", docs, settings, f"peers-{data.split(':')[0]}")
        warm_s = warm_up(inner, store)
        load_before = _load_text()
        outcome = run_quality(inner, store, questions, train, settings, settings.lm, program_path=program_path,
                              programs=programs, peer_reasoning=peer_reasoning, seed=seed)
        load_after = _load_text()
    notes = [
        f"LM {settings.lm} (one object shared by every program; DSPy cache off, retrieval cache off, "
        f"temperature {settings.temperature}, max_tokens {settings.max_tokens}); {len(questions)} "
        f"{'bundled test' if data == 'bundled' else 'SQuAD 2.0'} questions"
        f"{' (stratified quick sample)' if quick and data == 'bundled' else ''}; peers retrieve "
        f"k={outcome['peer_k']} passages (as many as GroundedQA shows its LM) and use "
        f"{config['peer_module']}; warm-up (model loads) {warm_s:.1f} s, not counted.",
        f"Load average (1/5/15 min) before the programs ran: {load_before}; after: {load_after} "
        f"({os.cpu_count()} cores; other work on the machine inflates latency, not scores).",
    ]
    if settings.lm.startswith("embedded") and peer_reasoning:
        notes.append("The embedded engine decodes output fields one by one, so the ChainOfThought peers get their "
                     "`reasoning` (free text, half of max_tokens at most) and then their `answer` under the same "
                     "citation constraint as GroundedQA's synthesizer (one sentence ending with [k], or NOT IN "
                     "SOURCES).")
    elif settings.lm.startswith("embedded"):
        notes.append("Peers use dspy.Predict: their only output field is `answer`, decoded under the same "
                     "citation constraint as GroundedQA's synthesizer.")
    return quality_result(outcome, config, notes)


@register("quality-squad")
def quality_squad_suite(args: argparse.Namespace) -> dict[str, Any]:
    """The quality suite on a SQuAD 2.0 sample (answerable and unanswerable); skipped without the file."""
    data = getattr(args, "data", None)
    if not (data and str(data).startswith("squad")):
        env = os.environ.get("GROUNDQA_BENCH_SQUAD")
        data = f"squad:{env}" if env else "squad"
    return quality_suite(argparse.Namespace(**{**vars(args), "data": data}))


# -- cache suite ---------------------------------------------------------------------------
def run_passes(program: Any, questions: Sequence[Question], label: str, progress: bool = True
               ) -> dict[str, Any]:
    """Run ``program.run`` on every question with caches on; wall time, answers, cache hits."""
    from tqdm import tqdm

    answers: list[tuple[str, bool]] = []
    lm_calls = lm_hits = ret_calls = ret_hits = 0
    started = time.perf_counter()
    for q in tqdm(questions, desc=label, unit="q", file=sys.stderr, disable=not progress, mininterval=1.0):
        result = program.run(q.question, use_cache=True)
        answers.append((result.answer, result.abstained))
        lm_calls += result.usage.lm_calls
        lm_hits += result.usage.lm_cache_hits
        ret_calls += result.usage.retrieval_calls
        ret_hits += result.usage.retrieval_cache_hits
    return {"seconds": time.perf_counter() - started, "answers": answers, "lm_calls": lm_calls,
            "lm_cache_hits": lm_hits, "retrievals": ret_calls, "retrieval_cache_hits": ret_hits}


def run_cache(settings: Any, store: CorpusStore, questions: Sequence[Question], home: Path,
              progress: bool = True) -> dict[str, Any]:
    """Cold, warm (memory + disk) and warm-from-disk passes of GroundedQA with every cache on.

    Before the cold pass the in-process memo caches are emptied too (:func:`drop_process_caches`).

    The caller configures the LM and DSPy's cache (``configure_lm(settings)`` puts it under ``home``).
    """
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig

    directory = home / "cache" / "retrieval"
    retriever = Retriever(store, k=settings.k, cache=RetrievalCache(directory))
    program = GroundedQA(retriever, QAConfig.for_lm(settings.lm))
    drop_process_caches()
    cold = run_passes(program, questions, "cold", progress)
    warm = run_passes(program, questions, "warm", progress)
    # As a new process would find things: DSPy's and the retrieval cache's memory layers empty, the
    # in-process embedding and judge memos empty; only the disk caches are warm.
    dspy.cache.reset_memory_cache()
    retriever.cache = RetrievalCache(directory)
    drop_process_caches()
    disk = run_passes(program, questions, "warm (disk)", progress)
    passes = {"cold": cold, "warm": warm, "warm_disk": disk}
    return {
        "passes": {k: {key: v for key, v in p.items() if key != "answers"} for k, p in passes.items()},
        "identical_warm": sum(a == b for a, b in zip(cold["answers"], warm["answers"], strict=True)),
        "identical_disk": sum(a == b for a, b in zip(cold["answers"], disk["answers"], strict=True)),
        "n": len(questions),
        "speedup_warm": cold["seconds"] / warm["seconds"] if warm["seconds"] > 0 else None,
        "speedup_disk": cold["seconds"] / disk["seconds"] if disk["seconds"] > 0 else None,
    }


def cache_result(outcome: dict[str, Any], config: dict[str, Any], extra_notes: Sequence[str] = ()) -> dict[str, Any]:
    """The registry result dict of a :func:`run_cache` outcome."""
    n = outcome["n"]
    rows = []
    for key, label in (("cold", "cold"), ("warm", "warm (memory + disk)"), ("warm_disk", "warm, disk only (memory caches emptied)")):
        p = outcome["passes"][key]
        speedup = None if key == "cold" else outcome["speedup_warm" if key == "warm" else "speedup_disk"]
        identical = None if key == "cold" else outcome["identical_warm" if key == "warm" else "identical_disk"]
        rows.append([label, round(p["seconds"], 3), round(1000 * p["seconds"] / max(1, n), 1),
                     round(speedup, 1) if speedup else None, p["lm_calls"], p["lm_cache_hits"], p["retrievals"],
                     p["retrieval_cache_hits"], f"{identical}/{n}" if identical is not None else "–"])
    warm = outcome["speedup_warm"] or 0.0
    headline = [f"warm re-run {warm:.0f}× faster than cold (target ≥ 50×: {'MET' if warm >= 50 else 'MISSED'}); "
                f"disk-only warm {outcome['speedup_disk'] or 0:.0f}×; identical answers "
                f"{outcome['identical_warm']}/{n}"]
    notes = list(extra_notes) + [
        f"Target 'warm re-run ≥ 50× faster' — {'MET' if warm >= 50 else 'MISSED'}: {warm:.1f}× "
        f"(warm from disk only: {outcome['speedup_disk'] or 0:.1f}×); answers identical on "
        f"{outcome['identical_warm']}/{n} (memory) and {outcome['identical_disk']}/{n} (disk).",
        "'Disk only' empties DSPy's and the retrieval cache's memory layers and the in-process embedding and "
        "judge memos before the pass, as a new process would find them (the models stay loaded); LM answers, "
        "retrievals and MiniLM vectors then come from their disk caches under the home (DSPy's cache, the "
        "retrieval cache, embeddings.sqlite). What a warm run still does: input checks, presupposition rules, "
        "the offline judge's scoring for premise and sentence support, context building and the extractive "
        "fallback.",
    ]
    return {
        "title": "Cache: GroundedQA cold vs warm",
        "config": config,
        "results": outcome,
        "tables": [{"title": f"Cold vs warm cache ({n} questions)",
                    "columns": ["Pass", "Wall time (s)", "ms/question", "Speed-up vs cold", "LM calls",
                                "LM cache hits", "Retrievals", "Retrieval cache hits", "Identical answers"],
                    "rows": rows}],
        "notes": notes,
        "chart": {"title": "GroundedQA wall time per question, cold vs warm cache", "ylabel": "ms per question",
                  "series": {"ms/question": {r[0]: r[2] for r in rows}}, "log": True},
        "headline": headline,
    }


@register("cache")
def cache_suite(args: argparse.Namespace) -> dict[str, Any]:
    """GroundedQA cold vs warm cache (DSPy memory + disk cache, retrieval cache): wall time and identity."""
    from groundqa.config import load_settings

    _quiet_logs()
    quick = bool(getattr(args, "quick", False))
    seed = int(getattr(args, "seed", 13))
    data = str(suite_option(args, "data", "GROUNDQA_BENCH_DATA", "bundled"))
    base = load_settings(lm=getattr(args, "lm", None))
    docs, questions, _train, skip = load_questions(data, quick, seed, getattr(args, "max_questions", None))
    config = {"lm": base.lm, "data": data, "questions": len(questions), "quick": quick, "seed": seed,
              "dspy_cache": "memory + disk (temporary home)", "retrieval_cache": "memory + disk"}
    if skip:
        return {"title": "Cache: skipped", "config": config, "results": {}, "tables": [], "notes": [skip]}
    with scratch_dir("groundqa-cache-") as home:
        (home / "cache").mkdir(parents=True)
        models = Path(base.cache_dir) / "models"
        models.mkdir(parents=True, exist_ok=True)
        (home / "cache" / "models").symlink_to(models.resolve(), target_is_directory=True)
        settings = base.model_copy(update={"home": home, "cache": True})
        store = build_store(home / "chroma", docs, settings, f"cache-{data.split(':')[0]}")
        from groundqa.app import configure_lm
        from groundqa.runtime.guarded_lm import unwrap
        from groundqa.store.embeddings import set_disk_cache

        try:
            lm = configure_lm(settings)  # DSPy, retrieval and embedding caches under <home>/cache
            warm_up(unwrap(lm), store)
            load_before = _load_text()
            outcome = run_cache(settings, store, questions, home)
            load_after = _load_text()
        finally:  # release the temporary caches before their folder goes
            dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
            set_disk_cache(None)
    notes = [f"LM {settings.lm}; {len(questions)} {'bundled test' if data == 'bundled' else 'SQuAD 2.0'} questions; "
             f"load average (1/5/15 min) before: {load_before}, after: {load_after} ({os.cpu_count()} cores)."]
    return cache_result(outcome, config, notes)


# -- standalone entry point --------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """``python -m benchmarks.peers quality|cache [--quick] [--lm] [--data] [--program] ...``."""
    from benchmarks import DEFAULT_OUT

    parser = argparse.ArgumentParser(prog="python -m benchmarks.peers", description="groundqa peers benchmarks")
    parser.add_argument("suite", choices=["quality", "cache"])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_QUESTIONS} bundled / {SQUAD_QUICK} SQuAD questions")
    parser.add_argument("--lm", default=None, help="'embedded' (default) or a LiteLLM model string")
    parser.add_argument("--data", default=None, help="bundled (test split, default) | squad | squad:PATH")
    parser.add_argument("--program", default=None, help="a compiled GroundedQA (folder or program.json)")
    parser.add_argument("--max-questions", type=int, default=None, help="cap the question set")
    parser.add_argument("--peer-predict", action="store_true",
                        help="peers use dspy.Predict instead of ChainOfThought")
    parser.add_argument("--programs", default=None,
                        help="comma-separated subset of: " + ", ".join(PROGRAMS) + " (default: all)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="MINUTES")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one peers suite with its own flags and write its files like the registry runner."""
    import shlex

    from benchmarks.__main__ import run_suite

    args = build_parser().parse_args(argv)
    command = "python -m benchmarks.peers " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    run_suite(args.suite, args, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
