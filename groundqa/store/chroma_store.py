"""The Chroma corpus store: idempotent ingestion and dense retrieval with the packaged MiniLM.

Persistent by default (``<home>/chroma``); a Chroma server is used when ``chroma_url`` is set.
Chunk ids derive from document id + content, so re-ingesting is an idempotent upsert and a changed
document replaces its old chunks. Every change bumps the collection's ``index_version`` (used to
invalidate retrieval caches). Each chunk's metadata keeps where it came from (``path``, ``page`` or
``section``, ``char_start``/``char_end``) and, for files, the ``fingerprint`` that lets re-ingestion
skip an unchanged file without reading it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from groundqa.datasets.loaders import Document, LoadError
from groundqa.errors import GroundQAError
from groundqa.signatures.types import Passage
from groundqa.store.chunking import Chunk, chunk_segments, chunk_text
from groundqa.store.embeddings import Embedder, get_embedder

_VERSION_KEY = "groundqa_index_version"
_MODEL_KEY = "groundqa_embedding_model"
_UPSERT_BATCH = 256
_LOOKUP_BATCH = 500


class StoreError(GroundQAError, RuntimeError):
    """The vector store cannot be opened or queried; the message says why."""


@dataclass
class FormatReport:
    """One file type's share of an ingestion (``pdf``, ``html``, ``md``, ``txt``, ``jsonl``)."""

    files: int = 0
    ingested: int = 0
    unchanged: int = 0
    failed: int = 0
    pages: int = 0
    chunks_added: int = 0


@dataclass
class IngestReport:
    """What one ingestion did."""

    documents: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_unchanged: int = 0
    chunks_total: int = 0
    index_version: int = 0
    seconds: float = 0.0
    errors: list[LoadError] = field(default_factory=list)
    files_unchanged: int = 0
    """files skipped without reading: same content (hash), chunking and readers as when stored"""
    documents_removed: int = 0
    """documents whose file was deleted (``sync``)"""
    chunks_relocated: int = 0
    """unchanged chunks whose location metadata was brought up to date (no re-embedding)"""
    added_by_document: dict[str, int] = field(default_factory=dict)
    by_format: dict[str, FormatReport] = field(default_factory=dict)
    notes: list[LoadError] = field(default_factory=list)
    """what was skipped inside files that were ingested (e.g. PDF pages without text)"""

    @property
    def chunks_per_second(self) -> float:
        return self.chunks_added / self.seconds if self.seconds > 0 else 0.0

    def merge(self, other: IngestReport) -> None:
        """Add the counts of a later part of the same ingestion (totals and version: the later ones)."""
        self.documents += other.documents
        self.chunks_added += other.chunks_added
        self.chunks_removed += other.chunks_removed
        self.chunks_unchanged += other.chunks_unchanged
        self.chunks_relocated += other.chunks_relocated
        self.documents_removed += other.documents_removed
        self.files_unchanged += other.files_unchanged
        self.chunks_total, self.index_version = other.chunks_total, other.index_version
        self.seconds += other.seconds
        self.errors.extend(other.errors)
        self.notes.extend(other.notes)
        for doc_id, added in other.added_by_document.items():
            self.added_by_document[doc_id] = self.added_by_document.get(doc_id, 0) + added


def _scalar_metadata(values: dict[str, Any]) -> dict[str, str | int | float | bool]:
    flat: dict[str, str | int | float | bool] = {}
    for key, value in values.items():
        if value is None:
            continue
        flat[key] = value if isinstance(value, (str, int, float, bool)) else json.dumps(value, ensure_ascii=False)
    return flat


def open_client(path: Path | None = None, url: str | None = None) -> Any:
    """A Chroma client: HTTP when ``url`` is given, else persistent at ``path``. Telemetry is off."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    settings = ChromaSettings(anonymized_telemetry=False)
    try:
        if url:
            parsed = urlparse(url if "://" in url else f"http://{url}")
            return chromadb.HttpClient(
                host=parsed.hostname or "localhost", port=parsed.port or 8000,
                ssl=parsed.scheme == "https", settings=settings,
            )
        if path is None:
            raise StoreError("a persistent Chroma store needs a path")
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=settings)
    except StoreError:
        raise
    except Exception as exc:  # chromadb raises many types; one clear message for all
        where = url or str(path)
        raise StoreError(f"cannot open the Chroma store at {where}: {exc}") from exc


def chunk_metadata(doc: Document, chunk: Chunk) -> dict[str, str | int | float | bool]:
    """What a chunk's metadata holds: the document's metadata, its id and title, the chunk's position,
    and its place in the source (page or section, character offsets)."""
    values: dict[str, Any] = {**doc.metadata, "doc_id": doc.id, "title": doc.title, "position": chunk.position,
                              "char_start": chunk.start, "char_end": chunk.end}
    if chunk.page is not None:
        values["page"] = chunk.page
    if chunk.section:
        values["section"] = chunk.section
    return _scalar_metadata(values)


def embedding_text(doc: Document, chunk: Chunk) -> str:
    """What is embedded for a chunk: its text under the document title (and section, when it has one)."""
    heading = f"{doc.title} \u203a {chunk.section}" if doc.title and chunk.section else (doc.title or chunk.section)
    return f"{heading}\n{chunk.text}" if heading else chunk.text


class CorpusStore:
    """One Chroma collection of chunks with their document id, title and position."""

    def __init__(
        self,
        path: Path | None = None,
        collection: str = "groundqa",
        url: str | None = None,
        embedder: Embedder | None = None,
        client: Any = None,
    ) -> None:
        self.path, self.url = path, url
        self.client = client or open_client(path, url)
        self.collection_name = collection
        self._embedder = embedder
        self.collection = self.client.get_or_create_collection(
            name=collection,
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={_MODEL_KEY: "all-MiniLM-L6-v2", _VERSION_KEY: 0},
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> CorpusStore:
        return self  # a shared resource: programs copied by optimizers keep using the same store

    def __getstate__(self) -> dict[str, Any]:
        """Pickled as its address (e.g. inside an MLflow model); the client reopens on load."""
        return {"path": self.path, "url": self.url, "collection": self.collection_name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], collection=state["collection"], url=state["url"])  # type: ignore[misc]

    def refresh_version(self) -> int:
        """Re-read the collection metadata (another process may have ingested) and return the version."""
        self.collection = self.client.get_collection(self.collection_name)
        return self.index_version

    # -- properties ------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    @property
    def embedding_model(self) -> str:
        return str((self.collection.metadata or {}).get(_MODEL_KEY, "all-MiniLM-L6-v2"))

    @property
    def index_version(self) -> int:
        return int((self.collection.metadata or {}).get(_VERSION_KEY, 0))

    def count(self) -> int:
        return int(self.collection.count())

    # -- ingestion -------------------------------------------------------------------------
    def _bump_version(self) -> int:
        metadata = dict(self.collection.metadata or {})
        metadata[_VERSION_KEY] = int(metadata.get(_VERSION_KEY, 0)) + 1
        self.collection.modify(metadata=metadata)
        return metadata[_VERSION_KEY]

    def ingest(
        self,
        documents: Iterable[Document],
        chunk_size: int = 600,
        chunk_overlap: int = 120,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Upsert ``documents`` (see :meth:`_ingest`); a store that fails on the way (a Chroma server that
        goes away) is one :class:`StoreError`: the batches stored before it stay, and ingesting again
        finishes the job."""
        try:
            return self._ingest(documents, chunk_size, chunk_overlap, progress)
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"the Chroma store failed during ingestion ({type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else 'no detail'}); what was stored before "
                             "stays, ingest again to finish") from exc

    def _ingest(
        self,
        documents: Iterable[Document],
        chunk_size: int = 600,
        chunk_overlap: int = 120,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Upsert ``documents``: new chunks are embedded and added, stale chunks of a changed
        document are removed, unchanged chunks are left alone (their location metadata is brought up
        to date when it differs, without re-embedding)."""
        import time

        started = time.perf_counter()
        report = IngestReport()
        pending: list[tuple[Chunk, Document, dict[str, Any]]] = []
        stale: list[str] = []
        relocated: list[tuple[str, dict[str, Any]]] = []
        for doc in documents:
            chunks = (chunk_segments(doc.id, doc.segments, chunk_size, chunk_overlap) if doc.segments
                      else chunk_text(doc.id, doc.text, chunk_size, chunk_overlap))
            found = self.collection.get(where={"doc_id": doc.id}, include=["metadatas"])
            existing = dict(zip(found["ids"], found["metadatas"] or [{}] * len(found["ids"]), strict=True))
            wanted = {c.chunk_id for c in chunks}
            stale.extend(sorted(set(existing) - wanted))
            for chunk in chunks:
                metadata = chunk_metadata(doc, chunk)
                if chunk.chunk_id not in existing:
                    pending.append((chunk, doc, metadata))
                    continue
                report.chunks_unchanged += 1
                stored = existing[chunk.chunk_id] or {}
                if any(stored.get(key) != value for key, value in metadata.items()):
                    relocated.append((chunk.chunk_id, metadata))
            report.documents += 1
            report.notes.extend(LoadError(str(doc.metadata.get("source") or doc.id), None, note) for note in doc.notes)
        done = 0
        for start in range(0, len(pending), _UPSERT_BATCH):
            batch = pending[start : start + _UPSERT_BATCH]
            vectors = self.embedder.embed([embedding_text(doc, c) for c, doc, _ in batch])
            self.collection.upsert(
                ids=[c.chunk_id for c, _, _ in batch],
                embeddings=vectors,
                documents=[c.text for c, _, _ in batch],
                metadatas=[metadata for _, _, metadata in batch],
            )
            for chunk, _, _ in batch:
                report.added_by_document[chunk.doc_id] = report.added_by_document.get(chunk.doc_id, 0) + 1
            done += len(batch)
            if progress:
                progress(done, len(pending))
        for start in range(0, len(relocated), _UPSERT_BATCH):
            part = relocated[start : start + _UPSERT_BATCH]
            self.collection.update(ids=[cid for cid, _ in part], metadatas=[m for _, m in part])
        if stale:
            self.collection.delete(ids=stale)
        report.chunks_added = len(pending)
        report.chunks_removed = len(stale)
        report.chunks_relocated = len(relocated)
        changed = bool(pending or stale or relocated)
        report.index_version = self._bump_version() if changed else self.index_version
        report.chunks_total = self.count()
        report.seconds = time.perf_counter() - started
        return report

    def fingerprints(self, doc_ids: Iterable[str]) -> dict[str, str]:
        """The stored ``fingerprint`` of each of ``doc_ids`` that has one (read from its first chunk)."""
        ids = list(dict.fromkeys(doc_ids))
        out: dict[str, str] = {}
        for start in range(0, len(ids), _LOOKUP_BATCH):
            part = ids[start : start + _LOOKUP_BATCH]
            found = self.collection.get(where={"$and": [{"doc_id": {"$in": part}}, {"position": 0}]},
                                        include=["metadatas"])
            for meta in found["metadatas"] or []:
                if meta and meta.get("fingerprint"):
                    out[str(meta.get("doc_id"))] = str(meta["fingerprint"])
        return out

    def documents_from(self, root: str) -> set[str]:
        """Ids of the documents ingested from the folder ``root`` (its resolved path)."""
        found = self.collection.get(where={"$and": [{"root": root}, {"position": 0}]}, include=["metadatas"])
        return {str(meta.get("doc_id")) for meta in found["metadatas"] or [] if meta}

    def remove_documents(self, doc_ids: Iterable[str]) -> int:
        """Delete every chunk of ``doc_ids``; returns the number of chunks removed (bumps the version)."""
        ids = list(dict.fromkeys(doc_ids))
        removed = 0
        for start in range(0, len(ids), _LOOKUP_BATCH):
            part = ids[start : start + _LOOKUP_BATCH]
            chunk_ids = self.collection.get(where={"doc_id": {"$in": part}}, include=[])["ids"]
            if chunk_ids:
                self.collection.delete(ids=chunk_ids)
                removed += len(chunk_ids)
        if removed:
            self._bump_version()
        return removed

    # -- retrieval -------------------------------------------------------------------------
    def query(self, text: str, k: int = 4, where: dict[str, Any] | None = None,
              contains: str | None = None) -> list[Passage]:
        """The ``k`` chunks most similar to ``text`` (score = cosine similarity, best first); with
        ``contains``, only chunks whose text holds that string (Chroma's full-text filter, case-sensitive)."""
        if k <= 0:
            return []
        return self.query_vector(self.embedder.embed_one(text), k, where, contains)

    def query_vector(self, vector: list[float], k: int, where: dict[str, Any] | None = None,
                     contains: str | None = None) -> list[Passage]:
        total = self.count()
        if total == 0:
            return []
        result = self.collection.query(
            query_embeddings=[vector], n_results=min(k, total), where=where,
            where_document={"$contains": contains} if contains else None,
            include=["documents", "metadatas", "distances"],
        )
        passages: list[Passage] = []
        for cid, text, meta, dist in zip(
            result["ids"][0], result["documents"][0], result["metadatas"][0], result["distances"][0], strict=True
        ):
            meta = dict(meta or {})
            passages.append(
                Passage(
                    chunk_id=cid, doc_id=str(meta.pop("doc_id", "")), title=str(meta.pop("title", "")),
                    text=text or "", score=round(1.0 - float(dist), 6), metadata=meta,
                )
            )
        return passages

    def get(self, chunk_ids: list[str]) -> list[Passage]:
        """Chunks by id, in the order asked (missing ids are skipped)."""
        if not chunk_ids:
            return []
        found = self.collection.get(ids=chunk_ids, include=["documents", "metadatas"])
        by_id = {
            cid: Passage(chunk_id=cid, doc_id=str((m or {}).get("doc_id", "")), title=str((m or {}).get("title", "")),
                         text=t or "", metadata=dict(m or {}))
            for cid, t, m in zip(found["ids"], found["documents"], found["metadatas"], strict=True)
        }
        return [by_id[c] for c in chunk_ids if c in by_id]
