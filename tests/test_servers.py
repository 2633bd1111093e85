"""Every server path against the real server, started here on 127.0.0.1 and a free port, and stopped:

* ``chroma run``: ingest, re-ingest, ask; the server killed mid-ingest (a clear error, nothing lost);
* ``mlflow server``: a compile and an evaluation logged there; the server killed mid-compile and
  mid-evaluate (both finish, say once that tracking was lost, and save their results);
* an OpenAI-compatible LM server on the embedded engine (``groundqa.serve.lm_server``, fault-injecting):
  a cited answer through ``--api-base`` (with ``max_tokens`` on the wire), the per-call timeout, a 429
  and a 500;
* ``groundqa serve`` on the embedded default, over HTTP: 400, a full SSE stream, a disconnect, 8
  concurrent clients.

Subprocesses run in their own session and are killed as a group in the fixtures' finalizers.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import dspy
import httpx
import pytest
from scripted_compile import scripted_reply, write_questions
from sse import sse_events

from groundqa.cli.main import main
from groundqa.config import load_settings
from groundqa.datasets.loaders import load_corpus
from groundqa.lm.factory import build_lm
from groundqa.lm.gemma import model_path
from groundqa.lm.scripted import ScriptedLM
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.retriever import Retriever
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.runtime.run import Budgets
from groundqa.signatures.types import ExitReason
from groundqa.store.chroma_store import CorpusStore

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "datasets" / "demo" / "corpus.jsonl"
BIN = Path(sys.executable).parent
QUESTION = "Who designed the harbor lights of Port Vessany?"
TOKEN = "servers-token-8d2f61a4"


# -- running servers -------------------------------------------------------------------------------
def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """A server subprocess in its own session (so its children die with it); output goes to a log file,
    and lines announcing the port are matched while it starts."""

    def __init__(self, name: str, cmd: list[str], log_dir: Path, env: dict[str, str] | None = None) -> None:
        self.name, self.cmd, self.env = name, cmd, {**os.environ, **(env or {})}
        self.log = log_dir / f"{name}.log"
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str] = queue.Queue()

    def start(self, ready: Callable[[], bool] | None = None, announce: str | None = None,
              timeout: float = 120.0) -> re.Match[str] | None:
        """Start; wait until ``ready()`` is true or a line matches ``announce`` (returned)."""
        self.process = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        env=self.env, cwd=REPO, start_new_session=True)
        threading.Thread(target=self._pump, daemon=True).start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            if announce is not None:
                with contextlib.suppress(queue.Empty):
                    match = re.search(announce, self.lines.get(timeout=0.2))
                    if match:
                        return match
                continue
            if ready is not None and ready():
                return None
            time.sleep(0.2)
        self.stop()
        raise AssertionError(f"{self.name} did not start; its log:\n{self.log.read_text()[-3000:]}")

    def _pump(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        with self.log.open("a", encoding="utf-8") as out:
            for line in self.process.stdout:
                out.write(line)
                out.flush()
                self.lines.put(line)

    def kill(self) -> None:
        """SIGKILL the whole process group: what a crash looks like."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        """SIGTERM the group, then SIGKILL what is left after 10 s."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()


def answers(url: str, path: str = "/health") -> Callable[[], bool]:
    def probe() -> bool:
        try:
            return httpx.get(url + path, timeout=2).status_code < 500
        except httpx.HTTPError:
            return False

    return probe


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded GGUF, assembled once for this module's servers (each links it into its home)."""
    return model_path(tmp_path_factory.mktemp("models"))


def link_model(models: Path, home: Path) -> None:
    """Put the assembled GGUF where a home's embedded LM looks for it (a hard link: no copy, no rebuild)."""
    target = home / "cache" / "models" / models.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        try:
            os.link(models, target)
        except OSError:
            shutil.copyfile(models, target)


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


# == chroma run ====================================================================================
def start_chroma(path: Path, port: int, log_dir: Path) -> Server:
    server = Server("chroma", [str(BIN / "chroma"), "run", "--path", str(path), "--host", "127.0.0.1",
                               "--port", str(port)], log_dir)
    server.start(ready=answers(f"http://127.0.0.1:{port}", "/api/v2/heartbeat"), timeout=60)
    return server


@pytest.fixture
def chroma(tmp_path: Path) -> Iterator[tuple[str, Server]]:
    port = free_port()
    server = start_chroma(tmp_path / "chroma-db", port, tmp_path)
    yield f"http://127.0.0.1:{port}", server
    server.stop()


def test_chroma_server_ingest_reingest_ask(chroma, home, models):
    url, _ = chroma
    link_model(models, home)
    code, out, err = run_cli("ingest", str(DEMO), "--home", str(home), "--chroma-url", url)
    assert code == 0, err
    stored = CorpusStore(None, url=url).count()
    assert stored >= 8
    code, out, err = run_cli("ingest", str(DEMO), "--home", str(home), "--chroma-url", url)
    assert code == 0 and "+0 chunk(s)" in out, out
    assert CorpusStore(None, url=url).count() == stored
    code, out, err = run_cli("ask", QUESTION, "--home", str(home), "--chroma-url", url, "--json", "--no-mlflow")
    assert code == 0, err
    result = json.loads(out)
    assert result["exit_reason"] == "COMPLETED" and not result["abstained"] and "Marchetti" in result["answer"]
    assert {c["doc_id"] for c in result["citations"]} <= {"harbor-lights", "marchetti"}
    # hybrid retrieval's BM25 side over HTTP: the index is built from the server's chunks, hits scored by cosine
    from groundqa.programs.retriever import analyze

    server_store = CorpusStore(None, url=url)
    dense = {p.chunk_id: p.score for p in server_store.query(QUESTION, k=stored)}
    found = server_store.lexical_query(QUESTION, 2, analyze)
    assert len(found) == 2 and all(p.score == pytest.approx(dense[p.chunk_id], abs=1e-4) for p in found)


def test_chroma_server_killed_mid_ingest(chroma, home, tmp_path, monkeypatch):
    url, server = chroma
    code, _, err = run_cli("ingest", str(DEMO), "--home", str(home), "--chroma-url", url)
    assert code == 0, err
    before = set(CorpusStore(None, url=url).collection.get(include=[])["ids"])
    from groundqa.store import chroma_store, embeddings

    monkeypatch.setattr(chroma_store, "_UPSERT_BATCH", 16)  # small batches: a kill lands between two of them
    big = tmp_path / "big.jsonl"  # 48 one-chunk documents: three upsert batches
    with big.open("w", encoding="utf-8") as fh:
        for i in range(48):
            fh.write(json.dumps({"id": f"log-{i}", "title": f"Log {i}",
                                 "text": f"Entry {i}: the keeper logged {i * 7} ships passing the harbor."}) + "\n")
    real_embed = embeddings.Embedder.embed
    calls = {"n": 0}

    def embed_then_crash(self: Any, texts: Any, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:  # the first batch is stored; the server dies before the second
            server.kill()
        return real_embed(self, texts, *args, **kwargs)

    monkeypatch.setattr(embeddings.Embedder, "embed", embed_then_crash)
    clean = True
    try:
        code, out, err = run_cli("ingest", str(big), "--home", str(home), "--chroma-url", url)
        clean = code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    except Exception as exc:  # not one clear line: the error escaped the command line
        err, clean = f"{type(exc).__name__}: {exc}", False
    assert calls["n"] >= 2 and server.process is not None and server.process.poll() is not None
    monkeypatch.setattr(embeddings.Embedder, "embed", real_embed)

    # nothing lost: the same store, served again, still has every chunk it had, plus the first batch
    port = int(url.rsplit(":", 1)[1])
    again = start_chroma(tmp_path / "chroma-db", port, tmp_path)
    try:
        after = set(CorpusStore(None, url=url).collection.get(include=[])["ids"])
        assert before <= after and len(after) >= len(before) + 16
        code, out, err2 = run_cli("ingest", str(big), "--home", str(home), "--chroma-url", url)
        assert code == 0, err2
        assert CorpusStore(None, url=url).count() == len(before) + 48
    finally:
        again.stop()
    assert clean, f"a Chroma server lost mid-ingest must be one clear line and exit 2, got: {err[:300]}"


# == mlflow server =================================================================================
@pytest.fixture(scope="module")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Server]]:
    root = tmp_path_factory.mktemp("mlflow-server")
    port = free_port()
    server = Server("mlflow", [sys.executable, "-m", "mlflow", "server", "--backend-store-uri",
                               f"sqlite:///{root / 'mlflow.db'}", "--artifacts-destination",
                               (root / "artifacts").as_uri(), "--host", "127.0.0.1", "--port", str(port),
                               "--workers", "1"], root,
                    env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"})  # offline, litellm's fetch can hang it
    url = f"http://127.0.0.1:{port}"
    server.start(ready=answers(url), timeout=180)
    yield url, server
    server.stop()


@pytest.fixture
def tracked(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mlflow_server) -> dict[str, Any]:
    """Scripted LMs everywhere, MLflow pointed at the server, its HTTP retries short (a dead server must
    not hold a test for minutes), and a tiny question file."""
    from groundqa import app
    from groundqa.lm import factory

    monkeypatch.setattr(factory, "build_lm", lambda settings, **kw: ScriptedLM(scripted_reply))
    monkeypatch.setattr(app, "build_lm", lambda settings, **kw: ScriptedLM(scripted_reply))
    url, server = mlflow_server
    monkeypatch.setenv("MLFLOW_TRACKING_URI", url)
    forget_after_test(monkeypatch)
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "1")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "10")
    return {"url": url, "server": server, "questions": write_questions(tmp_path / "questions.jsonl")}


def forget_after_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """MLflow's HTTP settings that a guard leaves in the environment after losing its server go at teardown."""
    from groundqa.tracking.guard import FAIL_FAST_HTTP

    for key in FAIL_FAST_HTTP:
        monkeypatch.setenv(key, "0")  # records the variable's state before the test, restored at teardown
        monkeypatch.delenv(key)


def _runs(url: str) -> list[Any]:
    import mlflow

    client = mlflow.MlflowClient(url)
    experiments = client.search_experiments()
    return client.search_runs([e.experiment_id for e in experiments]) if experiments else []


def test_mlflow_server_logs_an_evaluation_and_a_compile(tracked, home, tmp_path):
    from groundqa.compile import CompileOptions, compile_program

    code, out, err = run_cli("evaluate", "--questions", str(tracked["questions"]), "--corpus", str(DEMO),
                             "--home", str(home), "--json", str(tmp_path / "report.json"))
    assert code == 0, err
    evaluations = [r for r in _runs(tracked["url"]) if r.data.metrics]
    assert evaluations, "the evaluation was not logged to the server"
    outcome = compile_program(load_settings(home=home), CompileOptions(
        optimizer="bootstrap", dataset=str(tracked["questions"]), corpus=str(DEMO), budget=2,
        artifacts=tmp_path / "artifacts", progress=False), out=lambda line: None)
    assert outcome.run_id and outcome.tracking == tracked["url"]
    import mlflow

    run = mlflow.MlflowClient(tracked["url"]).get_run(outcome.run_id)
    assert run.info.status == "FINISHED" and any(k.startswith("compiled") for k in run.data.metrics)


def test_mlflow_server_killed_mid_compile(tracked, home, tmp_path):
    """Runs last among the module server's tests: it kills the server. The compile finishes, saves its
    program and says once that tracking was lost, without waiting minutes on MLflow's HTTP retries."""
    from groundqa.compile import CompileOptions, compile_program

    server: Server = tracked["server"]
    lines: list[str] = []
    killed_at: list[float] = []

    def out(line: str) -> None:
        lines.append(line)
        if line.startswith("compiling with"):  # the baseline evaluation is logged; the optimizer starts
            server.kill()
            killed_at.append(time.monotonic())

    outcome = compile_program(load_settings(home=home), CompileOptions(
        optimizer="bootstrap+calibrate", trials=3, dataset=str(tracked["questions"]), corpus=str(DEMO), budget=2,
        artifacts=tmp_path / "artifacts", progress=False), out=out)
    after_kill = time.monotonic() - killed_at[0]
    assert server.process is not None and server.process.poll() is not None, "the server was not killed"
    assert outcome.program_path.exists() and (outcome.program_path.parent / "compiled_report.json").exists()
    lost = [line for line in lines if line.startswith("MLflow tracking was lost")]
    assert len(lost) == 1, lines
    assert f"results are in {tmp_path / 'artifacts'}" in lost[0]
    assert outcome.run_id is None and outcome.tracking.startswith("tracking was lost")
    assert after_kill < 120, f"the compile spent {after_kill:.0f}s after the server died"
    import mlflow

    assert mlflow.active_run() is None  # nothing left on MLflow's run stack


@pytest.fixture
def doomed_mlflow(tmp_path: Path) -> Iterator[tuple[str, Server]]:
    """An MLflow server of this test's own, to be killed by it."""
    port = free_port()
    server = Server("mlflow-doomed", [sys.executable, "-m", "mlflow", "server", "--backend-store-uri",
                                      f"sqlite:///{tmp_path / 'mlflow.db'}", "--artifacts-destination",
                                      (tmp_path / "artifacts").as_uri(), "--host", "127.0.0.1", "--port", str(port),
                                      "--workers", "1"], tmp_path, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    url = f"http://127.0.0.1:{port}"
    server.start(ready=answers(url), timeout=180)
    yield url, server
    server.kill()


def test_mlflow_server_killed_mid_evaluate(doomed_mlflow, home, tmp_path, monkeypatch):
    """``groundqa evaluate`` whose server dies after its second LM call: the report is still printed and
    written, one line says tracking was lost, exit 0."""
    from groundqa import app
    from groundqa.lm import factory

    url, server = doomed_mlflow
    calls = [0]

    def reply(messages: Any) -> Any:
        calls[0] += 1
        if calls[0] == 2:
            server.kill()
        return scripted_reply(messages)

    monkeypatch.setattr(factory, "build_lm", lambda settings, **kw: ScriptedLM(reply))
    monkeypatch.setattr(app, "build_lm", lambda settings, **kw: ScriptedLM(reply))
    monkeypatch.setenv("MLFLOW_TRACKING_URI", url)
    forget_after_test(monkeypatch)  # the guard's own fail-fast settings are what this test exercises
    questions = write_questions(tmp_path / "questions.jsonl")
    started = time.monotonic()
    # the LM is asked first (--gate extractive_first=1): the server must die mid-run, after the second LM call,
    # however many questions a close passage sentence would otherwise answer without the LM
    code, out, err = run_cli("evaluate", "--questions", str(questions), "--corpus", str(DEMO), "--home", str(home),
                             "--json", str(tmp_path / "report.json"), "--quiet", "--gate", "extractive_first=1")
    assert calls[0] > 2, f"only {calls[0]} LM call(s): the server was not killed mid-run"
    assert server.process is not None and server.process.poll() is not None, "the server was not killed"
    assert code == 0, err[-2000:]
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["n"] == len(report["records"]) > 0
    assert err.count("MLflow tracking was lost") == 1, err[-2000:]
    assert "Traceback" not in err
    assert time.monotonic() - started < 180
    import mlflow

    assert mlflow.active_run() is None


# == an OpenAI-compatible LM server on the embedded engine ========================================
@pytest.fixture(scope="module")
def lm_server(tmp_path_factory: pytest.TempPathFactory, models: Path) -> Iterator[str]:
    log_dir = tmp_path_factory.mktemp("lm-server")
    server = Server("lm-server", [sys.executable, "-m", "groundqa.serve.lm_server", "--port", "0", "--faults",
                                  "--cache-dir", str(models.parent)], log_dir)
    match = server.start(announce=r"listening on (http://127\.0\.0\.1:\d+/v1)", timeout=120)
    assert match is not None
    yield match.group(1)
    server.stop()


@pytest.fixture
def faults(lm_server: str) -> Iterator[Callable[..., None]]:
    root = lm_server.removesuffix("/v1")

    def set_faults(**values: Any) -> None:
        httpx.post(f"{root}/_faults", json=values, timeout=10).raise_for_status()

    yield set_faults
    set_faults()


def requests_seen(lm_server: str) -> list[dict[str, Any]]:
    return httpx.get(lm_server.removesuffix("/v1") + "/_requests", timeout=10).json()


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    store = CorpusStore(tmp_path_factory.mktemp("chroma"))
    store.ingest(load_corpus(DEMO).items)
    return store


def http_run(store: CorpusStore, lm_server: str, home: Path, question: str = QUESTION, max_passages: int = 4,
             **budgets: Any) -> Any:
    """One question through ``openai/gemma`` at the LM server (the guarded LiteLLM path), uncached, one
    synthesis attempt, no premise stage: one LM call when nothing fails."""
    settings = load_settings(home=home, lm="openai/gemma", api_base=lm_server, cache=False)
    lm = GuardedLM(build_lm(settings))
    program = GroundedQA(Retriever(store, k=4), QAConfig.for_lm(
        settings.lm, verify_premises=False, max_attempts=1, max_passages=max_passages,
        budgets=Budgets(**{"backoff_base_s": 0.01, "backoff_max_s": 0.05, **budgets})))
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        return program.run(question, use_cache=False)


def test_cited_answer_through_api_base_with_max_tokens_on_the_wire(lm_server, faults, demo_store, home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-not-checked-by-the-server")
    faults(status=429, count=1, retry_after=0)  # one transient 429 first: retried, then answered
    seen = len(requests_seen(lm_server))
    result = http_run(demo_store, lm_server, home, max_passages=3, max_context_chars=2400)
    assert result.exit_reason is ExitReason.COMPLETED and not result.abstained, result.notes
    assert result.citations and "Marchetti" in result.answer
    assert {c.chunk_id for c in result.citations} <= {p.chunk_id for p in result.passages}
    assert result.usage.lm_retries == 1 and result.usage.completion_tokens > 0
    sent = requests_seen(lm_server)[seen:]
    assert len(sent) == 2 and all(r.get("max_tokens") == 256 for r in sent), sent  # not only max_completion_tokens


def test_per_call_timeout_ends_the_run_on_time(lm_server, faults, demo_store, home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-not-checked-by-the-server")
    faults(delay_s=60)  # the server stalls every request for a minute
    started = time.monotonic()
    result = http_run(demo_store, lm_server, home, timeout_s=3.0)
    wall = time.monotonic() - started
    assert result.exit_reason is ExitReason.TIMEOUT and result.abstained
    assert wall < 3.0 + 4.0, f"a 3 s budget took {wall:.1f}s"


@pytest.mark.parametrize(("status", "reason"), [(429, ExitReason.RATE_LIMITED), (500, ExitReason.LM_ERROR)])
def test_http_errors_are_retried_then_end_the_run(lm_server, faults, demo_store, home, monkeypatch, status, reason):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-not-checked-by-the-server")
    faults(status=status, count=100)
    seen = len(requests_seen(lm_server))
    result = http_run(demo_store, lm_server, home, max_lm_retries=2)
    assert result.exit_reason is reason and result.abstained
    assert result.usage.lm_retries == 2 and len(requests_seen(lm_server)) - seen == 3
    assert "after 2 retries" in result.abstain_message


@pytest.mark.parametrize("body", ["malformed", "empty_choices"])
def test_a_broken_reply_is_retried_then_ends_the_run_as_an_lm_error(lm_server, faults, demo_store, home, monkeypatch,
                                                                     body):
    """Fault matrix: HTTP 200 with a body that is not JSON (an LM error), or with no choices (empty text: the
    contract fails and the extractive fallback answers, saying why) — never an escape, always on time."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-not-checked-by-the-server")
    faults(body=body, count=100)
    started = time.monotonic()
    result = http_run(demo_store, lm_server, home, max_lm_retries=1, timeout_s=30.0)
    assert time.monotonic() - started < 30.0 + 2.0
    if result.exit_reason is ExitReason.COMPLETED:
        assert body == "empty_choices" and result.mode == "extractive"
        assert any("empty text" in note for note in result.notes), result.notes
    else:
        assert result.exit_reason in (ExitReason.LM_ERROR, ExitReason.LM_GENERATION_FAILURE), result.exit_reason
        assert result.abstained and not result.citations
    faults()  # healthy again: the next question is answered
    assert http_run(demo_store, lm_server, home, max_passages=3, max_context_chars=2400).exit_reason \
        is ExitReason.COMPLETED


def test_a_refused_connection_ends_the_run_as_an_lm_error(demo_store, home, monkeypatch):
    """Fault matrix: nothing listens at api_base (connection refused): retried, then LM_ERROR, on time."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-not-checked-by-the-server")
    with socket.socket() as probe:  # a free port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    result = http_run(demo_store, f"http://127.0.0.1:{port}/v1", home, max_lm_retries=2, timeout_s=20.0)
    assert result.exit_reason in (ExitReason.LM_ERROR, ExitReason.TIMEOUT) and result.abstained
    assert result.exit_reason is ExitReason.TIMEOUT or result.usage.lm_retries == 2
    assert time.monotonic() - started < 20.0 + 2.0


def test_an_lm_server_killed_mid_call_ends_the_run_on_time(demo_store, home, models, tmp_path, monkeypatch):
    """Fault matrix: the server dies while a call is in flight (a server of its own, stalled, then killed):
    the call fails, the retries find nothing listening, the run ends LM_ERROR (or TIMEOUT) within its budget."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-not-checked-by-the-server")
    server = Server("doomed-lm-server", [sys.executable, "-m", "groundqa.serve.lm_server", "--port", "0", "--faults",
                                         "--cache-dir", str(models.parent)], tmp_path)
    match = server.start(announce=r"listening on (http://127\.0\.0\.1:\d+/v1)", timeout=120)
    assert match is not None
    url = match.group(1)
    try:
        httpx.post(url.removesuffix("/v1") + "/_faults", json={"delay_s": 60}, timeout=10).raise_for_status()
        killer = threading.Timer(2.0, server.kill)
        killer.start()
        started = time.monotonic()
        result = http_run(demo_store, url, home, max_lm_retries=2, timeout_s=20.0)
        wall = time.monotonic() - started
        killer.join()
    finally:
        server.stop()
    assert result.exit_reason in (ExitReason.LM_ERROR, ExitReason.TIMEOUT) and result.abstained, result.exit_reason
    assert not result.citations and wall < 20.0 + 2.0, f"{wall:.1f}s"


# == groundqa serve itself, on the embedded default ================================================
@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, models: Path) -> Iterator[str]:
    root = tmp_path_factory.mktemp("serve")
    home = root / "home"
    link_model(models, home)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GROUNDQA_") and k != "MLFLOW_TRACKING_URI"}
    # the LM is asked first (--gate extractive_first=1): these tests are about its stream, calls and disconnects
    server = Server("groundqa-serve", [str(BIN / "groundqa"), "serve", "--port", "0", "--home", str(home),
                                       "--gate", "extractive_first=1"], root)
    server.env = {**env, "GROUNDQA_API_TOKEN": TOKEN}  # not the test's GROUNDQA_* or tracking settings
    match = server.start(announce=r"serving on (http://127\.0\.0\.1:\d+)", timeout=180)
    assert match is not None
    yield match.group(1)
    server.stop()
    assert TOKEN not in server.log.read_text()  # never logged


AUTH = {"Authorization": f"Bearer {TOKEN}"}




def lm_calls(url: str) -> int:
    return int(httpx.get(f"{url}/health", timeout=30).json()["lm"]["calls"])


def test_serve_400_on_empty_input_before_any_lm_call(served):
    before = lm_calls(served)
    for path in ("/ask", "/ask/stream"):
        response = httpx.post(served + path, json={"question": " "}, headers=AUTH, timeout=30)
        assert response.status_code == 400 and response.json()["exit_reason"] == "EMPTY_INPUT"
        assert httpx.post(served + path, json={"question": QUESTION}, timeout=30).status_code == 401
    assert lm_calls(served) == before
    health = httpx.get(f"{served}/health", timeout=30).json()
    assert health["status"] == "ok" and health["store"]["chunks"] >= 8 and health["lm"]["in_process"]


def test_serve_streams_events_ending_in_one_final(served):
    with httpx.stream("POST", f"{served}/ask/stream", json={"question": QUESTION, "no_cache": True},
                      headers=AUTH, timeout=120) as response:
        assert response.status_code == 200
        events = sse_events(response.iter_lines())
    kinds = [e["type"] for e in events]
    assert kinds.count("final") == 1 and kinds[-1] == "final" and "token" in kinds and "retrieval_end" in kinds
    final = events[-1]
    assert final["exit_reason"] == "COMPLETED" and "Marchetti" in final["result"]["answer"]
    plain = httpx.post(f"{served}/ask", json={"question": QUESTION, "no_cache": True}, headers=AUTH,
                       timeout=120).json()
    assert plain["answer"] == final["result"]["answer"]


def test_serve_disconnect_stops_the_run_and_the_lm_stays_sound(served):
    expected = httpx.post(f"{served}/ask", json={"question": QUESTION}, headers=AUTH, timeout=120).json()
    with httpx.stream("POST", f"{served}/ask/stream", json={"question": QUESTION, "no_cache": True},
                      headers=AUTH, timeout=120) as response:
        for line in response.iter_lines():
            if line.startswith("event: token"):
                break  # leave in the middle of the generation
    deadline = time.monotonic() + 30
    while httpx.get(f"{served}/health", timeout=30).json()["in_flight"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert httpx.get(f"{served}/health", timeout=30).json()["in_flight"] == 0
    again = httpx.post(f"{served}/ask", json={"question": QUESTION, "no_cache": True}, headers=AUTH,
                       timeout=120).json()
    assert again["answer"] == expected["answer"]  # an interrupted generation leaves the engine sound


def test_serve_eight_concurrent_clients(served):
    questions = [QUESTION, "How long is the ferry crossing to Calder?",
                 "What is the boiling point of liquid nitrogen?",
                 "When did Paolo Marchetti design the harbor lights of Port Vessany?"] * 2
    results: dict[int, dict[str, Any]] = {}
    barrier = threading.Barrier(len(questions))

    def client(i: int) -> None:
        body = {"question": questions[i], "no_cache": True}
        barrier.wait()
        if i % 2:
            results[i] = httpx.post(f"{served}/ask", json=body, headers=AUTH, timeout=300).json()
            return
        with httpx.stream("POST", f"{served}/ask/stream", json=body, headers=AUTH, timeout=300) as response:
            events = sse_events(response.iter_lines())
        assert [e["type"] for e in events].count("final") == 1
        results[i] = events[-1]["result"]

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(questions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert sorted(results) == list(range(8))
    assert all(r["exit_reason"] == "COMPLETED" for r in results.values())
    for i in range(4):  # the same question gets the same result, whichever client and endpoint asked it
        assert results[i]["answer"] == results[i + 4]["answer"]
        assert results[i]["abstained"] == results[i + 4]["abstained"]
    assert not results[0]["abstained"] and results[2]["abstained"]
