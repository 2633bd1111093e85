"""Document readers: turn the bytes of a PDF or HTML file into text segments that chunks never cross.

One module per format (:mod:`.pdf`, :mod:`.html`), each returning an :class:`Extracted`; plain text
and Markdown need no reader (:mod:`groundqa.datasets.loaders` decodes them). A file that cannot be
read raises :class:`ReadError` with one line that says why, so ingestion can report it and go on.
The libraries are imported lazily: commands that never meet a PDF never pay for pypdf or trafilatura.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from groundqa.datasets.loaders import Segment

READERS_VERSION = 1
"""Bumped whenever a reader extracts differently, so that re-ingestion reads unchanged files again."""


class ReadError(ValueError):
    """A file that cannot be read; the message is one line naming the problem."""


class ScannedPDFError(ReadError):
    """A PDF without a text layer (scanned or image-only): skipped, there is no OCR here."""


class EncryptedPDFError(ReadError):
    """A PDF that needs a password."""


@dataclass
class Extracted:
    """What a reader got out of a file: its title, its whole text and the segments of that text."""

    title: str
    text: str
    segments: list[Segment]
    pages: int | None = None
    notes: list[str] = field(default_factory=list)


def read_document(data: bytes, kind: str) -> Extracted:
    """Read ``data`` as ``kind`` (``"pdf"`` or ``"html"``); :class:`ReadError` when it cannot."""
    if kind == "pdf":
        from groundqa.readers.pdf import read_pdf

        return read_pdf(data)
    if kind == "html":
        from groundqa.readers.html import read_html

        return read_html(data)
    raise ReadError(f"no reader for {kind!r} files")


__all__ = ["READERS_VERSION", "EncryptedPDFError", "Extracted", "ReadError", "ScannedPDFError", "read_document"]
