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


def test_perturbed_questions_swap_what_the_gold_sentence_says(script):
    """SQuAD 2.0's way of writing unanswerable questions, applied to a training question: each swap puts in a word the
    gold sentence does not hold, in place of one it does."""
    import random

    from groundqa.judges.lexical import features

    sentence = "In 1887 Galileo Ferrant built the first iron bridge over the river at Corvenna."
    question = "In which town did Galileo Ferrant build the first iron bridge in 1887?"
    names = ["Isaac Newton", "Galileo Marchetti", "Tessaul"]
    words = ["fridge", "ridge", "stone"]
    swaps = script.perturbed_questions(question, sentence, names, words, 10, random.Random(0))
    kinds = {how for _, how in swaps}
    assert {"name", "antonym", "year", "word"} <= kinds
    said = features(sentence).tokens
    for text, how in swaps:
        assert text != question
        new = features(text).tokens - features(question).tokens
        assert new and not new & said, (how, text)  # what it puts in, the sentence never says
    by_kind = dict((how, text) for text, how in swaps)
    assert "Isaac Newton" in by_kind["name"]  # "Galileo Marchetti" shares a word with the question: never drawn
    assert "last" in by_kind["antonym"]  # the contradiction table's opposite of "first"
    assert "1887" not in by_kind["year"]
    assert "fridge" in by_kind["word"] or "ridge" in by_kind["word"]  # a word of the same ending as "bridge"
    fewer = script.perturbed_questions(question, sentence, names, words, 2, random.Random(0))
    assert len(fewer) == 2 and all(how != "word" for _, how in fewer)  # SQuAD's kinds of swap before a random word


def test_perturbed_questions_leave_how_questions_and_asked_words_alone(script):
    import random

    sentence = "The tunnel is 742 metres long."
    words = ["strong", "funnel"]  # "strong" ends as "long" does, "funnel" as "tunnel"
    swaps = script.perturbed_questions("How long is the tunnel?", sentence, [], words, 10, random.Random(0))
    assert all("short" not in text for text, _ in swaps)  # "how short" asks the same length
    assert ("How long is the funnel?", "word") in swaps  # a content word is swapped for one of the same ending
    # "long" says what is asked: never swapped, though "strong" ends alike
    assert script.perturbed_questions("How long is it?", "It is 742 metres long.", [], words, 10, random.Random(0)) == []
