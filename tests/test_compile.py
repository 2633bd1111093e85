"""optimize.py / groundqa optimize end to end with scripted LMs on a tiny dataset, logged to a
temporary MLflow store; save -> load -> same predictions; bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import dspy
import pytest
from scripted_compile import DEMO_CORPUS, scripted_reply, write_questions

from groundqa.compile import CompileOptions, compile_program
from groundqa.config import load_settings
from groundqa.experiment_data import DatasetError

CORPUS = DEMO_CORPUS


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return write_questions(tmp_path / "questions.jsonl")


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every LM the compile builds (student, teacher, reflection) is the scripted one."""
    from groundqa.lm import factory
    from groundqa.lm.scripted import ScriptedLM

    monkeypatch.setattr(factory, "build_lm", lambda settings, **kw: ScriptedLM(scripted_reply, cache=False))
    import groundqa.app as app
    import groundqa.compile as compile_module

    monkeypatch.setattr(app, "build_lm", lambda settings, **kw: ScriptedLM(scripted_reply, cache=False))
    monkeypatch.setattr(compile_module, "make_optimizer", _small(compile_module.make_optimizer))


def _small(make: Any) -> Any:
    """The real optimizers, with budgets small enough for a unit test."""

    def build(options: CompileOptions, metric: Any, settings: Any) -> Any:
        if options.optimizer == "mipro":
            return TinyMIPRO(metric=metric, auto=None, num_candidates=2, max_bootstrapped_demos=1,
                             max_labeled_demos=1, num_threads=1, seed=0)
        if options.optimizer == "gepa":
            return dspy.GEPA(metric=metric, max_metric_calls=12, reflection_lm=dspy.settings.lm, num_threads=1,
                             seed=0, reflection_minibatch_size=2)
        if options.optimizer == "simba":
            return dspy.SIMBA(metric=metric, bsize=2, num_candidates=2, max_steps=1, max_demos=1, num_threads=1)
        return make(options, metric, settings)

    return build


class TinyMIPRO(dspy.MIPROv2):
    """MIPROv2 with two trials on the full (tiny) valset."""

    def compile(self, student: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("num_trials", 2)
        kwargs.setdefault("minibatch", False)
        return super().compile(student, **kwargs)


def _options(tmp_path: Path, dataset: Path, optimizer: str, **extra: Any) -> CompileOptions:
    return CompileOptions(optimizer=optimizer, dataset=str(dataset), corpus=str(CORPUS), budget=2,
                          artifacts=tmp_path / "artifacts", progress=False, **extra)


@pytest.mark.parametrize("optimizer", ["labeled", "bootstrap", "bootstrap-rs", "mipro", "gepa", "simba"])
def test_each_optimizer_compiles_end_to_end(optimizer, tmp_path, home, dataset, scripted):
    settings = load_settings(home=home)
    outcome = compile_program(settings, _options(tmp_path, dataset, optimizer, mlflow=False), out=lambda s: None)
    assert outcome.program_path.exists() and (outcome.program_path.parent / "meta.json").exists()
    assert 0.0 <= outcome.compiled["score"] <= 1.0 and 0.0 <= outcome.baseline["score"] <= 1.0
    meta = json.loads((outcome.program_path.parent / "meta.json").read_text())
    assert meta["optimizer"] == optimizer and meta["dataset_digest"] and "baseline" in meta["scores"]


def test_mlflow_logging_and_reload_gives_identical_predictions(tmp_path, home, dataset, scripted):
    import mlflow

    settings = load_settings(home=home)
    outcome = compile_program(settings, _options(tmp_path, dataset, "bootstrap"), out=lambda s: None)
    assert outcome.run_id and outcome.compiled["score"] >= outcome.baseline["score"]
    mlflow.set_tracking_uri(settings.tracking_uri)
    run = mlflow.get_run(outcome.run_id)
    assert run.data.params["optimizer"] == "bootstrap" and "dataset_digest" in run.data.params
    assert "compiled/score" in run.data.metrics and "baseline/score" in run.data.metrics
    artifacts = {a.path for a in mlflow.MlflowClient().list_artifacts(outcome.run_id, "compiled")}
    assert "compiled/program.json" in artifacts and "compiled/meta.json" in artifacts
    children = mlflow.search_runs(filter_string=f"tags.mlflow.parentRunId = '{outcome.run_id}'",
                                  search_all_experiments=True)
    assert {"baseline-eval", "compiled-eval"} <= set(children["tags.mlflow.runName"])
    models = mlflow.search_logged_models(experiment_ids=[run.info.experiment_id], output_format="list")
    assert any(m.source_run_id == outcome.run_id for m in models)

    # save -> load -> same predictions
    from groundqa.app import build_program, open_store

    store = open_store(settings.model_copy(update={"collection": _collection(outcome)}))
    loaded = build_program(settings, store=store, program_path=outcome.program_path)
    demos = {n: len(p.demos) for n, p in loaded.named_predictors()}
    assert demos == outcome.demos
    for question in ("Who designed the harbor lights of Port Vessany?", "How long does the ferry crossing take?"):
        first = loaded.run(question, use_cache=False)
        again = build_program(settings, store=store, program_path=outcome.program_path).run(question, use_cache=False)
        assert (first.answer, [c.chunk_id for c in first.citations]) == (again.answer, [c.chunk_id for c in again.citations])


def _collection(outcome: Any) -> str:
    meta = json.loads((outcome.program_path.parent / "meta.json").read_text())
    return f"gqa-{meta['dataset']}-{meta['dataset_digest'][:8]}"


def test_tracking_server_down_still_finishes(tmp_path, home, dataset, scripted, monkeypatch, capsys):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:9")
    lines: list[str] = []
    outcome = compile_program(load_settings(home=home), _options(tmp_path, dataset, "labeled"), out=lines.append)
    assert outcome.run_id is None and outcome.program_path.exists()
    assert any("not reachable" in line and "artifacts" in line for line in lines)


def test_bad_input_is_named(tmp_path, home, dataset, scripted, capsys):
    from groundqa.cli.main import main

    assert main(["optimize", "--optimizer", "nope", "--home", str(home)]) == 2
    assert "unknown optimizer 'nope'" in capsys.readouterr().err
    only_answerable = tmp_path / "answerable.jsonl"
    only_answerable.write_text("".join(json.dumps({"id": f"a{i}", "question": f"Who is person {i}?", "answers": ["x"],
                                                   "split": "train" if i < 5 else "dev"}) + "\n" for i in range(8)))
    with pytest.raises(DatasetError, match="no should-abstain"):
        compile_program(load_settings(home=home), _options(tmp_path, only_answerable, "bootstrap", mlflow=False))
    tiny = tmp_path / "tiny.jsonl"
    tiny.write_text(json.dumps({"id": "t", "question": "Who?", "split": "train"}) + "\n")
    with pytest.raises(DatasetError, match="train question"):
        compile_program(load_settings(home=home), _options(tmp_path, tiny, "bootstrap", mlflow=False))
    assert main(["ask", "Who?", "--home", str(home), "--program", str(tmp_path / "missing")]) == 2
    assert "compiled program not found" in capsys.readouterr().err
