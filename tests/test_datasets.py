"""Tests for the bundled question sets, the JSONL/folder loaders and the SQuAD 2.0 loader."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from groundqa.datasets.bundled import (
    SPLITS,
    bundled_corpus_path,
    bundled_split_path,
    load_bundled,
)
from groundqa.datasets.loaders import (
    Document,
    Question,
    load_corpus_jsonl,
    load_questions_jsonl,
    load_text_folder,
)
from groundqa.datasets.squad import SquadFormatError, default_squad2_path, load_squad2, slugify

MIN_PER_TYPE = {
    "single": 60,
    "multi": 30,
    "unanswerable": 25,
    "false_premise": 25,
    "negative_existence": 20,
    "time_shift": 20,
    "cross_entity": 20,
    "off_corpus": 15,
    "bad_input": 5,
}
ANSWERABLE_TYPES = {"single", "multi"}
SQUAD_REAL = default_squad2_path(Path(__file__).resolve().parents[1])


# --------------------------------------------------------------------------- bundled data


@pytest.fixture(scope="module")
def corpus() -> dict[str, Document]:
    report = load_corpus_jsonl(bundled_corpus_path())
    assert report.errors == []
    return {doc.id: doc for doc in report.items}


@pytest.fixture(scope="module")
def splits() -> dict[str, list[Question]]:
    out: dict[str, list[Question]] = {}
    for split in SPLITS:
        report = load_questions_jsonl(bundled_split_path(split))
        assert report.errors == [], [str(e) for e in report.errors]
        out[split] = report.items
    return out


@pytest.fixture(scope="module")
def all_questions(splits: dict[str, list[Question]]) -> list[Question]:
    return [q for split in SPLITS for q in splits[split]]


def _hit(answer: str, docs: list[Document]) -> bool:
    return any(answer.lower() in doc.text.lower() for doc in docs)


def test_corpus_size_and_document_lengths(corpus: dict[str, Document]) -> None:
    assert len(corpus) >= 45
    for doc in corpus.values():
        words = len(doc.text.split())
        assert 80 <= words <= 250, f"{doc.id}: {words} words"
        assert doc.title.strip(), doc.id


def test_every_split_loads_without_errors(splits: dict[str, list[Question]]) -> None:
    for split in SPLITS:
        assert splits[split], split


def test_counts_per_type_meet_minimums(all_questions: list[Question]) -> None:
    counts = Counter(q.type for q in all_questions)
    assert set(counts) == set(MIN_PER_TYPE), counts
    for qtype, minimum in MIN_PER_TYPE.items():
        assert counts[qtype] >= minimum, (qtype, counts[qtype])
    assert len(all_questions) >= 210


def test_every_type_in_every_split_and_split_sizes(splits: dict[str, list[Question]]) -> None:
    total = sum(len(items) for items in splits.values())
    for split in SPLITS:
        assert {q.type for q in splits[split]} == set(MIN_PER_TYPE), split
    assert 0.35 <= len(splits["train"]) / total <= 0.45
    assert 0.25 <= len(splits["dev"]) / total <= 0.35
    assert 0.25 <= len(splits["test"]) / total <= 0.35


def test_ids_unique_across_splits(all_questions: list[Question]) -> None:
    ids = [q.id for q in all_questions]
    duplicates = [i for i, n in Counter(ids).items() if n > 1]
    assert duplicates == []


def test_gold_docs_exist(corpus: dict[str, Document], all_questions: list[Question]) -> None:
    missing = [(q.id, d) for q in all_questions for d in q.gold_docs if d not in corpus]
    assert missing == []


def test_answers_appear_verbatim_in_gold_docs(
    corpus: dict[str, Document], all_questions: list[Question]
) -> None:
    for q in all_questions:
        if q.type not in ANSWERABLE_TYPES:
            continue
        docs = [corpus[d] for d in q.gold_docs]
        assert q.answers, q.id
        assert len(q.answers) <= 3, q.id
        # The first answer is the canonical span; later ones are aliases (e.g. "twelve" / "12").
        assert _hit(q.answers[0], docs), (q.id, q.answers)


def test_abstention_consistent_with_type(corpus: dict[str, Document], all_questions: list[Question]) -> None:
    for q in all_questions:
        assert q.should_abstain is (q.type not in ANSWERABLE_TYPES), q.id
        if q.should_abstain:
            assert q.answers == [], q.id
        if q.type in {"false_premise", "cross_entity"}:
            assert q.false_premise and q.false_premise.strip(), q.id
        if q.type in {"off_corpus", "bad_input"}:
            assert q.gold_docs == [], q.id
        else:
            assert q.gold_docs, q.id
        if q.type == "multi":
            assert len(set(q.gold_docs)) >= 2, q.id


def test_cross_entity_questions_involve_namesakes(
    corpus: dict[str, Document], all_questions: list[Question]
) -> None:
    for q in all_questions:
        if q.type != "cross_entity":
            continue
        surnames = [corpus[d].title.split()[-1] for d in q.gold_docs]
        assert any(n > 1 for n in Counter(surnames).values()), (q.id, surnames)


def test_time_shift_questions_ask_outside_the_covered_years(
    corpus: dict[str, Document], all_questions: list[Question]
) -> None:
    with_range = 0
    for q in all_questions:
        if q.type != "time_shift":
            continue
        years = [int(y) for y in re.findall(r"\b(1[89]\d\d|20\d\d)\b", q.question)]
        assert years, q.id
        for doc_id in q.gold_docs:
            year_range = corpus[doc_id].metadata.get("year_range")
            if not year_range:
                continue
            with_range += 1
            start, end = (int(part) for part in year_range.split("-"))
            assert all(not start <= y <= end for y in years), (q.id, year_range)
            assert all(str(y) not in corpus[doc_id].text for y in years), q.id
    assert with_range >= 15


def test_load_bundled_splits_and_errors(splits: dict[str, list[Question]]) -> None:
    docs, questions = load_bundled("dev")
    assert [q.id for q in questions] == [q.id for q in splits["dev"]]
    assert len(docs) >= 45
    _, everything = load_bundled()
    assert len(everything) == sum(len(v) for v in splits.values())
    with pytest.raises(ValueError, match="unknown split 'validation'"):
        load_bundled("validation")
    with pytest.raises(ValueError, match="unknown split"):
        bundled_split_path("all")


# --------------------------------------------------------------------------- generic loaders


def test_broken_line_reported_with_line_number(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    lines = [
        json.dumps({"id": "a", "question": "Who?", "answers": ["X"]}),
        "",
        '{"id": "b", "question": ',  # line 3: truncated JSON
        json.dumps({"question": "no id"}),  # line 4: missing id
        json.dumps(["not", "an", "object"]),  # line 5
        json.dumps({"id": "a", "question": "dup"}),  # line 6: duplicate id
        json.dumps({"id": "c", "question": "   ", "should_abstain": True, "type": "bad_input"}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = load_questions_jsonl(path)
    assert [q.id for q in report.items] == ["a", "c"]
    assert [e.line for e in report.errors] == [3, 4, 5, 6]
    assert "invalid JSON" in report.errors[0].message
    assert "id" in report.errors[1].message
    assert "duplicate id" in report.errors[3].message
    assert str(report.errors[0]).startswith(f"{path}:3:")


def test_missing_file_reported(tmp_path: Path) -> None:
    report = load_questions_jsonl(tmp_path / "nope.jsonl")
    assert report.items == []
    assert len(report.errors) == 1 and report.errors[0].line is None
    # loaders.read_text_file turns FileNotFoundError into "cannot read file: No such file or directory".
    assert re.search(r"not found|No such file", report.errors[0].message)


@pytest.mark.parametrize(
    ("payload", "expected"),
    [(b'{"id": "a"}\x00\x00\x01binary', "binary"), (b'{"id": "a", "text": "caf\xe9"}\n', "not UTF-8")],
)
def test_binary_or_non_utf8_file_reported(tmp_path: Path, payload: bytes, expected: str) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(payload)
    report = load_corpus_jsonl(path)
    assert report.items == []
    assert len(report.errors) == 1 and expected in report.errors[0].message


def test_folder_loader_skips_unreadable_files(tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text("# Harbor notes\nThe pier is long.\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "also_good.txt").write_text("Plain text about tides.", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9 au lait")
    (tmp_path / "blob.md").write_bytes(b"\x00\x01\x02\x03")
    (tmp_path / "empty.md").write_text("   \n", encoding="utf-8")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "ignored.csv").write_text("a,b\n", encoding="utf-8")
    report = load_text_folder(tmp_path)
    assert sorted(d.id for d in report.items) == ["good.md", "sub/also_good.txt"]
    assert next(d for d in report.items if d.id == "good.md").title == "Harbor notes"
    problems = {Path(e.path).name: e.message for e in report.errors}
    assert set(problems) == {"latin1.txt", "blob.md", "empty.md", "broken.pdf"}
    assert "corrupt PDF" in problems["broken.pdf"]
    assert "not UTF-8" in problems["latin1.txt"]
    assert "binary" in problems["blob.md"]
    assert "empty" in problems["empty.md"]


# --------------------------------------------------------------------------- SQuAD 2.0


def _qa(qid: str, impossible: bool, answers: list[str] | None = None) -> dict[str, Any]:
    qa: dict[str, Any] = {
        "id": qid,
        "question": f"question {qid}?",
        "answers": [{"text": t, "answer_start": 0} for t in (answers or [])],
        "is_impossible": impossible,
    }
    if impossible:
        qa["plausible_answers"] = [{"text": "maybe", "answer_start": 0}]
    return qa


def _synthetic_squad() -> dict[str, Any]:
    """Two articles, five paragraphs of eight questions each: 20 answerable, 20 unanswerable."""
    articles = []
    counter = 0
    for a_idx, (title, n_paragraphs) in enumerate([("Glass_Making", 3), ("Tidal Power (energy)", 2)]):
        paragraphs = []
        for p_idx in range(n_paragraphs):
            qas = []
            for _ in range(8):
                counter += 1
                impossible = counter % 2 == 0
                qas.append(
                    _qa(f"q{counter:02d}", impossible, [] if impossible else ["alpha", "alpha ", "beta"])
                )
            paragraphs.append({"context": f"Context {a_idx}-{p_idx}: alpha beta.", "qas": qas})
        articles.append({"title": title, "paragraphs": paragraphs})
    return {"version": "v2.0", "data": articles}


@pytest.fixture()
def squad_file(tmp_path: Path) -> Path:
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(_synthetic_squad()), encoding="utf-8")
    return path


def test_squad_full_load_counts_and_mapping(squad_file: Path) -> None:
    docs, questions, errors = load_squad2(squad_file)
    assert errors == []
    assert len(docs) == 5 and len(questions) == 40
    assert [d.id for d in docs][:3] == ["glass-making-p0", "glass-making-p1", "glass-making-p2"]
    assert docs[3].id == "tidal-power-energy-p0" and docs[3].title == "Tidal Power (energy)"
    assert docs[0].title == "Glass Making"
    impossible = [q for q in questions if q.should_abstain]
    assert len(impossible) == 20
    assert all(q.type == "unanswerable" and q.answers == [] for q in impossible)
    answerable = [q for q in questions if not q.should_abstain]
    assert all(q.type == "single" and q.answers for q in answerable)
    q1 = next(q for q in questions if q.id == "q01")
    assert q1.answers == ["alpha", "beta"]  # distinct, stripped, order kept
    assert q1.gold_docs == ["glass-making-p0"]
    doc_ids = {d.id for d in docs}
    assert all(set(q.gold_docs) <= doc_ids for q in questions)


def test_squad_balanced_sampling_is_deterministic(squad_file: Path) -> None:
    docs, questions, _ = load_squad2(squad_file, sample=10, seed=3)
    assert len(questions) == 10
    assert sum(q.should_abstain for q in questions) == 5
    again = load_squad2(squad_file, sample=10, seed=3)[1]
    assert [q.id for q in again] == [q.id for q in questions]
    other = load_squad2(squad_file, sample=10, seed=4)[1]
    assert [q.id for q in other] != [q.id for q in questions]
    # corpus = exactly the paragraphs of the sampled questions
    assert {d.id for d in docs} == {g for q in questions for g in q.gold_docs}


def test_squad_odd_sample_and_unbalanced(squad_file: Path) -> None:
    questions = load_squad2(squad_file, sample=7, seed=0)[1]
    assert len(questions) == 7 and sum(q.should_abstain for q in questions) == 3
    unbalanced = load_squad2(squad_file, sample=12, seed=0, balanced=False)[1]
    assert len(unbalanced) == 12
    assert load_squad2(squad_file, sample=1000)[1].__len__() == 40
    with pytest.raises(ValueError, match="positive integer"):
        load_squad2(squad_file, sample=0)


def test_squad_full_corpus_option(squad_file: Path) -> None:
    docs, questions, _ = load_squad2(squad_file, sample=2, seed=1, full_corpus=True)
    slugs = {g.rsplit("-p", 1)[0] for q in questions for g in q.gold_docs}
    expected = {"glass-making": 3, "tidal-power-energy": 2}
    assert len(docs) == sum(expected[s] for s in slugs)


def test_squad_bad_entries_are_reported_and_skipped(tmp_path: Path) -> None:
    data = _synthetic_squad()
    qas = data["data"][0]["paragraphs"][0]["qas"]
    qas.append({"id": "no-text", "is_impossible": True, "answers": []})
    qas.append(_qa("no-answers", False, []))
    qas.append(_qa("q01", True))  # duplicate id
    data["data"][1]["paragraphs"].append({"qas": []})  # no context
    data["data"].append("not an article")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    docs, questions, errors = load_squad2(path)
    assert len(docs) == 5 and len(questions) == 40
    messages = [e.message for e in errors]
    assert len(messages) == 5
    assert any("qas[8]" in m and "'question'" in m for m in messages)
    assert any("without answers" in m for m in messages)
    assert any("duplicate question id 'q01'" in m for m in messages)
    assert any("paragraphs[2]" in m and "context" in m for m in messages)
    assert any(m.startswith("data[2]:") for m in messages)


def test_squad_file_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="SQuAD file not found"):
        load_squad2(tmp_path / "missing.json")
    not_json = tmp_path / "broken.json"
    not_json.write_text('{"data": [', encoding="utf-8")
    with pytest.raises(SquadFormatError, match="not valid JSON"):
        load_squad2(not_json)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\x00\x01\x02")
    with pytest.raises(SquadFormatError, match="binary"):
        load_squad2(binary)
    no_data = tmp_path / "no_data.json"
    no_data.write_text(json.dumps({"version": "v2.0"}), encoding="utf-8")
    with pytest.raises(SquadFormatError, match="missing top-level key 'data'"):
        load_squad2(no_data)
    data_not_list = tmp_path / "data_dict.json"
    data_not_list.write_text(json.dumps({"data": {"title": "x"}}), encoding="utf-8")
    with pytest.raises(SquadFormatError, match="'data' must be a list"):
        load_squad2(data_not_list)
    top_list = tmp_path / "list.json"
    top_list.write_text("[]", encoding="utf-8")
    with pytest.raises(SquadFormatError, match="expected a JSON object"):
        load_squad2(top_list)


def test_slugify() -> None:
    assert slugify("1973_oil_crisis") == "1973-oil-crisis"
    assert slugify("  ") == "article"


@pytest.mark.skipif(not SQUAD_REAL.exists(), reason="SQuAD 2.0 dev file not available")
def test_squad_real_file() -> None:
    docs, questions, errors = load_squad2(SQUAD_REAL)
    assert errors == []
    assert (len(docs), len(questions), sum(q.should_abstain for q in questions)) == (646, 6078, 3168)
    docs, sample, errors = load_squad2(SQUAD_REAL, sample=200, seed=0)
    assert len(sample) == 200 and sum(q.should_abstain for q in sample) == 100
    assert {d.id for d in docs} == {g for q in sample for g in q.gold_docs}
    assert [q.id for q in load_squad2(SQUAD_REAL, sample=200, seed=0)[1]] == [q.id for q in sample]
