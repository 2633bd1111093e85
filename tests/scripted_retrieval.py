"""A retriever that returns fixed passages, for unit tests of what the program does with what it retrieved; and the
embedded default's program over one such passage with its answer judge scripted."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.judge_budget import budgeted
from groundqa.signatures.types import Passage


class ScriptedRetriever:
    """Dense hits in a fixed order, whatever the query; records the ``k`` of each call (and how many BM25 chunks it
    asked for beside them, which a scripted corpus has none of)."""

    def __init__(self, hits: Sequence[Passage]) -> None:
        self.hits = list(hits)
        self.asked: list[int] = []
        self.lexical: list[int] = []

    def retrieve(self, query: str, k: int, contains: Sequence[str] = (), lexical: int = 0) -> list[Passage]:
        self.asked.append(k)
        self.lexical.append(lexical)
        return self.hits[:k]

    def refresh(self) -> int:
        return 0


def passage(chunk_id: str, score: float, text: str = "", title: str = "") -> Passage:
    """A passage of document ``chunk_id`` (up to its '#') with dense ``score``."""
    return Passage(chunk_id=chunk_id, doc_id=chunk_id.split("#")[0], title=title, text=text or chunk_id, score=score)


def judged_program(monkeypatch: pytest.MonkeyPatch, hit: Passage, margins: dict[str, float],
                   **gates: object) -> tuple[GroundedQA, list[str]]:
    """The embedded default's program over the one passage ``hit``, its answer judge scripted: ``margins`` by a word of
    the sentence (-6 for any other), counted against the run's budget of judgments as the shipped judge is; returns
    the program and the sentences the judge read. ``gates`` may also override the config (``budgets=``)."""
    read: list[str] = []

    def judge(title: str, before: str, sentence: str, question: str) -> float:
        read.append(sentence)
        return next((m for word, m in margins.items() if word in sentence), -6.0)

    monkeypatch.setattr(GroundedQA, "_answer_judge", staticmethod(lambda: budgeted(judge)))
    return GroundedQA(ScriptedRetriever([hit]), QAConfig.for_lm("embedded", **gates)), read  # type: ignore[arg-type]
