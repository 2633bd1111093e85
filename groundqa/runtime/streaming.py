"""Streaming: run a question and yield typed events as they happen, ending with one ``final`` event.

Events: ``retrieval_start`` / ``retrieval_end``, ``premise`` (one per verdict), ``attempt`` (one per
contract attempt), ``token`` (answer text as the LM generates it, where the LM streams) and exactly
one ``final`` carrying the whole result. A cache hit yields no token events. The final result equals
that of a plain call.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from groundqa.signatures.types import GroundedResult

EventType = Literal["retrieval_start", "retrieval_end", "premise", "bridge", "comparison", "attempt", "selection",
                    "answer_judge", "rescue", "token", "final", "error"]


class StreamEvent(BaseModel):
    """One event; its payload fields sit next to ``type`` (``{"type": "token", "text": "..."}``)."""

    model_config = ConfigDict(extra="allow")

    type: EventType

    @property
    def result(self) -> GroundedResult | None:
        data = (self.model_extra or {}).get("result")
        return GroundedResult.model_validate(data) if self.type == "final" and data is not None else None


_DONE = object()


def stream(program: Any, question: str, **kwargs: Any) -> Iterator[StreamEvent]:
    """Yield the events of ``program.run(question, **kwargs)`` live (the run happens in a thread)."""
    events: queue.Queue[Any] = queue.Queue()
    failure: list[BaseException] = []

    def work() -> None:
        try:
            program.run(question, on_event=events.put, **kwargs)
        except BaseException as exc:  # a bug, not a fault of the input: report it, do not hang
            failure.append(exc)
        finally:
            events.put(_DONE)

    context = contextvars.copy_context()
    thread = threading.Thread(target=context.run, args=(work,), daemon=True, name="groundqa-stream")
    thread.start()
    while (item := events.get()) is not _DONE:
        yield StreamEvent.model_validate(item)
    thread.join()
    if failure:
        raise failure[0]
