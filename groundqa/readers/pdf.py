"""PDF text, page by page, with pypdf (BSD-3-Clause; pure Python, no system libraries).

Each page with text becomes one segment, so a chunk never spans two pages and every citation can
name its page. Pages are numbered physically from 1 (page labels such as "xii" are not used). A PDF
in which no page has text is a scan: it is refused with :class:`ScannedPDFError` (there is no OCR
here); a PDF with some empty pages is read and the empty pages are named in the notes. An encrypted
PDF opens only when its user password is empty; otherwise :class:`EncryptedPDFError`.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

from groundqa.datasets.loaders import Segment
from groundqa.readers import EncryptedPDFError, Extracted, ReadError, ScannedPDFError

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_JUNK_TITLES = re.compile(r"^(untitled|microsoft word - .*|document\d*|\s*)$", re.IGNORECASE)


@contextmanager
def _quiet_pypdf() -> Iterator[None]:
    """pypdf logs warnings about damaged files; the reader reports problems itself, one line each."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def _clean(text: str) -> str:
    return _TRAILING_SPACE.sub("\n", _CONTROL.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n"))).strip()


def _short(exc: Exception) -> str:
    message = " ".join(str(exc).split()) or type(exc).__name__
    return message if len(message) <= 120 else message[:119] + "\u2026"


def _title(reader: object) -> str:
    try:
        meta = getattr(reader, "metadata", None)
        title = str(meta.title).strip() if meta is not None and meta.title else ""
    except Exception:  # a damaged /Info dictionary only costs the title
        return ""
    return "" if _JUNK_TITLES.match(title) else title


def _ranges(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers[:12]) + (f" and {len(numbers) - 12} more" if len(numbers) > 12 else "")


def read_pdf(data: bytes) -> Extracted:
    """The text of every page of the PDF ``data``; :class:`ReadError` (one line) when it cannot be read."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise ReadError("not a PDF file (no %PDF header)")
    with _quiet_pypdf():
        try:
            reader = PdfReader(io.BytesIO(data), strict=False)
        except Exception as exc:  # pypdf raises many types for damaged files
            raise ReadError(f"corrupt PDF ({_short(exc)})") from exc
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except (DependencyError, NotImplementedError) as exc:
                raise EncryptedPDFError(f"encrypted PDF that cannot be decrypted here ({_short(exc)})") from exc
            except Exception as exc:
                raise EncryptedPDFError(f"encrypted PDF ({_short(exc)})") from exc
            if not opened:
                raise EncryptedPDFError("encrypted PDF: it needs a password; save a decrypted copy to ingest it")
        try:
            pages = list(reader.pages)
        except Exception as exc:
            raise ReadError(f"corrupt PDF: its page tree cannot be read ({_short(exc)})") from exc
        if not pages:
            raise ReadError("PDF without pages")
        segments: list[Segment] = []
        empty: list[int] = []
        broken: list[str] = []
        for number, page in enumerate(pages, start=1):
            try:
                text = _clean(page.extract_text() or "")
            except Exception as exc:
                broken.append(f"page {number} ({_short(exc)})")
                continue
            if text:
                segments.append(Segment(text=text, page=number))
            else:
                empty.append(number)
        title = _title(reader)
    if not segments:
        if broken:
            raise ReadError(f"corrupt PDF: no page could be read ({broken[0]})")
        raise ScannedPDFError(f"scanned or image-only PDF: no text layer in any of its {len(pages)} page(s); "
                              "OCR it first")
    notes: list[str] = []
    if empty:
        notes.append(f"page(s) {_ranges(empty)} have no text layer (scanned?) and were skipped")
    if broken:
        notes.append(f"unreadable page(s) skipped: {'; '.join(broken[:3])}")
    return Extracted(title=title, text="\n\n".join(s.text for s in segments), segments=segments,
                     pages=len(pages), notes=notes)
