"""Comparisons of two things the question names: "Which came first, A or B?", "Who was born earlier, A or B?",
"Which mast is taller, Brackenfell or Corrin Head?".

No passage compares them: each side's own page gives its date or its measure ("Aurèle Velloury (1829–1898) was the
founder …", "It was founded in 1874 by Eudes Drevanne, born in 1842 …"), and the words of the question reach the two
pages only together, where neither sentence answers. So each side is retrieved on its own, the sentence that gives
its value is read (:func:`side_value`), and the answer is the side the two values favour, said first and followed
by both sentences, each cited: "Aurèle Velloury. Aurèle Velloury (1829–1898) was … [1] … born in 1842 … [2]".

What dates a side is its start: a person's birth (a lifespan after the name, "born in …"), a body's or a building's
founding, opening or first use, an event's own date; the sentence must say that start in some form ("founded",
"opened", "the *strike* of 1977"). A size is a number in a unit of the compared dimension ("212 metres tall").
Where a side has no such value, or the two are equal, nothing is answered here: the other stages read the question
(and refuse it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from groundqa.judges.lexical import LIFESPAN, YEAR_IN_TEXT, features, stem
from groundqa.signatures.types import Passage
from groundqa.text import split_sentences, strip_citations

from .year_bridge import event_year

# "Which came *first*, …", "Who was born *earlier*, …", "Which mast is *taller*, …": the word that says what is
# compared, then the two sides after a comma, a colon or a dash, joined by "or"
_COMPARED = re.compile(
    r"^(?P<ask>(?:which|who|what)\b[^,:;?]*?\b(?P<word>first|earlier|earliest|sooner|older|oldest|younger|later|last|"
    r"taller|higher|longer|bigger|larger|heavier|deeper|wider|shorter|smaller|lower)\b[^,:;?]*?)"
    r"\s*(?:[,:;]|\s[-–—])\s*(?P<a>[^?]+?),?\s+or\s+(?P<b>[^?]+?)\s*\??$", re.I)
_EARLIER = frozenset(["first", "earlier", "earliest", "sooner", "older", "oldest"])
_LATER = frozenset(["younger", "later", "last"])
_BIGGER = frozenset(["taller", "higher", "longer", "bigger", "larger", "heavier", "deeper", "wider"])
# what each size word measures, as the words a sentence gives it by
_DIMENSION: dict[str, str] = {
    "taller": r"tall|high|height", "higher": r"tall|high|height|altitude|elevation", "shorter": r"tall|high|height",
    "lower": r"tall|high|height|altitude|elevation", "longer": r"long|length", "deeper": r"deep|depth",
    "wider": r"wide|width|broad", "bigger": r"\w+", "larger": r"\w+", "smaller": r"\w+", "heavier": r"\w+",
}
_SIZE = re.compile(r"\b(\d[\d,]*(?:\.\d+)?)\s*(metres?|meters?|m|km|kilometres?|feet|ft|kilograms?|kg|tonnes?|tons?|"
                   r"square metres|hectares?|acres?)\b", re.I)

# the words that say a thing started: its founding, opening, first use; a person's birth
_STARTS = frozenset(stem(w) for w in ["found", "founded", "founding", "establish", "established", "set", "opened", "open", "opening", "built", "build", "began", "begin", "started", "start", "launched", "launch", "formed", "form", "created", "introduced", "inaugurated", "first", "born", "birth", "raised"])
_SIDE_FILLER = frozenset(stem(w) for w in ["the", "a", "an", "of", "its", "his", "her", "their", "opening", "founding", "start", "beginning", "launch", "setting", "creation", "birth"])


@dataclass(frozen=True)
class Compared:
    """A question that compares two named sides: what is compared and which way wins."""

    sides: tuple[str, str]
    measure: Literal["year", "size"]
    smaller_wins: bool
    """The side with the smaller value wins: the earlier year ("first", "older"), the shorter length ("shorter")."""
    dimension: str = ""
    """For a size, the words a sentence gives it by ("tall|high|height" for "taller")."""
    born: bool = False
    """The question compares births ("Who was born earlier, …"): a lifespan or "born in …" dates a side."""


def compared_question(question: str) -> Compared | None:
    """The comparison ``question`` asks for, or ``None`` for any other question."""
    match = _COMPARED.match(question.strip())
    if match is None:
        return None
    word = match.group("word").lower()
    sides = (_side(match.group("a")), _side(match.group("b")))
    if not all(sides) or sides[0].lower() == sides[1].lower():
        return None
    born = bool(re.search(r"\bborn\b", match.group("ask"), re.I))
    if word in _EARLIER or word in _LATER:
        return Compared(sides, "year", word in _EARLIER, born=born)
    return Compared(sides, "size", word not in _BIGGER, dimension=_DIMENSION[word])


def _side(text: str) -> str:
    """A side as the question writes it, without the framing around the pair ("the two, …")."""
    return re.sub(r"^(?:the two|both)\W+", "", text.strip().rstrip("?.!").strip(), flags=re.I).strip()


@dataclass(frozen=True)
class SideValue:
    """The value a passage sentence gives one side: a year or a size, with where it was read."""

    side: str
    value: float
    passage: Passage
    sentence: str


def _name_tokens(side: str) -> frozenset[str]:
    """The words that pick the side out ("Boutique du Quai Sorel", "newsroom strike"), without the framing of its
    start ("the *opening of* the Boutique …") or the place it is in ("the Lower Workshop *on Uhrgasse*")."""
    named = _LOCATED.sub("", side) or side
    return frozenset(t for t in features(named).content if t not in _SIDE_FILLER) or features(side).content


_LOCATED = re.compile(r"\s+(?:on|in|at|near)\s+(?:the\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*$")


def _readings(side: str, passages: Sequence[Passage]) -> list[tuple[Passage, str, str, bool]]:
    """(passage, sentence, what the sentence is read with, whether it names the side itself) for every sentence that
    names the side, itself or on its own page (titled by it, or opening on a sentence that names it): there "it",
    "he" or "she" is the side ("Eduard Orlund opened *it* in 1896", on the page of the Kelmgasse Factory)."""
    wanted = _name_tokens(side)
    out: list[tuple[Passage, str, str, bool]] = []
    for passage in passages:
        sentences = [strip_citations(raw) for raw in split_sentences(passage.text)]
        own_page = all(features(passage.title).covers(t) for t in wanted) or bool(
            sentences and all(features(sentences[0]).covers(t) for t in wanted))
        for sentence in sentences:
            if all(features(sentence).covers(t) for t in wanted):
                out.append((passage, sentence, sentence, True))
            elif own_page and _PRONOUN.search(sentence):
                out.append((passage, sentence, f"{passage.title}. {sentence}", False))
    return out


_PRONOUN = re.compile(r"\b(?:[Ii]t|[Ii]ts|[Hh]e|[Ss]he|[Hh]is|[Hh]er|[Tt]hey)\b")


def side_value(compared: Compared, side: str, passages: Sequence[Passage]) -> SideValue | None:
    """The value the best sentence about ``side`` gives it (``passages`` best first): for a year, its start (a
    lifespan right after its name, or the year the sentence gives an act of starting: :func:`.year_bridge.event_year`;
    a sentence that names the side itself with one year and no such act comes after those that say one); for a size,
    a number in a unit beside a word of the compared dimension. ``None`` where no sentence gives one."""
    best: tuple[int, SideValue] | None = None
    for passage, sentence, read, itself in _readings(side, passages):
        if compared.measure == "size":
            size = _size(compared, read)
            if size is not None:
                return SideValue(side, size, passage, sentence)
            continue
        dated = _year(compared, side, read, itself)
        if dated is not None and (best is None or dated[1] < best[0]):
            best = (dated[1], SideValue(side, dated[0], passage, sentence))
    return best[1] if best else None


def _year(compared: Compared, side: str, read: str, itself: bool) -> tuple[float, int] | None:
    """The start year ``read`` gives the side, with its rank (0 best): a lifespan after its name ("Marthe Quillaud
    (1877–1952)") or a birth ("born in 1842") where births are compared (0), the start of a term stated by a sentence
    that names the side itself ("the regional office … at Osk Varrow from 1871 to 1988", 0), the year of a word of
    starting the sentence says ("founded in 1899", 0), or the one year of a sentence that names the side itself ("On
    the night of 9 November 1986 fire broke out … at the foot of the Brackenfell transmitter mast", 1)."""
    name = re.escape(side.split(",")[0].strip())
    lifespan = re.search(rf"{name}\s*{LIFESPAN.pattern}", read, re.I)
    if lifespan is not None:
        return float(YEAR_IN_TEXT.search(lifespan.group(0)).group(1)), 0
    if compared.born:
        born = re.search(rf"\bborn\b[^.;]{{0,40}}?{YEAR_IN_TEXT.pattern}", read)
        return (float(born.group(1)), 0) if born else None
    text = LIFESPAN.sub(" ", read)
    years = YEAR_IN_TEXT.findall(text)
    if not years:
        return None
    spans = features(text).spans
    if itself and spans:  # "The Northern Branch was the regional office … at Osk Varrow *from 1871* to 1988"
        return float(min(start for start, _ in spans)), 0
    starting = features(read).content & _STARTS
    if starting:
        year = event_year(" ".join(sorted(starting)) + " " + side, text)
        return (float(year), 0) if year else None
    return (float(years[0]), 1) if itself and len(set(years)) == 1 else None


def _size(compared: Compared, read: str) -> float | None:
    """A number in a unit ``read`` gives beside a word of the compared dimension ("its steel lattice mast, 212
    metres *tall*")."""
    for match in _SIZE.finditer(read):
        around = read[max(0, match.start() - 40): match.end() + 25]
        if re.search(rf"\b(?:{compared.dimension})\b", around, re.I):
            return float(match.group(1).replace(",", ""))
    return None


@dataclass(frozen=True)
class Verdict:
    """The side that wins and the two values it was decided by, the winner's first."""

    winner: str
    values: tuple[SideValue, SideValue]

    @property
    def lead(self) -> str:
        """The answer's first sentence: the winner as the question writes it."""
        return self.winner[:1].upper() + self.winner[1:] + "."


def decide(compared: Compared, first: SideValue | None, second: SideValue | None) -> Verdict | None:
    """The side whose value wins (``compared.smaller_wins``), or ``None`` where a value is missing or the two tie."""
    if first is None or second is None or first.value == second.value:
        return None
    win, lose = (first, second) if (first.value < second.value) == compared.smaller_wins else (second, first)
    return Verdict(win.side, (win, lose))


__all__ = ["Compared", "SideValue", "Verdict", "compared_question", "decide", "side_value"]
