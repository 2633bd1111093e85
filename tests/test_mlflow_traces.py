"""MLflow traces of questions, built from the program's own trace records, against a real MLflow store:
one root span per question, RETRIEVER spans whose outputs are Documents, stage spans, CHAT_MODEL spans
with token counts; `ask` and `evaluate` leave traces linked to their run; `--save-trace` is unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import dspy
import pytest
from scripted_compile import DEMO_CORPUS as CORPUS

from groundqa.lm.scripted import ScriptedLM, input_field
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.retriever import Retriever
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.runtime.trace import LMCall, RetrievalCall, Trace
from groundqa.store.chroma_store import CorpusStore
from groundqa.tracking.traces import QuestionTracer, RecordingTrace, flush_traces, lookup_for

LM_FIRST = {"extractive_first": 1.0}  # the LM is asked first: these tests exercise its path

ANSWERED = "Who designed the harbor lights of Port Vessany?"
ABSTAINED = "When did Paolo Marchetti design the harbor lights?"


def reply(messages: list[dict[str, str]]) -> dict[str, str]:
    question = input_field(messages, "question")
    if "harbor" in question:
        return {"answer": "The harbor lights were designed by engineer Odile Marchetti [1]."}
    if "ferry" in question:
        return {"answer": "The crossing takes 50 minutes in calm weather [1]."}
    return {"answer": "NOT IN SOURCES"}


@pytest.fixture(scope="module")
def store(small_demo_store: CorpusStore) -> CorpusStore:
    return small_demo_store


@pytest.fixture
def qa(store: CorpusStore) -> GroundedQA:
    dspy.configure(lm=GuardedLM(ScriptedLM(reply)), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
    return GroundedQA(Retriever(store, k=3), QAConfig.for_lm("embedded", **LM_FIRST))


@pytest.fixture
def scripted_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line builds the scripted LM instead of the embedded one."""
    import groundqa.app as app

    monkeypatch.setattr(app, "build_lm", lambda settings, **kw: ScriptedLM(reply, cache=False))


def _tree(trace: Any) -> dict[str, Any]:
    spans = trace.data.spans
    by_id = {s.span_id: s for s in spans}

    def ancestors(span: Any) -> list[Any]:
        out = []
        while span.parent_id:
            span = by_id[span.parent_id]
            out.append(span)
        return out

    roots = [s for s in spans if s.parent_id is None]
    return {"roots": roots, "spans": spans, "ancestors": ancestors}


def test_a_question_is_one_trace_with_retriever_documents_stages_and_lm_calls(qa, tmp_path):
    import mlflow

    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    mlflow.set_experiment("groundqa-traces")
    records: dict[str, Trace] = {}
    with mlflow.start_run() as run:
        tracer = QuestionTracer(enabled=True, label="compiled", run_id=run.info.run_id, command="test")
        for question in (ANSWERED, ABSTAINED):
            with tracer.question(question, question_id=f"id-{len(records)}", lookup=lookup_for(qa)) as trace:
                qa.run(question, trace=trace)
            records[question] = trace
    flush_traces()
    traces = mlflow.search_traces(run_id=run.info.run_id, return_type="list")
    assert len(traces) == 2  # one per question, linked to the run
    for trace in traces:
        tree = _tree(trace)
        (root,) = tree["roots"]
        question = root.inputs["question"]
        own = records[question]
        assert root.name == "GroundedQA" and root.span_type == "CHAIN"
        assert root.outputs["exit_reason"] == own.result["exit_reason"] == "COMPLETED"
        assert root.outputs["abstained"] == own.result["abstained"]
        assert root.attributes["groundqa.usage"]["retrieval_calls"] == len(own.retrievals())
        assert trace.info.tags["groundqa.program"] == "compiled" and trace.info.tags["groundqa.question_id"]

        # every retrieval record is a RETRIEVER span under the root, its Documents the record's chunks
        retrievers = [s for s in tree["spans"] if s.span_type == "RETRIEVER"]
        assert len(retrievers) == len(own.retrievals()) >= 1
        for span, record in zip(sorted(retrievers, key=lambda s: s.attributes["groundqa.record"]),
                                sorted(own.retrievals(), key=lambda r: r.id), strict=True):
            assert root in tree["ancestors"](span)
            assert span.inputs["query"] == record.query
            assert [d["id"] for d in span.outputs] == record.ids
            assert [d["metadata"]["score"] for d in span.outputs] == pytest.approx(record.scores)
            assert all(d["metadata"]["doc_id"] and d["metadata"]["chunk_id"] == d["id"] for d in span.outputs)
            assert all(d["page_content"] for d in span.outputs)
            assert span.start_time_ns <= span.end_time_ns
        stages = {s.name for s in tree["spans"] if s.attributes.get("groundqa.stage") and s.span_type == "CHAIN"}
        assert "premise verification" in stages
        lm_spans = [s for s in tree["spans"] if s.span_type == "CHAT_MODEL"]
        assert len(lm_spans) == len(own.lm_calls())
        for span in lm_spans:
            usage = span.attributes["mlflow.chat.tokenUsage"]
            record = next(r for r in own.lm_calls() if r.id == span.attributes["groundqa.record"])
            assert usage["input_tokens"] == record.usage["prompt_tokens"] > 0
            assert usage["output_tokens"] == record.usage["completion_tokens"]
            assert [s.name for s in tree["ancestors"](span)][-2:] == ["synthesis", "GroundedQA"]
    answered = next(t for t in traces if t.data.spans[0].inputs["question"] == ANSWERED)
    assert {s.name for s in answered.data.spans} >= {"retrieval", "synthesis", "attempt 1"}
    assert answered.info.token_usage["input_tokens"] > 0


def test_recording_trace_saves_exactly_what_a_plain_trace_saves(qa, tmp_path):
    recorded = RecordingTrace(question=ANSWERED)
    qa.run(ANSWERED, trace=recorded)
    assert recorded.arrived_ns(recorded.records[0].id)
    path = recorded.save(tmp_path / "t.json")
    data = json.loads(path.read_text())
    assert set(data) == set(Trace().to_dict())
    loaded = Trace.load(path)
    assert [r.id for r in loaded.records] == [r.id for r in recorded.records]
    assert any(isinstance(r, LMCall) for r in loaded.records) and any(isinstance(r, RetrievalCall) for r in loaded.records)


def test_tracing_off_changes_nothing(qa):
    tracer = QuestionTracer(enabled=False)
    assert tracer.wrap(qa) is qa
    with tracer.question(ANSWERED) as trace:
        result = qa.run(ANSWERED, trace=trace)
    assert trace.result["answer"] == result.answer


def _questions_file(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    rows = [{"id": "q1", "question": ANSWERED, "answers": ["Odile Marchetti"], "type": "single"},
            {"id": "q2", "question": "How long does the ferry crossing to Calder take?", "answers": ["50 minutes"],
             "type": "single"},
            {"id": "q3", "question": ABSTAINED, "should_abstain": True, "type": "cross_entity"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.integration
@pytest.mark.parametrize("engine", ["dspy", "mlflow"])
def test_evaluate_logs_a_run_with_its_dataset_duration_and_a_trace_per_question(engine, tmp_path, home, scripted_cli,
                                                                               capsys):
    import mlflow

    from groundqa.cli.main import main

    code = main(["evaluate", "--questions", str(_questions_file(tmp_path)), "--corpus", str(CORPUS), "--home", str(home),
                 "--quiet", "--engine", engine])
    assert code == 0, capsys.readouterr().err
    mlflow.set_tracking_uri(f"sqlite:///{(home / 'mlflow.db').resolve()}")
    experiment = mlflow.get_experiment_by_name("groundqa-questions")
    assert "Evaluation runs" in experiment.tags["mlflow.note.content"]
    assert experiment.artifact_location == (home / "mlartifacts").resolve().as_uri()
    (run,) = mlflow.search_runs([experiment.experiment_id], output_format="list")
    assert run.data.params["engine"] == engine and "dev/score" in run.data.metrics
    assert run.inputs.dataset_inputs and any(d.dataset.name == "questions-dev" for d in run.inputs.dataset_inputs)
    traces = mlflow.search_traces(run_id=run.info.run_id, return_type="list")
    assert len(traces) == 3 and {t.info.tags["groundqa.program"] for t in traces} == {"baseline"}
    assert {t.info.tags["groundqa.question_id"] for t in traces} == {"q1", "q2", "q3"}
    # the run spans the evaluation: at least as long as the questions it traced
    spent = sum(t.info.execution_duration for t in traces)
    assert run.info.end_time - run.info.start_time >= spent
    if engine == "mlflow":
        assert "citation_recall/mean" in run.data.metrics and "grounding_score/mean" in run.data.metrics
        assert all(any(a.name == "citation_recall" for a in t.info.assessments) for t in traces)


@pytest.mark.integration
def test_ask_traces_the_question_unless_told_not_to(tmp_path, home, scripted_cli, capsys):
    import mlflow

    from groundqa.cli.main import main

    saved = tmp_path / "t.json"
    assert main(["ask", ANSWERED, "--home", str(home), "--save-trace", str(saved)]) == 0
    err = capsys.readouterr().err
    assert "MLflow trace tr-" in err and saved.exists()
    mlflow.set_tracking_uri(f"sqlite:///{(home / 'mlflow.db').resolve()}")
    experiment = mlflow.get_experiment_by_name("groundqa-ask")
    traces = mlflow.search_traces(locations=[experiment.experiment_id], return_type="list")
    assert len(traces) == 1
    spans = traces[0].data.spans
    retriever = next(s for s in spans if s.span_type == "RETRIEVER")
    assert retriever.outputs[0]["metadata"]["doc_id"]
    assert [s.attributes.get("groundqa.record") for s in spans if s.span_type in ("RETRIEVER", "CHAT_MODEL")]
    record_ids = {r["id"] for r in json.loads(saved.read_text())["records"] if r["kind"] in ("lm", "retrieval")}
    assert record_ids == {s.attributes["groundqa.record"] for s in spans if s.span_type in ("RETRIEVER", "CHAT_MODEL")}

    assert main(["ask", ANSWERED, "--home", str(home), "--no-mlflow"]) == 0
    assert len(mlflow.search_traces(locations=[experiment.experiment_id], return_type="list")) == 1
