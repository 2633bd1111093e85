"""Entry point: ``python -m benchmarks run --suite <suite>|peers|all [--quick] [--out DIR]``.

Each suite writes ``<out>/<suite>.json``, ``<out>/<suite>.md`` and, when it has a chart,
``<out>/<suite>.png``; the Markdown table is printed to stdout too.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before litellm is imported (groundqa/__init__.py)

from benchmarks.registry import DEFAULT_OUT, GROUPS, TARGET_S, load_suites  # noqa: E402
from benchmarks.report import (  # noqa: E402
    code_roots,
    cpu_load,
    environment,
    mixed_trees,
    render_chart,
    render_markdown,
    render_summary,
)


def build_parser(suites: Sequence[str]) -> argparse.ArgumentParser:
    """The argument parser; ``suites`` are the registered suite names."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description="groundqa benchmarks")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one suite or all of them")
    run.add_argument(
        "--suite", default="all", choices=[*suites, *GROUPS, "all"],
        help="a suite, a group (" + ", ".join(f"{g} = {' + '.join(m)}" for g, m in GROUPS.items())
        + ") or all (default)",
    )
    run.add_argument("--quick", action="store_true", help="smaller sizes, for a check in a few minutes")
    run.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})")
    run.add_argument("--seed", type=int, default=13, help="seed of the synthetic data (default: 13)")
    run.add_argument("--n", type=int, default=None, help="size for suites that take one (fuzz: runs); default: the suite's")
    run.add_argument(
        "--wait-idle", type=float, default=0.0, metavar="MINUTES",
        help="before each suite, wait up to MINUTES for the 1-minute load average to fall below "
        "--idle-load (other processes on the machine skew the figures); default: do not wait",
    )
    run.add_argument("--idle-load", type=float, default=0.8, help="load average counted as idle (default: 0.8)")
    commands.add_parser("list", help="list the registered suites")
    return parser


def write_result(name: str, result: dict[str, Any], out: Path) -> list[Path]:
    """Write ``<out>/<name>.json``, ``.md`` and (with a chart) ``.png``; return the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / f"{name}.json", out / f"{name}.md"]
    written[0].write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    written[1].write_text(render_markdown(result), encoding="utf-8")
    if result.get("chart"):
        written.append(render_chart(result["chart"], out / f"{name}.png"))
    return written


def wait_for_idle(minutes: float, threshold: float = 0.8, poll_s: float = 10.0) -> float:
    """Wait up to ``minutes`` until the 1-minute load average is below ``threshold``; return the seconds waited."""
    started = time.monotonic()
    deadline = started + 60.0 * minutes
    while True:
        load = cpu_load()
        if load is None or load[0] < threshold:
            break
        if time.monotonic() >= deadline:
            print(f"machine still busy (load {load[0]:.2f}); running anyway", file=sys.stderr)
            break
        print(f"waiting for an idle machine (load {load[0]:.2f})", file=sys.stderr)
        time.sleep(poll_s)
    return time.monotonic() - started


def run_suite(name: str, args: argparse.Namespace, command: str) -> dict[str, Any]:
    """Run one registered suite, complete its result with run facts and write its files."""
    suites = load_suites()
    if getattr(args, "wait_idle", 0.0):
        wait_for_idle(args.wait_idle, getattr(args, "idle_load", 0.8))
    mixed = mixed_trees(code_roots())
    if mixed:
        print(f"warning: {mixed}", file=sys.stderr)
    started = dt.datetime.now(dt.timezone.utc)
    load_start = cpu_load()
    clock = time.perf_counter()
    result = suites[name](args)
    result.setdefault("suite", name)
    result.setdefault("quick", bool(args.quick))
    result.setdefault("command", command)
    result["started"] = started.isoformat(timespec="seconds")
    result["seconds"] = round(time.perf_counter() - clock, 2)
    result["environment"] = {**environment(), "load_average_start": load_start, **result.get("environment", {})}
    paths = write_result(name, result, Path(args.out))
    print(render_markdown(result))
    print("wrote " + ", ".join(str(p) for p in paths), file=sys.stderr)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen suites; returns the process exit code."""
    suites = load_suites()
    args = build_parser(sorted(suites)).parse_args(argv)
    if args.command == "list":
        for name, fn in sorted(suites.items()):
            print(f"{name:12s} {(fn.__doc__ or '').strip().splitlines()[0] if fn.__doc__ else ''}")
        return 0
    names = sorted(suites) if args.suite == "all" else list(GROUPS.get(args.suite, [args.suite]))
    failed: list[str] = []
    results: list[dict[str, Any]] = []
    clock = time.perf_counter()
    for name in names:
        command = "python -m benchmarks run --suite " + name + (" --quick" if args.quick else "")
        if args.seed != 13:
            command += f" --seed {args.seed}"
        if args.n is not None:
            command += f" --n {args.n}"
        if Path(args.out).resolve() != DEFAULT_OUT:
            command += f" --out {shlex.quote(str(args.out))}"
        try:
            results.append(run_suite(name, args, command))
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # one failing suite must not hide the others' results
            print(f"suite {name!r} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            failed.append(name)
            if len(names) == 1:
                raise
    if len(names) > 1:
        write_summary(results, time.perf_counter() - clock, args, failed)
    return 1 if failed else 0


def write_summary(results: list[dict[str, Any]], seconds: float, args: argparse.Namespace,
                  failed: Sequence[str]) -> Path:
    """``<out>/summary.md`` and ``summary.json``: total time against the target and every headline."""
    command = "python -m benchmarks run --suite " + args.suite + (" --quick" if args.quick else "")
    target = TARGET_S[bool(args.quick)] if args.suite in GROUPS else None
    text = render_summary(results, seconds, bool(args.quick), command, failed, target)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.md").write_text(text + "\n", encoding="utf-8")
    summary = {"command": command, "seconds": round(seconds, 1), "quick": bool(args.quick), "failed": list(failed),
               "suites": {r.get("suite", "?"): {"seconds": r.get("seconds"), "headline": r.get("headline", [])}
                          for r in results}}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(text)
    print(f"wrote {out / 'summary.md'}", file=sys.stderr)
    return out / "summary.md"


if __name__ == "__main__":
    # On SIGTERM unwind normally, so temporary stores are deleted.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))
    sys.exit(main())
