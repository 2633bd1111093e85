"""The HTTP API (groundqa.serve.app) over real HTTP: uvicorn on 127.0.0.1 in a thread, a scripted LM,
a real Chroma store. Input errors, the SSE stream and its one final event, disconnects, concurrency,
the bearer token, /health; plus the LM path's per-call timeout and key checks (no server needed)."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
import httpx
import pytest
import uvicorn
from sse import sse_events

from groundqa.cli.main import main
from groundqa.config import load_settings
from groundqa.datasets.loaders import load_corpus
from groundqa.lm.errors import LMBackendError
from groundqa.lm.factory import build_lm, check_model_string
from groundqa.lm.scripted import ScriptedLM
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.retriever import Retriever
from groundqa.runtime.guarded_lm import MIN_CALL_TIMEOUT_S, GuardedLM, takes_timeout
from groundqa.runtime.retrieval_cache import RetrievalCache
from groundqa.runtime.run import Budgets, RunState
from groundqa.serve.app import create_app
from groundqa.serve.lm_server import bind
from groundqa.signatures.types import ExitReason, GroundedResult
from groundqa.store.chroma_store import CorpusStore

LM_FIRST = {"extractive_first": 1.0}  # the LM is asked first: these tests exercise its path

QUESTION = "Who designed the harbor lights of Port Vessany?"
GOOD = {"answer": "The harbor lights were designed by engineer Odile Marchetti [1]."}
TOKEN = "test-token-5b1e9c0d7f"
FAST = Budgets(backoff_base_s=0.001, backoff_max_s=0.002)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    store = CorpusStore(tmp_path_factory.mktemp("chroma"))
    store.ingest(load_corpus(Path(__file__).parents[1] / "datasets/demo/corpus.jsonl").items, 400, 80)
    return store


class Recorder:
    """A program that keeps every result it returns (what a disconnected client never sees)."""

    def __init__(self, program: GroundedQA) -> None:
        self.program = program
        self.results: list[GroundedResult] = []
        self.config = program.config
        self.retriever = program.retriever

    def run(self, question: str, **kwargs: Any) -> GroundedResult:
        result = self.program.run(question, **kwargs)
        self.results.append(result)
        return result


def make_program(store: CorpusStore, **config: Any) -> Recorder:
    config.setdefault("budgets", FAST)
    return Recorder(GroundedQA(Retriever(store, k=3, cache=RetrievalCache()), QAConfig.for_lm("embedded", **{**LM_FIRST, **config})))


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` on uvicorn, 127.0.0.1 and a free port, in a thread; stopped on exit."""
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "the test server did not start"
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def api(store: CorpusStore, responder: Any = lambda m: GOOD, latency_s: float = 0.0, token: str | None = None,
        tracking_uri: str | None = None, **config: Any) -> tuple[Any, Recorder, ScriptedLM]:
    program = make_program(store, **config)
    lm = ScriptedLM(responder, latency_s=latency_s)
    app = create_app(program, lm=GuardedLM(lm), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False),
                     token=token, tracking_uri=tracking_uri)
    return app, program, lm




# -- input errors: 400 before any stream and any LM call -------------------------------------------
BAD = [
    ({"question": ""}, "EMPTY_INPUT", "empty"),
    ({"question": "   \n\t"}, "EMPTY_INPUT", "empty"),
    ({"question": "who\x00 designed it?"}, "INVALID_INPUT", "control characters"),
    ({"question": "?!? ..."}, "INVALID_INPUT", "no words"),
    ({"question": "x" * 1001}, "INVALID_INPUT", "limit 1000"),
    ({"question": 42}, "INVALID_INPUT", "question"),
    ({}, "INVALID_INPUT", "question: Field required"),
    ({"question": "Who?", "format": "poem"}, "INVALID_INPUT", "format"),
]


def test_bad_input_is_400_before_any_stream_or_lm_call(store):
    app, program, lm = api(store)
    with serving(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        for body, reason, words in BAD:
            for path in ("/ask", "/ask/stream"):
                response = client.post(path, json=body)
                assert response.status_code == 400, (path, body, response.text)
                assert response.headers["content-type"].startswith("application/json")  # no stream began
                data = response.json()
                assert data["exit_reason"] == reason and words in data["detail"], data
                assert "\n" not in data["detail"] and "Traceback" not in response.text
        broken = client.post("/ask", content=b"{not json", headers={"content-type": "application/json"})
        assert broken.status_code == 400 and "JSON" in broken.json()["detail"]
    assert lm.calls == 0 and program.results == []


# -- /ask and /ask/stream --------------------------------------------------------------------------
def test_ask_returns_the_result_and_the_stream_ends_in_one_final_equal_to_it(store):
    app, program, lm = api(store)
    with serving(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        plain = client.post("/ask", json={"question": QUESTION})
        assert plain.status_code == 200
        result = GroundedResult.model_validate(plain.json())
        assert result.exit_reason is ExitReason.COMPLETED and not result.abstained
        assert "Marchetti" in result.answer and result.citations
        with client.stream("POST", "/ask/stream", json={"question": QUESTION}) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            events = sse_events(response.iter_lines())
    kinds = [e["type"] for e in events]
    assert all(e["event"] == e["type"] for e in events)
    assert kinds.count("final") == 1 and kinds[-1] == "final"
    assert {"retrieval_start", "retrieval_end", "token", "attempt"} <= set(kinds)
    final = events[-1]
    assert final["exit_reason"] == "COMPLETED" == final["result"]["exit_reason"]
    streamed = GroundedResult.model_validate(final["result"])
    assert streamed.answer == result.answer
    assert [c.chunk_id for c in streamed.citations] == [c.chunk_id for c in result.citations]
    assert "".join(e["text"] for e in events if e["type"] == "token").strip().startswith("[[ ## answer ## ]]")


def test_stream_reports_a_run_stopped_by_the_lm_in_its_final_event(store):
    def failing(messages: Any) -> Any:
        from dspy.utils.exceptions import LMRateLimitError

        raise LMRateLimitError("rate limited", model="scripted/lm", status=429)

    app, _, lm = api(store, failing)
    with serving(app) as url, httpx.Client(base_url=url, timeout=60) as client, \
            client.stream("POST", "/ask/stream", json={"question": QUESTION}) as response:
        events = sse_events(response.iter_lines())
    assert [e["type"] for e in events].count("final") == 1
    assert events[-1]["exit_reason"] == "RATE_LIMITED" and events[-1]["result"]["abstained"]
    assert lm.calls == 1 + FAST.max_lm_retries


# -- disconnects stop the run ----------------------------------------------------------------------
def _wait_for(predicate: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_client_that_disconnects_mid_stream_stops_its_run(store):
    # every answer breaks the citation contract: a full run makes 3 slow LM calls (attempts)
    app, program, lm = api(store, lambda m: {"answer": "No citation here."}, latency_s=1.0, max_attempts=3)
    with serving(app) as url:
        started = time.monotonic()
        with httpx.Client(base_url=url, timeout=30) as client, \
                client.stream("POST", "/ask/stream", json={"question": QUESTION}) as response:
            for line in response.iter_lines():
                if line.startswith("event: retrieval_end"):
                    break  # the client goes away while the run is in its first LM call
        _wait_for(lambda: program.results)
        assert program.results, "the run did not end after the client left"
        assert time.monotonic() - started < 2.9  # well before the 3 s a full run takes
        _wait_for(lambda: not app.state.active_runs, 5)
        assert not app.state.active_runs
    result = program.results[0]
    assert result.exit_reason is ExitReason.TIMEOUT and "disconnected" in result.abstain_message
    assert lm.calls <= 1


def test_a_client_that_disconnects_from_ask_stops_its_run(store):
    app, program, lm = api(store, lambda m: {"answer": "No citation here."}, latency_s=1.0, max_attempts=3)
    with serving(app) as url:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{url}/ask", json={"question": QUESTION}, timeout=0.5)
        _wait_for(lambda: program.results)
    assert program.results and program.results[0].exit_reason is ExitReason.TIMEOUT
    assert "disconnected" in program.results[0].abstain_message and lm.calls <= 1


# -- concurrency -----------------------------------------------------------------------------------
def test_concurrent_clients_are_served_at_once(store):
    app, program, lm = api(store, latency_s=1.0)
    with serving(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        client.post("/ask", json={"question": QUESTION})  # warm: retrieval cache, judge embeddings
        started = time.monotonic()
        barrier = threading.Barrier(8)
        answers: list[Any] = []

        def one(i: int) -> None:
            barrier.wait()
            path = "/ask" if i % 2 else "/ask/stream"
            response = client.post(path, json={"question": QUESTION})
            answers.append(response.json() if i % 2 else sse_events(iter(response.text.splitlines()))[-1]["result"])

        threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        wall = time.monotonic() - started
    assert len(answers) == 8 and all(a["exit_reason"] == "COMPLETED" for a in answers)
    assert len({a["answer"] for a in answers}) == 1
    assert lm.calls == 9
    assert wall < 6.0, f"8 one-second LM calls took {wall:.1f}s: requests were not served concurrently"


# -- the bearer token ------------------------------------------------------------------------------
def test_token_guards_every_endpoint_but_health_and_is_never_logged(store, caplog):
    caplog.set_level(logging.DEBUG)
    app, _, lm = api(store, token=TOKEN)
    with serving(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        for method, path in [("POST", "/ask"), ("POST", "/ask/stream"), ("GET", "/docs"), ("GET", "/openapi.json")]:
            body = {"json": {"question": QUESTION}} if method == "POST" else {}
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"},
                            {"Authorization": f"Bearer {TOKEN}x"}):
                response = client.request(method, path, headers=headers, **body)
                assert response.status_code == 401, (path, headers)
                assert response.headers["www-authenticate"] == "Bearer" and TOKEN not in response.text
        assert lm.calls == 0
        assert client.get("/health").status_code == 200
        good = {"Authorization": f"Bearer {TOKEN}"}
        assert client.get("/docs", headers=good).status_code == 200
        schema = client.get("/openapi.json", headers=good).json()
        assert {"/ask", "/ask/stream", "/health"} <= set(schema["paths"])
        assert client.post("/ask", json={"question": QUESTION}, headers=good).json()["exit_reason"] == "COMPLETED"
        assert client.post("/ask", json={"question": ""}, headers=good).status_code == 400
    assert all(TOKEN not in record.getMessage() for record in caplog.records)


# -- /health ---------------------------------------------------------------------------------------
def test_health_reports_store_lm_and_tracking(store):
    app, _, _ = api(store, tracking_uri="http://user:hunter22@127.0.0.1:9/?token=s3cr3t")
    with serving(app) as url:
        health = httpx.get(f"{url}/health", timeout=30)
    data = health.json()
    assert health.status_code == 200 and data["status"] == "degraded"  # tracking down: answers still work
    assert data["store"]["chunks"] == store.count() > 0
    assert data["lm"]["model"] == "scripted/lm" and data["lm"]["in_process"] is True
    assert data["tracking"]["reachable"] is False and "hunter22" not in health.text and "s3cr3t" not in health.text
    assert data["tracking"]["uri"] == "http://user:***REDACTED***@127.0.0.1:9/?token=***REDACTED***"


class Warming(Recorder):
    """A program with a warm-up, as GroundedQA has: recorded, or failing with ``fail``."""

    def __init__(self, program: GroundedQA, fail: Exception | None = None) -> None:
        super().__init__(program)
        self.fail, self.warmed = fail, 0

    def warm_up(self) -> list[str]:
        if self.fail is not None:
            raise self.fail
        self.warmed += 1
        return ["wordnet", "answer judge"]


def test_the_server_loads_before_the_first_question(store, caplog):
    program = Warming(make_program(store).program)
    app = create_app(program, lm=GuardedLM(ScriptedLM(lambda m: GOOD)))
    with caplog.at_level(logging.INFO, logger="groundqa.serve"), serving(app) as url:
        assert program.warmed == 1  # during start-up, before the server listens
        assert httpx.get(f"{url}/health", timeout=30).status_code == 200
    assert program.warmed == 1 and "loaded before the first question: wordnet, answer judge" in caplog.text


def test_a_failed_warm_up_is_one_line_and_the_server_still_starts(store, caplog):
    failure = LMBackendError("the answer judge's adapter is damaged (sha256 mismatch)\nTraceback: details")
    app = create_app(Warming(make_program(store).program, fail=failure), lm=GuardedLM(ScriptedLM(lambda m: GOOD)))
    with caplog.at_level(logging.INFO, logger="groundqa.serve"), serving(app) as url:
        assert httpx.get(f"{url}/health", timeout=30).status_code == 200
    assert "could not load before the first question: the answer judge's adapter is damaged" in caplog.text
    assert "Traceback" not in caplog.text


def test_health_is_503_when_the_store_is_down(store):
    class DownStore:
        collection_name = "groundqa"

        def count(self) -> int:
            raise RuntimeError("cannot reach the Chroma server at http://127.0.0.1:9")

    program = make_program(store)
    app = create_app(program, lm=GuardedLM(ScriptedLM(lambda m: GOOD)), store=DownStore())
    with serving(app) as url:
        health = httpx.get(f"{url}/health", timeout=30)
    assert health.status_code == 503 and health.json()["status"] == "unavailable"
    assert "cannot reach" in health.json()["store"]["error"]


# -- the LM path over HTTP: per-call timeout, max_tokens, keys (no server needed) -----------------
def test_only_http_lms_take_a_per_call_timeout(tmp_path, monkeypatch):
    from groundqa.lm.embedded import EmbeddedLM

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-abcdefghijklmnopqrstuvwxyz")
    settings = load_settings(home=tmp_path, lm="openai/gemma", api_base="http://127.0.0.1:9/v1")
    http = build_lm(settings)
    assert takes_timeout(http) and http.engine == "litellm" and http.kwargs["max_tokens"] == settings.max_tokens
    assert not takes_timeout(ScriptedLM(lambda m: GOOD))
    assert not takes_timeout(EmbeddedLM(cache_dir=tmp_path))  # the model is loaded on first use only

    guard = GuardedLM(http)
    run = RunState(budgets=Budgets(timeout_s=10))
    run.started -= 4.0
    assert 5.5 < guard.call_timeout(run) <= 6.0
    run.started -= 10.0
    assert guard.call_timeout(run) == MIN_CALL_TIMEOUT_S
    assert GuardedLM(ScriptedLM(lambda m: GOOD)).call_timeout(run) is None


def test_a_per_call_timeout_never_splits_the_response_cache():
    from dspy.clients import execution

    assert "timeout" in execution.IGNORED_CACHE_KEYS


def test_missing_key_is_exit_2_with_or_without_api_base(home, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for extra in ([], ["--api-base", "http://127.0.0.1:9/v1"]):
        code = main(["ask", QUESTION, "--home", str(home), "--lm", "openai/gemma", *extra])
        err = capsys.readouterr().err
        assert code == 2 and "OPENAI_API_KEY" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    with pytest.raises(LMBackendError, match="hosted_vllm"):
        check_model_string("openai/gemma", "http://127.0.0.1:9/v1")
    assert check_model_string("hosted_vllm/gemma", "http://127.0.0.1:9/v1") == "hosted_vllm"  # keyless


def test_serve_refuses_a_port_in_use_in_one_line(home, capsys):
    taken = bind("127.0.0.1", 0)
    try:
        code = main(["serve", "--home", str(home), "--port", str(taken.getsockname()[1])])
    finally:
        taken.close()
    err = capsys.readouterr().err
    assert code == 2 and "cannot listen on 127.0.0.1" in err and "Traceback" not in err


def test_serve_benchmark_load_helper_counts_requests_and_errors(store):
    import sys

    repo = str(Path(__file__).resolve().parents[1])
    if repo not in sys.path:
        sys.path.insert(0, repo)
    from benchmarks.serve import load

    app, _, lm = api(store)
    with serving(app) as url:
        figures = load(url, clients=4, requests=10, no_cache=False)
    assert figures["clients"] == 4 and figures["requests"] == 10 and figures["errors"] == 0
    assert figures["rps"] > 0 and figures["p50_ms"] <= figures["p95_ms"]


# -- MLflow traces from the API ----------------------------------------------------------------------
def test_api_questions_leave_mlflow_traces_with_retriever_spans(store, home: Path):
    import mlflow

    from groundqa.tracking.traces import command_tracer, flush_traces

    settings = load_settings(home=home)
    tracer = command_tracer(settings, "api", label="baseline")
    assert tracer.enabled, tracer.reason
    program = make_program(store)
    app = create_app(program, lm=GuardedLM(ScriptedLM(lambda m: GOOD)),
                     adapter=dspy.ChatAdapter(use_json_adapter_fallback=False), tracer=tracer)
    with serving(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert client.post("/ask", json={"question": "Who designed the harbor lights?"}).status_code == 200
        with client.stream("POST", "/ask/stream", json={"question": "How long is the ferry crossing?"}) as r:
            finals = [e for e in sse_events(r.iter_lines()) if e["event"] == "final"]
        assert len(finals) == 1
    flush_traces()
    mlflow.set_tracking_uri(settings.tracking_uri)
    experiment = mlflow.get_experiment_by_name("groundqa-api")
    traces = mlflow.search_traces(experiment_ids=[experiment.experiment_id], return_type="list")
    assert {t.data.spans[0].inputs["question"] for t in traces} >= {"Who designed the harbor lights?",
                                                                     "How long is the ferry crossing?"}
    assert all(any(s.span_type == "RETRIEVER" for s in t.data.spans) for t in traces)
