"""The groundqa HTTP API (FastAPI): ``POST /ask``, ``POST /ask/stream`` (SSE), ``GET /health``, ``/docs``.

The same runtime behaviour as the CLI and the Python API, over HTTP:

* ``POST /ask`` → the :class:`~groundqa.signatures.types.GroundedResult` JSON.
* ``POST /ask/stream`` → the typed events of :func:`groundqa.runtime.streaming.stream` as server-sent
  events (``event: <type>``, ``data: <the event as JSON>``), ending in exactly one ``final`` event that
  carries the whole result and its exit reason.
* Empty or invalid input → HTTP 400 ``{"detail", "exit_reason"}`` before any stream starts and without
  any LM call (the program's own pre-contract, :func:`~groundqa.programs.grounded_qa.check_question`).
* A client that disconnects stops its run (:mod:`groundqa.serve.control`); so does shutting down.
* Requests run concurrently in a thread pool; the embedded LM's own lock serialises only its calls,
  while retrieval, premise checks and contracts of other requests go on.
* An optional bearer token guards every endpoint but ``/health`` (compared in constant time, never
  logged).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal
from urllib.parse import urlsplit

import dspy
from fastapi import FastAPI, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.security import HTTPBearer
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from groundqa import __version__
from groundqa.programs.grounded_qa import check_question
from groundqa.runtime.redact import redact_text
from groundqa.runtime.streaming import stream
from groundqa.serve.control import ControlledProgram, RunControl
from groundqa.signatures.types import ExitReason, GroundedResult
from groundqa.tracking.traces import lookup_for

log = logging.getLogger("groundqa.serve")

OPEN_PATHS = frozenset({"/health"})
"""Paths served without the bearer token (load balancers and probes must reach them)."""


class AskRequest(BaseModel):
    """One question."""

    question: str = Field(description="the question, in plain text",
                          examples=["Who designed the harbor lights of Port Vessany?"])
    format: Literal["auto", "prose", "bullets", "table", "steps"] | None = Field(
        default=None, description="answer format (default: detected from the question)")
    no_cache: bool = Field(default=False, description="bypass the LM and retrieval caches for this question")


class ErrorResponse(BaseModel):
    """A request that was refused: one line saying why, and the exit reason when it is the input's fault."""

    detail: str
    exit_reason: ExitReason | None = None


def _shown(url: str | None) -> str | None:
    """A URL as /health shows it: passwords, tokens and secret query values masked (one redaction for the
    whole project: :func:`groundqa.runtime.redact.redact_text`)."""
    return redact_text(url) if url else url


def _digest(value: str | bytes) -> bytes:
    return hashlib.sha256(value.encode() if isinstance(value, str) else value).digest()


class BearerAuth:
    """ASGI middleware: every path but :data:`OPEN_PATHS` needs ``Authorization: Bearer <token>``.

    Both sides are hashed before ``hmac.compare_digest``, so the comparison takes the same time whatever
    the presented value, its length included. Neither the token nor the presented value is logged."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = _digest(token)

    def authorized(self, header: bytes) -> bool:
        scheme, _, value = header.partition(b" ")
        return hmac.compare_digest(_digest(value.strip()), self._expected) and scheme.lower() == b"bearer"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        header = next((v for k, v in scope.get("headers", []) if k == b"authorization"), b"")
        if self.authorized(header):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"detail": "missing or wrong bearer token"}).encode()
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def sse_frame(event: dict[str, Any]) -> bytes:
    """One server-sent event: ``event: <type>`` and the event as one line of JSON."""
    return f"event: {event.get('type', 'message')}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n".encode()


def final_event(result: dict[str, Any] | None, error: str | None = None) -> dict[str, Any]:
    """The one ``final`` event: the whole result and, next to it, its exit reason (``None`` with an error)."""
    event: dict[str, Any] = {"type": "final", "exit_reason": result.get("exit_reason") if result else None,
                             "result": result}
    if error is not None:
        event["error"] = error
    return event


def describe_lm(lm: Any) -> dict[str, Any]:
    """The LM as /health reports it: model, whether it runs in process, its server (no credentials) and,
    for the embedded engine, how many generations it has run."""
    inner = getattr(lm, "inner", lm)
    model = getattr(inner, "model", None) or type(inner).__name__
    kwargs = getattr(inner, "kwargs", {}) or {}
    api_base = kwargs.get("api_base") or kwargs.get("base_url")
    described: dict[str, Any] = {"model": model, "in_process": not isinstance(getattr(inner, "engine", None), str),
                                 "api_base": _shown(api_base)}
    stats = getattr(getattr(inner, "llama", None), "stats", None)  # the embedded engine counts its calls
    if isinstance(stats, dict):
        described["calls"] = stats.get("calls", 0)
    return described


def tracking_status(uri: str | None, timeout: float = 1.0) -> dict[str, Any]:
    """The tracking store: its URI (without credentials) and, for a server, whether it answers."""
    if not uri:
        return {"uri": None, "kind": "none"}
    scheme = urlsplit(uri).scheme
    status: dict[str, Any] = {"uri": _shown(uri), "kind": "server" if scheme in ("http", "https") else "local"}
    if status["kind"] == "server":
        import requests

        try:
            response = requests.get(uri.rstrip("/") + "/health", timeout=timeout)
            status["reachable"] = response.ok
        except requests.RequestException as exc:
            status["reachable"], status["error"] = False, type(exc).__name__
    return status


def create_app(program: Any, *, lm: Any = None, adapter: Any = None, store: Any = None, token: str | None = None,
               tracking_uri: str | None = None, max_concurrency: int = 32, tracer: Any = None,
               on_ready: Callable[[], None] | None = None) -> FastAPI:
    """The API around ``program`` (a GroundedQA, or anything with ``run(question, **kwargs)`` and a
    ``config.max_question_chars``).

    ``lm`` / ``adapter``: used under ``dspy.context`` in every request (default: DSPy's configured ones).
    ``store``: what /health counts (default: ``program.retriever.store``). ``token``: the bearer token, or
    ``None`` for an open API. ``max_concurrency``: questions run at once; more wait for a thread.
    ``tracer``: a :class:`groundqa.tracking.traces.QuestionTracer`; every question then leaves an MLflow
    trace built from its run's records (as ``ask`` and ``evaluate`` do). ``on_ready``: called once start-up (the
    warm-up) is done, when requests are answered (the CLI announces its URL there, not before)."""
    executor = ThreadPoolExecutor(max_workers=max(1, max_concurrency), thread_name_prefix="groundqa-serve")
    active: set[RunControl] = set()
    started = time.time()
    max_chars = int(getattr(getattr(program, "config", None), "max_question_chars", 1000))
    store = store if store is not None else getattr(getattr(program, "retriever", None), "store", None)
    dspy_lm = lm

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        warm_up = getattr(program, "warm_up", None)  # the answer judge and WordNet, before the first question
        if callable(warm_up):
            try:
                loaded = await asyncio.get_running_loop().run_in_executor(executor, warm_up)
                log.info("loaded before the first question: %s", ", ".join(loaded) or "nothing")
            except Exception as exc:  # the first question meets the same error, as a one-line result
                log.warning("could not load before the first question: %s",
                            (redact_text(str(exc)).splitlines() or [type(exc).__name__])[0])
        if on_ready is not None:
            on_ready()
        yield
        for control in list(active):  # a shutdown stops the runs in flight instead of waiting for them
            control.cancel("the server is shutting down")
        executor.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(
        title="groundqa", version=__version__, lifespan=lifespan,
        description="Grounded, cited question answering over a Chroma store. `/ask` returns the result "
                    "object; `/ask/stream` streams the run's events as server-sent events ending in one "
                    "`final` event. Empty or invalid input gets HTTP 400 before any LM call."
                    + (" Every endpoint but `/health` needs `Authorization: Bearer <token>`." if token else ""),
    )
    if token:
        app.add_middleware(BearerAuth, token=token)
    security = [Security(HTTPBearer(auto_error=False))] if token else []  # documents the scheme in /docs

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body' and not isinstance(p, int)) or 'body'}: "
            f"{e.get('msg', 'invalid')}"
            for e in exc.errors())
        return JSONResponse({"detail": f"invalid request: {problems}", "exit_reason": ExitReason.INVALID_INPUT.value},
                            status_code=400)

    def refuse(question: Any) -> JSONResponse | None:
        problem = check_question(question, max_chars)
        if problem is None:
            return None
        reason, message = problem
        return JSONResponse({"detail": message, "exit_reason": reason.value}, status_code=400)

    def kwargs_for(body: AskRequest) -> dict[str, Any]:
        return {"format": body.format, "use_cache": not body.no_cache}

    lookup = lookup_for(program) if tracer is not None and tracer.enabled else None

    def traced(question: str, answer: Callable[[dict[str, Any]], Any]) -> Any:
        """``answer(extra kwargs)``, recording an MLflow trace of the question when a tracer is on."""
        if tracer is None or not tracer.enabled:
            return answer({})
        with tracer.question(question, lookup=lookup) as trace:
            return answer({"trace": trace})

    def in_context(fn: Callable[[], Any]) -> Callable[[], Any]:
        """``fn`` under the app's LM and adapter (when given) in a copy of the caller's context."""
        context = contextvars.copy_context()

        def call() -> Any:
            if dspy_lm is None:
                return context.run(fn)
            settings = {"lm": dspy_lm, **({"adapter": adapter} if adapter is not None else {})}
            return context.run(lambda: _with_dspy(settings, fn))

        return call

    async def until_done(request: Request, future: asyncio.Future[Any], control: RunControl) -> None:
        """Wait for ``future``, stopping its run if the client disconnects meanwhile."""
        while True:
            done, _ = await asyncio.wait({future}, timeout=0.25)
            if done:
                return
            if await request.is_disconnected():
                control.cancel("the client disconnected")
                log.info("client disconnected; run stopped")
                return

    responses: dict[int | str, dict[str, Any]] = {400: {"model": ErrorResponse, "description": "empty or invalid input"}}
    if token:
        responses[401] = {"model": ErrorResponse, "description": "missing or wrong bearer token"}

    @app.post("/ask", response_model=GroundedResult, responses=responses, dependencies=security,
              summary="Answer a question with citations")
    async def ask(body: AskRequest, request: Request) -> Any:
        refused = refuse(body.question)
        if refused is not None:
            return refused
        control = RunControl()
        active.add(control)
        kwargs = kwargs_for(body)
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(executor, in_context(lambda: traced(
                body.question, lambda extra: program.run(body.question, on_event=control.on_event, **kwargs, **extra))))
            await until_done(request, future, control)
            result: GroundedResult = await future
        except Exception as exc:  # a bug, not the input's fault: one line, no traceback to the client
            log.exception("internal error answering a question")
            return JSONResponse({"detail": f"internal error: {type(exc).__name__}"}, status_code=500)
        finally:
            active.discard(control)
        return JSONResponse(result.model_dump(mode="json"))

    @app.post("/ask/stream", responses={**responses, 200: {"content": {"text/event-stream": {}},
                                                           "description": "server-sent events"}},
              dependencies=security, summary="Answer a question, streaming the run's events (SSE)")
    async def ask_stream(body: AskRequest) -> Any:
        refused = refuse(body.question)
        if refused is not None:
            return refused
        return StreamingResponse(_events(body), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def _events(body: AskRequest) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        control = RunControl()
        active.add(control)
        kwargs = kwargs_for(body)

        def post(kind: str, item: Any) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is listening any more
                loop.call_soon_threadsafe(queue.put_nowait, (kind, item))

        def events(extra: dict[str, Any]) -> None:
            for event in stream(ControlledProgram(program, control), body.question, **kwargs, **extra):
                post("event", event.model_dump(mode="json"))

        def produce() -> None:
            try:
                traced(body.question, events)
            except Exception as exc:  # a bug: reported as an error event, then the one final event
                log.exception("internal error streaming a question")
                post("error", f"internal error: {type(exc).__name__}")
            finally:
                post("done", None)

        finished = False
        loop.run_in_executor(executor, in_context(produce))
        try:
            sent_final = False
            while True:
                kind, item = await queue.get()
                if kind == "done":
                    finished = True
                    break
                if kind == "error":
                    yield sse_frame({"type": "error", "message": item})
                    if not sent_final:
                        yield sse_frame(final_event(None, error=item))
                        sent_final = True
                    continue
                if item.get("type") == "final":
                    if sent_final:
                        continue
                    item = final_event(item.get("result"))
                    sent_final = True
                yield sse_frame(item)
        finally:
            active.discard(control)
            if not finished:  # the response was cancelled: the client went away
                control.cancel("the client disconnected")
                log.info("client disconnected from a stream after %d event(s); run stopped", control.events)

    @app.get("/health", summary="Store, LM and tracking status (no token needed)")
    async def health() -> JSONResponse:
        body: dict[str, Any] = {"status": "ok", "version": __version__, "uptime_s": round(time.time() - started, 1),
                                "in_flight": len(active), "lm": describe_lm(dspy_lm or dspy.settings.lm)}
        code = 200
        if store is not None:
            try:
                count = await run_in_threadpool(store.count)
                body["store"] = {"collection": getattr(store, "collection_name", None), "chunks": count,
                                 "url": _shown(getattr(store, "url", None))}
            except Exception as exc:  # a store that is down makes the service unavailable
                body["store"] = {"error": redact_text(str(exc)).splitlines()[0][:300] if str(exc) else
                                 type(exc).__name__}
                body["status"], code = "unavailable", 503
        body["tracking"] = await run_in_threadpool(tracking_status, tracking_uri)
        if body["status"] == "ok" and body["tracking"].get("reachable") is False:
            body["status"] = "degraded"  # answers still work; runs are just not logged
        return JSONResponse(body, status_code=code)

    app.state.active_runs = active
    return app


def _with_dspy(settings: dict[str, Any], fn: Callable[[], Any]) -> Any:
    with dspy.context(**settings):
        return fn()
