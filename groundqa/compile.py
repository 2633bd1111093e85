"""Compile GroundedQA with a DSPy optimizer against the composite grounding metric.

Flow: load the dataset -> ingest its corpus into a collection of its own -> evaluate the baseline on
dev -> compile on train -> evaluate the compiled program on dev -> save ``program.json`` +
``meta.json`` -> log everything to MLflow (:mod:`groundqa.tracking.compile_run`: one experiment per
dataset, a run per compile with nested evaluation runs). A tracking server that is down never stops the
compile: results stay on disk. Every optimizer is one entry of :data:`OPTIMIZER_SPECS`.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import dspy
from pydantic import BaseModel, Field

from groundqa.app import build_program, configure_lm
from groundqa.config import Settings
from groundqa.datasets.examples import to_example
from groundqa.evaluation import EvaluationReport, evaluate
from groundqa.experiment_data import check_trainable, load_experiment_data, parse_dataset_spec
from groundqa.ingest import Progress, ingest_documents
from groundqa.judges.answer_judge import TRAINED_ON
from groundqa.lm import factory
from groundqa.metrics.composite import make_grounding_metric
from groundqa.optimizers.calibrate import CalibrateGates, gold_documents, stratified_split
from groundqa.optimizers.finetune import DEFAULT_REFUSAL_SHARE, FinetuneEmbedded, FinetuneError
from groundqa.optimizers.select import SelectAnswers
from groundqa.programs.extractive_teacher import build_teacher_lm
from groundqa.programs.gates import JUDGE_GATES
from groundqa.programs.persistence import save_program
from groundqa.tracking.chart import plot_calibration, plot_losses
from groundqa.tracking.compile_run import (
    compile_run,
    log_calibration_trial,
    log_compile,
    log_finetune_step,
    program_evaluation,
)
from groundqa.tracking.setup import configure_tracking


class CompileOptions(BaseModel):
    """Everything a compile depends on (logged as MLflow params)."""

    optimizer: str = Field(default="bootstrap", description="an optimizer, or a chain run left to right: "
                                                            "'bootstrap+calibrate', 'mipro+calibrate', ...")
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
    trials: int = Field(default=60, ge=1, description="calibration trials (the calibrate optimizer)")
    calibrate_sizes: bool = Field(default=False, description="also search k, max_passages, lexical_weight and "
                                                             "lexical_pool (each new combination pays an LM pass)")
    check_share: float = Field(default=1 / 3, gt=0, lt=1,
                               description="share of train held back to check a winner (never dev or test)")
    finetune_data: Path | None = Field(default=None, description="extra chat-format training data (JSONL) for the "
                                                                 "finetune optimizer, e.g. the SQuAD training articles")
    finetune_epochs: int = Field(default=1, ge=1, description="finetune: passes over the training examples")
    finetune_steps: int | None = Field(default=None, ge=1, description="finetune: optimizer steps instead of epochs")
    finetune_lr: float = Field(default=2e-4, gt=0, description="finetune: the LoRA's learning rate")
    finetune_rank: int = Field(default=16, ge=1, description="finetune: the LoRA's rank")
    finetune_refusal_share: float | None = Field(default=DEFAULT_REFUSAL_SHARE, gt=0, lt=1, description="finetune: at most this "
                                                 "share of the training examples are NOT IN SOURCES refusals")
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
    gates: str = ""


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent.parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


@dataclass(frozen=True)
class OptimizerSpec:
    """How one DSPy optimizer is built and called.

    ``build(options, metric, teacher, settings)`` returns the optimizer (``teacher`` is the
    ``--teacher-lm`` LM or ``None``); ``compile_with`` names what its ``compile`` takes besides the
    program, from ``trainset``, ``valset`` (the dev examples) and ``seed``; ``few_shot`` optimizers
    bootstrap demos, so they train on answerable questions only (see :func:`optimizer_trainset`).
    """

    build: Callable[[CompileOptions, Any, Any, Settings], Any]
    compile_with: tuple[str, ...] = ("trainset", "valset")
    few_shot: bool = False


def _teacher_settings(teacher: Any) -> dict[str, Any] | None:
    return {"lm": teacher} if teacher is not None else None


def _labeled(options: CompileOptions, metric: Any, teacher: Any, settings: Settings) -> Any:
    return dspy.LabeledFewShot(k=options.budget)


def _bootstrap(options: CompileOptions, metric: Any, teacher: Any, settings: Settings) -> Any:
    return dspy.BootstrapFewShot(metric=metric, metric_threshold=options.metric_threshold,
                                 max_bootstrapped_demos=options.budget, max_labeled_demos=0, max_rounds=1,
                                 teacher_settings=_teacher_settings(teacher))


def _bootstrap_rs(options: CompileOptions, metric: Any, teacher: Any, settings: Settings) -> Any:
    return dspy.BootstrapFewShotWithRandomSearch(
        metric=metric, metric_threshold=options.metric_threshold, max_bootstrapped_demos=options.budget,
        max_labeled_demos=0, num_candidate_programs=4, num_threads=options.threads,
        teacher_settings=_teacher_settings(teacher),
    )


def _mipro(options: CompileOptions, metric: Any, teacher: Any, settings: Settings) -> Any:
    return dspy.MIPROv2(metric=metric, prompt_model=teacher, auto=options.auto or "light",
                        max_bootstrapped_demos=options.budget, max_labeled_demos=0,
                        num_threads=options.threads, seed=options.seed, teacher_settings=_teacher_settings(teacher),
                        metric_threshold=options.metric_threshold)


def _gepa(options: CompileOptions, metric: Any, teacher: Any, settings: Settings) -> Any:
    if options.reflection_lm:
        reflection = factory.build_lm(settings, lm=options.reflection_lm)
    else:
        reflection = teacher or dspy.settings.lm
    return dspy.GEPA(metric=metric, auto=options.auto or "light", reflection_lm=reflection,
                     num_threads=options.threads, seed=options.seed, track_stats=True)


def _calibrate(options: CompileOptions, metric: Any, teacher: Any, settings: Settings) -> Any:
    fixed, why = judge_read(options.dataset)
    return CalibrateGates(metric=metric, n_trials=options.trials, seed=options.seed, check_share=options.check_share,
                          sizes=options.calibrate_sizes, progress=options.progress, group=check_group(options),
                          fixed=fixed, fixed_reason=why)


def judge_read(dataset: str) -> tuple[tuple[str, ...], str]:
    """The gates a calibration on ``dataset``'s train split must leave alone, and why: the tuned answer judge's
    (:data:`~groundqa.programs.gates.JUDGE_GATES`) where the judge was trained on those questions
    (:data:`~groundqa.judges.answer_judge.TRAINED_ON`). Fitted there, they trust a judge sharper than the one a
    new corpus meets: on SQuAD's training articles a calibration that moved them gained +0.066 on other questions
    of those articles and +0.005 on the held-out ones (docs/BENCHMARKS.md, session 35)."""
    read = TRAINED_ON.get(parse_dataset_spec(dataset).kind)
    if read is None:
        return (), ""
    return JUDGE_GATES, f"the answer judge was trained on {read}, so its gates cannot be fitted on them"


def _select(options: CompileOptions, metric: Any, teacher: Any, settings: Settings) -> Any:
    return SelectAnswers(metric=metric, seed=options.seed, progress=options.progress,
                         group=check_group(options))


def check_group(options: CompileOptions) -> Any:
    """What keeps train questions on one side of the fit/check split: SQuAD's article (its dev split is
    the held-out articles, so the check should ask about articles the fit never saw), else the gold
    documents (:func:`~groundqa.optimizers.calibrate.gold_documents`)."""
    if parse_dataset_spec(options.dataset).kind == "squad":
        from groundqa.datasets.squad import article_of

        return article_of
    return gold_documents


def _finetune(options: CompileOptions, metric: Any, teacher: Any, settings: Settings) -> Any:
    if not settings.lm.startswith(factory.EMBEDDED):
        raise FinetuneError(f"the finetune optimizer trains the embedded LM; --lm {settings.lm} is not embedded")
    return FinetuneEmbedded(Path(settings.cache_dir) / "models", data=options.finetune_data,
                            epochs=options.finetune_epochs, max_steps=options.finetune_steps, lr=options.finetune_lr,
                            rank=options.finetune_rank, refusal_share=options.finetune_refusal_share,
                            seed=options.seed, progress=options.progress)


def _simba(options: CompileOptions, metric: Any, teacher: Any, settings: Settings) -> Any:
    return dspy.SIMBA(metric=metric, bsize=min(8, max(2, options.budget * 2)), num_candidates=4,
                      max_steps=options.budget, max_demos=options.budget, prompt_model=teacher,
                      num_threads=options.threads)


OPTIMIZER_SPECS: dict[str, OptimizerSpec] = {
    "labeled": OptimizerSpec(_labeled, compile_with=("trainset",), few_shot=True),
    "bootstrap": OptimizerSpec(_bootstrap, compile_with=("trainset",), few_shot=True),
    "bootstrap-rs": OptimizerSpec(_bootstrap_rs, few_shot=True),
    "mipro": OptimizerSpec(_mipro),
    "gepa": OptimizerSpec(_gepa),
    "simba": OptimizerSpec(_simba, compile_with=("trainset", "seed")),
    # the gates: searched on train, the winner checked on a held-back part of train (its own split)
    "calibrate": OptimizerSpec(_calibrate, compile_with=("trainset",)),
    # the answer-or-abstain model over every stage's signals: fitted on train, checked by grouped cross-validation
    "select": OptimizerSpec(_select, compile_with=("trainset",)),
    # the weights: a LoRA for the embedded LM on the program's own cited-answer prompts (gold-label targets)
    "finetune": OptimizerSpec(_finetune, compile_with=("trainset",)),
}
"""Every optimizer ``--optimizer`` accepts; ``a+b`` chains them (demos or prompts first, then the gates)."""

OPTIMIZERS = tuple(OPTIMIZER_SPECS)


def optimizer_spec(name: str) -> OptimizerSpec:
    """The table entry of ``name``; ValueError naming the choices for an unknown one."""
    try:
        return OPTIMIZER_SPECS[name]
    except KeyError:
        raise ValueError(f"unknown optimizer {name!r}; choose one of {', '.join(OPTIMIZERS)}, "
                         "or chain them with '+' (e.g. bootstrap+calibrate)") from None


def optimizer_steps(chain: str) -> list[str]:
    """The optimizers of ``chain`` in order ('bootstrap+calibrate' -> ['bootstrap', 'calibrate'])."""
    steps = [step.strip() for step in chain.split("+")]
    for step in steps:
        optimizer_spec(step)
    return steps


def make_optimizer(options: CompileOptions, metric: Any, settings: Settings) -> Any:
    """The DSPy optimizer named by ``options.optimizer``, configured for the grounding metric."""
    spec = optimizer_spec(options.optimizer)
    teacher = build_teacher_lm(settings, options.teacher_lm) if options.teacher_lm else None
    return spec.build(options, metric, teacher, settings)


def optimizer_trainset(options: CompileOptions, train: list[dspy.Example]) -> list[dspy.Example]:
    """Few-shot optimizers bootstrap demos from answerable questions only: a should-abstain question is
    answered by abstaining before the LM is called, so its (empty) trace would use up the demo budget."""
    if optimizer_spec(options.optimizer).few_shot:
        answerable = [e for e in train if not e.should_abstain]
        return answerable or train
    return train


def run_optimizer(optimizer: Any, options: CompileOptions, program: dspy.Module, train: list[dspy.Example],
                  valset: list[dspy.Example]) -> dspy.Module:
    """``optimizer.compile(program, ...)`` with the arguments its table entry names. ``valset`` is a
    held-back part of train: no optimizer ever selects on the dev split it is evaluated on."""
    available = {"trainset": train, "valset": valset, "seed": options.seed}
    kwargs = {name: available[name] for name in optimizer_spec(options.optimizer).compile_with}
    return optimizer.compile(program, **kwargs)


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


def compile_program(settings: Settings, options: CompileOptions, out: Callable[[str], Any] = print,
                    ingest_progress: Progress | None = None) -> CompileOutcome:
    """Run the whole compile; ``out`` receives progress lines, ``ingest_progress`` the embedding progress."""
    started = time.perf_counter()
    steps = optimizer_steps(options.optimizer)  # an unknown optimizer fails before anything is loaded
    data = load_experiment_data(options.dataset, options.corpus, options.seed, options.sample,
                                options.max_train, options.max_dev)
    check_trainable(data)
    settings = settings.model_copy(update={"collection": data.collection})
    configure_lm(settings)
    report = ingest_documents(settings, data.corpus, progress=ingest_progress)
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

    # a tracking server lost mid-compile stops the tracking, never the compile (one line via ``out``)
    with compile_run(tracking, data, options.optimizer, params, results=options.artifacts, say=out) as run:
        out(f"evaluating the baseline on {len(dev_questions)} dev questions ...")
        base_report = _evaluate_logged(baseline, dev_questions, options, "baseline", run)
        fit, held_back = stratified_split(train, options.check_share, options.seed, check_group(options))
        t0 = time.perf_counter()
        compiled = build_program(settings, **config)
        start_gates = compiled.gates.model_copy()
        curve: list[float] = []
        for step in steps:
            step_options = options.model_copy(update={"optimizer": step})
            out(f"compiling with {step} on {len(train)} train questions ...")
            optimizer = make_optimizer(step_options, metric, settings)
            if isinstance(optimizer, CalibrateGates | SelectAnswers | FinetuneEmbedded):  # ours: they report via out
                optimizer.say = out
            if isinstance(optimizer, CalibrateGates) and run is not None:
                optimizer.on_trial = log_calibration_trial
            if isinstance(optimizer, FinetuneEmbedded) and run is not None:
                optimizer.on_step = log_finetune_step
            uses_valset = "valset" in optimizer_spec(step).compile_with
            compiled = run_optimizer(optimizer, step_options, compiled,
                                     optimizer_trainset(step_options, fit if uses_valset else train), held_back)
            curve.extend(optimisation_curve(compiled))
            adapter = getattr(compiled, "adapter", None)
            if adapter is not None and settings.adapter != adapter.path:  # later steps and the evaluation run it
                settings = settings.model_copy(update={"adapter": adapter.path})
                configure_lm(settings)
                # the tuned LM is asked where no sentence answers, as build_program does for a program with an adapter
                compiled.config = compiled.config.model_copy(update={"generate_unanswered": True})
        compile_s = time.perf_counter() - t0
        calibration = getattr(compiled, "calibration", None)
        selection = getattr(compiled, "selection", None)
        out(f"compiled in {compile_s:.0f}s; demos per predictor: {demo_counts(compiled)}"
            + (f"; gates: {calibration.kept} ({_changed_gates(compiled, start_gates)})" if calibration is not None
               else "") + (f"; selector: {selection.kept}" if selection is not None else ""))
        out("evaluating the compiled program ...")
        comp_report = _evaluate_logged(compiled, dev_questions, options, "compiled", run)

        directory = Path(options.artifacts) / f"{data.name}-{options.optimizer}-{time.strftime('%Y%m%d-%H%M%S')}"
        b, c = _headline(base_report), _headline(comp_report)
        meta = {"lm": settings.lm, "optimizer": options.optimizer, "dataset": data.name,
                "dataset_digest": data.digest, "metric": params["metric"], "git_commit": params["git_commit"],
                "scores": {"baseline": b, "compiled": c}, "options": options.model_dump(mode="json"),
                "demos": demo_counts(compiled), "compile_seconds": round(compile_s, 1),
                "gates": compiled.gates.model_dump() if hasattr(compiled, "gates") else None,
                "calibration": calibration.model_dump(exclude={"trials"}) if calibration is not None else None,
                "selection": selection.model_dump() if selection is not None else None,
                "finetune": (compiled.finetune.model_dump(exclude={"losses", "manifest"})
                             if getattr(compiled, "finetune", None) is not None else None)}
        program_path = save_program(compiled, directory, meta)
        base_report.to_json(directory / "baseline_report.json")
        comp_report.to_json(directory / "compiled_report.json")
        if calibration is not None:
            (directory / "calibration.json").write_text(calibration.model_dump_json(indent=2), encoding="utf-8")
            plot_calibration(calibration, directory / "calibration.png")
        if selection is not None:
            (directory / "selection.json").write_text(selection.model_dump_json(indent=2), encoding="utf-8")
        finetune = getattr(compiled, "finetune", None)
        if finetune is not None:
            (directory / "finetune.json").write_text(finetune.model_dump_json(indent=2), encoding="utf-8")
            plot_losses(finetune.losses, directory / "finetune_loss.png")
        if run is not None:
            log_compile(compiled, directory, b, c, curve, compile_s, options.register_as, settings=settings)
    outcome = CompileOutcome(program_path=program_path, baseline=b, compiled=c,
                             gates=_changed_gates(compiled, start_gates),
                             run_id=run.info.run_id if run is not None and tracking.enabled else None,
                             tracking=tracking.uri if tracking.enabled else tracking.reason,
                             seconds=time.perf_counter() - started, demos=demo_counts(compiled))
    return outcome


def _changed_gates(program: dspy.Module, start: Any) -> str:
    """The gates the compile moved, as "name old -> new" (``unchanged`` when it moved none)."""
    gates = getattr(program, "gates", None)
    if gates is None:
        return ""
    changed = gates.changed(start)
    return ", ".join(f"{k} {a} -> {b}" for k, (a, b) in changed.items()) or "unchanged"


def _headline(report: EvaluationReport) -> dict[str, float | None]:
    return dict(report.metrics.overall.metrics)


def _evaluate_logged(program: Any, questions: list[Any], options: CompileOptions, label: str,
                     run: Any) -> EvaluationReport:
    with program_evaluation(run, label, questions) as logged:  # nested run + a trace per question
        report = evaluate(logged.wrap(program), questions, threads=options.threads, progress=options.progress)
        logged.log(report)
    return report
