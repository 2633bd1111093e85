"""The ``groundqa`` command line: ingest, ask, evaluate, optimize, compare, demo."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from groundqa.config import ConfigError, Settings, load_settings
from groundqa.lm.errors import LMBackendError

EXIT_USAGE = 2


class CLIError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


def _common(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("configuration (flag > GROUNDQA_* env > config file > default)")
    group.add_argument("--home", type=Path, help="project home (default ./.groundqa, env GROUNDQA_HOME)")
    group.add_argument("--config", type=Path, help="TOML config file (default <home>/config.toml)")
    group.add_argument("--lm", help="'embedded' (default) or a LiteLLM model string, e.g. openai/gpt-4o-mini")
    group.add_argument("--api-base", help="base URL of an OpenAI-compatible server")
    group.add_argument("--collection", help="Chroma collection name (default groundqa)")
    group.add_argument("--chroma-url", help="use a Chroma server at this URL instead of the persistent store")
    group.add_argument("--no-cache", action="store_true", help="bypass the LM and retrieval caches")


def settings_from(args: argparse.Namespace) -> Settings:
    return load_settings(
        config_file=getattr(args, "config", None), home=getattr(args, "home", None), lm=getattr(args, "lm", None),
        api_base=getattr(args, "api_base", None), collection=getattr(args, "collection", None),
        chroma_url=getattr(args, "chroma_url", None), cache=False if getattr(args, "no_cache", False) else None,
    )


def _err(message: str) -> None:
    print(f"groundqa: error: {message}", file=sys.stderr)


# -- ingest ----------------------------------------------------------------------------------
def ingest_path(settings: Settings, path: Path, chunk_size: int | None = None, chunk_overlap: int | None = None,
                quiet: bool = False) -> Any:
    """Load and upsert a corpus; report problems per file/line; return the IngestReport."""
    from groundqa.datasets.loaders import load_corpus

    loaded = load_corpus(path)
    for error in loaded.errors:
        print(f"groundqa: skipped {error}", file=sys.stderr)
    if not loaded.items:
        raise CLIError(f"nothing to ingest from {path}")
    report = ingest_documents(settings, loaded.items, chunk_size, chunk_overlap, quiet)
    report.errors = loaded.errors
    return report


def ingest_documents(settings: Settings, documents: list[Any], chunk_size: int | None = None,
                     chunk_overlap: int | None = None, quiet: bool = False) -> Any:
    """Upsert documents into the configured collection (idempotent); return the IngestReport."""
    from groundqa.app import open_store

    store = open_store(settings)
    return store.ingest(documents, chunk_size or settings.chunk_size, chunk_overlap or settings.chunk_overlap,
                        progress=_progress("embedding chunks", quiet))


def _progress(label: str, quiet: bool) -> Any:
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    holder: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        bar = holder.get("bar") or holder.setdefault("bar", tqdm(total=total, desc=label, unit="chunk"))
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update


def cmd_ingest(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    report = ingest_path(settings, args.path, args.chunk_size, args.chunk_overlap, quiet=args.json)
    summary = {
        "documents": report.documents, "chunks_added": report.chunks_added, "chunks_removed": report.chunks_removed,
        "chunks_unchanged": report.chunks_unchanged, "chunks_total": report.chunks_total,
        "index_version": report.index_version, "seconds": round(report.seconds, 3),
        "errors": [str(e) for e in report.errors],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"ingested {report.documents} document(s): +{report.chunks_added} chunk(s), -{report.chunks_removed}, "
              f"{report.chunks_unchanged} unchanged; {report.chunks_total} in collection '{settings.collection}' "
              f"({report.seconds:.1f}s)")
        if report.errors:
            print(f"{len(report.errors)} problem(s) reported above; the other documents were ingested")
    return 1 if report.errors else 0


# -- ask -------------------------------------------------------------------------------------
def ensure_corpus(settings: Settings) -> None:
    """An empty default collection gets the bundled demo corpus, so `ask` works after set-up."""
    from groundqa.app import open_store
    from groundqa.datasets import DATA_DIR

    if open_store(settings).count() == 0:
        print("groundqa: the collection is empty; ingesting the bundled demo corpus "
              "(use `groundqa ingest PATH` for your own)", file=sys.stderr)
        ingest_path(settings, DATA_DIR / "demo" / "corpus.jsonl", quiet=True)


def print_result(result: Any) -> None:
    if result.abstained:
        reason = result.abstain_reason.value if result.abstain_reason else "abstained"
        print(f"[abstained: {reason}] {result.abstain_message}")
    else:
        print(result.answer)
        label = " (extractive)" if result.mode == "extractive" else ""
        print(f"\nSources{label}:")
        for c in result.citations:
            print(f"  [{c.index}] {c.title or c.doc_id} ({c.doc_id}, score {c.score:.2f})")
    if result.exit_reason.value != "COMPLETED":
        print(f"exit: {result.exit_reason.value}")
    u = result.usage
    print(f"-- confidence {result.confidence:.2f} | {u.lm_calls} LM call(s), {u.prompt_tokens}+{u.completion_tokens} "
          f"tokens, {u.retrieval_calls} retrieval(s), {u.latency_ms / 1000:.1f}s", file=sys.stderr)


def cmd_ask(args: argparse.Namespace) -> int:
    from groundqa.programs.grounded_qa import check_question

    problem = check_question(args.question, 100_000)
    if problem is not None and problem[0].value == "EMPTY_INPUT":
        _err(f"{problem[1]}: ask a question, e.g. groundqa ask \"Who designed the harbor lights?\"")
        return EXIT_USAGE
    settings = settings_from(args)
    from groundqa.app import build_program, configure_lm
    from groundqa.runtime.trace import Trace

    replay = Trace.load(args.replay) if args.replay else None
    configure_lm(settings, replay=replay)
    if replay is None:
        ensure_corpus(settings)
    overrides: dict[str, Any] = {}
    if args.no_premises:
        overrides["verify_premises"] = False
    program = build_program(settings, program_path=args.program, **overrides)
    trace = Trace(question=args.question)
    kwargs = {"format": args.format, "use_cache": settings.cache and replay is None, "trace": trace}
    if args.stream:
        from groundqa.runtime.streaming import stream

        result = None
        for event in stream(program, args.question, **kwargs):
            if args.json:
                print(event.model_dump_json(), flush=True)
            elif event.type == "token":
                print(event.model_extra.get("text", ""), end="", flush=True, file=sys.stderr)
            elif event.type != "final":
                print(f"· {_describe(event)}", file=sys.stderr, flush=True)
            result = event.result or result
        if not args.json and result is not None:
            print(file=sys.stderr)
            print_result(result)
    else:
        result = program.run(args.question, **kwargs)
        print(result.model_dump_json(indent=2)) if args.json else print_result(result)
    if args.save_trace:
        trace.save(args.save_trace)
        print(f"groundqa: trace written to {args.save_trace}", file=sys.stderr)
    return 0


def _describe(event: Any) -> str:
    data = event.model_extra or {}
    if event.type == "retrieval_start":
        return f"retrieving {data.get('query', '')!r} ({data.get('stage', '')})"
    if event.type == "retrieval_end":
        hit = " (cache)" if data.get("cache_hit") else ""
        return f"retrieved {len(data.get('ids', []))} passage(s){hit}"
    if event.type == "premise":
        return f"premise {data.get('claim', '')!r}: {data.get('status', '')}"
    if event.type == "attempt":
        return f"synthesis attempt {data.get('attempt')}: {data.get('outcome')}"
    return event.type


# -- parser ----------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="groundqa", description="Grounded, cited question answering with DSPy.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="add a folder of .md/.txt files or a corpus JSONL to the store")
    p.add_argument("path", type=Path)
    p.add_argument("--chunk-size", type=int, help="characters per chunk (default 600)")
    p.add_argument("--chunk-overlap", type=int, help="characters shared by consecutive chunks (default 120)")
    p.add_argument("--json", action="store_true", help="print the ingestion report as JSON")
    _common(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("ask", help="answer a question from the corpus, with citations")
    p.add_argument("question")
    p.add_argument("--json", action="store_true", help="print the result object as JSON")
    p.add_argument("--stream", action="store_true", help="show events live (with --json: one JSON object a line)")
    p.add_argument("--format", choices=["auto", "prose", "bullets", "table", "steps"], default=None)
    p.add_argument("--no-premises", action="store_true", help="skip premise verification")
    p.add_argument("--program", type=Path, help="a compiled program (program.json or its folder)")
    p.add_argument("--save-trace", type=Path, help="write the run's trace (.json or .yaml)")
    p.add_argument("--replay", type=Path, help="serve LM answers from a recorded trace (offline, deterministic)")
    _common(p)
    p.set_defaults(func=cmd_ask)

    from groundqa import compare_cli, compile_cli, evaluation_cli

    for module in (evaluation_cli, compile_cli, compare_cli):
        module.register(sub, _common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (CLIError, ConfigError, LMBackendError) as exc:
        _err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except Exception as exc:  # known user-facing failures from lower layers
        from groundqa.programs.persistence import ProgramFileError
        from groundqa.store.chroma_store import StoreError

        if isinstance(exc, (ProgramFileError, StoreError, ValueError, FileNotFoundError)):
            _err(str(exc))
            return EXIT_USAGE
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
