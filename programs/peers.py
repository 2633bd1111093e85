"""Peer programs for comparison with GroundedQA: plain DSPy RAG over the same retriever and LM.

* :class:`PlainRAG`: retrieve ``k`` passages -> ``dspy.ChainOfThought("question, passages -> answer")``
  with the same instructions as GroundedQA's cited answer (cite ``[n]``, say ``NOT IN SOURCES`` when the
  passages do not answer). No contracts, no input checks, no abstention logic: the metric reads an answer
  such as "NOT IN SOURCES" as an abstention (:mod:`groundqa.metrics.coerce`).
* :class:`RefineRAG`: the same pipeline, with the citation constraint enforced by
  ``dspy.Refine(module, N=2, reward_fn=citation_reward, threshold=1.0)`` (DSPy 3's own replacement for
  ``dspy.Assert``: up to ``N`` rollouts at temperature 1.0, LM-written advice between them).

Both return ``dspy.Prediction(answer=str, passages=list[Passage])`` (``[n]`` is ``passages[n-1]``), which
:func:`groundqa.evaluation.evaluate` scores like any generic prediction. A reply the adapter cannot
parse raises (the evaluation records an error, never a silent abstention).
"""

from __future__ import annotations

import re
from typing import Any

import dspy

from groundqa.refusals import looks_like_abstention
from groundqa.signatures.qa import CitedAnswer
from groundqa.signatures.types import Passage

from .citations import analyse, citation_feedback
from .context import render_passage
from .retriever import Retriever

_NUMBERED = re.compile(r"^\[(\d+)\]", re.M)


#: GroundedQA's cited-answer signature without its ``format`` input: the peers get the very same
#: instructions and fields (and so the same prompt) as GroundedQA's synthesizer.
PeerAnswer = CitedAnswer.delete("format")


def number_passages(passages: list[Passage]) -> str:
    """``[1] Title\\ntext`` blocks, exactly as GroundedQA numbers its context."""
    return "\n\n".join(render_passage(i, p) for i, p in enumerate(passages, start=1))


def count_passages(block: str) -> int:
    """How many numbered passages a ``[n]`` context block holds."""
    return len(_NUMBERED.findall(block or ""))


def citation_reward(args: dict[str, Any], pred: dspy.Prediction) -> float:
    """1.0 when every citation names a listed passage and the answer cites something (or says exactly
    that the passages do not answer); else 0.0. An empty answer scores 0.0."""
    answer = str(pred.get("answer") or "").strip() if pred is not None else ""
    if not answer:
        return 0.0
    if looks_like_abstention(answer):
        return 1.0  # nothing to cite: the instructions ask for exactly this
    n = count_passages(str(args.get("passages", "")))
    checks = analyse(answer, n)
    cites = any(c.cited for c in checks)
    return 1.0 if checks and cites and not citation_feedback(checks, n) else 0.0


class PeerError(RuntimeError):
    """The peer produced no answer at all (e.g. every Refine rollout failed)."""


class PlainRAG(dspy.Module):
    """Retrieve ``k`` passages, then one ChainOfThought call; ``forward(question) -> Prediction(answer, passages)``."""

    def __init__(self, retriever: Retriever, k: int | None = None, reasoning: bool = True) -> None:
        super().__init__()
        self.retriever = retriever
        self.k = k or retriever.k
        self.generate = dspy.ChainOfThought(PeerAnswer) if reasoning else dspy.Predict(PeerAnswer)

    def retrieve(self, question: str) -> list[Passage]:
        return self.retriever.retrieve(question, self.k)

    def answer(self, question: str, block: str) -> dspy.Prediction:
        return self.generate(question=question, passages=block)

    def forward(self, question: str) -> dspy.Prediction:
        passages = self.retrieve(question)
        pred = self.answer(question, number_passages(passages))
        if pred is None:
            raise PeerError(f"{type(self).__name__} produced no prediction")
        return dspy.Prediction(answer=str(pred.get("answer") or "").strip(), passages=passages,
                               reasoning=str(pred.get("reasoning") or ""))


class RefineRAG(PlainRAG):
    """:class:`PlainRAG` whose generation runs under ``dspy.Refine`` with :func:`citation_reward`."""

    def __init__(self, retriever: Retriever, k: int | None = None, reasoning: bool = True, n: int = 2,
                 threshold: float = 1.0) -> None:
        super().__init__(retriever, k=k, reasoning=reasoning)
        self.refine = dspy.Refine(module=self.generate, N=n, reward_fn=citation_reward, threshold=threshold)

    def answer(self, question: str, block: str) -> dspy.Prediction:
        return self.refine(question=question, passages=block)


__all__ = ["PeerAnswer", "PeerError", "PlainRAG", "RefineRAG", "citation_reward", "count_passages",
           "number_passages"]
