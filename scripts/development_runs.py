"""Run the development files at a git revision, and compare two such runs question by question.

Every rule is chosen on development data (``datasets/workbench/``: 51 question sets and 13 bridge sets; the bundled
train split); a change counts as +won −lost over those 65 files. This is the loop behind the "65 development files"
figures of docs/BENCHMARKS.md:

    python scripts/development_runs.py run HEAD~1 runs/before     # a commit, or "worktree" for the working tree
    python scripts/development_runs.py run worktree runs/after
    python scripts/development_runs.py compare runs/before runs/after
    python scripts/development_runs.py summary runs/after          # right / refused / wrong by question type

(``--only survey survey-bridges`` runs some of the files.)

``run`` unpacks the revision into a temporary folder and evaluates every file there with ``groundqa evaluate
--no-mlflow --json``, one report per file. The project is installed editable, and the editable install maps
``groundqa.programs`` (and signatures, metrics, datasets) to *this checkout's* top-level folders: a copy of the tree
that only put itself first on ``sys.path`` would still run the checkout's rules. The copy therefore links its own
folders inside its ``groundqa/`` package, and ``run`` checks that the rules it imports are the copy's.

A question counts as right when it is refused and should be, or answered (not refused) with correctness >= 0.5.
Runs share one project home (``--home``, default ``.groundqa-dev``) so the second run reads the first one's LM and
retrieval caches. Held-out data (bundled dev/test, SQuAD's held-out articles) is never run here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKBENCH = ROOT / "datasets" / "workbench"
BUNDLED_CORPUS = ROOT / "datasets" / "bundled" / "corpus.jsonl"
LINKED = ("programs", "signatures", "metrics", "datasets")


@dataclass(frozen=True)
class DevFile:
    """One development question file, its corpus and the report's name."""

    name: str
    questions: Path
    corpus: Path


def development_files() -> list[DevFile]:
    """The 65 development files: each workbench set, its bridge set where it has one, and bundled train."""
    files = []
    for folder in sorted(p for p in WORKBENCH.iterdir() if p.is_dir()):
        corpus = BUNDLED_CORPUS if folder.name == "bundled" else folder / "corpus.jsonl"
        files.append(DevFile(folder.name, folder / "questions.jsonl", corpus))
        if (folder / "bridges.jsonl").exists():
            files.append(DevFile(f"{folder.name}-bridges", folder / "bridges.jsonl", corpus))
    files.append(DevFile("train", ROOT / "datasets" / "bundled" / "train.jsonl", BUNDLED_CORPUS))
    return files


def unpack(rev: str, into: Path) -> None:
    """The tree at ``rev`` (or the working tree, tracked and untracked files git does not ignore, for "worktree")
    under ``into``, with its own rule folders linked inside its ``groundqa`` package. A tracked file deleted from the
    working tree is left out of its copy."""
    if rev == "worktree":
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                                capture_output=True).stdout
        tar = subprocess.run(["tar", "-c", "--ignore-failed-read", "--null", "-T", "-"], cwd=ROOT, input=listed,
                             check=True, capture_output=True).stdout
    else:
        tar = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)
    for folder in LINKED:
        link = into / "groundqa" / folder
        if not link.exists():
            link.symlink_to(Path("..") / folder)


def _environment(tree: Path, home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "GROUNDQA_HOME": str(home)}


def imported_rules(tree: Path, home: Path) -> Path:
    """Where ``groundqa.programs`` is imported from when run in ``tree``."""
    out = subprocess.run([sys.executable, "-c", "import groundqa.programs as p; print(p.__path__[0])"], cwd=tree,
                         env=_environment(tree, home), check=True, capture_output=True, text=True).stdout
    return Path(out.strip())


def run(rev: str, out: Path, home: Path, only: list[str] | None = None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="groundqa-dev-") as tmp:
        tree = Path(tmp)
        unpack(rev, tree)
        rules = imported_rules(tree, home)
        if rules.resolve() != (tree / "programs").resolve():
            print(f"development_runs: the copy imports its rules from {rules}, not from the copy", file=sys.stderr)
            return 1
        files = [f for f in development_files() if not only or f.name in only]
        if not files:
            print(f"development_runs: no development file is named {', '.join(only or [])}", file=sys.stderr)
            return 1
        failed = 0
        for number, dev in enumerate(files, 1):
            print(f"[{number}/{len(files)}] {dev.name}", file=sys.stderr, flush=True)
            command = [sys.executable, "-c", "import sys; from groundqa.cli.main import main; sys.exit(main())",
                       "evaluate", "--questions", str(dev.questions), "--corpus", str(dev.corpus), "--no-mlflow",
                       "--json", str(out.resolve() / f"{dev.name}.json")]
            with open(out / f"{dev.name}.log", "w", encoding="utf-8") as log:
                done = subprocess.run(command, cwd=tree, env=_environment(tree, home), stdout=log, stderr=log)
            if done.returncode != 0:
                failed += 1
                print(f"development_runs: {dev.name} failed (exit {done.returncode}; see {out / dev.name}.log)",
                      file=sys.stderr)
    return 1 if failed else 0


def right(record: dict) -> bool:
    """Whether a report record is right: refused where refusal is due, else answered with correctness >= 0.5."""
    scores = record["scores"]
    if scores["should_abstain"]:
        return bool(record["abstain_reason"])
    return not record["abstain_reason"] and (scores.get("correctness") or 0) >= 0.5


def load(folder: Path) -> dict[tuple[str, str], dict]:
    """Every record of every report in ``folder``, by (file, question id)."""
    records = {}
    for report in sorted(folder.glob("*.json")):
        for record in json.loads(report.read_text(encoding="utf-8"))["records"]:
            records[(report.stem, record.get("id") or record["question"])] = record
    return records


def compare(before: Path, after: Path) -> str:
    """Totals, multi-hop totals and every question that turned, as text."""
    a, b = load(before), load(after)
    common = [key for key in a if key in b]
    multi = [key for key in common if a[key]["type"] == "multi"]
    lines = [f"{len(common)} questions in both ({len({k[0] for k in common})} files)",
             f"right: {sum(right(a[k]) for k in common)} -> {sum(right(b[k]) for k in common)}",
             f"multi-hop right: {sum(right(a[k]) for k in multi)} -> {sum(right(b[k]) for k in multi)} of {len(multi)}"]
    for key in common:
        if right(a[key]) != right(b[key]):
            was = a[key]["abstain_reason"] or a[key]["answer"] or ""
            now = b[key]["abstain_reason"] or b[key]["answer"] or ""
            lines.append(f"{'won ' if right(b[key]) else 'lost'} {key[0]} {key[1]} ({b[key]['type']}): "
                         f"{b[key]['question']}\n     before: {was[:110]}\n     after:  {now[:110]}")
    won = sum(1 for k in common if right(b[k]) and not right(a[k]))
    lost = sum(1 for k in common if right(a[k]) and not right(b[k]))
    lines.append(f"+{won} -{lost}")
    return "\n".join(lines)


def summary(folder: Path) -> str:
    """Per question type: how many, how many right, and of the rest how many refused and how many answered wrongly
    (or answered where refusal was due)."""
    records = load(folder)
    lines = [f"{'type':<20} {'questions':>9} {'right':>6} {'refused':>8} {'answered':>9}"]
    for kind in sorted({r["type"] for r in records.values()}):
        of_kind = [r for r in records.values() if r["type"] == kind]
        missed = [r for r in of_kind if not right(r)]
        refused = sum(1 for r in missed if r["abstain_reason"])
        lines.append(f"{kind:<20} {len(of_kind):>9} {len(of_kind) - len(missed):>6} {refused:>8} "
                     f"{len(missed) - refused:>9}")
    lines.append(f"{'all':<20} {len(records):>9} {sum(right(r) for r in records.values()):>6}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    runs = commands.add_parser("run", help="evaluate the development files at a revision")
    runs.add_argument("rev", help='a git revision, or "worktree" for the working tree')
    runs.add_argument("out", type=Path, help="a folder for one report per file")
    runs.add_argument("--home", type=Path, default=ROOT / ".groundqa-dev", help="shared project home (caches)")
    runs.add_argument("--only", nargs="+", metavar="NAME", help="only these files (e.g. valley valley-bridges train)")
    compares = commands.add_parser("compare", help="compare two run folders question by question")
    compares.add_argument("before", type=Path)
    compares.add_argument("after", type=Path)
    summaries = commands.add_parser("summary", help="right, refused and wrong answers of one run by question type")
    summaries.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            return run(args.rev, args.out, args.home, args.only)
        folders = (args.folder,) if args.command == "summary" else (args.before, args.after)
        for folder in folders:
            if not any(folder.glob("*.json")):
                print(f"development_runs: {folder} holds no evaluation report", file=sys.stderr)
                return 1
        print(summary(args.folder) if args.command == "summary" else compare(args.before, args.after))
        return 0
    except subprocess.CalledProcessError as exc:
        detail = (exc.stderr or b"").decode(errors="replace").strip().splitlines()
        print(f"development_runs: {' '.join(map(str, exc.cmd[:3]))} failed: {detail[-1] if detail else exc}",
              file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError) as exc:
        print(f"development_runs: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
