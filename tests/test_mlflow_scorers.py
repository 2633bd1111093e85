"""The grounding scorers (``groundqa.metrics.scorers``) equal the project's metrics on the same answers, and
``evaluate(engine="mlflow")`` (``mlflow.genai.evaluate``) gives the same numbers as the default
``dspy.Evaluate`` engine on the same questions, against a real MLflow store."""

from __future__ import annotations

import math
from typing import Any

import dspy
import pytest

from groundqa.datasets.loaders import Question
from groundqa.evaluation import evaluate
from groundqa.lm.scripted import ScriptedLM, input_field
from groundqa.metrics import grounding_scorers
from groundqa.metrics.aggregate import MEAN_METRICS
from groundqa.metrics.composite import make_grounding_metric
from groundqa.metrics.scorers import REPORT_METRIC, SCORERS, expectations_of
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.retriever import Retriever
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.store.chroma_store import CorpusStore
from groundqa.tracking.traces import QuestionTracer, flush_traces

LM_FIRST = {"extractive_first": 1.0}  # the LM is asked first: these tests exercise its path

QUESTIONS = [
    Question(id="q1", question="Who designed the harbor lights of Port Vessany?", answers=["Odile Marchetti"],
             type="single", gold_docs=["harbor-lights"]),
    Question(id="q2", question="How long does the ferry crossing to Calder take?", answers=["50 minutes"],
             type="single"),
    Question(id="q3", question="When did Paolo Marchetti design the harbor lights?", should_abstain=True,
             type="cross_entity", false_premise="Paolo Marchetti designed the harbor lights"),
    Question(id="q4", question="What is the boiling point of liquid nitrogen?", should_abstain=True,
             type="off_corpus"),
    Question(id="q5", question="How many people live on Calder Island? EXPLODE", answers=["900"], type="multi"),
]
REPLIES = {
    "harbor": "The harbor lights were designed by engineer Odile Marchetti [1].",
    "ferry": "The crossing takes about an hour [2].",  # wrong and miscited: partial scores
}


def reply(messages: list[dict[str, str]]) -> dict[str, str]:
    question = input_field(messages, "question")
    return {"answer": next((v for k, v in REPLIES.items() if k in question), "NOT IN SOURCES")}


class Flaky(dspy.Module):
    """GroundedQA that raises on one question (an error record in both engines)."""

    def __init__(self, qa: GroundedQA) -> None:
        super().__init__()
        self.qa = qa
        self.retriever = qa.retriever

    def forward(self, question: str, trace: Any = None) -> dspy.Prediction:
        if "EXPLODE" in question:
            raise RuntimeError("the store exploded")
        return self.qa(question=question, trace=trace)


@pytest.fixture(scope="module")
def store(small_demo_store: CorpusStore) -> CorpusStore:
    return small_demo_store


@pytest.fixture
def program(store: CorpusStore) -> Flaky:
    dspy.configure(lm=GuardedLM(ScriptedLM(reply)), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
    return Flaky(GroundedQA(Retriever(store, k=3), QAConfig.for_lm("embedded", **LM_FIRST)))


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def test_scorers_return_the_metrics_of_score_item(program):
    metric = make_grounding_metric("offline", full=True)
    scorers = grounding_scorers("offline")
    assert [s.name for s in scorers] == list(SCORERS)
    for question in QUESTIONS[:4]:
        pred = program(question=question.question)
        item = metric(dspy.Example(**question.model_dump()).with_inputs("question"), pred).item
        outputs = pred.result.model_dump(mode="json")  # what the mlflow engine's predict_fn returns
        feedback = {s.name: s(inputs={"question": question.question}, outputs=outputs,
                              expectations=expectations_of(question)) for s in scorers}
        assert all(f.rationale for f in feedback.values())
        assert _same(feedback["grounding_score"].value, item.score)
        for name in ("citation_recall", "citation_precision", "faithfulness", "str_em"):
            assert _same(feedback[name].value, getattr(item, name)), (question.id, name)
        assert _same(feedback["answer_correctness"].value, item.correctness)
        assert feedback["abstention"].value == float(item.abstained == item.should_abstain)
        assert feedback["premise_detection"].value == float(item.premise_detected == item.false_premise)
    # an error: the composite and the decisions are scored, the answer-level metrics are not applicable
    failed = {s.name: s(inputs={"question": "x"}, outputs={"error": "boom"},
                        expectations=expectations_of(QUESTIONS[4])) for s in scorers}
    assert failed["grounding_score"].value == 0.0 and failed["citation_recall"].value is None
    assert failed["str_em"].value == 0.0 and "boom" in failed["str_em"].rationale


@pytest.mark.integration
def test_both_engines_give_the_same_numbers(program, tmp_path):
    import mlflow

    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    mlflow.set_experiment("groundqa-engines")
    reports, runs = {}, {}
    for engine in ("dspy", "mlflow"):
        with mlflow.start_run(run_name=engine) as run:
            tracer = QuestionTracer(enabled=True, label="baseline", run_id=run.info.run_id, command="test")
            reports[engine] = evaluate(tracer.wrap(program), QUESTIONS, progress=False, engine=engine)
            runs[engine] = run.info.run_id
    flush_traces()  # traces are exported in the background
    dspy_report, mlflow_report = reports["dspy"], reports["mlflow"]

    # the same answers, the same per-question scores, the same report
    assert [r.answer for r in dspy_report.records] == [r.answer for r in mlflow_report.records]
    assert [r.scores for r in dspy_report.records] == [r.scores for r in mlflow_report.records]
    assert dspy_report.records[4].error == mlflow_report.records[4].error == "RuntimeError: the store exploded"
    assert dspy_report.metrics == mlflow_report.metrics

    # MLflow's own aggregates (mean of the per-question Feedback values) equal the report's means
    metrics = mlflow.get_run(runs["mlflow"]).data.metrics
    overall = dspy_report.metrics.overall.metrics
    for name in SCORERS:
        leaf = REPORT_METRIC.get(name, name)
        if leaf in MEAN_METRICS:
            assert _same(metrics.get(f"{name}/mean"), overall[leaf]), name
    items = [r.scores for r in dspy_report.records]
    assert _same(metrics["abstention/mean"], sum(i.abstained == i.should_abstain for i in items) / len(items))

    # one trace per question in each run, the mlflow engine's carrying one assessment per scorer
    for engine, run_id in runs.items():
        traces = mlflow.search_traces(run_id=run_id, return_type="list")
        assert len(traces) == len(QUESTIONS), engine
        assert {t.info.tags.get("groundqa.program") for t in traces} == {"baseline"}
    for trace in mlflow.search_traces(run_id=runs["mlflow"], return_type="list"):
        names = {a.name for a in trace.info.assessments if a.feedback is not None}
        assert set(SCORERS) <= names
