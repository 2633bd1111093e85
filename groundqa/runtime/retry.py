"""Retries for transient failures only: exponential backoff with full jitter, bounded."""

from __future__ import annotations

import random

from dspy.utils.exceptions import (
    ContextWindowExceededError,
    LMAuthError,
    LMRateLimitError,
    LMServerError,
    LMTimeoutError,
    LMTransportError,
)

from groundqa.backoff import backoff_wait
from groundqa.signatures.types import ExitReason

TRANSIENT = (LMRateLimitError, LMTimeoutError, LMServerError, LMTransportError, TimeoutError, ConnectionError)


def is_transient(exc: BaseException) -> bool:
    """Timeouts, connection errors, HTTP 429 and 5xx are transient; everything else is not."""
    if isinstance(exc, TRANSIENT):
        return True
    status = getattr(exc, "status_code", None) or getattr(exc, "status", None)
    return isinstance(status, int) and (status == 429 or 500 <= status < 600)


def backoff_delay(attempt: int, base: float, cap: float, retry_after: float | None = None,
                  rng: random.Random | None = None) -> float:
    """Delay before retry ``attempt`` (1-based): full jitter over ``min(cap, base * 2**(attempt-1))``.
    A provider's ``retry_after`` hint is respected (up to ``cap``)."""
    delay = backoff_wait(attempt - 1, base=base, factor=2, cap=cap, full_jitter=True, rng=rng)
    if retry_after:
        delay = max(delay, min(cap, float(retry_after)))
    return delay


def exit_reason_for(exc: BaseException) -> ExitReason:
    """The exit reason of an LM failure that retries did not (or may not) fix."""
    status = getattr(exc, "status_code", None) or getattr(exc, "status", None)
    if isinstance(exc, LMRateLimitError) or status == 429:
        return ExitReason.RATE_LIMITED
    if isinstance(exc, (LMTimeoutError, TimeoutError)):
        return ExitReason.TIMEOUT
    if isinstance(exc, ContextWindowExceededError):
        return ExitReason.MAX_CONTEXT_REACHED
    if isinstance(exc, LMAuthError):
        return ExitReason.LM_ERROR
    return ExitReason.LM_ERROR
