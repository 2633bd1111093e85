"""Log a compile to MLflow: one run per compile in the dataset's experiment, with the options as params,
the train/dev questions as dataset inputs, a nested evaluation run per program (baseline, compiled),
the optimisation curve, the metric deltas and the compiled program (artifact + logged model).

With tracking disabled (``--no-mlflow`` or a server that is down), nothing is logged and DSPy's MLflow
autologging is switched off, so that no callback tries to reach the store.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dspy

from groundqa.experiment_data import ExperimentData
from groundqa.tracking.evaluation_run import log_report
from groundqa.tracking.setup import Tracking, experiment_name

if TYPE_CHECKING:
    from groundqa.evaluation import EvaluationReport


@contextlib.contextmanager
def compile_run(tracking: Tracking, data: ExperimentData, optimizer: str, params: dict[str, Any]) -> Iterator[Any]:
    """The compile's MLflow run (``None`` when tracking is disabled), ended when the block ends."""
    import mlflow

    if not tracking.enabled:
        mlflow.dspy.autolog(disable=True)  # no DSPy callback may try to reach a store that is down
        yield None
        return
    mlflow.set_experiment(experiment_name(data.name))
    mlflow.dspy.autolog(log_compiles=True, log_evals=True, log_traces_from_compile=False, silent=True)
    with mlflow.start_run(run_name=f"{optimizer}-{time.strftime('%H%M%S')}") as run:
        mlflow.log_params({k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in params.items()})
        log_dataset_inputs(data)
        yield run


def log_dataset_inputs(data: ExperimentData) -> None:
    """The train and dev questions as MLflow dataset inputs of the active run."""
    import mlflow
    import pandas as pd

    for split, questions in (("train", data.train), ("dev", data.dev)):
        frame = pd.DataFrame([{"id": q.id, "question": q.question, "type": q.type,
                               "should_abstain": q.should_abstain, "answers": json.dumps(q.answers)}
                              for q in questions])
        mlflow.log_input(mlflow.data.from_pandas(frame, name=f"{data.name}-{split}"), context=split)


def log_program_evaluation(report: EvaluationReport, label: str) -> None:
    """An evaluation of the ``label`` program (baseline, compiled) inside the compile run: a nested run
    with the whole report, and ``<label>/<metric>`` on the compile run itself."""
    import mlflow

    with mlflow.start_run(run_name=f"{label}-eval", nested=True):
        log_report(report, params={"program": label}, prefix="dev/")
    mlflow.log_metrics({f"{label}/{k}": v for k, v in report.flat_metrics("").items()})


def log_calibration_trial(trial: Any) -> None:
    """One gate-calibration trial on the active compile run (``calibration/score`` at its step)."""
    import mlflow

    mlflow.log_metric("calibration/score", trial.score, step=trial.number)


def log_compile(compiled: dspy.Module, directory: Path, baseline: dict[str, Any], final: dict[str, Any],
                curve: Sequence[float], compile_s: float, register_as: str | None = None) -> None:
    """The optimisation curve, the deltas, the program's gates (params ``gates.<name>``) and calibration
    outcome, the saved program folder and the program as an MLflow model (registered as ``register_as``
    if given) on the active compile run."""
    import mlflow

    gates = getattr(compiled, "gates", None)
    if gates is not None:
        mlflow.log_params({f"gates.{name}": value for name, value in gates.model_dump().items()})
    calibration = getattr(compiled, "calibration", None)
    if calibration is not None:
        mlflow.set_tag("calibration", calibration.kept)
        mlflow.log_metrics({f"calibration/{k}": v for k, v in (
            ("fit_start", calibration.fit_start), ("fit_best", calibration.fit_best),
            ("check_start", calibration.check_start), ("check_best", calibration.check_best)) if v is not None})
    for step, score in enumerate(curve):
        mlflow.log_metric("curve/score", score, step=step)
    deltas = {f"delta/{k}": final[k] - baseline[k] for k in final
              if isinstance(final.get(k), (int, float)) and isinstance(baseline.get(k), (int, float))}
    mlflow.log_metrics({**deltas, "compile_seconds": compile_s})
    mlflow.log_artifacts(str(directory), artifact_path="compiled")
    try:
        mlflow.dspy.log_model(compiled, name="program", registered_model_name=register_as)
    except Exception as exc:  # the program artifact above is the source of truth
        mlflow.set_tag("log_model_error", f"{type(exc).__name__}: {str(exc)[:200]}")
        print(f"groundqa: MLflow model logging failed ({type(exc).__name__}); program.json is logged as an artifact",
              file=sys.stderr)
