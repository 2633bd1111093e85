"""A BM25 index over a collection's chunks, beside Chroma's dense one (hybrid retrieval).

MiniLM ranks a chunk by what it is about, and misses one that shares the question's rare words but not its
topic. So the retriever may add the best lexical chunks the dense search left out
(:class:`~groundqa.programs.retriever.Retriever`, gate ``lexical_pool``): on 300 answerable questions of SQuAD's
training articles the program then keeps the gold passage for 288, against 278 from the dense hits alone
(``scripts/retrieval_recall.py``).

The index is built in memory from the chunks Chroma stores (their text and title), once per index version and
chunk count (:meth:`~groundqa.store.chroma_store.CorpusStore.lexical_index`), and scores only the chunks that hold
a query term (an inverted index), so a query costs time in the number of chunks that share its words, not in the
collection's size. Words are compared as
the ``analyzer`` gives them (the caller's stemmer): this module knows no language.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

Analyzer = Callable[[str], list[str]]


@dataclass
class LexicalIndex:
    """Okapi BM25 (``k1``, ``b`` as in Robertson and Zaragoza 2009) over ``ids``; postings as numpy arrays (chunk
    positions and term counts: 6 bytes a posting, about 40 MB for 100,000 chunks of 600 characters)."""

    ids: list[str]
    analyzer: Analyzer
    k1: float = 1.2
    b: float = 0.75
    _postings: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)
    _lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32), repr=False)

    @classmethod
    def build(cls, ids: Sequence[str], texts: Sequence[str], analyzer: Analyzer) -> LexicalIndex:
        index = cls(list(ids), analyzer)
        positions: dict[str, list[int]] = {}
        counts: dict[str, list[int]] = {}
        lengths: list[int] = []
        for position, text in enumerate(texts):
            terms = Counter(analyzer(text))
            lengths.append(sum(terms.values()))
            for term, count in terms.items():
                positions.setdefault(term, []).append(position)
                counts.setdefault(term, []).append(min(count, 65_535))
        index._postings = {term: (np.asarray(positions[term], dtype=np.int32), np.asarray(counts[term], dtype=np.uint16))
                           for term in positions}
        index._lengths = np.asarray(lengths, dtype=np.float32)
        return index

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: str, k: int, exclude: frozenset[str] = frozenset()) -> list[tuple[str, float]]:
        """The ``k`` best ``(chunk id, BM25 score)`` for ``query`` outside ``exclude``, best first (chunks
        sharing no term with the query are never returned)."""
        if k <= 0 or not self.ids:
            return []
        n = len(self.ids)
        mean = float(self._lengths.mean()) or 1.0
        scores = np.zeros(n, dtype=np.float64)
        for term in set(self.analyzer(query)):
            posting = self._postings.get(term)
            if posting is None:
                continue
            where, count = posting[0], posting[1].astype(np.float64)
            idf = math.log(1.0 + (n - len(where) + 0.5) / (len(where) + 0.5))
            norm = count + self.k1 * (1.0 - self.b + self.b * self._lengths[where] / mean)
            scores[where] += idf * count * (self.k1 + 1.0) / norm
        ranked = np.flatnonzero(scores > 0)
        wanted = k + len(exclude)
        if len(ranked) > wanted:  # only the best few need sorting (a common word touches most chunks)
            ranked = ranked[np.argpartition(-scores[ranked], wanted - 1)[:wanted]]
        ranked = ranked[np.lexsort((ranked, -scores[ranked]))]  # best first, ties by position
        found: list[tuple[str, float]] = []
        for position in ranked:
            if self.ids[position] not in exclude:
                found.append((self.ids[position], float(scores[position])))
                if len(found) == k:
                    break
        return found
