"""Program files are data: every field is checked with a one-line ProgramFileError naming it, a predictor's
saved LM is never used, unknown keys are refused (except inside the ``groundqa`` section, kept for later
records), and the command line exits 2 without a traceback."""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dspy
import pytest

from groundqa.cli.main import main
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.persistence import ProgramFileError, load_program, matches, save_program


def fresh(**config: Any) -> GroundedQA:
    return GroundedQA(None, QAConfig.for_lm("embedded", **config))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A valid program file's content, with a bootstrapped and a labeled demo."""
    qa = fresh()
    qa.synthesize.generate.demos = [
        dspy.Example(augmented=True, question="q", passages="[1] t", format="prose", answer="a [1]"),
        dspy.Example(id="d1", question="q2", answer="b", answers=["b"], should_abstain=False, false_premise=None,
                     gold_docs=["x"], type="single"),
    ]
    qa.premises.judge.demos = [dspy.Example(claim="c", passages="[1] p", supported=True, confidence=0.9,
                                            evidence=[1], rationale="r", augmented=True)]
    path = save_program(qa, tmp_path_factory.mktemp("program"))
    return json.loads(path.read_text())


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "program.json"
    path.write_text(json.dumps(data))
    return path


def edited(saved: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = copy.deepcopy(saved)
    change(data)
    return data


def test_a_valid_file_loads_with_its_demos(saved, tmp_path):
    qa = load_program(fresh(), write(tmp_path, saved))
    assert len(qa.synthesize.generate.demos) == 2 and qa.premises.judge.demos[0]["evidence"] == [1]


def test_a_predictor_lm_in_the_file_is_never_used(saved, tmp_path, caplog):
    lm_state = {"model": "openai/attacker-model", "api_base": "http://attacker.example/v1", "api_key": "sk-stolen",
                "model_type": "chat", "temperature": 0.0}
    data = edited(saved, lambda d: [d[name].update(lm=lm_state) for name in d["groundqa"]["predictors"]])
    with caplog.at_level(logging.WARNING):
        qa = load_program(fresh(), write(tmp_path, data))
    assert all(p.lm is None for _, p in qa.named_predictors())
    assert "never chooses the LM" in caplog.text and "sk-stolen" not in caplog.text
    with dspy.context(lm=dspy.utils.DummyLM([{"sub_questions": '["a", "b"]'}])):  # the configured LM answers
        assert qa.split(question="a and b?").sub_questions == ["a", "b"]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return change


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.pop(key)


@pytest.mark.parametrize("change, message", [
    (_set("groundqa/format_version", None), "groundqa.format_version must be a whole number, not null"),
    (_set("groundqa/format_version", [2]), "groundqa.format_version must be a whole number, not a list"),
    (_set("groundqa/format_version", "2"), "groundqa.format_version must be a whole number, not text"),
    (_set("groundqa/format_version", True), "groundqa.format_version must be a whole number"),
    (_set("groundqa/format_version", 0), "groundqa.format_version must be 1 or more"),
    (_set("groundqa/predictors", "split"), "groundqa.predictors must be a list of names"),
    (_set("split/signature", 42), "predictor 'split': signature must be an object, not a number (42)"),
    (_set("split/signature/instructions", 42), "predictor 'split': signature.instructions must be text"),
    (_set("split/signature/fields", [{"prefix": "Q:", "description": "d"}]), "signature.fields has 1 field(s)"),
    (_set("split/signature/fields/0", "Question:"), "signature.fields[0] must be an object"),
    (_set("split", []), "predictor 'split': its state must be an object, not a list"),
    (_set("gates", [0.3]), "gates must be an object, not a list"),
    (_set("gates/k", "many"), "invalid value for k"),
    (_drop("metadata"), "'metadata' is missing"),
    (_set("metadata", "3.4.1"), "metadata must be an object"),
    (_drop("split"), "no saved state for predictor 'split'"),
    (_set("rogue", {"lm": None}), "unknown key 'rogue'"),
    (_set("split/forward", "print('owned')"), "predictor 'split': unknown key 'forward'"),
    (_set("split/demos", "q: a"), "predictor 'split': demos must be a list, not text"),
    (_set("split/traces", {}), "predictor 'split': traces must be a list, not an object"),
    (_set("split/lm", "openai/gpt-4o"), "predictor 'split': lm must be null or an object, not text"),
    (_set("synthesize.generate/demos/0", 42), "predictor 'synthesize.generate': demos[0] must be an object"),
    (_set("synthesize.generate/demos/0/answer", 42), "demos[0].answer must be str, not a number (42)"),
    (_set("synthesize.generate/demos/0/augmented", "yes"), "demos[0].augmented must be bool, not text"),
    (_set("premises.judge/demos/0/supported", "yes"), "demos[0].supported must be bool, not text"),
    (_set("premises.judge/demos/0/evidence", [1, "2"]), "demos[0].evidence must be list[int], not a list"),
    (_set("premises.judge/demos/0/confidence", None), "demos[0].confidence must be float, not null"),
])
def test_every_malformed_field_is_one_line_naming_it(saved, tmp_path, change, message):
    path = write(tmp_path, edited(saved, change))
    with pytest.raises(ProgramFileError) as info:
        load_program(fresh(), path)
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("content, message", [
    ("[]", "holds a list, not an object"),
    ("{\"groundqa\": []}", "no 'groundqa' section"),
    ("{not json", "is not a readable compiled program"),
])
def test_a_file_that_is_not_a_program_is_one_line(tmp_path, content, message):
    path = tmp_path / "program.json"
    path.write_text(content)
    with pytest.raises(ProgramFileError, match=message):
        load_program(fresh(), path)


def test_unknown_keys_in_the_groundqa_section_are_kept_for_later_records(saved, tmp_path):
    data = edited(saved, _set("groundqa/retrieval_index", {"version": 3}))  # a record a later groundqa may add
    assert load_program(fresh(), write(tmp_path, data)).synthesize.generate.demos


def test_chain_of_thought_demos_are_checked_against_their_own_signature(tmp_path):
    qa = fresh(reasoning=True)
    qa.synthesize.generate.predict.demos = [dspy.Example(question="q", passages="p", format="prose",
                                                         reasoning="because", answer="a [1]")]
    path = save_program(qa, tmp_path / "cot")
    assert load_program(fresh(reasoning=True), path).synthesize.generate.predict.demos[0]["reasoning"] == "because"
    data = json.loads(path.read_text())
    data["synthesize.generate.predict"]["demos"][0]["reasoning"] = ["not", "text"]
    with pytest.raises(ProgramFileError, match=r"demos\[0\].reasoning must be str"):
        load_program(fresh(reasoning=True), write(tmp_path, data))


def test_type_matching():
    assert matches("x", str) and not matches(1, str) and matches(1, float) and not matches(True, int)
    assert matches(None, str | None) and matches([{"claim": "c"}], list[dict]) and not matches({}, list[str])


def test_the_command_line_exits_2_without_a_traceback(saved, home, tmp_path, capsys):
    path = write(tmp_path, edited(saved, _set("split/signature", 42)))
    code = main(["ask", "Who designed the harbor lights?", "--home", str(home), "--program", str(path), "--no-mlflow"])
    err = capsys.readouterr().err
    assert code == 2 and "signature must be an object" in err and "Traceback" not in err
    assert [line for line in err.splitlines() if line.startswith("groundqa: error")] == [
        line for line in err.splitlines() if "signature" in line]
