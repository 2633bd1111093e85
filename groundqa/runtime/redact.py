"""Secret redaction for traces, logs, MLflow and every message: API keys never leave the process.

Secrets travel in URLs too: a tracking URI such as ``http://admin:pw@host`` or an API base with
``?token=...`` must read ``http://admin:***REDACTED***@host`` in an error message, a log line or a trace,
exactly as an ``sk-...`` key does. :func:`redact_text` masks both.
"""

from __future__ import annotations

import os
import re
from typing import Any

_SECRET_KEYS = re.compile(r"(api[_-]?key|authorization|token|secret|password|credential)", re.I)
_SECRET_VALUES = re.compile(
    r"(sk-[A-Za-z0-9_\-]{12,}|sk-ant-[A-Za-z0-9_\-]{12,}|AIza[0-9A-Za-z_\-]{20,}|hf_[A-Za-z0-9]{20,}"
    r"|gsk_[A-Za-z0-9]{20,}|xai-[A-Za-z0-9]{20,}|Bearer\s+[A-Za-z0-9._\-]{12,})"
)
REDACTED = "***REDACTED***"
# scheme://userinfo@ : the userinfo is a password (user:password) or a bearer token (token@host).
_URL_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^\s/?#@'\"<>]+)@")
# ?token=..., &api_key=..., ;sig=... : query parameters that carry credentials.
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&;][A-Za-z0-9_.\-]*(?:token|key|secret|password|passwd|pwd|auth|sig|signature|credential)"
    r"[A-Za-z0-9_.\-]*=)[^&#;\s'\"<>]+", re.I,
)
_TOKEN_COUNTERS = {"prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "output_tokens",
                   "max_tokens", "reasoning_tokens", "cache_read_tokens", "cache_write_tokens"}


def _env_secrets() -> list[str]:
    return [v for k, v in os.environ.items() if _SECRET_KEYS.search(k) and v and len(v) >= 8]


def _mask_userinfo(match: re.Match[str]) -> str:
    user, sep, secret = match.group("userinfo").partition(":")
    if set(secret if sep else user) <= {"*"} or (secret if sep else user) == REDACTED:  # already masked
        return match.group(0)
    return f"{match.group('scheme')}{user}:{REDACTED}@" if sep else f"{match.group('scheme')}{REDACTED}@"


def redact_url(url: str) -> str:
    """``url`` with its password (or bare token) and secret query parameters masked."""
    url = _URL_USERINFO.sub(_mask_userinfo, url)
    return _SECRET_PARAM.sub(lambda m: m.group("name") + REDACTED, url)


def redact_text(text: str, secrets: list[str] | None = None) -> str:
    """``text`` with known key shapes, secrets in URLs and the values of secret environment variables
    (``secrets``: read from the environment when not given) masked."""
    text = redact_url(_SECRET_VALUES.sub(REDACTED, text))
    for secret in _env_secrets() if secrets is None else secrets:
        text = text.replace(secret, REDACTED)
    return text


def redact(value: Any) -> Any:
    """A copy of ``value`` (nested dicts/lists/strings) with secrets masked (the environment is read once
    per call, not once per string: a trace holds thousands of them)."""
    return _redact(value, _env_secrets())


def _redact(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, dict):
        return {
            k: (REDACTED if isinstance(k, str) and _SECRET_KEYS.search(k) and k not in _TOKEN_COUNTERS
                and v not in (None, "") and not isinstance(v, (int, float, dict, list)) else _redact(v, secrets))
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(_redact(v, secrets) for v in value)
    return value
