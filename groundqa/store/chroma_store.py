"""The Chroma corpus store: idempotent ingestion and dense retrieval with the packaged MiniLM.

Persistent by default (``<home>/chroma``); a Chroma server is used when ``chroma_url`` is set.
Chunk ids derive from document id + content, so re-ingesting is an idempotent upsert and a changed
document replaces its old chunks. Each chunk's metadata keeps where it came from (``path``, ``page`` or
``section``, ``char_start``/``char_end``) and, for files, the ``fingerprint`` that lets re-ingestion
skip an unchanged file without reading it.

Why writes look the way they do (issue #15):

* Retrieval caches are keyed by the collection's ``index_version``. A writer bumps it *before* its first
  write and marks the collection as being written, and bumps it again (clearing the mark) after its
  last write. While the mark is set, :attr:`CorpusStore.index_version` reads as a number never seen
  before, so nothing cached during a write, or after a write that was killed half-way, is ever served
  again; the next ingest clears the mark.
* Every write happens under the collection's ingest lock (:mod:`groundqa.store.lock`), so two ingests
  are serialised instead of interleaving their reads and writes.
* A document's first chunk carries the file fingerprint that lets a re-ingest skip the file, so it is
  written after every other chunk of the document: a killed ingest never leaves a half-stored file
  that looks complete.
* Chunk lookups are batched (one query per 500 documents) and each batch of new chunks is one embedding
  call and one upsert; ``IngestReport.stage_seconds`` says where the time went.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from groundqa.datasets.loaders import Document, LoadError
from groundqa.errors import GroundQAError
from groundqa.signatures.types import Passage
from groundqa.store.chunking import Chunk, chunk_segments, chunk_text
from groundqa.store.embeddings import Embedder, get_embedder
from groundqa.store.lexical_index import Analyzer, LexicalIndex
from groundqa.store.lock import IngestLockedError, ingest_lock

_log = logging.getLogger(__name__)
_VERSION_KEY = "groundqa_index_version"
_WRITING_KEY = "groundqa_writing"
"""1 from just before a writer's first write until just after its last (still 1 if it was killed)."""
_MODEL_KEY = "groundqa_embedding_model"
_UPSERT_BATCH = 256
_LOOKUP_BATCH = 500
_DELETE_BATCH = 5_000  # under Chroma's maximum batch size


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
    stage_seconds: dict[str, float] = field(default_factory=dict)
    """where the time went: ``open`` (the store), ``lock`` (waiting for another ingest), ``read`` (files,
    lines), ``chunk``, ``lookup`` (stored chunks), ``embed`` (the model), ``embedding_cache``, ``upsert``,
    ``delete``, ``update``, ``version``"""

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
        for stage, seconds in other.stage_seconds.items():
            self.stage_seconds[stage] = self.stage_seconds.get(stage, 0.0) + seconds


def ingestion_failure(exc: BaseException) -> StoreError:
    """One line for a store that failed while ingesting (the Chroma server went away, ...)."""
    detail = str(exc).splitlines()[0] if str(exc) else "no detail"
    return StoreError(f"the Chroma store failed during ingestion ({type(exc).__name__}: {detail}); what was stored "
                      "before stays, ingest again to finish")


@contextlib.contextmanager
def _timed(stages: dict[str, float], stage: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - started


def _takes_bulk(embedder: Any) -> bool:
    """Whether ``embedder.embed`` accepts ``bulk=`` (the packaged embedder does; test doubles may not)."""
    try:
        return "bulk" in inspect.signature(embedder.embed).parameters
    except (TypeError, ValueError):
        return False


@dataclass
class _Plan:
    """What one ingestion call will write: stale chunk ids, new chunks, metadata updates."""

    stale: list[str] = field(default_factory=list)
    pending: list[tuple[Chunk, Document, dict[str, Any]]] = field(default_factory=list)
    relocated: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def ordered_pending(self) -> list[tuple[Chunk, Document, dict[str, Any]]]:
        """New chunks with every fingerprinted first chunk moved after all the others (see ``_ingest``)."""
        markers = [p for p in self.pending if p[0].position == 0 and "fingerprint" in p[2]]
        rest = [p for p in self.pending if not (p[0].position == 0 and "fingerprint" in p[2])]
        return rest + markers


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
        reading: Callable[[str, str], Sequence[str]] | None = None,
    ) -> None:
        """``reading(text, title)``: the texts a reader of a chunk will embed (the program's forms of its sentences,
        :func:`groundqa.programs.passage_reading.texts_embedded`); ingestion embeds them with the chunk, into the
        embedding disk cache, so that a question does not. None: chunks only."""
        self.path, self.url = path, url
        self.reading = reading
        self.client = client or open_client(path, url)
        self.collection_name = collection
        self._embedder = embedder
        self._session_depth = 0
        self._writes_open = False
        self._lexical: tuple[tuple[int, int], Analyzer, LexicalIndex] | None = None
        self._lexical_lock = threading.Lock()
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
        """The collection's version, for retrieval-cache keys. While a write is in flight, or after one was
        killed before it finished, every read gives a negative number never given before: a cache keyed on
        it can hold nothing that is served again."""
        metadata = self.collection.metadata or {}
        if metadata.get(_WRITING_KEY):
            return -1 - secrets.randbits(62)
        return int(metadata.get(_VERSION_KEY, 0))

    @property
    def write_interrupted(self) -> bool:
        """Whether the collection carries the writing mark (a write in flight, or one that was killed)."""
        return bool((self.collection.metadata or {}).get(_WRITING_KEY))

    def count(self) -> int:
        return int(self.collection.count())

    # -- writing: one writer at a time, a version that cannot go stale ----------------------------
    def lock(self, timeout: float | None = None, on_wait: Callable[[str], None] | None = None) -> Any:
        """The collection's ingest lock (:mod:`groundqa.store.lock`): hold it around a whole ingestion."""
        path, url = self._location()
        return ingest_lock(self.collection_name, path, url, timeout=timeout, on_wait=on_wait)

    def _location(self) -> tuple[Path | None, str | None]:
        """Where the store lives, for its lock: the persistent folder or the server URL."""
        if self.path is not None or self.url is not None:
            return self.path, self.url
        settings = getattr(self.client, "get_settings", lambda: None)()
        folder = getattr(settings, "persist_directory", None) if settings is not None else None
        if folder and getattr(settings, "is_persistent", False):
            return Path(folder), None
        host = getattr(settings, "chroma_server_host", None) if settings is not None else None
        return None, f"{host}:{getattr(settings, 'chroma_server_http_port', '')}" if host else f"client-{id(self.client)}"

    @contextlib.contextmanager
    def write_session(self, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
        """Hold the lock; the first write bumps the version and marks the collection as being written,
        the end of the outermost session bumps it again and clears the mark (see :attr:`index_version`)."""
        with self.lock(on_wait=on_wait):
            if self._session_depth == 0:
                self._reload()
                self._writes_open = bool(self._metadata().get(_WRITING_KEY))  # an interrupted ingest: repair
            self._session_depth += 1
            try:
                yield
            finally:
                self._session_depth -= 1
                if self._session_depth == 0 and self._writes_open:
                    self._close_writes()

    def _reload(self) -> None:
        self.collection = self.client.get_collection(self.collection_name)

    def _metadata(self) -> dict[str, Any]:
        return dict(self.collection.metadata or {})

    def _set_version(self, writing: bool) -> int:
        metadata = self._metadata()
        metadata[_VERSION_KEY] = int(metadata.get(_VERSION_KEY, 0)) + 1
        metadata[_WRITING_KEY] = int(writing)
        self.collection.modify(metadata=metadata)
        return int(metadata[_VERSION_KEY])

    def _open_writes(self) -> None:
        """Before the first write of a session: bump the version and set the writing mark."""
        if self._session_depth == 0:
            raise RuntimeError("CorpusStore writes happen inside write_session()")
        if not self._writes_open or not self._metadata().get(_WRITING_KEY):
            self._set_version(writing=True)
            self._writes_open = True

    def _close_writes(self) -> None:
        """After the last write: bump again and clear the mark. A store that fails here keeps the mark (no
        retrieval is cached until the next ingest clears it), which is safe."""
        try:
            self._set_version(writing=False)
        except Exception as exc:
            _log.warning("could not clear the index-version mark of '%s': %s", self.collection_name, exc)
        self._writes_open = False

    # -- ingestion -------------------------------------------------------------------------
    def ingest(
        self,
        documents: Iterable[Document],
        chunk_size: int = 600,
        chunk_overlap: int = 120,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Upsert ``documents`` (see :meth:`_ingest`) under the collection's lock; a store that fails on the
        way (a Chroma server that goes away) is one :class:`StoreError`: the batches stored before it stay,
        and ingesting again finishes the job."""
        try:
            with self.write_session():
                report = self._ingest(documents, chunk_size, chunk_overlap, progress)
            if self._session_depth == 0:  # the session is closed: the version the caches will see
                report.index_version = self.index_version
            return report
        except (StoreError, IngestLockedError):
            raise
        except Exception as exc:
            raise ingestion_failure(exc) from exc

    def _ingest(
        self,
        documents: Iterable[Document],
        chunk_size: int = 600,
        chunk_overlap: int = 120,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Upsert ``documents``: new chunks are embedded and added, stale chunks of a changed document are
        removed, unchanged chunks are left alone (their location metadata is brought up to date when it
        differs, without re-embedding).

        Order of writes, so that a process killed at any point leaves nothing a re-ingest would miss:
        stale chunks go first; then new chunks, one embedding call and one upsert per batch, each
        document's first chunk (which carries the file fingerprint that lets a re-ingest skip the file)
        after all its other chunks; metadata updates (which may carry a new fingerprint) last.
        """
        started = time.perf_counter()
        report = IngestReport()
        stages = report.stage_seconds
        plan = self._plan(list(documents), chunk_size, chunk_overlap, report)
        if plan.stale or plan.pending or plan.relocated:
            with _timed(stages, "version"):
                self._open_writes()
        with _timed(stages, "delete"):
            for start in range(0, len(plan.stale), _DELETE_BATCH):
                self.collection.delete(ids=plan.stale[start : start + _DELETE_BATCH])
        self._write_pending(plan.ordered_pending(), report, progress)
        with _timed(stages, "update"):
            for start in range(0, len(plan.relocated), _UPSERT_BATCH):
                part = plan.relocated[start : start + _UPSERT_BATCH]
                self.collection.update(ids=[cid for cid, _ in part], metadatas=[m for _, m in part])
        report.chunks_added = len(plan.pending)
        report.chunks_removed = len(plan.stale)
        report.chunks_relocated = len(plan.relocated)
        report.index_version = int(self._metadata().get(_VERSION_KEY, 0))
        report.chunks_total = self.count()
        report.seconds = time.perf_counter() - started
        return report

    def _plan(self, documents: list[Document], chunk_size: int, chunk_overlap: int, report: IngestReport) -> _Plan:
        """Chunk every document and compare with what is stored (one lookup per 500 documents)."""
        stages = report.stage_seconds
        plan = _Plan()
        with _timed(stages, "chunk"):
            chunked = [(doc, chunk_segments(doc.id, doc.segments, chunk_size, chunk_overlap) if doc.segments
                        else chunk_text(doc.id, doc.text, chunk_size, chunk_overlap)) for doc in documents]
        with _timed(stages, "lookup"):
            existing = self._stored_chunks([doc.id for doc in documents])
        for doc, chunks in chunked:
            stored = existing.get(doc.id, {})
            wanted = {c.chunk_id for c in chunks}
            plan.stale.extend(sorted(set(stored) - wanted))
            for chunk in chunks:
                metadata = chunk_metadata(doc, chunk)
                if chunk.chunk_id not in stored:
                    plan.pending.append((chunk, doc, metadata))
                    continue
                report.chunks_unchanged += 1
                old = stored[chunk.chunk_id] or {}
                if any(old.get(key) != value for key, value in metadata.items()):
                    plan.relocated.append((chunk.chunk_id, metadata))
            report.documents += 1
            report.notes.extend(LoadError(str(doc.metadata.get("source") or doc.id), None, note) for note in doc.notes)
        return plan

    def _stored_chunks(self, doc_ids: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
        """``{doc_id: {chunk_id: metadata}}`` of the stored chunks of ``doc_ids``."""
        out: dict[str, dict[str, dict[str, Any]]] = {}
        ids = list(dict.fromkeys(doc_ids))
        for start in range(0, len(ids), _LOOKUP_BATCH):
            part = ids[start : start + _LOOKUP_BATCH]
            where = {"doc_id": part[0]} if len(part) == 1 else {"doc_id": {"$in": part}}
            found = self.collection.get(where=where, include=["metadatas"])
            for cid, meta in zip(found["ids"], found["metadatas"] or [{}] * len(found["ids"]), strict=True):
                out.setdefault(str((meta or {}).get("doc_id")), {})[cid] = dict(meta or {})
        return out

    def _write_pending(self, pending: list[tuple[Chunk, Document, dict[str, Any]]], report: IngestReport,
                       progress: Callable[[int, int], None] | None) -> None:
        """Embed (one call per batch) and upsert the new chunks, in order."""
        stages = report.stage_seconds
        bulk = {"bulk": True} if _takes_bulk(self.embedder) else {}
        done = 0
        for start in range(0, len(pending), _UPSERT_BATCH):
            batch = pending[start : start + _UPSERT_BATCH]
            texts = [embedding_text(doc, c) for c, doc, _ in batch]
            before = dict(getattr(self.embedder, "stats", {}) or {})
            with _timed(stages, "embed"):
                vectors = self.embedder.embed(texts, **bulk)
            cache_s = float((getattr(self.embedder, "stats", {}) or {}).get("cache_s", 0.0)) - float(before.get("cache_s", 0.0))
            if cache_s > 0:  # the embedding cache's share of the embedding step
                stages["embed"] -= cache_s
                stages["embedding_cache"] = stages.get("embedding_cache", 0.0) + cache_s
            with _timed(stages, "upsert"):
                self.collection.upsert(
                    ids=[c.chunk_id for c, _, _ in batch], embeddings=vectors,
                    documents=[c.text for c, _, _ in batch], metadatas=[metadata for _, _, metadata in batch],
                )
            self._prepare_reading(batch, stages)
            for chunk, _, _ in batch:
                report.added_by_document[chunk.doc_id] = report.added_by_document.get(chunk.doc_id, 0) + 1
            done += len(batch)
            if progress:
                progress(done, len(pending))

    def _prepare_reading(self, batch: list[tuple[Chunk, Document, dict[str, Any]]], stages: dict[str, float]) -> None:
        """Embed what a reader of the batch's chunks will embed (``reading``), as questions embed it (stage
        ``embed_sentences``). A head start only: it adds no chunk, and its vectors are the float32 ones a question would
        compute (:meth:`~groundqa.store.embeddings.Embedder.prepare`)."""
        prepare = getattr(self.embedder, "prepare", None)
        if self.reading is None or prepare is None:
            return
        with _timed(stages, "embed_sentences"):
            prepare([text for chunk, doc, _ in batch for text in self.reading(chunk.text, doc.title)])

    def first_chunks(self, key: str, values: Iterable[str]) -> dict[str, dict[str, Any]]:
        """``{doc_id: metadata of its first chunk}`` for the documents whose first chunk has ``key`` in
        ``values`` (``doc_id``, ``root``, ``source_path``): one query per 500 values. The first chunk
        carries the file's ``fingerprint``, ``root``, ``path`` and ``source_path``."""
        wanted = list(dict.fromkeys(values))
        out: dict[str, dict[str, Any]] = {}
        for start in range(0, len(wanted), _LOOKUP_BATCH):
            part = wanted[start : start + _LOOKUP_BATCH]
            found = self.collection.get(where={"$and": [{key: {"$in": part}}, {"position": 0}]}, include=["metadatas"])
            for meta in found["metadatas"] or []:
                if meta:
                    out[str(meta.get("doc_id"))] = dict(meta)
        return out

    def fingerprints(self, doc_ids: Iterable[str]) -> dict[str, str]:
        """The stored ``fingerprint`` of each of ``doc_ids`` that has one (read from its first chunk)."""
        return {doc_id: str(meta["fingerprint"]) for doc_id, meta in self.first_chunks("doc_id", doc_ids).items()
                if meta.get("fingerprint")}

    def documents_from(self, root: str) -> set[str]:
        """Ids of the documents ingested from the folder ``root`` (its resolved path)."""
        return set(self.first_chunks("root", [root]))

    def remove_documents(self, doc_ids: Iterable[str]) -> int:
        """Delete every chunk of ``doc_ids``; returns the number of chunks removed (bumps the version)."""
        ids = list(dict.fromkeys(doc_ids))
        removed = 0
        with self.write_session():
            for start in range(0, len(ids), _LOOKUP_BATCH):
                part = ids[start : start + _LOOKUP_BATCH]
                chunk_ids = self.collection.get(where={"doc_id": {"$in": part}}, include=[])["ids"]
                if chunk_ids:
                    self._open_writes()
                    self.collection.delete(ids=chunk_ids)
                    removed += len(chunk_ids)
        return removed

    # -- retrieval -------------------------------------------------------------------------
    def query(self, text: str, k: int = 4, where: dict[str, Any] | None = None,
              contains: Sequence[str] = ()) -> list[Passage]:
        """The ``k`` chunks most similar to ``text`` (score = cosine similarity, best first); with
        ``contains``, only chunks whose text holds one of those strings (Chroma's full-text filter,
        case-sensitive)."""
        if k <= 0:
            return []
        return self.query_vector(self.embedder.embed_one(text), k, where, contains)

    def query_vector(self, vector: list[float], k: int, where: dict[str, Any] | None = None,
                     contains: Sequence[str] = ()) -> list[Passage]:
        total = self.count()
        if total == 0:
            return []
        result = self.collection.query(
            query_embeddings=[vector], n_results=min(k, total), where=where,
            where_document=_any_of(contains),
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

    def lexical_query(self, text: str, k: int, analyzer: Analyzer, exclude: Sequence[str] = ()) -> list[Passage]:
        """The ``k`` chunks outside ``exclude`` that BM25 ranks best for ``text`` (:mod:`.lexical_index`, words
        as ``analyzer`` gives them), best first, each scored as :meth:`query` scores them (cosine similarity
        to ``text``), so that whatever reads a passage's score reads one scale."""
        if k <= 0:
            return []
        hits = self.lexical_index(analyzer).search(text, k, frozenset(exclude))
        if not hits:
            return []
        found = self.collection.get(ids=[cid for cid, _ in hits], include=["documents", "metadatas", "embeddings"])
        query = self.embedder.embed_one(text)
        by_id: dict[str, Passage] = {}
        for cid, doc, meta, vector in zip(found["ids"], found["documents"], found["metadatas"], found["embeddings"],
                                          strict=True):
            meta = dict(meta or {})
            by_id[cid] = Passage(chunk_id=cid, doc_id=str(meta.pop("doc_id", "")), title=str(meta.pop("title", "")),
                                 text=doc or "", score=round(_cosine(query, vector), 6), metadata=meta)
        return [by_id[cid] for cid, _ in hits if cid in by_id]

    def lexical_index(self, analyzer: Analyzer) -> LexicalIndex:
        """The collection's BM25 index for ``analyzer``, built from the stored chunks (title and text) once per
        index version and chunk count (a write that bypassed :meth:`write_session` changes the count)."""
        version = (self.index_version, self.count())
        with self._lexical_lock:
            if self._lexical is not None and self._lexical[0] == version and self._lexical[1] is analyzer:
                return self._lexical[2]
            ids: list[str] = []
            texts: list[str] = []
            page = 5000
            while True:
                batch = self.collection.get(include=["documents", "metadatas"], limit=page, offset=len(ids))
                ids.extend(batch["ids"])
                texts.extend(f"{(meta or {}).get('title', '')}\n{doc or ''}"
                             for doc, meta in zip(batch["documents"], batch["metadatas"], strict=True))
                if len(batch["ids"]) < page:
                    break
            index = LexicalIndex.build(ids, texts, analyzer)
            self._lexical = (version, analyzer, index)
            return index

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


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _any_of(strings: Sequence[str]) -> dict[str, Any] | None:
    """Chroma's ``where_document`` for chunks holding one of ``strings`` (``None``: no filter)."""
    clauses = [{"$contains": text} for text in dict.fromkeys(strings)]
    return None if not clauses else clauses[0] if len(clauses) == 1 else {"$or": clauses}
