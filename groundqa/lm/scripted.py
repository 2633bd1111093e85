"""Scripted and fault-injecting LMs for tests, benchmarks and demos of control flow.

They are real ``dspy.LM`` objects on a custom engine, so DSPy's adapters, cache, history and usage
tracking behave exactly as with a provider. Never used as a default.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import dspy
from dspy.lm15 import Message, Response, TextPart, Usage

from groundqa.lm.streaming import TOKEN_SINK

Messages = list[dict[str, str]]
Responder = Callable[[Messages], str | dict[str, Any]]
_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]")


def chat_reply(fields: dict[str, Any]) -> str:
    """Format output fields the way DSPy's ChatAdapter expects them."""
    import json

    parts = []
    for name, value in fields.items():
        text = value if isinstance(value, str) else json.dumps(value)
        parts.append(f"[[ ## {name} ## ]]\n{text}")
    return "\n\n".join(parts) + "\n\n[[ ## completed ## ]]"


def _messages(request: Any) -> Messages:
    messages: Messages = []
    if request.system is not None:
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system)
        messages.append({"role": "system", "content": system})
    messages.extend({"role": m.role, "content": m.text or ""} for m in request.messages)
    return messages


def last_user(messages: Messages) -> str:
    return next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")


def input_field(messages: Messages, name: str) -> str:
    """The value of input field ``name`` in the last user message."""
    text = last_user(messages)
    match = re.search(rf"\[\[ ## {re.escape(name)} ## \]\]\n(.*?)(?=\n\n\[\[ ## |\Z)", text, re.S)
    return match.group(1).strip() if match else ""


class ScriptedEngine:
    """``complete(Request)`` answers with ``responder(messages)``; usage is a chars/4 estimate."""

    def __init__(self, responder: Responder, latency_s: float = 0.0) -> None:
        self.responder = responder
        self.latency_s = latency_s
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, request: Any) -> Response:
        messages = _messages(request)
        with self._lock:
            self.calls += 1
        if self.latency_s:
            time.sleep(self.latency_s)
        reply = self.responder(messages)
        text = chat_reply(reply) if isinstance(reply, dict) else reply
        sink = TOKEN_SINK.get()
        if sink is not None:  # stream like an in-process LM: word by word
            for piece in re.findall(r"\S+\s*", text):
                sink(piece)
        prompt_chars = sum(len(m["content"]) for m in messages)
        return Response(id=None, model="scripted", message=Message.assistant([TextPart(text)]), finish_reason="stop",
                        usage=Usage(input_tokens=max(1, prompt_chars // 4), output_tokens=max(1, len(text) // 4)))

    def stream(self, request: Any) -> Any:
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))

    def close(self) -> None:
        pass


class ScriptedLM(dspy.LM):
    """A ``dspy.LM`` whose answers come from a Python function of the messages."""

    def __init__(self, responder: Responder, latency_s: float = 0.0, cache: bool = False, **kwargs: Any) -> None:
        engine = ScriptedEngine(responder, latency_s)
        super().__init__("scripted/lm", engine=engine, cache=cache, num_retries=0, **kwargs)
        self.script = engine

    @property
    def calls(self) -> int:
        return self.script.calls


def faults(sequence: Iterable[str | BaseException | dict[str, Any]], then: Responder | None = None) -> Responder:
    """A responder that plays ``sequence`` (one item per call) and then defers to ``then``.

    Items: an exception instance (raised), ``"timeout"``, ``"429"``, ``"500"``, ``"connection"``,
    ``"empty"`` (empty text), ``"garbage"`` (malformed output), or a dict of output fields.
    """
    from dspy.utils.exceptions import LMRateLimitError, LMServerError, LMTimeoutError, LMTransportError

    plan = list(sequence)
    lock = threading.Lock()
    named: dict[str, Callable[[], BaseException]] = {
        "timeout": lambda: LMTimeoutError("request timed out", model="scripted/lm"),
        "429": lambda: LMRateLimitError("rate limited", model="scripted/lm", status=429),
        "500": lambda: LMServerError("internal server error", model="scripted/lm", status=500),
        "connection": lambda: LMTransportError("connection reset", model="scripted/lm"),
    }

    def respond(messages: Messages) -> str | dict[str, Any]:
        with lock:
            item = plan.pop(0) if plan else None
        if item is None:
            if then is None:
                raise AssertionError("the fault script ran out of items")
            return then(messages)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, dict):
            return item
        if item in named:
            raise named[item]()
        if item == "empty":
            return ""
        if item == "garbage":
            return "<<<%%% not the expected format %%%>>>"
        raise ValueError(f"unknown fault {item!r}")

    return respond
