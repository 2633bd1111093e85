"""Fine-tuning examples in the exact text the embedded engine reads and writes.

The embedded Gemma is a base model driven as plain completion: the engine flattens DSPy's chat
messages into one transcript and primes the first output field (``render_chat`` in
:mod:`groundqa.lm.gemma`). Training on a chat template, or on the assistant message with its
field marker, would teach a text the engine never shows the model. A :class:`TrainRecord` is therefore
(the rendered prompt, primed prefix included; what the engine must generate after it, ending with the
end marker).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from groundqa.lm.gemma import END_MARKER, render_chat


@dataclass(frozen=True)
class TrainRecord:
    """One example: the prompt as the engine renders it, and the completion it must generate."""

    prompt: str
    completion: str


def _text(content: Any, where: str) -> str:
    """A message's content as text (a string, or OpenAI-style text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, Mapping) and p.get("type") == "text" for p in content):
        return "".join(str(p.get("text", "")) for p in content)
    raise ValueError(f"{where}: message content must be text, got {type(content).__name__}")


def _messages(item: Any, where: str) -> list[tuple[str, str]]:
    messages = item.get("messages") if isinstance(item, Mapping) else None
    if not isinstance(messages, list) or not messages:
        raise ValueError(f"{where}: expected {{'messages': [{{'role': ..., 'content': ...}}, ...]}}")
    turns = []
    for message in messages:
        if not isinstance(message, Mapping) or "role" not in message or "content" not in message:
            raise ValueError(f"{where}: every message needs a 'role' and a 'content'")
        turns.append((str(message["role"]), _text(message["content"], where)))
    return turns


def record_from_messages(turns: list[tuple[str, str]], where: str = "training example") -> TrainRecord:
    """A :class:`TrainRecord` from (role, text) turns: an optional leading system message, the request
    turns, and the assistant's answer last."""
    if turns[-1][0] != "assistant":
        raise ValueError(f"{where} does not end with an assistant message (the answer to train on)")
    system = turns[0][1] if turns[0][0] == "system" else ""
    request = turns[1:-1] if turns[0][0] == "system" else turns[:-1]
    if not any(role == "user" for role, _ in request):
        raise ValueError(f"{where} has no user message before the answer")
    prompt, _stops, primed = render_chat(system, request)
    answer = turns[-1][1].strip()
    if primed:
        if not answer.startswith(primed.strip()):
            raise ValueError(f"{where}: the answer does not start with {primed.strip()!r}, "
                             "the field the prompt asks for first")
        answer = answer[len(primed.strip()):].lstrip("\n")
    if not answer.endswith(END_MARKER):
        answer = f"{answer}\n\n{END_MARKER}"
    return TrainRecord(prompt=prompt, completion=answer)


def records_from_chat(train_data: Iterable[Any]) -> list[TrainRecord]:
    """DSPy chat-format fine-tune data (``[{"messages": [system?, user, (assistant, user)*, assistant]}]``,
    what ``dspy.BootstrapFinetune`` passes to ``LM.finetune``) → :class:`TrainRecord` list.

    Raises ValueError (one line) on empty data, a malformed item, or an item without a final assistant
    message."""
    items = list(train_data or [])
    if not items:
        raise ValueError("no training examples: the fine-tune data is empty")
    return [record_from_messages(_messages(item, f"training example {i}"), f"training example {i}")
            for i, item in enumerate(items)]
