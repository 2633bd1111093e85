"""MLflow tracking: a local SQLite store under the project home by default, any server through
``MLFLOW_TRACKING_URI``; a server that is down never stops a compile or an evaluation."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from groundqa.config import Settings
from groundqa.runtime.redact import redact_text, redact_url

EXPERIMENT_PREFIX = "groundqa"


@dataclass
class Tracking:
    """Where results go: ``enabled`` with ``uri``, or disabled with the reason."""

    enabled: bool
    uri: str
    reason: str = ""
    """Why tracking is off, for a person: secrets in the URI are masked (:func:`redact_url`)."""
    artifact_location: str | None = None
    """Where new experiments keep their artifacts: under the project home for a local store (never the
    ``./mlruns`` of whatever directory a command ran in); ``None`` for a server (its artifact store)."""


def _reachable(uri: str, timeout: float = 3.0) -> str:
    """'' when an http(s) tracking server answers its health check, else the problem."""
    import requests

    try:
        response = requests.get(uri.rstrip("/") + "/health", timeout=timeout)
    except requests.RequestException as exc:
        return f"{type(exc).__name__}"
    return "" if response.ok else f"HTTP {response.status_code}"


def configure_tracking(settings: Settings, enabled: bool = True) -> Tracking:
    """Point MLflow at the configured store; report (not raise) when it cannot be used. The report never
    shows a password or token of the URI."""
    uri = settings.tracking_uri
    if not enabled:
        return Tracking(False, uri, "disabled with --no-mlflow")
    import mlflow

    scheme = urlparse(uri).scheme
    if scheme in ("http", "https"):
        problem = _reachable(uri)
        if problem:
            return Tracking(False, uri, f"tracking server {redact_url(uri)} is not reachable ({redact_text(problem)})")
    elif scheme == "sqlite":
        Path(uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MLFLOW_ENABLE_ASYNC_LOGGING", "false")
    logging.getLogger("mlflow").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    mlflow.set_tracking_uri(uri)
    return Tracking(True, uri, artifact_location=artifact_location(settings))


def artifact_location(settings: Settings) -> str | None:
    """``file://<home>/mlartifacts`` (absolute) for a local SQLite/file store, ``None`` for a server."""
    if urlparse(settings.tracking_uri).scheme in ("http", "https", "databricks"):
        return None
    return (Path(settings.home) / "mlartifacts").resolve().as_uri()


EXPERIMENT_DESCRIPTIONS = {
    "ask": "Traces of `groundqa ask`: one trace per question, with its retrievals (RETRIEVER spans with the "
           "chunks as Documents), premise and synthesis stages and LM calls.",
}


def describe_experiment(dataset: str) -> str:
    """The description an experiment shows in the UI: what its runs are and how to read them."""
    if dataset in EXPERIMENT_DESCRIPTIONS:
        return EXPERIMENT_DESCRIPTIONS[dataset]
    return (f"groundqa on the `{dataset}` dataset. Compile runs (`groundqa optimize`, `groundqa demo`) hold the "
            "options as params, `baseline/*`, `compiled/*` and `delta/*` metrics, a comparison chart, the compiled "
            "program (artifact and logged model) and two nested evaluation runs (`baseline-eval`, `compiled-eval`) "
            "with one trace per dev question. Evaluation runs (`groundqa evaluate`) hold `dev/*` metrics and one "
            "trace per question; with `--engine mlflow` each trace also carries the grounding assessments "
            "(citation recall/precision, faithfulness, correctness, abstention, premise detection, score). "
            "Compare runs with `groundqa compare`; browse them with `groundqa ui`.")


def use_experiment(tracking: Tracking, dataset: str) -> str:
    """Make the dataset's experiment the active one (created with its artifacts under the project home and
    a description); returns its id."""
    import mlflow

    name = experiment_name(dataset)
    client = mlflow.MlflowClient(tracking.uri)
    experiment = client.get_experiment_by_name(name)
    if experiment is None:
        try:
            experiment_id = client.create_experiment(name, artifact_location=tracking.artifact_location)
        except Exception:  # created meanwhile by another process
            found = client.get_experiment_by_name(name)
            if found is None:
                raise
            experiment_id = found.experiment_id
    else:
        experiment_id = experiment.experiment_id
    if experiment is None or "mlflow.note.content" not in experiment.tags:
        client.set_experiment_tag(experiment_id, "mlflow.note.content", describe_experiment(dataset))
    mlflow.set_experiment(experiment_id=experiment_id)
    return str(experiment_id)


def experiment_name(dataset: str) -> str:
    """One experiment per dataset."""
    return f"{EXPERIMENT_PREFIX}-{dataset}"
