"""The retriever module: dense retrieval over the Chroma store, with BM25's best chunks beside it on request
(hybrid retrieval: :mod:`groundqa.store.lexical_index`), counted, cached and traced."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import dspy

from groundqa.judges.lexical import stem
from groundqa.runtime.retrieval_cache import RetrievalCache, cache_key
from groundqa.runtime.run import current_run, current_stage
from groundqa.runtime.trace import RetrievalCall
from groundqa.signatures.types import ExitReason, Passage
from groundqa.store.chroma_store import CorpusStore
from groundqa.text import content_words


def analyze(text: str) -> list[str]:
    """The words BM25 compares: content words, stemmed as the judges stem them ("passing" and "pass" meet)."""
    return [stem(word) for word in content_words(text)]


class Retriever(dspy.Module):
    """Returns ``dspy.Prediction(passages=list[Passage])``, best first (score = cosine similarity).

    Inside a run every call counts against the retrieval budget (each call, not each batch), is
    served from the cache when (query, k, collection, embedding model, index version) matches, and
    is recorded in the trace; a store failure ends the run with ``RETRIEVAL_ERROR``.
    """

    def __init__(self, store: CorpusStore, k: int = 4, cache: RetrievalCache | None = None) -> None:
        super().__init__()
        self.store = store
        self.k = k
        self.cache = cache
        self._index_version = store.index_version

    def __deepcopy__(self, memo: dict[int, Any]) -> Retriever:
        return self  # holds no learnable state; the store is a shared resource

    def refresh(self) -> int:
        """Re-read the index version (another process may have ingested)."""
        self._index_version = self.store.refresh_version()
        return self._index_version

    def forward(self, query: str, k: int | None = None) -> dspy.Prediction:
        return dspy.Prediction(passages=self.retrieve(query, k or self.k))

    def retrieve(self, query: str, k: int, contains: Sequence[str] = (), lexical: int = 0) -> list[Passage]:
        """The ``k`` passages nearest ``query``; with ``contains``, among the chunks holding one of those
        exact strings (a name looked up in so many words, whatever the embedding makes of it). With ``lexical``,
        then up to that many more: the chunks BM25 ranks best that the dense search left out (scored, like the
        others, by cosine similarity), in one call."""
        run = current_run()
        shown = f"{query} [containing {' or '.join(map(repr, contains))}]" if contains else query  # traces, keys
        if lexical > 0:
            shown += f" [+{lexical} BM25]"
        if run is not None:
            run.before_retrieval()
            run.usage.retrieval_calls += 1
            run.emit("retrieval_start", query=shown, k=k, stage=current_stage())
        key = cache_key(shown, k, self.store.collection_name, self.store.embedding_model, self._index_version)
        use_cache = self.cache is not None and (run is None or run.use_cache)
        started = time.perf_counter()
        passages = self.cache.get(key) if use_cache and self.cache is not None else None
        cache_hit = passages is not None
        if passages is None:
            try:
                passages = self.store.query(query, k, contains=contains)
                if lexical > 0:
                    passages += self.store.lexical_query(query, lexical, analyze, [p.chunk_id for p in passages])
            except Exception as exc:
                if run is None:
                    raise
                if run.trace is not None:
                    run.trace.add(RetrievalCall, "ret", query=shown, k=k, stage=current_stage(),
                                  error=f"{type(exc).__name__}: {exc}")
                raise run.stop(ExitReason.RETRIEVAL_ERROR, f"retrieval failed: {type(exc).__name__}: {exc}") from exc
            if use_cache and self.cache is not None:
                self.cache.put(key, passages)
        latency = (time.perf_counter() - started) * 1000
        if run is not None:
            run.usage.retrieval_cache_hits += int(cache_hit)
            if run.trace is not None:
                run.trace.add(
                    RetrievalCall, "ret", query=shown, k=k, stage=current_stage(),
                    ids=[p.chunk_id for p in passages], scores=[p.score for p in passages],
                    latency_ms=round(latency, 3), cache_hit=cache_hit,
                )
            run.emit("retrieval_end", query=shown, ids=[p.chunk_id for p in passages],
                     scores=[p.score for p in passages], cache_hit=cache_hit, stage=current_stage())
        return passages
