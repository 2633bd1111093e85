"""``groundqa ingest PATH``: add a folder of .md/.txt files, a corpus JSONL or one text file to the store."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundqa.cli.common import print_skipped, progress_bar, settings_from
from groundqa.ingest import NothingToIngestError, ingest_path


def register(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("ingest", help="add a folder of .md/.txt files or a corpus JSONL to the store")
    p.add_argument("path", type=Path)
    p.add_argument("--chunk-size", type=int, help="characters per chunk (default 600)")
    p.add_argument("--chunk-overlap", type=int, help="characters shared by consecutive chunks (default 120)")
    p.add_argument("--json", action="store_true", help="print the ingestion report as JSON")
    common(p)
    p.set_defaults(func=cmd_ingest)


def cmd_ingest(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    try:
        report = ingest_path(settings, args.path, args.chunk_size, args.chunk_overlap,
                             progress=progress_bar("embedding chunks", quiet=args.json))
    except NothingToIngestError as exc:
        print_skipped(exc.errors)
        raise
    print_skipped(report.errors)
    summary = {
        "documents": report.documents, "chunks_added": report.chunks_added, "chunks_removed": report.chunks_removed,
        "chunks_unchanged": report.chunks_unchanged, "chunks_total": report.chunks_total,
        "index_version": report.index_version, "seconds": round(report.seconds, 3),
        "errors": [str(e) for e in report.errors],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"ingested {report.documents} document(s): +{report.chunks_added} chunk(s), -{report.chunks_removed}, "
              f"{report.chunks_unchanged} unchanged; {report.chunks_total} in collection '{settings.collection}' "
              f"({report.seconds:.1f}s)")
        if report.errors:
            print(f"{len(report.errors)} problem(s) reported above; the other documents were ingested")
    return 1 if report.errors else 0
