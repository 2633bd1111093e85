"""Wiring: settings -> LM, store, retriever and the GroundedQA program."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy

from groundqa.config import Settings
from groundqa.lm.factory import build_lm, configure_dspy_cache
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.runtime.retrieval_cache import RetrievalCache
from groundqa.runtime.trace import ReplayLM, Trace
from groundqa.store.chroma_store import CorpusStore
from groundqa.store.embeddings import set_disk_cache


def configure_caches(settings: Settings) -> None:
    """DSPy's LM cache and the embedding cache under the project home; both off with ``cache=false``."""
    configure_dspy_cache(settings)
    set_disk_cache(Path(settings.cache_dir) / "embeddings.sqlite" if settings.cache else None)


def open_store(settings: Settings) -> CorpusStore:
    """The configured Chroma collection (persistent under the home, or a server via chroma_url)."""
    configure_caches(settings)
    return CorpusStore(settings.chroma_dir, collection=settings.collection, url=settings.chroma_url)


def configure_lm(settings: Settings, replay: Trace | None = None, **overrides: Any) -> GuardedLM:
    """Build the LM (guarded: budgets, retries, tracing; replaying ``replay`` if given) and make it
    DSPy's default LM, with DSPy's cache under the project home."""
    configure_caches(settings)
    inner = build_lm(settings, **overrides)
    lm = GuardedLM(inner, replay=ReplayLM(replay) if replay is not None else None)
    adapter = dspy.ChatAdapter(use_json_adapter_fallback=not settings.lm.startswith("embedded"))
    dspy.configure(lm=lm, adapter=adapter)
    return lm


def build_program(settings: Settings, store: CorpusStore | None = None, program_path: str | Path | None = None,
                  **config_overrides: Any) -> Any:
    """A GroundedQA over the configured store; compiled state loaded from ``program_path`` if given."""
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig
    from groundqa.programs.retriever import Retriever

    store = store or open_store(settings)
    cache = RetrievalCache(Path(settings.cache_dir) / "retrieval") if settings.cache else None
    retriever = Retriever(store, k=settings.k, cache=cache)
    program = GroundedQA(retriever, QAConfig.for_lm(settings.lm, **{"k": settings.k, **config_overrides}))
    if program_path is not None:
        from groundqa.programs.persistence import load_program

        load_program(program, program_path)
    return program
