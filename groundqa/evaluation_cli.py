"""``groundqa evaluate``: run a program over a question set and report every grounding metric."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any


def register(sub: Any, common: Any) -> None:
    p = sub.add_parser("evaluate", help="evaluate a program on a question set (every metric, per type)")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--dataset", default=None, help="'bundled' (default) or 'squad'")
    source.add_argument("--questions", type=Path, help="questions JSONL (needs --corpus)")
    source.add_argument("--squad", type=Path, help="a SQuAD 2.0 JSON file")
    p.add_argument("--corpus", type=Path, help="corpus JSONL or folder of .md/.txt files (with --questions)")
    p.add_argument("--split", default="dev", choices=["train", "dev", "test", "all"], help="bundled split")
    p.add_argument("--sample", type=int, default=200, help="SQuAD questions to sample (balanced, seeded)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-questions", type=int, help="evaluate at most this many (stratified by type)")
    p.add_argument("--program", default="baseline", help="'baseline' or a compiled program (program.json or folder)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--no-premises", action="store_true", help="turn premise verification off")
    p.add_argument("--json", type=Path, help="write the JSON report here")
    p.add_argument("--no-mlflow", action="store_true", help="do not log to MLflow")
    p.add_argument("--run-name", help="MLflow run name")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    common(p)
    p.set_defaults(func=cmd_evaluate)


def load_questions(args: argparse.Namespace) -> tuple[str, list[Any], list[Any]]:
    """(dataset name, corpus documents, questions) for the chosen source."""
    from groundqa.cli import CLIError
    from groundqa.datasets.loaders import load_corpus, load_questions_jsonl

    if args.questions:
        if not args.corpus:
            raise CLIError("--questions needs --corpus")
        loaded = load_questions_jsonl(args.questions)
        for error in loaded.errors:
            print(f"groundqa: skipped {error}", file=sys.stderr)
        corpus = load_corpus(args.corpus)
        for error in corpus.errors:
            print(f"groundqa: skipped {error}", file=sys.stderr)
        if not loaded.items or not corpus.items:
            raise CLIError("no questions or no documents to evaluate")
        return args.questions.stem, corpus.items, loaded.items
    if args.squad or args.dataset == "squad":
        from groundqa.datasets.squad import default_squad2_path, load_squad2

        path = args.squad or default_squad2_path()
        if not Path(path).exists():
            raise CLIError(f"SQuAD 2.0 file not found: {path}")
        docs, questions, errors = load_squad2(path, sample=args.sample, seed=args.seed)
        for error in errors[:20]:
            print(f"groundqa: skipped {error}", file=sys.stderr)
        return "squad2", docs, questions
    from groundqa.datasets.bundled import load_bundled

    docs, questions = load_bundled(None if args.split == "all" else args.split)
    return "bundled", docs, questions


def cmd_evaluate(args: argparse.Namespace) -> int:
    from rich.console import Console

    from groundqa.app import build_program, configure_lm
    from groundqa.cli import ingest_documents, settings_from
    from groundqa.evaluation import evaluate
    from groundqa.experiment_data import ExperimentData, stratified_sample
    from groundqa.tracking.setup import configure_tracking, experiment_name

    name, docs, questions = load_questions(args)
    questions = stratified_sample(questions, args.max_questions, args.seed)
    settings = settings_from(args)
    data = ExperimentData(name, docs, [], questions)
    if not args.collection:
        settings = settings.model_copy(update={"collection": data.collection})
    configure_lm(settings)
    report = ingest_documents(settings, docs, quiet=args.quiet)
    console = Console(stderr=True)
    console.print(f"{name}: {len(docs)} documents ({report.chunks_total} chunks in '{settings.collection}'), "
                  f"{len(questions)} questions; program {args.program}; LM {settings.lm}")
    overrides = {"verify_premises": False} if args.no_premises else {}
    program_path = None if args.program == "baseline" else args.program
    program = build_program(settings, program_path=program_path, **overrides)
    result = evaluate(program, questions, threads=args.threads, progress=not args.quiet)
    Console(width=max(160, shutil.get_terminal_size().columns)).print(result.table())
    print(f"{result.n} questions in {result.timing.total_s:.0f}s "
          f"(mean {result.timing.mean_latency_s or 0:.2f}s per question)")
    if args.json:
        result.to_json(args.json)
        print(f"report written to {args.json}")
    tracking = configure_tracking(settings, not args.no_mlflow)
    if tracking.enabled:
        import mlflow

        mlflow.set_experiment(experiment_name(name))
        run_id = result.log_to_mlflow(
            run_name=args.run_name or f"evaluate-{args.program if args.program == 'baseline' else 'compiled'}",
            params={"lm": settings.lm, "program": str(args.program), "dataset": name,
                    "verify_premises": not args.no_premises, "split": args.split},
        )
        print(f"logged to MLflow run {run_id} ({tracking.uri})")
    elif not args.no_mlflow:
        print(f"MLflow: {tracking.reason}; the report is not logged", file=sys.stderr)
    return 0
