"""Loaders for corpora and question sets, validated with pydantic.

A broken line or file is reported (path, line number, problem) and skipped; the rest still load.
Corpora come as a corpus JSONL, one file, or a folder of files of any supported format (``.md``,
``.txt``, ``.pdf``, ``.html``/``.htm``); PDF and HTML files are read by :mod:`groundqa.readers` into
segments (pages, sections) that chunks never cross.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

TEXT_SUFFIXES = (".md", ".txt")
DOCUMENT_SUFFIXES = (".md", ".txt", ".pdf", ".html", ".htm")
"""Every file type a corpus folder may hold; other files in a folder are ignored."""


class Segment(BaseModel):
    """A stretch of a document that no chunk crosses: one PDF page or one HTML section.

    Citations name a single page or section, so a chunk must come from exactly one. ``start`` is
    where ``text`` begins in the extracted text of its page (PDF) or of the whole document (others),
    so chunk offsets point into the original.
    """

    text: str
    page: int | None = None
    section: str | None = None
    start: int = 0


class Document(BaseModel):
    """One corpus document: ``{"id", "title", "text"}``; extra keys are kept as metadata."""

    model_config = ConfigDict(extra="allow")

    id: str
    title: str = ""
    text: str
    segments: list[Segment] = Field(
        default_factory=list, exclude=True,
        description="pages or sections to chunk separately; empty: the whole text is one segment")
    notes: list[str] = Field(default_factory=list, exclude=True,
                             description="what reading the file skipped (e.g. pages without text)")

    @field_validator("id", "text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not str(value).strip():
            raise ValueError("must not be empty")
        return value

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


QuestionType = str


class Question(BaseModel):
    """One question with its gold answers and whether a grounded system should abstain."""

    model_config = ConfigDict(extra="allow")

    id: str
    question: str
    answers: list[str] = Field(default_factory=list)
    should_abstain: bool = False
    type: QuestionType = "single"
    gold_docs: list[str] = Field(default_factory=list)
    false_premise: str | None = None
    gold_pages: dict[str, list[int]] | None = Field(
        default=None, description="gold pages per gold document (path): {\"manual.pdf\": [2]}; a plain list "
                                  "of pages applies to every gold document")

    @model_validator(mode="before")
    @classmethod
    def _pages_of_every_gold_doc(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("gold_pages"), list):
            docs = data.get("gold_docs") or []
            if not docs:
                raise ValueError("gold_pages given as a list needs gold_docs (or use {\"doc path\": [pages]})")
            data = {**data, "gold_pages": {doc: data["gold_pages"] for doc in docs}}
        return data

    @model_validator(mode="after")
    def _gold_pages_are_pages_of_gold_docs(self) -> Question:
        for doc, pages in (self.gold_pages or {}).items():
            if any(page < 1 for page in pages):
                raise ValueError(f"gold_pages of {doc!r}: pages count from 1")
            if doc not in self.gold_docs:
                self.gold_docs.append(doc)
        return self


@dataclass
class LoadError:
    """A line or file that could not be loaded."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


T = TypeVar("T", bound=BaseModel)


@dataclass
class LoadReport(Generic[T]):
    """What a loader produced: the valid items and every error, in order."""

    items: list[T] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)

    def extend(self, other: LoadReport[T]) -> None:
        self.items.extend(other.items)
        self.errors.extend(other.errors)


def validation_summary(exc: ValidationError) -> str:
    """A pydantic error as one line: ``field: message; ...``."""
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in exc.errors())


def read_bytes(path: Path) -> bytes:
    """A file's bytes; ``FileNotFoundError`` passes, any other OS error becomes a one-line ``ValueError``."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ValueError(f"cannot read file: {exc.strerror or exc}") from exc


def decode_text(raw: bytes) -> str:
    """UTF-8 text of ``raw``; ``ValueError`` naming the problem for binary or undecodable bytes."""
    if b"\x00" in raw[:8192]:
        raise ValueError("binary file (contains NUL bytes), not text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start}: {exc.reason})") from exc


def read_text_file(path: Path) -> str:
    """Read a UTF-8 text file; raise ``ValueError`` naming the problem for binary/undecodable files."""
    return decode_text(read_bytes(path))


def load_jsonl(path: str | Path, model: type[T]) -> LoadReport[T]:
    """Load a JSONL file of ``model`` records; blank lines are skipped, broken ones reported."""
    path = Path(path)
    report: LoadReport[T] = LoadReport()
    try:
        text = read_text_file(path)
    except FileNotFoundError:
        report.errors.append(LoadError(str(path), None, "file not found"))
        return report
    except ValueError as exc:
        report.errors.append(LoadError(str(path), None, str(exc)))
        return report
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            report.errors.append(LoadError(str(path), number, f"invalid JSON: {exc.msg} (column {exc.colno})"))
            continue
        if not isinstance(record, dict):
            report.errors.append(LoadError(str(path), number, "expected a JSON object"))
            continue
        try:
            item = model.model_validate(record)
        except ValidationError as exc:
            report.errors.append(LoadError(str(path), number, validation_summary(exc)))
            continue
        key = getattr(item, "id", None)
        if key is not None and key in seen:
            report.errors.append(LoadError(str(path), number, f"duplicate id {key!r}"))
            continue
        if key is not None:
            seen.add(key)
        report.items.append(item)
    return report


def load_corpus_jsonl(path: str | Path) -> LoadReport[Document]:
    """Corpus JSONL: one ``{"id", "title", "text"}`` document a line."""
    return load_jsonl(path, Document)


def load_questions_jsonl(path: str | Path) -> LoadReport[Question]:
    """Questions JSONL: ``{"id", "question", "answers", "should_abstain", "type", "gold_docs"}``, and
    optionally ``"gold_pages": {"manual.pdf": [2]}`` (gold documents are named by their ingested path)."""
    return load_jsonl(path, Question)


def _title_of(text: str, fallback: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped:
            return stripped.lstrip("#").strip() if stripped.startswith("#") else fallback
    return fallback


def _stem_title(path: Path) -> str:
    return path.stem.replace("_", " ")


def document_id(path: Path, root: Path | None = None) -> str:
    """A file's document id: its path relative to ``root`` (the ingested folder), else its name."""
    return path.relative_to(root).as_posix() if root else path.name


def load_text_file(path: Path, root: Path | None = None) -> Document:
    """One ``.md``/``.txt`` file as a document; its id is the path relative to ``root``."""
    return _text_document(path, root, None, path=document_id(path, root), format=file_format(path) or "txt")


def file_format(path: Path) -> str | None:
    """``"md"``, ``"txt"``, ``"pdf"`` or ``"html"`` for a supported file, else ``None``."""
    suffix = path.suffix.lower()
    if suffix not in DOCUMENT_SUFFIXES:
        return None
    return "html" if suffix == ".htm" else suffix[1:]


def _text_document(file: Path, root: Path | None, raw: bytes | None, **metadata: Any) -> Document:
    text = decode_text(read_bytes(file) if raw is None else raw)
    if not text.strip():
        raise ValueError("empty file")
    return Document(id=document_id(file, root), title=_title_of(text, _stem_title(file)), text=text,
                    source=str(file), **metadata)


def load_file(path: Path, root: Path | None = None, data: bytes | None = None) -> Document:
    """One supported file as a document whose id is its path relative to ``root``.

    ``data`` are the file's bytes when the caller has already read them (to hash them). The document's
    metadata records ``source``, ``path`` (relative to ``root``), ``format`` and, for PDFs, ``pages``.
    Raises ``ValueError`` with a one-line reason (unreadable, binary, empty, scanned, encrypted, corrupt).
    """
    kind = file_format(path)
    if kind is None:
        raise ValueError(f"unsupported file type {path.suffix or '(none)'} (expected one of "
                         f"{', '.join(DOCUMENT_SUFFIXES)})")
    doc_id = document_id(path, root)
    if kind in ("md", "txt"):
        return _text_document(path, root, data, path=doc_id, format=kind)
    from groundqa.readers import read_document

    extracted = read_document(read_bytes(path) if data is None else data, kind)
    pages = {"pages": extracted.pages} if extracted.pages is not None else {}
    return Document(id=doc_id, title=extracted.title or _stem_title(path), text=extracted.text,
                    segments=extracted.segments, notes=extracted.notes, source=str(path), path=doc_id, format=kind,
                    **pages)


def corpus_files(folder: str | Path) -> list[Path]:
    """Every supported file below ``folder``, sorted; hidden files and folders are left out."""
    folder = Path(folder)
    return sorted(
        p for p in folder.rglob("*")
        if p.is_file() and file_format(p) is not None
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def load_text_folder(folder: str | Path) -> LoadReport[Document]:
    """Every supported file below ``folder`` (sorted; .md, .txt, .pdf, .html); unreadable files are
    reported and skipped."""
    folder = Path(folder)
    report: LoadReport[Document] = LoadReport()
    for path in corpus_files(folder):
        try:
            report.items.append(load_file(path, folder))
        except ValueError as exc:
            report.errors.append(LoadError(str(path), None, str(exc)))
    if not report.items and not report.errors:
        report.errors.append(LoadError(str(folder), None, f"no {', '.join(DOCUMENT_SUFFIXES)} files found"))
    return report


load_folder = load_text_folder
"""A folder of files of every supported format (the older name says text; it reads them all)."""


def load_corpus(path: str | Path) -> LoadReport[Document]:
    """A corpus from a folder of files, a corpus JSONL, or a single .md/.txt/.pdf/.html file."""
    path = Path(path)
    if not path.exists():
        return LoadReport(errors=[LoadError(str(path), None, "path not found")])
    if path.is_dir():
        return load_text_folder(path)
    if path.suffix.lower() == ".jsonl":
        return load_corpus_jsonl(path)
    if file_format(path) is not None:
        try:
            return LoadReport(items=[load_file(path, path.parent)])
        except ValueError as exc:
            return LoadReport(errors=[LoadError(str(path), None, str(exc))])
    return LoadReport(errors=[LoadError(
        str(path), None, f"unsupported file type (expected a folder, .jsonl, {', '.join(DOCUMENT_SUFFIXES)})")])


def write_jsonl(path: str | Path, records: Iterable[BaseModel | dict[str, Any]]) -> None:
    """Write records as JSONL (UTF-8, one object a line)."""
    with Path(path).open("w", encoding="utf-8") as fh:
        for record in records:
            data = record.model_dump(exclude_none=True) if isinstance(record, BaseModel) else record
            fh.write(json.dumps(data, ensure_ascii=False) + "\n")
