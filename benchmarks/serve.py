"""Serving load figures: ``python -m benchmarks run --suite serve [--quick]``.

Two parts:

* **Load on the embedded default.** ``groundqa serve`` runs as a real server (a subprocess, the demo
  corpus, the embedded Gemma 3 270M); 1, 4 and 16 concurrent clients (threads with their own HTTP
  connections) send ``POST /ask`` over a fixed mix of answerable and abstaining questions, cached
  (every question asked once before) and uncached (``no_cache``). Requests per second and p50/p95
  latency per level, each next to the single-process figure: the same questions through
  ``GroundedQA.run`` in this process, one after another.
* **Server overhead per request.** The API in this process (uvicorn in a thread) around a program
  whose LM answers instantly (scripted) with a warm retrieval cache: ``POST /ask`` and
  ``POST /ask/stream`` against ``GroundedQA.run`` called directly; the difference is what HTTP, JSON,
  SSE and the thread hand-off cost per request. Client and server share this process (and its GIL),
  so the figure is an upper bound.

The embedded LM runs one generation at a time (its lock), so on 2 cores uncached throughput stays
near the single-process figure whatever the concurrency; concurrency buys latency for the questions
that need no LM call (abstentions) and for cached ones.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.meters import percentile
from benchmarks.registry import register
from benchmarks.suite_setup import load_average_text, quiet_logs, say, scratch_dir

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "datasets" / "demo" / "corpus.jsonl"
QUESTIONS = [
    "Who designed the harbor lights of Port Vessany?",
    "How long does the ferry crossing to Calder take?",
    "When was the Lorvin Maritime Library opened?",
    "How many people live on Calder Island?",
    "What is the boiling point of liquid nitrogen?",
    "When did Paolo Marchetti design the harbor lights of Port Vessany?",
]
LEVELS = (1, 4, 16)
INSTANT = {"answer": "The harbor lights were designed by engineer Odile Marchetti [1]."}


def summarise(latencies_s: list[float], wall_s: float, errors: int = 0) -> dict[str, Any]:
    """req/s, p50/p95/mean latency (ms) of one measured batch."""
    ms = [x * 1000 for x in latencies_s]
    return {"requests": len(ms), "errors": errors, "wall_s": round(wall_s, 3),
            "rps": round(len(ms) / wall_s, 3) if wall_s > 0 else None,
            "p50_ms": percentile(ms, 50), "p95_ms": percentile(ms, 95),
            "mean_ms": round(statistics.fmean(ms), 3) if ms else None}


def load(url: str, clients: int, requests: int, no_cache: bool, path: str = "/ask") -> dict[str, Any]:
    """``requests`` POSTs from ``clients`` concurrent clients (each its own connection), questions in turn."""
    import httpx

    counter = itertools.count()
    lock = threading.Lock()
    latencies: list[float] = []
    errors = 0
    barrier = threading.Barrier(clients)

    def client() -> None:
        nonlocal errors
        with httpx.Client(base_url=url, timeout=600) as http:
            barrier.wait()
            while (i := next(counter)) < requests:
                started = time.perf_counter()
                try:
                    response = http.post(path, json={"question": QUESTIONS[i % len(QUESTIONS)], "no_cache": no_cache})
                    ok = response.status_code == 200
                except httpx.HTTPError:
                    ok = False
                took = time.perf_counter() - started
                with lock:
                    latencies.append(took)
                    errors += not ok

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"clients": clients, **summarise(latencies, time.perf_counter() - started, errors)}


def sequential(run: Callable[[str], Any], requests: int) -> dict[str, Any]:
    """``requests`` calls of ``run`` one after another, questions in turn."""
    latencies = []
    started = time.perf_counter()
    for i in range(requests):
        t0 = time.perf_counter()
        run(QUESTIONS[i % len(QUESTIONS)])
        latencies.append(time.perf_counter() - t0)
    return summarise(latencies, time.perf_counter() - started)


# -- the single-process figure -----------------------------------------------------------------------
def single_process(home: Path, requests: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """(cached, uncached) figures of ``GroundedQA.run`` on the embedded default in this process."""
    from groundqa.app import build_program, configure_lm
    from groundqa.config import load_settings
    from groundqa.ingest import ensure_corpus

    settings = load_settings(home=home)
    configure_lm(settings)
    ensure_corpus(settings)
    program = build_program(settings)
    for question in QUESTIONS:  # load the model, MiniLM and the judge; fill the caches for the cached run
        program.run(question)
    cached = sequential(lambda q: program.run(q), requests)
    uncached = sequential(lambda q: program.run(q, use_cache=False), requests)
    return cached, uncached


# -- the real server -----------------------------------------------------------------------------------
@contextlib.contextmanager
def groundqa_serve(home: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``groundqa serve --port 0`` on ``home`` (no token), stopped on exit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GROUNDQA_")}
    process = subprocess.Popen([sys.executable, "-m", "groundqa.cli.main", "serve", "--port", "0", "--home", str(home),
                                "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, env=env, cwd=REPO, start_new_session=True)
    try:
        assert process.stdout is not None
        url = None
        for line in process.stdout:  # the server prints its address once it is ready to accept
            match = re.search(r"serving on (http://\S+)", line)
            if match:
                url = match.group(1)
                break
        if url is None:
            raise RuntimeError("groundqa serve did not start")
        threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()  # type: ignore[union-attr]
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def server_load(home: Path, requests_for: Callable[[int], int]) -> dict[str, list[dict[str, Any]]]:
    """Per cache mode, the figure of each concurrency level against a real ``groundqa serve``."""
    import httpx

    results: dict[str, list[dict[str, Any]]] = {"cached": [], "uncached": []}
    with groundqa_serve(home) as (url, _):
        for question in QUESTIONS:  # warm: model, MiniLM, judge, and the caches of the cached runs
            httpx.post(f"{url}/ask", json={"question": question}, timeout=600)
        for mode in ("cached", "uncached"):
            for clients in LEVELS:
                say(f"serve: {mode}, {clients} client(s), {requests_for(clients)} requests (load {load_average_text()})")
                results[mode].append(load(url, clients, requests_for(clients), no_cache=mode == "uncached"))
    return results


# -- server overhead with a zero-latency LM ------------------------------------------------------------
def overhead(store_dir: Path, requests: int) -> dict[str, Any]:
    """p50/p95 of GroundedQA.run called directly vs through POST /ask and /ask/stream, instant LM."""
    import dspy
    import httpx
    import uvicorn

    from groundqa.datasets.loaders import load_corpus
    from groundqa.lm.scripted import ScriptedLM
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig
    from groundqa.programs.retriever import Retriever
    from groundqa.runtime.guarded_lm import GuardedLM
    from groundqa.runtime.retrieval_cache import RetrievalCache
    from groundqa.serve.app import create_app
    from groundqa.serve.lm_server import bind
    from groundqa.store.chroma_store import CorpusStore

    store = CorpusStore(store_dir)
    store.ingest(load_corpus(DEMO).items)
    lm = GuardedLM(ScriptedLM(lambda m: INSTANT))
    adapter = dspy.ChatAdapter(use_json_adapter_fallback=False)
    program = GroundedQA(Retriever(store, k=4, cache=RetrievalCache()), QAConfig.for_lm("embedded"))
    direct_run = _in_dspy_context(lm, adapter, lambda q: program.run(q))
    for question in QUESTIONS * 2:  # warm the retrieval cache, the judge, imports
        direct_run(question)
    direct = sequential(direct_run, requests)

    app = create_app(program, lm=lm, adapter=adapter)
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            def post(path: str) -> Callable[[str], Any]:
                def call(question: str) -> Any:
                    response = http.post(path, json={"question": question})
                    response.raise_for_status()
                    return response.content
                return call

            for question in QUESTIONS:
                post("/ask")(question)
            ask = sequential(post("/ask"), requests)
            streamed = sequential(post("/ask/stream"), requests)
        concurrent = load(url, 16, requests, no_cache=False)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
    return {"direct": direct, "ask": ask, "stream": streamed, "concurrent_16": concurrent,
            "overhead_ask_p50_ms": round(ask["p50_ms"] - direct["p50_ms"], 3),
            "overhead_stream_p50_ms": round(streamed["p50_ms"] - direct["p50_ms"], 3)}


def _in_dspy_context(lm: Any, adapter: Any, fn: Callable[[str], Any]) -> Callable[[str], Any]:
    import dspy

    def call(question: str) -> Any:
        with dspy.context(lm=lm, adapter=adapter):
            return fn(question)

    return call


# -- the suite -----------------------------------------------------------------------------------------
@register("serve")
def serve_suite(args: argparse.Namespace) -> dict[str, Any]:
    """Load figures of ``groundqa serve`` on the embedded default, and the server's own overhead."""
    quick = bool(getattr(args, "quick", False))
    quiet_logs()
    single_n = 6 if quick else 24
    overhead_n = 30 if quick else 200

    def requests_for(clients: int) -> int:
        return max(clients, 8) if quick else max(2 * clients, 24)

    load_before = load_average_text()
    with scratch_dir("groundqa-bench-serve-") as tmp:
        say("serve: server overhead with an instant LM ...")
        over = overhead(tmp / "overhead-chroma", overhead_n)
        say(f"serve: single-process ask, {single_n} questions cached and uncached ...")
        single_home = tmp / "single"
        cached_single, uncached_single = single_process(single_home, single_n)
        served_home = tmp / "served"
        models = single_home / "cache" / "models"
        if models.is_dir():  # the server's home gets the assembled model without assembling it again
            shutil.copytree(models, served_home / "cache" / "models", copy_function=_link_or_copy)
        levels = server_load(served_home, requests_for)
    load_after = load_average_text()

    single = {"cached": cached_single, "uncached": uncached_single}
    rows = []
    for mode in ("cached", "uncached"):
        base = single[mode]
        for level in levels[mode]:
            rows.append([mode, level["clients"], level["requests"], level["errors"], level["rps"], level["p50_ms"],
                         level["p95_ms"], base["rps"], base["p50_ms"], base["p95_ms"]])
    over_rows = [[name, over[key]["requests"], over[key]["p50_ms"], over[key]["p95_ms"], over[key]["rps"]]
                 for name, key in (("GroundedQA.run, direct", "direct"), ("POST /ask", "ask"),
                                   ("POST /ask/stream", "stream"), ("POST /ask, 16 clients", "concurrent_16"))]
    top_uncached = levels["uncached"][-1]
    top_cached = levels["cached"][-1]
    results = {"config": {"questions": QUESTIONS, "levels": list(LEVELS), "single_requests": single_n,
                          "overhead_requests": overhead_n, "requests_per_level": {c: requests_for(c) for c in LEVELS}},
               "single_process": single, "server": levels, "overhead": over,
               "load_average": {"before": load_before, "after": load_after}}
    return {
        "title": "groundqa serve: load on the embedded default, and the server's overhead",
        "config": results["config"],
        "results": results,
        "tables": [
            {"title": "POST /ask against groundqa serve (embedded Gemma 3 270M, demo corpus) next to the "
                      "single-process ask (GroundedQA.run, one question after another, same cache mode)",
             "columns": ["cache", "clients", "requests", "errors", "req/s", "p50 ms", "p95 ms",
                         "single-process req/s", "single-process p50 ms", "single-process p95 ms"],
             "rows": rows},
            {"title": "Server overhead per request (zero-latency scripted LM, warm retrieval cache; client and "
                      "server in one process)",
             "columns": ["path", "requests", "p50 ms", "p95 ms", "req/s"], "rows": over_rows},
        ],
        "notes": [
            f"Load average (1/5/15 min) before {load_before}, after {load_after}.",
            "Uncached: the request sets no_cache (LM and retrieval caches bypassed); cached: every question was "
            "asked once before, so answers come from DSPy's LM cache and the retrieval cache.",
            "The embedded LM generates one answer at a time (its lock); more clients do not add LM throughput "
            "on 2 cores, they overlap the work around the LM calls and the questions that need none.",
            f"Server overhead p50: {over['overhead_ask_p50_ms']:.1f} ms for POST /ask, "
            f"{over['overhead_stream_p50_ms']:.1f} ms for POST /ask/stream (over the direct call).",
        ],
        "headline": [
            f"serve uncached, 16 clients: {top_uncached['rps']:.2f} req/s, p95 {top_uncached['p95_ms'] / 1000:.1f} s "
            f"(single-process {uncached_single['rps']:.2f} req/s); cached, 16 clients: {top_cached['rps']:.1f} req/s",
            f"server overhead per request p50 {over['overhead_ask_p50_ms']:.1f} ms (/ask), "
            f"{over['overhead_stream_p50_ms']:.1f} ms (/ask/stream)",
        ],
    }


def _link_or_copy(src: str, dst: str) -> str:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
    return dst
