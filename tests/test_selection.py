"""The selective stage and SelectAnswers, with scripted LMs over a real Chroma store: off by default, a fitted
model overturns a refusal with a cited passage sentence and withholds an answer it does not trust, the model
round-trips through program files (and a bad one is one line), the fit never keeps a model that loses on its
check set, and it says what it cannot do (too few questions, nothing to refuse, an interruption)."""

from __future__ import annotations

from typing import Any

import dspy
import numpy as np
import pytest

from groundqa.datasets.bundled import load_bundled
from groundqa.datasets.examples import to_example
from groundqa.experiment_data import stratified_sample
from groundqa.lm.scripted import ScriptedLM
from groundqa.metrics.composite import make_grounding_metric
from groundqa.optimizers.calibrate import stratified_split
from groundqa.optimizers.select import SelectAnswers, fit_logistic
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.persistence import ProgramFileError, load_program, save_program
from groundqa.programs.retriever import Retriever
from groundqa.programs.selection import SIGNAL_NAMES, Selector, Signals
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.signatures.types import AbstainReason
from groundqa.store.chroma_store import CorpusStore

UNCITED = {"answer": "It is so."}  # fails the citation contract: the extractive fallback answers
ALWAYS = {"weights": {"answered": 0.0, "retrieval_top": 1e-6}, "bias": 30.0, "threshold": 0.5, "fitted_on": 1}
NEVER = {"weights": {"answered": 0.0, "retrieval_top": 1e-6}, "bias": -30.0, "threshold": 0.5, "fitted_on": 1}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    store = CorpusStore(tmp_path_factory.mktemp("chroma"), collection="selection")
    store.ingest(load_bundled("train")[0])
    return store


@pytest.fixture(scope="module")
def trainset() -> list[dspy.Example]:
    _, questions = load_bundled("train")  # the train split only: selection never reads dev or test
    return [to_example(q) for q in stratified_sample(questions, 40, seed=0)]


def program(store: CorpusStore, **config: Any) -> GroundedQA:
    lm = ScriptedLM(lambda messages: UNCITED)
    dspy.configure(lm=GuardedLM(lm), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
    return GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded", fallback="extractive", **config))


def first(trainset: list[dspy.Example], qa: GroundedQA, abstained: bool) -> dspy.Example:
    for example in trainset:
        if qa(question=example.question).result.abstained is abstained and example.question.strip():
            return example
    raise AssertionError(f"no train question {'refused' if abstained else 'answered'} by the stages")


def test_off_by_default_and_empty_weights_change_nothing(store, trainset):
    qa = program(store)
    assert not qa.selector.active and dict(qa.named_parameters())["selector"] is qa.selector
    example = first(trainset, qa, abstained=False)
    events: list[dict[str, Any]] = []
    result = qa.run(example.question, on_event=events.append)
    assert events and not any(e.get("type") == "selection" for e in events)
    assert not result.abstained


def test_a_trusted_candidate_overturns_a_refusal_with_a_cited_sentence(store, trainset):
    qa = program(store)
    example = first(trainset, qa, abstained=True)
    refused = qa.run(example.question)
    assert refused.abstain_reason is not None
    qa.selector.load_state(ALWAYS)
    result = qa.run(example.question)
    assert not result.abstained and result.mode == "extractive" and result.citations
    assert all(1 <= c.index <= len(result.passages) for c in result.citations)
    assert any("the selector answered where the stages refused" in n for n in result.notes)


def test_an_untrusted_answer_is_withheld_as_low_confidence(store, trainset):
    qa = program(store)
    example = first(trainset, qa, abstained=False)
    qa.selector.load_state(NEVER)
    result = qa.run(example.question)
    assert result.abstained and result.abstain_reason == AbstainReason.LOW_CONFIDENCE
    assert "selector" in result.abstain_message and result.answer == "" and result.citations == []


def test_bad_input_is_never_selected(store):
    qa = program(store)
    qa.selector.load_state(ALWAYS)
    result = qa.run("   ")
    assert result.abstained and result.exit_reason.value == "EMPTY_INPUT"


def test_the_selector_round_trips_through_a_program_file(store, tmp_path):
    qa = program(store)
    qa.selector.load_state({"weights": {"confidence": 2.5, "refused_premise": -1.25}, "bias": -0.5,
                            "threshold": 0.4, "fitted_on": 30})
    path = save_program(qa, tmp_path / "p")
    fresh = program(store)
    load_program(fresh, path)
    assert fresh.selector.dump_state() == qa.selector.dump_state() and fresh.selector.active


def test_a_program_file_with_an_unknown_signal_is_one_line(store, tmp_path):
    import json

    qa = program(store)
    path = save_program(qa, tmp_path / "p")
    data = json.loads(path.read_text())
    data["selector"]["weights"] = {"shoe_size": 1.0}
    path.write_text(json.dumps(data))
    with pytest.raises(ProgramFileError, match="shoe_size") as caught:
        load_program(program(store), path)
    assert "\n" not in str(caught.value)


def test_fit_logistic_recovers_a_separating_signal():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    y = (x[:, 1] > 0.2).astype(float)
    weights, bias = fit_logistic(x, y, np.ones(len(y)), l2=0.1)
    p = 1 / (1 + np.exp(-(x @ weights + bias)))
    assert ((p >= 0.5) == (y == 1)).mean() > 0.95
    assert abs(weights[1]) > 5 * max(abs(weights[0]), abs(weights[2]))


def test_never_keeps_a_model_that_loses_on_check(store, trainset):
    qa = program(store)
    compiled = SelectAnswers(make_grounding_metric("offline"), seed=0, progress=False,
                             say=lambda _: None).compile(qa, trainset=trainset)
    report = compiled.selection
    assert report.n_fit == report.n_check == len(trainset) and report.folds == 5 and report.fit_start is not None
    # the oracle takes the better choice on every question: nothing scores above it, the stages' own included
    assert report.oracle_fit >= max(report.fit_best, report.fit_start) - 1e-9
    if report.kept == "fitted":
        assert report.check_best >= report.check_start + max(0.01, 1 / report.n_check) - 1e-9
        assert compiled.selector.active and compiled.selector.dump_state() == report.selector
    else:
        assert not compiled.selector.active and report.reasons
    assert set(report.selector.get("weights", {})) <= set(SIGNAL_NAMES)
    assert not qa.selector.active  # the student itself is untouched


def test_the_check_score_is_what_the_program_scores(store, trainset):
    """The check figures come from recorded runs; a fitted program run for real scores the same."""
    qa = program(store)
    metric = make_grounding_metric("offline")
    optimizer = SelectAnswers(metric, seed=0, progress=False, say=lambda _: None)
    fit, check = stratified_split(trainset, 0.4, seed=0)
    compiled = optimizer.compile(qa, trainset=fit, valset=check)
    report = compiled.selection
    assert report.selector, report.reasons  # fitted, kept or not
    compiled.selector.load_state(report.selector)
    real = float(np.mean([float(metric(e, compiled(question=e.question))) for e in check]))
    assert real == pytest.approx(report.check_best, abs=1e-6)
    compiled.selector.load_state(Selector().model_dump())
    unselected = float(np.mean([float(metric(e, compiled(question=e.question))) for e in check]))
    assert unselected == pytest.approx(report.check_start, abs=1e-6)


def test_grouped_folds_keep_a_document_in_one_fold(trainset):
    from groundqa.optimizers.calibrate import gold_documents
    from groundqa.optimizers.select import grouped_folds

    folds = grouped_folds(trainset, 5, seed=0, group=gold_documents)
    assert set(folds) == set(range(5))
    by_group: dict[Any, set[int]] = {}
    for example, fold in zip(trainset, folds, strict=True):
        by_group.setdefault(gold_documents(example), set()).add(fold)
    assert all(len(f) == 1 for f in by_group.values())
    sizes = [folds.count(f) for f in range(5)]
    assert max(sizes) - min(sizes) <= max(len(v) for v in by_group.values())
    assert grouped_folds(trainset, 5, seed=0, group=gold_documents) == folds  # seeded


def test_too_few_questions_or_nothing_to_refuse_leave_it_off(store, trainset):
    qa = program(store)
    said: list[str] = []
    small = SelectAnswers(make_grounding_metric("offline"), progress=False, say=said.append).compile(
        qa, trainset=trainset[:5])
    assert not small.selector.active and "selection needs at least" in small.selection.reasons[0]
    answerable = [e for e in trainset if not e.should_abstain]
    none = SelectAnswers(make_grounding_metric("offline"), progress=False, say=said.append, min_train=4).compile(
        qa, trainset=answerable)
    assert not none.selector.active and "no should-abstain question" in none.selection.reasons[0]


def test_an_interruption_leaves_it_off(store, trainset):
    qa = program(store)
    optimizer = SelectAnswers(make_grounding_metric("offline"), progress=False, say=lambda _: None)
    calls = {"n": 0}

    def interrupt(*_: Any) -> float:
        calls["n"] += 1
        if calls["n"] > 5:
            raise KeyboardInterrupt
        return 1.0

    optimizer.metric = interrupt
    compiled = optimizer.compile(qa, trainset=trainset)
    assert not compiled.selector.active and "interrupted" in compiled.selection.reasons[-1]


def test_signals_are_the_declared_names():
    assert tuple(Signals().vector()) == SIGNAL_NAMES
    with pytest.raises(ValueError):
        Selector(weights={"nope": 1.0})


def test_compare_diff_shows_the_selector():
    from groundqa.tracking.program_diff import ProgramSource, diff_to_dict, format_diff

    fitted = {"weights": {"confidence": 2.0, "refused_premise": -1.0}, "bias": -0.5, "threshold": 0.45, "fitted_on": 9}
    off = ProgramSource("off", {"selector": Selector().model_dump()})
    old = ProgramSource("old", {})  # saved before selectors existed: off
    on = ProgramSource("on", {"selector": fitted})
    assert diff_to_dict(off, old, [])["selector"] == []
    changed = {d["name"]: (d["a"], d["b"]) for d in diff_to_dict(off, on, [])["selector"]}
    assert changed == {"threshold": (None, 0.45), "bias": (None, -0.5), "confidence": (None, 2.0),
                       "refused_premise": (None, -1.0)}
    lines = [text for text, _ in format_diff(off, on, [])]
    assert "== selector: 4 term(s) changed" in lines and "  confidence: None -> 2.0" in lines
    assert "== selector: 0 term(s) changed (off)" in [text for text, _ in format_diff(off, old, [])]


def test_selection_never_spends_the_last_retrieval(store, trainset):
    """With the retrieval budget spent by the stages, the stage reads what they retrieved: it never ends a run
    (a recording pass that stopped runs would score refusals the program never made)."""
    from groundqa.runtime.run import Budgets
    from groundqa.signatures.types import ExitReason

    qa = program(store, verify_premises=False, bridging=False, multi_hop="off",
                 budgets=Budgets(max_context_chars=2400, max_answer_tokens=48, max_retrievals=1))
    example = first(trainset, qa, abstained=False)
    base = qa.run(example.question)
    assert base.exit_reason == ExitReason.COMPLETED and base.usage.retrieval_calls == 1
    seen: list[Any] = []
    with qa.recording_selection(lambda signals, candidate: seen.append(signals)):
        recorded = qa.run(example.question)
    assert recorded.exit_reason == ExitReason.COMPLETED and recorded.answer == base.answer and seen
    qa.selector.load_state(NEVER)
    withheld = qa.run(example.question)
    assert withheld.exit_reason == ExitReason.COMPLETED and withheld.abstain_reason == AbstainReason.LOW_CONFIDENCE


def test_a_refusal_with_no_candidate_scores_as_the_refusal_it_stays():
    """Where the stages refused and no passage sentence can answer, the stage keeps the refusal whatever the model
    says: the recorded 'answer' choice must score what the program would do, the refusal."""
    import contextlib

    from groundqa.signatures.types import GroundedResult

    class Refusing:
        @contextlib.contextmanager
        def recording_selection(self, sink: Any) -> Any:
            self.sink = sink
            yield

        def __call__(self, question: str) -> dspy.Prediction:
            self.sink(Signals(not_answered=1.0), None)
            result = GroundedResult(question=question, abstained=True, abstain_reason=AbstainReason.NOT_ANSWERED)
            return dspy.Prediction(answer="", abstained=True, result=result, passages=[])

    refusable = dspy.Example(question="What is the annual budget of the garden?", answers=[],
                             should_abstain=True).with_inputs("question")
    row = SelectAnswers(make_grounding_metric("offline"), progress=False, say=lambda _: None).record(
        Refusing(), [refusable])[0]
    assert row.signals is not None and row.abstain_score == row.own_score == 1.0
    assert row.answer_score == row.abstain_score  # not 0: answering is not open to the stage here
