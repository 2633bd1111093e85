"""Nothing leaks, nothing drives the terminal: secrets in URLs are masked like API keys (messages, traces,
the tracking set-up), what the command line prints carries no escape sequences or control characters,
invalid UTF-8 on the command line is one line, and importing groundqa keeps litellm off the network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from groundqa import app
from groundqa.cli.common import terminal
from groundqa.cli.main import main
from groundqa.config import Settings
from groundqa.lm.scripted import ScriptedLM, faults
from groundqa.runtime.redact import REDACTED, redact, redact_text, redact_url
from groundqa.runtime.safe_text import one_line, printable, scrub_surrogates
from groundqa.tracking.setup import configure_tracking

ESCAPES = "\x1b[2J\x1b[H\x1b[31m\x07\x1b]0;pwned\x07\x9b6n"


@pytest.mark.parametrize("url, secret, kept", [
    ("http://admin:pw1234@mlflow.internal:5000", "pw1234", "http://admin:***REDACTED***@mlflow.internal:5000"),
    ("https://ghp_abcdef123456@github.com/org/repo", "ghp_abcdef123456", "https://***REDACTED***@github.com"),
    ("http://host/v1?token=tok987&model=x", "tok987", "model=x"),
    ("http://host/v1?model=x&api_key=k-55#frag", "k-55", "#frag"),
    ("https://bucket.s3/obj?X-Amz-Signature=abcd1234;other=1", "abcd1234", ";other=1"),
])
def test_secrets_in_urls_are_redacted(url, secret, kept):
    for text in (url, f"tracking server {url} is not reachable", redact_url(url)):
        masked = redact_text(text)
        assert secret not in masked and REDACTED in masked and kept in masked
    assert redact({"api_base": url, "nested": [url]}) == {"api_base": redact_text(url), "nested": [redact_text(url)]}
    assert redact_text("sqlite:///home/me/mlflow.db and mail me@example.com") == (
        "sqlite:///home/me/mlflow.db and mail me@example.com")


def test_the_unreachable_tracking_server_message_hides_the_password(tmp_path):
    uri = "http://admin:s3cret-pw@127.0.0.1:9/?token=abc123"
    tracking = configure_tracking(Settings(home=tmp_path, mlflow_tracking_uri=uri))
    assert not tracking.enabled and tracking.uri == uri  # the real URI is still the one used
    assert "not reachable" in tracking.reason
    assert "s3cret-pw" not in tracking.reason and "abc123" not in tracking.reason and "admin:" in tracking.reason


def test_terminal_text_has_no_escapes_or_control_characters():
    text = printable(f"Ilse{ESCAPES} Varga\r\n[1]\tok\u202eevil\x00\udcff")
    assert not any(ord(c) < 32 and c not in "\n\t" or 0x7f <= ord(c) <= 0x9f for c in text)
    assert "Ilse" in text and "Varga" in text and "\u202e" not in text and "\ufffd" in text
    assert one_line("a\nb\t c") == "a b c" and "\n" not in terminal("x\ny http://u:p4ss@h")
    assert "p4ss" not in terminal("x http://u:p4ss@h")
    assert scrub_surrogates("ok \ud83d\ude00 \ud800") == "ok \U0001f600 \ufffd"


def test_invalid_utf8_arguments_are_one_line(tmp_path, capsys):
    raw = os.fsdecode(b"Who designed the \xff\xfe lights?")  # how Python hands over bytes that are not UTF-8
    assert main(["ask", raw, "--home", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "question is not valid UTF-8 text (byte 0xff at position 17)" in err and len(err.splitlines()) == 1
    assert main(["ask", "Who?", "--home", str(tmp_path), "--lm", os.fsdecode(b"openai/\xe9")]) == 2
    assert "--lm is not valid UTF-8" in capsys.readouterr().err


def test_ask_prints_no_corpus_escapes_and_no_secrets(home, tmp_path, monkeypatch, capsys):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "keepers", "title": f"Lighthouse{ESCAPES} Keepers",
                                  "text": f"The keeper of the harbor lighthouse during the great storm was Ilse "
                                          f"Varga.{ESCAPES} She kept the light burning for three nights."}) + "\n")
    assert main(["ingest", str(corpus), "--home", str(home)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://admin:s3cret-pw@127.0.0.1:9")
    answer = {"answer": f"The keeper during the great storm was Ilse Varga{ESCAPES} [1]."}
    monkeypatch.setattr(app, "build_lm", lambda settings, **kw: ScriptedLM(lambda m: answer))
    question = "Who was the keeper of the harbor lighthouse during the great storm?"
    for extra in ([], ["--stream"], ["--json"], ["--stream", "--json"]):
        assert main(["ask", question, "--home", str(home), "--no-premises", *extra]) == 0
        out, err = capsys.readouterr()
        assert not any(c in out + err for c in "\x1b\x07\x9b"), repr(out + err)
        assert "s3cret-pw" not in err and "admin:***REDACTED***@" in err
        if "--json" in extra:  # the same data, its terminal controls written as JSON escapes
            data = json.loads(out.strip().splitlines()[-1] if "--stream" in extra else out)
            assert "Ilse Varga" in (data["result"] if "--stream" in extra else data)["answer"]
        else:
            assert "Ilse Varga" in out and "Lighthouse Keepers" in out
    failing = faults([RuntimeError("POST http://user:hunter22@llm.local/v1?api_key=k-999 failed")])
    monkeypatch.setattr(app, "build_lm", lambda settings, **kw: ScriptedLM(failing))
    assert main(["ask", question, "--home", str(home), "--no-premises", "--no-mlflow", "--json",
                 "--gate", "extractive_first=1"]) == 3  # the LM is asked first, and fails
    out, err = capsys.readouterr()
    assert "hunter22" not in out + err and "k-999" not in out + err and "LM_ERROR" in out


def test_importing_groundqa_keeps_litellm_off_the_network():
    """The flag is set when groundqa is imported (unless the user set it), and litellm then makes no
    network attempt at import (without it, it resolves raw.githubusercontent.com: ~2.3 s offline)."""
    probe = (
        "import os, socket\n"
        "attempts = []\n"
        "def refuse(*args, **kwargs):\n"
        "    attempts.append(args[:1]); raise OSError('network disabled')\n"
        "socket.getaddrinfo = refuse\n"
        "socket.socket.connect = lambda self, *a: refuse(*a)\n"
        "import groundqa\n"
        "flag = os.environ.get('LITELLM_LOCAL_MODEL_COST_MAP')\n"
        "import litellm, dspy\n"
        "print(flag, len(attempts))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).parents[1])
    assert out.stdout.split() == ["True", "0"], out.stderr[-2000:]
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "False"  # the user's choice wins
    out = subprocess.run([sys.executable, "-c", "import os, groundqa; print(os.environ['LITELLM_LOCAL_MODEL_COST_MAP'])"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False"


def test_exit_messages_are_redacted_where_they_are_recorded():
    from groundqa.runtime.run import RunState
    from groundqa.signatures.types import ExitReason

    state = RunState()
    stop = state.stop(ExitReason.RETRIEVAL_ERROR, "retrieval failed: ConnectError: http://u:chroma-pw@chroma:8000")
    assert "chroma-pw" not in state.exit_message and "chroma-pw" not in stop.message
    assert "http://u:***REDACTED***@chroma:8000" in state.exit_message
