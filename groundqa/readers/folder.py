"""The files of a corpus folder, and the sub-folders that could not be read.

``Path.rglob`` skips a folder it may not open (``chmod 000``) without a word, so its files silently
went missing from an ingest, and ``--sync`` then removed their documents as if they had been deleted.
This walk reports every such folder, so ingestion can warn about it and keep its documents.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from groundqa.datasets.loaders import LoadError, file_format


@dataclass
class FolderScan:
    """Supported files below a folder (sorted; hidden ones left out) and the folders that could not be read."""

    files: list[Path] = field(default_factory=list)
    unreadable: list[Path] = field(default_factory=list)
    bytes: int = 0

    @property
    def errors(self) -> list[LoadError]:
        """One line per unreadable folder."""
        return [LoadError(str(folder), None, "cannot read this folder (permission denied?); its files were not "
                                             "ingested, and --sync keeps their documents") for folder in self.unreadable]

    def directories(self) -> set[Path]:
        """Every folder that holds a listed file."""
        return {f.parent for f in self.files}


def scan_folder(folder: Path) -> FolderScan:
    """Walk ``folder``: supported, non-hidden files (sorted) with their total size, and unreadable folders."""
    scan = FolderScan()

    def failed(error: OSError) -> None:
        scan.unreadable.append(Path(error.filename) if error.filename else folder)

    for current, dirs, names in os.walk(folder, onerror=failed):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(current)
        for name in names:
            path = base / name
            if name.startswith(".") or file_format(path) is None:
                continue
            try:
                if not path.is_file():
                    continue
                scan.bytes += path.stat().st_size
            except OSError:
                pass  # reading it will say why
            scan.files.append(path)
    scan.files.sort()
    scan.unreadable.sort()
    return scan
