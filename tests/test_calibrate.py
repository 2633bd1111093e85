"""CalibrateGates with scripted LMs over a real Chroma store: it never returns worse than the defaults on
its check set, trials cost no LM calls, it says what it cannot do (too few questions, nothing to
refuse), an interrupted search keeps its best trial, and a chained compile logs every trial to MLflow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy
import pytest

from groundqa.datasets.bundled import load_bundled
from groundqa.datasets.examples import to_example
from groundqa.experiment_data import stratified_sample
from groundqa.lm.scripted import ScriptedLM
from groundqa.metrics.composite import make_grounding_metric
from groundqa.optimizers.calibrate import (
    ABSTENTION_GATES,
    SIZE_GATES,
    CalibrateGates,
    CalibrationReport,
    stratified_split,
)
from groundqa.programs.gates import Gates
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.retriever import Retriever
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.store.chroma_store import CorpusStore

UNCITED = {"answer": "It is so."}  # fails the citation contract: the extractive fallback answers


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    store = CorpusStore(tmp_path_factory.mktemp("chroma"), collection="calibrate")
    store.ingest(load_bundled("train")[0])
    return store


@pytest.fixture(scope="module")
def trainset() -> list[dspy.Example]:
    _, questions = load_bundled("train")  # the train split only: calibration never reads dev or test
    return [to_example(q) for q in stratified_sample(questions, 30, seed=0)]


def program(store: CorpusStore, **config: Any) -> tuple[GroundedQA, ScriptedLM]:
    lm = ScriptedLM(lambda messages: UNCITED)  # never a usable answer: the extractive fallback answers
    dspy.configure(lm=GuardedLM(lm), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
    return GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded", fallback="extractive", **config)), lm


def metric() -> Any:
    return make_grounding_metric("offline")


def test_never_worse_than_the_starting_gates_on_the_check_set(store, trainset):
    # deliberately bad starting gates: calibration must find better ones or keep these
    qa, _ = program(store, evidence_floor=0.58, answerability=0.95)
    seen: list[Any] = []
    compiled = CalibrateGates(metric(), n_trials=10, seed=1, on_trial=seen.append, progress=False,
                              say=lambda _: None).compile(qa, trainset=trainset)
    report = compiled.calibration
    assert len(report.trials) == 10 == len(seen) and report.n_fit + report.n_check == len(trainset)
    assert report.trials[0].gates == report.start  # trial 0 is the starting point
    assert report.fit_best >= report.fit_start
    if report.kept == "calibrated":
        assert report.check_best >= report.check_start + max(0.01, 1 / report.n_check) - 1e-9  # min_gain, one question
        assert compiled.gates.model_dump() == report.best != report.start
    else:
        assert compiled.gates.model_dump() == report.start
    assert qa.gates.evidence_floor == 0.58  # the student itself is untouched
    assert set(report.searched).isdisjoint(SIZE_GATES)  # what the LM is shown stays as it was


def test_trials_cost_no_lm_calls(store, trainset):
    qa, lm = program(store)
    calls: list[int] = []

    def count(_: Any) -> None:
        calls.append(lm.calls)

    # every decision gate, the premise and evidence floors included: a trial that lets through a question the
    # starting gates refused before the LM must not pay for its first LM call
    CalibrateGates(metric(), n_trials=12, seed=0, on_trial=count, progress=False,
                   say=lambda _: None).compile(qa, trainset=trainset)
    assert calls and len(set(calls)) == 1  # every trial after the first pass is served from memory


def test_each_question_asks_the_lm_at_most_once_over_a_whole_search(store, trainset):
    # the default search moves every decision gate, floors included: what the LM is shown never changes
    qa, lm = program(store)
    CalibrateGates(metric(), n_trials=8, seed=2, progress=False, say=lambda _: None).compile(qa, trainset=trainset)
    assert 0 < lm.calls <= len(trainset)


def test_a_winner_that_only_ties_on_the_check_set_is_not_kept(store, trainset):
    # bad starting gates: the search beats them on fit; the check set holds only questions that no gate
    # can change (bad input is refused before any gate is read), so check cannot tell the two apart
    qa, _ = program(store, min_confidence=0.7, answer_floor=0.6)  # refuses nearly every answer
    _, questions = load_bundled("train")
    untouchable = [to_example(q) for q in questions if q.type == "bad_input"]
    assert untouchable
    compiled = CalibrateGates(metric(), n_trials=24, seed=1, progress=False, say=lambda _: None).compile(
        qa, trainset=trainset, valset=untouchable)
    report = compiled.calibration
    assert report.fit_best > report.fit_start  # the search did find better gates on fit ...
    assert report.check_best == report.check_start  # ... that check cannot tell from the start
    assert report.kept == "defaults" and compiled.gates.model_dump() == report.start
    assert any("no better than" in r for r in report.reasons)


def test_a_winner_must_beat_the_check_set_by_min_gain():
    class Program:
        gates = Gates()

    said: list[str] = []
    report = CalibrationReport(kept="defaults")
    optimizer = CalibrateGates(metric=lambda e, p: 0.0, min_gain=0.05, say=said.append)
    scores = iter([0.50, 0.54])  # the starting gates, then the winner, on the check set
    optimizer.score = lambda program, examples: next(scores)  # type: ignore[method-assign]
    start, best = Gates().model_dump(), {**Gates().model_dump(), "evidence_floor": 0.5}
    program = Program()
    optimizer._decide(program, start, best, [object()] * 100, report)  # type: ignore[arg-type, list-item]
    assert report.kept == "defaults" and program.gates.evidence_floor == start["evidence_floor"]
    assert "less than 0.05 (min_gain 0.05" in report.reasons[-1]


def test_a_winner_must_gain_at_least_one_question_of_the_check_set():
    # +0.025 on 10 check questions is a quarter of one question: noise (it cost 0.081 on held-out questions)
    class Program:
        gates = Gates()

    optimizer = CalibrateGates(metric=lambda e, p: 0.0, say=lambda _: None)
    assert optimizer.needed_gain(10) == pytest.approx(0.1) and optimizer.needed_gain(400) == pytest.approx(0.01)
    start, best = Gates().model_dump(), {**Gates().model_dump(), "answerability": 0.3}
    for check_scores, kept in (([0.850, 0.875], "defaults"), ([0.700, 0.800], "calibrated")):
        report = CalibrationReport(kept="defaults")
        scores = iter(check_scores)
        optimizer.score = lambda program, examples, scores=scores: next(scores)  # type: ignore[method-assign]
        program = Program()
        program.gates = Gates()
        optimizer._decide(program, start, best, [object()] * 10, report)  # type: ignore[arg-type, list-item]
        assert report.kept == kept, report.reasons


def test_too_small_a_trainset_keeps_the_gates_and_says_so(store, trainset):
    qa, _ = program(store)
    said: list[str] = []
    compiled = CalibrateGates(metric(), n_trials=5, say=said.append).compile(qa, trainset=trainset[:5])
    assert compiled.gates.model_dump() == qa.gates.model_dump()
    assert compiled.calibration.kept == "defaults" and not compiled.calibration.trials
    assert "at least 8" in said[0]


def test_without_should_abstain_questions_abstention_gates_are_not_searched(store, trainset):
    qa, _ = program(store)
    answerable = [e for e in trainset if not e.should_abstain]
    said: list[str] = []
    compiled = CalibrateGates(metric(), n_trials=4, seed=0, progress=False, say=said.append).compile(
        qa, trainset=answerable)
    report = compiled.calibration
    assert any("abstention cannot be calibrated" in r for r in report.reasons)
    assert set(report.searched).isdisjoint(ABSTENTION_GATES)
    for trial in report.trials:
        assert all(trial.gates[g] == report.start[g] for g in ABSTENTION_GATES)


def test_the_judges_gates_are_not_fitted_on_questions_the_judge_was_trained_on(store, trainset):
    """Bundled train and SQuAD's training articles are in the answer judge's training data: a calibration there keeps
    its gates (on SQuAD such a fit gained +0.066 on other questions of its articles and +0.005 on new ones); a
    user's own questions, which the judge never read, calibrate them."""
    from groundqa.compile import judge_read
    from groundqa.programs.gates import JUDGE_GATES

    for dataset in ("bundled", "squad"):
        fixed, why = judge_read(dataset)
        assert fixed == JUDGE_GATES and "trained on" in why
    assert judge_read(str(Path(__file__).parents[1] / "datasets" / "workbench" / "zoo" / "questions.jsonl")) == ((), "")
    qa, _ = program(store)
    said: list[str] = []
    fixed, why = judge_read("bundled")
    compiled = CalibrateGates(metric(), n_trials=4, seed=0, progress=False, say=said.append, fixed=fixed,
                              fixed_reason=why).compile(qa, trainset=trainset)
    report = compiled.calibration
    assert set(report.searched).isdisjoint(JUDGE_GATES) and "answerability" in report.searched
    assert any("answer judge was trained on the bundled train split" in r for r in report.reasons)
    assert any("answer_rescue" in line for line in said)
    for trial in report.trials:
        assert all(trial.gates[g] == report.start[g] for g in JUDGE_GATES)


def test_an_interrupted_search_keeps_the_best_trial_so_far(store, trainset):
    qa, _ = program(store, evidence_floor=0.58)
    base = metric()
    calls = {"n": 0}

    def interrupting(example: Any, pred: Any, trace: Any = None) -> Any:
        calls["n"] += 1
        if calls["n"] > len(trainset) * 4:  # the first pass and a few trials, then Ctrl-C
            raise KeyboardInterrupt
        return base(example, pred, trace)

    compiled = CalibrateGates(interrupting, n_trials=50, seed=3, progress=False, say=lambda _: None).compile(
        qa, trainset=trainset)
    report = compiled.calibration
    assert report.interrupted and 0 < len(report.trials) < 50
    assert report.fit_best == max([report.fit_start, *(t.score for t in report.trials)])
    assert any("interrupted" in r for r in report.reasons)


def test_stratified_split_keeps_both_classes_in_both_parts(trainset):
    fit, check = stratified_split(trainset, 1 / 3, seed=0)
    assert len(fit) + len(check) == len(trainset) and not {e.id for e in fit} & {e.id for e in check}
    for part in (fit, check):
        assert any(e.should_abstain for e in part) and any(not e.should_abstain for e in part)


def test_stratified_split_keeps_a_documents_questions_on_one_side():
    from groundqa.datasets.squad import default_squad2_path, load_squad2

    path = default_squad2_path()
    if not path.exists():
        pytest.skip("SQuAD 2.0 file not present")
    _, questions, _ = load_squad2(path, sample=90, seed=3, articles="train")
    examples = [to_example(q) for q in questions]
    assert len({tuple(e.gold_docs) for e in examples}) < len(examples)  # some paragraphs have several questions
    fit, check = stratified_split(examples, 1 / 3, seed=0)
    assert len(fit) + len(check) == len(examples)
    assert not {d for e in fit for d in e.gold_docs} & {d for e in check for d in e.gold_docs}
    largest = max(sum(1 for e in examples if e.gold_docs == x.gold_docs) for x in examples)
    for flag in (False, True):  # still stratified: each class gets its share, give or take one group
        n = sum(e.should_abstain is flag for e in examples)
        got = sum(e.should_abstain is flag for e in check)
        assert got > 0 and abs(got - round(n / 3)) <= largest


def test_a_split_by_article_checks_on_articles_the_fit_never_saw():
    from groundqa.datasets.squad import article_of, default_squad2_path, load_squad2

    path = default_squad2_path()
    if not path.exists():
        pytest.skip("SQuAD 2.0 file not present")
    _, questions, _ = load_squad2(path, sample=360, seed=13, articles="train")
    fit, check = stratified_split([to_example(q) for q in questions], 1 / 3, seed=13, group=article_of)
    assert not {article_of(e) for e in fit} & {article_of(e) for e in check}
    assert len({article_of(e) for e in check}) >= 2 and 0.2 < len(check) / len(questions) < 0.5


def test_bootstrap_plus_calibrate_compile_logs_trials_and_gates(tmp_path: Path, home: Path, monkeypatch):
    import mlflow

    from groundqa.compile import CompileOptions, compile_program
    from groundqa.config import load_settings
    from groundqa.programs.persistence import load_program

    monkeypatch.setattr("groundqa.compile.configure_lm", lambda settings: dspy.configure(
        lm=GuardedLM(ScriptedLM(lambda messages: UNCITED)),
        adapter=dspy.ChatAdapter(use_json_adapter_fallback=False)))
    settings = load_settings(home=home)
    options = CompileOptions(optimizer="labeled+calibrate", trials=5, max_train=24, max_dev=8, budget=2,
                             artifacts=tmp_path / "artifacts", progress=False)
    outcome = compile_program(settings, options, out=lambda _: None)
    directory = outcome.program_path.parent
    assert (directory / "calibration.json").exists() and (directory / "calibration.png").exists()
    run = mlflow.MlflowClient(settings.tracking_uri).get_run(outcome.run_id)
    assert run.data.tags.get("calibration") in ("calibrated", "defaults")
    assert {f"gates.{name}" for name in Gates.model_fields} <= set(run.data.params)
    history = mlflow.MlflowClient(settings.tracking_uri).get_metric_history(outcome.run_id, "calibration/score")
    assert len(history) == 5
    reloaded = GroundedQA(None, QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    load_program(reloaded, outcome.program_path)
    assert str(reloaded.gates.evidence_floor) == run.data.params["gates.evidence_floor"]


def test_within_tolerance_the_trial_moving_fewest_gates_wins():
    """Parsimony: a gate moved to gain a fraction of a question on fit is how calibration overfits."""
    from groundqa.optimizers.calibrate import CalibrateGates, Trial
    from groundqa.programs.gates import Gates

    start = Gates().model_dump()
    two = {**start, "evidence_floor": 0.5, "answerability": 0.3}
    one = {**start, "evidence_floor": 0.5}
    trials = [Trial(number=0, score=0.60, gates=start, seconds=0.0), Trial(number=1, score=0.705, gates=two, seconds=0.0),
              Trial(number=2, score=0.70, gates=one, seconds=0.0)]
    optimizer = CalibrateGates(metric=lambda e, p: 0.0, tolerance=0.01, say=lambda _: None)
    assert optimizer._parsimonious(trials, start, 0.60, 0.705, two) == (0.70, one)
    strict = CalibrateGates(metric=lambda e, p: 0.0, tolerance=0.001, say=lambda _: None)
    assert strict._parsimonious(trials, start, 0.60, 0.705, two) == (0.705, two)
    # a trial that only equals the starting gates' fit score is no reason to move a gate, however few it moves
    assert optimizer._parsimonious(trials, start, 0.70, 0.705, two) == (0.705, two)


def test_gates_the_fit_set_does_not_need_are_put_back():
    """Pruning: of the gates the winning trial moved, those whose move the fit score cannot tell from none go back to
    their starting values, one at a time; a move the fit needs stays, and each put-back is a logged trial."""
    from groundqa.optimizers.calibrate import CalibrateGates, CalibrationReport
    from groundqa.programs.gates import Gates

    class Program:
        gates = Gates()

    def score(program: Any, examples: Any) -> float:  # the fit set needs evidence_floor moved, nothing else
        g = program.gates
        return 0.60 + 0.10 * (g.evidence_floor == 0.5) + 0.004 * (g.answerability == 0.3) - 0.05 * (g.k == 6)

    start = Gates().model_dump()
    best = {**start, "evidence_floor": 0.5, "answerability": 0.3, "k": 6}
    seen: list[Any] = []
    optimizer = CalibrateGates(metric=lambda e, p: 0.0, tolerance=0.01, say=lambda _: None, on_trial=seen.append)
    optimizer.score = score  # type: ignore[method-assign]
    report = CalibrationReport(kept="defaults", start=start, fit_start=0.60,
                               searched=["k", "evidence_floor", "answerability"])
    program = Program()
    fit_score, gates = optimizer._prune(program, [], start, 0.654, best, report)
    assert gates == {**start, "evidence_floor": 0.5}  # k (which cost) and answerability (within 0.01) are put back
    assert fit_score == pytest.approx(0.70)
    assert report.pruned == ["k", "answerability"]
    assert len(seen) == 3 and len(report.trials) == 3
    assert program.gates.model_dump() == start  # the program leaves with its starting gates; _decide sets the winner
    # a move that the fit set needs is never put back, even within tolerance of a worse best
    assert optimizer._prune(Program(), [], start, 0.70, {**start, "evidence_floor": 0.5}, report)[1] == {
        **start, "evidence_floor": 0.5}


def test_a_squad_compile_checks_calibration_on_other_articles():
    from groundqa.compile import CompileOptions, check_group
    from groundqa.datasets.squad import article_of
    from groundqa.optimizers.calibrate import gold_documents

    assert check_group(CompileOptions(optimizer="calibrate", dataset="squad")) is article_of
    assert check_group(CompileOptions(optimizer="calibrate", dataset="bundled")) is gold_documents


def test_the_squad_benchmark_groups_as_a_squad_compile_does():
    from benchmarks.quality import calibration_group
    from benchmarks.suite_setup import SuiteData
    from groundqa.datasets.squad import article_of
    from groundqa.experiment_data import parse_dataset_spec
    from groundqa.optimizers.calibrate import gold_documents

    def group(data: str, squad_eval: str) -> Any:
        return calibration_group(SuiteData(False, 13, data, parse_dataset_spec(data), [], [], [], None, squad_eval))

    assert group("squad", "heldout") is article_of  # evaluated on other articles: checked on other articles
    assert group("squad", "train") is gold_documents  # evaluated on the same articles
    assert group("bundled", "heldout") is gold_documents
