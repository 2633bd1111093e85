"""Stopping a run from outside: what lets the server end a question whose client went away.

A run's state (:class:`~groundqa.runtime.run.RunState`) lives in a context variable of the thread that
runs it, created inside ``GroundedQA.run``; the server holds no reference to it. :class:`RunControl`
sits in the run's event sink: the first event hands it the run's state, and from then on
:meth:`RunControl.cancel` (called from the server's event loop) stops the run. A stopped run makes no
further LM call (the guarded LM refuses), and a generation in progress ends at its next token (the
token sink raises), so a disconnected client frees the embedded LM within one token.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from groundqa.runtime.run import Event, RunState, RunStopped, current_run
from groundqa.signatures.types import ExitReason, GroundedResult

CANCEL_REASON = ExitReason.TIMEOUT
"""The exit reason of a run stopped because its client left (there is no dedicated one; nobody reads it
but the server's log, and like a timeout it is the caller giving up, retryable)."""


class RunControl:
    """The event sink of one run that can also stop it. Thread-safe."""

    def __init__(self, forward: Callable[[Event], None] | None = None) -> None:
        self._forward = forward
        self._lock = threading.Lock()
        self._state: RunState | None = None
        self._cancelled: str | None = None
        self.events = 0

    @property
    def cancelled(self) -> bool:
        return self._cancelled is not None

    def cancel(self, message: str) -> None:
        """Stop the run (now if it has started, else at its first event) with :data:`CANCEL_REASON`."""
        with self._lock:
            if self._cancelled is None:
                self._cancelled = message
            state = self._state
        if state is not None:
            state.stop(CANCEL_REASON, self._cancelled)

    def on_event(self, event: Event) -> None:
        """The run's ``on_event``: remember the run, stop it if cancelled, pass the event on."""
        with self._lock:
            if self._state is None:
                self._state = current_run()
            cancelled, state = self._cancelled, self._state
            self.events += 1
        if cancelled is not None and event.get("type") != "final":
            if state is not None:
                state.stop(CANCEL_REASON, cancelled)
            if event.get("type") == "token":  # inside a generation: end it now
                raise RunStopped(CANCEL_REASON, cancelled)
            return  # a stopped run's events go nowhere
        if self._forward is not None:
            self._forward(event)


class ControlledProgram:
    """``program`` whose runs report to ``control`` (for :func:`groundqa.runtime.streaming.stream`, which
    calls ``run(question, on_event=...)``)."""

    def __init__(self, program: Any, control: RunControl) -> None:
        self.program = program
        self.control = control

    def run(self, question: str, on_event: Callable[[Event], None] | None = None, **kwargs: Any) -> GroundedResult:
        self.control._forward = on_event
        return self.program.run(question, on_event=self.control.on_event, **kwargs)
