from groundqa.store.chunking import chunk_id, chunk_text
from groundqa.text import citation_numbers, split_sentences, strip_citations

TEXT = (
    "Port Vessany installed its first tidal-powered harbor lights in 1987. The lights were designed by engineer "
    "Odile Marchetti, who spent four years testing turbines. Each of the twelve lights draws power from a small "
    "turbine. During the winter storms of 1994 the system kept the harbor lit for nine days. Dr. Marchetti retired "
    "in 2011."
)


def test_chunks_hold_whole_sentences_within_size():
    chunks = chunk_text("doc", TEXT, size=120, overlap=0)
    sentences = split_sentences(TEXT)
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk.text) <= 120
        # every chunk is made of whole sentences of the text
        assert all(s in sentences for s in split_sentences(chunk.text))
    assert " ".join(c.text for c in chunks) == " ".join(sentences)


def test_overlap_repeats_trailing_sentences():
    chunks = chunk_text("doc", TEXT, size=160, overlap=90)
    shared = [split_sentences(a.text)[-1] == split_sentences(b.text)[0] for a, b in zip(chunks, chunks[1:], strict=False)]
    # a trailing sentence is carried over whenever it fits next to the following sentence
    assert shared == [False, True, True]
    no_overlap = chunk_text("doc", TEXT, size=160, overlap=0)
    assert sum(len(c.text) for c in no_overlap) < sum(len(c.text) for c in chunks)


def test_chunk_ids_depend_on_document_and_content():
    a = chunk_text("doc", TEXT, 200, 40)
    assert [c.chunk_id for c in a] == [c.chunk_id for c in chunk_text("doc", TEXT, 200, 40)]
    assert a[0].chunk_id != chunk_text("other", TEXT, 200, 40)[0].chunk_id
    changed = chunk_text("doc", TEXT.replace("1994", "1995"), 200, 40)
    assert {c.chunk_id for c in a} != {c.chunk_id for c in changed}
    assert chunk_id("d", "x").startswith("d#")


def test_long_sentence_split_at_words():
    text = " ".join(["word"] * 200) + "."
    chunks = chunk_text("d", text, size=100, overlap=10)
    assert all(len(c.text) <= 100 for c in chunks)


def test_invalid_sizes_rejected():
    import pytest

    with pytest.raises(ValueError, match="overlap"):
        chunk_text("d", TEXT, size=100, overlap=100)
    with pytest.raises(ValueError, match="positive"):
        chunk_text("d", TEXT, size=0, overlap=0)


def test_sentence_splitter_keeps_citations_and_abbreviations():
    assert split_sentences("Dr. Smith left. He came back [1][2]. Done.") == [
        "Dr. Smith left.", "He came back [1][2].", "Done."]
    assert split_sentences("It rose. [3] Then it fell.") == ["It rose. [3]", "Then it fell."]
    assert citation_numbers("a [2] b [1][2] [10]") == [2, 1, 10]
    assert strip_citations("- He came back [1][2] .") == "He came back."


def test_citation_after_the_full_stop_stays_with_its_sentence():
    assert split_sentences("Odile designed the lights. [1]") == ["Odile designed the lights. [1]"]
    assert split_sentences("A b c. [1] Then d e. [2][3] Next.") == ["A b c. [1]", "Then d e. [2][3]", "Next."]


def test_a_sentence_opening_on_a_name_from_code_is_its_own_sentence():
    text = ("The most changed options are these. listen_port sets the port and defaults to 7419. max_connections "
            "limits connections; its default is 640. wal.segment_size defaults to 64 MiB. See e.g. the guide.")
    assert split_sentences(text) == [
        "The most changed options are these.", "listen_port sets the port and defaults to 7419.",
        "max_connections limits connections; its default is 640.", "wal.segment_size defaults to 64 MiB.",
        "See e.g. the guide."]
