"""``groundqa ingest PATH``: add a folder of .md/.txt/.pdf/.html files, a corpus JSONL or one file to the store."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from groundqa.cli.common import print_skipped, settings_from
from groundqa.ingest import NothingToIngestError, Progress, ingest_path
from groundqa.store.chroma_store import IngestReport


def register(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("ingest", help="add a folder of .md/.txt/.pdf/.html files or a corpus JSONL to the store")
    p.add_argument("path", type=Path)
    p.add_argument("--chunk-size", type=int, help="characters per chunk (default 600)")
    p.add_argument("--chunk-overlap", type=int, help="characters shared by consecutive chunks (default 120)")
    p.add_argument("--sync", action="store_true",
                   help="also remove documents of this folder whose file was deleted")
    p.add_argument("--json", action="store_true", help="print the ingestion report as JSON")
    common(p)
    p.set_defaults(func=cmd_ingest)


def _progress_bar(quiet: bool) -> Progress | None:
    """One tqdm bar for the whole ingestion (reading and embedding), counted in documents."""
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    holder: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        bar = holder.get("bar") or holder.setdefault("bar", tqdm(total=total, desc="ingesting", unit="doc"))
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update


def _print_notes(report: IngestReport) -> None:
    for note in report.notes:
        print(f"groundqa: note {note}", file=sys.stderr)


def summary(report: IngestReport) -> dict[str, Any]:
    """The report as the JSON the command prints."""
    return {
        "documents": report.documents, "chunks_added": report.chunks_added, "chunks_removed": report.chunks_removed,
        "chunks_unchanged": report.chunks_unchanged, "chunks_total": report.chunks_total,
        "files_unchanged": report.files_unchanged, "documents_removed": report.documents_removed,
        "index_version": report.index_version, "seconds": round(report.seconds, 3),
        "by_format": {kind: asdict(tally) for kind, tally in sorted(report.by_format.items())},
        "errors": [str(e) for e in report.errors], "notes": [str(n) for n in report.notes],
    }


def _format_line(kind: str, tally: Any) -> str:
    parts = [f"{tally.files} file(s)" if kind != "jsonl" else f"{tally.ingested} document(s)"]
    if tally.pages:
        parts.append(f"{tally.pages} page(s)")
    parts.append(f"+{tally.chunks_added} chunk(s)")
    if tally.unchanged:
        parts.append(f"{tally.unchanged} unchanged")
    if tally.failed:
        parts.append(f"{tally.failed} skipped")
    return f"  {kind}: " + ", ".join(parts)


def cmd_ingest(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    try:
        report = ingest_path(settings, args.path, args.chunk_size, args.chunk_overlap,
                             progress=_progress_bar(quiet=args.json), sync=args.sync)
    except NothingToIngestError as exc:
        print_skipped(exc.errors)
        raise
    print_skipped(report.errors)
    _print_notes(report)
    if args.json:
        print(json.dumps(summary(report), indent=2))
    else:
        unchanged = f", {report.files_unchanged} unchanged file(s) skipped" if report.files_unchanged else ""
        removed = f", {report.documents_removed} deleted file(s) removed" if report.documents_removed else ""
        print(f"ingested {report.documents} document(s): +{report.chunks_added} chunk(s), -{report.chunks_removed}, "
              f"{report.chunks_unchanged} unchanged{unchanged}{removed}; {report.chunks_total} in collection "
              f"'{settings.collection}' ({report.seconds:.1f}s)")
        for kind, tally in sorted(report.by_format.items()):
            print(_format_line(kind, tally))
        if report.errors:
            print(f"{len(report.errors)} problem(s) reported above; the other documents were ingested")
    return 1 if report.errors else 0
