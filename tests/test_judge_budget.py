"""The answer judge's budget: at most ``Budgets.max_judgments`` distinct sentences read for one question.

Each judgment costs about 0.15 s on 2 cores, and the slowest questions were those whose bridge and rescue readings went
through many sentences. A reading cut short decides on what it has read; after it the rules decide alone, and a
second opinion that could not be given leaves the rules' choice standing (never a refusal). Unit tests of the run's
count and of the readings with a scripted judge; then the whole program on the real embedded LM with the shipped
judge over a corpus written for this test.
"""

from __future__ import annotations

import math
import time

import pytest
from embedded_programs import CORRAN_MILL, embedded_program
from scripted_retrieval import judged_program, passage

from groundqa.programs.context import build_context
from groundqa.programs.extractive import rank_sentences
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.judge_budget import JudgeBudgetSpent, budgeted
from groundqa.programs.rescue import rescue_answer, second_opinion
from groundqa.runtime.run import Budgets, RunState, run_scope

STRIKE = ("The Blowers' Strike of 1934 was called off by the union after 47 days. "
          "The blowers stopped work when the management cut piece rates by 15 percent. "
          "Work at the furnaces resumed on 14 May 1934.")
QUESTION = "Why was the Blowers' Strike of 1934 called?"
HIT = passage("orlanc-glassworks#1", 0.6, STRIKE, "Orlanc Glassworks")


def test_the_run_counts_distinct_sentences_against_the_budget() -> None:
    state = RunState(budgets=Budgets(max_judgments=2))
    assert state.judge_read("a") and state.judge_read("b")
    assert state.judge_read("a")  # read already: its judgment is cached, it costs nothing
    assert not state.judge_read("c") and not state.judge_read("d")
    assert state.usage.judgments == 2
    assert [n for n in state.notes if "budget of 2 sentences was spent" in n] == [state.notes[0]]  # noted once
    unlimited = RunState()
    assert Budgets().max_judgments is None and all(unlimited.judge_read(i) for i in range(100))
    assert unlimited.usage.judgments == 100
    with pytest.raises(ValueError):
        Budgets(max_judgments=0)


def test_the_embedded_default_has_a_budget_and_it_round_trips() -> None:
    assert QAConfig.for_lm("embedded").budgets.max_judgments == 14
    assert QAConfig.for_lm("openai/gpt-4o-mini").budgets.max_judgments is None
    assert Budgets(**Budgets(max_judgments=7).model_dump()).max_judgments == 7


def test_a_judge_outside_a_run_is_not_counted_and_one_past_the_budget_is_not_asked() -> None:
    asked: list[str] = []

    def judge(title: str, before: str, sentence: str, question: str) -> float:
        asked.append(sentence)
        time.sleep(0.002)
        return 1.0

    counted = budgeted(judge)
    assert [counted("t", "", s, "q") for s in "abc"] == [1.0, 1.0, 1.0]  # no run: no budget
    state = RunState(budgets=Budgets(max_judgments=1))
    with run_scope(state):
        assert counted("t", "", "x", "q") == 1.0
        with pytest.raises(JudgeBudgetSpent):
            counted("t", "", "y", "q")
    assert asked == ["a", "b", "c", "x"]
    assert state.usage.judgments == 1 and state.usage.judge_ms >= 2.0  # the one judgment read, timed


def _readings(margins: dict[str, float]) -> tuple[list[str], object]:
    read: list[str] = []

    def judge(title: str, before: str, sentence: str, question: str) -> float:
        read.append(sentence)
        return next((m for word, m in margins.items() if word in sentence), -6.0)

    return read, budgeted(judge)


def test_a_rescue_cut_short_decides_on_what_it_read() -> None:
    context = build_context([HIT], 2400, "trim")
    order = [c.text for c in rank_sentences(QUESTION, context)]
    margins = {order[0][:20]: 3.5, order[-1][:20]: 6.0}  # the last-ranked sentence is the judge's favourite
    read, judge = _readings(margins)
    with run_scope(RunState(budgets=Budgets(max_judgments=len(order) - 1))):
        rescued = rescue_answer(QUESTION, context, judge, 3.0, 6)
    assert rescued is not None and rescued.text == order[0] and order[-1] not in read
    read, judge = _readings(margins)
    with run_scope(RunState(budgets=Budgets(max_judgments=len(order)))):
        assert rescue_answer(QUESTION, context, judge, 3.0, 6).text == order[-1]  # type: ignore[union-attr]


def test_a_second_opinion_the_budget_cut_off_leaves_the_rules_choice() -> None:
    context = build_context([HIT], 2400, "trim")
    chosen = [c for c in rank_sentences(QUESTION, context) if "called off" in c.text]
    _, judge = _readings({"called off": -5.0, "piece rates": 4.0})
    state = RunState(budgets=Budgets(max_judgments=1))
    state.judge_read("spent on something else")
    with run_scope(state):
        opinion = second_opinion(QUESTION, context, judge, chosen, 2.0, 6)
    assert opinion.preferred is None and opinion.quoted == math.inf  # no veto either: -5 was never read


def test_the_program_reads_no_more_than_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    margins = {"piece rates": 2.5, "called off": -1.0}
    program, read = judged_program(monkeypatch, HIT, margins)
    result = program.run(QUESTION)
    assert "piece rates" in result.answer and result.usage.judgments == len(set(read)) >= 2
    program, read = judged_program(monkeypatch, HIT, margins, budgets=Budgets(max_judgments=1))
    result = program.run(QUESTION)
    assert "called off" in result.answer and "piece rates" not in result.answer  # the rules' choice stands
    assert len(set(read)) == result.usage.judgments == 1
    assert any("budget of 1 sentence was spent" in note for note in result.notes)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORRAN_MILL, "judge-budget")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_shipped_judge_stays_within_the_budget(program: GroundedQA) -> None:
    question = "Why was the Corran Mill strike called?"
    result = program.run(question)
    assert "eleven hours" in result.answer, result.abstain_message
    assert 2 <= result.usage.judgments <= program.config.budgets.max_judgments
    assert result.usage.judge_ms > 0  # the forward passes' time, apart from the program's own
    tight = program.config.budgets.model_copy(update={"max_judgments": 1})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(program.config, "budgets", tight)
        result = program.run(question)
    assert "eleven hours" not in result.answer and result.usage.judgments == 1
    assert any("budget of 1 sentence was spent" in note for note in result.notes)
