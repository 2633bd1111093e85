"""How benchmark results read: figures, Markdown tables and reports, bar charts, the machine they ran on.

Kept apart from the suites so that every suite formats its numbers the same way and the runner
(:mod:`benchmarks.__main__`) can write any suite's result dict (see :mod:`benchmarks.registry` for
its keys) without knowing the suite.
"""

from __future__ import annotations

import math
import os
import platform
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def fmt(value: Any) -> str:
    """A figure for a table: 3 significant digits for small numbers, thousands separators for large."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return "–"
        magnitude = abs(value)
        if magnitude >= 1000:
            return f"{value:,.0f}"
        if magnitude >= 100:
            return f"{value:.0f}"
        if magnitude >= 10:
            return f"{value:.1f}"
        if magnitude >= 1:
            return f"{value:.2f}"
        if magnitude == 0:
            return "0"
        return f"{value:.3f}"
    return str(value)


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table; numbers are right-aligned and formatted with :func:`fmt`."""
    numeric = [
        all(isinstance(row[i], (int, float)) or row[i] is None for row in rows) if rows else False
        for i in range(len(columns))
    ]
    lines = [
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---:" if num else "---" for num in numeric) + "|",
    ]
    for row in rows:
        lines.append("| " + " | ".join(fmt(cell).replace("|", "\\|") for cell in row) + " |")
    return "\n".join(lines)


def _load(values: Any) -> str:
    return fmt(float(values[0])) if values else "?"


def render_markdown(result: dict[str, Any]) -> str:
    """The Markdown report of one suite result: heading, command, tables and notes."""
    parts = [f"## {result.get('title', result.get('suite', 'benchmark'))}", ""]
    env = result.get("environment", {})
    if result.get("command"):
        parts += [f"Command: `{result['command']}`", ""]
    if env:
        parts += [
            f"Machine: {env.get('cpus', '?')} CPU cores, {env.get('platform', '')}, "
            f"Python {env.get('python', '')}; run took {fmt(float(result.get('seconds', 0.0)))} s; "
            f"load average at start {_load(env.get('load_average_start'))}, at end {_load(env.get('load_average'))}."
            + (f" CPU: {env['cpu_model']}" if env.get("cpu_model") else "")
            + (f"; llama.cpp built for {env['llama_cpp_cpu']}." if env.get("llama_cpp_cpu") else "")
            + (f" Answer judge: {env['answer_judge']}." if env.get("answer_judge") else ""),
            "",
        ]
    for table in result.get("tables", []):
        if table.get("title"):
            parts += [f"### {table['title']}", ""]
        parts += [markdown_table(table["columns"], table["rows"]), ""]
    notes = result.get("notes", [])
    if notes:
        parts += [f"- {note}" for note in notes] + [""]
    return "\n".join(parts)


def render_summary(results: Sequence[dict[str, Any]], seconds: float, quick: bool, command: str,
                   failed: Sequence[str] = (), target_s: float | None = None) -> str:
    """The Markdown summary of several suites run by one command: time per suite and headlines."""
    total = f"Total wall time {seconds / 60:.1f} min for {len(results)} suite(s)"
    if target_s is not None:
        verdict = "MET" if seconds < target_s and not failed else "MISSED"
        total += f" — target under {target_s / 60:.0f} min{' (quick)' if quick else ''}: {verdict}"
    parts = [
        "## Benchmark summary", "",
        f"Command: `{command}`", "",
        total + "." + (f" Failed: {', '.join(failed)}." if failed else ""), "",
    ]
    rows = []
    for result in results:
        lines = result.get("headline") or [t.get("title", "") for t in result.get("tables", [])[:1]]
        rows.append([result.get("suite", "?"), round(float(result.get("seconds", 0.0)), 1), "; ".join(lines)])
    parts += [markdown_table(["Suite", "Seconds", "Headline"], rows), ""]
    return "\n".join(parts)


def _draw_panel(ax: Any, chart: dict[str, Any]) -> None:
    series: dict[str, dict[str, float]] = chart["series"]
    categories: list[str] = list(dict.fromkeys(c for values in series.values() for c in values))
    width = 0.8 / max(1, len(series))
    for i, (label, values) in enumerate(series.items()):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(categories))]
        heights = [float(values.get(c) or 0.0) for c in categories]
        bars = ax.bar(xs, heights, width=width, label=label)
        ax.bar_label(bars, labels=[fmt(h) if h else "" for h in heights], fontsize=7, padding=1)
    ax.set_xticks(range(len(categories)), categories, fontsize=8)
    ax.set_ylabel(chart.get("ylabel", ""))
    ax.set_title(chart.get("title", ""), fontsize=10)
    if chart.get("log"):
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: fmt(float(value))))
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.margins(y=0.12)
    if len(series) > 1:
        ax.legend(fontsize=7)


def render_chart(chart: dict[str, Any] | list[dict[str, Any]], path: Path) -> Path:
    """Draw ``chart`` to ``path``: grouped bars (one group per category, one bar per series).

    A list of chart specs is drawn as panels side by side.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = chart if isinstance(chart, list) else [chart]
    widths = [max(4.5, 1.3 * len({c for v in p["series"].values() for c in v}) + 2) for p in panels]
    fig, axes = plt.subplots(1, len(panels), figsize=(sum(widths), 4.4), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        _draw_panel(ax, panel)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def cpu_load() -> list[float] | None:
    """The 1/5/15-minute load averages (other processes on the machine skew the figures)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on every platform
        return None


def environment() -> dict[str, Any]:
    """What the figures were measured on."""
    info: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "platform": platform.platform(terse=True),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "load_average": cpu_load(),
    }
    for package in ("chromadb", "dspy", "torch", "sentence_transformers", "llama_cpp"):
        module = sys.modules.get(package)
        if module is not None:
            info[package] = getattr(module, "__version__", "?")
    info["cpu_model"] = cpu_model()
    info["code"] = code_roots()
    if "llama_cpp" in sys.modules:
        info["llama_cpp_cpu"] = llama_cpp_features()
    if "groundqa.judges.answer_judge" in sys.modules:
        from groundqa.judges.answer_judge import loaded_judges

        info["answer_judge"] = "; ".join(loaded_judges()) or None
    return info


def code_roots() -> dict[str, str]:
    """Where ``groundqa`` and the packages it maps from the project's top level (``groundqa.programs``, …) were
    imported from: an editable install's import finder serves those from the tree it was installed from, so a second
    checkout run with ``python -m benchmarks`` can measure its own core with another tree's rules."""
    import importlib

    roots: dict[str, str] = {}
    for name in ("groundqa", "groundqa.programs", "groundqa.signatures", "groundqa.metrics", "groundqa.datasets"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        roots[name] = str(Path(module.__file__ or "").resolve().parent)
    return roots


def mixed_trees(roots: dict[str, str]) -> str | None:
    """A one-line warning when ``roots`` (:func:`code_roots`) come from more than one tree, else ``None``: each
    subpackage sits inside ``groundqa`` (an installed copy) or beside it (the project's layout)."""
    core = roots.get("groundqa")
    if core is None:
        return None
    homes = {Path(core), Path(core).parent}
    strays = [f"{name} from {path}" for name, path in roots.items()
              if name != "groundqa" and Path(path).parent not in homes]
    if not strays:
        return None
    return f"groundqa is imported from {core} but {', '.join(strays)}: the figures would mix two trees"


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), or the platform's processor string."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def llama_cpp_features() -> str:
    """The instruction sets llama.cpp was built for (:func:`groundqa.lm.embedded.llama_cpp_build`, less the
    version): another build rounds otherwise, so a judgment near a threshold may differ between machines."""
    from groundqa.lm.embedded import llama_cpp_build

    return llama_cpp_build().partition(" ")[2]


def rendered_result(
    title: str,
    results: dict[str, Any],
    tables: Callable[[dict[str, Any]], list[dict[str, Any]]],
    notes: Callable[[dict[str, Any]], list[str]],
    chart: Callable[[dict[str, Any]], Any],
    headline: Callable[[dict[str, Any]], list[str]],
) -> dict[str, Any]:
    """The result dict of a suite whose module renders its ``results`` with one function per part.

    ``results["config"]`` becomes the config; the runner's keys are added by the runner.
    """
    return {
        "title": title,
        "config": results["config"],
        "results": results,
        "tables": tables(results),
        "notes": notes(results),
        "chart": chart(results),
        "headline": headline(results),
    }
