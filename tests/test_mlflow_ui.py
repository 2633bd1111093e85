"""`groundqa ui` starts the MLflow UI offline (LITELLM_LOCAL_MODEL_COST_MAP, 127.0.0.1) and serves its index
page; every groundqa entry point asks litellm for its local cost map unless the user chose otherwise."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from groundqa.cli.ui import ui_command, ui_environment
from groundqa.config import load_settings

REPO = Path(__file__).resolve().parents[1]
ENV_VAR = "LITELLM_LOCAL_MODEL_COST_MAP"
PROBE = f"import os, sys; print(os.environ.get({ENV_VAR!r}), 'litellm' in sys.modules)"


def _python(code: str, env_value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    if env_value is not None:
        env[ENV_VAR] = env_value
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-1500:]
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("entry", [
    "import groundqa.cli.main",                                      # the console script's module
    "import runpy; runpy.run_path('optimize.py', run_name='probe')",  # python optimize.py
    "import runpy; runpy.run_module('benchmarks.__main__', run_name='probe')",  # python -m benchmarks
])
def test_entry_points_set_the_local_cost_map_unless_the_user_did(entry):
    assert _python(f"{entry}; {PROBE}", None).split()[0] == "True"
    assert _python(f"{entry}; {PROBE}", "False").split()[0] == "False"


def test_ui_command_binds_localhost_on_the_project_store(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    settings = load_settings(home=tmp_path / "home")
    command = ui_command(settings, "127.0.0.1", 5123)
    assert command[1:4] == ["-m", "mlflow", "server"]
    assert command[command.index("--backend-store-uri") + 1] == settings.tracking_uri
    assert command[command.index("--host") + 1] == "127.0.0.1" and command[command.index("--port") + 1] == "5123"
    assert command[command.index("--artifacts-destination") + 1] == (tmp_path / "home" / "mlartifacts").resolve().as_uri()
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert ui_environment()[ENV_VAR] == "True"
    monkeypatch.setenv(ENV_VAR, "False")
    assert ui_environment()[ENV_VAR] == "False"


@pytest.mark.integration
def test_groundqa_ui_serves_its_index_page(tmp_path):
    import requests

    log_path = tmp_path / "ui.log"
    env = {k: v for k, v in os.environ.items() if k not in (ENV_VAR, "MLFLOW_TRACKING_URI")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    with log_path.open("wb") as log:
        ui = subprocess.Popen([sys.executable, "-m", "groundqa.cli.main", "ui", "--home", str(tmp_path / "home"),
                               "--port", "0", "--timeout", "240"], cwd=tmp_path, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
        try:
            url, page, deadline = None, None, time.monotonic() + 240
            while time.monotonic() < deadline and ui.poll() is None and page is None:
                time.sleep(1)
                found = re.search(r"groundqa ui: (http://127\.0\.0\.1:\d+)", log_path.read_text(errors="replace"))
                url = found.group(1) if found else None
                if url:
                    try:
                        response = requests.get(url + "/", timeout=5)
                        page = response if response.ok else None
                    except requests.RequestException:
                        pass
            assert page is not None, log_path.read_text(errors="replace")[-3000:]
            assert "<title>MLflow" in page.text or "mlflow" in page.text.lower()
            assert requests.get(url + "/health", timeout=5).text.strip() == "OK"
        finally:
            if ui.poll() is None:
                ui.send_signal(signal.SIGTERM)  # groundqa ui stops its server on SIGTERM
                ui.wait(timeout=60)
    text = log_path.read_text(errors="replace")
    assert "groundqa ui: stopping" in text and "Application shutdown complete" in text  # the server went too
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "ui.log"]  # nothing stray in the cwd
