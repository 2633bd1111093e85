"""Which stored document a file is: document ids that never silently take another file's place.

A file's document id is its path relative to the ingested folder (``manuals/keepers.pdf`` ingested as a
folder gives ``keepers.pdf``; a single file gives its name). Ids alone collide across ingests:
``groundqa ingest team-a/`` and then ``groundqa ingest team-b/`` both hold ``notes.md``, and the second
used to replace the first's document without a word. So a file is identified by its absolute path:

* a file already stored keeps the id it was stored under (found by ``source_path`` in its first chunk's
  metadata, or, for chunks stored before that key existed, by ``root`` + ``path``): re-ingesting an old
  home, a sub-folder or a single file of an ingested folder changes no id and duplicates nothing;
* a new file whose relative path is already the id of a *different* file gets a qualified id (the
  ingested folder's name in front, then its parent's, until it is free) and a note saying so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundqa.datasets.loaders import LoadError


def stored_source(metadata: dict[str, Any]) -> str | None:
    """The absolute path a stored document was read from, or ``None`` (a corpus JSONL document)."""
    if metadata.get("source_path"):
        return str(metadata["source_path"])
    root, path = metadata.get("root"), metadata.get("path")
    return str(Path(str(root)) / str(path)) if root and path else None


def candidate_roots(folder: Path, directories: Iterable[Path]) -> list[str]:
    """Every folder a stored copy of these files may have been ingested from: the folder, its ancestors,
    and each folder below it that holds one of the files."""
    resolved = folder.resolve()
    roots = [str(resolved), *(str(p) for p in resolved.parents)]
    roots.extend(str(d.resolve()) for d in directories)
    return list(dict.fromkeys(roots))


@dataclass
class Identity:
    """The document id of one file and what the store knows of it."""

    doc_id: str
    relative: str
    source: str
    fingerprint: str | None = None
    note: LoadError | None = None


@dataclass
class SourceIndex:
    """What the store holds for the files of one ingest: first-chunk metadata by source and by id."""

    by_source: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_id: dict[str, dict[str, Any]] = field(default_factory=dict)
    assigned: set[str] = field(default_factory=set)
    store: Any = None

    @classmethod
    def load(cls, store: Any, folder: Path, files: list[Path]) -> SourceIndex:
        """Look up (batched) every stored document that is one of ``files`` or holds one of their ids."""
        relative = [f.relative_to(folder).as_posix() for f in files]
        index = cls(store=store)
        by_root = store.first_chunks("root", candidate_roots(folder, {f.parent for f in files}))
        by_source = store.first_chunks("source_path", [str(f.resolve()) for f in files])
        index.by_id = store.first_chunks("doc_id", relative)
        for meta in [*by_root.values(), *by_source.values(), *index.by_id.values()]:
            source = stored_source(meta)
            if source is not None:
                index.by_source.setdefault(source, meta)
        return index

    def identify(self, file: Path, folder: Path) -> Identity:
        """The id ``file`` is stored (or will be stored) under; a note when its plain id was taken."""
        source = str(file.resolve())
        relative = file.relative_to(folder).as_posix()
        stored = self.by_source.get(source)
        if stored is not None and str(stored.get("doc_id")) not in self.assigned:
            doc_id = str(stored["doc_id"])
            self.assigned.add(doc_id)
            return Identity(doc_id, relative, source, str(stored.get("fingerprint") or "") or None)
        if not self._taken(relative, source):
            self.assigned.add(relative)
            return Identity(relative, relative, source)
        doc_id = self._qualified(relative, source, folder)
        owner = stored_source(self.by_id.get(relative, {})) or "another document"
        note = LoadError(str(file), None, f"document id {relative!r} already belongs to {owner}; "
                                          f"this file is stored as {doc_id!r}")
        self.assigned.add(doc_id)
        return Identity(doc_id, relative, source, note=note)

    def _taken(self, doc_id: str, source: str) -> bool:
        if doc_id in self.assigned:
            return True
        meta = self.by_id.get(doc_id)
        return meta is not None and stored_source(meta) != source

    def _qualified(self, relative: str, source: str, folder: Path) -> str:
        prefix: list[str] = []
        for part in reversed(folder.resolve().parts[1:]):
            prefix.insert(0, part)
            candidate = "/".join([*prefix, relative])
            if candidate not in self.by_id and self.store is not None:
                self.by_id.update(self.store.first_chunks("doc_id", [candidate]))
            if not self._taken(candidate, source):
                return candidate
        return source
