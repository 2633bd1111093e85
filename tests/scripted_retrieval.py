"""A retriever that returns fixed passages, for unit tests of what the program does with what it retrieved."""

from __future__ import annotations

from collections.abc import Sequence

from groundqa.signatures.types import Passage


class ScriptedRetriever:
    """Dense hits in a fixed order, whatever the query; records the ``k`` of each call."""

    def __init__(self, hits: Sequence[Passage]) -> None:
        self.hits = list(hits)
        self.asked: list[int] = []

    def retrieve(self, query: str, k: int, contains: Sequence[str] = ()) -> list[Passage]:
        self.asked.append(k)
        return self.hits[:k]

    def refresh(self) -> int:
        return 0


def passage(chunk_id: str, score: float, text: str = "", title: str = "") -> Passage:
    """A passage of document ``chunk_id`` (up to its '#') with dense ``score``."""
    return Passage(chunk_id=chunk_id, doc_id=chunk_id.split("#")[0], title=title, text=text or chunk_id, score=score)
