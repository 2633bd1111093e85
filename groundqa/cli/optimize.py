"""``groundqa optimize`` (also ``python optimize.py``) and ``groundqa demo`` (the main job)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundqa.cli.common import CLIError, progress_bar, settings_from
from groundqa.compile import OPTIMIZERS, CompileOptions, CompileOutcome, compile_program, optimizer_steps
from groundqa.tracking.chart import plot_comparison
from groundqa.tracking.comparison import build_comparison
from groundqa.tracking.runs import find_experiments, open_client, select_runs


def _compile_args(p: argparse.ArgumentParser, defaults: dict[str, Any]) -> None:
    p.add_argument("--optimizer", default=defaults.get("optimizer", "bootstrap"),
                   help=f"one of: {', '.join(OPTIMIZERS)}; chain them with '+' (e.g. bootstrap+calibrate: demos, "
                        "then the grounding gates)")
    p.add_argument("--trials", type=int, default=defaults.get("trials", 60),
                   help="calibration trials (calibrate); each re-scores train with cached LM answers")
    p.add_argument("--calibrate-sizes", action="store_true",
                   help="calibrate k, max_passages, lexical_weight, lexical_pool and extractive_first too (each new combination "
                        "pays an LM pass)")
    p.add_argument("--finetune-data", type=Path, default=defaults.get("finetune_data"),
                   help="finetune: extra training data (chat JSONL from python -m groundqa.optimizers.finetune_data)")
    p.add_argument("--finetune-epochs", type=int, default=defaults.get("finetune_epochs", 1),
                   help="finetune: passes over the training examples")
    p.add_argument("--finetune-steps", type=int, default=defaults.get("finetune_steps"),
                   help="finetune: optimizer steps instead of epochs")
    fields = CompileOptions.model_fields  # one home for the defaults
    p.add_argument("--finetune-lr", type=float, default=fields["finetune_lr"].default,
                   help="finetune: the LoRA's learning rate")
    p.add_argument("--finetune-rank", type=int, default=fields["finetune_rank"].default, help="finetune: the LoRA's rank")
    p.add_argument("--finetune-refusal-share", type=float, default=fields["finetune_refusal_share"].default,
                   help="finetune: at most this share of the examples are NOT IN SOURCES refusals")
    p.add_argument("--dataset", default="bundled", help="'bundled', 'squad[:PATH]' or a questions JSONL (with --corpus)")
    p.add_argument("--corpus", help="corpus JSONL or folder (for a questions JSONL dataset)")
    p.add_argument("--teacher-lm", default=defaults.get("teacher_lm"),
                   help="LM that bootstraps demos / proposes instructions (default: --lm); 'extractive' is a "
                        "deterministic offline teacher that answers with the best passage sentence, cited")
    p.add_argument("--reflection-lm", help="GEPA's reflection LM (default: teacher or --lm)")
    p.add_argument("--budget", type=int, default=defaults.get("budget", 4), help="max demos (few-shot) / steps (SIMBA)")
    p.add_argument("--auto", choices=["light", "medium", "heavy"], help="MIPROv2/GEPA budget preset")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--max-train", type=int, default=defaults.get("max_train"), help="cap the train split (stratified)")
    p.add_argument("--max-dev", type=int, default=defaults.get("max_dev"), help="cap the dev split (stratified)")
    p.add_argument("--sample", type=int, default=200, help="SQuAD questions to sample")
    p.add_argument("--no-premises", action="store_true", help="compile with premise verification off")
    p.add_argument("--artifacts", type=Path, default=Path("artifacts"), help="where compiled programs are saved")
    p.add_argument("--no-mlflow", action="store_true", help="do not log to MLflow")
    p.add_argument("--register-as", help="also register the compiled program under this MLflow model name")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def register(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("optimize", help="compile GroundedQA with a DSPy optimizer (same as python optimize.py)")
    _compile_args(p, {})
    common(p)
    p.set_defaults(func=cmd_optimize)

    p = sub.add_parser("demo", help="the main job: evaluate, compile and compare on the bundled dataset")
    _compile_args(p, {"optimizer": "bootstrap+calibrate", "budget": 3, "max_train": 48, "max_dev": 40, "trials": 40})
    p.add_argument("--chart", default="artifacts/demo-comparison.png", help="where to write the comparison chart")
    p.add_argument("--no-chart", action="store_true")
    common(p)
    p.set_defaults(func=cmd_demo)


def options_from(args: argparse.Namespace) -> CompileOptions:
    try:
        optimizer_steps(args.optimizer)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    return CompileOptions(
        optimizer=args.optimizer, dataset=args.dataset, corpus=args.corpus, teacher_lm=args.teacher_lm,
        reflection_lm=args.reflection_lm, budget=args.budget, auto=args.auto, seed=args.seed, threads=args.threads,
        max_train=args.max_train, max_dev=args.max_dev, sample=args.sample, verify_premises=not args.no_premises,
        artifacts=args.artifacts, mlflow=not args.no_mlflow, register_as=args.register_as, progress=not args.quiet,
        trials=args.trials, calibrate_sizes=args.calibrate_sizes, finetune_data=args.finetune_data,
        finetune_epochs=args.finetune_epochs, finetune_steps=args.finetune_steps, finetune_lr=args.finetune_lr,
        finetune_rank=args.finetune_rank, finetune_refusal_share=args.finetune_refusal_share,
    )


def print_outcome(outcome: CompileOutcome) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="dev split: baseline vs compiled")
    table.add_column("metric")
    table.add_column("baseline", justify="right")
    table.add_column("compiled", justify="right")
    table.add_column("change", justify="right")
    for name in outcome.compiled:
        b, c = outcome.baseline.get(name), outcome.compiled.get(name)
        if not isinstance(c, (int, float)):
            continue
        delta = f"{c - b:+.3f}" if isinstance(b, (int, float)) else ""
        table.add_row(name, f"{b:.3f}" if isinstance(b, (int, float)) else "-", f"{c:.3f}", delta)
    Console().print(table)
    print(f"compiled program: {outcome.program_path}  (demos: {outcome.demos}; gates: {outcome.gates or 'unchanged'})")
    where = f"MLflow run {outcome.run_id} at {outcome.tracking}" if outcome.run_id else outcome.tracking
    print(f"results: {where}; took {outcome.seconds / 60:.1f} min")


def _compile(args: argparse.Namespace, settings: Any) -> CompileOutcome:
    return compile_program(settings, options_from(args), out=lambda s: print(s, file=sys.stderr),
                           ingest_progress=progress_bar("embedding chunks", args.quiet))


def cmd_optimize(args: argparse.Namespace) -> int:
    print_outcome(_compile(args, settings_from(args)))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job: bundled corpus -> baseline eval -> compile -> compiled eval -> MLflow -> comparison."""
    settings = settings_from(args)
    print(f"groundqa demo: LM {settings.lm}, home {settings.home}", file=sys.stderr)
    outcome = _compile(args, settings)
    print_outcome(outcome)
    if outcome.run_id and not args.no_chart:
        from rich.console import Console

        client = open_client(settings)
        runs = select_runs(client, find_experiments(client), [outcome.run_id])
        comparison = build_comparison(runs, tracking_uri=settings.tracking_uri)
        png = plot_comparison(comparison, Path(args.chart), title="groundqa demo: baseline vs compiled (dev)")
        Console().print(f"chart: {png}  (compare runs later with `groundqa compare`)")
    print(f"\nnext: groundqa ask \"Who designed the harbor lights of Port Vessany?\" --program {outcome.program_path}")
    return 0
