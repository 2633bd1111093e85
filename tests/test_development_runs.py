"""scripts/development_runs.py: the loop every rule is measured with.

The copy of the tree it runs must import its *own* rules: the editable install maps ``groundqa.programs`` to the
checkout's ``programs/``, so a copy that only went first on ``sys.path`` ran the checkout's rules whatever revision
it was unpacked from (session 48 found a baseline and a variant that were the same code that way).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("development_runs", ROOT / "scripts" / "development_runs.py")
assert _spec and _spec.loader
development_runs = importlib.util.module_from_spec(_spec)
sys.modules["development_runs"] = development_runs
_spec.loader.exec_module(development_runs)


def test_the_sixty_five_development_files() -> None:
    files = development_runs.development_files()
    assert len(files) == 65
    assert all(f.questions.exists() and f.corpus.exists() for f in files)
    held_out = {"dev.jsonl", "test.jsonl"}
    assert not {f.questions.name for f in files} & held_out  # never an evaluation split


def test_a_copy_imports_its_own_rules(tmp_path: Path) -> None:
    try:
        subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    tree = tmp_path / "tree"
    tree.mkdir()
    development_runs.unpack("HEAD", tree)
    rules = development_runs.imported_rules(tree, tmp_path / "home")
    assert rules.resolve() == (tree / "programs").resolve()
    assert rules.resolve() != (ROOT / "programs").resolve()


def _report(folder: Path, name: str, records: list[dict]) -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps({"records": records}), encoding="utf-8")


def _record(qid: str, kind: str, should_abstain: bool, refused: bool, correctness: float) -> dict:
    return {"id": qid, "type": kind, "question": f"question {qid}?", "answer": "" if refused else "an answer",
            "abstain_reason": "not_answered" if refused else "",
            "scores": {"should_abstain": should_abstain, "correctness": correctness}}


def test_compare_counts_a_refusal_where_due_or_a_correct_answer(tmp_path: Path) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    _report(before, "valley", [_record("q1", "single", False, True, 0.0),     # refused, answerable: wrong
                               _record("q2", "multi", False, False, 0.8),     # answered right
                               _record("q3", "unanswerable", True, True, 0.0)])  # refused, as due
    _report(after, "valley", [_record("q1", "single", False, False, 0.5),     # now answered right: won
                              _record("q2", "multi", False, False, 0.4),      # now wrong: lost
                              _record("q3", "unanswerable", True, False, 0.0)])  # answered, should refuse: lost
    text = development_runs.compare(before, after)
    assert "right: 2 -> 1" in text
    assert "multi-hop right: 1 -> 0 of 1" in text
    assert text.endswith("+1 -2")
    assert "won  valley q1 (single)" in text and "lost valley q3 (unanswerable)" in text


def test_summary_splits_the_misses_by_type(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _report(run, "valley", [_record("q1", "single", False, True, 0.0),       # refused, answerable
                            _record("q2", "single", False, False, 0.2),      # answered wrongly
                            _record("q3", "single", False, False, 0.9),      # right
                            _record("q4", "unanswerable", True, False, 0.0)])  # answered, should refuse
    lines = development_runs.summary(run).splitlines()
    assert lines[1].split() == ["single", "3", "1", "1", "1"]
    assert lines[2].split() == ["unanswerable", "1", "0", "0", "1"]
    assert lines[3].split() == ["all", "4", "1"]
