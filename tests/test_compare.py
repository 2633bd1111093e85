"""``groundqa compare``: run selection, metric table and best marking, PNG chart, JSON, program diffs, errors.

A real MLflow SQLite store in a temporary home holds two fake compile runs (each with nested evaluation
runs and a ``compiled/program.json`` artifact), an evaluation run in a second experiment and a run in an
unrelated experiment.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from groundqa.cli import compare as compare_cli
from groundqa.cli import main as cli
from groundqa.cli.common import add_common_arguments
from groundqa.config import load_settings
from groundqa.tracking.chart import plot_comparison
from groundqa.tracking.comparison import best_runs, build_comparison, direction, sort_key, table_text
from groundqa.tracking.program_diff import diff_programs, load_program_source
from groundqa.tracking.runs import find_experiments, open_client, select_runs

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SYNTH_INSTRUCTIONS = "Answer the question using only the numbered passages.\nCite like [1]."
NEW_INSTRUCTIONS = "Answer the question using only the numbered passages.\nEvery sentence ends with [n]."
DEMO_OLD = {"augmented": True, "question": "When did the lighthouse open?", "passages": "[1] ...",
            "format": "prose", "answer": "In 1902 [1]."}
DEMO_NEW = {"augmented": True, "question": "Who designed the harbor lights?", "passages": "[1] ...",
            "format": "prose", "answer": "Ada Moss [1]."}


def _program(instructions: str, demos: list[dict[str, Any]]) -> dict[str, Any]:
    def predictor(text: str, demos: list[dict[str, Any]]) -> dict[str, Any]:
        return {"traces": [], "train": [], "demos": demos, "lm": None,
                "signature": {"instructions": text, "fields": [{"prefix": "Question:", "description": "${question}"},
                                                               {"prefix": "Answer:", "description": "short"}]}}

    return {"synthesize.generate": predictor(instructions, demos), "split": predictor("Split the question.", []),
            "metadata": {"dependency_versions": {"dspy": "3.4.1"}},
            "groundqa": {"format_version": 1, "program": "GroundedQA", "predictors": ["split", "synthesize.generate"]}}


def _metrics(score: float, over_abstention: float, latency: float, citation_recall: float) -> dict[str, float]:
    return {"score": score, "abstain_f1": 0.7, "citation_recall": citation_recall, "citation_precision": 0.8,
            "str_em": 0.4, "over_abstention_rate": over_abstention, "answer_rate": 0.8,
            "time/mean_latency_s": latency, "count/n": 20.0, "single/score": score - 0.1}


def _log(client: Any, run_id: str, params: dict[str, Any], metrics: dict[str, float]) -> None:
    from mlflow.entities import Metric, Param

    now = int(time.time() * 1000)
    client.log_batch(run_id, metrics=[Metric(k, v, now, 0) for k, v in metrics.items()],
                     params=[Param(k, str(v)) for k, v in params.items()])


def _compile_run(client: Any, experiment_id: str, name: str, start: int, optimizer: str,
                 base: dict[str, float], comp: dict[str, float], program: dict[str, Any], tmp: Path) -> str:
    run = client.create_run(experiment_id, start_time=start, run_name=name)
    run_id = run.info.run_id
    metrics = {**{f"baseline/{k}": v for k, v in base.items()}, **{f"compiled/{k}": v for k, v in comp.items()},
               "delta/score": comp["score"] - base["score"], "compile_seconds": 12.0}
    _log(client, run_id, {"optimizer": optimizer, "lm": "embedded", "dataset_digest": "abc123"}, metrics)
    folder = tmp / name
    folder.mkdir()
    (folder / "program.json").write_text(json.dumps(program), encoding="utf-8")
    (folder / "meta.json").write_text(json.dumps({"optimizer": optimizer}), encoding="utf-8")
    client.log_artifacts(run_id, str(folder), artifact_path="compiled")
    for offset, (label, values) in enumerate((("baseline", base), ("compiled", comp)), start=1):
        child = client.create_run(experiment_id, start_time=start + 100 * offset, run_name=f"{label}-eval",
                                  tags={"mlflow.parentRunId": run_id})
        _log(client, child.info.run_id, {"program": label}, {f"dev/{k}": v for k, v in values.items()})
        client.set_terminated(child.info.run_id)
    client.set_terminated(run_id)
    return run_id


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A home whose MLflow store holds the fake runs; returns ids and paths."""
    from mlflow.tracking import MlflowClient

    home = tmp_path_factory.mktemp("home")
    work = tmp_path_factory.mktemp("work")
    uri = f"sqlite:///{(home / 'mlflow.db').resolve()}"
    client = MlflowClient(tracking_uri=uri)
    artifacts = (home / "artifacts").resolve()
    bundled = client.create_experiment("groundqa-bundled", artifact_location=(artifacts / "bundled").as_uri())
    squad = client.create_experiment("groundqa-squad2", artifact_location=(artifacts / "squad2").as_uri())
    other = client.create_experiment("unrelated", artifact_location=(artifacts / "other").as_uri())
    t0 = int(time.time() * 1000) - 100_000

    evaluation = client.create_run(squad, start_time=t0, run_name="evaluate-baseline")
    _log(client, evaluation.info.run_id, {"program": "baseline", "lm": "embedded"},
         {f"dev/{k}": v for k, v in _metrics(0.45, 0.05, 1.0, 0.5).items()})
    client.set_terminated(evaluation.info.run_id)

    base = _metrics(0.50, 0.20, 2.0, 0.50)
    run_a = _compile_run(client, bundled, "bootstrap-100000", t0 + 1000, "bootstrap", base,
                         _metrics(0.60, 0.10, 2.5, 0.55), _program(SYNTH_INSTRUCTIONS, [DEMO_OLD]), work)
    run_b = _compile_run(client, bundled, "mipro-110000", t0 + 2000, "mipro", base,
                         _metrics(0.70, 0.30, 1.5, 0.65), _program(NEW_INSTRUCTIONS, [DEMO_OLD, DEMO_NEW]), work)
    stray = client.create_run(other, start_time=t0 + 5000, run_name="not-groundqa")
    client.set_terminated(stray.info.run_id)
    return {"home": home, "uri": uri, "a": run_a, "b": run_b, "eval": evaluation.info.run_id,
            "program_a": work / "bootstrap-100000"}


@pytest.fixture
def env(store: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """No GROUNDQA_*/MLFLOW_TRACKING_URI leak in; cwd is a temp dir; MLflow's global URI is restored after."""
    import mlflow
    from mlflow.tracking._tracking_service import utils as tracking_utils

    for key in list(os.environ):
        if key.startswith("GROUNDQA_"):
            monkeypatch.delenv(key)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.setenv("MLFLOW_ENABLE_ASYNC_LOGGING", "false")
    monkeypatch.chdir(tmp_path)
    previous = tracking_utils._tracking_uri
    yield store
    mlflow.set_tracking_uri(previous)


def _client(store: dict[str, Any]) -> Any:
    return open_client(load_settings(home=store["home"]))


def _runs(store: dict[str, Any], tokens: list[str] | None = None, last: int = 5) -> list[Any]:
    client = _client(store)
    return select_runs(client, find_experiments(client), tokens, last)


def _main(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """``groundqa.cli.main.main`` with a parser that has only the compare command."""

    def build_parser() -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(prog="groundqa")
        sub = parser.add_subparsers(dest="command", required=True)
        compare_cli.register(sub, add_common_arguments)
        return parser

    monkeypatch.setattr(cli, "build_parser", build_parser)
    return cli.main(argv)


# -- selection ---------------------------------------------------------------------------------------
def test_last_picks_newest_top_level_runs_of_groundqa_experiments(env):
    runs = _runs(env)
    assert [r.name for r in runs] == ["mipro-110000", "bootstrap-100000", "evaluate-baseline"]
    assert [r.kind for r in runs] == ["compile", "compile", "evaluate"]
    assert [r.name for r in _runs(env, last=1)] == ["mipro-110000"]


def test_runs_by_id_name_and_prefix(env):
    runs = _runs(env, [env["a"], "mipro-110000", env["eval"][:10]])
    assert [r.run_id for r in runs] == [env["a"], env["b"], env["eval"]]
    assert runs[2].experiment == "groundqa-squad2"
    assert [r.name for r in _runs(env, ["mipro", "evaluate"])] == ["mipro-110000", "evaluate-baseline"]


def test_experiment_short_name(env):
    client = _client(env)
    assert [e.name for e in find_experiments(client, "bundled")] == ["groundqa-bundled"]
    assert [r.name for r in select_runs(client, find_experiments(client, "groundqa-bundled"))] == [
        "mipro-110000", "bootstrap-100000"]


# -- table -------------------------------------------------------------------------------------------
def test_rows_order_and_best_marking(env):
    runs = _runs(env, ["bootstrap-100000", "mipro-110000"])
    comparison = build_comparison(runs)
    names = [row.name for row in comparison.rows]
    assert names[:3] == ["baseline/score", "compiled/score", "delta/score"]  # composite first
    assert "compiled/over_abstention_rate" in names and "compiled/time/mean_latency_s" in names
    assert not any("/count/" in n or "/single/" in n for n in names)  # per-type and counts need --all
    assert comparison.row("compiled/score").best == [env["b"]]
    assert comparison.row("compiled/citation_recall").best == [env["b"]]
    lower = comparison.row("compiled/over_abstention_rate")
    assert lower.direction == "lower" and lower.best == [env["a"]]  # 0.10 beats 0.30
    assert comparison.row("compiled/time/mean_latency_s").best == [env["b"]]  # 1.5 s beats 2.5 s
    assert comparison.row("baseline/score").best == []  # all equal: no winner
    assert comparison.row("compiled/answer_rate").best == []  # not ranked

    full = build_comparison(runs, all_metrics=True)
    assert full.row("compiled/count/n").best == [] and "compiled/single/score" in [r.name for r in full.rows]
    only = build_comparison(runs, patterns=["*citation*"])
    assert {r.name.split("/")[-1] for r in only.rows} == {"citation_recall", "citation_precision"}


def test_table_text_columns_and_stars(env):
    runs = _runs(env, ["bootstrap-100000", "mipro-110000", "evaluate-baseline"])
    text = table_text(build_comparison(runs))
    for run in runs:
        assert run.name in text and run.short_id in text
    assert "bootstrap · embedded" in text and "mipro · embedded" in text and "baseline · embedded" in text
    lines = {line.split("│")[1].strip(): line for line in text.splitlines() if line.count("│") >= 4}
    assert "* 0.700" in lines["compiled/score"] and "* 0.600" not in lines["compiled/score"]
    assert "* 0.100" in lines["compiled/over_abstention_rate ↓"]
    assert "0.450" in lines["dev/score"]  # the evaluation run's row; compile runs show —
    assert "—" in lines["dev/score"]


def test_best_runs_ties_and_gaps():
    assert best_runs({"a": 0.5, "b": 0.7, "c": 0.7}, "higher") == ["b", "c"]
    assert best_runs({"a": 0.5, "b": 0.7, "c": None}, "lower") == ["a"]
    assert best_runs({"a": 0.5, "b": 0.5}, "higher") == []
    assert best_runs({"a": 0.5, "b": None}, "higher") == []
    assert best_runs({"a": 1.0, "b": 2.0}, "none") == []


def test_direction_and_sort_key():
    assert direction("compiled/over_abstention_rate") == "lower"
    assert direction("delta/over_abstention_rate") == "lower"
    assert direction("dev/time/mean_latency_s") == "lower"
    assert direction("compile_seconds") == "lower"
    assert direction("dev/abstain_f1") == "higher"
    assert direction("dev/count/n") == direction("dev/single/count/n") == direction("dev/abstain_rate") == "none"
    ordered = sorted(["dev/citation_recall", "compile_seconds", "compiled/score", "dev/score", "dev/single/score",
                      "dev/count/n", "dev/time/total_s", "dev/macro/score"], key=sort_key)
    assert ordered == ["dev/score", "compiled/score", "dev/citation_recall", "dev/time/total_s", "dev/macro/score",
                       "dev/single/score", "dev/count/n", "compile_seconds"]


# -- chart -------------------------------------------------------------------------------------------
def test_png_chart_is_written(env, tmp_path: Path):
    comparison = build_comparison(_runs(env))
    path = plot_comparison(comparison, tmp_path / "out" / "chart.png")
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC and len(data) > 10_000


# -- command line ------------------------------------------------------------------------------------
def test_cli_json_and_default_png(env, monkeypatch, capsys, tmp_path: Path):
    code = _main(["compare", "--home", str(env["home"]), "--json", "--last", "2"], monkeypatch)
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert [r["name"] for r in data["runs"]] == ["mipro-110000", "bootstrap-100000"]
    assert data["runs"][0]["params"]["optimizer"] == "mipro"
    rows = {m["name"]: m for m in data["metrics"]}
    assert rows["compiled/score"]["best"] == [env["b"]] and rows["compiled/score"]["values"][env["a"]] == 0.6
    assert rows["compiled/over_abstention_rate"]["direction"] == "lower"
    assert data["png"] == "compare.png" and (tmp_path / "compare.png").read_bytes()[:8] == PNG_MAGIC
    assert "chart written to compare.png" in err


def test_cli_table(env, monkeypatch, capsys, tmp_path: Path):
    code = _main(["compare", "--home", str(env["home"]), "--experiment", "bundled", "--no-png"], monkeypatch)
    out, _ = capsys.readouterr()
    assert code == 0
    assert "compiled/score" in out and "* 0.700" in out and "mipro-110000" in out
    assert "evaluate-baseline" not in out
    assert not (tmp_path / "compare.png").exists()


def test_diff_logic_from_runs_and_files(env):
    client = _client(env)
    factory = lambda: (client, find_experiments(client))  # noqa: E731
    a = load_program_source("bootstrap-100000", factory)
    b = load_program_source(env["b"], factory)
    assert a.label.startswith("run bootstrap-100000")
    diffs = {d.name: d for d in diff_programs(a, b)}
    synth = diffs["synthesize.generate"]
    assert not synth.instructions_same
    assert "+Every sentence ends with [n]." in synth.instructions_diff and "-Cite like [1]." in synth.instructions_diff
    assert (synth.demos_a, synth.demos_b) == (1, 2)
    assert synth.added == ["Who designed the harbor lights?"] and synth.removed == []
    assert diffs["split"].instructions_same and diffs["split"].added == []
    local = load_program_source(str(env["program_a"]), lambda: pytest.fail("a local path needs no store"))
    assert local.state == a.state


def test_cli_diff_text(env, monkeypatch, capsys):
    code = _main(["compare", "--home", str(env["home"]), "--diff", str(env["program_a"] / "program.json"),
                  "mipro-110000"], monkeypatch)
    out, _ = capsys.readouterr()
    assert code == 0
    assert "== synthesize.generate" in out and "+Every sentence ends with [n]." in out
    assert "demos: 1 -> 2 (+1 added, -0 removed)" in out and "+ Who designed the harbor lights?" in out
    assert "== split" in out and "instructions: same" in out


def test_cli_diff_against_baseline(env, monkeypatch, capsys):
    code = _main(["compare", "--home", str(env["home"]), "--diff", "baseline", "mipro-110000", "--json"],
                 monkeypatch)
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    synth = next(p for p in data["predictors"] if p["name"] == "synthesize.generate")
    assert synth["demos_a"] == 0 and synth["demos_b"] == 2 and len(synth["added"]) == 2


@pytest.mark.parametrize(("argv", "message"), [
    (["--runs", "nope"], "unknown run 'nope'"),
    (["--experiment", "missing"], "unknown experiment 'missing'"),
    (["--diff", "evaluate-baseline", "mipro-110000"], "has no compiled program"),
    (["--diff", "missing/program.json", "mipro-110000"], "file not found: missing/program.json"),
    (["--diff", "mipro-110000", "nope"], "unknown run 'nope'"),
])
def test_bad_input_exits_2_with_one_line(env, monkeypatch, capsys, argv, message):
    code = _main(["compare", "--home", str(env["home"]), "--no-png", *argv], monkeypatch)
    out, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("groundqa: error: ") and message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_missing_store_exits_2(env, monkeypatch, capsys, tmp_path: Path):
    code = _main(["compare", "--home", str(tmp_path / "empty-home")], monkeypatch)
    err = capsys.readouterr().err
    assert code == 2 and "no MLflow store at" in err
    assert not (tmp_path / "empty-home").exists()  # nothing created
