"""MLflow tracking: a local SQLite store under the project home by default, any server through
``MLFLOW_TRACKING_URI``; a server that is down never stops a compile or an evaluation."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from groundqa.config import Settings

EXPERIMENT_PREFIX = "groundqa"


@dataclass
class Tracking:
    """Where results go: ``enabled`` with ``uri``, or disabled with the reason."""

    enabled: bool
    uri: str
    reason: str = ""


def _reachable(uri: str, timeout: float = 3.0) -> str:
    """'' when an http(s) tracking server answers its health check, else the problem."""
    import requests

    try:
        response = requests.get(uri.rstrip("/") + "/health", timeout=timeout)
    except requests.RequestException as exc:
        return f"{type(exc).__name__}"
    return "" if response.ok else f"HTTP {response.status_code}"


def configure_tracking(settings: Settings, enabled: bool = True) -> Tracking:
    """Point MLflow at the configured store; report (not raise) when it cannot be used."""
    uri = settings.tracking_uri
    if not enabled:
        return Tracking(False, uri, "disabled with --no-mlflow")
    import mlflow

    scheme = urlparse(uri).scheme
    if scheme in ("http", "https"):
        problem = _reachable(uri)
        if problem:
            return Tracking(False, uri, f"tracking server {uri} is not reachable ({problem})")
    elif scheme == "sqlite":
        Path(uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MLFLOW_ENABLE_ASYNC_LOGGING", "false")
    logging.getLogger("mlflow").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    mlflow.set_tracking_uri(uri)
    return Tracking(True, uri)


def experiment_name(dataset: str) -> str:
    """One experiment per dataset."""
    return f"{EXPERIMENT_PREFIX}-{dataset}"
