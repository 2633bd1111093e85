"""The Chroma store: real PersistentClient, real MiniLM embeddings, no network."""

from pathlib import Path

import pytest

from groundqa.datasets.loaders import Document, load_corpus
from groundqa.store.chroma_store import CorpusStore


@pytest.fixture
def store(tmp_path: Path) -> CorpusStore:
    return CorpusStore(tmp_path / "chroma")


def test_ingest_query_and_idempotent_reingest(store: CorpusStore, tmp_path: Path, demo_corpus: Path):
    docs = load_corpus(demo_corpus).items
    first = store.ingest(docs, 300, 60)
    assert first.chunks_added == first.chunks_total > len(docs) - 1
    assert first.index_version == 2  # bumped before the first write and after the last
    again = store.ingest(docs, 300, 60)
    assert (again.chunks_added, again.chunks_removed, again.chunks_total) == (0, 0, first.chunks_total)
    assert again.index_version == 2  # nothing changed, cache stays valid
    top = store.query("Who designed the tidal harbor lights?", k=3)
    assert top[0].doc_id in {"harbor-lights", "marchetti"}
    assert top[0].score >= top[-1].score
    assert all(p.chunk_id.startswith(p.doc_id + "#") and p.title for p in top)
    # a second client on the same folder sees the same data (persistence)
    assert CorpusStore(tmp_path / "chroma").count() == first.chunks_total


def test_changed_document_replaces_its_chunks(store: CorpusStore):
    doc = Document(id="d1", title="T", text="The ferry leaves at nine. It returns at five.")
    store.ingest([doc, Document(id="d2", title="U", text="Unrelated text about salt marshes here.")])
    before = store.count()
    store.ingest([Document(id="d1", title="T", text="The ferry leaves at ten. It returns at six.")])
    assert store.count() == before
    texts = [p.text for p in store.query("When does the ferry leave?", k=5) if p.doc_id == "d1"]
    assert texts and all("ten" in t for t in texts)
    assert store.index_version == 4


def test_empty_store_returns_nothing(store: CorpusStore):
    assert store.query("anything", k=3) == []
    assert store.count() == 0
