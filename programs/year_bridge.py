"""Bridge by a year: a question that dates what it asks by an event, not by a year.

"Which mayor was in charge of Port Vessany when the Museum of the Sea first opened?" names no mayor and no year.
One document dates the event ("The Museum of the Sea opened in 2001"), another lists the terms of office ("Anton
Belair served from 1998 to 2004"); no sentence holds both, and the words of the question reach only the first. The
bridge is the year: the event's own sentence gives it, and the question is then asked again with it ("Which mayor was
in charge of Port Vessany in 2001?"), which a term that holds the year answers
(:meth:`~groundqa.judges.lexical.TextFeatures.spans_year`). The answer quotes both sentences, each cited.

Only a who- or which-question whose time is set by a clause ("when …", "in the year …", "at the time …") is bridged
this way, and only where the event's sentence says the event and gives a year; a question that gives its year
("… in 2001?") needs no bridge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundqa.hypernyms import is_noun
from groundqa.judges.lexical import LIFESPAN, YEAR_IN_TEXT, features, stem
from groundqa.signatures.types import Passage
from groundqa.text import split_sentences, strip_citations

from .answerability import PERSON_ROLE, asked, plain_words
from .bridging import Bridge

# the time of what is asked, set by an event: "… *when* the museum first opened", "… *in the year* Colm Ardley became
# harbor master", "… *the year* the regatta was called off", "… *at the time* the strike began", "… *at the time of*
# the Great Vellow Flood"
DATING_CLAUSE = r"(?:when|(?:in )?the year(?: that| when)?|(?:at|by) the time(?: of| that| when)?|while)"
"""The words that open the clause dating a question by an event."""
_DATED_BY = re.compile(rf"^(?P<main>(?:who|whom|which|what)\b.+?),?\s+{DATING_CLAUSE}\s+(?P<event>[^?]+?)\W*$", re.I)
# the main clause asks something *of* the holder ("the maiden name of the mother *of the harbour master*", "the
# *mayor's* wife"): the term answers who held the post, a hop short of that. The body a post is of is no holder
# ("Who was chairman *of the cooperative* when …", "… in charge *of the house* …")
_OF_THE_HOLDER = re.compile(rf"\bof (?:the|his|her|its|their) (?:[a-z-]+ ){{0,2}}{PERSON_ROLE}\b|"
                            r"\bthe [a-z]+(?: [a-z]+)?['’]s [a-z]")
_BORN = re.compile(r"\(born (?:on )?(?:\d{1,2} [A-Z][a-z]+ )?\d{4}(?: in [^)]*)?\)|" + LIFESPAN.pattern)
"""A birth date in brackets: when someone was born, not when the event happened."""
# an event that begins or ends a term dates by the term's first or last year ("became harbor master" in "was the
# harbor master from 1996 to 2013")
_STARTS = frozenset(stem(w) for w in re.findall(r"[a-z]+", """become became becomes began begin begins start started
    starts appointed elected joined took take named"""))
_ENDS = frozenset(stem(w) for w in re.findall(r"[a-z]+", "left leave retired retire resigned resign ended end stepped "
                                                         "died die lost"))
_OWN_WORDS = 0.05
"""How much more a dating sentence scores for each share of the event's words it holds itself, not by its title."""
_BORROWED = 0.1
"""How much less a dating sentence scores where its year is its passage's opening's, not its own."""
_MIN_COVERAGE = 0.6
"""Share of the event's words that its dating sentence (with its passage title) must hold."""


@dataclass(frozen=True)
class DatedQuestion:
    """A question split at the clause that dates it: ``main`` asks, ``event`` dates."""

    main: str
    event: str

    def at(self, year: str) -> str:
        """The question asked of a year ("Which mayor was in charge of Port Vessany in 2001?")."""
        return f"{self.main} in {year}?"


_KINDS = frozenset(("person", "organisation"))


def dated_question(question: str) -> DatedQuestion | None:
    """``question`` split at an event clause that sets its time, or ``None`` (no such clause, a when-question, a
    clause that gives its own year, an answer that is not someone or a body, or a main clause that asks something of
    the holder: a term of office gives the holder's name, nothing more)."""
    match = _DATED_BY.match(question.strip())
    if match is None or YEAR_IN_TEXT.search(match.group("event")) or asked(question).kind not in _KINDS:
        return None
    main, event = match.group("main").strip(), plain_words(match.group("event").strip())  # "3.0 shipped": released
    if _OF_THE_HOLDER.search(main):
        return None
    if len(features(event).content) < 2:  # "… when it opened": nothing to find the event by
        return None
    return DatedQuestion(main, event)


@dataclass(frozen=True)
class HeldPost:
    """A question asked of whoever held a post at the time of an event ("In which town was *the Collector of Customs
    in office when the Salt Barge Affair came to light* born?"): ``holder`` asks who that was (a
    :class:`DatedQuestion`), ``asks`` is the question with ``{}`` where their name goes."""

    holder: DatedQuestion
    asks: str

    def of(self, name: str) -> str:
        """The question asked of the holder by name ("In which town was Aldo Kestrel born?")."""
        return self.asks.format(name)


# what is asked of the holder: where or when they were born, died or were buried
_LIFE_VERB = r"(?P<verb>born|died|buried)"
# "… was *the person who chaired* the allocation committee *when* the Stowe archive opened born", "… was *the
# Collector of Customs in office when* …", "… was the steering committee chair *at the time of* the 3.0 release born"
_HOLDER = (r"the (?:(?:person|man|woman) (?:who|that) (?P<did>[^?]+?)|(?P<post>[^?]+?)(?: in office| who (?:was in|held) "
           r"office)?)"
           rf",? {DATING_CLAUSE} (?P<event>[^?]+?)")
_HELD_POST = (
    re.compile(rf"^(?P<wh>(?:in |from |at )?(?:where|when|which|what)\b[^?]*?\bwas) {_HOLDER} {_LIFE_VERB}\W*$", re.I),
    # the description after its verb: "Where was *the man* born *who was club president when* …?"
    re.compile(r"^(?P<wh>(?:in |from |at )?(?:where|when|which|what)\b[^?]*?\bwas) the (?:person|man|woman) "
               rf"{_LIFE_VERB} (?:who|that) (?P<did>[^?]+?),? {DATING_CLAUSE} (?P<event>[^?]+?)\W*$", re.I),
)


def held_post(question: str) -> HeldPost | None:
    """``question`` split into who held a post when an event happened and what it asks of them, or ``None`` (no
    such description, an event dated by its own year, or too few words to find it by)."""
    for pattern in _HELD_POST:
        match = pattern.match(question.strip())
        if match is None or YEAR_IN_TEXT.search(match.group("event")):
            continue
        groups = match.groupdict()
        role = f"who {groups['did']}" if groups.get("did") else f"who was {groups['post']}"
        event = plain_words(match.group("event").strip())
        if len(features(event).content) < 2 or _OF_THE_HOLDER.search(role):
            continue
        return HeldPost(DatedQuestion(role, event), f"{match.group('wh')} {{}} {match.group('verb')}?")
    return None


def event_year(event: str, sentence: str) -> str | None:
    """The year ``sentence`` gives the ``event``: its only year, the first or last of a stated term where the event
    begins or ends one ("became harbor master": 1996 of "harbor master from 1996 to 2013"), else the year whose clause
    goes on to say the event's last word that it holds ("in 1911, when a long drought …"), else the first year after
    that word (else the last year before). Birth dates do not date events, nor does an aside that says none of the
    event's words (", which had stood there since 1862" in "It destroyed the alp's cheese hut and stable, which had
    stood there since 1862, …")."""
    said = features(event)
    text = _ASIDE.sub(lambda m: m.group(0) if features(m.group(0)).content & said.content else " ",
                      _BORN.sub(" ", sentence))
    years = [(m.start(), m.group(1)) for m in YEAR_IN_TEXT.finditer(text)]
    if not years:
        return None
    if len(years) == 1:
        return years[0][1]
    spans = sorted(features(text).spans)
    if spans and said.tokens & _STARTS:
        return str(spans[0][0])
    if spans and said.tokens & _ENDS:
        return str(spans[0][1])
    # the event's last word that the sentence has is usually its verb ("the series was first *shown*" in "painted in
    # 2014 and first *shown* in 2015"); where a word recurs, its first place counts
    places: dict[str, int] = {}
    for match in re.finditer(r"[A-Za-z]+", text):
        places.setdefault(stem(match.group(0)), match.start())
    # or its verb where the sentence says that later, in another voice ("the cheese hut and stable, dating from
    # 1862, were *destroyed* by the avalanche of January 1951" for "the avalanche destroyed the cheese hut")
    held = [w for w in reversed(re.findall(r"[A-Za-z]+", event)) if stem(w) in places and stem(w) in said.content]
    verb = next((w for w in held if not is_noun(w.lower())), None)
    at = max(places[stem(w)] for w in (held[0], verb) if w) if held else None
    if at is None:
        return years[0][1]
    # a year whose own clause goes on to say the event ("in 1911, *when* a long *drought* left too little water …,
    # and in 1947, when …") dates it
    owned = [y for pos, y in years if pos < at and _WHEN_CLAUSE.fullmatch(text[pos + 4: at])]
    if owned:
        return owned[-1]
    after = [y for pos, y in years if pos > at]
    return after[0] if after else years[-1][1]


def _one_year(sentence: str) -> str | None:
    """The year ``sentence`` gives where it gives one (birth dates aside), else ``None``."""
    years = YEAR_IN_TEXT.findall(_BORN.sub(" ", sentence))
    return years[0] if len(set(years)) == 1 else None


_ASIDE = re.compile(r",\s*(?:which|who|whose)\b[^,;.]*")
"""A non-restrictive relative clause: an aside about the noun before it."""
_WHEN_CLAUSE = re.compile(r",?\s*(?:when|as|while|because|after)\b[^,;.]*")
"""What lies between a year and the event word where the year's clause goes on to say the event."""


def find_year_bridge(dated: DatedQuestion, passages: Sequence[Passage], max_passages: int = 3) -> Bridge | None:
    """The sentence of ``passages`` (the best ``max_passages`` of a retrieval for the event) that dates the event
    and the year it gives, as a :class:`~.bridging.Bridge` whose second hop asks the question of that year; ``None``
    where no sentence holds the event's names and most of its words, with a year."""
    wanted = features(dated.event)
    names = {t for name in wanted.names for t in name}
    best: tuple[float, Bridge] | None = None
    for order, passage in enumerate(passages[:max_passages]):
        sentences = [strip_citations(raw) for raw in split_sentences(passage.text)]
        for sentence in sentences:
            unit = features(f"{passage.title}. {sentence}")
            if not all(unit.covers(t) for t in names):
                continue
            coverage = sum(unit.covers(t) for t in wanted.content) / len(wanted.content)
            if coverage < _MIN_COVERAGE:
                continue
            year, borrowed = event_year(dated.event, sentence), 0.0
            if year is None and sentence != sentences[0]:
                # a sentence that says the event but not when ("Its best-known change was the removal of the Gantry
                # build driver") is dated by its passage's opening ("Quennet 2.0 was released on 9 September 2015")
                year, borrowed = _one_year(sentences[0]), _BORROWED
            if year is None:
                continue
            # the sentence that says the event itself beats one that has it only from its page's title ("Quennet 4.0
            # … was released on 22 November 2021", not "A point release, 4.1, followed in March 2022" on that page)
            own = features(sentence)
            score = coverage - 0.01 * order - borrowed + _OWN_WORDS * sum(own.covers(t) for t in wanted.content) / len(wanted.content)
            if best is None or score > best[0]:
                best = (score, Bridge(entity=year, chunk_id=passage.chunk_id, sentence=sentence,
                                      query=f"{dated.main} {year}", asks=dated.at(year)))
    return best[1] if best else None


__all__ = ["DATING_CLAUSE", "DatedQuestion", "HeldPost", "dated_question", "event_year", "find_year_bridge", "held_post"]
