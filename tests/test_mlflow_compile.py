"""A compile logged to a real MLflow store (scripted LM): nested evaluation runs with their dataset, a real
duration and a trace per dev question tagged baseline/compiled; the comparison chart with the run; the
compiled program as a READY model (no PENDING placeholder); artifacts under the project home; and
`groundqa ask/evaluate --program models:/NAME/VERSION` or `runs:/...` answering like the program file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scripted_compile import DEMO_CORPUS, QUESTIONS, cited_answer, write_questions

from groundqa.compile import CompileOptions, compile_program
from groundqa.config import load_settings
from groundqa.lm.scripted import ScriptedLM, input_field

pytestmark = pytest.mark.integration

CORPUS, ROWS = DEMO_CORPUS, QUESTIONS
REGISTERED = "groundqa-tiny"


def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
    return {"answer": cited_answer(input_field(messages, "question"))}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Any:
    import os

    import groundqa.app as app
    from groundqa.lm import factory

    root = tmp_path_factory.mktemp("compile")
    dataset = write_questions(root / "questions.jsonl")
    with pytest.MonkeyPatch.context() as patch:
        for key in [k for k in os.environ if k.startswith("GROUNDQA_")] + ["MLFLOW_TRACKING_URI"]:
            patch.delenv(key, raising=False)
        patch.setattr(factory, "build_lm", lambda settings, **kw: ScriptedLM(reply, cache=False))
        patch.setattr(app, "build_lm", lambda settings, **kw: ScriptedLM(reply, cache=False))
        settings = load_settings(home=root / "home")
        options = CompileOptions(optimizer="bootstrap", dataset=str(dataset), corpus=str(CORPUS), budget=2,
                                 artifacts=root / "artifacts", progress=False, register_as=REGISTERED)
        outcome = compile_program(settings, options, out=lambda s: None)
        yield {"outcome": outcome, "settings": settings, "home": root / "home", "patch": patch}


@pytest.fixture
def client(compiled: Any) -> Any:
    import mlflow

    mlflow.set_tracking_uri(compiled["settings"].tracking_uri)
    return mlflow.MlflowClient(compiled["settings"].tracking_uri)


def test_nested_evaluations_have_dataset_duration_and_tagged_traces(compiled, client):
    import mlflow

    outcome = compiled["outcome"]
    run = client.get_run(outcome.run_id)
    children = client.search_runs([run.info.experiment_id], f"tags.mlflow.parentRunId = '{outcome.run_id}'")
    by_label = {c.data.tags.get("groundqa.program"): c for c in children}
    assert set(by_label) >= {"baseline", "compiled"}
    for label in ("baseline", "compiled"):
        child = by_label[label]
        assert child.info.run_name == f"{label}-eval" and child.data.metrics["dev/score"] >= 0
        assert any(d.dataset.name.endswith("-dev") for d in child.inputs.dataset_inputs)
        traces = mlflow.search_traces(run_id=child.info.run_id, return_type="list")
        assert len(traces) == 4  # the dev questions, each with its retrievals
        assert {t.info.tags["groundqa.program"] for t in traces} == {label}
        assert {t.info.tags["groundqa.command"] for t in traces} == {"compile"}
        for trace in traces:
            assert any(s.span_type == "RETRIEVER" and s.outputs for s in trace.data.spans)
            assert sum(1 for s in trace.data.spans if s.parent_id is None) == 1
        assert child.info.end_time - child.info.start_time >= sum(t.info.execution_duration for t in traces)
    assert run.data.metrics["compiled/score"] == by_label["compiled"].data.metrics["dev/score"]


def test_chart_model_and_artifacts_are_tidy(compiled, client):
    import mlflow

    outcome, home = compiled["outcome"], compiled["home"]
    run = client.get_run(outcome.run_id)
    assert "charts/comparison.png" in {a.path for a in client.list_artifacts(outcome.run_id, "charts")}
    experiment = client.get_experiment(run.info.experiment_id)
    assert experiment.artifact_location == (home / "mlartifacts").resolve().as_uri()
    assert "Compile runs" in experiment.tags["mlflow.note.content"]
    assert run.info.artifact_uri.startswith((home / "mlartifacts").resolve().as_uri())
    models = mlflow.search_logged_models(experiment_ids=[run.info.experiment_id], output_format="list")
    assert models and all("READY" in str(m.status) for m in models)  # no placeholder left PENDING
    assert [m.name for m in models if m.source_run_id == outcome.run_id] == ["program"]
    version = client.get_model_version(REGISTERED, "1")
    assert version.run_id == outcome.run_id


def _ask(capsys: Any, home: Path, program: str, *extra: str) -> dict[str, Any]:
    from groundqa.cli.main import main

    code = main(["ask", ROWS[0][1], "--home", str(home), "--json", "--program", program, "--no-mlflow", *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_ask_and_evaluate_take_models_and_runs_uris(compiled, client, capsys, tmp_path):
    from groundqa.cli.main import main

    outcome, home = compiled["outcome"], compiled["home"]
    from_file = _ask(capsys, home, str(outcome.program_path), "--collection", _collection_of(outcome))
    for uri in (f"models:/{REGISTERED}/1", f"runs:/{outcome.run_id}/program", f"runs:/{outcome.run_id}/compiled"):
        extra = ("--collection", _collection_of(outcome)) if uri.endswith("/compiled") else ()
        answer = _ask(capsys, home, uri, *extra)
        assert (answer["answer"], answer["citations"]) == (from_file["answer"], from_file["citations"]), uri
    assert from_file["answer"] and not from_file["abstained"]

    assert main(["ask", "Who?", "--home", str(home), "--program", f"models:/{REGISTERED}/9", "--no-mlflow"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("groundqa: error: cannot load models:/groundqa-tiny/9") and len(err.splitlines()) == 1

    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": ROWS[0][1], "answers": ROWS[0][2]}) + "\n")
    code = main(["evaluate", "--questions", str(questions), "--corpus", str(CORPUS), "--home", str(home),
                 "--program", f"models:/{REGISTERED}/1", "--quiet", "--no-mlflow"])
    assert code == 0, capsys.readouterr().err


def _collection_of(outcome: Any) -> str:
    meta = json.loads((outcome.program_path.parent / "meta.json").read_text())
    return f"gqa-{meta['dataset']}-{meta['dataset_digest'][:8]}"
