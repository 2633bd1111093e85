"""Lexical re-ranking of dense hits: the words of the query count as well as its meaning.

MiniLM ranks "the ferry crossing to Calder" closer to the pages about Calder than to the one page
that says how long the crossing takes. Retrieving twice ``k`` dense hits and re-ordering them by
``score + weight * coverage`` (the share of the query's content words found in the passage and its
title) keeps the dense recall and adds the exact-word signal of a hybrid retriever, at no extra
store call. The passages keep their dense ``score``: the evidence gates still read cosine similarity.
"""

from __future__ import annotations

from collections.abc import Sequence

from groundqa.judges.lexical import features
from groundqa.signatures.types import Passage


def coverage(query: str, passage: Passage) -> float:
    """Share of the query's content words found in the passage (title included)."""
    wanted = features(query).content
    if not wanted:
        return 0.0
    unit = features(f"{passage.title}. {passage.text}")
    return sum(unit.covers(t) for t in wanted) / len(wanted)


def rerank(query: str, passages: Sequence[Passage], weight: float) -> list[Passage]:
    """``passages`` re-ordered by ``score + weight * coverage(query)`` (stable for ties)."""
    if weight <= 0:
        return list(passages)
    return sorted(passages, key=lambda p: p.score + weight * coverage(query, p), reverse=True)


__all__ = ["coverage", "rerank"]
