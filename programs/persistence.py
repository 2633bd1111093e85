"""Saving and loading compiled programs: ``program.json`` (DSPy state) + ``meta.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import dspy
from pydantic import ValidationError

from groundqa.errors import GroundQAError

FORMAT_VERSION = 2  # 2: the grounding gates are saved with the program


class ProgramFileError(GroundQAError, ValueError):
    """A compiled program file that cannot be loaded into this program; the message says why."""


def save_program(program: dspy.Module, directory: str | Path, metadata: dict[str, Any] | None = None) -> Path:
    """Write ``<directory>/program.json`` and ``<directory>/meta.json``; return the program path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "program.json"
    program.save(str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["groundqa"] = {"format_version": FORMAT_VERSION, "program": type(program).__name__,
                        "predictors": sorted(name for name, _ in program.named_predictors())}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    meta = {"format_version": FORMAT_VERSION, "program": type(program).__name__, **(metadata or {})}
    (directory / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return path


def load_program(program: dspy.Module, path: str | Path) -> dspy.Module:
    """Load compiled state into ``program`` after checking the file was written for it."""
    path = Path(path)
    if path.is_dir():
        path = path / "program.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ProgramFileError(f"compiled program not found: {path}") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProgramFileError(f"{path} is not a readable compiled program: {exc}") from exc
    info = data.get("groundqa") if isinstance(data, dict) else None
    if not isinstance(info, dict):
        raise ProgramFileError(f"{path} was not saved by groundqa (no 'groundqa' section)")
    if int(info.get("format_version", 0)) > FORMAT_VERSION:
        raise ProgramFileError(
            f"{path} has program format {info['format_version']}; this groundqa reads up to {FORMAT_VERSION}"
        )
    expected = type(program).__name__
    if info.get("program") != expected:
        raise ProgramFileError(f"{path} holds a compiled {info.get('program')!r}, not a {expected!r}")
    names = sorted(name for name, _ in program.named_predictors())
    if sorted(info.get("predictors", [])) != names:
        raise ProgramFileError(f"{path} was compiled for predictors {info.get('predictors')}, this program has {names}")
    for name, param in program.named_parameters():  # files from before a parameter existed keep its value
        if name not in data and not isinstance(param, dspy.Predict):
            data[name] = param.dump_state()
    try:
        program.load_state(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "a field"
        raise ProgramFileError(f"{path} has an invalid value for {where}: {first.get('msg', 'invalid')}") from exc
    return program
