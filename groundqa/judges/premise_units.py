"""A premise cut into the units the offline judge scores: one or two adjacent sentences, with or
without the passage's title.

A hypothesis is usually stated by one sentence, sometimes by two adjacent ones ("She retired in
2011." needs the sentence before it, or the title, to say who "she" is); scoring such windows, not
the whole passage, keeps an unrelated sentence of a long passage from lending the hypothesis words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from groundqa.judges.lexical import TextFeatures, features
from groundqa.text import split_sentences


def union(parts: Sequence[TextFeatures]) -> TextFeatures:
    """The features of several texts read together."""
    if len(parts) == 1:
        return parts[0]
    return TextFeatures(
        tokens=frozenset().union(*(p.tokens for p in parts)),
        content=frozenset().union(*(p.content for p in parts)),
        numbers=frozenset().union(*(p.numbers for p in parts)),
        names=tuple(n for p in parts for n in p.names),
        negated=frozenset().union(*(p.negated for p in parts)),
        prefixes=frozenset().union(*(p.prefixes for p in parts)),
        years=frozenset().union(*(p.years for p in parts)),
    )


def bridged(parts: Sequence[TextFeatures]) -> bool:
    """Joint support needs a bridge: every unit shares a name token with another unit of the group.

    Without one, the union of two unrelated passages ("the railway ..." + "... bought by Meerkant in
    2015") would lexically "support" a claim that neither makes.
    """
    name_sets = [{tok for name in p.names for tok in name} for p in parts]
    return all(any(name_sets[i] & name_sets[j] for j in range(len(parts)) if j != i) for i in range(len(parts)))


@dataclass(frozen=True)
class PremiseUnit:
    """A window of one or two premise sentences, optionally with the premise's header (title)."""

    premise: int
    sentences: tuple[int, ...]
    with_header: bool
    feats: TextFeatures
    conflict_names: tuple[tuple[str, ...], ...]
    """Names for the namesake check: the unit's own, plus the header's for a sentence opening with a
    subject pronoun ("She retired in 2011." under the title "Odile Marchetti" is about Odile)."""


@dataclass(frozen=True)
class ParsedPremise:
    """A premise's header (title, or first sentence), its sentences and every unit built from them."""

    header: str | None
    sentences: tuple[str, ...]
    units: tuple[PremiseUnit, ...]


_SUBJECT_PRONOUN = re.compile(r"^\W*(?:he|she|they|it)\b", re.IGNORECASE)


@lru_cache(maxsize=20_000)
def parse_premise(text: str) -> ParsedPremise:
    """Header, sentences and units of a premise that may start with a ``"Title: ...\\n"`` line (cached)."""
    header, sentences = _header_and_sentences(text)
    sent_feats = [features(s) for s in sentences]
    head_feats = features(header) if header else None
    implied = [
        head_feats.names if head_feats is not None and _SUBJECT_PRONOUN.match(s) else () for s in sentences
    ]
    units: list[PremiseUnit] = []
    windows = [(i,) for i in range(len(sentences))] + [(i, i + 1) for i in range(len(sentences) - 1)]
    for window in windows:
        parts = [sent_feats[i] for i in window]
        feats = union(parts)
        conflict = feats.names + tuple(n for i in window for n in implied[i])
        units.append(PremiseUnit(-1, window, False, feats, conflict))
        if head_feats is not None and not (header == sentences[0] and 0 in window):
            with_head = union([head_feats, *parts])
            units.append(PremiseUnit(-1, window, True, with_head, with_head.names + conflict))
    return ParsedPremise(header, sentences, tuple(units))


def premise_sentences(text: str) -> tuple[str, ...]:
    """The sentences the judge reads of a premise (:func:`parse_premise`'s), without building its units: what an index
    embeds ahead of a question (:mod:`groundqa.programs.passage_reading`)."""
    return _header_and_sentences(text)[1]


def _header_and_sentences(text: str) -> tuple[str | None, tuple[str, ...]]:
    """The ``Title:`` line (or, failing one, the first of several sentences) and the body's sentences."""
    header: str | None = None
    body = text.strip()
    first, _, rest = body.partition("\n")
    if first.lower().startswith("title:"):
        header, body = first[6:].strip() or None, rest.strip()
    sentences = tuple(split_sentences(body)) or ((body,) if body else ())
    if header is None and len(sentences) > 1:
        header = sentences[0]  # the first sentence usually names the subject of later pronouns
    return header, sentences
