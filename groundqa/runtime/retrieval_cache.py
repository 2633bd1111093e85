"""Retrieval cache keyed by (query, k, collection, embedding model, index version).

Ingestion bumps the index version, so every entry cached before it stops matching: the cache is
invalidated by construction, never served stale. Memory LRU in front of an optional disk cache.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from groundqa.runtime.safe_text import utf8_bytes
from groundqa.signatures.types import Passage


def cache_key(query: str, k: int, collection: str, embedding_model: str, index_version: int) -> str:
    """The key of one retrieval; any string hashes (a lone surrogate in a query never raises here)."""
    payload = json.dumps([query, k, collection, embedding_model, index_version], ensure_ascii=False)
    return hashlib.sha256(utf8_bytes(payload)).hexdigest()


class RetrievalCache:
    """Thread-safe LRU of retrieval results, persisted with ``diskcache`` when ``directory`` is set."""

    def __init__(self, directory: str | Path | None = None, max_items: int = 4096) -> None:
        self._memory: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()
        self.max_items = max_items
        self.directory = directory
        self._disk: Any = None
        if directory is not None:
            import diskcache

            Path(directory).mkdir(parents=True, exist_ok=True)
            self._disk = diskcache.Cache(str(directory), size_limit=256 * 2**20)

    def __deepcopy__(self, memo: dict[int, Any]) -> RetrievalCache:
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {"directory": self.directory, "max_items": self.max_items}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["directory"], state["max_items"])  # type: ignore[misc]

    def get(self, key: str) -> list[Passage] | None:
        with self._lock:
            hit = self._memory.get(key)
            if hit is not None:
                self._memory.move_to_end(key)
        if hit is None and self._disk is not None:
            hit = self._disk.get(key)
            if hit is not None:
                self._remember(key, hit)
        return None if hit is None else [Passage.model_validate(p) for p in hit]

    def put(self, key: str, passages: list[Passage]) -> None:
        data = [p.model_dump() for p in passages]
        self._remember(key, data)
        if self._disk is not None:
            self._disk.set(key, data)

    def _remember(self, key: str, data: list[dict[str, Any]]) -> None:
        with self._lock:
            self._memory[key] = data
            self._memory.move_to_end(key)
            while len(self._memory) > self.max_items:
                self._memory.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._memory.clear()
        if self._disk is not None:
            self._disk.clear()
