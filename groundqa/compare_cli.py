"""``groundqa compare``: logged runs side by side (table, PNG chart, JSON) and prompt/demo diffs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

EPILOG = """examples:
  groundqa compare                          the 5 newest runs of every groundqa-* experiment
  groundqa compare --experiment bundled --last 3
  groundqa compare --runs bootstrap-142233 mipro-150102 --png runs.png
  groundqa compare --json --no-png
  groundqa compare --diff bootstrap-142233 mipro-150102
  groundqa compare --diff baseline artifacts/bundled-bootstrap-20250101-120000
"""


def register(sub: Any, common: Any) -> None:
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

    from groundqa.cli import settings_from
    from groundqa.compare import (
        build_comparison,
        find_experiments,
        open_client,
        plot_comparison,
        render_table,
        select_runs,
    )

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


def _baseline_source(settings: Any) -> Any:
    """The uncompiled GroundedQA for ``settings.lm`` (no demos), as a program source."""
    import tempfile

    from groundqa.compare import ProgramSource
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig
    from groundqa.programs.persistence import save_program

    with tempfile.TemporaryDirectory() as tmp:
        path = save_program(GroundedQA(None, QAConfig.for_lm(settings.lm)), tmp)  # type: ignore[arg-type]
        return ProgramSource(label=f"baseline (uncompiled GroundedQA for lm {settings.lm})",
                             state=json.loads(path.read_text(encoding="utf-8")))


def _cmd_diff(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.text import Text

    from groundqa.cli import settings_from
    from groundqa.compare import (
        diff_programs,
        diff_to_dict,
        find_experiments,
        format_diff,
        load_program_source,
        open_client,
    )

    settings = settings_from(args)
    cache: dict[str, Any] = {}

    def client_factory() -> tuple[Any, list[Any]]:
        if "client" not in cache:
            cache["client"] = open_client(settings)
            cache["experiments"] = find_experiments(cache["client"], args.experiment)
        return cache["client"], cache["experiments"]

    sources = []
    for ref in args.diff:
        if ref == "baseline" and not Path(ref).exists():
            sources.append(_baseline_source(settings))
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
