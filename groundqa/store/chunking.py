"""Sentence-aware chunking with content-derived chunk ids."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from groundqa.text import split_sentences


@dataclass(frozen=True)
class Chunk:
    """A piece of a document; its id is derived from the document id and the chunk text."""

    chunk_id: str
    doc_id: str
    position: int
    text: str


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


def chunk_text(doc_id: str, text: str, size: int = 600, overlap: int = 120) -> list[Chunk]:
    """Pack whole sentences into chunks of at most ``size`` characters.

    Consecutive chunks share trailing sentences of at most ``overlap`` characters. A sentence
    longer than ``size`` is split at word boundaries. The same text always gives the same chunks.
    """
    if size <= 0:
        raise ValueError("chunk size must be positive")
    if not 0 <= overlap < size:
        raise ValueError("chunk overlap must be >= 0 and smaller than the chunk size")
    sentences: list[str] = []
    for sentence in split_sentences(text):
        sentences.extend(_split_long(sentence, size) if len(sentence) > size else [sentence])

    pieces: list[str] = []
    current: list[str] = []
    fresh = 0  # sentences in `current` not carried over from the previous chunk
    for sentence in sentences:
        length = sum(len(s) + 1 for s in current) + len(sentence)
        if current and length > size:
            pieces.append(" ".join(current))
            carried: list[str] = []
            for prev in reversed(current):
                if sum(len(s) + 1 for s in carried) + len(prev) > overlap:
                    break
                carried.insert(0, prev)
            while carried and sum(len(s) + 1 for s in carried) + len(sentence) > size:
                carried.pop(0)
            current, fresh = carried, 0
        current.append(sentence)
        fresh += 1
    if current and fresh:
        pieces.append(" ".join(current))

    chunks: list[Chunk] = []
    seen: set[str] = set()
    for position, piece in enumerate(pieces):
        cid = chunk_id(doc_id, f"{position}\x1f{piece}")
        if cid not in seen:
            seen.add(cid)
            chunks.append(Chunk(cid, doc_id, position, piece))
    return chunks
