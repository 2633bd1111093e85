"""scripts/program_time.py: GroundedQA's own time a question with warm caches, and whether any answer moved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from project_scripts import load_script


@pytest.fixture(scope="module")
def script():
    return load_script("program_time")


def test_timed_passes_and_the_answers_compared(script, home: Path, tmp_path: Path, capsys) -> None:
    answers = tmp_path / "answers.json"
    assert script.main(["--home", str(home), "--max-questions", "6", "--passes", "1", "--answers", str(answers)]) == 0
    out = capsys.readouterr().out
    assert "pass 1: " in out and "ms a question (6 questions, load " in out
    recorded = json.loads(answers.read_text(encoding="utf-8"))
    assert len(recorded) == 6 and all(len(value) == 2 for value in recorded.values())
    assert script.main(["--home", str(home), "--max-questions", "6", "--passes", "1", "--compare", str(answers)]) == 0
    assert "0 of 6 answers differ" in capsys.readouterr().out
    moved = {**recorded, next(iter(recorded)): ["another answer [1]", None]}
    answers.write_text(json.dumps(moved), encoding="utf-8")
    assert script.main(["--home", str(home), "--max-questions", "6", "--passes", "1", "--compare", str(answers)]) == 1
    assert "1 of 6 answers differ" in capsys.readouterr().out
