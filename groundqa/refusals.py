"""Telling a refusal ("NOT IN SOURCES", "I don't know") from an answer: one detector for the programs
and the metrics.

Two readers need it, with one difference (the ``instructed`` switch):

* a program reading the reply of the LM it *told* to say exactly ``NOT IN SOURCES`` when the passages
  do not answer (``instructed=True``): small LMs paraphrase the phrase ("Not mentioned.", "The passages
  do not say.") or append an explanation to it, so a reply that starts with it, or any short reply that
  contains a declining phrase, is a decline — shipping such a reply as an answer would be worse;
* the metrics reading any system's answer (``instructed=False``, the default): a short factual answer
  may well contain "not mentioned" or "does not say" about its subject, so only an explicit refusal
  counts: one of the refusal forms on its own, or, in an answer of at most 40 words, a refusal phrase
  about the sources ("the passages do not mention ...").
"""

from __future__ import annotations

import re

_ABSTAIN_EXACT = re.compile(
    r"^\W*(not in (the )?sources?|i (do not|don't|dont) know|unknown|no answer|unanswerable|n/a"
    r"|cannot (be )?answer(ed)?|can't (be )?answer(ed)?|insufficient (information|evidence|context))\W*$",
    re.IGNORECASE,
)
_ABSTAIN_PHRASES = re.compile(
    r"\b(not in (the )?sources|i (do not|don't|dont) know|cannot be answered|can't be answered|can ?not answer"
    r"|unable to answer|(not enough|insufficient) (information|evidence|context)"
    r"|no (relevant )?information (about|on|regarding)"
    r"|(sources?|passages?|context|documents?|corpus|provided (text|information))\b[^.]{0,40}?\b"
    r"(do|does|did) (not|n't) (contain|mention|say|provide|specify|state|include|answer|support))",
    re.IGNORECASE,
)
_MAX_REFUSAL_WORDS = 40

_INSTRUCTED_REFUSAL = "not in sources"  # signatures.qa.NOT_IN_SOURCES, lower-cased
_DECLINING_PHRASES = ("not in sources", "not in the sources", "cannot be answered", "i don't know", "i do not know",
                      "no information", "not mentioned", "does not say", "do not say", "don't say")
_MAX_DECLINE_CHARS = 80


def looks_like_abstention(answer: str | None, *, instructed: bool = False) -> bool:
    """True for empty answers and refusals such as "NOT IN SOURCES" or "I don't know".

    ``instructed=True`` reads the reply of an LM that was told to say ``NOT IN SOURCES`` (see the
    module docstring): it also counts a reply starting with that phrase, and any reply under 80
    characters containing a declining phrase such as "not mentioned".
    """
    text = (answer or "").strip()
    if not text:
        return True
    if instructed:
        return _declines(text.lower())
    if _ABSTAIN_EXACT.match(text):
        return True
    return len(text.split()) <= _MAX_REFUSAL_WORDS and bool(_ABSTAIN_PHRASES.search(text))


def _declines(text: str) -> bool:
    """A lower-cased reply that starts with the instructed refusal, or a short one with a declining phrase."""
    return text.startswith(_INSTRUCTED_REFUSAL) or (
        len(text) < _MAX_DECLINE_CHARS and any(d in text for d in _DECLINING_PHRASES)
    )
