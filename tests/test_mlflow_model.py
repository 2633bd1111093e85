"""A program logged to MLflow loads anywhere: DSPy's native save, a signature and an input example, the
store recorded by absolute path; loaded from another working directory it gives the same answer (and
leaves nothing there); a missing store is an error, not an abstention; `mlflow models serve` of the
registered version answers a request on 127.0.0.1. The real embedded LM, a real Chroma and MLflow store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from groundqa.cli.ui import free_port

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "corpus.jsonl"
QUESTION = "Who designed the harbor lights of Port Vessany?"
MODEL = "groundqa-embedded"


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A baseline GroundedQA on the embedded LM over the demo corpus, its answer, and the model logged
    (and registered as version 1 of ``groundqa-embedded``) to a fresh store."""
    import mlflow

    from groundqa.app import build_program, configure_lm
    from groundqa.config import load_settings
    from groundqa.datasets.loaders import load_corpus
    from groundqa.ingest import ingest_documents
    from groundqa.tracking.model import log_program_model
    from groundqa.tracking.setup import configure_tracking, use_experiment

    with pytest.MonkeyPatch.context() as patch:
        for key in [k for k in os.environ if k.startswith("GROUNDQA_")] + ["MLFLOW_TRACKING_URI"]:
            patch.delenv(key, raising=False)
        home = tmp_path_factory.mktemp("model") / "home"
        settings = load_settings(home=home, collection="demo", cache=False)
        configure_lm(settings)
        ingest_documents(settings, load_corpus(CORPUS).items)
        program = build_program(settings)
        answer = program.run(QUESTION)
        tracking = configure_tracking(settings)
        use_experiment(tracking, "models")
        with mlflow.start_run() as run:
            info = log_program_model(program, settings, registered_model_name=MODEL, label="baseline")
        yield {"settings": settings, "answer": answer, "info": info, "run_id": run.info.run_id,
               "uri": settings.tracking_uri, "home": home}
        mlflow.set_tracking_uri(None)


def _env(uri: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GROUNDQA_")}
    env.update({"MLFLOW_TRACKING_URI": uri, "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"})
    return env


def test_logged_model_is_native_ready_and_described(logged):
    import mlflow
    from mlflow.models import Model

    mlflow.set_tracking_uri(logged["uri"])
    info = logged["info"]
    model = mlflow.get_logged_model(info.model_id)
    assert str(model.status) in ("READY", "LoggedModelStatus.READY")
    assert model.artifact_location.startswith((logged["home"] / "mlartifacts").resolve().as_uri())
    pending = [m for m in mlflow.search_logged_models(output_format="list") if "PENDING" in str(m.status)]
    assert pending == []
    local = Path(mlflow.artifacts.download_artifacts(info.model_uri))
    mlmodel = Model.load(str(local / "MLmodel"))
    assert not mlmodel.flavors["dspy"]["model_path"].endswith(".pkl")  # use_dspy_model_save
    assert (local / mlmodel.flavors["dspy"]["model_path"] / "program.pkl").exists()
    assert [c.name for c in mlmodel.signature.inputs] == ["question"]
    assert {"answer", "abstained", "exit_reason", "citations"} <= {c.name for c in mlmodel.signature.outputs}
    assert json.loads((local / "input_example.json").read_text()) == {"question": QUESTION}
    assert mlmodel.metadata["groundqa"]["home"] == str(logged["home"].resolve())


def test_loaded_in_another_directory_it_gives_the_same_answer(logged, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = ("import json, mlflow\n"
            f"model = mlflow.pyfunc.load_model('models:/{MODEL}/1')\n"
            f"print('RESULT ' + json.dumps(model.predict({{'question': {QUESTION!r}}})))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, env=_env(logged["uri"]), capture_output=True,
                         text=True, timeout=400)
    assert out.returncode == 0, out.stderr[-2000:]
    line = next(x for x in out.stdout.splitlines() if x.startswith("RESULT "))
    served = json.loads(line.removeprefix("RESULT "))
    answer = logged["answer"]
    assert served["answer"] == answer.answer and not served["abstained"]
    assert [c["chunk_id"] for c in served["citations"]] == [c.chunk_id for c in answer.citations]
    assert list(elsewhere.iterdir()) == []  # no stray .groundqa/ or mlruns/


def test_a_missing_store_is_loud(logged, tmp_path, monkeypatch):
    import mlflow

    from groundqa.tracking.model import ModelStoreError

    mlflow.set_tracking_uri(logged["uri"])
    monkeypatch.setenv("GROUNDQA_HOME", str(tmp_path / "empty-home"))
    model = mlflow.pyfunc.load_model(f"models:/{MODEL}/1")
    with pytest.raises(ModelStoreError, match="no corpus store at .*empty-home"):
        model.predict({"question": QUESTION})
    assert not (tmp_path / "empty-home").exists()


def test_mlflow_models_serve_answers_one_request(logged, tmp_path):
    import requests

    port = free_port()
    elsewhere = tmp_path / "serve"
    elsewhere.mkdir()
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "models", "serve", "-m", f"models:/{MODEL}/1", "--env-manager", "local",
         "-h", "127.0.0.1", "-p", str(port)],
        cwd=elsewhere, env=_env(logged["uri"]), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and server.poll() is None:
            try:
                if requests.get(f"http://127.0.0.1:{port}/ping", timeout=2).ok:
                    break
            except requests.RequestException:
                time.sleep(1)
        else:
            pytest.fail(f"mlflow models serve did not start: {(tmp_path / 'serve.log').read_text()[-2000:]}")
        response = requests.post(f"http://127.0.0.1:{port}/invocations", timeout=300,
                                 json={"dataframe_records": [{"question": QUESTION}]})
        assert response.status_code == 200, response.text[:500]
        prediction = response.json()["predictions"]
        assert prediction["answer"] == logged["answer"].answer
        assert prediction["citations"][0]["doc_id"] == logged["answer"].citations[0].doc_id
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=5)
        log.close()
