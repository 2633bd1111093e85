"""Output checks that need no LM: does the answer address the question that was asked?

``answer_problem(question, answer)`` returns ``None`` or a message for the contract's feedback:
a *when / what year* question needs a year or date in the answer, *how many / how much / how long*
a number, *who* a name that the question does not already contain; every answer must share at
least one content word with the question (or its expected kind of value).
"""

from __future__ import annotations

import re

from groundqa.text import content_words, strip_citations

_YEAR_OR_DATE = re.compile(
    r"\b(1[0-9]{3}|20[0-9]{2}|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|century)\b", re.I)
_NUMBER = re.compile(r"\b(\d+([.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"twenty|thirty|forty|fifty|hundred|thousand|million|dozen|half)\b", re.I)
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_WORD_NUMBERS = {"first", "second", "third"}


def expected_kind(question: str) -> str | None:
    """'date', 'number', 'person' or None, from the question's wording."""
    q = question.strip().lower()
    if re.match(r"^(when|(in |during )?(what|which) (year|decade|century|month|date|day))\b", q):
        return "date"
    if re.match(r"^(how (many|much|long|old|far|tall|high|deep|big|large|often)|what (percentage|share|number))\b", q):
        return "number"
    if re.match(r"^(who|whom|whose)\b", q):
        return "person"
    return None


def answer_problem(question: str, answer: str) -> str | None:
    """Why ``answer`` does not address ``question`` (``None`` when it plausibly does)."""
    text = strip_citations(answer)
    kind = expected_kind(question)
    if kind == "date" and not _YEAR_OR_DATE.search(text):
        return "The question asks when: answer with the year or date the passages give."
    if kind == "number" and not _NUMBER.search(text) and not (_WORD_NUMBERS & set(text.lower().split())):
        return "The question asks for a quantity: answer with the number the passages give."
    if kind == "person":
        asked = set(_NAME.findall(question))
        if not (set(_NAME.findall(text)) - asked - {"The", "A", "An", "He", "She", "It", "They"}):
            return "The question asks who: answer with the person's name from the passages."
    if kind is None:
        asked = set(content_words(question))
        if asked and not asked & set(content_words(text)):
            return "The answer does not mention anything the question asks about."
    return None
