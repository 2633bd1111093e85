"""DSPy signatures of the grounded QA program."""

from __future__ import annotations

from typing import Literal

import dspy
from pydantic import BaseModel, Field


class Presupposition(BaseModel):
    """An atomic claim the question takes for granted."""

    claim: str = Field(description="one atomic claim of at most 15 words")
    rationale: str = Field(default="", description="why the question presupposes it")
    kind: Literal["existence", "event"] = Field(
        default="event", description="existence: only that something named or described exists; event: that "
                                     "something happened or holds")
    role: Literal["asserted", "asked", "counted", "explained"] = Field(
        default="asserted", description="asserted: the question states it as given (a name, a year, a relation); "
                                        "explained: all of a why-question, which a sentence that gives its cause "
                                        "may state; asked: the relation a look-up asks about, "
                                        "which a passage may state in other words; counted: what a how-many "
                                        "question counts as having happened, which a passage denies by saying "
                                        "none did ('no one was killed')")


class ExtractPresuppositions(dspy.Signature):
    """List what the question takes for granted: at most 3 atomic claims of at most 15 words each.
    A pure look-up ("What is X?", "When was X founded?") presupposes nothing beyond the entity existing:
    return an empty list. For a yes/no question, the event asked about is NOT a presupposition."""

    question: str = dspy.InputField()
    presuppositions: list[Presupposition] = dspy.OutputField(desc="at most 3; empty for pure look-ups")


class JudgeClaim(dspy.Signature):
    """Decide whether the numbered passages support the claim. Judge only from the passages."""

    claim: str = dspy.InputField()
    passages: str = dspy.InputField(desc="numbered passages [1]..[n]")
    supported: bool = dspy.OutputField(desc="true only if the passages state or directly imply the claim")
    confidence: float = dspy.OutputField(desc="0.0 to 1.0")
    evidence: list[int] = dspy.OutputField(desc="numbers of the passages that support the claim")
    rationale: str = dspy.OutputField(desc="one sentence")


class CitedAnswer(dspy.Signature):
    """Answer the question using only the numbered passages. End every sentence with the numbers of
    the passages that support it, like [1] or [2][3]. Never cite a number that is not listed.
    If the passages do not answer the question, answer exactly: NOT IN SOURCES."""

    question: str = dspy.InputField()
    passages: str = dspy.InputField(desc="numbered passages [1]..[n]")
    format: str = dspy.InputField(desc="prose, bullets, table or steps")
    answer: str = dspy.OutputField(desc="short answer; every sentence ends with citations like [1]")


class SplitQuestion(dspy.Signature):
    """Split a multi-part question into at most 3 simple sub-questions, each answerable on its own."""

    question: str = dspy.InputField()
    sub_questions: list[str] = dspy.OutputField(desc="1 to 3 sub-questions")


NOT_IN_SOURCES = "NOT IN SOURCES"
