"""``groundqa compare``: logged runs side by side (table, PNG chart, JSON) and prompt/demo diffs."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundqa.cli.common import settings_from
from groundqa.tracking.chart import plot_comparison
from groundqa.tracking.comparison import build_comparison, render_table
from groundqa.tracking.program_diff import (
    ProgramSource,
    baseline_source,
    diff_programs,
    diff_to_dict,
    format_diff,
    load_program_source,
)
from groundqa.tracking.runs import find_experiments, open_client, select_runs

EPILOG = """examples:
  groundqa compare                          the 5 newest runs of every groundqa-* experiment
  groundqa compare --experiment bundled --last 3
  groundqa compare --runs bootstrap-142233 mipro-150102 --png runs.png
  groundqa compare --json --no-png
  groundqa compare --diff bootstrap-142233 mipro-150102
  groundqa compare --diff baseline artifacts/bundled-bootstrap-20250101-120000
"""


def register(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("compare", help="compare logged runs (table + chart) or diff two compiled programs",
                       description="Compare MLflow runs of groundqa compiles/evaluations, or diff the "
                                   "instructions and demos of two compiled programs.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--experiment", help="experiment name, e.g. groundqa-bundled or bundled "
                                        "(default: every groundqa-* experiment)")
    pick = p.add_mutually_exclusive_group()
    pick.add_argument("--runs", nargs="+", metavar="ID_OR_NAME", help="run ids or names (a unique prefix of either also works)")
    pick.add_argument("--last", type=int, metavar="N", help="the N newest top-level runs (default 5)")
    pick.add_argument("--diff", nargs=2, metavar=("A", "B"),
                      help="diff two compiled programs: program.json files/folders, run ids/names, or 'baseline'")
    chart = p.add_mutually_exclusive_group()
    chart.add_argument("--png", type=Path, default=Path("compare.png"),
                       help="write the bar chart here (default ./compare.png)")
    chart.add_argument("--no-png", action="store_true", help="do not write the chart")
    p.add_argument("--json", action="store_true", help="print the comparison (or the diff) as JSON")
    p.add_argument("--all", action="store_true", help="also show per-type, macro and count metrics")
    p.add_argument("--metric", action="append", metavar="PATTERN",
                   help="only metrics matching this glob, e.g. '*citation*' (repeatable)")
    common(p)
    p.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    if args.diff:
        return _cmd_diff(args)
    from rich.console import Console

    settings = settings_from(args)
    client = open_client(settings)
    experiments = find_experiments(client, args.experiment)
    runs = select_runs(client, experiments, args.runs, args.last if args.last is not None else 5)
    comparison = build_comparison(runs, all_metrics=args.all, patterns=args.metric, tracking_uri=client.tracking_uri)
    png = None if args.no_png else plot_comparison(comparison, args.png)
    if args.json:
        print(json.dumps({**comparison.to_dict(), "png": str(png) if png else None}, indent=2))
    else:
        console = Console()
        if not console.is_terminal:
            console = Console(width=max(120, 34 + 26 * len(runs)))
        console.print(render_table(comparison))
        if not comparison.rows:
            print("no metrics match", file=sys.stderr)
    if png is not None:
        print(f"groundqa: chart written to {png}", file=sys.stderr)
    elif not args.no_png:
        print("groundqa: no headline metric to chart; no PNG written", file=sys.stderr)
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.text import Text

    settings = settings_from(args)
    cache: dict[str, Any] = {}

    def client_factory() -> tuple[Any, list[Any]]:
        if "client" not in cache:
            cache["client"] = open_client(settings)
            cache["experiments"] = find_experiments(cache["client"], args.experiment)
        return cache["client"], cache["experiments"]

    sources: list[ProgramSource] = []
    for ref in args.diff:
        if ref == "baseline" and not Path(ref).exists():
            sources.append(baseline_source(settings.lm))
        else:
            sources.append(load_program_source(ref, client_factory))
    a, b = sources
    diffs = diff_programs(a, b)
    if args.json:
        print(json.dumps(diff_to_dict(a, b, diffs), indent=2, ensure_ascii=False))
        return 0
    console = Console(highlight=False, soft_wrap=True)
    for line, style in format_diff(a, b, diffs):
        console.print(Text(line, style=style))
    return 0
