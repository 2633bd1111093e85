"""Compile GroundedQA with a DSPy optimizer against the composite grounding metric.

Flow: load the dataset -> ingest its corpus into a collection of its own -> evaluate the baseline on
dev -> compile on train -> evaluate the compiled program on dev -> save ``program.json`` +
``meta.json`` -> log everything to MLflow (one experiment per dataset, a run per compile with nested
evaluation runs). A tracking server that is down never stops the compile: results stay on disk.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Literal

import dspy
from pydantic import BaseModel, Field

from groundqa.config import Settings
from groundqa.experiment_data import ExperimentData, check_trainable, load_experiment_data, to_example

OPTIMIZERS = ("labeled", "bootstrap", "bootstrap-rs", "mipro", "gepa", "simba")
Optimizer = Literal["labeled", "bootstrap", "bootstrap-rs", "mipro", "gepa", "simba"]


class CompileOptions(BaseModel):
    """Everything a compile depends on (logged as MLflow params)."""

    optimizer: Optimizer = "bootstrap"
    dataset: str = "bundled"
    corpus: str | None = None
    teacher_lm: str | None = None
    reflection_lm: str | None = None
    budget: int = Field(default=4, ge=1, description="demos (few-shot) or steps (simba)")
    auto: Literal["light", "medium", "heavy"] | None = None
    seed: int = 0
    threads: int = Field(default=1, ge=1)
    max_train: int | None = None
    max_dev: int | None = None
    sample: int = 200
    verify_premises: bool = True
    metric_threshold: float = 0.75
    artifacts: Path = Path("artifacts")
    mlflow: bool = True
    register_as: str | None = None
    progress: bool = True


class CompileOutcome(BaseModel):
    """What a compile produced and where it went."""

    program_path: Path
    baseline: dict[str, float | None]
    compiled: dict[str, float | None]
    run_id: str | None = None
    tracking: str = ""
    seconds: float = 0.0
    demos: dict[str, int] = Field(default_factory=dict)


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent.parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def make_optimizer(options: CompileOptions, metric: Any, settings: Settings) -> Any:
    """The DSPy optimizer named by ``options.optimizer``, configured for the grounding metric."""
    from groundqa.lm.factory import build_lm

    teacher = build_lm(settings, lm=options.teacher_lm) if options.teacher_lm else None
    teacher_settings = {"lm": teacher} if teacher is not None else None
    name = options.optimizer
    if name == "labeled":
        return dspy.LabeledFewShot(k=options.budget)
    if name == "bootstrap":
        return dspy.BootstrapFewShot(metric=metric, metric_threshold=options.metric_threshold,
                                     max_bootstrapped_demos=options.budget, max_labeled_demos=0, max_rounds=1,
                                     teacher_settings=teacher_settings)
    if name == "bootstrap-rs":
        return dspy.BootstrapFewShotWithRandomSearch(
            metric=metric, metric_threshold=options.metric_threshold, max_bootstrapped_demos=options.budget,
            max_labeled_demos=0, num_candidate_programs=4, num_threads=options.threads,
            teacher_settings=teacher_settings,
        )
    if name == "mipro":
        return dspy.MIPROv2(metric=metric, prompt_model=teacher, auto=options.auto or "light",
                            max_bootstrapped_demos=options.budget, max_labeled_demos=0,
                            num_threads=options.threads, seed=options.seed, teacher_settings=teacher_settings,
                            metric_threshold=options.metric_threshold)
    if name == "gepa":
        reflection = build_lm(settings, lm=options.reflection_lm) if options.reflection_lm else (teacher or dspy.settings.lm)
        return dspy.GEPA(metric=metric, auto=options.auto or "light", reflection_lm=reflection,
                         num_threads=options.threads, seed=options.seed, track_stats=True)
    if name == "simba":
        return dspy.SIMBA(metric=metric, bsize=min(8, max(2, options.budget * 2)), num_candidates=4,
                          max_steps=options.budget, max_demos=options.budget, prompt_model=teacher,
                          num_threads=options.threads)
    raise ValueError(f"unknown optimizer {name!r}; choose one of {', '.join(OPTIMIZERS)}")


def optimizer_trainset(options: CompileOptions, train: list[dspy.Example]) -> list[dspy.Example]:
    """Few-shot optimizers bootstrap demos from answerable questions only: a should-abstain question is
    answered by abstaining before the LM is called, so its (empty) trace would use up the demo budget."""
    if options.optimizer in ("labeled", "bootstrap", "bootstrap-rs"):
        answerable = [e for e in train if not e.should_abstain]
        return answerable or train
    return train


def run_optimizer(optimizer: Any, options: CompileOptions, program: dspy.Module, train: list[dspy.Example],
                  dev: list[dspy.Example]) -> dspy.Module:
    name = options.optimizer
    if name in ("labeled", "bootstrap"):
        return optimizer.compile(program, trainset=train)
    if name == "bootstrap-rs":
        return optimizer.compile(program, trainset=train, valset=dev)
    if name == "simba":
        return optimizer.compile(program, trainset=train, seed=options.seed)
    return optimizer.compile(program, trainset=train, valset=dev)


def optimisation_curve(compiled: Any) -> list[float]:
    """Candidate/trial scores the optimizer left on the program, in order (may be empty)."""
    if getattr(compiled, "candidate_programs", None):
        return [float(c["score"]) for c in compiled.candidate_programs if "score" in c]
    if getattr(compiled, "trial_logs", None):
        return [float(t.get("full_eval_score") or t.get("score") or 0.0) for t in compiled.trial_logs.values()]
    details = getattr(compiled, "detailed_results", None)
    if details is not None and getattr(details, "val_aggregate_scores", None):
        return [float(s) for s in details.val_aggregate_scores]
    return []


def demo_counts(program: dspy.Module) -> dict[str, int]:
    return {name: len(p.demos) for name, p in program.named_predictors()}


def compile_program(settings: Settings, options: CompileOptions, out: Any = print) -> CompileOutcome:
    """Run the whole compile; ``out`` receives progress lines."""
    from groundqa.app import build_program, configure_lm
    from groundqa.cli import ingest_documents
    from groundqa.evaluation import evaluate
    from groundqa.metrics.composite import make_grounding_metric
    from groundqa.programs.persistence import save_program
    from groundqa.tracking.setup import configure_tracking

    started = time.perf_counter()
    if options.optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {options.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}")
    data = load_experiment_data(options.dataset, options.corpus, options.seed, options.sample,
                                options.max_train, options.max_dev)
    check_trainable(data)
    settings = settings.model_copy(update={"collection": data.collection})
    configure_lm(settings)
    report = ingest_documents(settings, data.corpus)
    out(f"dataset {data.name} ({data.digest}): {len(data.corpus)} documents -> {report.chunks_total} chunks, "
        f"{len(data.train)} train / {len(data.dev)} dev questions")

    tracking = configure_tracking(settings, options.mlflow)
    if not tracking.enabled and options.mlflow:
        out(f"MLflow: {tracking.reason}; results are written to {options.artifacts} only")
    metric = make_grounding_metric("offline", pass_threshold=options.metric_threshold)
    train = [to_example(q) for q in data.train]
    dev_questions = data.dev
    config = {"verify_premises": options.verify_premises}
    baseline = build_program(settings, **config)
    params = {**options.model_dump(mode="json", exclude={"progress"}), "lm": settings.lm,
              "dataset_digest": data.digest, "metric": "grounding_metric(offline judge)", "git_commit": git_commit(),
              "n_train": len(data.train), "n_dev": len(data.dev)}

    run_ctx = _mlflow_run(tracking, data, options, params)
    with run_ctx as run:
        out(f"evaluating the baseline on {len(dev_questions)} dev questions ...")
        base_report = _evaluate_logged(evaluate, baseline, dev_questions, options, tracking, "baseline", run)
        out(f"compiling with {options.optimizer} on {len(train)} train questions ...")
        optimizer = make_optimizer(options, metric, settings)
        t0 = time.perf_counter()
        student = build_program(settings, **config)
        compiled = run_optimizer(optimizer, options, student, optimizer_trainset(options, train),
                                 [to_example(q) for q in dev_questions])
        compile_s = time.perf_counter() - t0
        out(f"compiled in {compile_s:.0f}s; demos per predictor: {demo_counts(compiled)}")
        out("evaluating the compiled program ...")
        comp_report = _evaluate_logged(evaluate, compiled, dev_questions, options, tracking, "compiled", run)

        directory = Path(options.artifacts) / f"{data.name}-{options.optimizer}-{time.strftime('%Y%m%d-%H%M%S')}"
        b, c = _headline(base_report), _headline(comp_report)
        meta = {"lm": settings.lm, "optimizer": options.optimizer, "dataset": data.name,
                "dataset_digest": data.digest, "metric": params["metric"], "git_commit": params["git_commit"],
                "scores": {"baseline": b, "compiled": c}, "options": options.model_dump(mode="json"),
                "demos": demo_counts(compiled), "compile_seconds": round(compile_s, 1)}
        program_path = save_program(compiled, directory, meta)
        base_report.to_json(directory / "baseline_report.json")
        comp_report.to_json(directory / "compiled_report.json")
        if run is not None:
            _log_compile(run, compiled, directory, b, c, options, compile_s)
    outcome = CompileOutcome(program_path=program_path, baseline=b, compiled=c,
                             run_id=run.info.run_id if run is not None else None,
                             tracking=tracking.uri if tracking.enabled else tracking.reason,
                             seconds=time.perf_counter() - started, demos=demo_counts(compiled))
    return outcome


def _headline(report: Any) -> dict[str, float | None]:
    return dict(report.metrics.overall.metrics)


def _mlflow_run(tracking: Any, data: ExperimentData, options: CompileOptions, params: dict[str, Any]) -> Any:
    import contextlib

    import mlflow

    if not tracking.enabled:
        mlflow.dspy.autolog(disable=True)  # no DSPy callback may try to reach a store that is down
        return contextlib.nullcontext(None)

    from groundqa.tracking.setup import experiment_name

    mlflow.set_experiment(experiment_name(data.name))
    mlflow.dspy.autolog(log_compiles=True, log_evals=True, log_traces_from_compile=False, silent=True)
    run = mlflow.start_run(run_name=f"{options.optimizer}-{time.strftime('%H%M%S')}")
    mlflow.log_params({k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in params.items()})
    _log_dataset_inputs(data)
    return run


def _log_dataset_inputs(data: ExperimentData) -> None:
    import mlflow
    import pandas as pd

    for split, questions in (("train", data.train), ("dev", data.dev)):
        frame = pd.DataFrame([{"id": q.id, "question": q.question, "type": q.type,
                               "should_abstain": q.should_abstain, "answers": json.dumps(q.answers)}
                              for q in questions])
        mlflow.log_input(mlflow.data.from_pandas(frame, name=f"{data.name}-{split}"), context=split)


def _evaluate_logged(evaluate: Any, program: Any, questions: list[Any], options: CompileOptions, tracking: Any,
                     label: str, run: Any) -> Any:
    report = evaluate(program, questions, threads=options.threads, progress=options.progress)
    if run is not None:
        import mlflow

        with mlflow.start_run(run_name=f"{label}-eval", nested=True):
            report.log_to_mlflow(params={"program": label}, prefix="dev/")
        mlflow.log_metrics({f"{label}/{k}": v for k, v in report.flat_metrics("").items()})
    return report


def _log_compile(run: Any, compiled: dspy.Module, directory: Path, baseline: dict[str, Any], final: dict[str, Any],
                 options: CompileOptions, compile_s: float) -> None:
    import mlflow

    for step, score in enumerate(optimisation_curve(compiled)):
        mlflow.log_metric("curve/score", score, step=step)
    deltas = {f"delta/{k}": final[k] - baseline[k] for k in final
              if isinstance(final.get(k), (int, float)) and isinstance(baseline.get(k), (int, float))}
    mlflow.log_metrics({**deltas, "compile_seconds": compile_s})
    mlflow.log_artifacts(str(directory), artifact_path="compiled")
    try:
        mlflow.dspy.log_model(compiled, name="program", registered_model_name=options.register_as)
    except Exception as exc:  # the program artifact above is the source of truth
        mlflow.set_tag("log_model_error", f"{type(exc).__name__}: {str(exc)[:200]}")
        print(f"groundqa: MLflow model logging failed ({type(exc).__name__}); program.json is logged as an artifact",
              file=sys.stderr)
