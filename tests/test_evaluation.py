"""evaluate() on a tiny dataset with fake programs (no LM), the report, and MLflow logging."""

from __future__ import annotations

import json
import time
from pathlib import Path

import dspy
import pytest
from rich.console import Console

from groundqa.datasets.loaders import Question
from groundqa.evaluation import EvaluationReport, evaluate
from groundqa.signatures.types import AbstainReason, ExitReason, GroundedResult, Passage, Usage

PASSAGES = [
    Passage(chunk_id="lake-0", doc_id="lake-arvo", title="Lake Arvo",
            text="Lake Arvo covers 46 square kilometres and reaches a depth of 112 metres. "
                 "A ferry has crossed the lake between Arvo and Pelto since 1934."),
    Passage(chunk_id="pell-0", doc_id="pell-island", title="Pell Island",
            text="About 140 people live on Pell Island. There are no cars on Pell Island."),
]
QUESTIONS = [
    Question(id="q1", question="How deep is Lake Arvo?", answers=["112 metres"], type="single",
             gold_docs=["lake-arvo"]),
    Question(id="q2", question="Since when has a ferry crossed Lake Arvo?", answers=["1934"], type="single"),
    Question(id="q3", question="Why are cars banned from Lake Arvo?", should_abstain=True, type="false_premise",
             false_premise="cars are banned from Lake Arvo"),
    Question(id="q4", question="How many people live on Pell Island?", answers=["140", "about 140"], type="multi"),
]
ANSWERS = {
    "How deep is Lake Arvo?": "Lake Arvo reaches a depth of 112 metres [1].",
    "Since when has a ferry crossed Lake Arvo?": "A ferry has crossed Lake Arvo since 1934 [2].",  # wrong cite
}


class FakeProgram(dspy.Module):
    """Returns GroundedResults from a table; raises for q4; abstains on the premise question."""

    def forward(self, question: str) -> dspy.Prediction:
        if "Pell" in question:
            raise RuntimeError("retrieval exploded")
        if question.startswith("Why"):  # the answer judge read 4 sentences before it refused
            return dspy.Prediction(result=GroundedResult(
                question=question, abstained=True, abstain_reason=AbstainReason.PREMISE_UNSUPPORTED,
                abstain_message="No source says cars are banned.", usage=Usage(judgments=4, judge_ms=600.0)))
        return dspy.Prediction(result=GroundedResult(
            question=question, answer=ANSWERS[question], passages=PASSAGES, exit_reason=ExitReason.COMPLETED))


@pytest.fixture(scope="module")
def report() -> EvaluationReport:
    return evaluate(FakeProgram(), QUESTIONS, threads=1, progress=False, all_types=["time_shift"])


def test_records_and_error_isolation(report):
    assert report.n == 4 and [r.id for r in report.records] == ["q1", "q2", "q3", "q4"]
    q1, q2, q3, q4 = report.records
    assert q1.citations == [1] and q1.cited_doc_ids == ["lake-arvo"] and q1.exit_reason == "COMPLETED"
    assert q1.scores.score == pytest.approx(1.0)
    assert q2.scores.citation_recall == 0.0 and q2.scores.score == pytest.approx(0.5)
    assert "not supported by [2]" in q2.scores.feedback
    assert q3.abstained and q3.abstain_reason == "premise_unsupported" and q3.scores.score == 1.0
    assert q4.error == "RuntimeError: retrieval exploded" and q4.scores.score == 0.0 and q4.answer == ""
    assert all(r.latency_s >= 0 for r in report.records)


def test_aggregate_metrics_overall_and_per_type(report):
    o = report.metrics.overall
    assert o.counts["n"] == 4 and o.counts["errors"] == 1 and o.counts["abstained"] == 1
    assert o.metrics["score"] == pytest.approx((1.0 + 0.5 + 1.0 + 0.0) / 4)
    assert o.metrics["citation_recall"] == pytest.approx(0.5)
    assert o.metrics["abstain_recall"] == 1.0 and o.metrics["over_abstention_rate"] == 0.0
    assert o.metrics["error_rate"] == pytest.approx(0.25)
    assert set(report.metrics.by_type) == {"single", "false_premise", "multi", "time_shift"}
    assert report.metrics.by_type["single"].metrics["str_em"] == 1.0
    assert report.metrics.by_type["multi"].metrics["token_f1"] == 0.0
    assert report.metrics.by_type["time_shift"].metrics["score"] is None
    assert report.timing.total_s > 0 and report.timing.mean_latency_s is not None


def test_threads_and_plain_callable_give_the_same_scores(report):
    def plain(question: str) -> dspy.Prediction:
        return FakeProgram()(question=question)

    again = evaluate(plain, QUESTIONS, threads=2, progress=False)
    assert [r.scores.score for r in again.records] == [r.scores.score for r in report.records]
    assert again.program == "plain" and again.threads == 2


def test_generic_prediction_program():
    def rag(question: str) -> dspy.Prediction:
        if question.startswith("Why"):
            return dspy.Prediction(answer="NOT IN SOURCES")
        return dspy.Prediction(answer="Lake Arvo is 112 metres deep [1].", context=[p.text for p in PASSAGES])

    rep = evaluate(rag, QUESTIONS[:3], progress=False)
    assert rep.records[2].abstained and rep.records[2].scores.score == 1.0
    assert rep.records[0].scores.citation_recall == 1.0


class SlowToLoad(FakeProgram):
    """Loads something on first use, as GroundedQA loads its answer judge (and, on a fresh home, writes its merged
    model); ``warm_up`` loads it beforehand, and fails where ``broken``."""

    def __init__(self, broken: bool = False) -> None:
        super().__init__()
        self.loaded, self.broken = False, broken

    def warm_up(self) -> list[str]:
        if self.broken:
            raise RuntimeError("no judge model")
        time.sleep(0.3)
        self.loaded = True
        return ["judge"]

    def forward(self, question: str) -> dspy.Prediction:
        if not self.loaded:
            self.warm_up()
        return super().forward(question)


def test_what_a_program_loads_on_first_use_is_loaded_before_any_question_is_timed():
    class Wrapper:  # as MLflow's tracing wraps the program
        def __init__(self, program: SlowToLoad) -> None:
            self.program = program

        def __call__(self, question: str) -> dspy.Prediction:
            return self.program(question=question)

    program = SlowToLoad()
    rep = evaluate(Wrapper(program), QUESTIONS[:2], progress=False)
    assert program.loaded and max(r.latency_s for r in rep.records) < 0.3
    # a warm-up that fails is left to the questions, which meet the failure themselves
    rep = evaluate(SlowToLoad(broken=True), QUESTIONS[:2], progress=False)
    assert [r.error for r in rep.records] == ["RuntimeError: no judge model"] * 2


def test_empty_question_set():
    rep = evaluate(FakeProgram(), [], progress=False)
    assert rep.n == 0 and rep.records == [] and rep.metrics.overall.metrics["score"] is None


def test_json_round_trip_and_table(report, tmp_path: Path):
    path = tmp_path / "out" / "report.json"
    report.to_json(path)
    data = json.loads(path.read_text())
    assert data["records"][3]["error"] == "RuntimeError: retrieval exploded"
    assert EvaluationReport.from_json(path) == report
    table = report.table()
    headers = [c.header for c in table.columns]
    assert headers == ["metric", "overall", "single", "false_premise", "multi", "time_shift", "macro"]
    console = Console(record=True, width=200)
    console.print(table)
    text = console.export_text()
    assert "citation_recall" in text and "over_abstention_rate" in text and "premise_macro_f1" in text


def test_answer_judge_usage_reaches_the_records_and_mlflow_metrics(report):
    assert [r.judgments for r in report.records] == [0, 0, 4, 0]
    assert report.records[2].judge_s == pytest.approx(0.6) and report.timing.judge_s == pytest.approx(0.6)
    flat = report.flat_metrics("dev/")
    assert flat["dev/usage/judgments_per_q"] == pytest.approx(1.0) and flat["dev/time/judge_s"] == pytest.approx(0.6)


def test_flat_metrics_skip_none(report):
    flat = report.flat_metrics("dev/")
    assert flat["dev/score"] == pytest.approx(0.625)
    assert flat["dev/count/errors"] == 1.0
    assert "dev/single/citation_recall" in flat
    assert not any(k.startswith("dev/time_shift/") and not k.startswith("dev/time_shift/count/") for k in flat)


def test_log_to_mlflow_new_run(report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import mlflow
    from mlflow.tracking import MlflowClient
    from mlflow.tracking._tracking_service import utils as tracking_utils

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    previous = tracking_utils._tracking_uri
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    try:
        run_id = report.log_to_mlflow(run_name="eval-fake", params={"k": 4, "program": {"name": "fake"}},
                                      tracking_uri=uri)
        assert mlflow.get_tracking_uri() == uri
        assert mlflow.active_run() is None  # a run it started, it ended
        client = MlflowClient(tracking_uri=uri)
        run = client.get_run(run_id)
        assert run.info.run_name == "eval-fake"
        assert run.data.params["k"] == "4" and run.data.params["dev/judge"] == "offline"
        assert run.data.metrics["dev/score"] == pytest.approx(0.625)
        assert run.data.metrics["dev/single/citation_recall"] == pytest.approx(0.5)
        artifacts = [a.path for a in client.list_artifacts(run_id, "evaluation")]
        assert artifacts == ["evaluation/dev_report.json"]
        local = client.download_artifacts(run_id, "evaluation/dev_report.json", str(tmp_path))
        assert EvaluationReport.from_json(local).n == 4

        with mlflow.start_run(run_name="outer") as outer:
            same = report.log_to_mlflow(prefix="test/")
            assert same == outer.info.run_id
        assert client.get_run(outer.info.run_id).data.metrics["test/score"] == pytest.approx(0.625)
    finally:
        mlflow.set_tracking_uri(previous)
