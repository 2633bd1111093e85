"""Faithfulness (RAGAS-style): the share of the answer's claims supported by the retrieved passages.

RAGAS decomposes the answer into atomic claims with an LM and checks each against the whole retrieved
context. The offline path uses **sentence-level claims** (each sentence of the answer, citation marks
removed) and judges each against *all* retrieved passages jointly, citations ignored. With the LM judge
the same sentence-level claims are used; finer claim decomposition is not attempted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from groundqa.judges import EntailmentJudge
from groundqa.metrics.citations import _warm_up, passage_texts
from groundqa.text import split_sentences, strip_citations


class FaithfulnessScore(BaseModel):
    """Supported claims / claims, ``None`` when the answer has no claim."""

    score: float | None = None
    claims: list[str] = Field(default_factory=list)
    supported: list[bool] = Field(default_factory=list)

    @property
    def unsupported_claims(self) -> list[str]:
        return [c for c, ok in zip(self.claims, self.supported, strict=True) if not ok]


def answer_claims(answer: str) -> list[str]:
    """Sentence-level claims of ``answer`` (citation marks and bullets removed, empty ones dropped)."""
    claims = [strip_citations(s) for s in split_sentences(answer or "")]
    return [c for c in claims if any(ch.isalnum() for ch in c)]


def faithfulness(answer: str, passages: Sequence[Any], judge: EntailmentJudge) -> FaithfulnessScore:
    """Share of the answer's sentence-level claims entailed by the retrieved ``passages``."""
    claims = answer_claims(answer)
    if not claims:
        return FaithfulnessScore()
    texts = passage_texts(passages)
    _warm_up(judge, claims, texts)
    supported = [bool(texts) and judge.judge(claim, texts).entailed for claim in claims]
    return FaithfulnessScore(score=sum(supported) / len(claims), claims=claims, supported=supported)
