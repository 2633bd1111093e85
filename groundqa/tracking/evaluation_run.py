"""Log an evaluation to MLflow: params, every metric (prefixed) and the report as a JSON artifact.

Used by ``EvaluationReport.log_to_mlflow``, by the ``evaluate`` command (a run of its own in the
dataset's experiment) and by a compile (a nested run per evaluated program).
"""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from pathlib import Path
from typing import Any, Protocol

from groundqa.tracking.setup import experiment_name


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


def log_evaluation_run(report: EvaluationReport, dataset: str, run_name: str, params: dict[str, Any]) -> str:
    """An evaluation of its own: a run in the dataset's experiment; returns the run id."""
    import mlflow

    mlflow.set_experiment(experiment_name(dataset))
    return log_report(report, run_name=run_name, params=params)


def _file_key(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_\-. ]", "_", name)


def _param(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text[:6000]
