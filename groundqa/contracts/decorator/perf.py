"""Per-stage timing of ``@contract`` calls and the statistics of ``contract_perf_stats()``."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Stages timed on every call, in pipeline order; ``total`` is the whole contracted call.
STAGES: tuple[str, ...] = ("input_validation", "act", "output_validation", "forward", "total")


class PerfRecorder:
    """Collects one ``{stage: seconds}`` record per call (appends are atomic: no lock needed)."""

    def __init__(self) -> None:
        self._records: list[dict[str, float]] = []

    def add(self, timings: dict[str, float]) -> None:
        """Record the timings of one call."""
        self._records.append(dict(timings))

    @property
    def calls(self) -> int:
        """Number of calls recorded."""
        return len(self._records)

    def stats(self) -> dict[str, dict[str, float]]:
        """Per stage: ``count`` (calls where it ran), ``total``, ``mean``, ``std`` (population),
        ``min``, ``max`` in seconds, and ``percent`` of the total time of all calls."""
        records = list(self._records)
        grand_total = sum(r.get("total", 0.0) for r in records)
        result: dict[str, dict[str, float]] = {}
        for stage in STAGES:
            values = [r[stage] for r in records if stage in r]
            total = sum(values, 0.0)
            result[stage] = {
                "count": len(values),
                "total": total,
                "mean": total / len(values) if values else 0.0,
                "std": statistics.pstdev(values) if len(values) > 1 else 0.0,
                "min": min(values) if values else 0.0,
                "max": max(values) if values else 0.0,
                "percent": 100.0 * total / grand_total if grand_total > 0 else 0.0,
            }
        return result


@contextmanager
def timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    """Add the block's duration (even when it raises) to ``timings[stage]``."""
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] = timings.get(stage, 0.0) + time.perf_counter() - start
