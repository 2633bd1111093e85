"""Scripted and fault-injecting LMs for tests, benchmarks and demos of control flow.

They are real ``dspy.LM`` objects on a custom engine, so DSPy's adapters, cache, history and usage
tracking behave exactly as with a provider. Never used as a default. Two front doors share one
:class:`ScriptedEngine`:

* :class:`ScriptedLM` -- the responder sees the chat messages (``list[dict]``, system first) and
  returns a raw string or a dict of output fields (formatted by :func:`chat_reply`).
* :func:`scripted_lm` -- the responder sees a :class:`ScriptedPrompt` (input fields parsed from the
  last message, output field names from the system message) and returns a raw string or a mapping
  of output fields (formatted by :func:`format_outputs`, i.e. ChatAdapter's own formatting).

Either way the engine records every request as a :class:`ScriptedPrompt` in ``.prompts``, counts
``.calls``, can add latency, streams its reply word by word to ``TOKEN_SINK`` and reports a chars/4
usage estimate.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import dspy
from dspy.adapters.chat_adapter import ChatAdapter, FieldInfoWithName
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events
from dspy.signatures.field import OutputField

from groundqa.lm.token_sink import TOKEN_SINK

Messages = list[dict[str, str]]
Reply = str | Mapping[str, Any]
Responder = Callable[[Messages], str | dict[str, Any]]
"""A :class:`ScriptedLM` responder: chat messages in, raw text or output fields out."""

_PROMPT_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]\n(.*?)(?=\n\n\[\[ ## |\n\nRespond with |\Z)", re.S)
_OUTPUT_NAME = re.compile(r"^\d+\. `(\w+)`", re.M)
_ADAPTER = ChatAdapter()


@dataclass(frozen=True)
class ScriptedPrompt:
    """One request as the engine received it."""

    system: str
    messages: tuple[dict[str, str], ...]
    temperature: float | None = None

    @property
    def chat(self) -> Messages:
        """The conversation as role/content dicts, the system message first when there is one."""
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + [dict(m) for m in self.messages]

    @property
    def user(self) -> str:
        """Text of the last message (the current request)."""
        return self.messages[-1]["content"] if self.messages else ""

    @property
    def inputs(self) -> dict[str, str]:
        """Input fields of the current request, by name, as the text the adapter wrote."""
        return {name: value.strip() for name, value in _PROMPT_FIELD.findall(self.user)}

    @property
    def output_fields(self) -> list[str]:
        """Names of the output fields the adapter asked for."""
        section = self.system.split("Your output fields are:", 1)[-1].split("All interactions", 1)[0]
        return _OUTPUT_NAME.findall(section)

    @property
    def demos(self) -> int:
        """Number of few-shot demos in the prompt (user/assistant pairs before the request)."""
        return sum(1 for m in self.messages[:-1] if m["role"] == "assistant")


PromptResponder = Callable[[ScriptedPrompt], Reply]
"""A :func:`scripted_lm` responder: a :class:`ScriptedPrompt` in, raw text or output fields out."""


def chat_reply(fields: Mapping[str, Any]) -> str:
    """Format output fields the way DSPy's ChatAdapter expects them (non-strings as JSON)."""
    parts = []
    for name, value in fields.items():
        text = value if isinstance(value, str) else json.dumps(value)
        parts.append(f"[[ ## {name} ## ]]\n{text}")
    return "\n\n".join(parts) + "\n\n[[ ## completed ## ]]"


def format_outputs(values: Mapping[str, Any]) -> str:
    """Output fields in ChatAdapter's own format (``format_field_with_value``), with the completion marker."""
    fields = {FieldInfoWithName(name=name, info=OutputField()): value for name, value in values.items()}
    return _ADAPTER.format_field_with_value(fields) + "\n\n[[ ## completed ## ]]"


def last_user(messages: Messages) -> str:
    """Content of the last user message ("" when there is none)."""
    return next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")


def input_field(messages: Messages, name: str) -> str:
    """The value of input field ``name`` in the last user message."""
    text = last_user(messages)
    match = re.search(rf"\[\[ ## {re.escape(name)} ## \]\]\n(.*?)(?=\n\n\[\[ ## |\Z)", text, re.S)
    return match.group(1).strip() if match else ""


def _prompt(request: Any) -> ScriptedPrompt:
    system = request.system if isinstance(request.system, str) else "".join(
        part.text for part in (request.system or [])
    )
    messages = tuple({"role": m.role, "content": m.text or ""} for m in request.messages)
    config = getattr(request, "config", None)
    return ScriptedPrompt(system=system or "", messages=messages, temperature=getattr(config, "temperature", None))


class ScriptedEngine:
    """A DSPy lm15 engine answering with ``respond(prompt)``; records every prompt it served.

    A mapping reply is formatted with :func:`format_outputs`, a string is sent as is (e.g. to test
    parse errors). ``calls`` counts requests, including those whose responder raised.
    """

    def __init__(self, respond: PromptResponder, latency_s: float = 0.0) -> None:
        self.respond = respond
        self.latency_s = latency_s
        self.prompts: list[ScriptedPrompt] = []
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        """Number of requests received so far."""
        return len(self.prompts)

    def complete(self, request: Any) -> Response:
        prompt = _prompt(request)
        with self._lock:
            self.prompts.append(prompt)
        if self.latency_s:
            time.sleep(self.latency_s)
        answer = self.respond(prompt)
        text = answer if isinstance(answer, str) else format_outputs(answer)
        sink = TOKEN_SINK.get()
        if sink is not None:  # stream like an in-process LM: word by word
            for piece in re.findall(r"\S+\s*", text):
                sink(piece)
        prompt_chars = len(prompt.system) + sum(len(m["content"]) for m in prompt.messages)
        return Response(id=None, model="scripted", message=Message.assistant([TextPart(text)]), finish_reason="stop",
                        usage=Usage(input_tokens=max(1, prompt_chars // 4), output_tokens=max(1, len(text) // 4)))

    def stream(self, request: Any) -> Iterator[Any]:
        return response_to_events(self.complete(request))

    def close(self) -> None:
        """Nothing to release."""


class AsyncScriptedEngine:
    """The async counterpart DSPy asks for on ``acall``; it serves from the same sync engine."""

    def __init__(self, sync: ScriptedEngine) -> None:
        self.sync = sync

    async def complete(self, request: Any) -> Response:
        return self.sync.complete(request)

    async def stream(self, request: Any) -> AsyncIterator[Any]:
        for event in self.sync.stream(request):
            yield event

    async def aclose(self) -> None:
        """Nothing to release."""


def _chat_responder(responder: Responder) -> PromptResponder:
    """Adapt a messages responder to the engine: dict replies are formatted by :func:`chat_reply`."""

    def respond(prompt: ScriptedPrompt) -> str:
        reply = responder(prompt.chat)
        return chat_reply(reply) if isinstance(reply, Mapping) else reply

    return respond


class ScriptedLM(dspy.LM):
    """A ``dspy.LM`` whose answers come from a Python function of the messages (no retries)."""

    def __init__(self, responder: Responder, latency_s: float = 0.0, cache: bool = False, **kwargs: Any) -> None:
        engine = ScriptedEngine(_chat_responder(responder), latency_s)
        super().__init__("scripted/lm", engine=engine, async_engine=AsyncScriptedEngine(engine), cache=cache,
                         num_retries=0, **kwargs)
        self.script = engine

    @property
    def calls(self) -> int:
        return self.script.calls


def scripted_lm(
    respond: PromptResponder, *, cache: bool = False, temperature: float | None = None, delay_s: float = 0.0,
    model: str = "scripted/contracts",
) -> dspy.LM:
    """A ``dspy.LM`` served by a :class:`ScriptedEngine` (reach it as ``lm.scripted``)."""
    engine = ScriptedEngine(respond, latency_s=delay_s)
    lm = dspy.LM(model, engine=engine, async_engine=AsyncScriptedEngine(engine), cache=cache,
                 temperature=temperature)
    lm.scripted = engine  # type: ignore[attr-defined]
    return lm


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
