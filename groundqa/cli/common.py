"""What every command shares: the configuration flags, settings from them, one-line errors and a
progress bar for the application layer's progress callbacks."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from groundqa.config import Settings, load_settings
from groundqa.errors import GroundQAError
from groundqa.exit_codes import EXIT_USAGE
from groundqa.ingest import Progress
from groundqa.runtime.redact import redact_text
from groundqa.runtime.safe_text import first_lone_surrogate, one_line

__all__ = ["EXIT_USAGE", "CLIError", "add_common_arguments", "check_text_arguments", "print_error", "print_skipped",
           "add_gate_argument", "gate_overrides", "program_source", "progress_bar", "settings_from", "terminal"]


class CLIError(GroundQAError):
    """A user-facing error of the command line itself: printed as one line, exit code 2."""


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """The configuration flags every command takes."""
    group = parser.add_argument_group("configuration (flag > GROUNDQA_* env > config file > default)")
    group.add_argument("--home", type=Path, help="project home (default ./.groundqa, env GROUNDQA_HOME)")
    group.add_argument("--config", type=Path, help="TOML config file (default <home>/config.toml)")
    group.add_argument("--lm", help="'embedded' (default), 'embedded-base' (never an adapter) or a LiteLLM model "
                                      "string, e.g. openai/gpt-4o-mini")
    group.add_argument("--api-base", help="base URL of an OpenAI-compatible server")
    group.add_argument("--collection", help="Chroma collection name (default groundqa)")
    group.add_argument("--chroma-url", help="use a Chroma server at this URL instead of the persistent store")
    group.add_argument("--no-cache", action="store_true", help="bypass the LM and retrieval caches")


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the common flags (flag > env > config file > default)."""
    return load_settings(
        config_file=getattr(args, "config", None), home=getattr(args, "home", None), lm=getattr(args, "lm", None),
        api_base=getattr(args, "api_base", None), collection=getattr(args, "collection", None),
        chroma_url=getattr(args, "chroma_url", None), cache=False if getattr(args, "no_cache", False) else None,
    )


def terminal(text: Any) -> str:
    """``text`` as one line fit for a terminal and a log: secrets (keys, passwords and tokens in URLs)
    masked, escape sequences and control characters removed."""
    return one_line(redact_text(str(text)))


def print_error(message: str) -> None:
    """``groundqa: error: MESSAGE`` on stderr: one line, secrets masked, no terminal escapes."""
    print(f"groundqa: error: {terminal(message)}", file=sys.stderr)


def print_skipped(problems: Iterable[Any]) -> None:
    """One ``groundqa: skipped ...`` line on stderr per unreadable file, broken line or bad item."""
    for problem in problems:
        print(f"groundqa: skipped {terminal(problem)}", file=sys.stderr)


def check_text_arguments(args: argparse.Namespace) -> None:
    """Refuse text arguments that are not valid UTF-8 (Python hands them over with lone surrogates) with one
    line naming the argument and the byte. Paths are left alone: a file name need not be UTF-8."""
    for name, value in vars(args).items():
        for text in value if isinstance(value, (list, tuple)) else [value]:
            if not isinstance(text, str) or (at := first_lone_surrogate(text)) is None:
                continue
            code = ord(text[at])
            what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"code point U+{code:04X}"
            shown = name if name in ("question", "command") else "--" + name.replace("_", "-")
            raise CLIError(f"{shown} is not valid UTF-8 text ({what} at position {at}); "
                           "check the terminal's or the file's encoding")


def progress_bar(label: str, quiet: bool = False) -> Progress | None:
    """A ``progress(done, total)`` callback drawing a tqdm bar on a terminal; ``None`` when quiet or piped."""
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


def program_source(settings: Settings, program: str | Path | None, keep_collection: bool = False
                   ) -> tuple[Settings, str | Path | None]:
    """``--program`` as the application layer takes it: ``(settings, program file or None)``. A
    ``program.json`` (or its folder) runs with the adapter it was fine-tuned with; a logged model
    (``models:/...``, ``runs:/...``) is fetched from MLflow to a file and runs on the collection it was
    compiled on unless ``keep_collection`` (the user named one)."""
    from groundqa.app import program_settings
    from groundqa.tracking.model import is_model_uri, logged_program

    if program is None or program == "baseline":
        return settings, None
    if is_model_uri(program):
        return logged_program(str(program), settings, keep_collection=keep_collection)
    return program_settings(settings, program), program


def add_gate_argument(parser: argparse.ArgumentParser) -> None:
    """``--gate NAME=VALUE`` (repeatable): try a gate without compiling."""
    parser.add_argument("--gate", action="append", default=[], metavar="NAME=VALUE",
                        help="set one grounding gate for this run, e.g. --gate evidence_floor=0.4 (repeatable; "
                             "the names and ranges are the fields of groundqa.programs.gates.Gates)")


def gate_overrides(values: Iterable[str]) -> dict[str, Any]:
    """``["evidence_floor=0.4", ...]`` as QAConfig overrides; a :class:`CLIError` naming the problem otherwise."""
    from pydantic import ValidationError

    from groundqa.programs.gates import GATE_NAMES, Gates

    raw: dict[str, str] = {}
    for item in values:
        name, sep, value = str(item).partition("=")
        name = name.strip()
        if not sep or not value.strip():
            raise CLIError(f"--gate {item!r}: expected NAME=VALUE, e.g. --gate evidence_floor=0.4")
        if name not in GATE_NAMES:
            raise CLIError(f"--gate {name!r}: no such gate (one of: {', '.join(GATE_NAMES)})")
        raw[name] = value.strip()
    try:
        gates = Gates(**raw)  # pydantic parses and checks each value
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CLIError(f"--gate {first['loc'][0]}={raw.get(str(first['loc'][0]), '')}: {first['msg']}") from None
    return {name: getattr(gates, name) for name in raw}
