"""``groundqa serve``: the HTTP API (:mod:`groundqa.serve.app`) on uvicorn.

The socket is bound here, before uvicorn starts, so that a port in use is one clear line (exit 2) and
``--port 0`` can print the port it got. The token comes from ``--token`` or ``GROUNDQA_API_TOKEN``
(prefer the variable: a flag shows in the process list) and is never printed.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from groundqa.cli.common import CLIError, add_gate_argument, gate_overrides, program_source, settings_from

TOKEN_ENV = "GROUNDQA_API_TOKEN"


def register(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("serve", help="serve the HTTP API (POST /ask, /ask/stream; GET /health, /docs)",
                       description="Serve groundqa over HTTP: POST /ask (result JSON), POST /ask/stream "
                                   "(server-sent events ending in one final event), GET /health, /docs.")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one, printed)")
    p.add_argument("--token", help=f"require 'Authorization: Bearer TOKEN' on every endpoint but /health "
                                   f"(default: ${TOKEN_ENV}; the variable keeps it out of the process list)")
    p.add_argument("--program", help="a compiled program: program.json, its folder, or a logged model "
                                     "(models:/NAME/VERSION, runs:/RUN_ID/program)")
    p.add_argument("--no-premises", action="store_true", help="skip premise verification")
    add_gate_argument(p)
    p.add_argument("--no-mlflow", action="store_true", help="do not trace questions to MLflow")
    p.add_argument("--max-concurrency", type=int, default=32,
                   help="questions answered at once (default 32); more wait for a free slot")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    common(p)
    p.set_defaults(func=cmd_serve)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from groundqa.app import build_program, guarded_lm
    from groundqa.ingest import ensure_corpus
    from groundqa.serve.app import create_app
    from groundqa.serve.lm_server import bind
    from groundqa.tracking.traces import command_tracer

    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV) or None
    if args.token is not None and not args.token.strip():
        raise CLIError("--token is empty")
    if args.max_concurrency < 1:
        raise CLIError("--max-concurrency must be at least 1")
    gates = gate_overrides(args.gate)
    if not _is_loopback(args.host) and token is None:
        print(f"groundqa: warning: serving on {args.host} without a token: anyone who can reach it can ask "
              f"(set {TOKEN_ENV})", file=sys.stderr)
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        raise CLIError(str(exc)) from None
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host

    def announce() -> None:  # once start-up is done: a client that reads the URL is answered at once
        print(f"groundqa: serving on http://{shown}:{port} (docs at /docs{'; bearer token required' if token else ''})",
              flush=True)

    try:
        settings, program_path = program_source(settings_from(args), args.program,
                                                keep_collection=bool(args.collection))
        lm, adapter = guarded_lm(settings)
        ensure_corpus(settings, before_ingesting=lambda: print(
            "groundqa: the collection is empty; ingesting the bundled demo corpus", file=sys.stderr))
        overrides: dict[str, Any] = {"verify_premises": False} if args.no_premises else {}
        program = build_program(settings, program_path=program_path, gates=gates, **overrides)
        tracer = command_tracer(settings, "api", label=str(args.program or "baseline"), enabled=not args.no_mlflow)
        if tracer.reason:
            print(f"groundqa: MLflow: {tracer.reason}; questions are not traced", file=sys.stderr)
        app = create_app(program, lm=lm, adapter=adapter, token=token, tracking_uri=settings.tracking_uri,
                         max_concurrency=args.max_concurrency, tracer=tracer, on_ready=announce)
    except BaseException:
        sock.close()
        raise
    handler = logging.StreamHandler()  # the server's own lines (disconnects, errors) next to uvicorn's
    handler.setFormatter(logging.Formatter("%(levelname)s:     groundqa: %(message)s"))
    served = logging.getLogger("groundqa.serve")
    served.addHandler(handler)
    served.setLevel(args.log_level.upper())
    server = uvicorn.Server(uvicorn.Config(app, log_level=args.log_level, timeout_graceful_shutdown=5,
                                           server_header=False))
    server.run(sockets=[sock])
    return 0
