"""Tracking that cannot take a compile or an evaluation down with it.

A tracking server can die in the middle of a compile. Unguarded, the next MLflow call failed the whole
compile (after MLflow's HTTP retries: 7 with exponential backoff, about four minutes per call), and the
compiled program was never saved. Every tracking call of a compile or an evaluation now goes through
the :class:`TrackingGuard` of the run in progress:

* the first failing call marks tracking as lost, prints once ``MLflow tracking was lost (...); results
  are in <where>``, and switches everything off for the rest of the run: DSPy's MLflow autologging,
  MLflow tracing, the run stack (forgotten locally, without asking the server), the ``Tracking``
  object (``enabled`` false, ``reason`` set), so no later call waits on a dead server again;
* while a guard is active, MLflow's HTTP client fails fast against a server (2 retries, backoff factor
  1, 30 s timeout) unless the user set ``MLFLOW_HTTP_REQUEST_MAX_RETRIES``,
  ``MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR`` or ``MLFLOW_HTTP_REQUEST_TIMEOUT`` themselves; a dead server
  costs seconds, not minutes.

The guard of the run in progress is process-wide (:func:`current_guard`), so tracing in worker threads
sees a loss as soon as the main thread does.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from groundqa.tracking.setup import Tracking

_log = logging.getLogger(__name__)
T = TypeVar("T")

FAIL_FAST_HTTP = {
    "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2",
    "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
    "MLFLOW_HTTP_REQUEST_TIMEOUT": "30",
}
"""MLflow's HTTP settings while a guarded run talks to a server (the user's own values win)."""


@dataclass
class TrackingGuard:
    """Runs the tracking calls of one compile or evaluation; the first failure stops tracking for good.

    ``results`` says where the results are when tracking is lost (the artifacts folder, a report file);
    ``say`` prints the one line about it.
    """

    tracking: Tracking
    results: str
    say: Callable[[str], Any]
    lost: str | None = None
    """what failed, once tracking is lost"""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _tracing_disabled: bool = field(default=False, repr=False)

    @property
    def active(self) -> bool:
        """Whether tracking calls are still made."""
        return self.tracking.enabled and self.lost is None

    def call(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """``fn(*args, **kwargs)`` while tracking is active; ``None`` (and tracking lost) if it raises."""
        if not self.active:
            return None
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            self.lose(what, exc)
            return None

    def lose(self, what: str, exc: BaseException) -> None:
        """Mark tracking as lost (once): switch it all off and say where the results are."""
        with self._lock:
            if self.lost is not None:
                return
            detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else "no detail"
            self.lost = f"{what}: {type(exc).__name__}: {detail}"
        _log.debug("tracking lost", exc_info=exc)
        self._switch_off()
        self.tracking.enabled = False
        self.tracking.reason = f"tracking was lost ({self.lost})"
        self.say(f"MLflow tracking was lost ({self.lost}); results are in {self.results}")

    def _switch_off(self) -> None:
        import mlflow

        with contextlib.suppress(Exception):
            mlflow.dspy.autolog(disable=True)
        with contextlib.suppress(Exception):
            mlflow.tracing.disable()
            self._tracing_disabled = True
        forget_active_runs()

    def end_run(self, status: str = "FINISHED") -> None:
        """End the active run on the server, or only locally once tracking is lost."""
        import mlflow

        if not self.active:
            forget_active_runs()
            return
        try:
            mlflow.end_run(status)
        except Exception as exc:
            self.lose("ending the run", exc)

    def restore(self) -> None:
        """Turn tracing back on if this guard turned it off (later commands of the process trace again)."""
        if self._tracing_disabled:
            import mlflow

            with contextlib.suppress(Exception):
                mlflow.tracing.enable()
            self._tracing_disabled = False


def forget_active_runs() -> None:
    """Drop MLflow's active runs without telling the server (it is gone): the next ``start_run`` starts
    fresh instead of nesting under a run that can never be ended."""
    try:
        from mlflow.environment_variables import MLFLOW_RUN_ID
        from mlflow.tracking import fluent

        stack = fluent._active_run_stack.get()
        stack.clear()
        MLFLOW_RUN_ID.unset()
    except Exception as exc:  # a different MLflow layout: fall back to end_run, which may retry
        _log.debug("cannot clear MLflow's run stack directly: %s", exc)
        import mlflow

        while mlflow.active_run() is not None:
            try:
                mlflow.end_run()
            except Exception:
                continue


_CURRENT: list[TrackingGuard] = []
_CURRENT_LOCK = threading.Lock()


def current_guard() -> TrackingGuard | None:
    """The guard of the compile or evaluation in progress, if any."""
    with _CURRENT_LOCK:
        return _CURRENT[-1] if _CURRENT else None


def tracking_lost() -> bool:
    """Whether the run in progress has lost its tracking (traces stop being made)."""
    guard = current_guard()
    return guard is not None and guard.lost is not None


def guarded_call(what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
    """``fn(...)`` through the current guard; called plainly when no guard is active."""
    guard = current_guard()
    if guard is None:
        return fn(*args, **kwargs)
    return guard.call(what, fn, *args, **kwargs)


def fail_fast_http(uri: str) -> dict[str, str]:
    """Put :data:`FAIL_FAST_HTTP` in the environment when ``uri`` is a server (http/https), leaving the
    user's own values alone; returns what was added (for :func:`guarding` to take back)."""
    if not uri.startswith(("http://", "https://")):
        return {}
    added = {key: value for key, value in FAIL_FAST_HTTP.items() if key not in os.environ}
    os.environ.update(added)
    return added


@contextlib.contextmanager
def guarding(tracking: Tracking, results: str, say: Callable[[str], Any]) -> Iterator[TrackingGuard]:
    """The guard of one compile or evaluation, current for the block, with fail-fast HTTP. Once tracking
    is lost the fail-fast settings stay for the rest of the process: traces queued before the loss are
    exported (and fail) in the background, at the latest when the process exits, and must not hold it
    for minutes."""
    guard = TrackingGuard(tracking, results, say)
    added = fail_fast_http(tracking.uri if tracking.enabled else "")
    with _CURRENT_LOCK:
        _CURRENT.append(guard)
    try:
        yield guard
    finally:
        with _CURRENT_LOCK:
            _CURRENT.remove(guard)
        guard.restore()
        if guard.lost is None:
            for key in added:
                os.environ.pop(key, None)
