"""An OpenAI-compatible chat-completions server on the embedded engine (Gemma 3 270M, llama.cpp).

``python -m groundqa.serve.lm_server [--host 127.0.0.1] [--port 0] [--faults]`` serves
``POST /v1/chat/completions`` and ``GET /v1/models``; point groundqa at it with
``--lm openai/gemma --api-base http://127.0.0.1:PORT/v1`` (or ``hosted_vllm/gemma``).

Why not ``llama-cpp-python[server]``: that server renders messages through the GGUF's chat template,
and through its chat template the 270M *base* model answers with empty text. This server runs the same
engine as ``--lm embedded`` (:class:`~groundqa.lm.embedded.LlamaCppEngine`: a plain-completion
transcript, field-by-field decoding, the citation constraint), so the ``api_base`` path answers like
the embedded one and can be tested for real without any network.

It behaves like llama.cpp's own server where groundqa had trouble with it: ``max_tokens`` is honoured,
``max_completion_tokens`` is ignored (a request carrying only that generates up to
``--default-max-tokens``). With ``--faults`` it also exposes test hooks: ``POST /_faults`` makes the
next requests fail (HTTP 429 with ``Retry-After``, 500, ..., a body that is not JSON, a completion with no choices) or stall, and ``GET /_requests`` lists the
generation parameters of recent requests (never the messages or any header).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import socket
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

_RECORDED_PARAMS = ("model", "max_tokens", "max_completion_tokens", "temperature", "stop", "n", "stream")


class Faults(BaseModel):
    """What the next requests do instead of answering (``--faults`` only)."""

    status: int | None = Field(default=None, description="HTTP status the next `count` requests get")
    count: int = Field(default=0, ge=0, description="how many requests fail with `status`")
    retry_after: float | None = Field(default=None, description="Retry-After seconds sent with a 429")
    delay_s: float = Field(default=0.0, ge=0, description="seconds every request waits before answering")
    body: Literal["malformed", "empty_choices"] | None = Field(
        default=None, description="the next `count` requests get HTTP 200 with a body that is not JSON, or a "
                                  "completion with no choices (instead of failing with `status`)")


class _FaultState:
    """Thread-safe fault settings and a bounded log of request parameters."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.faults = Faults()
        self.requests: collections.deque[dict[str, Any]] = collections.deque(maxlen=200)

    def take(self) -> tuple[int | str | None, float | None, float]:
        """(status or bad body to answer with, or None; retry_after; delay) for one incoming request."""
        with self.lock:
            f = self.faults
            fault: int | str | None = None
            if (f.status is not None or f.body is not None) and f.count > 0:
                fault = f.body if f.body is not None else f.status
                f.count -= 1
            return fault, f.retry_after, f.delay_s


def _text(content: Any) -> str:
    """The text of an OpenAI message ``content`` (a string or a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def engine_request(body: dict[str, Any], default_max_tokens: int) -> SimpleNamespace:
    """The engine's view of an OpenAI chat request: system text, messages, temperature, stops, and
    ``max_tokens`` (``max_completion_tokens`` ignored, as llama.cpp's server does)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    system = "\n\n".join(_text(m.get("content")) for m in messages if m.get("role") in ("system", "developer"))
    turns = [SimpleNamespace(role=m.get("role"), text=_text(m.get("content")))
             for m in messages if m.get("role") not in ("system", "developer")]
    stop = body.get("stop")
    stops = [stop] if isinstance(stop, str) else list(stop or [])
    max_tokens = body.get("max_tokens")
    config = SimpleNamespace(temperature=float(body.get("temperature") or 0.0),
                             max_tokens=int(max_tokens) if isinstance(max_tokens, int) and max_tokens > 0
                             else default_max_tokens, stop=stops)
    return SimpleNamespace(system=system, messages=turns, config=config)


def create_lm_app(engine: Any, model: str = "gemma", faults: bool = False,
                  default_max_tokens: int = 2048) -> FastAPI:
    """The FastAPI app; ``engine`` has ``run(request) -> (text, prompt_tokens, completion_tokens, finish)``
    (a :class:`~groundqa.lm.embedded.LlamaCppEngine`)."""
    app = FastAPI(title="groundqa embedded LM (OpenAI-compatible)", docs_url=None, redoc_url=None)
    state = _FaultState()
    app.state.faults = state

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "groundqa"}]}

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "the body is not JSON")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "the body needs a 'messages' list")
        if body.get("stream"):
            return _error(400, "streaming is not supported by this server")
        with state.lock:
            state.requests.append({k: body[k] for k in _RECORDED_PARAMS if k in body})
        status, retry_after, delay = state.take() if faults else (None, None, 0.0)
        if delay:
            await asyncio.sleep(delay)
        if status == "malformed":
            return Response('{"id": "chatcmpl-broken", "choices": [{"message": ', media_type="application/json")
        if status == "empty_choices":
            return {"id": "chatcmpl-empty", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model") or model, "choices": [],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}
        if isinstance(status, int):
            headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else None
            return _error(status, f"injected fault: HTTP {status}", headers=headers)
        try:
            text, prompt_tokens, completion_tokens, finish = await run_in_threadpool(
                engine.run, engine_request(body, default_max_tokens))
        except Exception as exc:  # e.g. the context window: an OpenAI-style 400, never a traceback
            return _error(400, f"{type(exc).__name__}: {exc}")
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model") or model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }

    if faults:
        @app.post("/_faults")
        async def set_faults(new: Faults) -> dict[str, Any]:
            with state.lock:
                state.faults = new
            return new.model_dump()

        @app.get("/_requests")
        async def recent() -> list[dict[str, Any]]:
            with state.lock:
                return list(state.requests)

    return app


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    kind = {429: "rate_limit_error", 400: "invalid_request_error"}.get(status, "server_error")
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status,
                        headers=headers)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one), so the real port can be printed
    before serving and a port in use is one clear error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m groundqa.serve.lm_server",
                                     description="OpenAI-compatible server on the embedded Gemma 3 270M")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8033, help="0 picks a free port (printed on stdout)")
    parser.add_argument("--model-name", default="gemma", help="the model id it reports")
    parser.add_argument("--cache-dir", type=Path, default=Path(".groundqa/cache/models"),
                        help="where the GGUF is assembled")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--default-max-tokens", type=int, default=2048,
                        help="tokens generated when a request has no max_tokens")
    parser.add_argument("--faults", action="store_true", help="enable the /_faults and /_requests test hooks")
    args = parser.parse_args(argv)

    import uvicorn

    from groundqa.lm.embedded import LlamaCppEngine

    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        print(f"lm_server: error: {exc}", file=sys.stderr)
        return 2
    engine = LlamaCppEngine(args.cache_dir, n_ctx=args.n_ctx, n_threads=args.threads)
    engine._model()  # load before announcing the port: the first request is not slowed by loading
    app = create_lm_app(engine, model=args.model_name, faults=args.faults, default_max_tokens=args.default_max_tokens)
    host, port = sock.getsockname()[:2]
    print(f"lm_server: listening on http://{host}:{port}/v1", flush=True)
    # a stalled (fault-injected) request must not hold a shutdown for long
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2))
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
