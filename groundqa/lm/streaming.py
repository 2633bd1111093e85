"""A per-call hook through which an in-process LM engine reports generated text as it goes."""

from __future__ import annotations

import contextvars
from collections.abc import Callable

TOKEN_SINK: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "groundqa_token_sink", default=None
)
