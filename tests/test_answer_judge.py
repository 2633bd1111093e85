"""The tuned answer judge: the shipped adapter, its veto in the extractive answer and its rescue of refusals."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from groundqa.judges.answer_judge import SHIPPED, SHIPPED_SHA256, judge_prompt, shared_answer_judge
from groundqa.lm.errors import LMBackendError
from groundqa.lm.finetune.adapter import verify_adapter
from groundqa.programs.context import build_context
from groundqa.programs.extractive import extractive_answer
from groundqa.programs.gates import JUDGE_OFF, RESCUE_OFF, Gates
from groundqa.programs.grounded_qa import QAConfig
from groundqa.programs.rescue import rescue_answer
from groundqa.signatures.types import Passage

MINE = Passage(chunk_id="m#0", doc_id="m", title="Lettice Colliery", score=0.7,
               text="The Lettice Colliery opened in 1871. Its winding engine was built in Leeds. "
                    "In 1909 the rescue brigade brought out forty-one survivors.")


def test_the_prompt_reads_title_context_and_question() -> None:
    prompt = judge_prompt("Lettice Colliery", "It opened in 1871.", "Its engine came from Leeds.", " Where? ")
    assert prompt == ("Lettice Colliery. It opened in 1871. Its engine came from Leeds.\nQuestion: Where?\n"
                      "Does the text answer the question? Answer:")


def test_the_shipped_adapter_is_pinned_and_checked(tmp_path: Path) -> None:
    assert verify_adapter(SHIPPED, SHIPPED_SHA256).sha256 == SHIPPED_SHA256
    damaged = tmp_path / "answer-judge.gguf"
    shutil.copy(SHIPPED, damaged)
    with damaged.open("r+b") as f:
        f.seek(-10, 2)
        f.write(b"\x00" * 10)
    with pytest.raises(LMBackendError, match="sha256"):
        verify_adapter(damaged, SHIPPED_SHA256)
    with pytest.raises(LMBackendError, match="not found"):
        shared_answer_judge(tmp_path / "missing.gguf")


def test_the_judge_gates_are_off_below_the_off_value_and_round_trip() -> None:
    gates = Gates(answer_judge=-2.0, answer_rescue=3.0, rescue_candidates=4)
    again = Gates(**gates.model_dump())
    assert (again.answer_judge, again.answer_rescue, again.rescue_candidates) == (-2.0, 3.0, 4)
    assert Gates().answer_judge <= JUDGE_OFF and Gates().answer_rescue >= RESCUE_OFF
    assert QAConfig.for_lm("embedded").gates.answer_rescue == 3.0  # the embedded default rescues
    assert QAConfig.for_lm("openai/gpt-4o-mini").gates.answer_rescue >= RESCUE_OFF


def test_a_sentence_the_judge_doubts_is_not_quoted() -> None:
    question = "When did the Lettice Colliery open?"
    context = build_context([MINE], 4000)
    asked_about: list[str] = []

    def doubts_everything(title: str, before: str, sentence: str, q: str) -> float:
        asked_about.append(sentence)
        return -5.0

    assert "1871" in extractive_answer(question, context, floor=0.0, answerability=0.6).answer
    vetoed = extractive_answer(question, context, floor=0.0, answerability=0.6, judge=doubts_everything,
                               judge_floor=-3.0)
    assert not vetoed.chosen and "answer judge" in vetoed.shortfall.missing[0]
    assert asked_about and vetoed.judged[0][1] == -5.0
    kept = extractive_answer(question, context, floor=0.0, answerability=0.6, judge=doubts_everything,
                             judge_floor=-6.0)
    assert "1871" in kept.answer


def test_a_rescue_quotes_the_sentence_the_judge_is_surest_of_above_its_gate() -> None:
    question = "How many people did the rescue brigade save in 1909?"
    context = build_context([MINE], 4000)

    def reads(title: str, before: str, sentence: str, q: str) -> float:
        return 4.0 if "survivors" in sentence else -2.0

    rescued = rescue_answer(question, context, reads, floor=3.0, candidates=6)
    assert rescued is not None and "forty-one" in rescued.answer and rescued.answer.endswith("[1]")
    assert rescued.support == pytest.approx(0.982, abs=1e-3)
    assert rescue_answer(question, context, reads, floor=4.5, candidates=6) is None
    assert rescue_answer(question, context, reads, floor=3.0, candidates=6, citable={2}) is None


def test_the_tuned_judge_tells_an_answer_from_a_topical_sentence() -> None:
    """The shipped adapter on the real embedded model in llama.cpp (sentences written for this test)."""
    judge = shared_answer_judge()
    question = "When did the Lettice Colliery open?"
    answer = judge.margin("Lettice Colliery", "", "The Lettice Colliery opened in 1871.", question)
    topical = judge.margin("Lettice Colliery", "The Lettice Colliery opened in 1871.",
                           "Its winding engine was built in Leeds.", question)
    assert answer > 0 > topical
    assert judge.margin("Lettice Colliery", "", "The Lettice Colliery opened in 1871.", question) == answer  # cached
