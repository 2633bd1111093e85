"""One writer at a time per collection: an ``fcntl`` file lock held for a whole ingestion.

Two ingests into one home used to interleave: both read the collection's chunks before either wrote,
so a document whose text differed between them kept both versions, and one index-version bump was
lost (read-modify-write of the collection metadata). Every write to a collection now happens under
this lock, so ingests are serialised: a second one waits (saying so once) up to a timeout, then stops
with one line naming who holds the lock.

The lock is a file (``<chroma dir>/.groundqa-ingest-<collection>.lock`` for a persistent store; under
the system temp folder, keyed by URL, for a Chroma server, so it serialises the ingests of this machine
only). ``flock`` locks die with their process, so a killed ingest never leaves a stale lock behind. The
lock is re-entrant within a process (an ingest of a folder holds it while the store writes each batch),
and threads of one process queue on it like processes do.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from groundqa.errors import GroundQAError

DEFAULT_TIMEOUT_S = 600.0
"""How long a second ingest waits for the first (``GROUNDQA_INGEST_LOCK_TIMEOUT`` overrides it)."""
_POLL_S = 0.2


class IngestLockedError(GroundQAError, RuntimeError):
    """Another ingest into the same collection held the lock for longer than the timeout."""


def lock_timeout() -> float:
    """The wait limit in seconds: ``GROUNDQA_INGEST_LOCK_TIMEOUT`` when set (0: do not wait), else 600."""
    raw = os.environ.get("GROUNDQA_INGEST_LOCK_TIMEOUT", "").strip()
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_TIMEOUT_S
    except ValueError:
        return DEFAULT_TIMEOUT_S


def lock_path(collection: str, path: Path | None = None, url: str | None = None) -> Path:
    """Where the lock file of ``collection`` lives for a persistent store at ``path`` or a server at ``url``."""
    if path is not None:
        return Path(path) / f".groundqa-ingest-{collection}.lock"
    where = hashlib.sha256((url or "in-memory").encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / "groundqa-locks" / f"ingest-{where}-{collection}.lock"


@dataclass
class _Held:
    """This process's hold on one lock file: a thread lock, its depth, the open file."""

    thread_lock: threading.RLock = field(default_factory=threading.RLock)
    depth: int = 0
    fd: int | None = None


_HELD: dict[str, _Held] = {}
_REGISTRY = threading.Lock()


def _holder(path: Path) -> str:
    """Who holds the lock, as its file says (pid and start time), for messages."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError:
        return "another process"
    return text or "another process"


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _acquire_file(path: Path, collection: str, timeout: float, on_wait: Callable[[str], None] | None) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    told = False
    while not _try_flock(fd):
        if time.monotonic() >= deadline:
            holder = _holder(path)
            os.close(fd)
            raise IngestLockedError(
                f"another ingest into collection '{collection}' ({holder}) still holds {path} after {timeout:.0f}s; "
                "try again when it has finished (GROUNDQA_INGEST_LOCK_TIMEOUT sets the wait)")
        if not told and on_wait is not None:
            on_wait(f"waiting for another ingest into collection '{collection}' ({_holder(path)}) to finish "
                    f"(up to {timeout:.0f}s)")
            told = True
        time.sleep(_POLL_S)
    os.ftruncate(fd, 0)
    os.write(fd, f"pid {os.getpid()}, since {time.strftime('%H:%M:%S')}".encode())
    return fd


@contextlib.contextmanager
def ingest_lock(collection: str, path: Path | None = None, url: str | None = None, timeout: float | None = None,
                on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the ingest lock of ``collection`` for the block (re-entrant in this process).

    Waits up to ``timeout`` seconds (default :func:`lock_timeout`); ``on_wait(message)`` is called once
    when it has to wait. Raises :class:`IngestLockedError` when the wait runs out.
    """
    file = lock_path(collection, path, url)
    key = str(file.resolve()) if path is not None else str(file)
    wait = lock_timeout() if timeout is None else timeout
    with _REGISTRY:
        held = _HELD.setdefault(key, _Held())
    if not held.thread_lock.acquire(timeout=max(wait, 0.001)):
        raise IngestLockedError(f"another ingest into collection '{collection}' in this process is still running "
                                f"after {wait:.0f}s")
    try:
        if held.depth == 0:
            held.fd = _acquire_file(file, collection, wait, on_wait)
        held.depth += 1
        try:
            yield
        finally:
            held.depth -= 1
            if held.depth == 0 and held.fd is not None:
                fcntl.flock(held.fd, fcntl.LOCK_UN)
                os.close(held.fd)
                held.fd = None
    finally:
        held.thread_lock.release()
