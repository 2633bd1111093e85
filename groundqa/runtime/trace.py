"""Run traces: every LM request/response and every retrieval, under short ids.

A trace exports to JSON or YAML and loads back to an equal trace. :class:`ReplayLM` serves the
recorded LM answers and fails loudly on a request that was not recorded, so tests and demos run
offline and deterministically.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import uuid
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator

from groundqa.errors import GroundQAError
from groundqa.runtime.redact import redact
from groundqa.runtime.safe_text import one_line, scrub_surrogates, utf8_bytes

FORMAT_VERSION = 1


class LMCall(BaseModel):
    """One LM request and its response."""

    kind: Literal["lm"] = "lm"
    id: str
    model: str
    stage: str = ""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    kwargs: dict[str, Any] = Field(default_factory=dict)
    outputs: list[Any] = Field(default_factory=list)
    usage: dict[str, int] = Field(default_factory=dict)
    latency_ms: float = 0.0
    cache_hit: bool = False
    retry: int = 0
    error: str | None = None
    request_key: str = ""


class RetrievalCall(BaseModel):
    """One retrieval: the query, what came back, how long it took."""

    kind: Literal["retrieval"] = "retrieval"
    id: str
    query: str
    k: int
    stage: str = ""
    ids: list[str] = Field(default_factory=list)
    scores: list[float] = Field(default_factory=list)
    latency_ms: float = 0.0
    cache_hit: bool = False
    error: str | None = None


class ContractAttempt(BaseModel):
    """One attempt of a contract-guarded module."""

    kind: Literal["attempt"] = "attempt"
    id: str
    module: str
    attempt: int
    outcome: str
    feedback: list[str] = Field(default_factory=list)
    latency_ms: float = 0.0


Record = LMCall | RetrievalCall | ContractAttempt


def request_key(messages: list[dict[str, Any]] | None, prompt: str | None = None) -> str:
    """A stable key for an LM request: the hash of its rendered messages."""
    payload = json.dumps({"messages": messages, "prompt": prompt}, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(utf8_bytes(payload)).hexdigest()[:24]


class Trace(BaseModel):
    """The ordered records of one run (or of several runs, for a replay cache)."""

    format_version: int = FORMAT_VERSION
    trace_id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    question: str = ""
    records: list[Record] = Field(default_factory=list)
    result: dict[str, Any] | None = None

    @field_validator("question", mode="after")
    @classmethod
    def _encodable(cls, question: str) -> str:
        return scrub_surrogates(question)  # a rejected question with a lone surrogate must still export

    def model_post_init(self, _context: Any) -> None:
        self._lock = threading.Lock()

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}{sum(1 for r in self.records if r.id.startswith(prefix)) + 1}"

    def add(self, kind: type[Record], prefix: str, **fields: Any) -> Record:
        with self._lock:
            record = kind(id=self._next_id(prefix), **redact(fields))
            self.records.append(record)
            return record

    def lm_calls(self) -> list[LMCall]:
        return [r for r in self.records if isinstance(r, LMCall)]

    def retrievals(self) -> list[RetrievalCall]:
        return [r for r in self.records if isinstance(r, RetrievalCall)]

    # -- export / import -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return redact(self.model_dump(mode="json"))

    def save(self, path: str | Path) -> Path:
        """Write JSON (``.json``) or YAML (``.yaml``/``.yml``)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = self.to_dict()
        if path.suffix.lower() in (".yaml", ".yml"):
            path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        else:
            path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """Load a trace exported by :meth:`save`; a one-line :class:`TraceFileError` when it is not one."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise TraceFileError(f"cannot read trace {path}: {getattr(exc, 'strerror', None) or exc}") from exc
        try:
            data = yaml.safe_load(text) if path.suffix.lower() in (".yaml", ".yml") else json.loads(text)
        except (json.JSONDecodeError, yaml.YAMLError) as exc:
            raise TraceFileError(f"{path} is not a valid trace file: {' '.join(str(exc).split())}") from exc
        if not isinstance(data, dict) or "records" not in data:
            raise TraceFileError(f"{path} is not a groundqa trace (no 'records')")
        version = data.get("format_version", 0)
        if not isinstance(version, int) or isinstance(version, bool):
            raise TraceFileError(f"{path}: format_version must be a whole number, not {_kind_of(version)}")
        if version > FORMAT_VERSION:
            raise TraceFileError(f"{path} has trace format {version}, newer than this groundqa supports")
        if not isinstance(data["records"], list):
            raise TraceFileError(f"{path}: 'records' must be a list, not {_kind_of(data['records'])}")
        for number, record in enumerate(data["records"]):
            _check_record(path, number, record)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise TraceFileError(f"{path} is not a valid trace: {_first_error(exc)}") from exc


_RECORD_KINDS: dict[str, type[BaseModel]] = {"lm": LMCall, "retrieval": RetrievalCall, "attempt": ContractAttempt}


def _kind_of(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _first_error(exc: ValidationError, prefix: str = "") -> str:
    """The first problem of a validation error, on one line: ``where: what``."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    where = f"{prefix}.{where}" if prefix and where else prefix or where or "a field"
    return f"{where}: {' '.join(str(first.get('msg', 'invalid')).split())}"


def _check_record(path: Path, number: int, record: Any) -> None:
    """One record of a trace file, checked against the model of its kind; one line naming it when wrong."""
    where = f"records[{number}]"
    if not isinstance(record, dict):
        raise TraceFileError(f"{path}: {where} must be an object, not {_kind_of(record)}")
    model = _RECORD_KINDS.get(record.get("kind"))  # type: ignore[arg-type]
    if model is None:
        raise TraceFileError(f"{path}: {where} has kind {record.get('kind')!r}; expected one of "
                             f"{', '.join(sorted(_RECORD_KINDS))}")
    try:
        checked = model.model_validate(record)
    except ValidationError as exc:
        raise TraceFileError(f"{path} is not a valid trace: {_first_error(exc, where)}") from exc
    if isinstance(checked, LMCall) and checked.error is None and not checked.outputs:
        raise TraceFileError(f"{path}: {where} ({checked.id}) records a successful LM call with no outputs")


class TraceFileError(GroundQAError, ValueError):
    """A trace file that cannot be loaded (unreadable, not a trace, a malformed record); one line."""


class ReplayMiss(GroundQAError, LookupError):
    """The replayed program asked the LM something the trace did not record (one line: the command line
    reports it and exits 2)."""


class ReplayLM:
    """Serves recorded LM outputs by request key. Used as the inner LM of a guarded LM."""

    def __init__(self, trace: Trace, model: str | None = None) -> None:
        self.answers: dict[str, tuple[list[Any], dict[str, int]]] = {}
        for call in trace.lm_calls():
            if call.error is None and call.request_key:
                self.answers.setdefault(call.request_key, (call.outputs, call.usage))
        self.model = model or next((c.model for c in trace.lm_calls()), "replay")
        self.recorded = len(self.answers)
        self.question = trace.question

    def complete(self, messages: list[dict[str, Any]] | None, prompt: str | None) -> tuple[list[Any], dict[str, int]]:
        """The recorded (outputs, usage) of this request; :class:`ReplayMiss` when it was not recorded."""
        key = request_key(messages, prompt)
        if key not in self.answers:
            raise ReplayMiss(
                f"replay: request {key} was not recorded in the trace ({self.recorded} recorded requests): a replay "
                f"answers only the question, program and settings it recorded{_asked(messages, self.question)}"
            )
        outputs, usage = self.answers[key]
        return list(outputs), dict(usage)


def _asked(messages: list[dict[str, Any]] | None, recorded: str) -> str:
    """`` (recorded: '...'; asked: '...')``: the trace's question and the missed request's question (or the
    end of its last message)."""
    head = f" (recorded: {one_line(recorded)[:120]!r}" if recorded else " ("
    if not messages:
        return f"{head})" if recorded else ""
    content = str(messages[-1].get("content", "") if isinstance(messages[-1], dict) else messages[-1])
    found = re.search(r"\[\[ ## question ## \]\]\n(.*?)(?:\n\n\[\[ ## |\Z)", content, re.S)
    text = one_line(found.group(1) if found else content[-120:])
    return f"{head}{'; ' if recorded else ''}asked: {text[:120]!r})"
