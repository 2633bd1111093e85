"""A description the first hop answers by itself needs no bridge: "When were Port Vessany's tidal harbor lights
installed?" is answered by "Port Vessany installed its first tidal-powered harbor lights in 1987", not by what the
lights' designer's page says of installing turbines (:meth:`groundqa.programs.grounded_qa.GroundedQA._bridge`)."""

from __future__ import annotations

import pytest
from scripted_retrieval import ScriptedRetriever, passage

from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.judge_budget import budgeted

LIGHTS = passage("harbor-lights#0", 0.8, title="The Harbor Lights of Harwick",
                 text="Harwick installed its first tidal-powered harbor lights in 1987. The lights were designed by "
                      "engineer Odile Marchetti of the harbor authority, who spent four years testing turbines.")
DESIGNER = passage("odile-marchetti#0", 0.6, title="Odile Marchetti",
                   text="Odile Marchetti (born 1951) is an engineer from Lorvin. She joined the harbor authority in "
                        "1979. Colleagues remember her for insisting that every turbine be tested through a full winter "
                        "before it was installed, and she retired in 2011.")


def test_a_first_hop_that_says_it_all_keeps_no_bridge(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(GroundedQA, "_answer_judge", staticmethod(lambda: budgeted(lambda *a: -6.0)))
    program = GroundedQA(ScriptedRetriever([LIGHTS, DESIGNER]), QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    result = program.run("When were Harwick's tidal harbor lights installed?")
    assert "1987" in result.answer and "Colleagues" not in result.answer
    assert any("no bridge tried" in note for note in result.notes)
