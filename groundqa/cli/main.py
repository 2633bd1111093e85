"""The ``groundqa`` command line: the parser of every command and ``main``, which turns a user-facing
error (:class:`groundqa.errors.GroundQAError`, and the ValueError/FileNotFoundError of bad input) into
one line with exit code 2, never a traceback. Exit codes are decided in :mod:`groundqa.exit_codes`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from groundqa.cli import ask, compare, evaluate, ingest, optimize, serve, ui
from groundqa.cli.common import add_common_arguments, check_text_arguments, print_error
from groundqa.errors import GroundQAError
from groundqa.exit_codes import EXIT_INTERRUPTED, EXIT_USAGE

COMMANDS = (ingest, ask, evaluate, optimize, compare, ui, serve)
"""Command modules, in ``--help`` order; each has ``register(subparsers, common_arguments)``."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="groundqa", description="Grounded, cited question answering with DSPy.")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub, add_common_arguments)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        check_text_arguments(args)
        return int(args.func(args) or 0)
    except (GroundQAError, ValueError, FileNotFoundError) as exc:  # known user-facing failures
        print_error(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        print_error("interrupted")
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
