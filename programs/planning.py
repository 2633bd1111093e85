"""Multi-hop query planning: split a compound question into sub-queries (rule-based or LM)."""

from __future__ import annotations

import re

from groundqa.text import content_words

_SPLIT = re.compile(r"\s*(?:;|,?\s+and\s+(?=(?:what|when|where|who|which|how|why|did|does|is|was)\b)|\?\s+)\s*", re.I)
MAX_SUBQUERIES = 3


def heuristic_subqueries(question: str) -> list[str]:
    """Sub-queries of a compound question ("Who designed X and when was it built?"), else ``[]``."""
    parts = [p.strip(" ?") for p in _SPLIT.split(question.strip()) if p and p.strip(" ?")]
    parts = [p for p in parts if len(content_words(p)) >= 2]
    if len(parts) < 2:
        return []
    return [p + "?" for p in parts[:MAX_SUBQUERIES]]
