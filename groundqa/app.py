"""Wiring: settings -> LM, store, retriever and the GroundedQA program."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy

from groundqa.config import Settings
from groundqa.judges.answer_judge import set_disk_cache as set_judgment_cache
from groundqa.lm.factory import EMBEDDED_BASE, build_lm, configure_dspy_cache
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.runtime.retrieval_cache import RetrievalCache
from groundqa.runtime.trace import ReplayLM, Trace
from groundqa.store.chroma_store import CorpusStore
from groundqa.store.embeddings import set_disk_cache


def configure_caches(settings: Settings) -> None:
    """DSPy's LM cache, the embedding cache and the answer judge's cache under the project home; all off with
    ``cache=false``."""
    configure_dspy_cache(settings)
    cache = Path(settings.cache_dir) if settings.cache else None
    set_disk_cache(cache / "embeddings.sqlite" if cache else None)
    set_judgment_cache(cache / "answer-judge.sqlite" if cache else None)


def open_store(settings: Settings) -> CorpusStore:
    """The configured Chroma collection (persistent under the home, or a server via chroma_url)."""
    configure_caches(settings)
    return CorpusStore(settings.chroma_dir, collection=settings.collection, url=settings.chroma_url,
                       reading=texts_read if settings.embed_sentences else None)


def texts_read(text: str, title: str) -> list[str]:
    """What the program embeds when it reads a chunk (:func:`groundqa.programs.passage_reading.texts_embedded`),
    imported when an ingestion first writes a chunk: opening a store loads no program module (half a second)."""
    from groundqa.programs.passage_reading import texts_embedded

    return texts_embedded(text, title)


def guarded_lm(settings: Settings, replay: Trace | None = None, **overrides: Any) -> tuple[GuardedLM, Any]:
    """The LM (guarded: budgets, retries, tracing; replaying ``replay`` if given) and the adapter that suits
    it, with DSPy's cache under the project home; nothing is made global (a served model uses them under
    ``dspy.context``, from any thread)."""
    configure_caches(settings)
    inner = build_lm(settings, **overrides)
    lm = GuardedLM(inner, replay=ReplayLM(replay) if replay is not None else None)
    adapter = dspy.ChatAdapter(use_json_adapter_fallback=not settings.lm.startswith("embedded"))
    return lm, adapter


def configure_lm(settings: Settings, replay: Trace | None = None, **overrides: Any) -> GuardedLM:
    """Build the LM (guarded: budgets, retries, tracing; replaying ``replay`` if given) and make it
    DSPy's default LM, with DSPy's cache under the project home."""
    lm, adapter = guarded_lm(settings, replay, **overrides)
    dspy.configure(lm=lm, adapter=adapter)
    return lm


def program_settings(settings: Settings, program: str | Path | None) -> Settings:
    """The settings to run the compiled ``program`` (a ``program.json`` or its folder) with: the LoRA adapter
    a fine-tuned program needs (checked by its sha256; it changes the embedded LM's weights, never which LM
    runs). A program logged to MLflow is fetched to a file first (:func:`groundqa.tracking.model.logged_program`)."""
    if program is None or program == "baseline":
        return settings
    from groundqa.programs.persistence import program_adapter

    adapter = program_adapter(program)
    if adapter is None:
        return settings
    if not settings.lm.startswith("embedded") or settings.lm == EMBEDDED_BASE:
        import sys

        print(f"groundqa: the program was fine-tuned for the embedded LM; --lm {settings.lm} runs without its "
              "adapter", file=sys.stderr)
        return settings
    return settings.model_copy(update={"adapter": adapter.path})


def build_program(settings: Settings, store: CorpusStore | None = None, program_path: str | Path | None = None,
                  gates: dict[str, Any] | None = None, **config_overrides: Any) -> Any:
    """A GroundedQA over the configured store; compiled state loaded from ``program_path`` if given (a
    ``program.json`` or its folder); then ``gates`` (``--gate``) set on top, so what the user sets wins over
    the compiled program's own gates."""
    from groundqa.judges.answer_judge import configure_answer_judge
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig
    from groundqa.programs.retriever import Retriever

    configure_answer_judge(settings.cache_dir, settings.lm_threads, settings.judge_merged)  # the LM's own GGUF
    store = store or open_store(settings)
    cache = RetrievalCache(Path(settings.cache_dir) / "retrieval") if settings.cache else None
    retriever = Retriever(store, k=settings.k, cache=cache)
    if settings.adapter is not None:  # a tuned embedded LM is asked to write where no sentence answers
        config_overrides.setdefault("generate_unanswered", True)
    program = GroundedQA(retriever, QAConfig.for_lm(settings.lm, **{"k": settings.k, **config_overrides}))
    if program_path is not None:
        from groundqa.programs.persistence import load_program

        load_program(program, program_path)
    if gates:
        program.gates.load_state(gates)
    return program
