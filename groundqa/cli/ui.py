"""``groundqa ui``: the MLflow UI on the project's store, started so that it works with no network.

Plain ``mlflow ui`` on a machine with no network never starts listening: litellm (imported through
MLflow's scorers) fetches its model cost map when imported, and that fetch deadlocks with MLflow's own
imports. ``groundqa ui`` runs ``mlflow server`` with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (unless set),
on 127.0.0.1, one worker, the project's store (``sqlite:///<home>/mlflow.db`` or ``MLFLOW_TRACKING_URI``)
and artifacts under the project home, prints the URL and waits until it answers.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from groundqa.cli.common import CLIError, settings_from
from groundqa.config import Settings
from groundqa.runtime.redact import redact_url

STARTUP_S = 180.0
"""How long to wait for the server to answer before saying it did not start (two slow cores: ~20-60 s)."""


def register(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("ui", help="the MLflow UI on the project's store (offline, 127.0.0.1)",
                       description="Start the MLflow UI on the project's MLflow store, with no network needed.")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=5000, help="port (default 5000; 0 picks a free one)")
    p.add_argument("--workers", type=int, default=1, help="server worker processes (default 1)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop the UI after this many seconds (default: run until Ctrl-C)")
    common(p)
    p.set_defaults(func=cmd_ui)


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def ui_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The server's environment: ``LITELLM_LOCAL_MODEL_COST_MAP=True`` unless the user set it."""
    env = dict(os.environ if base is None else base)
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return env


def ui_command(settings: Settings, host: str, port: int, workers: int = 1) -> list[str]:
    """``mlflow server`` on the project's store, artifacts of new experiments under the project home."""
    uri = settings.tracking_uri
    if urlparse(uri).scheme == "sqlite":
        Path(uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    artifacts = (Path(settings.home) / "mlartifacts").resolve()
    return [sys.executable, "-m", "mlflow", "server", "--backend-store-uri", uri,
            "--artifacts-destination", artifacts.as_uri(), "--host", host, "--port", str(port),
            "--workers", str(max(1, workers))]


def wait_until_up(url: str, process: subprocess.Popen[bytes], timeout: float = STARTUP_S) -> bool:
    """Whether ``url/health`` answers before ``timeout`` (``False`` as soon as the server exits)."""
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if requests.get(f"{url}/health", timeout=2).ok:
                return True
        except requests.RequestException:
            pass
        time.sleep(0.5)
    return False


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server and the workers it started (its own process group)."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
    except (ProcessLookupError, PermissionError):
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _stop_on_sigterm() -> None:
    """SIGTERM stops the server too (it runs in a process group of its own, so it would outlive us)."""
    # not the main thread (the command called from a program): ValueError, and Ctrl-C still works
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGTERM, _interrupt)


def cmd_ui(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    uri = settings.tracking_uri
    if urlparse(uri).scheme in ("http", "https"):
        print(f"groundqa ui: the store is the tracking server {redact_url(uri)}: open it in a browser")
        return 0
    port = free_port(args.host) if args.port == 0 else args.port
    url = f"http://{args.host}:{port}"
    command = ui_command(settings, args.host, port, args.workers)
    process = subprocess.Popen(command, env=ui_environment(), start_new_session=True)
    _stop_on_sigterm()
    print(f"groundqa ui: starting the MLflow UI for {redact_url(uri)}", flush=True)
    print(f"groundqa ui: {url}  (Ctrl-C stops it)", flush=True)
    started = time.monotonic()
    try:
        if not wait_until_up(url, process, STARTUP_S if args.timeout is None else min(STARTUP_S, args.timeout)):
            if process.poll() is not None:
                raise CLIError(f"the MLflow UI exited with code {process.returncode} (is port {port} in use? "
                               "try --port 0)")
            if args.timeout is None:
                raise CLIError(f"the MLflow UI did not answer on {url} within {STARTUP_S:.0f} s")
        else:
            print(f"groundqa ui: ready at {url} after {time.monotonic() - started:.0f} s", flush=True)
        remaining = None if args.timeout is None else max(0.0, args.timeout - (time.monotonic() - started))
        try:
            process.wait(timeout=remaining)
        except subprocess.TimeoutExpired:
            print(f"groundqa ui: stopping after {args.timeout:g} s", flush=True)
    except KeyboardInterrupt:
        print("groundqa ui: stopping", flush=True)
    finally:
        stop(process)
    return 0
