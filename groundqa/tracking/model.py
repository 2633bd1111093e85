"""A compiled program as an MLflow model that loads anywhere, and programs fetched back by URI.

**What is logged.** :class:`GroundQAModel` is a small ``dspy.Module`` holding only plain data: the compiled
program's state (what ``program.json`` holds: instructions, demos, gates), its :class:`QAConfig` and the
settings it runs with, its project home made absolute. ``mlflow.dspy.log_model(..., use_dspy_model_save=True)``
saves it with DSPy's own ``save(save_program=True)``; the live program (Chroma client, LM, caches) is never
pickled: it is rebuilt on the first question from that plain data. DSPy's settings are saved with no LM,
no callbacks and no trace, so a loaded model neither reaches for the LM of the process that logged it nor
makes DSPy autolog traces wherever it is served. The model has a signature (``question`` in; answer,
abstention, exit reason, confidence, citations out) and an input example, and pins no ``./`` path: loaded
from another working directory it reads the same store and writes nothing there.

**A store that is not there is an error, not an abstention.** On its first question the model checks the
recorded store: a missing Chroma folder or an empty collection raises :class:`ModelStoreError` naming the
path and the way out. ``GROUNDQA_HOME``, ``GROUNDQA_COLLECTION``, ``GROUNDQA_CHROMA_URL``, ``GROUNDQA_LM``
(any ``GROUNDQA_*`` setting) in the serving environment override what was recorded.

**Fetching back.** :func:`fetch_program` resolves ``models:/NAME/VERSION`` (or ``@alias``, ``models:/m-<id>``)
and ``runs:/<run id>/program`` (the logged model) or ``runs:/<run id>/compiled`` (the program artifact) in
the project's store, so ``groundqa ask/evaluate --program`` take them like a ``program.json``.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dspy

from groundqa.config import Settings
from groundqa.errors import GroundQAError
from groundqa.runtime.redact import redact
from groundqa.tracking.errors import TrackingError

MODEL_FORMAT = 1
MODEL_NAME = "program"
INPUT_EXAMPLE = {"question": "Who designed the harbor lights of Port Vessany?"}
_RECORDED_EXCLUDE = {"mlflow_tracking_uri"}  # where runs go is the caller's business, and may hold credentials


class ModelStoreError(GroundQAError):
    """A loaded model's corpus store is missing or empty: it would abstain on everything, so it stops."""


def _env_settings() -> dict[str, str]:
    """``GROUNDQA_<SETTING>`` values of the serving environment (they override the recorded settings)."""
    values = {}
    for name in Settings.model_fields:
        raw = os.environ.get(f"GROUNDQA_{name.upper()}")
        if raw:
            values[name] = raw
    return values


def recorded_settings(settings: Settings) -> dict[str, Any]:
    """``settings`` as a logged model keeps them: JSON, the home absolute, no tracking URI, no secrets."""
    data = settings.model_dump(mode="json", exclude=_RECORDED_EXCLUDE)
    data["home"] = str(Path(settings.home).expanduser().resolve())
    return redact(data)


def serving_output(result: Any) -> dict[str, Any]:
    """What a served model answers: the result's headline fields and its citations (plain JSON)."""
    return {
        "answer": result.answer,
        "abstained": bool(result.abstained),
        "abstain_reason": result.abstain_reason.value if result.abstain_reason else "",
        "abstain_message": result.abstain_message,
        "exit_reason": result.exit_reason.value,
        "confidence": float(result.confidence),
        "mode": result.mode,
        "citations": [{"index": c.index, "chunk_id": c.chunk_id, "doc_id": c.doc_id, "title": c.title,
                       "score": float(c.score)} for c in result.citations],
    }


class GroundQAModel(dspy.Module):
    """What ``mlflow.dspy.log_model`` saves: a compiled GroundedQA as plain data, rebuilt on first use.

    ``model(question=...)`` returns a ``dspy.Prediction`` with the fields of :func:`serving_output` (what
    ``mlflow models serve`` answers). :meth:`program` gives the live GroundedQA (streaming, traces).
    """

    def __init__(self, program_state: dict[str, Any], config: dict[str, Any], settings: dict[str, Any],
                 meta: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.program_state = program_state
        self.qa_config = config
        self.recorded = settings
        self.meta = {"format": MODEL_FORMAT, **(meta or {})}
        self._reset()

    def _reset(self) -> None:
        self._live: tuple[Any, Any, Any] | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        for key in ("_live", "_lock"):
            state.pop(key, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._reset()

    def __deepcopy__(self, memo: dict[int, Any]) -> GroundQAModel:
        return GroundQAModel(json.loads(json.dumps(self.program_state)), dict(self.qa_config), dict(self.recorded),
                             dict(self.meta))

    # -- the live program ----------------------------------------------------------------------------
    def settings(self) -> Settings:
        """The recorded settings, overridden by ``GROUNDQA_*`` variables of this environment."""
        return Settings(**{**self.recorded, **_env_settings()})

    def _build(self) -> tuple[Any, Any, Any]:
        from groundqa import app
        from groundqa.programs.persistence import load_program

        settings = self.settings()
        store = check_store(settings, self.recorded)
        lm, adapter = app.guarded_lm(settings)
        program = app.build_program(settings, store=store, **self.qa_config)
        with _state_file(self.program_state) as path:
            load_program(program, path)
        return program, lm, adapter

    def live(self) -> tuple[Any, Any, Any]:
        """(GroundedQA, LM, adapter), built once (thread-safe) on first use."""
        with self._lock:
            if self._live is None:
                self._live = self._build()
            return self._live

    def forward(self, question: str) -> dspy.Prediction:
        program, lm, adapter = self.live()
        with dspy.context(lm=lm, adapter=adapter):
            result = program.run(question)
        return dspy.Prediction(**serving_output(result))


def check_store(settings: Settings, recorded: dict[str, Any] | None = None) -> Any:
    """The corpus store of ``settings``; :class:`ModelStoreError` when it is missing or its collection is
    empty (a model would otherwise abstain on every question without saying why)."""
    from groundqa.app import open_store

    where = settings.chroma_url or str(settings.chroma_dir)
    logged = f" (logged with home {recorded.get('home')})" if recorded and recorded.get("home") else ""
    fix = ("ingest the corpus there (groundqa ingest PATH --home HOME --collection NAME), or point "
           "GROUNDQA_HOME / GROUNDQA_CHROMA_URL / GROUNDQA_COLLECTION at a store that has it")
    if settings.chroma_url is None and not Path(settings.chroma_dir).is_dir():
        raise ModelStoreError(f"groundqa model: no corpus store at {where}{logged}; {fix}")
    try:
        store = open_store(settings)
        count = store.count()
    except Exception as exc:
        raise ModelStoreError(f"groundqa model: cannot open the corpus store at {where}: "
                              f"{type(exc).__name__}: {str(exc)[:200]}; {fix}") from exc
    if count == 0:
        raise ModelStoreError(f"groundqa model: the collection {settings.collection!r} at {where} is empty{logged}; "
                              f"{fix}")
    return store


def _write_state(state: dict[str, Any], folder: Path) -> Path:
    """A program's state as ``folder/program.json`` (what :func:`~groundqa.programs.persistence.load_program`
    reads, with all its checks)."""
    path = folder / "program.json"
    path.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    return path


@contextlib.contextmanager
def _state_file(state: dict[str, Any]) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="groundqa-program-") as tmp:
        yield _write_state(state, Path(tmp))


def model_signature() -> Any:
    """``question`` (string) in; the :func:`serving_output` fields out."""
    from mlflow.models import ModelSignature
    from mlflow.types.schema import Array, ColSpec, Object, Property, Schema

    citation = Object([Property("index", "long"), Property("chunk_id", "string"), Property("doc_id", "string"),
                       Property("title", "string"), Property("score", "double")])
    outputs = Schema([
        ColSpec("string", "answer"), ColSpec("boolean", "abstained"), ColSpec("string", "abstain_reason"),
        ColSpec("string", "abstain_message"), ColSpec("string", "exit_reason"), ColSpec("double", "confidence"),
        ColSpec("string", "mode"), ColSpec(Array(citation), "citations"),
    ])
    return ModelSignature(inputs=Schema([ColSpec("string", "question")]), outputs=outputs)


def as_logged_model(program: dspy.Module, settings: Settings, label: str = "compiled") -> GroundQAModel:
    """``program`` (a GroundedQA) as the plain data :class:`GroundQAModel` holds."""
    with tempfile.TemporaryDirectory(prefix="groundqa-program-") as tmp:
        from groundqa.programs.persistence import save_program

        path = save_program(program, tmp)
        state = json.loads(path.read_text(encoding="utf-8"))
    config = program.config.model_dump(mode="json") if hasattr(program, "config") else {}
    from groundqa import __version__

    return GroundQAModel(state, config, recorded_settings(settings), {"program": label, "groundqa": __version__})


def log_program_model(program: dspy.Module, settings: Settings, registered_model_name: str | None = None,
                      name: str = MODEL_NAME, label: str = "compiled") -> Any:
    """Log ``program`` to the active run as an MLflow model (DSPy's native save, a signature, an input
    example, its store recorded by absolute path), registered as ``registered_model_name`` if given.
    Returns MLflow's ``ModelInfo``; the logged model ends READY (or raises)."""
    import mlflow
    from mlflow import __version__ as mlflow_version

    from groundqa import __version__

    model = as_logged_model(program, settings, label)
    recorded = model.recorded
    requirements = [f"groundqa=={__version__}", f"dspy=={dspy.__version__}", f"mlflow=={mlflow_version}"]
    # Saved with no LM, callbacks or trace in DSPy's settings: the model builds its own LM from the
    # recorded settings, and must not bring the logging process's autolog callbacks wherever it is served.
    active_before = mlflow.get_active_model_id()
    try:
        with dspy.context(lm=None, adapter=None, callbacks=[], trace=[], usage_tracker=None, track_usage=False):
            return mlflow.dspy.log_model(
                model, name=name, use_dspy_model_save=True, signature=model_signature(),
                input_example=INPUT_EXAMPLE, registered_model_name=registered_model_name,
                pip_requirements=requirements,
                metadata={"groundqa": {"format": MODEL_FORMAT, "program": label, "home": recorded.get("home"),
                                       "collection": recorded.get("collection"),
                                       "chroma_url": recorded.get("chroma_url"), "lm": recorded.get("lm")}},
                tags={"groundqa.program": label, "groundqa.collection": str(recorded.get("collection"))},
            )
    finally:
        # MLflow checks the input example by loading the model, which makes it the process's active model:
        # every later metric and trace of this process would be linked to it (and to a store it is not in).
        if mlflow.get_active_model_id() != active_before and active_before is None:
            mlflow.clear_active_model()


# -- fetching a logged program ----------------------------------------------------------------------
@dataclass
class FetchedProgram:
    """A compiled program fetched from MLflow: its state (``program.json``), the settings it was logged
    with (``None`` for a bare program artifact) and where it came from."""

    source: str
    state: dict[str, Any]
    settings: dict[str, Any] | None = None


_FETCHED: dict[tuple[str, str], FetchedProgram] = {}
_FETCH_LOCK = threading.Lock()


def is_model_uri(ref: Any) -> bool:
    """``models:/NAME/VERSION``, ``models:/NAME@alias``, ``models:/m-<id>`` or ``runs:/<run id>/<path>``:
    a program logged to MLflow rather than a ``program.json`` on disk."""
    return isinstance(ref, str) and ref.startswith(("models:/", "runs:/"))


def logged_program(ref: str, settings: Settings, keep_collection: bool = False) -> tuple[Settings, Path]:
    """A logged program as the application layer takes one: ``(settings, program.json)``. The state is
    written to a temporary file, removed when the process exits; the settings name the collection the
    program was compiled on (unless ``keep_collection``: the user named one), so that it answers from the
    corpus it was compiled for."""
    fetched = fetch_program(ref, settings)
    folder = Path(tempfile.mkdtemp(prefix="groundqa-program-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = _write_state(fetched.state, folder)
    collection = (fetched.settings or {}).get("collection")
    if collection and not keep_collection and collection != settings.collection:
        settings = settings.model_copy(update={"collection": collection})
    return settings, path


def fetch_program(ref: str, settings: Settings) -> FetchedProgram:
    """The program behind ``ref`` (``models:/...`` or ``runs:/...``) in the configured MLflow store (fetched
    once per process); :class:`TrackingError` naming the problem when it cannot be found or read."""
    key = (settings.tracking_uri, ref)
    with _FETCH_LOCK:
        if key not in _FETCHED:
            _FETCHED[key] = _fetch(ref, settings)
        return _FETCHED[key]


def _fetch(ref: str, settings: Settings) -> FetchedProgram:
    from groundqa.tracking.runs import open_client

    client = open_client(settings)  # a missing or unreachable store is one TrackingError line
    import mlflow.artifacts

    with tempfile.TemporaryDirectory(prefix="groundqa-fetch-") as tmp:
        try:
            local = Path(mlflow.artifacts.download_artifacts(artifact_uri=ref, dst_path=tmp,
                                                             tracking_uri=client.tracking_uri))
        except Exception as exc:  # MlflowException (unknown name/version/run), OSError
            first = (str(exc).strip().splitlines() or [""])[0][:240]
            raise TrackingError(f"cannot load {ref} from the MLflow store {client.tracking_uri}: "
                                f"{type(exc).__name__}{': ' + first if first else ''}") from exc
        return _read_fetched(ref, local)


def _read_fetched(ref: str, local: Path) -> FetchedProgram:
    if local.is_file() and local.suffix == ".json":
        return FetchedProgram(ref, _json(local))
    if (local / "program.json").is_file():  # runs:/<id>/compiled: the program artifact of a compile run
        return FetchedProgram(ref, _json(local / "program.json"))
    if not (local / "MLmodel").is_file():
        raise TrackingError(f"{ref} is neither a logged groundqa model nor a folder with a program.json")
    from mlflow.models import Model

    flavors = Model.load(str(local / "MLmodel")).flavors
    model_path = flavors.get("dspy", {}).get("model_path")
    if not model_path or model_path.endswith(".pkl"):
        raise TrackingError(f"{ref} is not a groundqa model saved with DSPy's native save "
                            f"(flavors: {', '.join(flavors) or 'none'})")
    loaded = dspy.load(str(local / model_path), allow_pickle=True)
    if not isinstance(loaded, GroundQAModel):
        raise TrackingError(f"{ref} holds a {type(loaded).__name__}, not a groundqa model")
    return FetchedProgram(ref, loaded.program_state, dict(loaded.recorded))


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TrackingError(f"{path.name} fetched from MLflow is not readable JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise TrackingError(f"{path.name} fetched from MLflow is not a compiled program")
    return data

