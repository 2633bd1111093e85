"""The answer judge's budget: how many sentences it may read for one question.

Each judgment of the tuned answer judge (:mod:`groundqa.judges.answer_judge`) costs about 0.15 s on 2 cores, and
they are what makes the slowest questions slow: a bridge reading goes through six sentences of each candidate's
pages, a refusal's rescue through six and then six holding the asked type. ``Budgets.max_judgments`` bounds the
distinct sentences read in one run (:meth:`~groundqa.runtime.run.RunState.judge_read`); a reading cut short by it
decides on what it has read (:func:`.rescue.rescue_answer`), and the passes after it are decided by the rules alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from groundqa.runtime.run import current_run

AnswerJudgment = Callable[[str, str, str, str], float]
"""(passage title, sentence before, sentence, question) -> the tuned answer judge's margin (:mod:`groundqa.judges.answer_judge`)."""


class JudgeBudgetSpent(Exception):
    """The run's budget of judgments is spent: the sentence was not read."""


def budgeted(margin: AnswerJudgment) -> AnswerJudgment:
    """``margin`` counted against the current run's ``Budgets.max_judgments``, its time added to ``usage.judge_ms``;
    a sentence past the budget raises :class:`JudgeBudgetSpent` instead of being read. Outside a run nothing is
    counted."""

    def judged(title: str, before: str, sentence: str, question: str) -> float:
        run = current_run()
        if run is None:
            return margin(title, before, sentence, question)
        if not run.judge_read((title, before, sentence, question)):
            raise JudgeBudgetSpent(sentence)
        started = time.perf_counter()
        try:
            return margin(title, before, sentence, question)
        finally:
            run.usage.judge_ms += (time.perf_counter() - started) * 1000

    return judged
