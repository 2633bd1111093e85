"""A scripted, zero-latency LM (a ``dspy.LM`` with a custom engine) for tests and benchmarks.

The responder sees each prompt as a :class:`ScriptedPrompt` (input fields parsed from the last
user message, output field names from the system message) and returns the output fields as a
mapping (formatted the way ChatAdapter expects) or a raw string (sent as is, e.g. to test parse
errors). Requests go through DSPy's real LM layer, cache included when ``cache=True``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import dspy
from dspy.adapters.chat_adapter import ChatAdapter, FieldInfoWithName
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events
from dspy.signatures.field import OutputField

_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]\n(.*?)(?=\n\n\[\[ ## |\n\nRespond with |\Z)", re.S)
_OUTPUT_NAME = re.compile(r"^\d+\. `(\w+)`", re.M)
_ADAPTER = ChatAdapter()


@dataclass(frozen=True)
class ScriptedPrompt:
    """One request as the responder sees it."""

    system: str
    messages: tuple[dict[str, str], ...]
    temperature: float | None = None

    @property
    def user(self) -> str:
        """Text of the last message (the current request)."""
        return self.messages[-1]["content"] if self.messages else ""

    @property
    def inputs(self) -> dict[str, str]:
        """Input fields of the current request, by name, as the text the adapter wrote."""
        return {name: value.strip() for name, value in _FIELD.findall(self.user)}

    @property
    def output_fields(self) -> list[str]:
        """Names of the output fields the adapter asked for."""
        section = self.system.split("Your output fields are:", 1)[-1].split("All interactions", 1)[0]
        return _OUTPUT_NAME.findall(section)

    @property
    def demos(self) -> int:
        """Number of few-shot demos in the prompt (user/assistant pairs before the request)."""
        return sum(1 for m in self.messages[:-1] if m["role"] == "assistant")


Responder = Callable[[ScriptedPrompt], "Mapping[str, Any] | str"]


def format_outputs(values: Mapping[str, Any]) -> str:
    """Output fields in ChatAdapter's format, with the completion marker."""
    fields = {FieldInfoWithName(name=name, info=OutputField()): value for name, value in values.items()}
    return _ADAPTER.format_field_with_value(fields) + "\n\n[[ ## completed ## ]]"


class ScriptedEngine:
    """A DSPy lm15 engine answering with ``respond``; records every prompt it served."""

    def __init__(self, respond: Responder, delay_s: float = 0.0) -> None:
        self.respond = respond
        self.delay_s = delay_s
        self.prompts: list[ScriptedPrompt] = []
        self._lock = threading.Lock()

    def complete(self, request: Any) -> Response:
        system = request.system if isinstance(request.system, str) else "".join(
            part.text for part in (request.system or [])
        )
        messages = tuple({"role": m.role, "content": m.text or ""} for m in request.messages)
        config = getattr(request, "config", None)
        prompt = ScriptedPrompt(system=system or "", messages=messages,
                                temperature=getattr(config, "temperature", None))
        with self._lock:
            self.prompts.append(prompt)
        if self.delay_s:
            time.sleep(self.delay_s)
        answer = self.respond(prompt)
        text = answer if isinstance(answer, str) else format_outputs(answer)
        return Response(
            id=None, model="scripted", message=Message.assistant([TextPart(text)]), finish_reason="stop",
            usage=Usage(input_tokens=0, output_tokens=0, total_tokens=0),
        )

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

    async def stream(self, request: Any) -> Any:
        for event in self.sync.stream(request):
            yield event

    async def aclose(self) -> None:
        """Nothing to release."""


def scripted_lm(
    respond: Responder, *, cache: bool = False, temperature: float | None = None, delay_s: float = 0.0,
    model: str = "scripted/contracts",
) -> dspy.LM:
    """A ``dspy.LM`` served by a :class:`ScriptedEngine` (reach it as ``lm.scripted``)."""
    engine = ScriptedEngine(respond, delay_s=delay_s)
    lm = dspy.LM(model, engine=engine, async_engine=AsyncScriptedEngine(engine), cache=cache,
                 temperature=temperature)
    lm.scripted = engine  # type: ignore[attr-defined]
    return lm
