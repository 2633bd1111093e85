"""Backoff arithmetic: the one place that computes a wait between retries.

Two callers, each with its own documented scheme:

* ``groundqa.runtime.retry.backoff_delay`` (LM calls) — **full jitter**: the wait is drawn
  uniformly from ``[0, min(cap, base * factor ** step)]``;
* ``RetrySchedule.delay_before`` (``@contract`` remedies, SymbolicAI's semantics) — **additive
  jitter**: ``min(cap, base * factor ** step + U(lo, hi))``, never negative.
"""

from __future__ import annotations

import random


def backoff_wait(step: int, *, base: float, factor: float, cap: float | None = None,
                 jitter: tuple[float, float] = (0.0, 0.0), full_jitter: bool = False,
                 rng: random.Random | None = None) -> float:
    """Seconds to wait at retry ``step`` (0 for the first retry): ``base * factor ** step``, capped
    at ``cap`` (``None``: no cap), with full jitter or with ``jitter = (lo, hi)`` added before the
    cap (no draw when ``hi <= 0``). ``rng`` draws the jitter; default: the ``random`` module."""
    growth = base * factor ** step
    draw = rng or random
    if full_jitter:
        return draw.uniform(0, growth if cap is None else min(cap, growth))
    low, high = jitter
    wait = growth + (draw.uniform(low, high) if high > 0 else 0.0)
    if cap is not None:
        wait = min(wait, cap)
    return max(0.0, wait)
