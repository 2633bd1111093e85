"""``groundqa ask QUESTION``: answer from the corpus with citations (plain, JSON or streamed events).

The exit code says how the run ended (:mod:`groundqa.exit_codes`): 0 answered or abstained, 2 bad input,
3 the LM or the store failed. Everything printed for a person passes :func:`printable` first: answers,
sources and snippets come from the corpus and the LM, and must not drive the terminal."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundqa.app import build_program, configure_lm
from groundqa.cli.common import (
    EXIT_USAGE,
    add_gate_argument,
    gate_overrides,
    print_error,
    program_source,
    settings_from,
    terminal,
)
from groundqa.exit_codes import exit_code_for
from groundqa.ingest import ensure_corpus
from groundqa.programs.grounded_qa import check_question
from groundqa.runtime.safe_text import printable, terminal_json
from groundqa.runtime.streaming import stream
from groundqa.runtime.trace import Trace
from groundqa.signatures.types import GroundedResult
from groundqa.tracking.traces import command_tracer, flush_traces, lookup_for, trace_url_hint


def register(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("ask", help="answer a question from the corpus, with citations")
    p.add_argument("question")
    p.add_argument("--json", action="store_true", help="print the result object as JSON")
    p.add_argument("--stream", action="store_true", help="show events live (with --json: one JSON object a line)")
    p.add_argument("--format", choices=["auto", "prose", "bullets", "table", "steps"], default=None)
    p.add_argument("--no-premises", action="store_true", help="skip premise verification")
    add_gate_argument(p)
    p.add_argument("--program", help="a compiled program: program.json, its folder, or a logged model "
                                     "(models:/NAME/VERSION, runs:/RUN_ID/program)")
    p.add_argument("--save-trace", type=Path, help="write the run's trace (.json or .yaml)")
    p.add_argument("--replay", type=Path, help="serve LM answers from a recorded trace (offline, deterministic)")
    p.add_argument("--no-mlflow", action="store_true", help="do not trace the question to MLflow")
    common(p)
    p.set_defaults(func=cmd_ask)


def _announce_demo_corpus() -> None:
    print("groundqa: the collection is empty; ingesting the bundled demo corpus "
          "(use `groundqa ingest PATH` for your own)", file=sys.stderr)


def print_result(result: GroundedResult) -> None:
    """The result for a person: the answer and its sources (or the abstention), control characters removed."""
    if result.abstained:
        reason = result.abstain_reason.value if result.abstain_reason else "abstained"
        print(f"[abstained: {reason}] {terminal(result.abstain_message)}")
        if result.correction is not None:  # premise_contradicted: where the sources say otherwise
            print(f"  source: {terminal(result.correction.label)} ({terminal(result.correction.doc_id)})")
    else:
        print(printable(result.answer))
        label = " (extractive)" if result.mode == "extractive" else ""
        print(f"\nSources{label}:")
        for c in result.citations:  # "title, p. 12" / "title › section" where the source has pages or sections
            c = c.located(result.passages)
            print(f"  [{c.index}] {terminal(c.label)} ({terminal(c.doc_id)}, score {c.score:.2f})")
    if result.exit_reason.value != "COMPLETED":
        print(f"exit: {result.exit_reason.value}")
    u = result.usage
    print(f"-- confidence {result.confidence:.2f} | {u.lm_calls} LM call(s), {u.prompt_tokens}+{u.completion_tokens} "
          f"tokens, {u.retrieval_calls} retrieval(s), {u.latency_ms / 1000:.1f}s", file=sys.stderr)


def cmd_ask(args: argparse.Namespace) -> int:
    problem = check_question(args.question, 100_000)
    if problem is not None:  # bad input: one line, exit 2, no LM, no store
        reason, message = problem
        if reason.value == "EMPTY_INPUT":
            message += ': ask a question, e.g. groundqa ask "Who designed the harbor lights?"'
        print_error(message)
        return EXIT_USAGE
    gates = gate_overrides(args.gate)
    settings, program_path = program_source(settings_from(args), args.program, keep_collection=bool(args.collection))
    replay = Trace.load(args.replay) if args.replay else None
    configure_lm(settings, replay=replay)
    if replay is None:
        ensure_corpus(settings, before_ingesting=_announce_demo_corpus)
    overrides: dict[str, Any] = {}
    if args.no_premises:
        overrides["verify_premises"] = False
    program = build_program(settings, program_path=program_path, gates=gates, **overrides)
    tracer = command_tracer(settings, "ask", label=str(args.program or "baseline"), enabled=not args.no_mlflow)
    if tracer.reason:
        print(f"groundqa: MLflow: {terminal(tracer.reason)}; the question is not traced", file=sys.stderr)
    with tracer.question(args.question, lookup=lookup_for(program)) as trace:
        result = _answer(args, program, trace, settings.cache and replay is None)
    if args.save_trace:
        trace.save(args.save_trace)
        print(f"groundqa: trace written to {args.save_trace}", file=sys.stderr)
    if tracer.enabled:
        flush_traces()
        print(f"groundqa: {terminal(trace_url_hint())}", file=sys.stderr)
    return _exit_code(result)


def _exit_code(result: GroundedResult | None) -> int:
    """0 answered or abstained, 2 rejected input, 3 the LM or the store failed (:mod:`groundqa.exit_codes`)."""
    if result is None:  # a stream that ended without its final event
        print_error("the run ended without a result")
        return exit_code_for("LM_ERROR")
    code = exit_code_for(result.exit_reason)
    if code:
        print(f"groundqa: the run ended with {result.exit_reason.value}: {terminal(result.abstain_message)}",
              file=sys.stderr)
    return code


def _answer(args: argparse.Namespace, program: Any, trace: Trace, use_cache: bool) -> GroundedResult | None:
    """Answer (plain, JSON or streamed) with ``trace`` recording the run; the result."""
    kwargs = {"format": args.format, "use_cache": use_cache, "trace": trace}
    if args.stream:
        result = None
        for event in stream(program, args.question, **kwargs):
            if args.json:
                print(terminal_json(event.model_dump_json()), flush=True)
            elif event.type == "token":
                print(printable(str(event.model_extra.get("text", ""))), end="", flush=True, file=sys.stderr)
            elif event.type != "final":
                print(f"· {describe_event(event)}", file=sys.stderr, flush=True)
            result = event.result or result
        if not args.json and result is not None:
            print(file=sys.stderr)
            print_result(result)
        return result
    result = program.run(args.question, **kwargs)
    print(terminal_json(result.model_dump_json(indent=2))) if args.json else print_result(result)
    return result


def describe_event(event: Any) -> str:
    """One line for a streamed event (``--stream`` without ``--json``), fit for a terminal."""
    return terminal(_describe(event))


def _describe(event: Any) -> str:
    data = event.model_extra or {}
    if event.type == "retrieval_start":
        return f"retrieving {data.get('query', '')!r} ({data.get('stage', '')})"
    if event.type == "retrieval_end":
        hit = " (cache)" if data.get("cache_hit") else ""
        return f"retrieved {len(data.get('ids', []))} passage(s){hit}"
    if event.type == "premise":
        return f"premise {data.get('claim', '')!r}: {data.get('status', '')}"
    if event.type == "bridge":
        return f"bridge {data.get('entity', '')!r}: retrieving again with {data.get('query', '')!r}"
    if event.type == "attempt":
        return f"synthesis attempt {data.get('attempt')}: {data.get('outcome')}"
    return event.type
