"""The embedding disk cache: a new process (fresh memory) re-embeds nothing it has seen; failures
switch the cache off without failing the call."""

from pathlib import Path

import pytest
from counting_minilm import CountingModel

from groundqa.store import embeddings
from groundqa.store.embeddings import DiskVectorCache, get_embedder, set_disk_cache

TEXTS = ["The harbor has twelve lights.", "The mill was built in 1820.", "Calder is an island."]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch):
    embedder = get_embedder()
    model = CountingModel(embedder._model)
    monkeypatch.setattr(embedder, "_model", model)
    embedder.clear_memory()
    yield embedder, model
    embedder.clear_memory()


def test_vectors_come_back_from_disk_exactly_in_a_fresh_memory(tmp_path: Path, counted) -> None:
    embedder, model = counted
    set_disk_cache(tmp_path / "embeddings.sqlite")
    first = embedder.embed(TEXTS)
    assert model.encoded == TEXTS
    embedder.clear_memory()  # as a new process would start
    again = embedder.embed([*TEXTS, "A new sentence."])
    assert model.encoded == [*TEXTS, "A new sentence."]  # only the new text reached the model
    assert again[:3] == first  # float32 round trip is exact
    assert DiskVectorCache(tmp_path / "embeddings.sqlite", embedder.name).get_many(["A new sentence."])


def test_the_cache_is_keyed_by_model(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    DiskVectorCache(path, "model-a").put_many({"x": [0.5, 0.25]})
    assert DiskVectorCache(path, "model-a").get_many(["x"]) == {"x": [0.5, 0.25]}
    assert DiskVectorCache(path, "model-b").get_many(["x"]) == {}


def test_an_unusable_cache_file_is_switched_off_with_a_warning(tmp_path: Path, counted, caplog) -> None:
    embedder, model = counted
    broken = tmp_path / "not-a-db.sqlite"
    broken.write_bytes(b"this is not a SQLite database" * 100)
    set_disk_cache(broken)
    with caplog.at_level("WARNING"):
        vectors = embedder.embed(TEXTS[:1])
    assert len(vectors) == 1 and len(vectors[0]) == embedder.dimension
    assert "switched off" in caplog.text and embeddings.CACHE_FILE.path is None


def test_the_app_puts_the_cache_under_the_home_unless_caching_is_off(tmp_path: Path) -> None:
    from groundqa.app import open_store
    from groundqa.config import load_settings

    settings = load_settings(home=tmp_path / "home")
    open_store(settings)
    assert embeddings.CACHE_FILE.path == Path(settings.cache_dir) / "embeddings.sqlite"
    open_store(load_settings(home=tmp_path / "home", cache=False))
    assert embeddings.CACHE_FILE.path is None


def test_forget_sends_the_text_back_to_the_model(counted) -> None:
    embedder, model = counted
    embedder.embed(TEXTS[:1])
    embedder.embed(TEXTS[:1])
    assert model.encoded == TEXTS[:1]  # the second call was a memory hit
    embedder.forget(TEXTS[:1])
    embedder.embed(TEXTS[:1])
    assert model.encoded == TEXTS[:1] * 2
