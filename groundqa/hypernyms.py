"""Which words name a kind of what a question asks for: WordNet 3.0's noun hypernyms.

"What *instrument* did he play?" is answered by "a keen amateur *flute* player" and "What *stone* was used for
the walls?" by "its walls are built of grey *gneiss*" although neither sentence says the asked noun: a flute
is a (musical) instrument and gneiss a rock, or stone, in WordNet's hierarchy. :func:`names_a_kind_of` reads
that off the derived table ``data/wordnet-nouns.txt.gz`` (``scripts/build_wordnet_nouns.py``; Princeton's
licence beside it), loaded once, on first use.

Two limits keep it from reading everything as anything: only a word's first ``SENSES`` senses (WordNet lists
the most frequent first) are climbed, and a category within ``MIN_DEPTH`` steps of WordNet's root ("entity",
"object", "thing", "abstraction", "matter") names no kind at all.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

TABLE = Path(__file__).parent / "data" / "wordnet-nouns.txt.gz"
SENSES = 3
"""Senses of the answer's word that are climbed (WordNet orders them by frequency): "flute" the instrument,
not the groove in a column (its second sense)."""
MIN_DEPTH = 4
"""A category synset closer to the root than this ("entity", "physical entity", "object", "whole",
"abstraction", "matter") names no kind: everything is one."""


@dataclass(frozen=True)
class _Nouns:
    parents: tuple[tuple[int, ...], ...]
    senses: dict[str, tuple[int, ...]]


@lru_cache(maxsize=1)
def _nouns() -> _Nouns:
    parents: list[tuple[int, ...]] = []
    senses: dict[str, tuple[int, ...]] = {}
    with gzip.open(TABLE, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#"):
                continue
            key, _, ids = line.rstrip("\n").partition("\t")
            numbers = tuple(map(int, ids.split(","))) if ids else ()
            if key.startswith("="):
                senses[key[1:]] = numbers
            else:
                parents.append(numbers)
    return _Nouns(tuple(parents), senses)


def load() -> None:
    """Read the table now instead of at its first use (half a second): a server calls it at start-up."""
    _nouns()


@cache
def _depth(synset: int) -> int:
    """Steps from ``synset`` up to WordNet's root along its shortest hypernym path (at most about 20), worked
    out only for the categories asked about."""
    return 1 + min((_depth(p) for p in _nouns().parents[synset]), default=-1)


@lru_cache(maxsize=50_000)
def _senses(word: str) -> tuple[int, ...]:
    """The synsets of ``word`` or of its singular as WordNet lists it ("flutes" -> "flute", "ferries" ->
    "ferry"), under its American spelling where WordNet has one ("centre" as "center"), commonest first; none for a word
    WordNet lacks."""
    senses = _nouns().senses
    word = word.lower()
    candidates = [word]
    if word.endswith("ies") and len(word) > 4:
        candidates.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        candidates.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        candidates.append(word[:-1])
    # WordNet lists the senses under the American spelling ("centre" lacks the building "center" has)
    american = [re.sub(r"([^aeiou])re$", r"\1er", re.sub(r"([^aeiou])our$", r"\1or", c)) for c in candidates]
    candidates = [a for a, c in zip(american, candidates, strict=True) if a != c and a in senses] + candidates
    return next((senses[c] for c in candidates if c in senses), ())


def is_noun(word: str) -> bool:
    """Whether WordNet lists ``word`` (or its singular) as a noun."""
    return bool(_senses(word))


@lru_cache(maxsize=4096)
def kinds_of(category: str) -> frozenset[int]:
    """The synsets ``category`` names (each deep enough to name a kind; empty for an unknown word)."""
    return frozenset(s for s in _senses(category) if _depth(s) >= MIN_DEPTH)


@lru_cache(maxsize=65536)
def _ancestors(word: str) -> frozenset[int]:
    parents = _nouns().parents
    seen: set[int] = set()
    stack = list(_senses(word)[:SENSES])
    while stack:
        for parent in parents[stack.pop()]:
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return frozenset(seen)


_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")


def names_a_kind_of(text: str, category: str) -> str | None:
    """The first word (or two-word name) of ``text`` that names a kind of ``category`` ("flute" for
    "instrument"), or ``None``. The category's own word is not a kind of it."""
    kinds = kinds_of(category)
    if not kinds:
        return None
    words = _WORD.findall(text)
    for i, word in enumerate(words):
        for candidate in ((f"{word} {words[i + 1]}",) if i + 1 < len(words) else ()) + (word,):
            if candidate.lower() != category.lower() and _ancestors(candidate) & kinds:
                return candidate
    return None


__all__ = ["MIN_DEPTH", "SENSES", "is_noun", "kinds_of", "names_a_kind_of"]
