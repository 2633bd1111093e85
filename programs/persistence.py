"""Saving and loading compiled programs: ``program.json`` (DSPy state) + ``meta.json``.

A program file is data, and data from elsewhere (a colleague, a registry, an MLflow run): loading it must
never run code, choose the LM, or crash with a traceback. So every field is checked before DSPy sees it,
and a wrong one is a one-line :class:`ProgramFileError` naming the field (exit code 2 on the command
line). In particular a predictor's saved ``lm`` state (a model name, an ``api_base``, a key) is dropped:
DSPy's ``Predict.load_state`` would otherwise build that LM and use it for the predictor, letting a
file decide where questions and passages are sent.

What is checked: the ``groundqa`` section (``format_version`` a whole number this version reads, the
program class, the predictor names), ``metadata`` (present, an object), no unknown top-level keys, each
predictor's state (an object with known keys; ``signature`` with text instructions and one prefix and
description per field; ``demos`` a list of objects whose signature fields hold the signature's types;
``traces`` and ``train`` lists) and the gates (their own validation). Unknown keys *inside* the
``groundqa`` section are accepted, so later versions can add records that this one ignores. A fine-tuned
program records the LoRA adapter it needs (``groundqa.adapter``: a file next to ``program.json`` and its
sha256): the adapter changes the embedded LM's weights, never which LM runs.
"""

from __future__ import annotations

import json
import logging
import shutil
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import dspy
from pydantic import BaseModel, ValidationError

from groundqa.errors import GroundQAError
from groundqa.lm.finetune.adapter import Adapter, adapter_sha256

FORMAT_VERSION = 2  # 2: the grounding gates are saved with the program
PREDICTOR_KEYS = frozenset({"traces", "train", "demos", "signature", "lm", "fields"})
"""Keys of a predictor's saved state (``Predict.dump_state``); any other key is refused (DSPy would set
it as an attribute of the predictor)."""
DEMO_FLAGS = {"augmented": bool}
"""Keys DSPy adds to bootstrapped demos, with their types."""

logger = logging.getLogger(__name__)


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
    adapter = getattr(program, "adapter", None)
    if isinstance(adapter, Adapter):  # fine-tuned weights travel with the program, pinned by their hash
        data["groundqa"]["adapter"] = _save_adapter(adapter, directory)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    meta = {"format_version": FORMAT_VERSION, "program": type(program).__name__, **(metadata or {})}
    (directory / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return path


def load_program(program: dspy.Module, path: str | Path) -> dspy.Module:
    """Load compiled state into ``program`` after checking, field by field, that the file was written for
    it; a predictor's saved LM is never used."""
    path = Path(path)
    if path.is_dir():
        path = path / "program.json"
    data = _read(path)
    _check_header(path, data, program)
    state = _checked_state(path, data, program)
    adapter = program_adapter(path, data)
    try:
        program.load_state(state)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "a field"
        raise ProgramFileError(f"{path} has an invalid value for {where}: {first.get('msg', 'invalid')}") from exc
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # what the checks above did not foresee
        raise ProgramFileError(f"{path} cannot be loaded: {type(exc).__name__}: {_line(exc)}") from exc
    if adapter is not None:
        program.adapter = adapter
    return program


# -- the fine-tuned weights a program needs --------------------------------------------------------
ADAPTER_FILE = "adapter.gguf"


def _save_adapter(adapter: Adapter, directory: Path) -> dict[str, str]:
    """Copy the adapter next to ``program.json`` (unless it is there) and return its record."""
    sha256 = adapter.sha256 or adapter_sha256(adapter.path)
    target = directory / ADAPTER_FILE
    if Path(adapter.path).resolve() != target.resolve():
        partial = target.with_suffix(".partial")
        shutil.copyfile(adapter.path, partial)
        partial.replace(target)
    return {"file": ADAPTER_FILE, "sha256": sha256}


def program_adapter(path: str | Path, data: dict[str, Any] | None = None) -> Adapter | None:
    """The LoRA adapter a saved program was fine-tuned with (``None``: it needs none), checked: the record's
    shape, the file next to ``program.json`` (never a path elsewhere) and its sha256."""
    path = Path(path)
    if path.is_dir():
        path = path / "program.json"
    data = data if data is not None else _read(path)
    info = data.get("groundqa") if isinstance(data.get("groundqa"), dict) else {}
    record = info.get("adapter")
    if record is None:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("file"), str) or not isinstance(record.get("sha256"), str):
        raise ProgramFileError(f"{path}: groundqa.adapter must be an object with 'file' and 'sha256' strings")
    name, sha256 = record["file"], record["sha256"].lower()
    if Path(name).name != name or name in ("", ".", ".."):
        raise ProgramFileError(f"{path}: groundqa.adapter.file must be a file name next to program.json, not {name!r}")
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise ProgramFileError(f"{path}: groundqa.adapter.sha256 must be 64 hex digits")
    file = path.parent / name
    if not file.is_file():
        raise ProgramFileError(f"{path} was fine-tuned: it needs its adapter {file}, which is missing")
    actual = adapter_sha256(file)
    if actual != sha256:
        raise ProgramFileError(f"{file} has sha256 {actual[:12]}…, the program was saved with {sha256[:12]}… "
                               "(a different or damaged adapter)")
    return Adapter(path=file, sha256=sha256)


# -- reading and the header -----------------------------------------------------------------------
def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ProgramFileError(f"compiled program not found: {path}") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ProgramFileError(f"{path} is not a readable compiled program: {_line(exc)}") from exc
    if not isinstance(data, dict):
        raise ProgramFileError(f"{path} is not a compiled program: the file holds {_kind(data)}, not an object")
    return data


def _check_header(path: Path, data: dict[str, Any], program: dspy.Module) -> None:
    """The ``groundqa`` section: format version, program class, predictor names (extra keys allowed)."""
    info = data.get("groundqa")
    if not isinstance(info, dict):
        raise ProgramFileError(f"{path} was not saved by groundqa (no 'groundqa' section)")
    version = info.get("format_version")
    if not _is_int(version):
        raise ProgramFileError(f"{path}: groundqa.format_version must be a whole number, not {_kind(version)}")
    if version > FORMAT_VERSION:
        raise ProgramFileError(f"{path} has program format {version}; this groundqa reads up to {FORMAT_VERSION}")
    if version < 1:
        raise ProgramFileError(f"{path}: groundqa.format_version must be 1 or more, not {version}")
    expected = type(program).__name__
    if info.get("program") != expected:
        raise ProgramFileError(f"{path} holds a compiled {info.get('program')!r}, not a {expected!r}")
    listed = info.get("predictors")
    if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
        raise ProgramFileError(f"{path}: groundqa.predictors must be a list of names, not {_kind(listed)}")
    names = sorted(name for name, _ in program.named_predictors())
    if sorted(listed) != names:
        raise ProgramFileError(f"{path} was compiled for predictors {listed}, this program has {names}")


def _checked_state(path: Path, data: dict[str, Any], program: dspy.Module) -> dict[str, Any]:
    """The state to hand to ``program.load_state``: every parameter's, checked; predictors' LMs dropped."""
    parameters = dict(program.named_parameters())
    unknown = sorted(set(data) - set(parameters) - {"metadata", "groundqa"})
    if unknown:
        raise ProgramFileError(f"{path}: unknown key {unknown[0]!r} (this program has {sorted(parameters)})")
    _check_metadata(path, data.get("metadata", _MISSING))
    state: dict[str, Any] = {}
    dropped: list[str] = []
    for name, param in parameters.items():
        saved = data.get(name, _MISSING)
        if isinstance(param, dspy.Predict):
            if saved is _MISSING:
                raise ProgramFileError(f"{path}: no saved state for predictor {name!r}")
            state[name] = _predictor_state(path, name, saved, param)
            if saved.get("lm") is not None:
                dropped.append(name)
        elif saved is _MISSING:  # files from before a parameter existed keep its value
            state[name] = param.dump_state()
        elif not isinstance(saved, dict):
            raise ProgramFileError(f"{path}: {name} must be an object, not {_kind(saved)}")
        else:
            state[name] = saved
    if dropped:
        logger.warning("%s: ignored the LM saved with predictor(s) %s: a program file never chooses the LM",
                       path, ", ".join(dropped))
    return state


_MISSING: Any = object()


def _check_metadata(path: Path, metadata: Any) -> None:
    if metadata is _MISSING:
        raise ProgramFileError(f"{path}: 'metadata' is missing (a program file saved by DSPy has it)")
    if not isinstance(metadata, dict):
        raise ProgramFileError(f"{path}: metadata must be an object, not {_kind(metadata)}")
    versions = metadata.get("dependency_versions", {})
    if not isinstance(versions, dict) or not all(isinstance(v, str) for v in versions.values()):
        raise ProgramFileError(f"{path}: metadata.dependency_versions must map names to version strings")


# -- one predictor ------------------------------------------------------------------------------------
def _predictor_state(path: Path, name: str, saved: Any, predictor: dspy.Predict) -> dict[str, Any]:
    """``saved`` checked against ``predictor``'s signature, with ``lm`` set to ``None``."""
    where = f"{path}: predictor {name!r}"
    if not isinstance(saved, dict):
        raise ProgramFileError(f"{where}: its state must be an object, not {_kind(saved)}")
    unknown = sorted(set(saved) - PREDICTOR_KEYS)
    if unknown:
        raise ProgramFileError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(PREDICTOR_KEYS))})")
    fields = predictor.signature.fields
    _check_signature(where, saved.get("signature", _MISSING), len(fields))
    for key in ("traces", "train", "demos"):
        if not isinstance(saved.get(key, []), list):
            raise ProgramFileError(f"{where}: {key} must be a list, not {_kind(saved.get(key))}")
    if "fields" in saved and not isinstance(saved["fields"], dict):
        raise ProgramFileError(f"{where}: fields must be an object, not {_kind(saved['fields'])}")
    lm = saved.get("lm")
    if lm is not None and not isinstance(lm, dict):
        raise ProgramFileError(f"{where}: lm must be null or an object, not {_kind(lm)}")
    for number, demo in enumerate(saved.get("demos", [])):
        _check_demo(f"{where}: demos[{number}]", demo, fields)
    clean = {key: saved[key] for key in ("traces", "train", "demos", "signature", "fields") if key in saved}
    return {"traces": [], "train": [], "demos": [], **clean, "lm": None}


def _check_signature(where: str, signature: Any, n_fields: int) -> None:
    if signature is _MISSING:
        raise ProgramFileError(f"{where}: signature is missing")
    if not isinstance(signature, dict):
        raise ProgramFileError(f"{where}: signature must be an object, not {_kind(signature)}")
    if not isinstance(signature.get("instructions"), str):
        raise ProgramFileError(f"{where}: signature.instructions must be text, not {_kind(signature.get('instructions'))}")
    saved_fields = signature.get("fields")
    if not isinstance(saved_fields, list):
        raise ProgramFileError(f"{where}: signature.fields must be a list, not {_kind(saved_fields)}")
    if len(saved_fields) != n_fields:
        raise ProgramFileError(f"{where}: signature.fields has {len(saved_fields)} field(s); the signature has {n_fields}")
    for number, field in enumerate(saved_fields):
        if not isinstance(field, dict) or not all(isinstance(field.get(k), str) for k in ("prefix", "description")):
            raise ProgramFileError(f"{where}: signature.fields[{number}] must be an object with text 'prefix' and "
                                   "'description'")


def _check_demo(where: str, demo: Any, fields: dict[str, Any]) -> None:
    """A demo is an object; the signature's fields it holds have their declared types. Other keys (a labeled
    demo keeps its dataset record: id, answers, type...) are kept as they are."""
    if not isinstance(demo, dict):
        raise ProgramFileError(f"{where} must be an object, not {_kind(demo)}")
    if not all(isinstance(key, str) for key in demo):
        raise ProgramFileError(f"{where} has a key that is not text")
    for key, kind in DEMO_FLAGS.items():
        if key in demo and not isinstance(demo[key], kind):
            raise ProgramFileError(f"{where}.{key} must be {kind.__name__}, not {_kind(demo[key])}")
    for key, info in fields.items():
        if key in demo and not matches(demo[key], info.annotation):
            raise ProgramFileError(f"{where}.{key} must be {_describe(info.annotation)}, not {_kind(demo[key])}")


def matches(value: Any, annotation: Any) -> bool:
    """Whether the JSON ``value`` has the type ``annotation`` (str, bool, int, float, list[...], dict,
    Literal, Optional/Union, a pydantic model as an object or its JSON text); unknown annotations match."""
    if annotation in (Any, object):
        return True
    if annotation in (None, type(None)):
        return value is None
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        return any(matches(value, arg) for arg in args)
    if origin is Literal:
        return value in args
    if origin in (list, tuple, set, frozenset):
        return isinstance(value, list) and (not args or all(matches(v, args[0]) for v in value))
    if origin is dict:
        return isinstance(value, dict)
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return _is_int(value)
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is str:
        return isinstance(value, str)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return isinstance(value, (dict, str))
    return True


def _describe(annotation: Any) -> str:
    if get_origin(annotation) is None and isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    """How a JSON value is named in a message: null, a list, a number 42, text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]
