"""Ingestion as an application use case: load a corpus, upsert it into the configured collection.

It lives here rather than in the command line so that compiling, evaluating and benchmarks ingest
the same way; how progress is shown (a tqdm bar, nothing) is the caller's ``progress`` callback, and
problems with single files or lines are returned on the report, never printed. Status that is not a
problem (waiting for another ingest, a very large input, progress lines with an ETA for a big ingest
without a progress callback) goes to ``notify`` (default: one ``groundqa: ...`` line on stderr).

A folder may mix ``.md``, ``.txt``, ``.pdf`` and ``.html`` files. They are read one by one and stored
in groups of about one embedding batch, so one progress count (files) covers reading and embedding
and a failure late in a large folder loses nothing stored before it. Each stored file carries a
fingerprint (its content hash, the chunk settings, the readers' version and the folder): a file whose
fingerprint is unchanged is skipped without being read again. With ``sync``, documents of the folder
whose file is gone are removed. A corpus JSONL streams line by line (bounded memory; a bad line is
reported as ``file:line`` and skipped).

Safety (issue #15): the whole ingestion holds the collection's lock (a second ingest waits), the index
version is bumped before the first write and after the last (:mod:`groundqa.store.chroma_store`), file
ids never take another file's place (:mod:`groundqa.store.sources`), and an ingest killed at any point
is finished exactly by ingesting again.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from groundqa.app import open_store
from groundqa.config import Settings
from groundqa.datasets import DATA_DIR
from groundqa.datasets.loaders import (
    DOCUMENT_SUFFIXES,
    Document,
    LoadError,
    file_format,
    load_corpus,
    load_file,
    read_bytes,
)
from groundqa.errors import GroundQAError
from groundqa.readers import READERS_VERSION
from groundqa.readers.folder import FolderScan, scan_folder
from groundqa.readers.jsonl import JsonlStream, count_lines
from groundqa.store.chroma_store import CorpusStore, FormatReport, IngestReport, ingestion_failure
from groundqa.store.sources import SourceIndex

Progress = Callable[[int, int], None]
"""``progress(done, total)``: for :func:`ingest_documents`, chunks embedded so far out of the chunks to
embed; for :func:`ingest_path`, documents (files, or lines of a corpus JSONL) done out of all of them."""
Notify = Callable[[str], None]
"""``notify(message)``: one status line for a person (not a problem with the input)."""

DEMO_CORPUS = DATA_DIR / "demo" / "corpus.jsonl"
_GROUP_CHUNKS = 256  # about one embedding batch of the store
LARGE_INPUT_BYTES = 10 * 2**20
"""Inputs above this size get a warning with the estimated chunks and time before anything is read."""
BIG_INGEST_CHUNKS = 2_000
"""Ingests estimated above this many chunks print progress lines with an ETA (when no ``progress`` is given)."""
EXPECTED_CHUNKS_PER_S = 60.0
"""For the up-front estimate only: end-to-end chunks/s of 600-character chunks on 2 busy cores (the
retrieval benchmark measures the real figure); the progress lines use the rate actually seen."""
SENTENCES_SLOWDOWN = 3.5
"""How many times longer ingestion takes when it embeds each chunk's sentences too (``embed_sentences``; the retrieval
benchmark, session 52: 75.6 chunks/s without, 21.7 with), for the same estimate."""
_REPORT_EVERY_S = 10.0


def stderr_notify(message: str) -> None:
    """The default ``notify``: ``groundqa: MESSAGE`` on stderr."""
    print(f"groundqa: {message}", file=sys.stderr, flush=True)


class NothingToIngestError(GroundQAError, ValueError):
    """No document of the path could be loaded; ``errors`` says what was wrong with each."""

    def __init__(self, message: str, errors: Sequence[LoadError] = ()) -> None:
        super().__init__(message)
        self.errors = list(errors)


class IngestOptionError(GroundQAError, ValueError):
    """An ingestion option that does not fit the path (e.g. ``sync`` with a single file)."""


def fingerprint(data: bytes, chunk_size: int, chunk_overlap: int, root: str) -> tuple[str, str]:
    """``(content_hash, fingerprint)`` of a file: the SHA-256 of its bytes, and a digest of that hash
    with everything else that decides its chunks (chunk settings, readers' version, ingest folder)."""
    content = hashlib.sha256(data).hexdigest()
    key = f"{content}\x1f{chunk_size}\x1f{chunk_overlap}\x1f{READERS_VERSION}\x1f{root}"
    return content, hashlib.sha256(key.encode()).hexdigest()[:32]


def _estimated_chunks(doc: Document, chunk_size: int, chunk_overlap: int) -> int:
    step = max(1, chunk_size - chunk_overlap)
    parts = [s.text for s in doc.segments] or [doc.text]
    return sum(1 + len(text) // step for text in parts)


def estimate_chunks(n_bytes: int, chunk_size: int, chunk_overlap: int) -> int:
    """Chunks that ``n_bytes`` of text make, roughly (a new chunk every ``size - overlap`` characters)."""
    return max(1, n_bytes // max(1, chunk_size - chunk_overlap))


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Meter:
    """Progress of one ingestion in bytes of input and chunks stored, for ETA lines on ``notify``.

    Lines are printed every 10 s, only for a big ingest (over :data:`LARGE_INPUT_BYTES` or about
    :data:`BIG_INGEST_CHUNKS` chunks) whose caller shows no progress of its own.
    """

    def __init__(self, total_bytes: int, estimated: int, notify: Notify | None, quiet: bool) -> None:
        self.total_bytes, self.estimated, self.notify = max(1, total_bytes), estimated, notify
        self.active = notify is not None and not quiet and (
            total_bytes > LARGE_INPUT_BYTES or estimated > BIG_INGEST_CHUNKS)
        self.started = time.monotonic()
        self.last = self.started
        self.bytes_done = 0
        self.chunks = 0

    def advance(self, n_bytes: int = 0, chunks: int = 0) -> None:
        self.bytes_done += n_bytes
        self.chunks += chunks
        now = time.monotonic()
        if self.active and now - self.last >= _REPORT_EVERY_S and self.notify is not None:
            self.last = now
            self.notify(self.line(now))

    def line(self, now: float) -> str:
        share = min(1.0, self.bytes_done / self.total_bytes)
        elapsed = now - self.started
        rate = self.chunks / elapsed if elapsed > 0 else 0.0
        left = elapsed * (1 - share) / share if share > 0 else 0.0
        return (f"ingesting: {100 * share:.0f}% ({self.bytes_done / 2**20:.1f} of {self.total_bytes / 2**20:.1f} MB), "
                f"{self.chunks:,} chunks stored, {rate:.0f} chunks/s, about {_duration(left)} left")


def warn_if_large(n_bytes: int, chunk_size: int, chunk_overlap: int, notify: Notify | None, what: str,
                  sentences: bool = False) -> None:
    """One line before a very large input: its size, the estimated chunks and time (``sentences``: each chunk's
    sentences are embedded too, and the line says how to leave them to the questions)."""
    if notify is None or n_bytes <= LARGE_INPUT_BYTES:
        return
    chunks = estimate_chunks(n_bytes, chunk_size, chunk_overlap)
    rate = EXPECTED_CHUNKS_PER_S / (SENTENCES_SLOWDOWN if sentences else 1.0)
    also = (f", embedding each chunk's sentences too (embed_sentences = false leaves them to the questions: about "
            f"{_duration(chunks / EXPECTED_CHUNKS_PER_S)})") if sentences else ""
    notify(f"large input: {what} holds {n_bytes / 2**20:.1f} MB, about {chunks:,} chunks; at about "
           f"{rate:.0f} chunks/s that is roughly {_duration(chunks / rate)}{also} "
           "(PDF and HTML make fewer chunks per MB); progress follows, and an interrupted ingest is finished "
           "by ingesting again")


class _Batcher:
    """Collects documents and stores them in groups of about one embedding batch."""

    def __init__(self, store: CorpusStore, report: IngestReport, chunk_size: int, chunk_overlap: int,
                 total: int, progress: Progress | None, meter: Meter) -> None:
        self.store, self.report, self.size, self.overlap = store, report, chunk_size, chunk_overlap
        self.total, self.progress, self.meter = total, progress, meter
        self.group: list[tuple[Document, str]] = []
        self.estimate = 0
        self.done = 0
        self.pending_bytes = 0
        self.upto: int | None = None

    def skip(self, n_bytes: int = 0) -> None:
        """One document that needs no storing (unchanged, or failed)."""
        self.done += 1
        self.meter.advance(n_bytes)
        if not self.group:
            self._tell()

    def add(self, doc: Document, kind: str, n_bytes: int = 0, upto: int | None = None) -> None:
        """Queue ``doc``; ``upto``: input units (JSONL lines) consumed once it is stored."""
        self.group.append((doc, kind))
        self.upto = upto
        self.pending_bytes += n_bytes
        self.estimate += _estimated_chunks(doc, self.size, self.overlap)
        if self.estimate >= _GROUP_CHUNKS:
            self.flush()

    def flush(self) -> None:
        if not self.group:
            return
        part = self.store.ingest([doc for doc, _ in self.group], self.size, self.overlap)
        self.report.merge(part)
        for doc, kind in self.group:
            tally = self.report.by_format.setdefault(kind, FormatReport())
            tally.ingested += 1
            tally.chunks_added += part.added_by_document.get(doc.id, 0)
        self.done = self.upto if self.upto is not None else self.done + len(self.group)
        self.meter.advance(self.pending_bytes, part.chunks_added)
        self.group, self.estimate, self.pending_bytes = [], 0, 0
        self._tell()

    def _tell(self) -> None:
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)


def ingest_path(settings: Settings, path: str | Path, chunk_size: int | None = None,
                chunk_overlap: int | None = None, progress: Progress | None = None,
                sync: bool = False, notify: Notify | None = stderr_notify) -> IngestReport:
    """Ingest a folder (``.md``, ``.txt``, ``.pdf``, ``.html`` mixed), one such file, or a corpus JSONL.

    Idempotent: unchanged files are skipped by fingerprint, unchanged chunks are left alone. With
    ``sync`` (folders only), documents ingested from this folder whose file is gone are removed. The
    report's ``errors`` name every unreadable, scanned, encrypted or corrupt file, unreadable folder and
    broken line, which are skipped; ``by_format`` counts per file type. When nothing could be loaded at
    all, :class:`NothingToIngestError` carries the errors. Holds the collection's ingest lock throughout
    (``notify`` says when it has to wait; ``notify=None`` silences status lines).
    """
    started = time.perf_counter()
    path = Path(path)
    size = chunk_size or settings.chunk_size
    overlap = chunk_overlap or settings.chunk_overlap
    if not path.exists():
        raise NothingToIngestError(f"nothing to ingest from {path}", [LoadError(str(path), None, "path not found")])
    if sync and not path.is_dir():
        raise IngestOptionError(f"--sync needs a folder (it removes documents whose file left the folder); "
                                f"{path} is a file")
    if path.is_file() and path.suffix.lower() == ".jsonl":
        ingest = _ingest_jsonl
    elif path.is_dir() or file_format(path) is not None:
        ingest = _ingest_files
    else:
        loaded = load_corpus(path)  # names the unsupported type
        raise NothingToIngestError(f"nothing to ingest from {path}", loaded.errors or [LoadError(
            str(path), None, f"unsupported file type (expected a folder, .jsonl, {', '.join(DOCUMENT_SUFFIXES)})")])
    store = open_store(settings)
    opened = time.perf_counter()
    try:
        with store.write_session(on_wait=notify):
            locked = time.perf_counter()
            if store.write_interrupted and notify is not None:
                notify(f"an earlier ingest into collection '{settings.collection}' was interrupted; this one "
                       "finishes it (retrieval caches stay invalidated until it ends)")
            report = ingest(store, path, size, overlap, progress, sync, notify)
            report.chunks_total = store.count()
            report.stage_seconds.update(open=opened - started, lock=locked - opened)
        report.index_version = store.index_version
    except GroundQAError:
        raise
    except Exception as exc:  # chromadb raises many types; one line for all
        raise ingestion_failure(exc) from exc
    report.seconds = time.perf_counter() - started
    return report


def _ingest_jsonl(store: CorpusStore, path: Path, size: int, overlap: int, progress: Progress | None,
                  sync: bool, notify: Notify | None) -> IngestReport:
    n_bytes = path.stat().st_size
    try:
        total = count_lines(path)
    except OSError as exc:
        raise NothingToIngestError(f"nothing to ingest from {path}", [
            LoadError(str(path), None, f"cannot read file: {exc.strerror or exc}")]) from exc
    warn_if_large(n_bytes, size, overlap, notify, str(path), sentences=store.reading is not None)
    report = IngestReport()
    meter = Meter(n_bytes, estimate_chunks(n_bytes, size, overlap), notify, quiet=progress is not None)
    batcher = _Batcher(store, report, size, overlap, total, progress, meter)
    stream = JsonlStream(path)
    read_s, read_from, consumed = 0.0, time.perf_counter(), 0
    for number, doc in stream:
        read_s += time.perf_counter() - read_from
        batcher.add(doc, "jsonl", stream.bytes_read - consumed, upto=number)
        consumed = stream.bytes_read
        read_from = time.perf_counter()
    read_s += time.perf_counter() - read_from
    batcher.flush()
    batcher.meter.advance(stream.bytes_read - consumed)
    batcher.done = total
    batcher._tell()
    report.errors.extend(stream.errors)
    report.stage_seconds["read"] = report.stage_seconds.get("read", 0.0) + read_s
    report.by_format["jsonl"] = FormatReport(files=1, ingested=report.documents, failed=len(stream.errors),
                                             chunks_added=report.chunks_added)
    if not report.documents:
        raise NothingToIngestError(f"nothing to ingest from {path}", report.errors)
    return report


def _ingest_files(store: CorpusStore, path: Path, size: int, overlap: int, progress: Progress | None,
                  sync: bool, notify: Notify | None) -> IngestReport:
    folder = path if path.is_dir() else path.parent
    root = str(folder.resolve())
    scan = scan_folder(folder) if path.is_dir() else FolderScan(files=[path], bytes=path.stat().st_size)
    report = IngestReport(errors=scan.errors)
    if not scan.files:
        raise NothingToIngestError(f"nothing to ingest from {path}", [*report.errors, LoadError(
            str(path), None, f"no {', '.join(DOCUMENT_SUFFIXES)} files found")])
    warn_if_large(scan.bytes, size, overlap, notify, f"{path} ({len(scan.files):,} files)",
                  sentences=store.reading is not None)
    started = time.perf_counter()
    sources = SourceIndex.load(store, folder, scan.files)
    report.stage_seconds["lookup"] = time.perf_counter() - started
    meter = Meter(scan.bytes, estimate_chunks(scan.bytes, size, overlap), notify, quiet=progress is not None)
    batcher = _Batcher(store, report, size, overlap, len(scan.files), progress, meter)
    present: set[str] = set()
    for file in scan.files:
        _ingest_file(file, folder, root, sources, batcher, report, present)
    batcher.flush()
    if sync:
        _remove_deleted(store, root, present, scan, report)
    if not report.documents and not report.files_unchanged and not report.documents_removed:
        raise NothingToIngestError(f"nothing to ingest from {path}", report.errors)
    return report


def _ingest_file(file: Path, folder: Path, root: str, sources: SourceIndex, batcher: _Batcher,
                 report: IngestReport, present: set[str]) -> None:
    """Read one file and hand it to the batcher, or count it unchanged or failed."""
    kind = file_format(file) or file.suffix.lower().lstrip(".")
    tally = report.by_format.setdefault(kind, FormatReport())
    tally.files += 1
    identity = sources.identify(file, folder)
    present.add(identity.doc_id)
    started = time.perf_counter()
    n_bytes = 0
    try:
        data = read_bytes(file)
        n_bytes = len(data)
        content_hash, print_ = fingerprint(data, batcher.size, batcher.overlap, root)
        if identity.fingerprint == print_:
            tally.unchanged += 1
            report.files_unchanged += 1
            batcher.skip(n_bytes)
            return
        doc = load_file(file, folder, data)
    except FileNotFoundError:
        report.errors.append(LoadError(str(file), None, "file disappeared while ingesting"))
    except ValueError as exc:
        report.errors.append(LoadError(str(file), None, str(exc)))
    else:
        report.stage_seconds["read"] = report.stage_seconds.get("read", 0.0) + time.perf_counter() - started
        if identity.note is not None:
            report.notes.append(identity.note)
        tally.pages += int(doc.metadata.get("pages") or 0)
        batcher.add(doc.model_copy(update={"id": identity.doc_id, "root": root, "content_hash": content_hash,
                                           "fingerprint": print_, "path": identity.doc_id,
                                           "source_path": identity.source}), kind, n_bytes)
        return
    report.stage_seconds["read"] = report.stage_seconds.get("read", 0.0) + time.perf_counter() - started
    tally.failed += 1
    batcher.skip(n_bytes)


def _remove_deleted(store: CorpusStore, root: str, present: set[str], scan: FolderScan, report: IngestReport) -> None:
    """``--sync``: remove the documents of this folder whose file is gone (never those below a folder
    that could not be read: their files may well be there)."""
    unreadable = [str(p.resolve()) for p in scan.unreadable]
    gone = []
    for doc_id, meta in sorted(store.first_chunks("root", [root]).items()):
        if doc_id in present:
            continue
        source = str(meta.get("source_path") or Path(root) / str(meta.get("path") or doc_id))
        if any(source.startswith(folder.rstrip("/") + "/") for folder in unreadable):
            continue
        gone.append(doc_id)
    if gone:
        report.chunks_removed += store.remove_documents(gone)
        report.documents_removed = len(gone)


def ingest_documents(settings: Settings, documents: Sequence[Document], chunk_size: int | None = None,
                     chunk_overlap: int | None = None, progress: Progress | None = None,
                     notify: Notify | None = stderr_notify) -> IngestReport:
    """Upsert documents into the configured collection (idempotent) under its ingest lock; return the
    IngestReport."""
    store = open_store(settings)
    with store.write_session(on_wait=notify):
        report = store.ingest(documents, chunk_size or settings.chunk_size,
                              chunk_overlap or settings.chunk_overlap, progress=progress)
    report.index_version = store.index_version
    return report


def ensure_corpus(settings: Settings, before_ingesting: Callable[[], None] | None = None) -> IngestReport | None:
    """An empty collection gets the bundled demo corpus, so that asking works right after set-up.

    ``before_ingesting()`` is called first (to tell the user); returns the report, or ``None`` when the
    collection already had chunks.
    """
    if open_store(settings).count() > 0:
        return None
    if before_ingesting is not None:
        before_ingesting()
    return ingest_path(settings, DEMO_CORPUS)
