"""What the program embeds when it reads a passage, so that an index can embed it once, when it ingests.

GroundedQA reads a retrieved passage sentence by sentence, and each reading embeds the sentences in its own form: the
extractive fallback ranks them after the title where they open on a pronoun (:func:`~.extractive.rank_sentences`),
the premise verifier judges the passage after its title (:func:`~.premises.titled`), a yes/no question under a
``Title:`` line (:func:`~.polar.premise_of`), as the citation metric does. Embedded at question time, on a corpus
not seen before, those sentences were most of the program's own time on the embedded default (the quality suite,
session 52: some 0.4 s of a question's 0.6 s went to MiniLM). :func:`texts_embedded` lists them for one passage; the
store embeds them with its chunks (:class:`~groundqa.store.chroma_store.CorpusStore`'s ``reading``), into the
embedding disk cache, and a question then embeds only itself and its queries.

It is only a head start: a form that changes here or in a reading is embedded when first read, as before. The vectors
are the ones a question would compute (float32; only a batch's padding can move one in its seventh decimal), and the
answers were the same both ways wherever it was measured (``python -m benchmarks run --suite sentences``,
``tests/test_sentence_vectors.py``).
"""

from __future__ import annotations

from groundqa.judges.premise_units import premise_sentences
from groundqa.signatures.types import Passage
from groundqa.text import embedded_text

from .extractive import sentences_of
from .polar import premise_of
from .premises import titled


def texts_embedded(text: str, title: str) -> list[str]:
    """Every text the program embeds when it reads the passage ``text`` under ``title``: its sentences as ranked, as
    judged against a premise and as judged against a yes/no statement, each once."""
    passage = Passage(chunk_id="", doc_id="", title=title, text=text)
    out = dict.fromkeys(embedded_text(sentence, title) for sentence, _ in sentences_of(text, title))
    for premise in (titled(passage), premise_of(passage)):
        out.update(dict.fromkeys(premise_sentences(premise)))
    return list(out)


__all__ = ["texts_embedded"]
