"""Reading a server-sent-event stream in the tests of ``groundqa serve`` (in process and as a real server)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def sse_events(lines: Iterator[str]) -> list[dict[str, Any]]:
    """Parse server-sent events: each ``{"event": name, **data}``."""
    events, name, data = [], None, []
    for line in lines:
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line and data:
            events.append({"event": name, **json.loads("\n".join(data))})
            name, data = None, []
    return events
