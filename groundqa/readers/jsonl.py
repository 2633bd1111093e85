"""A corpus JSONL read line by line: bounded memory, and a bad line costs that line only.

The whole-file loader (:func:`groundqa.datasets.loaders.load_corpus_jsonl`) decodes the file in one go,
so one invalid UTF-8 byte or one NUL anywhere rejected every line, with no line number; and a corpus of
several gigabytes had to fit in memory twice (bytes and text). Here each line is decoded on its own: a
line with a NUL byte, invalid UTF-8, broken JSON, a non-object or a failed validation is reported as
``path:line`` and skipped, and every other line is ingested. Lines stream from the file in binary mode,
so memory holds one line (and the ids seen, to report duplicates) at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from groundqa.datasets.loaders import Document, LoadError, validation_summary

_BLOCK = 1 << 20


@dataclass
class JsonlStream:
    """Documents of a corpus JSONL, one at a time; ``errors`` fills in as the bad lines go by."""

    path: Path
    errors: list[LoadError] = field(default_factory=list)
    bytes_read: int = 0
    """bytes of the file consumed so far (for progress)"""

    def __iter__(self) -> Iterator[tuple[int, Document]]:
        """``(line number, document)`` for every valid line, in file order."""
        seen: set[str] = set()
        with self.path.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                self.bytes_read += len(raw)
                doc = self._parse(number, raw)
                if doc is None:
                    continue
                if doc.id in seen:
                    self.errors.append(LoadError(str(self.path), number, f"duplicate id {doc.id!r}"))
                    continue
                seen.add(doc.id)
                yield number, doc

    def _parse(self, number: int, raw: bytes) -> Document | None:
        problem = _problem(number, raw)
        if problem is None:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            if not text.strip():
                return None
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                problem = f"invalid JSON: {exc.msg} (column {exc.colno})"
            else:
                if not isinstance(record, dict):
                    problem = "expected a JSON object"
                else:
                    try:
                        return Document.model_validate(record)
                    except ValidationError as exc:
                        problem = validation_summary(exc)
        self.errors.append(LoadError(str(self.path), number, problem))
        return None


def _problem(number: int, raw: bytes) -> str | None:
    """Why the bytes of a line are not text (a NUL, invalid UTF-8), else ``None``."""
    nul = raw.find(b"\x00")
    if nul >= 0:
        return f"NUL byte at column {nul + 1}: not text"
    try:
        raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte {exc.start + 1} of the line: {exc.reason})"
    return None


def count_lines(path: Path) -> int:
    """Lines of ``path`` (a last line without a newline counts), read in 1 MiB blocks."""
    lines, last = 0, b"\n"
    with path.open("rb") as fh:
        while block := fh.read(_BLOCK):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")
