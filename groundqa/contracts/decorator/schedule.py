"""Retry schedule of ``@contract`` remedies: tries, delay, backoff, jitter, max_delay (the wait's
arithmetic is ``groundqa.backoff.backoff_wait``)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from groundqa.backoff import backoff_wait
from groundqa.contracts.errors import ContractDefinitionError

#: The sleep used between attempts (a module attribute so tests can replace it).
sleep = time.sleep


@dataclass(frozen=True)
class RetrySchedule:
    """``tries`` counts every attempt, the first included. Before attempt ``n >= 2`` the wait is
    ``min(max_delay, delay * backoff ** (n - 2) + jitter)``, where ``jitter`` is drawn uniformly
    from ``[0, jitter]`` (or from ``[lo, hi]`` for a pair); a negative ``max_delay`` means no cap.
    """

    tries: int = 3
    delay: float = 0.0
    max_delay: float = 1.0
    jitter: float | tuple[float, float] = 0.0
    backoff: float = 2.0

    def __post_init__(self) -> None:
        if isinstance(self.tries, bool) or not isinstance(self.tries, int) or self.tries < 1:
            raise ContractDefinitionError(f"tries must be an int >= 1, got {self.tries!r}.")
        if self.delay < 0 or self.backoff < 0:
            raise ContractDefinitionError("delay and backoff must be >= 0.")
        low, high = self._jitter_range()
        if low < 0 or high < low:
            raise ContractDefinitionError(f"jitter must be >= 0 or a pair lo <= hi, got {self.jitter!r}.")

    def _jitter_range(self) -> tuple[float, float]:
        if isinstance(self.jitter, tuple):
            low, high = self.jitter
            return float(low), float(high)
        return 0.0, float(self.jitter)

    @property
    def jittered(self) -> bool:
        """Whether waits draw random jitter (and so need a random generator)."""
        return self._jitter_range()[1] > 0

    def delay_before(self, attempt: int, rng: random.Random | None) -> float:
        """Seconds to wait before attempt ``attempt`` (0 before the first); ``rng`` draws the jitter."""
        if attempt < 2:
            return 0.0
        low, high = self._jitter_range()
        if high > 0 and rng is None:
            rng = random.Random()
        return backoff_wait(attempt - 2, base=self.delay, factor=self.backoff,
                            cap=self.max_delay if self.max_delay >= 0 else None, jitter=(low, high), rng=rng)

    def pause(self, attempt: int, rng: random.Random | None) -> None:
        """Sleep before attempt ``attempt`` (no call at all when the wait is 0)."""
        wait = self.delay_before(attempt, rng)
        if wait > 0:
            sleep(wait)
