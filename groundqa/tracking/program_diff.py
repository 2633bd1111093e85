"""Diff the instructions, demos and grounding gates of two compiled programs: ``program.json`` files or
folders, the ``compiled/program.json`` artifact of a logged compile run, or the uncompiled baseline."""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from groundqa.programs.gates import Gates
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.persistence import save_program
from groundqa.tracking.errors import TrackingError
from groundqa.tracking.runs import resolve_run, store_call

PROGRAM_ARTIFACT = "compiled/program.json"


@dataclass
class ProgramSource:
    """A compiled program's state (``Module.save`` JSON) and where it came from."""

    label: str
    state: dict[str, Any]


def _read_program_file(path: Path, label: str) -> ProgramSource:
    if path.is_dir():
        path = path / "program.json"
        if not path.exists():
            raise TrackingError(f"no program.json in {path.parent}")
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TrackingError(f"{path} is not a readable program JSON: {exc}") from exc
    if not isinstance(state, dict) or not predictors(state):
        raise TrackingError(f"{path} is not a compiled program (no predictor with a signature or demos)")
    return ProgramSource(label=label, state=state)


def _looks_like_path(ref: str) -> bool:
    return ref.endswith(".json") or "/" in ref or "\\" in ref or ref.startswith(".")


def load_program_source(ref: str, client_factory: Any) -> ProgramSource:
    """``ref`` is a program.json, its folder, or a run id/name whose ``compiled/program.json`` is downloaded.

    ``client_factory()`` returns ``(client, experiments)``; it is called only when ``ref`` is not a local path.
    """
    path = Path(ref).expanduser()
    if path.exists():
        return _read_program_file(path, str(path))
    if _looks_like_path(ref):
        raise TrackingError(f"file not found: {ref}")
    client, experiments = client_factory()
    run = resolve_run(client, experiments, ref)
    name = f"run {run.info.run_name} ({run.info.run_id[:8]})"
    listed = store_call(client, "list artifacts", client.list_artifacts, run.info.run_id, "compiled")
    if not any(a.path == PROGRAM_ARTIFACT for a in listed):
        raise TrackingError(f"{name} has no compiled program (artifact {PROGRAM_ARTIFACT}); "
                            "only compile runs have one")
    import mlflow.artifacts

    with tempfile.TemporaryDirectory() as tmp, _no_progress_bar():
        local = store_call(client, "download artifacts", mlflow.artifacts.download_artifacts,
                           run_id=run.info.run_id, artifact_path=PROGRAM_ARTIFACT, dst_path=tmp,
                           tracking_uri=client.tracking_uri)
        return _read_program_file(Path(local), f"{name}: {PROGRAM_ARTIFACT}")


def baseline_source(lm: str) -> ProgramSource:
    """The uncompiled GroundedQA for ``lm`` (no demos), as a program source."""
    with tempfile.TemporaryDirectory() as tmp:
        path = save_program(GroundedQA(None, QAConfig.for_lm(lm)), tmp)  # type: ignore[arg-type]
        return ProgramSource(label=f"baseline (uncompiled GroundedQA for lm {lm})",
                             state=json.loads(path.read_text(encoding="utf-8")))


@contextlib.contextmanager
def _no_progress_bar() -> Iterator[None]:
    """MLflow's artifact progress bar off (one small file; keeps stderr to our own lines)."""
    key = "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"
    previous = os.environ.get(key)
    os.environ[key] = "false"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = previous


def predictors(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The predictor entries of a saved program (skips ``metadata``/``groundqa`` and other sections)."""
    return {name: value for name, value in state.items()
            if isinstance(value, dict) and ("signature" in value or "demos" in value)}


def demo_label(demo: Any, limit: int = 90) -> str:
    """A demo identified by its question, else its first input field, truncated."""
    if isinstance(demo, dict):
        key = "question" if "question" in demo else next((k for k in demo if k != "augmented"), None)
        text = f"{key}: {demo[key]}" if key is not None and key != "question" else str(demo.get("question", ""))
    else:
        text = str(demo)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _demo_key(demo: Any) -> str:
    if isinstance(demo, dict):
        demo = {k: v for k, v in demo.items() if k != "augmented"}
    return json.dumps(demo, sort_keys=True, default=str, ensure_ascii=False)


@dataclass
class PredictorDiff:
    """How one predictor differs between program A and program B."""

    name: str
    presence: str  # both | only_a | only_b
    instructions_same: bool
    instructions_diff: list[str]
    fields_diff: list[str]
    demos_a: int
    demos_b: int
    added: list[str]
    removed: list[str]


def _instructions(entry: dict[str, Any] | None) -> str:
    signature = (entry or {}).get("signature") or {}
    return str(signature.get("instructions") or "")


def _fields(entry: dict[str, Any] | None) -> list[str]:
    signature = (entry or {}).get("signature") or {}
    return [f"{f.get('prefix', '')} {f.get('description', '')}".strip() for f in signature.get("fields") or []
            if isinstance(f, dict)]


def _multiset_minus(a: list[Any], b: list[Any]) -> list[Any]:
    """Items of ``a`` not matched by an equal item of ``b`` (order of ``a`` kept)."""
    remaining = Counter(_demo_key(d) for d in b)
    out = []
    for demo in a:
        key = _demo_key(demo)
        if remaining[key]:
            remaining[key] -= 1
        else:
            out.append(demo)
    return out


def diff_programs(a: ProgramSource, b: ProgramSource) -> list[PredictorDiff]:
    """Per predictor (union, in A's order then B's): instruction and field diffs, demo counts, demos +/-."""
    pa, pb = predictors(a.state), predictors(b.state)
    out = []
    for name in [*pa, *(n for n in pb if n not in pa)]:
        ea, eb = pa.get(name), pb.get(name)
        ia, ib = _instructions(ea), _instructions(eb)
        idiff = list(difflib.unified_diff(ia.splitlines(), ib.splitlines(), fromfile=f"A {name}",
                                          tofile=f"B {name}", lineterm="", n=2))
        fa, fb = _fields(ea), _fields(eb)
        fdiff = [] if fa == fb else list(difflib.unified_diff(fa, fb, fromfile="A fields", tofile="B fields",
                                                              lineterm="", n=0))
        da, db = list((ea or {}).get("demos") or []), list((eb or {}).get("demos") or [])
        out.append(PredictorDiff(
            name=name, presence="both" if ea is not None and eb is not None else ("only_a" if eb is None else "only_b"),
            instructions_same=ia == ib, instructions_diff=idiff, fields_diff=fdiff,
            demos_a=len(da), demos_b=len(db),
            added=[demo_label(d) for d in _multiset_minus(db, da)],
            removed=[demo_label(d) for d in _multiset_minus(da, db)],
        ))
    return out


def gates_of(state: dict[str, Any]) -> dict[str, Any]:
    """The gates a program state holds (the declared defaults for a file saved before gates existed)."""
    saved = state.get("gates") if isinstance(state.get("gates"), dict) else {}
    return {**Gates().model_dump(), **{k: v for k, v in saved.items() if k in Gates.model_fields}}


def diff_gates(a: ProgramSource, b: ProgramSource) -> list[tuple[str, Any, Any]]:
    """``(gate, A's value, B's value)`` for every gate that differs."""
    ga, gb = gates_of(a.state), gates_of(b.state)
    return [(name, ga[name], gb[name]) for name in Gates.model_fields if ga[name] != gb[name]]


def selector_of(state: dict[str, Any]) -> dict[str, Any]:
    """The selector a program state holds, as ``{"threshold": t, "bias": b, <signal>: weight}`` (empty: off,
    as in a file saved before selectors existed)."""
    saved = state.get("selector") if isinstance(state.get("selector"), dict) else {}
    weights = saved.get("weights") if isinstance(saved.get("weights"), dict) else {}
    if not weights:
        return {}
    return {"threshold": saved.get("threshold"), "bias": saved.get("bias"), **weights}


def diff_selector(a: ProgramSource, b: ProgramSource) -> list[tuple[str, Any, Any]]:
    """``(term, A's value, B's value)`` for every selector term that differs (None: absent, or off)."""
    sa, sb = selector_of(a.state), selector_of(b.state)
    return [(name, sa.get(name), sb.get(name)) for name in dict.fromkeys([*sa, *sb]) if sa.get(name) != sb.get(name)]


def format_diff(a: ProgramSource, b: ProgramSource, diffs: Sequence[PredictorDiff]) -> list[tuple[str, str]]:
    """``(line, style)`` pairs for the terminal (style is a rich style or ``""``)."""
    lines: list[tuple[str, str]] = [(f"A: {a.label}", "bold"), (f"B: {b.label}", "bold")]
    changed = sum(1 for d in diffs if not d.instructions_same or d.fields_diff or d.added or d.removed
                  or d.presence != "both")
    lines.append((f"{len(diffs)} predictor(s), {changed} changed", "dim"))
    for d in diffs:
        lines.append(("", ""))
        where = {"both": "", "only_a": "  (only in A)", "only_b": "  (only in B)"}[d.presence]
        lines.append((f"== {d.name}{where}", "bold cyan"))
        if d.instructions_same:
            lines.append(("instructions: same", ""))
        else:
            lines.append(("instructions:", ""))
            for line in d.instructions_diff:
                style = "bold" if line.startswith(("---", "+++")) else (
                    "green" if line.startswith("+") else "red" if line.startswith("-") else
                    "cyan" if line.startswith("@@") else "")
                lines.append(("  " + line, style))
        if d.fields_diff:
            lines.append(("fields:", ""))
            lines.extend(("  " + line, "green" if line.startswith("+") and not line.startswith("+++") else
                          "red" if line.startswith("-") and not line.startswith("---") else "dim")
                         for line in d.fields_diff if not line.startswith("@@"))
        lines.append((f"demos: {d.demos_a} -> {d.demos_b} (+{len(d.added)} added, -{len(d.removed)} removed)", ""))
        lines.extend((f"  + {label}", "green") for label in d.added)
        lines.extend((f"  - {label}", "red") for label in d.removed)
    gates = diff_gates(a, b)
    lines.extend([("", ""), (f"== gates: {len(gates)} changed", "bold cyan")])
    lines.extend((f"  {name}: {va} -> {vb}", "yellow") for name, va, vb in gates)
    selector = diff_selector(a, b)
    lines.extend([("", ""), (f"== selector: {len(selector)} term(s) changed"
                             + ("" if selector else f" ({'off' if not selector_of(a.state) else 'same'})"), "bold cyan")])
    lines.extend((f"  {name}: {va} -> {vb}", "yellow") for name, va, vb in selector)
    return lines


def diff_to_dict(a: ProgramSource, b: ProgramSource, diffs: Sequence[PredictorDiff]) -> dict[str, Any]:
    """The diff as a JSON-ready dict (``--diff --json``)."""
    return {"a": a.label, "b": b.label, "predictors": [asdict(d) for d in diffs],
            "gates": [{"name": name, "a": va, "b": vb} for name, va, vb in diff_gates(a, b)],
            "selector": [{"name": name, "a": va, "b": vb} for name, va, vb in diff_selector(a, b)]}
