"""A deterministic presupposition extractor for LMs too small to do it (the embedded default).

Rules: a wh-question presupposes its remainder ("When did Paolo Marchetti design the lights?" ->
"Paolo Marchetti design the lights"); a yes/no question presupposes only that the things it names
exist (the asked event is not a presupposition); a pure look-up of an attribute ("What is X?",
"When was X founded?") presupposes only the names and years it pins. At most 3 claims of at most
15 words each.
"""

from __future__ import annotations

import re

from groundqa.signatures.qa import Presupposition
from groundqa.text import content_words

_YES_NO = {"is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will",
           "would", "should", "shall", "may", "might", "must"}
_WH = re.compile(
    r"^(?:in |on |at |from |for |by |with |to )?(?:what|when|where|who|whom|whose|which|why|how)"
    r"(?:\s+(?:many|much|long|old|often|far|year|kind of|type of)\b)?\s*", re.I
)
_AUX = re.compile(r"^(?:did|does|do|was|were|is|are|has|have|had|will|would|can|could)\s+", re.I)
_ENTITY = re.compile(r"\b(?:[A-Z][a-z]+(?:[- ](?:of |the |de |van )?[A-Z][a-z]+)*|(?:1[5-9]|20)\d\d)\b")
_COPULA = re.compile(r"^(?:is|was|are|were)\b", re.I)
_INNER_AUX = re.compile(r"\b(?:did|does|do)\s+", re.I)
MAX_CLAIMS = 3
MAX_WORDS = 15


def _cap(text: str) -> str:
    words = text.split()
    return " ".join(words[:MAX_WORDS])


def is_yes_no(question: str) -> bool:
    first = question.strip().split(maxsplit=1)[0].lower() if question.strip() else ""
    return first in _YES_NO


def named_things(question: str, years: bool = True) -> list[str]:
    """Capitalised names and (optionally) years mentioned in the question; the first word is skipped."""
    words = question.strip().split(maxsplit=1)
    body = words[1] if len(words) > 1 else ""
    names: list[str] = []
    for match in _ENTITY.finditer(body):
        value = match.group(0).strip()
        if value.isdigit() and not years:
            continue
        if value not in names:
            names.append(value)
    return names


def _named(question: str, years: bool, why: str) -> list[Presupposition]:
    return [Presupposition(claim=name, rationale=why) for name in named_things(question, years)][:MAX_CLAIMS]


def heuristic_presuppositions(question: str) -> list[Presupposition]:
    """Presuppositions of ``question`` by rule (see the module docstring)."""
    text = question.strip().rstrip("?").strip()
    if not text:
        return []
    if is_yes_no(text):  # the asked event is not presupposed; the things it names are
        return _named(text, years=False, why="named in a yes/no question")
    match = _WH.match(text)
    if not match:
        return []
    rest = text[match.end():].strip()
    if _COPULA.match(rest):  # a look-up: presupposes only the names and years it pins
        return _named(text, years=True, why="named in a look-up question")
    remainder = _INNER_AUX.sub("", _AUX.sub("", rest)).strip()
    if len(content_words(remainder)) < 3:
        return _named(text, years=True, why="named in a look-up question")
    return [Presupposition(claim=_cap(remainder), rationale="the question takes this for granted")]
