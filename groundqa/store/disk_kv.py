"""A small on-disk key -> bytes table shared by the project's processes: the home's model-output caches.

Two caches keep what a model computed so that a new process does not compute it again: MiniLM vectors
(:mod:`groundqa.store.embeddings`, ``<home>/cache/embeddings.sqlite``) and the tuned answer judge's margins
(:mod:`groundqa.judges.answer_judge`, ``<home>/cache/answer-judge.sqlite``). Both are one SQLite table in WAL
mode, so several processes (an evaluation beside a server) share a file; each caller hashes its own keys (model
identity + input) and packs its own values. A caller switches its cache off on any :class:`sqlite3.Error`: a
cache never fails a question.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

_NAME = re.compile(r"[a-z_]+")
_BATCH = 500  # keys per SELECT (SQLite's default limit on bound parameters is 999 on old builds)


class DiskKV:
    """``key TEXT PRIMARY KEY, <value> BLOB`` in table ``table`` of the SQLite file ``path``."""

    def __init__(self, path: str | Path, table: str, value: str = "value") -> None:
        if not (_NAME.fullmatch(table) and _NAME.fullmatch(value)):
            raise ValueError(f"table and column names are lower-case words, got {table!r} and {value!r}")
        self.path = Path(path)
        self.table, self.value = table, value
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at checkpoints, no fsync per write
        self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, {value} BLOB NOT NULL)")
        self._db.commit()

    def get_many(self, keys: Iterable[str]) -> dict[str, bytes]:
        """The stored values among ``keys``."""
        ordered = list(dict.fromkeys(keys))
        found: dict[str, bytes] = {}
        for start in range(0, len(ordered), _BATCH):
            batch = ordered[start:start + _BATCH]
            rows = self._db.execute(
                f"SELECT key, {self.value} FROM {self.table} WHERE key IN ({','.join('?' * len(batch))})", batch)
            found.update((key, bytes(blob)) for key, blob in rows)
        return found

    def put_many(self, items: Mapping[str, bytes]) -> None:
        """Store ``items`` (key -> value), replacing what the keys held."""
        self._db.executemany(f"INSERT OR REPLACE INTO {self.table} (key, {self.value}) VALUES (?, ?)",
                             list(items.items()))
        self._db.commit()

    def __len__(self) -> int:
        return int(self._db.execute(f"SELECT COUNT(*) FROM {self.table}").fetchone()[0])

    def close(self) -> None:
        self._db.close()


class CacheFile:
    """Where one process-wide disk cache lives, or None (off): the app names it (:meth:`set`), its user opens it
    lazily and, on any SQLite error, :meth:`switch_off` turns it off with one warning."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.path: Path | None = None
        self._lock = threading.Lock()

    def set(self, path: str | Path | None) -> None:
        """Keep results in the SQLite file ``path`` too (None: memory only). Opens nothing."""
        with self._lock:
            self.path = Path(path) if path is not None else None

    def switch_off(self, exc: Exception) -> None:
        logging.getLogger(__name__).warning("%s disk cache at %s switched off: %s", self.what, self.path, exc)
        self.set(None)


__all__ = ["CacheFile", "DiskKV"]
