"""Shared fixtures: temporary project homes, a session-wide embedded LM, scripted LMs."""

from __future__ import annotations

import os
from pathlib import Path

import dspy
import pytest
from scripted_compile import DEMO_CORPUS

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")



@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh project home; GROUNDQA_* variables of the developer's shell do not leak in."""
    for key in list(os.environ):
        if key.startswith("GROUNDQA_"):
            monkeypatch.delenv(key)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    return tmp_path / "home"


@pytest.fixture(autouse=True)
def _reset_dspy() -> None:
    """Each test starts with no configured LM and DSPy's cache off (tests must not share answers)."""
    dspy.configure(lm=None, adapter=None)
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    yield
    dspy.configure(lm=None, adapter=None)


@pytest.fixture(scope="module")
def small_demo_store(tmp_path_factory: pytest.TempPathFactory):
    """The demo corpus in a Chroma store of its own, in small chunks (400 characters, 80 overlap), per module."""
    from groundqa.datasets.loaders import load_corpus
    from groundqa.store.chroma_store import CorpusStore

    store = CorpusStore(tmp_path_factory.mktemp("chroma"))
    store.ingest(load_corpus(DEMO_CORPUS).items, 400, 80)
    return store


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model cache per session: the GGUF is assembled, and dequantised for fine-tuning (~1 minute), once."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def embedded_lm(model_cache: Path):
    """The real embedded Gemma 3 270M, assembled once per session."""
    from groundqa.lm.embedded import EmbeddedLM

    return EmbeddedLM(cache_dir=model_cache, cache=False)


@pytest.fixture()
def embedded_dspy(embedded_lm):
    """DSPy set up with the real embedded LM as the CLI sets it up (behind the guard, no JSON fallback)."""
    from embedded_programs import configure_embedded

    configure_embedded(embedded_lm)
    return embedded_lm


@pytest.fixture
def demo_corpus() -> Path:
    return DEMO_CORPUS


@pytest.fixture(autouse=True)
def _isolate_mlflow():
    """MLflow keeps the active experiment and tracking URI in process globals: reset them after each
    test so one test's temporary store never leaks into the next."""
    yield
    import mlflow
    from mlflow.tracking import fluent

    mlflow.dspy.autolog(disable=True)  # its callbacks would otherwise log later tests' evaluations
    mlflow.clear_active_model()  # a model logged or loaded in one test's store is not in the next one's
    while mlflow.active_run() is not None:
        mlflow.end_run()
    fluent._active_experiment_id = None
    os.environ.pop("MLFLOW_EXPERIMENT_ID", None)  # set_experiment exports it for child processes
    mlflow.set_tracking_uri(None)


@pytest.fixture(autouse=True)
def _isolate_embedding_disk_cache():
    """The embedding disk cache is a process-wide setting: never let one test's home receive another's
    vectors."""
    yield
    from groundqa.store.embeddings import set_disk_cache

    set_disk_cache(None)
