"""Answer formats: prose, bullet points, table, step by step — detected from the question or set."""

from __future__ import annotations

import re

from groundqa.signatures.types import AnswerFormat

FORMATS: tuple[AnswerFormat, ...] = ("prose", "bullets", "table", "steps")
FORMAT_INSTRUCTIONS: dict[str, str] = {
    "prose": "prose: one to three sentences",
    "bullets": "bullets: one '- ' line per point, each ending with its citations",
    "table": "table: a Markdown table; put citations in the last column of each row",
    "steps": "steps: numbered steps '1. ...', each ending with its citations",
}
_RULES: list[tuple[AnswerFormat, re.Pattern[str]]] = [
    ("table", re.compile(r"\b(table|tabulate|compare|comparison|side by side)\b", re.I)),
    ("steps", re.compile(r"\b(how (do|can|should) (i|we|you)|steps?|step-by-step|procedure|process for)\b", re.I)),
    ("bullets", re.compile(r"\b(list|bullet|what are (the|all)|which .* are|name (the|all))\b", re.I)),
]


def detect_format(question: str, requested: str | None = None) -> AnswerFormat:
    """``requested`` when given (validated), otherwise a format detected from the wording."""
    if requested and requested != "auto":
        if requested not in FORMATS:
            raise ValueError(f"unknown answer format {requested!r}; choose one of {', '.join(FORMATS)}")
        return requested  # type: ignore[return-value]
    for name, pattern in _RULES:
        if pattern.search(question):
            return name
    return "prose"
