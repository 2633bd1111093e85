"""Ingestion as an application use case: load a corpus, upsert it into the configured collection.

It lives here rather than in the command line so that compiling, evaluating and benchmarks ingest
the same way; how progress is shown (a tqdm bar, nothing) is the caller's ``progress`` callback, and
problems with single files or lines are returned on the report, never printed.

A folder may mix ``.md``, ``.txt``, ``.pdf`` and ``.html`` files. They are read one by one and stored
in groups of about one embedding batch, so one progress count (files) covers reading and embedding
and a failure late in a large folder loses nothing stored before it. Each stored file carries a
fingerprint (its content hash, the chunk settings, the readers' version and the folder): a file whose
fingerprint is unchanged is skipped without being read again. With ``sync``, documents of the folder
whose file is gone are removed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from groundqa.app import open_store
from groundqa.config import Settings
from groundqa.datasets import DATA_DIR
from groundqa.datasets.loaders import (
    DOCUMENT_SUFFIXES,
    Document,
    LoadError,
    corpus_files,
    document_id,
    file_format,
    load_corpus,
    load_corpus_jsonl,
    load_file,
    read_bytes,
)
from groundqa.errors import GroundQAError
from groundqa.readers import READERS_VERSION
from groundqa.store.chroma_store import CorpusStore, FormatReport, IngestReport

Progress = Callable[[int, int], None]
"""``progress(done, total)``: for :func:`ingest_documents`, chunks embedded so far out of the chunks to
embed; for :func:`ingest_path`, documents (files, or lines of a corpus JSONL) done out of all of them."""

DEMO_CORPUS = DATA_DIR / "demo" / "corpus.jsonl"
_GROUP_CHUNKS = 256  # about one embedding batch of the store


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


class _Batcher:
    """Collects documents and stores them in groups of about one embedding batch."""

    def __init__(self, store: CorpusStore, report: IngestReport, chunk_size: int, chunk_overlap: int,
                 total: int, progress: Progress | None) -> None:
        self.store, self.report, self.size, self.overlap = store, report, chunk_size, chunk_overlap
        self.total, self.progress = total, progress
        self.group: list[tuple[Document, str]] = []
        self.estimate = 0
        self.done = 0

    def skip(self) -> None:
        """One document that needs no storing (unchanged, or failed)."""
        self.done += 1
        if not self.group:
            self._tell()

    def add(self, doc: Document, kind: str) -> None:
        self.group.append((doc, kind))
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
        self.done += len(self.group)
        self.group, self.estimate = [], 0
        self._tell()

    def _tell(self) -> None:
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)


def ingest_path(settings: Settings, path: str | Path, chunk_size: int | None = None,
                chunk_overlap: int | None = None, progress: Progress | None = None,
                sync: bool = False) -> IngestReport:
    """Ingest a folder (``.md``, ``.txt``, ``.pdf``, ``.html`` mixed), one such file, or a corpus JSONL.

    Idempotent: unchanged files are skipped by fingerprint, unchanged chunks are left alone. With
    ``sync`` (folders only), documents ingested from this folder whose file is gone are removed. The
    report's ``errors`` name every unreadable, scanned, encrypted or corrupt file and every broken line,
    which are skipped; ``by_format`` counts per file type. When nothing could be loaded at all,
    :class:`NothingToIngestError` carries the errors.
    """
    import time

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
        report = _ingest_jsonl(settings, path, size, overlap, progress)
    elif path.is_dir() or file_format(path) is not None:
        report = _ingest_files(settings, path, size, overlap, progress, sync)
    else:
        loaded = load_corpus(path)  # names the unsupported type
        raise NothingToIngestError(f"nothing to ingest from {path}", loaded.errors or [LoadError(
            str(path), None, f"unsupported file type (expected a folder, .jsonl, {', '.join(DOCUMENT_SUFFIXES)})")])
    report.seconds = time.perf_counter() - started
    return report


def _ingest_jsonl(settings: Settings, path: Path, size: int, overlap: int, progress: Progress | None) -> IngestReport:
    loaded = load_corpus_jsonl(path)
    if not loaded.items:
        raise NothingToIngestError(f"nothing to ingest from {path}", loaded.errors)
    store = open_store(settings)
    report = IngestReport(errors=list(loaded.errors), index_version=store.index_version)
    report.by_format["jsonl"] = FormatReport(files=1, failed=len(loaded.errors))
    batcher = _Batcher(store, report, size, overlap, len(loaded.items), progress)
    for doc in loaded.items:
        batcher.add(doc, "jsonl")
    batcher.flush()
    report.chunks_total = store.count()
    return report


def _ingest_files(settings: Settings, path: Path, size: int, overlap: int, progress: Progress | None,
                  sync: bool) -> IngestReport:
    folder = path if path.is_dir() else path.parent
    root = str(folder.resolve())
    files = corpus_files(folder) if path.is_dir() else [path]
    if not files:
        raise NothingToIngestError(f"nothing to ingest from {path}", [
            LoadError(str(path), None, f"no {', '.join(DOCUMENT_SUFFIXES)} files found")])
    store = open_store(settings)
    report = IngestReport(index_version=store.index_version)
    stored = store.fingerprints(document_id(f, folder) for f in files)
    batcher = _Batcher(store, report, size, overlap, len(files), progress)
    for file in files:
        kind = file_format(file) or file.suffix.lower().lstrip(".")
        tally = report.by_format.setdefault(kind, FormatReport())
        tally.files += 1
        doc_id = document_id(file, folder)
        try:
            data = read_bytes(file)
            content_hash, print_ = fingerprint(data, size, overlap, root)
            if stored.get(doc_id) == print_:
                tally.unchanged += 1
                report.files_unchanged += 1
                batcher.skip()
                continue
            doc = load_file(file, folder, data)
        except FileNotFoundError:
            report.errors.append(LoadError(str(file), None, "file disappeared while ingesting"))
        except ValueError as exc:
            report.errors.append(LoadError(str(file), None, str(exc)))
        else:
            tally.pages += int(doc.metadata.get("pages") or 0)
            batcher.add(doc.model_copy(update={"root": root, "content_hash": content_hash,
                                               "fingerprint": print_}), kind)
            continue
        tally.failed += 1
        batcher.skip()
    batcher.flush()
    if sync:
        present = {document_id(f, folder) for f in files}
        gone = sorted(store.documents_from(root) - present)
        if gone:
            report.chunks_removed += store.remove_documents(gone)
            report.documents_removed = len(gone)
    if not report.documents and not report.files_unchanged and not report.documents_removed:
        raise NothingToIngestError(f"nothing to ingest from {path}", report.errors)
    report.chunks_total = store.count()
    report.index_version = store.index_version
    return report


def ingest_documents(settings: Settings, documents: Sequence[Document], chunk_size: int | None = None,
                     chunk_overlap: int | None = None, progress: Progress | None = None) -> IngestReport:
    """Upsert documents into the configured collection (idempotent); return the IngestReport."""
    store = open_store(settings)
    return store.ingest(documents, chunk_size or settings.chunk_size,
                        chunk_overlap or settings.chunk_overlap, progress=progress)


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
