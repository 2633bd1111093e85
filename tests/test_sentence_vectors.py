"""Each chunk's sentences embedded at ingestion (``embed_sentences``): a question then embeds only itself.

GroundedQA reads a passage sentence by sentence, in three forms (ranked, judged against a premise, judged against a
yes/no statement: :func:`groundqa.programs.passage_reading.texts_embedded`). With the store's ``reading`` set,
ingestion embeds them into the embedding disk cache; these tests run the real program (the embedded default, its
answer judge, MiniLM, a persistent Chroma) and count what MiniLM encodes while it answers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from counting_minilm import CountingModel

from groundqa.app import open_store
from groundqa.config import Settings
from groundqa.datasets.loaders import Document
from groundqa.judges import clear_caches
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.passage_reading import texts_embedded
from groundqa.programs.retriever import Retriever
from groundqa.store.chroma_store import CorpusStore
from groundqa.store.embeddings import get_embedder, set_disk_cache
from groundqa.text import split_sentences

CORPUS = [
    Document(id="tom", title="Tomas Wendle", text="Tomas Wendle was the colliery's chief engineer from 1890. "
             "Before coming to Harnett he had served an apprenticeship as a millwright in Darby. He designed "
             "the fan house of 1888. He never worked underground."),
    Document(id="shaft", title="Lettice Shaft", text="The Lettice Shaft was sunk in 1871 to a depth of 310 "
             "metres. Its winding engine was built in Leeds. The shaft closed in 1961 because the seam was worked "
             "out."),
]
QUESTIONS = [
    "What trade did Tomas Wendle learn before joining the colliery?",
    "Why did the Lettice Shaft close?",
    "Why did Tomas Wendle design the fan house of 1888?",
    "Did Tomas Wendle ever work underground?",
    "How deep was the Lettice Shaft?",
    "What was Tomas Wendle's annual salary?",
]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> CountingModel:
    embedder = get_embedder()
    model = CountingModel(embedder._model)
    monkeypatch.setattr(embedder, "_model", model)
    embedder.clear_memory()
    yield model
    embedder.clear_memory()


def ask_all(tmp_path: Path, counted: CountingModel, reading: bool) -> tuple[list[tuple[str, str | None]], set[str]]:
    """Ingest :data:`CORPUS` into a fresh store and disk cache, empty the memory cache (a new process), answer
    :data:`QUESTIONS`; returns the answers and the passage-sentence texts MiniLM encoded while answering."""
    set_disk_cache(tmp_path / "embeddings.sqlite")
    store = CorpusStore(tmp_path / "chroma", reading=texts_embedded if reading else None)
    store.ingest(CORPUS)
    get_embedder().clear_memory()
    clear_caches()  # the offline judge's memo of vectors and verdicts too
    counted.encoded.clear()
    program = GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded"))
    answers = []
    for question in QUESTIONS:
        result = program.run(question)
        answers.append((result.answer, result.abstain_reason.value if result.abstain_reason else None))
    return answers, set(counted.encoded) & passage_sentences(store)


def passage_sentences(store: CorpusStore) -> set[str]:
    """Every sentence of the stored chunks, alone or after its title, and the titles as sentences: whatever form a
    reader may embed (read here independently of :func:`texts_embedded`)."""
    out: set[str] = set()
    for passage in store.get(store.collection.get()["ids"]):
        sentences = split_sentences(passage.text)
        out |= {passage.title + ".", *sentences, *(f"{passage.title}. {s}" for s in sentences)}
    return out


def test_after_ingestion_a_question_embeds_no_passage_sentence(tmp_path: Path, counted: CountingModel) -> None:
    off_answers, off_read = ask_all(tmp_path / "off", counted, reading=False)
    on_answers, on_read = ask_all(tmp_path / "on", counted, reading=True)
    assert off_read  # without it, the program embeds the passages' sentences as it reads them ...
    assert on_read == set()  # ... with it, ingestion did, in every form the program reads
    assert on_answers == off_answers  # and no answer depends on where a vector came from


def test_prepare_fills_the_disk_cache_only(tmp_path: Path, counted: CountingModel) -> None:
    embedder = get_embedder()
    texts = ["The shaft closed in 1961.", "Its winding engine was built in Leeds."]
    set_disk_cache(None)
    assert embedder.prepare(texts) == 0 and counted.encoded == []  # no disk cache: nothing lasts, nothing is done
    set_disk_cache(tmp_path / "embeddings.sqlite")
    assert embedder.prepare(texts) == 2 and counted.encoded == texts
    assert embedder.prepare(texts) == 0  # already on disk
    vectors = embedder.embed(texts)  # from disk, not the model
    assert counted.encoded == texts
    set_disk_cache(None)
    embedder.clear_memory()
    assert embedder.embed(texts) == vectors  # the float32 vectors a question would compute, exactly


def test_ingestion_reports_its_sentence_stage_and_the_setting_turns_it_off(home: Path) -> None:
    store = open_store(Settings(home=home, collection="sentences-on"))
    assert store.reading is not None and store.reading("A pier. It was built in 1871.", "Calder Pier") == texts_embedded(
        "A pier. It was built in 1871.", "Calder Pier")
    report = store.ingest(CORPUS[:1])
    assert report.stage_seconds.get("embed_sentences", 0.0) > 0.0
    assert open_store(Settings(home=home, collection="sentences-off", embed_sentences=False)).reading is None


def test_the_forms_read_are_the_programs() -> None:
    """The ranked form reads a pronoun's sentence after its title; the premise forms keep the title's own line."""
    texts = texts_embedded("Tomas Wendle was an engineer. He designed the fan house of 1888.", "Tomas Wendle")
    assert "Tomas Wendle. He designed the fan house of 1888." in texts  # as ranked (embedded_text)
    assert "He designed the fan house of 1888." in texts  # as judged
    assert len(texts) == len(set(texts))
