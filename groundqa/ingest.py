"""Ingestion as an application use case: load a corpus, upsert it into the configured collection.

It lives here rather than in the command line so that compiling, evaluating and benchmarks ingest
the same way; how progress is shown (a tqdm bar, nothing) is the caller's ``progress`` callback, and
problems with single files or lines are returned on the report, never printed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from groundqa.app import open_store
from groundqa.config import Settings
from groundqa.datasets import DATA_DIR
from groundqa.datasets.loaders import Document, LoadError, load_corpus
from groundqa.errors import GroundQAError
from groundqa.store.chroma_store import IngestReport

Progress = Callable[[int, int], None]
"""``progress(done, total)``: chunks embedded so far, out of the chunks to embed."""

DEMO_CORPUS = DATA_DIR / "demo" / "corpus.jsonl"


class NothingToIngestError(GroundQAError, ValueError):
    """No document of the path could be loaded; ``errors`` says what was wrong with each."""

    def __init__(self, message: str, errors: Sequence[LoadError] = ()) -> None:
        super().__init__(message)
        self.errors = list(errors)


def ingest_path(settings: Settings, path: str | Path, chunk_size: int | None = None,
                chunk_overlap: int | None = None, progress: Progress | None = None) -> IngestReport:
    """Load a folder of .md/.txt files, a corpus JSONL or one text file and upsert it (idempotent).

    The report's ``errors`` name every unreadable file or broken line, which is skipped; when nothing
    can be loaded, :class:`NothingToIngestError` carries them.
    """
    loaded = load_corpus(path)
    if not loaded.items:
        raise NothingToIngestError(f"nothing to ingest from {path}", loaded.errors)
    report = ingest_documents(settings, loaded.items, chunk_size, chunk_overlap, progress)
    report.errors = loaded.errors
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
