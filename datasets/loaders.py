"""Loaders for corpora and question sets, validated with pydantic.

A broken line or file is reported (path, line number, problem) and skipped; the rest still load.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

TEXT_SUFFIXES = (".md", ".txt")


class Document(BaseModel):
    """One corpus document: ``{"id", "title", "text"}``; extra keys are kept as metadata."""

    model_config = ConfigDict(extra="allow")

    id: str
    title: str = ""
    text: str

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


def _describe(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in exc.errors())


def read_text_file(path: Path) -> str:
    """Read a UTF-8 text file; raise ``ValueError`` naming the problem for binary/undecodable files."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ValueError(f"cannot read file: {exc.strerror or exc}") from exc
    if b"\x00" in raw[:8192]:
        raise ValueError("binary file (contains NUL bytes), not text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start}: {exc.reason})") from exc


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
            report.errors.append(LoadError(str(path), number, _describe(exc)))
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
    """Questions JSONL: ``{"id", "question", "answers", "should_abstain", "type", "gold_docs"}``."""
    return load_jsonl(path, Question)


def _title_of(text: str, fallback: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped:
            return stripped.lstrip("#").strip() if stripped.startswith("#") else fallback
    return fallback


def load_text_file(path: Path, root: Path | None = None) -> Document:
    """One ``.md``/``.txt`` file as a document; its id is the path relative to ``root``."""
    text = read_text_file(path)
    if not text.strip():
        raise ValueError("empty file")
    doc_id = path.relative_to(root).as_posix() if root else path.name
    return Document(id=doc_id, title=_title_of(text, path.stem.replace("_", " ")), text=text, source=str(path))


def load_text_folder(folder: str | Path) -> LoadReport[Document]:
    """Every ``.md``/``.txt`` file below ``folder`` (sorted); unreadable files are reported."""
    folder = Path(folder)
    report: LoadReport[Document] = LoadReport()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES):
        try:
            report.items.append(load_text_file(path, folder))
        except ValueError as exc:
            report.errors.append(LoadError(str(path), None, str(exc)))
    if not report.items and not report.errors:
        report.errors.append(LoadError(str(folder), None, "no .md or .txt files found"))
    return report


def load_corpus(path: str | Path) -> LoadReport[Document]:
    """A corpus from a folder of text files, a corpus JSONL, or a single text file."""
    path = Path(path)
    if not path.exists():
        return LoadReport(errors=[LoadError(str(path), None, "path not found")])
    if path.is_dir():
        return load_text_folder(path)
    if path.suffix.lower() == ".jsonl":
        return load_corpus_jsonl(path)
    if path.suffix.lower() in TEXT_SUFFIXES:
        try:
            return LoadReport(items=[load_text_file(path, path.parent)])
        except ValueError as exc:
            return LoadReport(errors=[LoadError(str(path), None, str(exc))])
    return LoadReport(errors=[LoadError(str(path), None, "unsupported file type (expected a folder, .jsonl, .md or .txt)")])


def write_jsonl(path: str | Path, records: Iterable[BaseModel | dict[str, Any]]) -> None:
    """Write records as JSONL (UTF-8, one object a line)."""
    with Path(path).open("w", encoding="utf-8") as fh:
        for record in records:
            data = record.model_dump(exclude_none=True) if isinstance(record, BaseModel) else record
            fh.write(json.dumps(data, ensure_ascii=False) + "\n")
