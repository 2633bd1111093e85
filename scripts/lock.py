"""Write ``requirements.lock``: the tested environment, every package pinned with its sha256.

Why: ``pyproject.toml`` states ranges (with upper bounds on the fast-moving packages); the lock
states the exact files the test suite last passed with, so ``make install`` on a fresh machine
gets those files or fails loudly (``pip install --require-hashes``), never a silently newer release.

How: pip resolves ``.[dev]`` plus the CPU build of torch in a dry run, constrained to the versions
installed in the current virtual environment (``pip freeze``), and reports the file it would fetch
for each, with its hash. The lock is for the platform it was written on (CPython 3.11, Linux
x86_64, as in CI). Re-run it after changing dependencies: ``make lock``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TORCH = "torch==2.13.0"  # the CPU build, from the find-links wheel folder (see the Makefile)


def locked_lines(report: dict) -> list[str]:
    """``name==version --hash=sha256:...`` for every package pip would install, sorted by name."""
    lines = []
    for item in report["install"]:
        meta = item["metadata"]
        if meta["name"] == "groundqa":  # the project itself is installed editable, after the lock
            continue
        hashes = item["download_info"].get("archive_info", {}).get("hashes", {})
        if "sha256" not in hashes:
            raise SystemExit(f"lock: pip reported no sha256 for {meta['name']} {meta['version']}")
        lines.append(f"{meta['name']}=={meta['version']} \\\n    --hash=sha256:{hashes['sha256']}")
    return sorted(lines, key=str.lower)


def main() -> int:
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        constraints = Path(tmp) / "installed.txt"
        frozen = subprocess.run([python, "-m", "pip", "freeze", "--exclude-editable"], check=True,
                                capture_output=True, text=True).stdout
        constraints.write_text(frozen)
        report_path = Path(tmp) / "report.json"
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--dry-run", "--ignore-installed",
                        "--report", str(report_path), "-c", str(constraints), TORCH, "-e", f"{ROOT}[dev]"],
                       check=True)
        report = json.loads(report_path.read_text())
    env = report.get("environment", {})
    header = [
        "# The tested environment, every file pinned by hash. Written by `make lock` (scripts/lock.py);",
        "# installed by `make install` with `pip install --require-hashes`. Do not edit by hand.",
        f"# platform: {env.get('implementation_name', '?')} {env.get('python_full_version', '?')}, "
        f"{env.get('sys_platform', '?')} {env.get('platform_machine', '?')}",
        "",
    ]
    lines = locked_lines(report)
    (ROOT / "requirements.lock").write_text("\n".join(header + lines) + "\n")
    print(f"lock: {len(lines)} packages written to requirements.lock", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
