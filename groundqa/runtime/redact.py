"""Secret redaction for traces, logs and MLflow: API keys never leave the process."""

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
_TOKEN_COUNTERS = {"prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "output_tokens",
                   "max_tokens", "reasoning_tokens", "cache_read_tokens", "cache_write_tokens"}


def _env_secrets() -> list[str]:
    return [v for k, v in os.environ.items() if _SECRET_KEYS.search(k) and v and len(v) >= 8]


def redact_text(text: str) -> str:
    """``text`` with known key shapes and the values of secret environment variables masked."""
    text = _SECRET_VALUES.sub(REDACTED, text)
    for secret in _env_secrets():
        text = text.replace(secret, REDACTED)
    return text


def redact(value: Any) -> Any:
    """A copy of ``value`` (nested dicts/lists/strings) with secrets masked."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {
            k: (REDACTED if isinstance(k, str) and _SECRET_KEYS.search(k) and k not in _TOKEN_COUNTERS
                and v not in (None, "") and not isinstance(v, (int, float, dict, list)) else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(redact(v) for v in value)
    return value
