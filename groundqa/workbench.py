"""A program over a corpus of its own, as the development scripts study one (``scripts/``).

The default settings are pointed at the corpus's own collection (named by its content, as ``groundqa evaluate`` names
it, so two corpora never share one), the LM is configured and the documents are ingested (a second run finds them
stored and embeds nothing): what every study of the rules on a development set starts with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groundqa.app import build_program, configure_lm
from groundqa.config import Settings
from groundqa.datasets.loaders import Document, Question
from groundqa.experiment_data import ExperimentData
from groundqa.ingest import ingest_documents


def development_data(squad: str | None, sample: int, questions: str | None,
                     corpus: str | None) -> tuple[list[Document], list[Question]]:
    """The documents and questions a development script studies: ``sample`` questions of a SQuAD 2.0 file's *training*
    articles (never the held-out ones), or a questions file and its corpus. Raises ``ValueError`` when neither is
    given, and what the loaders raise for an unreadable file."""
    from groundqa.datasets.loaders import load_corpus, load_questions_jsonl
    from groundqa.datasets.squad import load_squad2

    if squad:
        docs, asked, _ = load_squad2(squad, sample=sample, articles="train")
        return docs, asked
    if questions and corpus:
        return load_corpus(corpus).items, load_questions_jsonl(questions).items
    raise ValueError("give --squad, or --questions and --corpus")


def corpus_settings(name: str, docs: Sequence[Document], questions: Sequence[Question]) -> Settings:
    """Settings on the corpus's own collection, with the LM configured and ``docs`` ingested."""
    settings = Settings().model_copy(
        update={"collection": ExperimentData(name, list(docs), [], list(questions)).collection})
    configure_lm(settings)
    ingest_documents(settings, list(docs))
    return settings


def corpus_program(name: str, docs: Sequence[Document], questions: Sequence[Question],
                   gates: dict[str, Any] | None = None) -> Any:
    """A GroundedQA over ``docs`` (:func:`corpus_settings`), ``gates`` set on top of the defaults."""
    return build_program(corpus_settings(name, docs, questions), gates=gates)
