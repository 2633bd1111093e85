"""Count what a new user meets on a corpus: the figures the workbench README records for a first look.

``python benchmarks/first_look.py REPORT.json ...`` reads reports written by ``groundqa evaluate ... --json``
and prints, per report: the composite, answerable questions answered / answered correctly (correctness >= 0.5)
/ refused, should-refuse questions refused, and multi-hop questions whose answer holds a gold answer (STR-EM).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def first_look(path: Path) -> str:
    """One line of counts for the evaluation report at ``path``."""
    report = json.loads(path.read_text(encoding="utf-8"))
    records = report["records"]
    answerable = [r for r in records if not r["scores"]["should_abstain"]]
    refusable = [r for r in records if r["scores"]["should_abstain"]]
    answered = [r for r in answerable if not r["abstain_reason"]]
    correct = [r for r in answered if (r["scores"].get("correctness") or 0) >= 0.5]
    multi = [r for r in records if r["type"] == "multi"]
    bridged = [r for r in multi if not r["abstain_reason"] and (r["scores"].get("str_em") or 0) >= 0.5]
    composite = report["metrics"]["overall"]["metrics"]["score"]
    return (f"{path}: composite {composite:.3f}; answerable: answered {len(answered)}/{len(answerable)}, correct "
            f"{len(correct)}/{len(answerable)}, refused {len(answerable) - len(answered)}/{len(answerable)}; "
            f"should-refuse refused {sum(1 for r in refusable if r['abstain_reason'])}/{len(refusable)}; "
            f"multi-hop {len(bridged)}/{len(multi)}")


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python benchmarks/first_look.py REPORT.json ...", file=sys.stderr)
        return 2
    for name in argv:
        try:
            print(first_look(Path(name)))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"first_look: {name}: not an evaluation report ({exc.__class__.__name__}: {exc})", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
