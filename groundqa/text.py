"""Text utilities shared by chunking, synthesis and the metrics: one sentence splitter for all, and one
reading of citation marks."""

from __future__ import annotations

import re
from functools import lru_cache

# A sentence ends at . ! or ? (optionally followed by closing quotes/brackets and
# citation marks such as "[1][2]") when whitespace and an upper-case letter, digit,
# quote or bracket follow, or a lower-case name from code ("max_connections", "wal.segment_size").
# Newline pairs (paragraphs) and list bullets also split.
_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "inc", "ltd", "jr", "sr", "no", "fig",
    "approx", "dept", "est", "mt", "ft", "v",  # "Society *v.* Ferrand": a case's name
}
_BOUNDARY = re.compile(r"""([.!?]["')\]]*(?:\s*\[\d+\])*)\s+(?!\[\d+\])(?=["'(\[]?[A-Z0-9]|"""
                       r"""[a-z][a-z0-9]+(?:_|\.[a-z])[\w.]*\b)""")  # or a name in code: "listen_port sets …"
_CITATION = re.compile(r"\[(\d{1,9})\]")  # a longer number is no citation (and no int() overflow)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences; citation marks stay with the sentence they close."""
    sentences: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*\u2022]|\d+[.)]|\|)\s)", text.strip()):
        block = " ".join(line.strip() for line in block.splitlines() if line.strip())
        if not block:
            continue
        start = 0
        for match in _BOUNDARY.finditer(block):
            end = match.end(1)
            word = re.findall(r"([A-Za-z.]+)\.$", block[start : match.start(1) + 1])
            if word and word[-1].lower().rstrip(".") in _ABBREVIATIONS:
                continue
            piece = block[start:end].strip()
            if piece:
                sentences.append(piece)
            start = match.end()
        tail = block[start:].strip()
        if tail:
            sentences.append(tail)
    return sentences


MAX_CITATIONS = 3
"""Only the first 3 citations of a sentence count (ALCE's ``--at_most_citations`` default): the
synthesizer checks no more than the metrics score."""


def opening(text: str) -> str:
    """The first sentence of ``text``: where a passage usually names what it is about."""
    sentences = split_sentences(text)
    return strip_citations(sentences[0]) if sentences else ""


_ANAPHOR = re.compile(r"(?:It|He|She|They|Its|His|Her|Their)\b")


def embedded_text(sentence: str, title: str) -> str:
    """A passage sentence read on its own: after its passage's title when it opens on a pronoun ("Corvayne Hall.
    It was built between 1908 and 1911"), since then the title is what it is about; else as written. What a
    sentence is embedded as, and what a denial is read as saying of the claim's thing."""
    return f"{title}. {sentence}" if title and _ANAPHOR.match(sentence) else sentence


def citation_numbers(sentence: str) -> list[int]:
    """The ``[n]`` numbers in a sentence, in order of appearance, duplicates removed."""
    seen: list[int] = []
    for match in _CITATION.finditer(sentence):
        n = int(match.group(1))
        if n not in seen:
            seen.append(n)
    return seen


@lru_cache(maxsize=50_000)
def strip_citations(sentence: str) -> str:
    """The sentence with citation marks and list bullets removed (ALCE's hypothesis). Removing a mark can
    close another around it ("[0[0]]" leaves "[0]"), so marks are removed until none is left. Cached: the rules
    read the same passages' sentences for every question that retrieves them."""
    text = sentence
    while True:
        text, removed = _CITATION.subn("", text)
        if not removed:
            break
    text = _BULLET.sub("", text)
    return re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def truncate(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - 1)].rsplit(" ", 1)[0]
    return cut + "\u2026"


STOPWORDS = frozenset(
    ["a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or", "but", "if", "then", "than", "that", "this", "these", "those", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "has", "have", "had", "what", "when", "where", "who", "whom", "whose", "which", "why", "how", "it", "its", "as", "into", "about", "over", "under", "after", "before", "during", "between", "ever", "any", "some", "all", "each", "every", "there", "their", "they", "he", "she", "his", "her", "him", "them", "we", "our", "you", "your", "i", "me", "my", "not", "no", "yes", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "also", "only", "just", "so", "very", "much", "many", "more", "most", "such", "same", "other"]
)
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def content_words(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` without stop words (order kept, duplicates kept)."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


_ACRONYM = re.compile(r"\b[A-Z]{2,6}s?\b")


def acronyms(text: str) -> list[str]:
    """The acronyms ``text`` writes in capitals ("the tracing *GC*", "*LSP* clients"), a plural "s" dropped."""
    return [m.group(0).rstrip("s") if m.group(0).endswith("s") and len(m.group(0)) > 2 else m.group(0)
            for m in _ACRONYM.finditer(text)]


_LINKING = frozenset({"and", "of", "the", "for", "in", "on", "to", "a", "an", "&"})


def spells_out(acronym: str, text: str) -> bool:
    """Whether ``text`` writes ``acronym`` out as the initials of consecutive words ("GC": "the tracing *garbage
    collector*", "LSP": "the *Language Server Protocol*"), with or without the small words between them ("ELF": the
    "*Executable and Linkable Format*")."""
    letters = acronym.lower()
    if len(letters) < 2:
        return False
    every = re.findall(r"[A-Za-z]+", text)
    for words in (every, [w for w in every if w.lower() not in _LINKING]):
        if any("".join(w[0].lower() for w in words[i:i + len(letters)]) == letters
               for i in range(len(words) - len(letters) + 1)):
            return True
    return False
