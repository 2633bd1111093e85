"""``groundqa evaluate``: run a program over a question set and report every grounding metric."""

from __future__ import annotations

import argparse
import shutil
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundqa.app import build_program, configure_lm
from groundqa.cli.common import (
    CLIError,
    add_gate_argument,
    gate_overrides,
    print_skipped,
    program_source,
    progress_bar,
    settings_from,
    terminal,
)
from groundqa.datasets.bundled import load_bundled
from groundqa.datasets.loaders import Document, Question, load_corpus, load_questions_jsonl
from groundqa.datasets.squad import load_squad2
from groundqa.evaluation import EvaluationReport, evaluate
from groundqa.exit_codes import evaluation_exit_code, run_failed
from groundqa.experiment_data import (
    DatasetSpec,
    ExperimentData,
    parse_dataset_spec,
    require_squad_file,
    stratified_sample,
)
from groundqa.ingest import ingest_documents
from groundqa.runtime.redact import redact_url
from groundqa.tracking.evaluation_run import evaluation_run
from groundqa.tracking.setup import configure_tracking


def register(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("evaluate", help="evaluate a program on a question set (every metric, per type)")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--dataset", default=None, help="'bundled' (default) or 'squad'")
    source.add_argument("--questions", type=Path, help="questions JSONL (needs --corpus)")
    source.add_argument("--squad", type=Path, help="a SQuAD 2.0 JSON file")
    p.add_argument("--articles", choices=["heldout", "train", "all"], default="heldout",
                   help="SQuAD articles to sample: the 10 held out from every compile (default), the 6 that "
                        "compiles may read, or all 16")
    p.add_argument("--corpus", type=Path, help="corpus JSONL or folder of .md/.txt files (with --questions)")
    p.add_argument("--split", default="dev", choices=["train", "dev", "test", "all"], help="bundled split")
    p.add_argument("--sample", type=int, default=200, help="SQuAD questions to sample (balanced, seeded)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-questions", type=int, help="evaluate at most this many (stratified by type)")
    p.add_argument("--program", default="baseline", help="'baseline' or a compiled program: program.json, its folder, "
                                                         "or a logged model (models:/NAME/VERSION, runs:/RUN_ID/program)")
    p.add_argument("--engine", choices=["dspy", "mlflow"], default="dspy",
                   help="dspy.Evaluate (default) or mlflow.genai.evaluate with the grounding scorers "
                        "(per-question assessments on MLflow's Evaluation runs page)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--no-premises", action="store_true", help="turn premise verification off")
    add_gate_argument(p)
    p.add_argument("--json", type=Path, help="write the JSON report here")
    p.add_argument("--no-mlflow", action="store_true", help="do not log to MLflow")
    p.add_argument("--run-name", help="MLflow run name")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    common(p)
    p.set_defaults(func=cmd_evaluate)


def dataset_spec(args: argparse.Namespace) -> DatasetSpec:
    """``--questions`` / ``--squad`` / ``--dataset`` (default bundled) as a DatasetSpec."""
    if args.questions:
        return DatasetSpec("jsonl", args.questions)
    if args.squad:
        return DatasetSpec("squad", args.squad)
    return parse_dataset_spec(args.dataset or "bundled")


def load_questions(args: argparse.Namespace) -> tuple[str, list[Document], list[Question]]:
    """(dataset name, corpus documents, questions) for the chosen source; skipped items are reported."""
    spec = dataset_spec(args)
    if spec.kind == "jsonl":
        if not args.corpus:
            raise CLIError("--questions needs --corpus")
        loaded = load_questions_jsonl(spec.path)
        print_skipped(loaded.errors)
        corpus = load_corpus(args.corpus)
        print_skipped(corpus.errors)
        if not loaded.items or not corpus.items:
            raise CLIError("no questions or no documents to evaluate")
        return spec.name, corpus.items, loaded.items
    if spec.kind == "squad":
        docs, questions, errors = load_squad2(require_squad_file(spec), sample=args.sample, seed=args.seed,
                                              articles=args.articles)
        print_skipped(errors[:20])
        return spec.name, docs, questions
    docs, questions = load_bundled(None if args.split == "all" else args.split)
    return spec.name, docs, questions


def cmd_evaluate(args: argparse.Namespace) -> int:
    from rich.console import Console

    gates = gate_overrides(args.gate)  # a bad --gate is one line before anything is loaded
    name, docs, questions = load_questions(args)
    questions = stratified_sample(questions, args.max_questions, args.seed)
    settings = settings_from(args)
    data = ExperimentData(name, docs, [], questions)
    if not args.collection:
        settings = settings.model_copy(update={"collection": data.collection})
    tracking = configure_tracking(settings, not args.no_mlflow)
    if args.engine == "mlflow" and not tracking.enabled:
        raise CLIError(f"--engine mlflow needs an MLflow store ({tracking.reason})")
    settings, program_path = program_source(settings, args.program, keep_collection=True)  # adapter; logged models
    configure_lm(settings)
    report = ingest_documents(settings, docs, progress=progress_bar("embedding chunks", args.quiet))
    console = Console(stderr=True)
    console.print(f"{name}: {len(docs)} documents ({report.chunks_total} chunks in '{settings.collection}'), "
                  f"{len(questions)} questions; program {args.program}; LM {settings.lm}")
    overrides = {"verify_premises": False} if args.no_premises else {}
    program = build_program(settings, program_path=program_path, gates=gates, **overrides)
    label = "baseline" if args.program == "baseline" else "compiled"
    params = {"lm": settings.lm, "program": str(args.program), "dataset": name, "verify_premises": not args.no_premises,
              "split": args.split, "engine": args.engine, **{f"gate.{k}": v for k, v in gates.items()}}
    with evaluation_run(tracking, name, args.run_name or f"evaluate-{label}", params, questions, label,
                        args.split) as logged:  # the run spans the evaluation; a trace per question
        result = evaluate(logged.wrap(program), questions, threads=args.threads, progress=not args.quiet,
                          engine=args.engine)
        run_id = logged.log(result)
    Console(width=max(160, shutil.get_terminal_size().columns)).print(result.table())
    print(f"{result.n} questions in {result.timing.total_s:.0f}s "
          f"(mean {result.timing.mean_latency_s or 0:.2f}s per question)")
    if args.json:
        result.to_json(args.json)
        print(f"report written to {args.json}")
    if run_id is not None:
        print(f"logged to MLflow run {run_id} ({redact_url(tracking.uri)}); browse it with `groundqa ui`")
    elif not args.no_mlflow:
        print(f"MLflow: {terminal(tracking.reason)}; the report is not logged", file=sys.stderr)
    return _report_failures(result)


def _report_failures(report: EvaluationReport) -> int:
    """Count the questions whose run failed on the LM or the store (by exit reason, on stderr); the exit
    code: 0 when the evaluation completed, 3 when every question failed (:mod:`groundqa.exit_codes`)."""
    reasons = [r.exit_reason if r.error is None or r.exit_reason else None for r in report.records]
    failed = Counter(r or "ERROR" for r in reasons if run_failed(r))
    if failed:
        detail = ", ".join(f"{reason}: {count}" for reason, count in failed.most_common())
        print(f"groundqa: {sum(failed.values())} of {report.n} question run(s) failed ({detail}); "
              "their records say why (exit_reason, error)", file=sys.stderr)
    return evaluation_exit_code(reasons)
