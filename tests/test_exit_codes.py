"""Exit codes of the command line (groundqa.exit_codes): 0 answered or abstained, 2 bad input, 3 a run that
failed on the LM or the store -- through ``groundqa.cli.main.main`` with scripted LMs that fail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from groundqa import app
from groundqa.cli.main import main
from groundqa.exit_codes import (
    EXIT_CODES,
    EXIT_OK,
    EXIT_RUN_FAILED,
    EXIT_USAGE,
    RUN_FAILURES,
    evaluation_exit_code,
    exit_code_for,
)
from groundqa.lm.scripted import ScriptedLM, faults
from groundqa.runtime import guarded_lm
from groundqa.signatures.types import ExitReason
from groundqa.store.chroma_store import CorpusStore

GOOD = {"answer": "The harbor lights were designed by engineer Odile Marchetti [1]."}
QUESTION = "Who designed the harbor lights of Port Vessany?"


def test_every_exit_reason_has_one_exit_code():
    assert set(EXIT_CODES) == set(ExitReason)
    assert {r for r, code in EXIT_CODES.items() if code == EXIT_RUN_FAILED} == RUN_FAILURES == {
        ExitReason.RATE_LIMITED, ExitReason.LM_ERROR, ExitReason.TIMEOUT, ExitReason.RETRIEVAL_ERROR,
        ExitReason.LM_GENERATION_FAILURE}
    assert {r for r, code in EXIT_CODES.items() if code == EXIT_USAGE} == {ExitReason.EMPTY_INPUT,
                                                                            ExitReason.INVALID_INPUT}
    assert exit_code_for("COMPLETED") == EXIT_OK and exit_code_for(ExitReason.MAX_LM_CALLS_REACHED) == EXIT_OK


def test_an_evaluation_fails_only_when_every_question_failed():
    assert evaluation_exit_code(["COMPLETED", "LM_ERROR", None]) == EXIT_OK
    assert evaluation_exit_code(["LM_ERROR", None, "TIMEOUT"]) == EXIT_RUN_FAILED
    assert evaluation_exit_code([]) == EXIT_OK


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project home with the demo corpus ingested (the first ``ask`` ingests it)."""
    return tmp_path_factory.mktemp("exit-codes") / "home"


@pytest.fixture
def cli(shared_home: Path, monkeypatch: pytest.MonkeyPatch):
    """``run(responder, *argv) -> (exit code, stdout, stderr)``: ``groundqa ask`` on the scripted LM."""
    for key in ("MLFLOW_TRACKING_URI",):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setattr(guarded_lm, "backoff_delay", lambda *a, **k: 0.0)  # retries without waiting
    from groundqa.programs.grounded_qa import QAConfig

    for_lm = QAConfig.for_lm  # the LM is asked first: these tests are about how its failures end a run
    monkeypatch.setattr(QAConfig, "for_lm", classmethod(lambda cls, model, **kw: for_lm(model, **{
        "extractive_first": 1.0, **kw})))

    def run(responder: Any, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
        monkeypatch.setattr(app, "build_lm", lambda settings, **kw: ScriptedLM(responder, cache=False))
        code = main([*argv, "--home", str(shared_home), "--no-cache"])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_answered_and_abstained_exit_0(cli, capsys):
    code, out, _ = cli(lambda m: GOOD, "ask", QUESTION, "--no-mlflow", capsys=capsys)
    assert code == EXIT_OK and "Odile Marchetti" in out
    code, out, _ = cli(lambda m: {"answer": "NOT IN SOURCES"}, "ask", "Did Paolo Marchetti ever work at the Lorvin "
                       "Maritime Library?", "--no-mlflow", "--json", capsys=capsys)
    result = json.loads(out)
    assert code == EXIT_OK and result["abstained"] and result["exit_reason"] == "COMPLETED"


@pytest.mark.parametrize("fault, reason", [
    ("429", "RATE_LIMITED"),
    ("timeout", "TIMEOUT"),
    (RuntimeError("the server said no"), "LM_ERROR"),
    ("500", "LM_ERROR"),
])
def test_a_run_failed_by_the_lm_exits_3(cli, capsys, fault, reason):
    code, out, err = cli(faults([fault] * 8), "ask", QUESTION, "--no-mlflow", "--json", capsys=capsys)
    assert json.loads(out)["exit_reason"] == reason
    assert code == EXIT_RUN_FAILED
    assert f"the run ended with {reason}" in err and "Traceback" not in err


def test_a_store_failure_exits_3(cli, capsys, monkeypatch):
    def broken(self: CorpusStore, *args: Any, **kwargs: Any) -> list[Any]:
        raise ConnectionError("chroma is down")

    monkeypatch.setattr(CorpusStore, "query", broken)
    code, out, err = cli(lambda m: GOOD, "ask", QUESTION, "--no-mlflow", capsys=capsys)
    assert code == EXIT_RUN_FAILED and "exit: RETRIEVAL_ERROR" in out and "RETRIEVAL_ERROR" in err


def test_no_usable_answer_without_a_fallback_exits_3(cli, capsys, monkeypatch):
    from groundqa.programs.grounded_qa import QAConfig

    for_lm = QAConfig.for_lm
    monkeypatch.setattr(QAConfig, "for_lm", classmethod(lambda cls, model, **kw: for_lm(model, fallback="abstain",
                                                                                            **kw)))
    code, out, _ = cli(lambda m: "", "ask", QUESTION, "--no-mlflow", "--json", capsys=capsys)
    assert json.loads(out)["exit_reason"] == "LM_GENERATION_FAILURE" and code == EXIT_RUN_FAILED


@pytest.mark.parametrize("question, message", [
    ("   ", "the question is empty"),
    ("What is \x07 this?", "control characters"),
    ("?!", "no words"),
    ("Who designed the \udcff lights?", "not valid UTF-8"),
])
def test_bad_questions_exit_2_with_one_line(cli, capsys, question, message):
    code, out, err = cli(lambda m: pytest.fail("no LM call for bad input"), "ask", question, capsys=capsys)
    assert code == EXIT_USAGE and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_evaluate_reports_failed_questions_and_exits_3_only_when_all_failed(cli, capsys, tmp_path, demo_corpus):
    questions = tmp_path / "q.jsonl"
    rows = [{"id": f"q{i}", "question": q, "answers": ["Odile Marchetti"], "type": "single"}
            for i, q in enumerate([QUESTION, "Who designed the harbor lights?"])]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    argv = ("evaluate", "--questions", str(questions), "--corpus", str(demo_corpus), "--no-mlflow", "--quiet",
            "--collection", "exit-codes-eval")
    code, _, err = cli(faults([RuntimeError("down")], then=lambda m: GOOD), *argv, capsys=capsys)
    assert code == EXIT_OK and "1 of 2 question run(s) failed (LM_ERROR: 1)" in err
    code, _, err = cli(faults([], then=lambda m: (_ for _ in ()).throw(RuntimeError("down"))), *argv, capsys=capsys)
    assert code == EXIT_RUN_FAILED and "2 of 2 question run(s) failed (LM_ERROR: 2)" in err


def _edited_trace(source: Path, target: Path, change: Any) -> Path:
    data = json.loads(source.read_text())
    change(data)
    target.write_text(json.dumps(data))
    return target


def _lm_records(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in data["records"] if r["kind"] == "lm"]


def test_replay_problems_are_one_line_and_exit_2(cli, capsys, tmp_path):
    trace = tmp_path / "trace.json"
    assert cli(lambda m: GOOD, "ask", QUESTION, "--no-mlflow", "--save-trace", str(trace), capsys=capsys)[0] == 0
    never = lambda m: pytest.fail("a replay never calls the LM")  # noqa: E731
    code, out, _ = cli(never, "ask", QUESTION, "--no-mlflow", "--replay", str(trace), capsys=capsys)
    assert code == EXIT_OK and "Odile Marchetti" in out  # the recorded question replays offline

    def bad(name: str, change: Any) -> Path:
        return _edited_trace(trace, tmp_path / f"{name}.json", change)

    cases = [
        (trace, "Who designed the harbor lights?", "was not recorded in the trace"),
        (bad("no-outputs", lambda d: _lm_records(d)[0].update(outputs=[])), QUESTION,
         "records a successful LM call with no outputs"),
        (bad("bad-field", lambda d: _lm_records(d)[0].update(latency_ms="slow")), QUESTION,
         "latency_ms: Input should be a valid number"),
        (bad("bad-kind", lambda d: d["records"].append({"kind": "lm"})), QUESTION, "Field required"),
        (bad("odd-kind", lambda d: d["records"].append({"kind": "shell"})), QUESTION, "has kind 'shell'"),
        (bad("records", lambda d: d.update(records={"a": 1})), QUESTION, "'records' must be a list"),
        (bad("version", lambda d: d.update(format_version=None)), QUESTION, "format_version must be a whole number"),
    ]
    for path, question, message in cases:
        code, out, err = cli(never, "ask", question, "--no-mlflow", "--replay", str(path), capsys=capsys)
        assert code == EXIT_USAGE and out == "", path.name
        assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (path.name, err)
