"""Run traces: every LM request/response and every retrieval, under short ids.

A trace exports to JSON or YAML and loads back to an equal trace. :class:`ReplayLM` serves the
recorded LM answers and fails loudly on a request that was not recorded, so tests and demos run
offline and deterministically.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field

from groundqa.runtime.redact import redact

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
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


class Trace(BaseModel):
    """The ordered records of one run (or of several runs, for a replay cache)."""

    format_version: int = FORMAT_VERSION
    trace_id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    question: str = ""
    records: list[Record] = Field(default_factory=list)
    result: dict[str, Any] | None = None

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
        """Load a trace exported by :meth:`save`; a clear ``ValueError`` when it is not one."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read trace {path}: {exc.strerror or exc}") from exc
        try:
            data = yaml.safe_load(text) if path.suffix.lower() in (".yaml", ".yml") else json.loads(text)
        except (json.JSONDecodeError, yaml.YAMLError) as exc:
            raise ValueError(f"{path} is not a valid trace file: {exc}") from exc
        if not isinstance(data, dict) or "records" not in data:
            raise ValueError(f"{path} is not a groundqa trace (no 'records')")
        if int(data.get("format_version", 0)) > FORMAT_VERSION:
            raise ValueError(f"{path} has trace format {data['format_version']}, newer than this groundqa supports")
        return cls.model_validate(data)


class ReplayMiss(LookupError):
    """The replayed program asked the LM something the trace did not record."""


class ReplayLM:
    """Serves recorded LM outputs by request key. Used as the inner LM of a guarded LM."""

    def __init__(self, trace: Trace, model: str | None = None) -> None:
        self.answers: dict[str, tuple[list[Any], dict[str, int]]] = {}
        for call in trace.lm_calls():
            if call.error is None and call.request_key:
                self.answers.setdefault(call.request_key, (call.outputs, call.usage))
        self.model = model or next((c.model for c in trace.lm_calls()), "replay")
        self.recorded = len(self.answers)

    def complete(self, messages: list[dict[str, Any]] | None, prompt: str | None) -> tuple[list[Any], dict[str, int]]:
        """The recorded (outputs, usage) of this request; :class:`ReplayMiss` when it was not recorded."""
        key = request_key(messages, prompt)
        if key not in self.answers:
            preview = ""
            if messages:
                preview = str(messages[-1].get("content", ""))[-160:].replace("\n", " ")
            raise ReplayMiss(
                f"replay: request {key} was not recorded in the trace ({self.recorded} recorded requests); "
                f"last message ends: {preview!r}"
            )
        outputs, usage = self.answers[key]
        return list(outputs), dict(usage)
