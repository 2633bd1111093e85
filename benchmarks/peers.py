"""Command line of the peers suites, with their options as flags instead of environment variables.

The registry runner (``python -m benchmarks run --suite quality``) has no suite-specific flags, so the
suites of :mod:`benchmarks.quality` and :mod:`benchmarks.cache` also read ``GROUNDQA_LM``,
``GROUNDQA_BENCH_DATA`` and ``GROUNDQA_BENCH_PROGRAM``; this entry point takes them as flags and
writes the same files::

    python -m benchmarks.peers quality --quick [--lm embedded] [--data bundled|squad] [--program PATH]
    python -m benchmarks.peers cache --quick
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.quality import PROGRAMS
from benchmarks.registry import DEFAULT_OUT
from benchmarks.suite_setup import QUICK_QUESTIONS, SQUAD_QUICK


def build_parser() -> argparse.ArgumentParser:
    """``python -m benchmarks.peers quality|cache [--quick] [--lm] [--data] [--program] ...``."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.peers", description="groundqa peers benchmarks")
    parser.add_argument("suite", choices=["quality", "cache"])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_QUESTIONS} bundled / {SQUAD_QUICK} SQuAD questions")
    parser.add_argument("--lm", default=None, help="'embedded' (default) or a LiteLLM model string")
    parser.add_argument("--data", default=None, help="bundled (test split, default) | squad | squad:PATH")
    parser.add_argument("--program", default=None, help="a compiled GroundedQA (folder or program.json)")
    parser.add_argument("--max-questions", type=int, default=None, help="cap the question set")
    parser.add_argument("--peer-predict", action="store_true",
                        help="peers use dspy.Predict instead of ChainOfThought")
    parser.add_argument("--programs", default=None,
                        help="comma-separated subset of: " + ", ".join(PROGRAMS) + " (default: all)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="MINUTES")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one peers suite with its own flags and write its files like the registry runner."""
    from benchmarks.__main__ import run_suite

    args = build_parser().parse_args(argv)
    command = "python -m benchmarks.peers " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    run_suite(args.suite, args, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
