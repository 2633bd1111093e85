"""Log an evaluation to MLflow: params, every metric (prefixed) and the report as a JSON artifact.

Used by ``EvaluationReport.log_to_mlflow``, by the ``evaluate`` command (a run of its own in the
dataset's experiment, :func:`evaluation_run`) and by a compile (a nested run per evaluated program,
:func:`groundqa.tracking.compile_run.program_evaluation`). The run starts before the first question, so
its duration is the evaluation's, its questions are its dataset input, and the questions' traces
(:mod:`groundqa.tracking.traces`) are linked to it. A tracking server that dies during the evaluation
costs the tracking, not the evaluation (:mod:`groundqa.tracking.guard`): the report is still printed and
written, and one line says tracking was lost.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from groundqa.tracking.guard import guarded_call, guarding, tracking_lost
from groundqa.tracking.setup import Tracking, use_experiment
from groundqa.tracking.traces import QuestionTracer, flush_traces


class EvaluationReport(Protocol):
    """What logging needs of :class:`groundqa.evaluation.EvaluationReport` (tracking sits below the
    evaluation, so it names the shape, not the class)."""

    judge: str
    n: int
    threads: int
    program: str | None

    def flat_metrics(self, prefix: str = "") -> dict[str, float]: ...

    def to_json(self, path: str | Path | None = None, indent: int = 2) -> str: ...


def log_report(
    report: EvaluationReport,
    run_name: str | None = None,
    params: dict[str, Any] | None = None,
    prefix: str = "dev/",
    artifact_path: str = "evaluation",
    tracking_uri: str | None = None,
) -> str:
    """Log params, metrics (``prefix``-ed) and ``report`` (JSON artifact) to MLflow; returns the run id.

    Logs into the active run if there is one, else starts (and ends) a new run named ``run_name``.
    """
    import mlflow

    if tracking_uri:
        mlflow.set_tracking_uri(tracking_uri)
    active = mlflow.active_run()
    ctx = contextlib.nullcontext(active) if active is not None else mlflow.start_run(run_name=run_name)
    with ctx as run:
        base = {
            f"{prefix}judge": report.judge, f"{prefix}n_questions": report.n, f"{prefix}threads": report.threads,
            f"{prefix}program": report.program or "program",
        }
        mlflow.log_params({**base, **{k: _param(v) for k, v in (params or {}).items()}})
        mlflow.log_metrics(report.flat_metrics(prefix))
        with tempfile.TemporaryDirectory() as tmp:
            name = f"{_file_key(prefix.strip('/')) or 'evaluation'}_report.json"
            path = Path(tmp) / name
            report.to_json(path)
            mlflow.log_artifact(str(path), artifact_path=artifact_path)
        return run.info.run_id


@dataclass
class LoggedEvaluation:
    """An evaluation whose MLflow run is open: :meth:`wrap` the program so each question leaves a trace
    linked to the run, then :meth:`log` the report. With tracking off both are no-ops."""

    tracer: QuestionTracer = field(default_factory=QuestionTracer)
    run_id: str | None = None
    questions: Sequence[Any] = ()
    parent_run_id: str | None = None
    label: str = ""

    def wrap(self, program: Any) -> Any:
        """``program`` answering through :class:`~groundqa.tracking.traces.TracedProgram` (tracking on)."""
        return self.tracer.wrap(program, {q.question: q.id for q in self.questions})

    def log(self, report: EvaluationReport, params: dict[str, Any] | None = None) -> str | None:
        """The report into the open run (``dev/<metric>``); for a compile's program also ``<label>/<metric>``
        on the compile run. Returns the run id (``None`` with tracking off)."""
        if self.run_id is None or tracking_lost():
            return None
        flush_traces()
        logged = guarded_call("logging the evaluation report", self._log, report, params)
        return self.run_id if logged and not tracking_lost() else None

    def _log(self, report: EvaluationReport, params: dict[str, Any] | None) -> bool:
        import mlflow

        log_report(report, params=params, prefix="dev/")
        if self.parent_run_id:
            mlflow.log_metrics({f"{self.label}/{k}": v for k, v in report.flat_metrics("").items()},
                               run_id=self.parent_run_id)
        return True


def questions_dataset(questions: Sequence[Any], name: str) -> Any:
    """The questions as an MLflow dataset (``mlflow.data.from_pandas``): id, question, type, gold answers."""
    import mlflow
    import pandas as pd

    frame = pd.DataFrame([{"id": q.id, "question": q.question, "type": q.type, "should_abstain": q.should_abstain,
                           "answers": json.dumps(q.answers)} for q in questions])
    return mlflow.data.from_pandas(frame, name=name)


@contextlib.contextmanager
def evaluation_run(tracking: Tracking, dataset: str, run_name: str, params: dict[str, Any],
                   questions: Sequence[Any], label: str, split: str = "dev",
                   results: str = "the evaluation report (printed below; --json FILE writes it)",
                   say: Callable[[str], Any] | None = None) -> Iterator[LoggedEvaluation]:
    """An evaluation of its own (``groundqa evaluate``): a run in the dataset's experiment, open for the
    whole evaluation, with its params, the questions as dataset input and a trace per question. A lost
    tracking server makes ``say`` (default: a ``groundqa:`` line on stderr) say so once, naming ``results``."""
    if not tracking.enabled:
        yield LoggedEvaluation(questions=questions)
        return
    with guarding(tracking, results, say or _stderr) as guard:
        run = guard.call("starting the evaluation run", _start_run, tracking, dataset, run_name, params, questions,
                         label, split)
        if run is None:
            yield LoggedEvaluation(questions=questions)
            return
        tracer = QuestionTracer(enabled=True, label=label, run_id=run.info.run_id, command="evaluate")
        status = "FAILED"
        try:
            yield LoggedEvaluation(tracer=tracer, run_id=run.info.run_id, questions=questions, label=label)
            status = "FINISHED"
        finally:
            if guard.active:
                flush_traces()
            guard.end_run(status)


def _start_run(tracking: Tracking, dataset: str, run_name: str, params: dict[str, Any], questions: Sequence[Any],
               label: str, split: str) -> Any:
    import mlflow

    use_experiment(tracking, dataset)
    run = mlflow.start_run(run_name=run_name)
    mlflow.set_tags({"groundqa.kind": "evaluation", "groundqa.program": label,
                     "mlflow.note.content": f"`groundqa evaluate` of the {label} program "
                                            f"(`{params.get('program', label)}`) on {len(questions)} questions of "
                                            f"`{dataset}` ({split}), engine `{params.get('engine', 'dspy')}`; one "
                                            "trace per question."})
    mlflow.log_params({k: _param(v) for k, v in params.items()})
    mlflow.log_input(questions_dataset(questions, f"{dataset}-{split}"), context="evaluation")
    return run


def _stderr(message: str) -> None:
    print(f"groundqa: {message}", file=sys.stderr, flush=True)


def _file_key(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_\-. ]", "_", name)


def _param(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text[:6000]
