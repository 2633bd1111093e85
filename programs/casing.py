"""Names typed in lower case, read as the passages write them.

People type "where was lena tarrant born" or "how many people can cobblers meadow hold". Every rule that
reads a question (presuppositions, the answer type, the subject it asks about, the namesake check) finds
names by their capitals, so a question typed in lower case names nothing: the premise check has nothing to
look up and the answerability check accepts another person's birthplace. The corpus knows how its names
are written; a question with no capital after its first letter gets them back from the passages retrieved
for it ("Lena Tarrant", "Cobbler's Meadow"), longest name first. A question that has capitals is taken as
written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from groundqa.signatures.types import Passage

# A capitalised word or run of them, with the joining words names have ("Bay *of the* Seals")
_NAME = re.compile(r"[A-Z][\w’'-]*(?:\s+(?:of the|of|the|de|van|von|la|le)?\s*[A-Z][\w’'-]*)*")
_WORD = re.compile(r"[\w’'-]+")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\(\s*)$")
_ARTICLE = re.compile(r"(?:The|A|An|This|That|These|Those|Its|His|Her|Their|In|On|At|By|For|From)\s+")


def _norm(word: str) -> str:
    """"Cobbler's" -> "cobblers", "Meadow" -> "meadow": a typed word matches however its apostrophe went."""
    return word.lower().replace("’", "").replace("'", "")


def _names(passages: Sequence[Passage]) -> dict[tuple[str, ...], str]:
    """The passages' names (normalised words -> as written): runs of two or more capitalised words, and single
    capitalised words the passages never write in lower case and use at least once inside a sentence."""
    found: dict[tuple[str, ...], str] = {}
    lower: set[str] = set()
    inside: set[str] = set()
    for passage in passages:
        for text in (passage.title, passage.text):
            lower.update(_norm(w) for w in _WORD.findall(text) if w[:1].islower())
            for match in _NAME.finditer(text):
                written, start = match.group(0), match.start()
                if (article := _ARTICLE.match(written)) is not None:  # "The Kestrel" opening a sentence: "Kestrel"
                    written, start = written[article.end():], start + article.end()
                words = tuple(_norm(w) for w in _WORD.findall(written))
                if not words:
                    continue
                if len(words) == 1 and not _SENTENCE_START.search(text[:start]):
                    inside.add(words[0])
                found.setdefault(words, written)
    return {words: written for words, written in found.items() if len(words) > 1 or (words[0] in inside
                                                                                       and words[0] not in lower)}


def truecase(question: str, passages: Sequence[Passage]) -> str:
    """``question`` with its lower-case names written as ``passages`` write them (see the module docstring)."""
    if any(c.isupper() for c in question[1:]) or not passages:
        return question
    tokens = list(_WORD.finditer(question))
    typed = [_norm(t.group(0)) for t in tokens]
    names = sorted(_names(passages).items(), key=lambda item: -len(item[0]))
    spans: list[tuple[int, int, str]] = []
    taken: set[int] = set()
    for words, written in names:
        for start in range(len(typed) - len(words) + 1):
            span = range(start, start + len(words))
            if tuple(typed[start: start + len(words)]) == words and not taken & set(span):
                taken.update(span)
                spans.append((tokens[start].start(), tokens[start + len(words) - 1].end(), written))
    for begin, end, written in sorted(spans, reverse=True):
        question = question[:begin] + written + question[end:]
    return question


__all__ = ["truecase"]
