"""The bundled groundqa world: an invented corpus with fixed train/dev/test question splits.

The corpus (``bundled/corpus.jsonl``) describes an invented coastal province (Port Vessany, Lorvin,
Calder Island, ...) so that a language model cannot answer from memory. It is built for every question
type the project evaluates: namesakes (cross-entity), facts covering only some years (time shift),
facts spread over two documents (multi-hop) and plausible facts that are absent (false premises).
"""

from __future__ import annotations

from pathlib import Path

from groundqa.datasets.loaders import Document, LoadError, Question, load_corpus_jsonl, load_questions_jsonl

BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"
SPLITS: tuple[str, ...] = ("train", "dev", "test")


class BundledDataError(ValueError):
    """The bundled data files are missing or broken (a packaging problem, not a user error)."""


def bundled_corpus_path() -> Path:
    """Path of the bundled corpus JSONL."""
    return BUNDLED_DIR / "corpus.jsonl"


def _check_split(split: str) -> str:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)} (or None for all)")
    return split


def bundled_split_path(split: str) -> Path:
    """Path of one bundled question split (``train``, ``dev`` or ``test``)."""
    return BUNDLED_DIR / f"{_check_split(split)}.jsonl"


def _raise_on_errors(errors: list[LoadError]) -> None:
    if errors:
        shown = "; ".join(str(e) for e in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        raise BundledDataError(f"bundled data is broken: {shown}{more}")


def load_bundled(split: str | None = None) -> tuple[list[Document], list[Question]]:
    """The bundled corpus and the questions of ``split`` (``None``: all splits, train then dev then test).

    Raises ``ValueError`` for an unknown split and ``BundledDataError`` if a bundled file is broken.
    """
    splits = SPLITS if split is None else (_check_split(split),)
    corpus = load_corpus_jsonl(bundled_corpus_path())
    _raise_on_errors(corpus.errors)
    questions: list[Question] = []
    for name in splits:
        report = load_questions_jsonl(bundled_split_path(name))
        _raise_on_errors(report.errors)
        questions.extend(report.items)
    return corpus.items, questions
