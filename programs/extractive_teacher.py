"""A deterministic extractive teacher LM for bootstrapping demos without an API key.

It answers groundqa's cited-answer prompts with the passage sentences that best match the question,
each cited ``[n]`` (the same scoring as the extractive fallback), in DSPy's chat format. Used as
``--teacher-lm extractive``: BootstrapFewShot keeps the teacher's answers that pass the grounding
metric as demos, which shows a small student LM what a cited answer looks like. It answers nothing
else (other signatures get an empty reply, which the program treats as an LM failure).

It lives with the programs, not in the LM layer, because it *is* the extractive program behind an LM
interface; :func:`build_teacher_lm` resolves the ``--teacher-lm`` name, so the LM factory never has to
know a program.

:class:`GoldTeacherLM` is its labelled sibling, for building fine-tuning data: it knows each training
question's gold answers and answers with the passage sentence that states one (or ``NOT IN SOURCES``),
in exactly the form the embedded engine's citation constraint can generate.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dspy
import regex

from groundqa.config import Settings
from groundqa.lm import factory
from groundqa.lm.citation_decoding import COMPLETED, citation_pattern
from groundqa.lm.scripted import Messages, ScriptedLM, input_field
from groundqa.signatures.qa import NOT_IN_SOURCES
from groundqa.signatures.types import Passage

from .context import NumberedContext
from .extractive import extractive_answer, rank_sentences

EXTRACTIVE = "extractive"
"""The ``--teacher-lm`` name of this teacher."""

MODEL = "extractive/teacher"
_PASSAGE = re.compile(r"^\[(\d+)\](?: ([^\n]*))?\n(.*?)(?=\n\n\[\d+\]|\Z)", re.S | re.M)


def parse_passages(block: str) -> list[tuple[int, str, str]]:
    """``[n] Title\\ntext`` blocks of a numbered context as (n, title, text)."""
    return [(int(n), (title or "").strip(), text.strip()) for n, title, text in _PASSAGE.findall(block)]


def extractive_reply(messages: Messages, max_sentences: int = 1) -> dict[str, Any] | str:
    """The teacher's reply to a cited-answer prompt: the best passage sentence(s), cited, or
    ``NOT IN SOURCES``; an empty reply to any other prompt."""
    question = input_field(messages, "question")
    block = input_field(messages, "passages")
    if not question or not block:
        return ""
    passages = [Passage(chunk_id=f"p{n}", doc_id=f"p{n}", title=title, text=text)
                for n, title, text in parse_passages(block)]
    context = NumberedContext(passages, block)
    found = extractive_answer(question, context, max_sentences=max_sentences)
    return {"answer": found.answer if found.chosen else NOT_IN_SOURCES}


class ExtractiveTeacherLM(ScriptedLM):
    """``dspy.LM`` that answers cited-answer prompts extractively (deterministic, offline)."""

    def __init__(self, max_sentences: int = 1, **kwargs: Any) -> None:
        super().__init__(lambda messages: extractive_reply(messages, max_sentences), **kwargs)
        self.model = MODEL


def build_teacher_lm(settings: Settings, name: str) -> dspy.LM:
    """The LM named by ``--teacher-lm``: ``"extractive"`` is this module's teacher; any other name is
    built by the LM factory (:func:`groundqa.lm.factory.build_lm`)."""
    if name == EXTRACTIVE:
        return ExtractiveTeacherLM()
    return factory.build_lm(settings, lm=name)


# -- the gold-label teacher (fine-tuning data) ------------------------------------------------------
GoldLabel = tuple[Sequence[str], bool]
"""(gold answers, should_abstain) of one question."""

GOLD_MODEL = "gold/teacher"


def question_key(question: str) -> str:
    """A question as a label key: whitespace normalised (the prompt may re-wrap it)."""
    return " ".join(str(question).split())


def normalise_text(text: str) -> str:
    """Lower case, punctuation as spaces, whitespace collapsed: so "18,400." contains "18,400"."""
    return " ".join(re.sub(r"[^\w\s]", " ", str(text).lower()).split())


def contains_answer(text: str, answers: Sequence[str]) -> bool:
    """Whether ``text`` contains one of ``answers`` as whole words (case and punctuation ignored)."""
    haystack = f" {normalise_text(text)} "
    return any(needle and f" {needle} " in haystack for needle in map(normalise_text, answers))


def citable_reply(answer: str, n_passages: int) -> bool:
    """Whether the embedded engine's citation constraint can generate ``answer`` for a prompt with
    ``n_passages`` passages: a target it cannot produce would teach the LM what decoding forbids."""
    return regex.fullmatch(citation_pattern(n_passages), answer + COMPLETED) is not None


@dataclass(frozen=True)
class GoldDecision:
    """The gold teacher's reply and why: ``answer``, ``refusal:abstain`` (the question should be
    abstained on), ``refusal:absent`` (no shown passage states a gold answer), ``skip:form`` (a passage
    states it, but in no sentence the citation constraint can generate), ``unknown`` (no label) or
    ``other`` (not a cited-answer prompt). Skips, unknowns and others get an empty reply."""

    reply: dict[str, Any] | str
    kind: str
    question: str = ""


def gold_decision(messages: Messages, labels: Mapping[str, GoldLabel]) -> GoldDecision:
    """What the gold teacher answers to ``messages`` (see :class:`GoldDecision`)."""
    question = input_field(messages, "question")
    block = input_field(messages, "passages")
    if not question or not block:
        return GoldDecision("", "other")
    key = question_key(question)
    label = labels.get(key)
    if label is None:
        return GoldDecision("", "unknown", key)
    answers, should_abstain = list(label[0]), bool(label[1])
    if should_abstain or not answers:
        return GoldDecision({"answer": NOT_IN_SOURCES}, "refusal:abstain", key)
    parsed = parse_passages(block)
    if not any(contains_answer(f"{title} {text}", answers) for _n, title, text in parsed):
        return GoldDecision({"answer": NOT_IN_SOURCES}, "refusal:absent", key)
    passages = [Passage(chunk_id=f"p{n}", doc_id=f"p{n}", title=title, text=text) for n, title, text in parsed]
    context = NumberedContext(passages, block)
    for candidate in rank_sentences(question, context):
        answer = f"{candidate.text.strip()} [{candidate.number}]"
        if contains_answer(candidate.text, answers) and citable_reply(answer, len(passages)):
            return GoldDecision({"answer": answer}, "answer", key)
    return GoldDecision("", "skip:form", key)


def gold_reply(messages: Messages, labels: Mapping[str, GoldLabel]) -> dict[str, Any] | str:
    """The gold teacher's reply to a cited-answer prompt: ``NOT IN SOURCES`` when the question should be
    abstained on or no shown passage states a gold answer; else the passage sentence that states one and
    best matches the question (:func:`~.extractive.rank_sentences`), cited ``[n]``, in the one-sentence
    form of the embedded engine's citation constraint. Empty for an unknown question, a sentence the
    constraint cannot generate, or any other prompt: the program then records no trace for it."""
    return gold_decision(messages, labels).reply


class GoldTeacherLM(ScriptedLM):
    """``dspy.LM`` answering cited-answer prompts from gold labels (deterministic, offline).

    ``labels`` maps :func:`question_key` to (gold answers, should_abstain). Every decision is kept in
    ``decisions`` (in call order) and counted in ``tally``, so a caller can tell a refusal it taught
    from a question it skipped, and notice prompts that were not cited answers (``other``)."""

    def __init__(self, labels: Mapping[str, GoldLabel], **kwargs: Any) -> None:
        self.labels = {question_key(q): label for q, label in labels.items()}
        self.decisions: list[GoldDecision] = []
        self.tally: Counter[str] = Counter()
        self._lock = threading.Lock()
        super().__init__(self._respond, **kwargs)
        self.model = GOLD_MODEL

    def _respond(self, messages: Messages) -> dict[str, Any] | str:
        decision = gold_decision(messages, self.labels)
        with self._lock:
            self.decisions.append(decision)
            self.tally[decision.kind] += 1
        return decision.reply
