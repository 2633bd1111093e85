"""Lexical analysis for the offline entailment judge: content tokens, numbers, names and negation.

Deterministic and dependency-free: a small stop-word list, a light suffix stemmer (so "studied",
"studies" and "study" meet), number normalisation ("2,418" -> "2418", "four" -> "4") and
capitalised-name spans. Results are cached per text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache

_STOPWORD_TEXT = """a an the and or but if then than so as of at by for from in into on onto to with within without about
    above after against along among around before behind below beneath beside between beyond during except
    inside near off out over past since through throughout till until up upon via per
    is are was were be been being am do does did doing done have has had having will would shall should can
    could may might must ought i me my mine we us our ours you your yours he him his she her hers it its they
    them their theirs this that these those there here who whom whose which what when where why how
    all any both each either few many more most much other some such own same very too also just only even
    still yet again ever once while because although though whether
    one ones s t d ll m re ve let lets get got rather instead"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# "many"/"more"/"still" are kept as stop words: they rarely carry the claim.

NEGATIONS = frozenset({"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "cannot", "without"})
_NEGATION_PHRASES = (("rather", "than"), ("instead", "of"))

_NUMBER_WORDS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
}
# "one" is left out on purpose: it is mostly a pronoun ("the oldest one").

# A few synonym groups common in encyclopedic corpora, mapped to one stem (after stemming).
_SYNONYMS = {
    "start": "begin", "commenc": "begin", "establish": "found", "acquir": "buy", "purchas": "buy",
    "construct": "build", "erect": "build", "manufactur": "make", "produc": "make", "finish": "end",
    "conclud": "end", "ceas": "end", "larg": "big", "award": "receiv",
    # derived nouns of dimension adjectives: "a depth of 112 metres" ~ "112 metres deep"
    "depth": "deep", "height": "high", "length": "long", "width": "wid", "breadth": "broad", "strength": "strong",
}

_IRREGULAR = {
    "built": "build", "made": "make", "began": "begin", "begun": "begin", "ran": "run", "won": "win",
    "wrote": "write", "written": "write", "bought": "buy", "sold": "sell", "taught": "teach", "held": "hold",
    "left": "leave", "took": "take", "taken": "take", "gave": "give", "given": "give", "stood": "stand",
    "rose": "rise", "risen": "rise", "grew": "grow", "grown": "grow", "kept": "keep", "spent": "spend",
    "led": "lead", "met": "meet", "went": "go", "gone": "go", "came": "come", "became": "become",
    "saw": "see", "seen": "see", "knew": "know", "known": "know", "told": "tell", "said": "say",
    "thought": "think", "brought": "bring", "fought": "fight", "caught": "catch", "paid": "pay",
    "lost": "lose", "died": "die", "dies": "die", "dying": "die", "men": "man", "women": "woman",
    "children": "child", "people": "person", "froze": "freeze", "frozen": "freeze", "drove": "drive",
    "driven": "drive", "flew": "fly", "flown": "fly", "fell": "fall", "fallen": "fall", "broke": "break",
    "broken": "break", "chose": "choose", "chosen": "choose", "spoke": "speak", "spoken": "speak",
    "threw": "throw", "thrown": "throw", "drew": "draw", "drawn": "draw", "sent": "send", "lent": "lend",
    "felt": "feel", "dealt": "deal", "meant": "mean", "slept": "sleep", "fled": "flee", "fed": "feed",
    "shot": "shoot", "sang": "sing", "sung": "sing", "swam": "swim", "wore": "wear", "worn": "wear", "sewn": "sew",
    "used": "use", "stole": "steal", "stolen": "steal",
    "sat": "sit", "dug": "dig", "hung": "hang", "shook": "shake", "shaken": "shake", "struck": "strike",
    "stuck": "stick", "swore": "swear", "sworn": "swear", "hid": "hide", "hidden": "hide", "rode": "ride",
    "ridden": "ride", "sank": "sink", "sunk": "sink", "bred": "breed", "sought": "seek", "spun": "spin",
    "withdrew": "withdraw", "withdrawn": "withdraw", "forbade": "forbid", "underwent": "undergo",
    "undertook": "undertake", "overtook": "overtake", "rebuilt": "rebuild",
}

# words whose "-ed" is no past tense ("speed" is not "spe" + "ed"; "agreed" is "agree" + "d" and stems as "agree")
_EED = frozenset(["speed", "breed", "bleed", "creed", "greed", "steed", "tweed", "proceed", "succeed", "exceed", "indeed"])

# Roman numerals that number what they follow ("Phase *III*", "World War *II*", "Part *IV*"), not "I" the pronoun
_ROMAN = {"II": "2", "III": "3", "IV": "4", "V": "5", "VI": "6", "VII": "7", "VIII": "8", "IX": "9", "X": "10"}
_NUMBERED = frozenset(["phase", "stage", "part", "chapter", "volume", "book", "act", "war", "class", "grade", "type",
                       "mark", "series", "level", "division", "league", "tier", "category", "section", "article"])

PREFIX = 5
_TOKEN = re.compile(r"\d{3}0s\b|\d[\d,]*(?:\.\d+)?|[A-Za-z\u00C0-\u024F]+(?:'[A-Za-z]+)?")
_DECADE = re.compile(r"\d{3}0s")
_YEAR = re.compile(r"1\d{3}|20\d{2}")
# A span of years stated as a term ("served *from 1998 to 2004*", "*between 1921 and 1934*", "the *1998–2004* term");
# not a lifespan in brackets ("Ilse Varga (1921–2009)"), which dates a life, not a term.
_Y = r"(1\d{3}|20\d{2})"
YEAR_IN_TEXT = re.compile(rf"\b{_Y}\b")
"""A year as written in running text ("opened in *2001*"), its one group the year."""
_MONTH = (r"(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October|November|"
          r"December)\s+")
"""A month (and day) before a year: "from *October* 2014 to *September* 2018" is a term as much as "from 2014 to
2018"."""
_SPAN = re.compile(rf"\b(?:from|between)\s+(?:{_MONTH})?{_Y}\s+(?:to|until|till|through|and)\s+(?:{_MONTH})?{_Y}\b"
                   rf"|(?<![(\d])\b{_Y}\s*[\u2013\u2014-]\s*{_Y}\b(?!\s*\))"
                   # "Halvard Brisk *(2017 to 2021)*": a term in brackets says "to", where a lifespan has a dash
                   rf"|\(\s*{_Y}\s+(?:to|until|till)\s+{_Y}\s*\)")
# "Ilse Varga (1921–2009)" states birth and death; "(d. 1903)" states death.
# "(1861–1934)", "(2 March 1902 - 17 October 1979)", "(11 January 1861 – 2 March 1931)"
_DAY_MONTH = r"(?:\d{1,2}\s+[A-Z][a-z]+\s+|[A-Z][a-z]+\s+\d{1,2},?\s+)?"
LIFESPAN = re.compile(rf"\(\s*(?:b\.\s*|born\s+)?{_DAY_MONTH}\d{{3,4}}\s*[\u2013\u2014-]\s*{_DAY_MONTH}\d{{3,4}}\s*\)")
_DIED = re.compile(r"\(\s*d\.\s*\d{3,4}\s*\)")
_CLAUSE_END = re.compile(r"[;,:()]|\s(?:but|although|though|while|whereas|and)\s")


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """A light, deterministic suffix stemmer (lower-cases; not Porter, but stable across inflections; cached: the
    rules stem the same few thousand words for every sentence they read)."""
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    w = w.replace("'", "")
    if w in _IRREGULAR:
        return stem(_IRREGULAR[w])
    if len(w) <= 3:
        return w
    if w.endswith(("ies", "ied")) and len(w) > 4:
        w = w[:-3] + "i"
    elif w.endswith("ing") and len(w) >= 6:
        w = w[:-3]
    elif w.endswith("eed") and len(w) >= 5:
        w = w if w in _EED else w[:-1]  # "agreed" is "agree" + "d"
    elif (w.endswith("ed") and len(w) >= 5) or (w.endswith("es") and len(w) >= 5 and w[-3] in "sxz"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) >= 4:
        w = w[:-1]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    if len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    return _SYNONYMS.get(w, w)


def normalise_number(token: str) -> str | None:
    """``"2,418"`` -> ``"2418"``; ``"four"`` -> ``"4"``; anything else -> ``None``."""
    low = token.lower()
    if low in _NUMBER_WORDS:
        return str(_NUMBER_WORDS[low])
    if token[0].isdigit():
        value = token.replace(",", "")
        if value.endswith(".0"):
            value = value[:-2]
        return value
    return None


@dataclass(frozen=True)
class TextFeatures:
    """What the offline judge needs to know about one sentence or hypothesis."""

    tokens: frozenset[str]
    """Every token (stemmed, stop words included): for looking names up case-insensitively."""
    content: frozenset[str]
    """Content tokens: stems of non-stop words, plus normalised numbers."""
    numbers: frozenset[str]
    names: tuple[tuple[str, ...], ...]
    """Capitalised spans, lower-cased, e.g. ``("edgar", "penn")``; a leading stop word is dropped."""
    negated: frozenset[str]
    """Head stems of negated clauses ("never climbed Mount Tessaly" -> ``{"climb"}``)."""
    prefixes: frozenset[str] = frozenset()
    """5-letter prefixes of the longer word tokens ("volcanic" -> "volca"): near-matches across word forms."""
    years: frozenset[str] = frozenset()
    """Years as written ("1952", not "1,400", which is a quantity; not "1960s", which is a decade)."""
    spans: frozenset[tuple[int, int]] = frozenset()
    """Spans of years stated as terms ("from 1998 to 2004" -> ``(1998, 2004)``): each year inside is covered."""

    def spans_year(self, year: str) -> bool:
        """Whether a stated span of years holds ``year`` ("served from 1998 to 2004" holds 2001)."""
        return year.isdigit() and any(start <= int(year) <= end for start, end in self.spans)

    def covers(self, token: str) -> bool:
        """``token`` occurs here, exactly or as a word sharing its 5-letter prefix ("volcano"/"volcanic"); a
        decade ("1960s") where a year of it does ("1967")."""
        if _DECADE.fullmatch(token):
            return token in self.tokens or any(year[:3] == token[:3] for year in self.years)
        if self.spans and _YEAR.fullmatch(token) and self.spans_year(token):
            return True
        return token in self.tokens or (len(token) >= PREFIX and token.isalpha() and token[:PREFIX] in self.prefixes)

    def covers_in_compound(self, token: str, partners: AbstractSet[str]) -> bool:
        """``token`` is half of a word written closed here whose other half is one of ``partners`` (the other words
        of what is checked): "Apple Talk" is "*AppleTalk*", "rain fell" is "*rainfall*". Words are read as stemmed,
        so a closed word whose end reads as a suffix ("seabed", stemmed "seab") is not split."""
        def partner(rest: str) -> bool:
            return rest in partners or stem(rest) in partners

        return len(token) >= 3 and any(
            len(word) >= len(token) + 3 and ((word.endswith(token) and partner(word[: -len(token)]))
                                             or (word.startswith(token) and partner(word[len(token):])))
            for word in self.tokens)

    def covers_misspelt(self, token: str) -> bool:
        """``token`` occurs here, or spelt one letter otherwise (:func:`misspelling_of`: "telnet" for
        "telenet"): a name typed by a person."""
        if self.covers(token):
            return True
        return len(token) >= TYPO_MIN and any(misspelling_of(token, word) for word in self._spellable.get(token[0], ()))

    @cached_property
    def _spellable(self) -> dict[str, tuple[str, ...]]:
        """The tokens a misspelling may stand for (:data:`TYPO_MIN` letters or more), by first letter: the judge asks
        of every word of a hypothesis against every sentence, and most pairs differ in their first letter."""
        out: dict[str, list[str]] = {}
        for word in self.tokens:
            if len(word) >= TYPO_MIN:
                out.setdefault(word[0], []).append(word)
        return {first: tuple(words) for first, words in out.items()}


#: Shortest word a one-letter misspelling is forgiven in.
TYPO_MIN = 6


def misspelling_of(typed: str, word: str) -> bool:
    """Whether ``typed`` is ``word`` with one letter substituted, added, dropped or swapped with its
    neighbour, both of :data:`TYPO_MIN` letters or more and starting alike, where one letter seldom
    makes another word (it can: "painter", "printer")."""
    if typed == word or min(len(typed), len(word)) < TYPO_MIN or typed[0] != word[0] or abs(len(typed) - len(word)) > 1:
        return False
    if len(typed) == len(word):
        diff = [i for i, (x, y) in enumerate(zip(typed, word, strict=True)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and typed[diff[0]] == word[diff[1]]
                                  and typed[diff[1]] == word[diff[0]])
    short, long = (typed, word) if len(typed) < len(word) else (word, typed)
    i = next((i for i, (x, y) in enumerate(zip(short, long, strict=False)) if x != y), len(short))
    return short[i:] == long[i + 1:]


def _words(text: str) -> list[str]:
    return _TOKEN.findall(text)


_OWN_NOT_A_VERB_AFTER = frozenset(("my", "your", "his", "her", "its", "our", "their", "one's", "whose", "own", "of", "is", "was",
                          "be", "that", "which", "it", "and", "or", "on", "in", "by", "to"))
_NOUN_OR_VERB = {
    "own": _OWN_NOT_A_VERB_AFTER,
    "mine": frozenset(("is", "was", "are", "were", "of", "be", "and", "or", "yours", "")),
}
"""Stop words that are also a content word ("a coal *mine*", "Did Gideon Hask ever *own* …?": the verb a yes/no
question asks about), and the preceding words after which they are not ("their own", "of mine", "it is mine"). "Owns"
and "owned" stay stop words: "the charity that *owns* Skellan Island" is not "owned by the Vennick family until
1952"."""


@lru_cache(maxsize=200_000)
def features(text: str) -> TextFeatures:
    """Tokens, content tokens, numbers, name spans and negated heads of ``text`` (cached)."""
    raw = _words(text)
    tokens: set[str] = set()
    content: set[str] = set()
    numbers: set[str] = set()
    before = ""
    for word in raw:
        number = normalise_number(word)
        if number is None and word in _ROMAN and before.lower() in _NUMBERED:
            number = _ROMAN[word]  # "Phase III" is "phase 3"
        previous, before = before.lower(), word
        if number is not None:
            numbers.add(number)
            content.add(number)
            tokens.add(number)
            continue
        s = stem(word)
        tokens.add(s)
        low = word.lower()
        if low not in STOPWORDS and s not in STOPWORDS and low not in NEGATIONS and not low.endswith("n't"):
            content.add(s)
        elif low in _NOUN_OR_VERB and previous not in _NOUN_OR_VERB[low]:
            content.add(s)  # "a coal *mine*", "Did Gideon Hask ever *own* …?": not "mine" or "its own"
    if LIFESPAN.search(text):
        tokens.update(("born", "die"))
    elif _DIED.search(text):
        tokens.add("die")
    return TextFeatures(
        tokens=frozenset(tokens), content=frozenset(content), numbers=frozenset(numbers),
        names=tuple(_names(raw)), negated=frozenset(_negated_heads(text)),
        prefixes=frozenset(t[:PREFIX] for t in tokens if len(t) >= PREFIX and t.isalpha()),
        years=frozenset(y for w in raw if _YEAR.fullmatch(y := w.rstrip(","))),
        spans=frozenset(_spans(text)),
    )


def term_spans(text: str) -> list[tuple[int, int, int]]:
    """``(start, end, offset)`` of each span of years ``text`` states as a term (:data:`_SPAN`), ``offset`` being
    where it is written."""
    out = []
    for match in _SPAN.finditer(text):
        start, end = (int(y) for y in match.groups() if y is not None)
        if start <= end:
            out.append((start, end, match.start()))
    # a term still running ("Bertil Ashcombe, *since 2020*", "Declan Furze (*2016–present*)") holds the years after its
    # start up to this one: in its first year the one before may have held it ("rector *since 2017*" says nothing of
    # who was rector before 2017)
    # (the current holder is named after the words that say so: the term is written where their name has been)
    out += [(int(next(y for y in m.groups() if y)) + 1, _STILL, m.end() if m.group(3) else m.start())
            for m in _RUNNING.finditer(text)]
    bracketed = [(int(m.group(1)), int(m.group(2)), m.start()) for m in _BRACKETED_RANGE.finditer(text)
                 if int(m.group(1)) <= int(m.group(2))]
    # holders listed by rank, or one after another (each bracket starting where the one before ended: "Corvin
    # Vennick (1771–1809); Corvin's son Matthis Vennick (1809–1844); Elof Grunstad (1844–1879)"): their brackets hold
    # terms, not lifespans
    handed_on = sum(a[1] == b[0] for a, b in itertools.pairwise(bracketed))
    if len(_RANKS.findall(text)) >= 2 or handed_on >= _HANDED_ON:
        out += bracketed
    return out


_HANDED_ON = 2
"""How many brackets must start in the year the one before ended for them to read as a list of terms."""


_RUNNING = re.compile(rf"\bsince\s+{_Y}(?=\s*(?:[,;)]|$|\.\s|\.$| and\b))|\b{_Y}\s*[\u2013\u2014-]\s*(?:present|today|now)\b"
                      # the holder named as the current one, and when they came in ("The *current* chair, Anselm
                      # Quaye, a statistician, *took office in October 2022*", "the *present* chairman, Mattias
                      # Perren, *was elected in 2008*")
                      rf"|\b(?:current|present)\b[^.;]*?\b(?:took office|took over|was (?:elected|appointed|named)|"
                      rf"became)\s+(?:[a-z]+\s+)?(?:in\s+)?(?:[A-Z][a-z]+\s+)?{_Y}\b",
                      re.I)
_STILL = date.today().year
"""The end of a term still running: this year ("since 2020" says nothing of 2031)."""
ORDINAL_WORDS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
"""The ranks written as words, as a regular expression's alternatives."""
_RANKS = re.compile(rf"\b(?:{ORDINAL_WORDS}),", re.I)
"""A rank that opens an item of a list ("*first,* Tobias Wrenfield (1862–1879); *second,* Hugh Lastry (1879–1902)")."""
_BRACKETED_RANGE = re.compile(rf"\(\s*{_Y}\s*[\u2013\u2014-]\s*{_Y}\s*\)")


def _spans(text: str) -> list[tuple[int, int]]:
    """The spans of years ``text`` states as terms (:data:`_SPAN`), earlier year first."""
    return [(start, end) for start, end, _ in term_spans(text)]


@lru_cache(maxsize=100_000)
def token_features(tokens: frozenset[str]) -> TextFeatures:
    """Features of a bare token set (for near-match look-ups with :meth:`TextFeatures.covers`)."""
    return TextFeatures(
        tokens=tokens, content=tokens, numbers=frozenset(), names=(), negated=frozenset(),
        prefixes=frozenset(t[:PREFIX] for t in tokens if len(t) >= PREFIX and t.isalpha()),
    )


def _names(raw: list[str]) -> list[tuple[str, ...]]:
    spans: list[tuple[str, ...]] = []
    current: list[str] = []
    for word in [*raw, "."]:
        if (word[:1].isupper() and word.lower() not in STOPWORDS and word.lower() not in NEGATIONS
                and normalise_number(word) is None):  # "*Fourteen* fire engines fought …" counts, it names nothing
            current.append(stem(word))
        else:
            if current:
                spans.append(tuple(current))
            current = []
    return spans


def _negated_heads(text: str) -> set[str]:
    """Stems of the lower-case content words in the scope of a negation (up to the clause end).

    Names and numbers are left out (they are the arguments, not the negated predicate): "Edgar Penn
    never climbed Mount Tessaly, although ..." -> ``{"climb"}``.
    """
    heads: set[str] = set()
    for clause in _CLAUSE_END.split(" " + text + " "):
        words = _words(clause)
        lows = [w.lower() for w in words]
        in_scope = False
        contrast: int | None = None  # where "instead of" / "rather than" sets one thing against another
        contrasted: set[str] = set()
        for i, (word, low) in enumerate(zip(words, lows, strict=True)):
            if word == "No" and i + 1 < len(words) and words[i + 1][:1].isdigit():
                continue  # "locomotive *No.* 1 Ilse" is a number, not a denial
            if (low in NEGATIONS or low.endswith("n't")) and lows[max(0, i - 2):i] != ["whether", "or"]:
                in_scope = True  # "whether or not it is busy" denies nothing
                continue
            if i + 1 < len(lows) and (low, lows[i + 1]) in _NEGATION_PHRASES:
                in_scope = True
                contrast = i if contrast is None else contrast
                continue
            if not in_scope or low in STOPWORDS or word[:1].isupper() or word[:1].isdigit():
                continue
            if normalise_number(word) is None:
                (heads if contrast is None else contrasted).add(stem(word))
        # "described by the Schrödinger equation *instead of* Newtonian equations" sets one equation against another:
        # a word said on both sides of the contrast is not what it denies
        heads |= contrasted - {stem(w) for w in lows[:contrast or 0]}
    return heads


def negates(sentence: str) -> bool:
    """``sentence`` denies something: a negated clause, or a negation word anywhere ("no winter service")."""
    return bool(features(sentence).negated
                or NEGATIONS & set(sentence.lower().replace("whether or not", "whether").split()))


# Where a sentence goes on about what it said (not "and", which may join what it denies to the rest)
_SUBCLAUSE = re.compile(r"[;,:()]|\s(?:but|although|though|while|whereas|which|who)\s")


def negated_clause(sentence: str) -> str:
    """The clause of ``sentence`` that denies ("Varrick never set foot on the Grauzahn" of "…, which he regarded
    as loose and unlucky; he is said to have …"), else the whole sentence: what a denial means, without the
    clauses that only go on about it."""
    clauses = [c.strip() for c in _SUBCLAUSE.split(sentence) if c and c.strip()]
    return next((c for c in clauses if negates(c)), sentence)


# A rank, title or office written before a full name; the name is what the other passages use ("*Count* Aurel
# Vessendorf" is Aurel Vessendorf on his page).
HONORIFICS = frozenset(re.findall(r"[a-z]+", """matron sister nurse doctor dr surgeon professor prof captain
    commander colonel major general admiral lieutenant sergeant inspector constable sir dame lady lord mr mrs ms miss
    reverend rev father bishop abbot mayor alderman councillor judge chief count countess baron baroness duke duchess
    prince princess"""))


# The last word of a name that is a body or a place, never a person ("Orvenau Alpine *Club*").
NOT_A_PERSON = frozenset(stem(w) for w in ["club", "institute", "institution", "museum", "station", "company", "systems", "society", "school", "university", "college", "academy", "island", "lake", "river", "glacier", "valley", "mountain", "peak", "street", "square", "bridge", "hall", "church", "chapel", "library", "garden", "trust", "foundation", "council", "committee", "orchestra", "festival", "league", "party", "railway", "line", "port", "harbour", "harbor", "shipyard", "slipways", "works", "press", "gazette", "house", "hotel", "hospital", "clinic", "centre", "center", "laboratory", "observatory", "park", "reserve", "strait", "sea", "bay", "ridge", "pass", "village", "town", "city", "county", "province", "region", "district", "board", "authority", "commission", "guild", "union", "association", "agency", "ministry", "department", "series", "polytechnic",
                                                     "conservatory", "seminary", "lyceum", "infirmary", "brewery", "distillery",
                                                     "factory", "foundry", "boathouse", "theatre", "theater", "cathedral", "abbey",
                                                     "monastery", "priory", "service", "collection", "award", "prize", "cup", "trophy"])


# The first word of a place or an estate named after a family ("*Domaine* Marrowick", "*Villa* Harrow"),
# never a given name: such a name is no namesake of the family's people (stemmed, as name tokens are).
NAMED_AFTER_A_FAMILY = frozenset(stem(w) for w in [
    "domaine", "château", "chateau", "clos", "maison", "villa", "casa", "quinta", "tenuta", "bodega", "cantina",
    "weingut", "schloss", "castle", "fort", "mount", "lake", "port", "cape", "glen", "loch", "isle", "hotel",
    "hôtel", "café", "cafe"])


# Relatives share a surname: "Odile Marchetti's *brother*" is Paolo Marchetti, no namesake of hers; and so, mostly,
# does who comes after or before one in a family's firm ("Howel Carrow-Pryse's *successor*" is his daughter Ottilie).
KINSHIP = frozenset(stem(w) for w in ["brother", "sister", "son", "daughter", "father", "mother", "wife", "husband",
                                      "cousin", "uncle", "aunt", "nephew", "niece", "grandson", "granddaughter",
                                      "grandfather", "grandmother", "sibling", "widow", "widower", "successor",
                                      "predecessor", "heir", "heiress"])


def names_conflict(hyp_names: tuple[tuple[str, ...], ...], other: tuple[tuple[str, ...], ...],
                   hyp_tokens: frozenset[str]) -> bool:
    """True if ``other`` holds a namesake of a hypothesis name: same surname, another given name.

    ``("aldous", "penn")`` conflicts with hypothesis name ``("edgar", "penn")`` unless "aldous" also
    occurs in the hypothesis, or the hypothesis speaks of a relative (:data:`KINSHIP`).
    """
    if hyp_tokens & KINSHIP:
        return False
    for name in hyp_names:
        if len(name) < 2:
            continue
        for cand in other:
            if (len(cand) >= 2 and cand[-1] == name[-1] and cand[0] != name[0] and cand[0] not in hyp_tokens
                    and stem(name[-1]) not in NOT_A_PERSON  # Depot Hall is no namesake of Corvayne Hall
                    and cand[0] not in NAMED_AFTER_A_FAMILY):  # nor Domaine Marrowick of Augustin Marrowick
                return True
    return False
