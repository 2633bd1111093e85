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

CORRAN_MILL = [
    Document(id="corran-mill-strike", title="Corran Mill strike",
             text="The Corran Mill strike of 1911 was a stoppage at the Corran woollen mill that lasted nine weeks. "
                  "The Weavers' Union led the Corran Mill strike, its longest dispute. "
                  "It was called after the owners lengthened the working day to eleven hours without extra pay. "
                  "The strike ended with a return to the ten-hour day."),
    Document(id="selwick-museum", title="Selwick Town Museum",
             text="The Selwick Town Museum is a local history museum in Selwick, founded in 1952 by the Selwick "
                  "Civic Society. Its collection includes the town's charter of 1402."),
]
"""A why-question whose topical sentences ("The Weavers' Union led the Corran Mill strike, its longest dispute") share
more of its words than the sentence that gives the cause: the answer judge's second opinion."""


def embedded_program(tmp_path_factory: pytest.TempPathFactory, corpus: Sequence[Document],
                     collection: str) -> GroundedQA:
    """The embedded default's GroundedQA (k=4) over ``corpus``, ingested into a persistent Chroma store of its own."""
    store = CorpusStore(tmp_path_factory.mktemp("chroma"), collection=collection)
    store.ingest(list(corpus))
    return GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded"))


def configure_embedded(lm: dspy.LM) -> None:
    """DSPy set up as the CLI sets it up for the embedded LM: behind the guard, no JSON fallback."""
    dspy.configure(lm=GuardedLM(lm), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
