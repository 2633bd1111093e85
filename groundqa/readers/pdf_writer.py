"""Small PDFs written by hand: text pages, image-only ("scanned") pages, and encrypted copies.

Tests and the ingestion benchmark build their PDFs with this instead of committing binary fixtures.
The output is a plain PDF 1.4 file (Helvetica text, WinAnsi characters, a 1x1 grey image for a page
without text) that pypdf and ordinary viewers read.
"""

from __future__ import annotations

import io
import textwrap
import zlib
from collections.abc import Sequence

_PAGE_WIDTH, _PAGE_HEIGHT = 612, 792
_LINE_CHARS = 88
_LEADING = 14


def _escape(text: str) -> str:
    data = text.encode("cp1252", errors="replace").decode("latin-1")
    return data.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _text_stream(text: str) -> bytes:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        lines.extend(textwrap.wrap(paragraph, _LINE_CHARS) or [""])
    body = [f"BT /F1 11 Tf {_LEADING} TL 56 {_PAGE_HEIGHT - 72} Td"]
    body.extend(f"({_escape(line)}) Tj T*" for line in lines)
    body.append("ET")
    return "\n".join(body).encode("latin-1")


_IMAGE_STREAM = f"q {_PAGE_WIDTH - 112} 0 0 {_PAGE_HEIGHT - 144} 56 72 cm /Im1 Do Q".encode("ascii")


def minimal_pdf(pages: Sequence[str | None], title: str | None = None) -> bytes:
    """A PDF with one page per entry: the entry's text, or an image and no text at all for ``None``."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below, once the page tree's number is known
    pages_obj = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    pixel = zlib.compress(b"\x80")
    image = add(b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
                b"/BitsPerComponent 8 /Filter /FlateDecode /Length " + str(len(pixel)).encode() + b" >>\nstream\n"
                + pixel + b"\nendstream")
    kids: list[int] = []
    for text in pages:
        stream = _IMAGE_STREAM if text is None else _text_stream(text)
        content = add(b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream")
        resources = (f"<< /XObject << /Im1 {image} 0 R >> >>" if text is None
                     else f"<< /Font << /F1 {font} 0 R >> >>")
        kids.append(add(
            f"<< /Type /Page /Parent {pages_obj} 0 R /MediaBox [0 0 {_PAGE_WIDTH} {_PAGE_HEIGHT}] "
            f"/Resources {resources} /Contents {content} 0 R >>".encode()))
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {pages_obj} 0 R >>".encode()
    objects[pages_obj - 1] = (f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] "
                              f"/Count {len(kids)} >>").encode()
    info = add(f"<< /Title ({_escape(title)}) >>".encode("latin-1")) if title else None

    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    trailer = f"<< /Size {len(objects) + 1} /Root {catalog} 0 R"
    trailer += f" /Info {info} 0 R >>" if info else " >>"
    out.write(f"trailer\n{trailer}\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def encrypted_pdf(data: bytes, password: str) -> bytes:
    """``data`` (a PDF) encrypted with a user password, as a reader without it cannot open it."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
