"""Evaluate a program on a question set: ``evaluate(program, questions) -> EvaluationReport``.

The program runs under ``dspy.Evaluate`` with :func:`groundqa.metrics.grounding_metric`; then every
metric is aggregated overall and per question type (:mod:`groundqa.metrics.aggregate`). An exception
raised by the program for one question is recorded on that question (score 0) and does not stop the run.
No LM is configured here: configure DSPy before calling.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import dspy
from pydantic import BaseModel, Field

from groundqa.datasets.examples import to_example, to_examples
from groundqa.datasets.loaders import Question
from groundqa.judges import EntailmentJudge, get_judge
from groundqa.metrics.aggregate import COUNTS, METRICS, AggregateMetrics, aggregate_scores
from groundqa.metrics.coerce import as_result
from groundqa.metrics.composite import GroundingScore, ItemScores, make_grounding_metric, score_item
from groundqa.metrics.pages import gold_page_cited
from groundqa.signatures.types import Citation, SourceLocation
from groundqa.text import citation_numbers
from groundqa.tracking.evaluation_run import log_report

__all__ = ["EvaluationReport", "QuestionRecord", "Timing", "evaluate", "to_example", "to_examples"]


class QuestionRecord(BaseModel):
    """One question's outcome: what the program said and how it scored."""

    id: str
    type: str
    question: str
    answer: str = ""
    citations: list[int] = Field(default_factory=list, description="numbers cited in the answer, in order")
    cited_doc_ids: list[str] = Field(default_factory=list)
    cited_sources: list[str] = Field(
        default_factory=list, description='the cited passages as a person reads them: "title, p. 12", "title › section"')
    cited_locations: list[SourceLocation] = Field(
        default_factory=list, description="where each cited passage is: file, page or section, character offsets")
    abstained: bool = False
    abstain_reason: str | None = None
    exit_reason: str | None = None
    mode: str = Field(default="none", description="how the answer was made: generated (the LM), extractive or none")
    lm_calls: int = Field(default=0, description="LM calls the question made (cache hits included)")
    judgments: int = Field(default=0, description="distinct sentences the tuned answer judge read (Budgets.max_judgments)")
    judge_s: float = Field(default=0.0, description="time of those judgments, part of latency_s")
    error: str | None = None
    latency_s: float = 0.0
    scores: ItemScores = Field(default_factory=ItemScores)


class Timing(BaseModel):
    """Wall-clock figures of an evaluation, in seconds."""

    total_s: float = 0.0
    program_s: float = Field(0.0, description="sum of per-question program latencies")
    metric_s: float = Field(0.0, description="sum of per-question metric time")
    judge_s: float = Field(0.0, description="sum of per-question answer-judge time, part of program_s")
    mean_latency_s: float | None = None
    p95_latency_s: float | None = None


class EvaluationReport(BaseModel):
    """Aggregate metrics (overall + per type), one record per question, timing."""

    created_at: str = Field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    program: str = ""
    judge: str = "offline"
    threads: int = 1
    n: int = 0
    metrics: AggregateMetrics
    records: list[QuestionRecord] = Field(default_factory=list)
    timing: Timing = Field(default_factory=Timing)

    # -- export ------------------------------------------------------------------------------------
    def to_json(self, path: str | Path | None = None, indent: int = 2) -> str:
        """The report as JSON; also written to ``path`` when given."""
        text = self.model_dump_json(indent=indent)
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text, encoding="utf-8")
        return text

    @classmethod
    def from_json(cls, path: str | Path) -> EvaluationReport:
        """Load a report written by :meth:`to_json`."""
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))

    def flat_metrics(self, prefix: str = "") -> dict[str, float]:
        """``{prefix}metric``, ``{prefix}{type}/metric``, ``{prefix}count/...`` — ``None`` values omitted."""
        out: dict[str, float] = {}
        groups = [("", self.metrics.overall), *((f"{_key(t)}/", g) for t, g in self.metrics.by_type.items())]
        for scope, group in groups:
            for name, value in group.metrics.items():
                if value is not None and not math.isnan(value):
                    out[f"{prefix}{scope}{name}"] = float(value)
            for name, count in group.counts.items():
                out[f"{prefix}{scope}count/{name}"] = float(count)
        for name, value in self.metrics.macro.items():
            if value is not None and not math.isnan(value):
                out[f"{prefix}macro/{name}"] = float(value)
        out[f"{prefix}time/total_s"] = self.timing.total_s
        out[f"{prefix}time/judge_s"] = self.timing.judge_s
        if self.records:
            out[f"{prefix}usage/judgments_per_q"] = sum(r.judgments for r in self.records) / len(self.records)
        if self.timing.mean_latency_s is not None:
            out[f"{prefix}time/mean_latency_s"] = self.timing.mean_latency_s
        return out

    def table(self, metrics: Sequence[str] = METRICS) -> Any:
        """A ``rich.table.Table``: every metric (rows) overall, per type and macro (columns)."""
        from rich.table import Table

        table = Table(title=f"groundqa evaluation — {self.program or 'program'} (judge: {self.judge})")
        types = list(self.metrics.by_type)
        table.add_column("metric", style="bold")
        table.add_column("overall", justify="right")
        for t in types:
            table.add_column(t, justify="right")
        table.add_column("macro", justify="right", style="dim")
        for count in COUNTS:
            table.add_row(
                count, str(self.metrics.overall.counts.get(count, 0)),
                *(str(self.metrics.by_type[t].counts.get(count, 0)) for t in types), "",
                style="dim" if count != "n" else None,
            )
        table.add_section()
        for name in metrics:
            table.add_row(
                name, _fmt(self.metrics.overall.metrics.get(name)),
                *(_fmt(self.metrics.by_type[t].metrics.get(name)) for t in types),
                _fmt(self.metrics.macro.get(name)),
            )
        return table

    def log_to_mlflow(
        self,
        run_name: str | None = None,
        params: dict[str, Any] | None = None,
        prefix: str = "dev/",
        artifact_path: str = "evaluation",
        tracking_uri: str | None = None,
    ) -> str:
        """Log params, metrics (``prefix``-ed) and this report (JSON artifact) to MLflow; returns the run id.

        Logs into the active run if there is one, else starts (and ends) a new run named ``run_name``
        (see :func:`groundqa.tracking.evaluation_run.log_report`).
        """
        return log_report(self, run_name=run_name, params=params, prefix=prefix, artifact_path=artifact_path,
                          tracking_uri=tracking_uri)


def _fmt(value: float | None) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def _key(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_\-. ]", "_", name)


def _warm_up(program: Any) -> None:
    """Load what the program loads on first use (GroundedQA's answer judge and WordNet: its ``warm_up``, found through
    wrappers' ``program``), so that no question's latency carries it: on a fresh home that is the merged judge model
    written once, some 15 s. A failure is left to the questions, which report it one by one as a run would."""
    for _ in range(4):
        warm = getattr(program, "warm_up", None)
        if callable(warm):
            with contextlib.suppress(Exception):
                warm()
            return
        program = getattr(program, "program", None)
        if program is None:
            return


class _SafeProgram:
    """Calls the program, converts its output to a GroundedResult and records errors and latency."""

    def __init__(self, program: Callable[..., Any]) -> None:
        self.program = program

    def __call__(self, question: str, **_: Any) -> dspy.Prediction:
        start = time.perf_counter()
        try:
            raw = self.program(question=question)
        except Exception as exc:  # one failing question must not stop the evaluation
            return dspy.Prediction(result=None, error=f"{type(exc).__name__}: {exc}",
                                   latency_s=time.perf_counter() - start)
        latency = time.perf_counter() - start
        result = as_result(raw, question=question)
        error = None if result is not None else f"the program returned no answer ({type(raw).__name__})"
        return dspy.Prediction(result=result, error=error, latency_s=latency)


def _cited_sources(result: Any, cited: list[int]) -> list[Citation]:
    """The cited passages (each once, in citation order) as located citations."""
    if result is None:
        return []
    seen: set[str] = set()
    out: list[Citation] = []
    for number in cited:
        if 0 < number <= len(result.passages) and result.passages[number - 1].chunk_id not in seen:
            seen.add(result.passages[number - 1].chunk_id)
            out.append(Citation.of(number, result.passages[number - 1]))
    return out


def _program_name(program: Any) -> str:
    name = getattr(program, "__name__", None) or type(program).__name__
    return str(name)


def evaluate(
    program: Callable[..., Any],
    questions: Sequence[Question],
    threads: int = 1,
    judge: EntailmentJudge | str = "offline",
    progress: bool = True,
    all_types: Iterable[str] = (),
    engine: Literal["dspy", "mlflow"] = "dspy",
) -> EvaluationReport:
    """Run ``program(question=...)`` on every question with ``dspy.Evaluate`` and compute every metric.

    ``engine="mlflow"`` runs the questions through ``mlflow.genai.evaluate`` with the grounding scorers
    instead (:mod:`groundqa.tracking.genai`; an MLflow store must be configured): the same per-question
    scores, plus per-question assessments on the traces in MLflow.

    ``program`` is a ``dspy.Module`` or any callable returning a ``dspy.Prediction`` with ``.result``
    (a ``GroundedResult``) or a generic prediction with ``answer`` (see :mod:`groundqa.metrics.coerce`).
    ``judge`` is ``"offline"``, ``"lm"``, ``"auto"`` or an :class:`EntailmentJudge`. ``all_types`` lists
    question types to report even when absent.
    """
    judge_obj = get_judge(judge)
    questions = list(questions)
    _warm_up(program)
    start = time.perf_counter()
    metric_time = 0.0
    lock = threading.Lock()
    base_metric = make_grounding_metric(judge_obj, full=True)

    def metric(example: Any, pred: Any, trace: Any = None) -> GroundingScore:
        nonlocal metric_time
        t0 = time.perf_counter()
        out = base_metric(example, pred, trace)
        with lock:
            metric_time += time.perf_counter() - t0
        return out

    metric.__name__ = "grounding_metric"
    results: list[tuple[Any, Any, Any]] = []
    if engine not in ("dspy", "mlflow"):
        raise ValueError(f"unknown evaluation engine {engine!r}; choose 'dspy' or 'mlflow'")
    if questions and engine == "mlflow":
        from groundqa.tracking.genai import genai_evaluate

        results, metric_time = genai_evaluate(_SafeProgram(program), questions, judge_obj, threads=threads)
    elif questions:
        evaluator = dspy.Evaluate(
            devset=to_examples(questions), metric=metric, num_threads=max(1, int(threads)),
            display_progress=progress, display_table=False, failure_score=0.0, provide_traceback=False,
            max_errors=len(questions) + 1,
        )
        results = list(evaluator(_SafeProgram(program)).results)

    records: list[QuestionRecord] = []
    items: list[ItemScores] = []
    for question, (_, pred, score) in zip(questions, results, strict=True):
        item = score.item if isinstance(score, GroundingScore) else None
        error = pred.get("error") if isinstance(pred, dspy.Prediction) else None
        if item is None:  # the metric itself failed inside dspy.Evaluate: score again here
            item = score_item(question, pred if pred.get("result") is not None else None, judge_obj,
                              error=error or "evaluation failed")
        result = pred.get("result") if isinstance(pred, dspy.Prediction) else None
        if item.gold_page_cited is None and question.gold_pages:  # examples carry no gold pages
            item.gold_page_cited = gold_page_cited(question, result)
        items.append(item)
        cited = citation_numbers(result.answer) if result is not None else []
        doc_ids = [result.passages[n - 1].doc_id for n in cited if result is not None and 0 < n <= len(result.passages)]
        sources = _cited_sources(result, cited)
        records.append(QuestionRecord(
            id=question.id, type=question.type, question=question.question,
            answer=result.answer if result is not None else "",
            citations=cited, cited_doc_ids=list(dict.fromkeys(doc_ids)),
            cited_sources=[c.label for c in sources], cited_locations=[c.location for c in sources if c.location],
            abstained=item.abstained,
            abstain_reason=result.abstain_reason.value if result is not None and result.abstain_reason else None,
            exit_reason=result.exit_reason.value if result is not None else None,
            mode=result.mode if result is not None else "none",
            lm_calls=result.usage.lm_calls if result is not None else 0,
            judgments=result.usage.judgments if result is not None else 0,
            judge_s=result.usage.judge_ms / 1000 if result is not None else 0.0,
            error=item.error or error,
            latency_s=float(pred.get("latency_s") or 0.0) if isinstance(pred, dspy.Prediction) else 0.0,
            scores=item,
        ))
    latencies = sorted(r.latency_s for r in records)
    timing = Timing(
        total_s=time.perf_counter() - start,
        program_s=sum(latencies),
        metric_s=metric_time,
        judge_s=sum(r.judge_s for r in records),
        mean_latency_s=sum(latencies) / len(latencies) if latencies else None,
        p95_latency_s=latencies[min(len(latencies) - 1, math.ceil(0.95 * len(latencies)) - 1)] if latencies else None,
    )
    return EvaluationReport(
        program=_program_name(program), judge=getattr(judge_obj, "name", type(judge_obj).__name__),
        threads=max(1, int(threads)), n=len(questions),
        metrics=aggregate_scores([q.type for q in questions], items, all_types),
        records=records, timing=timing,
    )
