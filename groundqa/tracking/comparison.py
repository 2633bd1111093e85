"""Logged runs side by side: one row per metric, one column per run, the best value of each row marked.

Every metric name ends with a leaf from :data:`groundqa.metrics.aggregate.METRICS`, a count, or a
timing, under a scope (:data:`SCOPES`); the direction of a leaf decides which value is best.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from groundqa.metrics.aggregate import COUNTS, METRICS
from groundqa.tracking.runs import RunInfo

SCOPES = ("dev", "baseline", "compiled", "delta")
"""Metric prefixes, in row order: evaluation runs, then a compile's baseline, compiled and delta."""

LOWER_IS_BETTER = frozenset({
    "over_abstention_rate", "error_rate",
    "mean_latency_s", "p95_latency_s", "latency_s", "total_s", "compile_seconds",
})
"""Metric leaves (last ``/`` part) where the minimum is best; every other scored metric: the maximum."""

NEUTRAL = frozenset({"answer_rate", "abstain_rate", *COUNTS})
"""Metric leaves with no better direction (they depend on the question mix): never marked best."""


@dataclass
class MetricRow:
    """One metric across runs: values by run id (``None`` = not logged) and the best run(s)."""

    name: str
    direction: str  # higher | lower | none
    values: dict[str, float | None]
    best: list[str] = field(default_factory=list)


@dataclass
class Comparison:
    """Runs (columns) x metrics (rows), with the best value of each row."""

    runs: list[RunInfo]
    rows: list[MetricRow]
    tracking_uri: str = ""

    def row(self, name: str) -> MetricRow:
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``--json``)."""
        return {
            "tracking_uri": self.tracking_uri,
            "lower_is_better": sorted(LOWER_IS_BETTER),
            "runs": [{**asdict(r), "short_id": r.short_id} for r in self.runs],
            "metrics": [asdict(row) for row in self.rows],
        }


def split_metric(name: str) -> tuple[str, str, str]:
    """``(scope, group, leaf)``: ``compiled/single/citation_recall`` -> ``("compiled", "single", "citation_recall")``.

    ``scope`` is one of :data:`SCOPES` or ``""`` (run-level metrics such as ``compile_seconds``); ``group`` is
    ``""`` (overall), ``time``, ``count``, ``macro``, a question type, or for run-level metrics their prefix.
    """
    parts = name.split("/")
    scope = parts[0] if len(parts) > 1 and parts[0] in SCOPES else ""
    rest = parts[1:] if scope else parts
    return scope, "/".join(rest[:-1]), rest[-1]


def direction(name: str) -> str:
    """``"lower"``, ``"higher"`` or ``"none"`` (never marked) for a metric name."""
    _, group, leaf = split_metric(name)
    if leaf in NEUTRAL or group == "count" or group.endswith("/count"):
        return "none"
    return "lower" if leaf in LOWER_IS_BETTER else "higher"


def _is_default_row(name: str) -> bool:
    """Rows shown without ``--all``: overall metrics, timings, run-level metrics (not per type/macro/counts)."""
    scope, group, _ = split_metric(name)
    return not scope or group in ("", "time")


def sort_key(name: str) -> tuple[Any, ...]:
    """Composite score first, then the other metrics in :data:`METRICS` order; within a metric the scopes
    dev, baseline, compiled, delta; overall before timings, macro, per type and counts; run-level last."""
    scope, group, leaf = split_metric(name)
    if not scope:
        group_rank = 5
    elif group == "":
        group_rank = 0
    elif group == "time":
        group_rank = 1
    elif group == "macro":
        group_rank = 2
    elif group == "count" or group.endswith("/count"):
        group_rank = 4
    else:
        group_rank = 3
    order = {m: i for i, m in enumerate((*METRICS, *COUNTS))}
    group_base = group.removesuffix("/count") if group_rank == 4 else group
    return (group_rank, group_base, order.get(leaf, len(order)), leaf,
            SCOPES.index(scope) if scope else -1, name)


def best_runs(values: dict[str, float | None], how: str) -> list[str]:
    """Run ids holding the best value (ties: all of them); nothing when fewer than two runs have a value
    or when every run has the same value (no winner to show)."""
    present = {k: v for k, v in values.items() if v is not None and not math.isnan(v)}
    if how == "none" or len(present) < 2:
        return []
    target = min(present.values()) if how == "lower" else max(present.values())
    best = [k for k, v in present.items() if math.isclose(v, target, rel_tol=1e-9, abs_tol=1e-12)]
    return best if len(best) < len(present) else []


def build_comparison(runs: Sequence[RunInfo], all_metrics: bool = False, patterns: Sequence[str] | None = None,
                     tracking_uri: str = "") -> Comparison:
    """Rows for the union of the runs' metrics (filtered: default rows, or ``all_metrics``, or ``patterns``)."""
    names: set[str] = set()
    for run in runs:
        names.update(run.metrics)
    if patterns:
        names = {n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)}
    elif not all_metrics:
        names = {n for n in names if _is_default_row(n)}
    rows = []
    for name in sorted(names, key=sort_key):
        values = {r.run_id: r.metrics.get(name) for r in runs}
        how = direction(name)
        rows.append(MetricRow(name=name, direction=how, values=values, best=best_runs(values, how)))
    return Comparison(runs=list(runs), rows=rows, tracking_uri=tracking_uri)


def format_value(name: str, value: float | None) -> str:
    """Counts as integers, seconds with one decimal, deltas signed, other metrics with three decimals."""
    if value is None or math.isnan(value):
        return "—"
    scope, group, leaf = split_metric(name)
    if group == "count" or group.endswith("/count") or leaf in COUNTS:
        return f"{value:.0f}"
    if leaf.endswith("_s") or leaf.endswith("seconds"):
        return f"{value:+.1f}" if scope == "delta" else f"{value:.1f}"
    return f"{value:+.3f}" if scope == "delta" else f"{value:.3f}"


def render_table(comparison: Comparison) -> Any:
    """A ``rich.table.Table``: one row per metric, one column per run, best values bold with ``*``."""
    from rich.table import Table
    from rich.text import Text

    several = len({r.experiment for r in comparison.runs}) > 1
    experiments = ", ".join(sorted({r.experiment for r in comparison.runs}))
    table = Table(title=f"groundqa compare — {len(comparison.runs)} run(s) in {experiments}",
                  caption="* = best in row (bold; all equal: none); lower is better for over_abstention_rate, error_rate, "
                          "latency and time; counts and answer/abstain rates are not ranked")
    table.add_column("metric", style="bold", no_wrap=True)
    for run in comparison.runs:
        table.add_column(run.header(with_experiment=several), justify="right")
    previous_group: tuple[Any, ...] | None = None
    for row in comparison.rows:
        group = sort_key(row.name)[:2]
        if previous_group is not None and group != previous_group:
            table.add_section()
        previous_group = group
        cells = []
        for run in comparison.runs:
            text = format_value(row.name, row.values.get(run.run_id))
            # the star goes in front: right-justified numbers stay aligned (rich trims trailing spaces)
            cells.append(Text(f"* {text}", style="bold") if run.run_id in row.best else Text(text))
        name_style = "dim" if row.direction == "none" else None
        table.add_row(Text(row.name + (" ↓" if row.direction == "lower" else ""), style=name_style or ""), *cells)
    return table


def table_text(comparison: Comparison, width: int = 200) -> str:
    """The table rendered as plain text (tests, logs)."""
    from rich.console import Console

    console = Console(width=width, record=True, color_system=None, file=_NullIO())
    console.print(render_table(comparison))
    return console.export_text()


class _NullIO:
    def write(self, _: str) -> int:
        return 0

    def flush(self) -> None:
        pass
