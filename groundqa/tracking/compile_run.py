"""Log a compile to MLflow: one run per compile in the dataset's experiment, with the options as params,
the train/dev questions as dataset inputs, a nested evaluation run per program (baseline, compiled),
the optimisation curve, the metric deltas and the compiled program (artifact + logged model).

Each evaluated program gets its nested run before its first question (:func:`program_evaluation`), so
the run's duration is real, the dev questions are its dataset input and every question leaves a trace
linked to it and tagged ``baseline`` or ``compiled`` (:mod:`groundqa.tracking.traces`, built from the
program's own trace records). DSPy's autologging keeps its evaluation logging but makes no traces of its
own (they would duplicate the LM calls), and logs no placeholder model (it stayed PENDING forever); the
compiled program is logged as a model that loads anywhere (:mod:`groundqa.tracking.model`), and the
comparison chart of baseline and compiled is logged with the run.

With tracking disabled (``--no-mlflow`` or a server that is down), nothing is logged and DSPy's MLflow
autologging is switched off, so that no callback tries to reach the store. A server that dies during the
compile costs its tracking, never the compile: every call here goes through the compile's
:class:`~groundqa.tracking.guard.TrackingGuard`, which stops tracking at the first failure and says once
where the results are (the program is saved either way).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dspy

from groundqa.experiment_data import ExperimentData
from groundqa.tracking.evaluation_run import LoggedEvaluation, questions_dataset
from groundqa.tracking.guard import current_guard, guarded_call, guarding, tracking_lost
from groundqa.tracking.setup import Tracking, use_experiment
from groundqa.tracking.traces import QuestionTracer, flush_traces

if TYPE_CHECKING:
    from groundqa.config import Settings

_DATA: contextvars.ContextVar[ExperimentData | None] = contextvars.ContextVar("groundqa_compile_data", default=None)
"""The dataset of the compile run in progress (names the nested evaluations' dataset inputs)."""


@contextlib.contextmanager
def compile_run(tracking: Tracking, data: ExperimentData, optimizer: str, params: dict[str, Any],
                results: str | Path = "the artifacts folder", say: Callable[[str], Any] = print) -> Iterator[Any]:
    """The compile's MLflow run (``None`` when tracking is disabled), ended when the block ends.

    Tracking calls inside the block are guarded: a lost server makes ``say`` print once that tracking was
    lost and that the results are in ``results``; ``tracking.enabled`` is then false and the run is only
    forgotten locally.
    """
    import mlflow

    if not tracking.enabled:
        mlflow.dspy.autolog(disable=True)  # no DSPy callback may try to reach a store that is down
        yield None
        return
    with guarding(tracking, str(results), say) as guard:
        run = guard.call("starting the compile run", _start_compile_run, tracking, data, optimizer, params)
        if run is None:
            yield None
            return
        token = _DATA.set(data)
        status = "FAILED"
        try:
            yield run
            status = "FINISHED"
        finally:
            _DATA.reset(token)
            if guard.active:
                flush_traces()
            guard.end_run(status)


def _start_compile_run(tracking: Tracking, data: ExperimentData, optimizer: str, params: dict[str, Any]) -> Any:
    import mlflow

    use_experiment(tracking, data.name)
    # Evaluation logging stays; traces come from the program's records (log_traces_from_eval keeps tracing on
    # inside dspy.Evaluate and logs the metric on each question's trace); log_compiles would log a
    # placeholder model that is never finalised.
    mlflow.dspy.autolog(log_compiles=False, log_evals=True, log_traces=False, log_traces_from_compile=False,
                        log_traces_from_eval=True, silent=True)
    run = mlflow.start_run(run_name=f"{optimizer}-{time.strftime('%H%M%S')}")
    mlflow.set_tags({"groundqa.kind": "compile", NOTE: _compile_note(optimizer, data, params)})
    mlflow.log_params({k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in params.items()})
    log_dataset_inputs(data)
    return run


NOTE = "mlflow.note.content"
"""The tag MLflow shows as a run's (or experiment's) description."""
HEADLINE = ("score", "abstain_f1", "citation_recall", "citation_precision", "str_em", "faithfulness")


def _compile_note(optimizer: str, data: ExperimentData, params: dict[str, Any]) -> str:
    return (f"`{optimizer}` compile of GroundedQA on `{data.name}` ({len(data.train)} train / {len(data.dev)} dev "
            f"questions, LM `{params.get('lm', '?')}`). Nested runs `baseline-eval` and `compiled-eval` evaluate "
            "both programs on dev, one trace per question. Artifacts: `charts/comparison.png`, "
            "`compiled/program.json`; the program is also the logged model `program`.")


def _headline_table(baseline: dict[str, Any], final: dict[str, Any]) -> str:
    rows = ["| dev metric | baseline | compiled | change |", "|---|---:|---:|---:|"]
    for name in HEADLINE:
        b, c = baseline.get(name), final.get(name)
        if isinstance(b, (int, float)) and isinstance(c, (int, float)):
            rows.append(f"| {name} | {b:.3f} | {c:.3f} | {c - b:+.3f} |")
    return "\n".join(rows) if len(rows) > 2 else ""


def log_dataset_inputs(data: ExperimentData) -> None:
    """The train and dev questions as MLflow dataset inputs of the active run."""
    import mlflow

    for split, questions in (("train", data.train), ("dev", data.dev)):
        mlflow.log_input(questions_dataset(questions, f"{data.name}-{split}"), context=split)


@contextlib.contextmanager
def program_evaluation(run: Any, label: str, questions: Sequence[Any]) -> Iterator[LoggedEvaluation]:
    """The evaluation of the ``label`` program (baseline, compiled) inside the compile run ``run``: a nested
    run open for the whole evaluation, with the dev questions as its dataset and a trace per question
    tagged ``label``. ``.wrap(program)`` it, evaluate, then ``.log(report)`` (which also puts
    ``<label>/<metric>`` on the compile run). Nothing is logged when ``run`` is ``None`` or tracking was
    lost."""
    if run is None or tracking_lost():
        yield LoggedEvaluation(questions=questions, label=label)
        return
    child = guarded_call(f"starting the {label} evaluation run", _start_evaluation_run, label, questions)
    if child is None:
        yield LoggedEvaluation(questions=questions, label=label)
        return
    tracer = QuestionTracer(enabled=True, label=label, run_id=child.info.run_id, command="compile")
    status = "FAILED"
    try:
        yield LoggedEvaluation(tracer=tracer, run_id=child.info.run_id, questions=questions,
                               parent_run_id=run.info.run_id, label=label)
        status = "FINISHED"
    finally:
        guard = current_guard()
        if guard is None:
            import mlflow

            flush_traces()
            mlflow.end_run(status)
        else:
            if guard.active:
                flush_traces()
            guard.end_run(status)


def _start_evaluation_run(label: str, questions: Sequence[Any]) -> Any:
    import mlflow

    data = _DATA.get()
    child = mlflow.start_run(run_name=f"{label}-eval", nested=True)
    mlflow.set_tags({"groundqa.kind": "evaluation", "groundqa.program": label,
                     NOTE: f"The {label} program on the {len(questions)} dev questions of its compile run; one "
                           f"trace per question, tagged `groundqa.program={label}`."})
    mlflow.log_input(questions_dataset(questions, f"{data.name if data else 'dataset'}-dev"), context="evaluation")
    return child


def log_calibration_trial(trial: Any) -> None:
    """One gate-calibration trial on the active compile run (``calibration/score`` at its step)."""
    import mlflow

    guarded_call("logging a calibration trial", mlflow.log_metric, "calibration/score", trial.score,
                 step=trial.number)


def log_finetune_step(report: Any) -> None:
    """One LoRA training step on the active compile run (``finetune/loss`` at its step)."""
    import mlflow

    guarded_call("logging a fine-tuning step", mlflow.log_metric, "finetune/loss", report.loss, step=report.step)


def log_compile(compiled: dspy.Module, directory: Path, baseline: dict[str, Any], final: dict[str, Any],
                curve: Sequence[float], compile_s: float, register_as: str | None = None,
                settings: Settings | None = None) -> None:
    """The optimisation curve, the deltas, the program's gates (params ``gates.<name>``), its fitted selector
    (params ``selector.<signal>``), the calibration and selection outcomes, the saved program folder, the
    comparison chart and the program as an MLflow model (registered as ``register_as`` if given; it records
    ``settings``' store and LM) on the active compile run.
    Guarded: nothing is tried once tracking is lost, and a failure here loses it."""
    if tracking_lost():
        return
    guarded_call("logging the compiled program", _log_compile, compiled, directory, baseline, final, curve,
                 compile_s, register_as, settings)


def _log_compile(compiled: dspy.Module, directory: Path, baseline: dict[str, Any], final: dict[str, Any],
                 curve: Sequence[float], compile_s: float, register_as: str | None,
                 settings: Settings | None) -> None:
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
    selector = getattr(compiled, "selector", None)
    if selector is not None and selector.active:
        mlflow.log_params({"selector.threshold": selector.threshold, "selector.bias": selector.bias,
                           **{f"selector.{name}": w for name, w in selector.weights.items()}})
    selection = getattr(compiled, "selection", None)
    if selection is not None:
        mlflow.set_tag("selection", selection.kept)
        mlflow.log_metrics({f"selection/{k}": v for k, v in (
            ("fit_start", selection.fit_start), ("fit_best", selection.fit_best), ("oracle_fit", selection.oracle_fit),
            ("check_start", selection.check_start), ("check_best", selection.check_best)) if v is not None})
    finetune = getattr(compiled, "finetune", None)
    if finetune is not None:  # the data manifest and the adapter are in the program folder logged below
        mlflow.log_params({f"finetune.{k}": v for k, v in {**finetune.options, "data_sha256": finetune.data_sha256,
                                                           "adapter_sha256": finetune.adapter_sha256}.items()})
        mlflow.log_metrics({"finetune/records": finetune.records, "finetune/answers": finetune.answers,
                            "finetune/refusals": finetune.refusals, "finetune/train_seconds": finetune.train_seconds,
                            "finetune/peak_rss_mb": finetune.peak_rss_mb})
    for step, score in enumerate(curve):
        mlflow.log_metric("curve/score", score, step=step)
    deltas = {f"delta/{k}": final[k] - baseline[k] for k in final
              if isinstance(final.get(k), (int, float)) and isinstance(baseline.get(k), (int, float))}
    mlflow.log_metrics({**deltas, "compile_seconds": compile_s})
    active = mlflow.active_run()
    table = _headline_table(baseline, final)
    if active is not None and table:
        note = mlflow.get_run(active.info.run_id).data.tags.get(NOTE, "")
        mlflow.set_tag(NOTE, f"{note}\n\n{table}".strip())
    mlflow.log_artifacts(str(directory), artifact_path="compiled")
    log_comparison_chart()
    if settings is None:
        print("groundqa: no settings given; the compiled program is logged as an artifact only", file=sys.stderr)
        return
    if getattr(compiled, "adapter", None) is not None:  # a logged model would carry the state, not the weights
        mlflow.set_tag("log_model_skipped", "fine-tuned: program.json + adapter.gguf are the 'compiled' artifacts")
        print("groundqa: a fine-tuned program is logged as the run's 'compiled' artifacts (program.json + "
              "adapter.gguf), not as an MLflow model; run it from its folder with --program", file=sys.stderr)
        return
    from groundqa.tracking.model import log_program_model

    try:
        log_program_model(compiled, settings, registered_model_name=register_as)
    except Exception as exc:  # the program artifact above is the source of truth
        mlflow.set_tag("log_model_error", f"{type(exc).__name__}: {str(exc)[:200]}")
        print(f"groundqa: MLflow model logging failed ({type(exc).__name__}: {str(exc)[:200]}); program.json is "
              "logged as an artifact", file=sys.stderr)


def log_comparison_chart() -> None:
    """The baseline-vs-compiled chart of the active compile run (``charts/comparison.png``), the one
    ``groundqa compare`` draws, so the run page shows it without the command line."""
    import mlflow

    from groundqa.tracking.chart import plot_comparison
    from groundqa.tracking.comparison import build_comparison
    from groundqa.tracking.runs import run_info

    active = mlflow.active_run()
    if active is None:
        return
    run = mlflow.get_run(active.info.run_id)
    experiment = mlflow.get_experiment(run.info.experiment_id)
    comparison = build_comparison([run_info(run, experiment.name)])
    with tempfile.TemporaryDirectory() as tmp:
        png = plot_comparison(comparison, Path(tmp) / "comparison.png",
                              title=f"{run.info.run_name}: baseline vs compiled (dev)")
        if png is not None:
            mlflow.log_artifact(str(png), artifact_path="charts")
