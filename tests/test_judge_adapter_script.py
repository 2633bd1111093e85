"""scripts/judge_adapter.py: the answer judge's training pairs come from the program's own candidates (session 20)."""

from __future__ import annotations

from pathlib import Path

import pytest
from project_scripts import load_script

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def script():
    return load_script("judge_adapter")


def test_candidates_read_development_sets_only_and_every_validation_corpus(script):
    sources = script.candidate_sources()
    names = {name for name, _, _ in sources}
    assert set(script.VALIDATION) <= names and set(script.SELECTION) < set(script.VALIDATION)
    assert not set(script.KEPT_FRESH) & names  # written after the shipped judge: unseen by any judge
    read = {path.resolve() for _, corpus, questions in sources for path in (corpus, questions)}
    assert all(path.is_file() for path in read)
    bundled = ROOT / "datasets/bundled"
    assert (bundled / "train.jsonl").resolve() in read
    assert not {(bundled / "dev.jsonl").resolve(), (bundled / "test.jsonl").resolve()} & read  # evaluation splits


def test_auc_counts_ties_half(script):
    assert script._auc([2.0, 3.0], [1.0]) == 1.0
    assert script._auc([1.0], [1.0, 2.0]) == 0.25


def test_candidates_label_the_gold_sentence_yes_and_keep_the_nearest_misses(script, home, monkeypatch):
    from groundqa.datasets.loaders import load_corpus, load_questions_jsonl
    from groundqa.judges.answer_judge import judge_prompt

    monkeypatch.setenv("GROUNDQA_HOME", str(home))
    folder = ROOT / "datasets/workbench/valley"
    docs = load_corpus(folder / "corpus.jsonl").items
    questions = [q for q in load_questions_jsonl(folder / "questions.jsonl").items
                 if q.type in ("single", "unanswerable")][:6]
    rows = script._candidates("valley", docs, questions, negatives=2, others=1)
    by_question: dict[str, list[dict]] = {}
    for row in rows:
        by_question.setdefault(row["question_id"], []).append(row)
        assert row["prompt"].endswith("Does the text answer the question? Answer:")
    answers = {f"valley/{q.id}": q for q in questions}
    for qid, group in by_question.items():
        q = answers[qid]
        yes = [r for r in group if r["label"]]
        assert not (q.should_abstain and yes)  # an unanswerable question has no yes
        assert all(any(a.lower() in r["prompt"].lower() for a in q.answers) for r in yes)
        assert len(group) - len(yes) <= 3  # 2 nearest misses + 1 the rules pass over
    assert any(r["label"] for r in rows) and any(not r["label"] for r in rows)
    assert judge_prompt("T", "", "s", "q?") == script.judge_prompt("T", "", "s", "q?")  # one prompt for both
    every = script._candidates("valley", docs, questions[:2], negatives=None)
    assert len(every) >= len([r for r in rows if r["question_id"] in {f"valley/{q.id}" for q in questions[:2]}])
