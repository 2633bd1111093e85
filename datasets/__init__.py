"""Bundled corpora and question sets (JSONL) and their loaders."""

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
