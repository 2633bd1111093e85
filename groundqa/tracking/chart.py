"""Charts as PNG (matplotlib, no display needed): the comparison of runs, the calibration curve and a
fine-tune's loss curve."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from groundqa.tracking.comparison import Comparison
from groundqa.tracking.runs import RunInfo

HEADLINE = (
    ("score", "composite\n(score)"),
    ("abstain_f1", "abstention F1"),
    ("citation_recall", "citation recall"),
    ("citation_precision", "citation precision"),
    ("str_em", "STR-EM"),
    ("token_f1", "token F1"),
    ("faithfulness", "faithfulness"),
)
"""Chart candidates in order; the first :data:`MAX_CHART_METRICS` that some run has are drawn."""
MAX_CHART_METRICS = 5


def headline_values(run: RunInfo, leaf: str) -> tuple[float | None, float | None]:
    """(value, baseline) drawn for a run: a compile's compiled/ and baseline/, an evaluation's dev/."""
    m = run.metrics
    if run.kind == "compile":
        return m.get(f"compiled/{leaf}"), m.get(f"baseline/{leaf}")
    return m.get(f"dev/{leaf}", m.get(leaf)), None


def plot_comparison(comparison: Comparison, path: str | Path, title: str | None = None) -> Path | None:
    """Grouped bars of the headline metrics per run, written as PNG; ``None`` when no run has any.

    A compile run's bar is its compiled value; a black tick marks its baseline value.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    runs = comparison.runs
    chosen = [(leaf, label) for leaf, label in HEADLINE
              if any(headline_values(r, leaf)[0] is not None for r in runs)][:MAX_CHART_METRICS]
    if not chosen or not runs:
        return None
    n_runs, n_metrics = len(runs), len(chosen)
    bar_w = 0.8 / n_runs
    legend_cols = 1 if n_runs > 3 else 2
    legend_rows = math.ceil((n_runs + 1) / legend_cols)
    width = min(14.0, max(8.0, 1.2 + n_metrics * (0.6 + 0.4 * n_runs)))
    fig = Figure(figsize=(width, 4.8 + 0.2 * legend_rows), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    palette = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C",
               "#CCB974", "#64B5CD"]
    rotate = n_runs > 3
    has_baseline = False
    for i, run in enumerate(runs):
        color = palette[i % len(palette)]
        for j, (leaf, _) in enumerate(chosen):
            value, baseline = headline_values(run, leaf)
            x = j - 0.4 + bar_w * (i + 0.5)
            if value is None:
                ax.text(x, 0.01, "n/a", ha="center", va="bottom", fontsize=7, color="#777777", rotation=90)
                continue
            ax.bar(x, value, width=bar_w * 0.92, color=color)
            top_of = max(value, baseline) if baseline is not None else value  # keep the label off the tick
            ax.annotate(f"{value:.2f}", (x, top_of), xytext=(0, 3), textcoords="offset points", ha="center",
                        va="bottom", fontsize=7 if rotate else 8, rotation=90 if rotate else 0)
            if baseline is not None:
                has_baseline = True
                ax.hlines(baseline, x - bar_w * 0.46, x + bar_w * 0.46, colors="black", linewidth=2)
    ax.set_xticks(range(n_metrics), [label for _, label in chosen], fontsize=10)
    top = max([1.0] + [v for r in runs for leaf, _ in chosen for v in headline_values(r, leaf) if v is not None])
    ax.set_ylim(0, top * (1.18 if rotate else 1.1))
    ax.set_ylabel("value (higher is better)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    experiments = ", ".join(sorted({r.experiment for r in runs}))
    ax.set_title(title or f"groundqa compare — {experiments}", fontsize=12)
    handles = [Patch(color=palette[i % len(palette)], label=run.label()) for i, run in enumerate(runs)]
    if has_baseline:
        handles.append(Line2D([], [], color="black", linewidth=2, label="baseline of a compile run (its bar: compiled)"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=legend_cols,
              fontsize=8, frameon=False)
    fig.tight_layout()
    path = Path(path)
    if path.parent != Path(""):
        path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", bbox_inches="tight")
    return path


@contextlib.contextmanager
def _curve_chart(path: str | Path, title: str, xlabel: str, ylabel: str, legend: str) -> Iterator[Any]:
    """The axes of one curve chart (7.5 × 4.2 in, grid, legend at ``legend``), saved to ``path`` as a PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 4.2), dpi=110)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot(1, 1, 1)
    yield ax
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc=legend)
    ax.grid(alpha=0.3)
    figure.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)


def plot_calibration(report: Any, path: str | Path) -> Path | None:
    """The calibration's optimisation curve as a PNG: each trial's fit score and the best so far, with the
    starting gates' fit and check scores; ``None`` when no trial ran."""
    if not report.trials:
        return None
    title = f"gate calibration: kept the {report.kept} gates ({report.n_fit} fit / {report.n_check} check questions)"
    with _curve_chart(path, title, "trial", "mean grounding metric", "lower right") as ax:
        steps = [t.number for t in report.trials]
        ax.scatter(steps, [t.score for t in report.trials], s=12, color="#8aa6c1", label="trial (fit set)")
        ax.plot(steps, report.curve, color="#1f4e79", linewidth=2, label="best so far")
        if report.fit_start is not None:
            ax.axhline(report.fit_start, color="grey", linestyle="--", linewidth=1, label="starting gates (fit)")
        if report.check_best is not None and report.check_start is not None:
            ax.axhline(report.check_best, color="#2e7d32", linestyle=":", linewidth=1.5, label="best on check set")
            ax.axhline(report.check_start, color="#c62828", linestyle=":", linewidth=1.5, label="start on check set")
    return Path(path)


def plot_losses(losses: list[float], path: str | Path, window: int = 20) -> Path | None:
    """A fine-tune's training loss per step and its moving average as a PNG; ``None`` without steps."""
    if not losses:
        return None
    title = f"LoRA fine-tune of the embedded LM ({len(losses)} steps)"
    with _curve_chart(path, title, "optimizer step", "loss on the answer tokens", "upper right") as ax:
        steps = list(range(1, len(losses) + 1))
        ax.scatter(steps, losses, s=6, color="#8aa6c1", label="loss of one example")
        recent = [losses[max(0, i - window + 1): i + 1] for i in range(len(losses))]
        ax.plot(steps, [sum(r) / len(r) for r in recent], color="#1f4e79", linewidth=2,
                label=f"mean of the last {window}")
    return Path(path)
