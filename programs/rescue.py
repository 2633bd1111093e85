"""Rescue: a passage sentence the tuned answer judge reads as the answer, where the rules found none.

On a corpus they were not written on, the answerability rules refuse answerable questions whose answer is
worded otherwise than the question ("How many people did the brigade save?" against "...brought out
forty-one survivors"): the extractive answer ends ``not_answered``. The tuned answer judge
(:mod:`groundqa.judges.answer_judge`) reads each sentence whole. Where the program would abstain with
``not_answered``, the best ``candidates`` sentences of the context by the extractive ranking are judged, and
the one the judge is surest of is quoted, with its citation, if its margin reaches the ``answer_rescue`` gate.
Its support is the judge's probability, sigmoid(margin). A sentence the rules read as the answer to another question
(another dimension measured: "31 metres *in diameter*" for "How tall is the dome?"; a denial: "The circus *never owned*
a locomotive") is never read: the judge reads topic well and dimensions and negation poorly.

A question without an asked type ("Why was the strike called?", "What kind of unit is the infirmary today?") has no
type check to keep the rules off a topical sentence, and they often quote one ("The union led the Blowers' Strike of
1934, its longest dispute"). There the judge gives a second opinion (:func:`second_opinion`): where it reads
another of the best-ranked sentences as the answer ("It was called by the union after the management cut piece
rates") by the ``answer_preference`` lead over the sentence the rules chose, that sentence is quoted instead; where
it reads none as the answer and the rules' choice below ``preference_floor``, nothing is quoted (``not_answered``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from .answer_values import lacks_measure, life_event_unsaid
from .answerability import GIVES_CAUSE, Asked, asked, asks_why, check, holds_value, says_denial
from .context import NumberedContext
from .extractive import ScoredSentence, rank_sentences
from .judge_budget import AnswerJudgment, JudgeBudgetSpent


@dataclass(frozen=True)
class Rescue:
    """The sentence quoted, its passage number and the judge's margin for it."""

    text: str
    number: int
    margin: float

    @property
    def answer(self) -> str:
        return f"{self.text} [{self.number}]"

    @property
    def support(self) -> float:
        return 1.0 / (1.0 + math.exp(-self.margin))


_VALUED = re.compile(r"^(?:\w+ )?(?:(?:what|which) (?:year|decade|century|date|month|day)\b|when (?:did|was|were|is|are|"
                     r"does|do|has|have|had|will|would)\b|how (?:many|much)\b)", re.I)
"""Questions no sentence without a value of the asked type answers, however it is worded: "Born in Ossendorf, she
trained as a draughtswoman …" gives no year for "In what year was Lise Amberg born?" (a name may be worded otherwise:
"the town architect"). Only where the wording leaves no doubt that a date or an amount is asked: "*When* forces are
acting on an extended body, *what* do you need …?" asks what."""


def rescue_answer(question: str, context: NumberedContext, judge: AnswerJudgment, floor: float, candidates: int,
                  citable: set[int] | None = None, typed: bool = False, denials: bool = True) -> Rescue | None:
    """The best of the ``candidates`` best-ranked citable sentences by the judge's margin, if it reaches ``floor``;
    ``typed``: only sentences that hold a value of the type ``question`` asks for, where it asks for one ("Margit
    Brask was born in Tellwick" gives no year); a question that plainly asks when or how many or much reads only such
    sentences either way (:data:`_VALUED`), and so does a who-question ("… she married the solicitor Henry Dane" names
    no wife of Josiah Pellworth). A question that asks what is not so reads only sentences that deny
    or exclude something, as the answerability check does (:attr:`Asked.denied`); without ``denials``, any other
    question reads none of them: after a premise refusal, "Brunnfeld has *never had* its own hospital; injured climbers
    are taken to …" denies what "Which ward of Brunnfeld's hospital treats injured climbers?" takes for granted."""
    what = asked(question)
    valued = (typed or (what.kind in ("date", "number") and _VALUED.match(question.strip()) is not None)
              or what.kind == "person")
    ranked = list(islice((c for c in _readable(question, context, citable)
                          if (not valued or what.kind in (None, "yes_no") or holds_value(what, c.text))
                          and (denials or what.denied or not says_denial(c.text, question))), candidates))
    best = _best(question, context, judge, ranked)
    return best if best is not None and best.margin >= floor else None


def _answers_another_question(what: Asked, context: NumberedContext, sentence: ScoredSentence) -> bool:
    """Whether the rules read ``sentence`` as the answer to another question (another dimension measured, or a denial
    of what was asked: :attr:`~.answerability.Answerability.other_question`); the judge does not overrule that."""
    passage = context.passages[sentence.number - 1]
    return check(what, sentence.text, title=f"{passage.title}. {sentence.before}").other_question


def _readable(question: str, context: NumberedContext, citable: set[int] | None) -> Iterator[ScoredSentence]:
    """The context's citable sentences, best-ranked first, but those the rules read as the answer to another
    question or give no measure where one was asked ("How tall is the clock tower?": "A clock tower was added in 1838"); for
    a question that asks what is not so, only those that deny or exclude something; for one about a birth or a death,
    only those that speak of it or give a lifespan."""
    what = asked(question)
    return (c for c in rank_sentences(question, context) if (citable is None or c.number in citable)
            and (not what.denied or says_denial(c.text, question)) and not lacks_measure(question, c.text)
            and not life_event_unsaid(question, c.text) and not _answers_another_question(what, context, c))


def _margin(question: str, context: NumberedContext, judge: AnswerJudgment, sentence: ScoredSentence) -> float:
    return judge(context.passages[sentence.number - 1].title, sentence.before, sentence.text, question)


def _best(question: str, context: NumberedContext, judge: AnswerJudgment,
          sentences: Sequence[ScoredSentence]) -> Rescue | None:
    """The sentence the judge is surest of, with its margin."""
    best: Rescue | None = None
    for c in sentences:
        try:
            margin = _margin(question, context, judge, c)
        except JudgeBudgetSpent:  # decided on what was read
            break
        if best is None or margin > best.margin:
            best = Rescue(c.text, c.number, margin)
    return best


@dataclass(frozen=True)
class SecondOpinion:
    """The judge's reading of the sentences the rules chose and of the best-ranked others."""

    quoted: float
    """Its best margin for a sentence the rules chose; infinity where the run's budget of judgments
    (:mod:`.judge_budget`) left it none to read, so that the rules' choice stands."""
    preferred: Rescue | None = None
    """Another sentence it reads as the answer (margin above 0) by the required lead over ``quoted``."""


def second_opinion(question: str, context: NumberedContext, judge: AnswerJudgment, chosen: Sequence[ScoredSentence],
                   lead: float, candidates: int, citable: set[int] | None = None,
                   trust: float = math.inf) -> SecondOpinion:
    """The judge's margins for ``chosen`` (the rules' sentences) and, unless it gives one of them ``trust`` or more,
    for the ``candidates`` best-ranked citable sentences: the best of these is preferred if the judge reads it as an
    answer (margin above 0) and it leads the best of ``chosen`` by ``lead``. A question that asks what is not so reads
    only sentences that deny or exclude something; a why-question whose chosen sentence gives a cause, only sentences
    that give one."""
    try:
        quoted = max((_margin(question, context, judge, c) for c in chosen), default=-math.inf)
    except JudgeBudgetSpent:  # no opinion: the rules' choice stands
        return SecondOpinion(math.inf)
    if quoted >= trust:
        return SecondOpinion(quoted)
    taken = {c.text for c in chosen}
    # the rules chose a sentence that gives the cause a why-question asks: another is preferred only if it gives one
    # too ("Ashby retired in 1902 because of failing eyesight" over "He succeeded Edmund Fairlie, under whom …")
    caused = asks_why(question) and any(GIVES_CAUSE.search(c.text) for c in chosen)
    best = _best(question, context, judge,
                 [c for c in islice(_readable(question, context, citable), candidates) if c.text not in taken
                  and (not caused or GIVES_CAUSE.search(c.text))])
    if best is None or best.margin <= 0.0 or best.margin - quoted < lead:
        return SecondOpinion(quoted)
    return SecondOpinion(quoted, best)
