"""Fine-tuning data for the embedded LM's cited answers: the gold teacher's replies, the captured chat
data (exactly what the predictor sent, in the form the embedded engine can generate), the refusal cap,
and the refusal of every evaluation split. No real LM: the gold teacher is deterministic."""

from __future__ import annotations

import hashlib
from pathlib import Path

import dspy
import pytest
import regex

from groundqa.datasets.bundled import load_bundled
from groundqa.datasets.loaders import Document, Question, load_corpus
from groundqa.datasets.squad import SQUAD2_TRAIN_ARTICLES, default_squad2_path
from groundqa.lm.citation_decoding import COMPLETED, citation_pattern
from groundqa.lm.finetune import records_from_chat
from groundqa.optimizers.finetune_data import (
    FinetuneRecord,
    assemble,
    cap_refusals,
    check_bundled_training_only,
    check_squad_training_only,
    collect_records,
    finetune_examples,
    gold_labels,
    serialise,
    training_program,
    training_questions,
    write_finetune_data,
)
from groundqa.programs.extractive_teacher import GoldTeacherLM, gold_decision, gold_reply
from groundqa.signatures.qa import NOT_IN_SOURCES, CitedAnswer
from groundqa.store.chroma_store import CorpusStore

REPO = Path(__file__).resolve().parents[1]
PASSAGES = (
    "[1] Calder Lighthouse\nThe Calder Lighthouse stands 31 metres tall. It was automated in 1999 after "
    "a century of keepers.\n\n"
    "[2] Port Vessany\nPort Vessany had 18,400 residents in the 2021 census. The town hall was rebuilt "
    "after the fire of 1921."
)


def prompt(question: str, passages: str = PASSAGES) -> list[dict[str, str]]:
    """A cited-answer prompt exactly as the ChatAdapter writes it."""
    return dspy.ChatAdapter().format(CitedAnswer, [], {"question": question, "passages": passages,
                                                       "format": "prose"})


# -- the gold teacher -----------------------------------------------------------------------------
def test_gold_reply_cites_the_sentence_that_states_the_answer():
    question = "When was the Calder Lighthouse automated?"
    reply = gold_reply(prompt(question), {question: (["1999"], False)})
    assert reply == {"answer": "It was automated in 1999 after a century of keepers. [1]"}
    assert regex.fullmatch(citation_pattern(2), reply["answer"] + COMPLETED)


def test_gold_reply_matches_answers_ignoring_case_punctuation_and_spacing():
    question = "How   many residents did Port Vessany have in 2021?"  # label key is whitespace-normalised
    reply = gold_reply(prompt(question), {"How many residents did Port Vessany have in 2021?": (["18400", "18,400"], False)})
    assert reply == {"answer": "Port Vessany had 18,400 residents in the 2021 census. [2]"}


def test_gold_reply_refuses_a_question_to_abstain_on_and_an_answer_not_in_the_passages():
    q1, q2 = "Who founded the Calder Island airport?", "Who designed the Calder Lighthouse?"
    table = {q1: ([], True), q2: (["Odile Marchetti"], False)}
    assert gold_decision(prompt(q1), table).kind == "refusal:abstain"
    assert gold_decision(prompt(q2), table).kind == "refusal:absent"
    assert gold_reply(prompt(q1), table) == gold_reply(prompt(q2), table) == {"answer": NOT_IN_SOURCES}


def test_gold_reply_is_empty_for_unknown_questions_other_prompts_and_ungeneratable_sentences():
    assert gold_reply(prompt("When was the Calder Lighthouse automated?"), {}) == ""
    other = dspy.ChatAdapter().format(dspy.Signature("claim -> supported: bool"), [], {"claim": "x"})
    assert gold_reply(other, {"x": (["y"], False)}) == ""
    # the only sentence stating the answer has an abbreviation: the citation constraint cannot produce it
    question = "Who is the rector of the polytechnic?"
    passages = "[1] Lorvin Polytechnic\nThe rector of the polytechnic since 2017 is Dr. Hanne Rusk of Lorvin."
    decision = gold_decision(prompt(question, passages), {question: (["Hanne Rusk"], False)})
    assert (decision.reply, decision.kind) == ("", "skip:form")


def test_conflicting_labels_are_dropped():
    examples = [dspy.Example(question="Q one?", answers=["a"], should_abstain=False),
                dspy.Example(question="Q  one?", answers=[], should_abstain=True),
                dspy.Example(question="Q two?", answers=["b"], should_abstain=False)]
    table, conflicts = gold_labels(examples)
    assert conflicts == {"Q one?"} and table == {"Q two?": (["b"], False)}


# -- capturing the chat data from the program -----------------------------------------------------
@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory):
    store = CorpusStore(tmp_path_factory.mktemp("chroma"), collection="finetune-data")
    store.ingest(load_corpus(REPO / "datasets/demo/corpus.jsonl").items, 600, 120)
    return training_program(store)


EXAMPLES = [
    dspy.Example(id="a1", question="Who designed the harbor lights of Port Vessany?", answers=["Odile Marchetti"],
                 should_abstain=False),
    # the names exist, so the premise check passes and the LM is asked: it must learn to refuse
    dspy.Example(id="r1", question="Did Paolo Marchetti ever work at the Lorvin Maritime Library?", answers=[],
                 should_abstain=True),
    # off the corpus: the program abstains before asking the LM, so there is nothing to learn
    dspy.Example(id="n1", question="What is the boiling point of liquid nitrogen?", answers=[], should_abstain=True),
]


def test_captured_data_is_what_the_predictor_sent_and_the_engine_can_generate(program):
    teacher = GoldTeacherLM(gold_labels(EXAMPLES)[0])
    collection = collect_records(program, EXAMPLES, "demo", teacher=teacher)
    by_id = {r.question_id: r for r in collection.records}
    assert set(by_id) == {"a1", "r1"} and collection.no_record["before_lm:too_few_sources"] + \
        collection.no_record["before_lm:premise_unsupported"] == 1
    assert collection.other_lm_calls == 0 and teacher.tally["other"] == 0
    assert (by_id["a1"].target, by_id["r1"].target, by_id["r1"].reason) == ("answer", "refusal", "refusal:abstain")
    sent = [p.chat for p in teacher.script.prompts]
    for record in collection.records:
        messages = record.data["messages"]
        assert messages[:-1] in sent  # exactly the messages the LM was sent
        assert messages[-1]["role"] == "assistant"
        assert messages[-1]["content"].startswith("[[ ## answer ## ]]\n")
        assert messages[-1]["content"].rstrip().endswith("[[ ## completed ## ]]")
    answer = by_id["a1"].data["messages"][-1]["content"]
    assert "Odile Marchetti" in answer and regex.search(r"\. \[\d\]\n", answer)
    for train in records_from_chat([r.data for r in collection.records]):  # the engine's reader accepts it
        n = len(regex.findall(r"^\[\d+\]", train.prompt.split("[[ ## passages ## ]]")[-1], regex.M))
        assert regex.fullmatch(citation_pattern(n), train.completion)


def test_finetune_examples_manifest_and_files(program, tmp_path):
    result = finetune_examples(program, EXAMPLES, "demo", seed=3, max_refusal_share=None)
    m = result.manifest
    assert (m.records, m.answers, m.refusals, m.seed) == (2, 1, 1, 3)
    assert m.sources["demo"].questions == 3 and sorted(m.question_ids) == ["demo:a1", "demo:r1"]
    data_path, manifest_path = write_finetune_data(result, tmp_path / "ft.jsonl")
    assert hashlib.sha256(data_path.read_bytes()).hexdigest() == m.sha256
    assert manifest_path.name == "ft.manifest.json" and m.sha256 in manifest_path.read_text()


def _record(i: int, target: str, source: str = "s") -> FinetuneRecord:
    reply = NOT_IN_SOURCES if target == "refusal" else f"Answer {i}. [1]"
    return FinetuneRecord(source, str(i), target, target, {"messages": [
        {"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": reply}]})  # type: ignore[arg-type]


def test_refusals_are_capped_per_source_with_a_seeded_choice():
    records = [_record(i, "answer") for i in range(3)] + [_record(i, "refusal") for i in range(3, 10)]
    kept, dropped = cap_refusals(records, 0.5, seed=1)
    assert sum(r.target == "refusal" for r in kept) == 3 and dropped["s"] == 4
    assert kept == cap_refusals(records, 0.5, seed=1)[0]
    assert cap_refusals(records, None, seed=1)[0] == records


def test_duplicate_prompts_with_different_replies_are_dropped():
    same = _record(1, "answer")
    other = FinetuneRecord("s", "2", "refusal", "refusal", {"messages": [
        same.data["messages"][0], {"role": "assistant", "content": NOT_IN_SOURCES}]})
    from groundqa.optimizers.finetune_data import Collection

    result = assemble([Collection("s", 3, [same, other, _record(3, "answer")])], max_refusal_share=None)
    assert result.manifest.records == 1 and result.manifest.sources["s"].duplicates_dropped == 2
    assert result.manifest.sha256 == hashlib.sha256(serialise(result.data).encode()).hexdigest()


# -- only training data ---------------------------------------------------------------------------
@pytest.mark.parametrize("source", ["bundled:dev", "bundled:test", "squad:heldout", "squad:all", "bundled:other",
                                    "mystery"])
def test_evaluation_splits_and_unknown_sources_are_refused(source):
    with pytest.raises(ValueError):
        training_questions(source)


def test_bundled_training_questions_are_the_train_split_only():
    got = training_questions("bundled", seed=0, limit=20)
    _, train = load_bundled("train")
    assert len(got.examples) == 20 and {e.id for e in got.examples} <= {q.id for q in train}
    _, dev = load_bundled("dev")
    with pytest.raises(ValueError, match="train split"):
        check_bundled_training_only(dev[:1])


def test_held_out_squad_articles_are_refused():
    train_title = sorted(SQUAD2_TRAIN_ARTICLES)[0].replace("_", " ")
    ok_doc = Document(id="d1", title=train_title, text="x", source="squad2")
    check_squad_training_only([ok_doc], [Question(id="q", question="q?", article=train_title)])
    with pytest.raises(ValueError, match="training articles"):
        check_squad_training_only([ok_doc, Document(id="d2", title="Amazon rainforest", text="x")], [])
    with pytest.raises(ValueError, match="training articles"):
        check_squad_training_only([ok_doc], [Question(id="q", question="q?", article="Amazon rainforest")])


@pytest.mark.skipif(not default_squad2_path().exists(), reason="SQuAD 2.0 file not available")
def test_squad_training_questions_come_from_training_articles_only():
    got = training_questions("squad", seed=0, limit=12)
    allowed = {a.replace("_", " ") for a in SQUAD2_TRAIN_ARTICLES}
    assert len(got.examples) == 12 and {d.title for d in got.documents} <= allowed
