"""A deterministic extractive teacher LM for bootstrapping demos without an API key.

It answers groundqa's cited-answer prompts with the passage sentences that best match the question,
each cited ``[n]`` (the same scoring as the extractive fallback), in DSPy's chat format. Used as
``--teacher-lm extractive``: BootstrapFewShot keeps the teacher's answers that pass the grounding
metric as demos, which shows a small student LM what a cited answer looks like. It answers nothing
else (other signatures get an empty reply, which the program treats as an LM failure).

It lives with the programs, not in the LM layer, because it *is* the extractive program behind an LM
interface; :func:`build_teacher_lm` resolves the ``--teacher-lm`` name, so the LM factory never has to
know a program.
"""

from __future__ import annotations

import re
from typing import Any

import dspy

from groundqa.config import Settings
from groundqa.lm import factory
from groundqa.lm.scripted import Messages, ScriptedLM, input_field
from groundqa.signatures.qa import NOT_IN_SOURCES
from groundqa.signatures.types import Passage

from .context import NumberedContext
from .extractive import extractive_answer

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
