"""Sentence-aware chunking with content-derived chunk ids and the chunk's place in its source.

A document is chunked as a whole, or segment by segment when a reader split it into pages or sections
(:class:`~groundqa.datasets.loaders.Segment`): no chunk crosses a segment, so every chunk has exactly
one page or section to cite. Each chunk records the character offsets of its first and last sentence
in the text it came from, so a citation can point into the original.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundqa.datasets.loaders import Segment
from groundqa.text import split_sentences


@dataclass(frozen=True)
class Chunk:
    """A piece of a document; its id is derived from the document id and the chunk text.

    ``start``/``end`` are character offsets in the page's text (PDF) or the document's text (others);
    ``None`` when the chunk's sentences could not be located verbatim.
    """

    chunk_id: str
    doc_id: str
    position: int
    text: str
    start: int | None = None
    end: int | None = None
    page: int | None = None
    section: str | None = None


def chunk_id(doc_id: str, text: str) -> str:
    """Stable id: the document id plus a hash of the document id and the chunk text."""
    digest = hashlib.sha1(f"{doc_id}\x1f{text}".encode()).hexdigest()[:16]
    return f"{doc_id}#{digest}"


def _split_long(sentence: str, size: int) -> list[str]:
    words, pieces, current = sentence.split(), [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > size:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces


def _check_sizes(size: int, overlap: int) -> None:
    if size <= 0:
        raise ValueError("chunk size must be positive")
    if not 0 <= overlap < size:
        raise ValueError("chunk overlap must be >= 0 and smaller than the chunk size")


def _sentences(text: str, size: int) -> list[str]:
    sentences: list[str] = []
    for sentence in split_sentences(text):
        sentences.extend(_split_long(sentence, size) if len(sentence) > size else [sentence])
    return sentences


def _pack(sentences: Sequence[str], size: int, overlap: int) -> list[list[int]]:
    """Indices of the sentences of each chunk: whole sentences up to ``size`` characters, consecutive
    chunks sharing trailing sentences of at most ``overlap`` characters."""

    def length(indices: list[int]) -> int:
        return sum(len(sentences[i]) + 1 for i in indices)

    groups: list[list[int]] = []
    current: list[int] = []
    fresh = 0  # sentences in `current` not carried over from the previous chunk
    for index, sentence in enumerate(sentences):
        if current and length(current) + len(sentence) > size:
            groups.append(list(current))
            carried: list[int] = []
            for prev in reversed(current):
                if length(carried) + len(sentences[prev]) > overlap:
                    break
                carried.insert(0, prev)
            while carried and length(carried) + len(sentence) > size:
                carried.pop(0)
            current, fresh = carried, 0
        current.append(index)
        fresh += 1
    if current and fresh:
        groups.append(current)
    return groups


_SPACE = re.compile(r"\s+")


def sentence_spans(text: str, sentences: Sequence[str]) -> list[tuple[int, int] | None]:
    """Where each sentence (whitespace-normalised, in order) lies in ``text``; ``None`` if not found.

    The splitter joins the lines of a paragraph with single spaces, so a sentence is matched word by
    word, any run of whitespace in ``text`` standing for one space.
    """
    spans: list[tuple[int, int] | None] = []
    cursor = 0
    for sentence in sentences:
        words = sentence.split()
        span: tuple[int, int] | None = None
        start = text.find(words[0], cursor) if words else -1
        while start != -1:
            pos, ok = start + len(words[0]), True
            for word in words[1:]:
                gap = _SPACE.match(text, pos)
                if gap is None or not text.startswith(word, gap.end()):
                    ok = False
                    break
                pos = gap.end() + len(word)
            if ok:
                span = (start, pos)
                break
            start = text.find(words[0], start + 1)
        spans.append(span)
        if span is not None:
            cursor = span[1]
    return spans


def _chunks(doc_id: str, text: str, size: int, overlap: int, position: int, key: str | None,
            offset: int, page: int | None, section: str | None) -> list[Chunk]:
    sentences = _sentences(text, size)
    spans = sentence_spans(text, sentences)
    chunks: list[Chunk] = []
    for group in _pack(sentences, size, overlap):
        piece = " ".join(sentences[i] for i in group)
        first, last = spans[group[0]], spans[group[-1]]
        start = offset + first[0] if first is not None and last is not None else None
        end = offset + last[1] if first is not None and last is not None else None
        salt = f"{position}\x1f{piece}" if key is None else f"{position}\x1f{key}\x1f{piece}"
        chunks.append(Chunk(chunk_id(doc_id, salt), doc_id, position, piece, start, end, page, section))
        position += 1
    return chunks


def chunk_text(doc_id: str, text: str, size: int = 600, overlap: int = 120) -> list[Chunk]:
    """Pack whole sentences into chunks of at most ``size`` characters.

    Consecutive chunks share trailing sentences of at most ``overlap`` characters. A sentence
    longer than ``size`` is split at word boundaries. The same text always gives the same chunks.
    """
    _check_sizes(size, overlap)
    return _chunks(doc_id, text, size, overlap, 0, None, 0, None, None)


def chunk_segments(doc_id: str, segments: Sequence[Segment], size: int = 600, overlap: int = 120) -> list[Chunk]:
    """Chunk each segment on its own (no chunk crosses a page or section); positions run on across
    segments, and the page or section enters the chunk id (the same sentence on two pages is two chunks)."""
    _check_sizes(size, overlap)
    chunks: list[Chunk] = []
    for segment in segments:
        key = f"p{segment.page}" if segment.page is not None else f"s{segment.section or ''}"
        chunks.extend(_chunks(doc_id, segment.text, size, overlap, len(chunks), key, segment.start,
                              segment.page, segment.section))
    return chunks
