"""GroundedQA as the embedded default runs it, over a small corpus written for a test: shared by the test files that
run the whole program on the real embedded LM."""

from __future__ import annotations

from collections.abc import Sequence

import dspy
import pytest

from groundqa.datasets.loaders import Document
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.retriever import Retriever
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.store.chroma_store import CorpusStore


def embedded_program(tmp_path_factory: pytest.TempPathFactory, corpus: Sequence[Document],
                     collection: str) -> GroundedQA:
    """The embedded default's GroundedQA (k=4) over ``corpus``, ingested into a persistent Chroma store of its own."""
    store = CorpusStore(tmp_path_factory.mktemp("chroma"), collection=collection)
    store.ingest(list(corpus))
    return GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded"))


def configure_embedded(lm: dspy.LM) -> None:
    """DSPy set up as the CLI sets it up for the embedded LM: behind the guard, no JSON fallback."""
    dspy.configure(lm=GuardedLM(lm), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
