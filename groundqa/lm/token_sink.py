"""A per-call hook through which an in-process LM engine reports generated text as it goes.

The guarded LM sets the sink for one call; :mod:`groundqa.runtime.streaming` turns what arrives into
a question's ``token`` events. The LM layer knows only this hook, not the events.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable

TOKEN_SINK: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "groundqa_token_sink", default=None
)
