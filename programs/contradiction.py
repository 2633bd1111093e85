"""Contradicted premises: find the passage sentence that says a presupposition is false.

A corpus that is silent about a presupposition and a corpus that contradicts it call for different
answers. Silent: refuse (``premise_unsupported``). Contradicted: say the premise is false and cite
the sentence that says otherwise (``premise_contradicted``, CREPE's *correction*). A sentence
contradicts a claim when it is about the same thing (it covers at least ``threshold`` of the claim's
other content words, and every name the claim pins) and conflicts with it in one of four ways:

* **year** — the claim's year is absent and the sentence gives another one for the same event
  ("left in 1995" / "retired … in 2011");
* **antonym** — it states the opposite predicate ("added" / "removed", "plaintext" / "hashed"), the
  opposite degree ("stronger" / "weaker", "most" / "least") or another member of a closed set (the
  *third* law for the *fifth*, *beta* decay for *alpha*);
* **negation** — it negates one of the claim's words ("… has never worked in engineering");
* **person** — it gives the same relation to a namesake ("designed by *Odile* Marchetti" for a
  claim about Paolo Marchetti).

Deterministic and lexical (:mod:`groundqa.judges.lexical`), like the offline judge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, get_args

from groundqa.judges.lexical import (
    HONORIFICS,
    ORDINAL_WORDS,
    STOPWORDS,
    TextFeatures,
    features,
    misspelling_of,
    names_conflict,
    stem,
)
from groundqa.signatures.types import Passage
from groundqa.text import embedded_text, opening, split_sentences, strip_citations

ConflictKind = Literal["year", "antonym", "negation", "person"]
ALL_KINDS: frozenset[ConflictKind] = frozenset(get_args(ConflictKind))

_PAIRS = """add remove | add removal | add drop | hash plaintext | open close | win lose | join leave | approve reject |
    increase decrease | increase reduce | begin end | start end | start stop | buy sell | rise fall | accept refuse |
    agree refuse | agree decline | accept decline | accept reject | allow ban | allow forbid | allow prohibit |
    enter exit | arrive depart | import export |
    public private | north south | east west | first last | succeed fail | alive dead | marry divorce |
    hire fire | build demolish | include exclude | support oppose | expand shrink | elect defeat | gain lose |
    encrypt plaintext | require optional | enable disable | keep abolish | keep scrap | introduce abolish |
    introduce remove | add abolish | charge free | stop continuously | interrupt continuously | grow shrink | survive die | survive kill | survive destroy | continue stop | continue end |
    strong weak | stronger weaker | strongest weakest | most least | more less | more fewer | high low |
    higher lower | highest lowest | large small | larger smaller | largest smallest | big small |
    bigger smaller | biggest smallest | long short | longer shorter | longest shortest | same different |
    similar different | common rare | common uncommon | commonly uncommonly | finite infinite |
    limited infinite | limited unlimited | conservative liberal | positive negative | internal external |
    inner outer | upper lower | maximum minimum | major minor | early late | earlier later | earliest latest |
    old new | older newer | oldest newest | fast slow | faster slower | hot cold | warm cold | heavier lighter |
    possible impossible | direct indirect | natural artificial | simple complex | cheap expensive |
    true false | right wrong | above below | inside outside | past future |
    ancient modern | medieval modern | wet dry | full empty | hard soft | harder softer | hardest softest |
    qualitative quantitative | theoretical practical | acceleration deceleration | accelerate decelerate |
    promote inhibit | enhance reduce | similar disparate | deep shallow | wide narrow | thick thin | rich poor |
    success failure | victory defeat | legal illegal | visible invisible | stable unstable |
    dependent independent | active passive | static dynamic | global local | domestic foreign |
    military civilian | male female | men women | attract repel | allow prevent |
    increase lower | raise lower | raise cut | increase cut | raise reduce | extend cut | extend shorten |
    lengthen shorten | lengthen cut | extend reduce | discrete continuous | analog digital | manual automatic | lot little |
    often rarely | often seldom | frequently rarely | commonly rarely |
    convict acquit | convict clear | guilty innocent | guilty acquit | blame clear | blame exonerate"""
# Closed sets: any two different members conflict ("the *third* law" is not "the *fifth* law").
_CLOSED_SETS = """first second third fourth fifth sixth seventh eighth ninth tenth |
    alpha beta gamma delta epsilon omega |
    monday tuesday wednesday thursday friday saturday sunday |
    january february march april june july august september october november december |
    spring summer autumn winter |
    solid liquid gas plasma |
    proton neutron electron |
    red orange yellow green blue purple black white"""
# Acts that can each happen in turn to the same thing (it opened, later closed): their opposites deny a claim only
# about one occasion.
_REVERSIBLE = frozenset(stem(w) for w in re.findall(r"[a-z]+", """add remove removal drop open close join leave begin end start
    stop buy sell rise fall enter exit arrive depart marry divorce hire fire build demolish introduce abolish scrap
    expand shrink grow increase decrease reduce raise lower gain lose cut extend shorten lengthen"""))
# One exchange seen from either side: "X bought it from Y" is "Y sold it to X". Only a claim that names who did it
# can be denied by the other verb ("Quorvane *sold* the engine" denies "Quorvane bought the engine").
_CONVERSES = frozenset(stem(w) for w in re.findall(r"[a-z]+", "buy sell acquire lend borrow give receive hire"))


_AUXILIARIES = frozenset(re.findall(r"[a-z]+", "did does do was were is are has have had will would can could"))
_OPENING = re.compile(r"^(?:(?:who|which|what)\b)?((?: ?[a-z]+){1,4})", re.I)


def asks_doer(text: str) -> bool:
    """Whether ``text`` (a question or a claim) leaves out who did what its first verb says: it opens on the verb
    ("acquired the works …") or asks for the doer ("*Who* acquired the works …?", "Which hotel group *purchased*
    …?"), the verb among its first words."""
    match = _OPENING.match(text.strip())
    if match is None:
        return False
    words = match.group(1).split()
    if (text.strip()[:1].isupper() and not re.match(r"(?i)who|which|what", text.strip())) or (
            words and words[0].lower() in _AUXILIARIES):
        return False  # a claim that opens on a name, or "What *did Quorvane* buy?", names the doer
    return any(features(w.lower()).tokens & _CONVERSES for w in words[: 3 if len(words) > 1 else 1])  # "acquired": buy


def _converse(claim: TextFeatures, unit: TextFeatures) -> bool:
    """Whether the claim's conflicting word and the sentence's are the two sides of one exchange."""
    return any(t in _CONVERSES and ANTONYMS.get(t, frozenset()) & unit.tokens & _CONVERSES for t in claim.tokens)


ANTONYMS: dict[str, frozenset[str]] = {}
# Phrases read as one word, in claims and passages alike: phrases that state a word's opposite with the word itself
# in them, read as that opposite ("visit *free of charge*" contradicts "charge school classes", "appeared *without
# interruption*" contradicts "stop printing"), and one word for a death.
_READ_AS = ((re.compile(r"\bfree of charge\b", re.I), "free"),
            # "no one was *killed*" denies "workers *died* in the fire"
            (re.compile(r"\b(?:died|perished|lost (?:their|his|her) lives?)\b", re.I), "killed"),
            (re.compile(r"\bwithout (?:any |an )?(?:interruption|break|pause)\b", re.I), "continuously"))
# "cleared the motorman *of any blame*" clears him: the blame it names is the blame it denies
_CLEARED_OF = re.compile(r"\b(clear(?:ed|s|ing)?|exonerat(?:ed|es|ing)?)((?: [\w-]+){0,3}?) of (?:any |all )?"
                         r"(?:blame|responsibility|wrongdoing)\b", re.I)


def _read_phrases(text: str) -> str:
    """``text`` with the phrases of ``_READ_AS`` replaced by the word they mean."""
    for phrase, word in _READ_AS:
        text = phrase.sub(word, text)
    return _CLEARED_OF.sub(r"\1\2", text)


# "*refused to* settle", "*declined to* sign", "*failed to* reach": the act the claim says did not happen
_REFUSAL = re.compile(r"\b(refus|declin|fail)\w* to ([a-z]+)", re.I)
_REFUSING = frozenset(stem(w) for w in ("refuse", "decline", "fail", "refusal"))


def refused_acts(text: str) -> frozenset[str]:
    """Stems of the acts ``text`` says someone refused, declined or failed to do ("refused to *settle*")."""
    return frozenset(stem(m.group(2).lower()) for m in _REFUSAL.finditer(text))


def _oppose(a: str, b: str) -> None:
    ANTONYMS[a] = ANTONYMS.get(a, frozenset()) | {b}
    ANTONYMS[b] = ANTONYMS.get(b, frozenset()) | {a}


for _pair in _PAIRS.split("|"):
    _a, _b = (stem(w) for w in _pair.split())
    _oppose(_a, _b)
for _members in _CLOSED_SETS.split("|"):
    _stems = [stem(w) for w in _members.split()]
    for _i, _a in enumerate(_stems):
        for _b in _stems[_i + 1:]:
            _oppose(_a, _b)


@dataclass(frozen=True)
class Contradiction:
    """A passage sentence that contradicts a claim, and how."""

    passage: int
    sentence: str
    kind: ConflictKind
    detail: str
    coverage: float


# A word's opposite made with a negative prefix ("*in*consistent", "*a*synchronously", "*un*solved"): after "un" any
# word, after the others only a word that reads as an adjective or an adverb, so "*in*formation" is no opposite of
# "formation" nor "*a*cross" of "cross". Stems, as :func:`~groundqa.judges.lexical.stem` writes them.
_NEGATIVE_PREFIXES = ("non", "un", "in", "im", "il", "ir", "a")
_ADJECTIVAL = re.compile(r"(?:al|ent|ant|ous|ousli|abl|ibl|iv|ic|ful|alli|entli|antli|ar)$")


def prefixed_opposites(token: str, tokens: frozenset[str]) -> set[str]:
    """The tokens of ``tokens`` that are ``token`` with a negative prefix added or taken away."""
    found: set[str] = set()
    for prefix in _NEGATIVE_PREFIXES:
        pairs = [(token, prefix + token)]  # (the word without the prefix, the other side's token)
        if token.startswith(prefix):
            pairs.append((token[len(prefix):], token[len(prefix):]))
        for base, other in pairs:
            if len(base) < 4 or other == token or other not in tokens:
                continue
            if prefix == "un" or (_ADJECTIVAL.search(base) and (prefix != "a" or len(base) >= 7)):
                found.add(other)
    return found


def conflict(claim: TextFeatures, unit: TextFeatures,
             refused: frozenset[str] = frozenset()) -> tuple[ConflictKind, str, set[str]] | None:
    """The first conflict between ``claim`` and ``unit``, with the claim tokens it accounts for. Degree
    words ("most", "more", "same") are stop words, so the antonyms are looked up among all tokens; an opposite made
    with a negative prefix ("*in*consistent") counts as an antonym. An act the claim says was ``refused``
    (:func:`refused_acts`) is denied by a sentence that says it was done, and does not refuse it itself."""
    for token in sorted(claim.tokens):
        opposite = (ANTONYMS.get(token, frozenset()) & unit.tokens) | prefixed_opposites(token, unit.tokens)
        # a claim that holds the opposite itself asks of both ("the Sound's *narrowest width*": "narrows to 900 m")
        opposite = {o for o in opposite if not any(t.startswith(o) for t in claim.tokens if len(o) >= 4)}
        if opposite and token not in unit.tokens:
            return "antonym", f"says {sorted(opposite)[0]!r}, not {token!r}", {token}
    negated = (unit.negated & claim.content) - claim.negated
    if negated:
        return "negation", "denies it", set()
    done = {t for t in refused if t in unit.tokens and t not in unit.negated}
    if done and not unit.tokens & _REFUSING:
        return "negation", f"says it did {sorted(done)[0]!r}", done | (claim.tokens & _REFUSING)
    claimed, stated = set(claim.years), set(unit.years)  # as written: "1,400 seats" is no year
    # a year inside a term the sentence states is no other year ("served from 1998 to 2004" for 2001)
    if claimed and stated and not claimed & stated and not all(unit.spans_year(y) for y in claimed):
        return "year", f"gives {', '.join(sorted(stated))}, not {', '.join(sorted(claimed))}", claimed
    if names_conflict(claim.names, unit.names, claim.tokens):
        return "person", "names another person", {t for name in claim.names for t in name[:-1]}
    return None


def conflict_about(claim: TextFeatures, sentence: TextFeatures, threshold: float,
                   context: TextFeatures | None = None, stated_both: frozenset[str] = frozenset(),
                   doer_asked: bool = False, own: TextFeatures | None = None,
                   refused: frozenset[str] = frozenset()) -> tuple[ConflictKind, str, float] | None:
    """``(kind, detail, coverage)`` when ``sentence`` conflicts with ``claim`` *about the same thing*: every
    name the claim pins is in ``context`` (the sentence with its passage title; default the sentence), and
    ``context`` covers at least ``threshold`` of the claim's other content words; else ``None``. An antonym
    of a word in ``stated_both`` is no conflict when ``context`` also has the claim's own word: the passage
    speaks of both ("the *third* son of a cooper" after "the *first* ascent of the Kessraun"). Where the claim
    leaves out who did it (``doer_asked``: "*Who* acquired the works from the family?"), the other side of the same
    exchange ("the family sold it") is no conflict. The opposite of an act that can be undone must be said of the
    claim's thing by the sentence as read on its own (``own``: after its title only where it opens on a pronoun;
    default the sentence): "… about 1,800 *finished* dials", on the fire's page, ends nothing of the fire.
    ``refused``: see :func:`conflict`."""
    found = conflict(claim, sentence, refused)
    if found is None:
        return None
    kind, detail, explained = found
    if kind == "antonym" and doer_asked and _converse(claim, sentence):
        return None
    context = context or sentence
    if kind == "antonym" and explained <= stated_both and all(context.covers(t) for t in explained):
        return None
    # a rank before a full name is not pinned ("*Count* Aurel Vessendorf" is "Aurel Vessendorf" on his page)
    ranks = {name[0] for name in claim.names if len(name) >= 3 and name[0] in HONORIFICS}
    pinned = {t for name in claim.names for t in name} - ranks
    if any(not context.covers(t) for t in pinned - explained):
        return None  # about something else: every name the claim pins must be there
    # what the claim says about them (names, numbers and the conflict itself left out)
    rest = [t for t in claim.content if t not in explained and t not in claim.numbers and t not in pinned and t not in ranks]
    if kind in ("year", "person") and len(rest) < 2:
        return None  # a name or a year with one noun asserts no event that another year or person denies
    if (kind == "antonym" and explained <= _REVERSIBLE and not rest
            and not (claim.numbers and all(context.covers(n) for n in claim.numbers))):
        return None  # "the canal opened" is not denied by "it closed to traffic in 1967": a name and an act alone
        # say nothing the opposite act, another time, rules out, unless both speak of one occasion ("2.0 *removed* it")
    reader = (own or sentence) if kind == "antonym" and explained <= _REVERSIBLE else context
    coverage = sum(reader.covers(t) for t in rest) / len(rest) if rest else 1.0
    return (kind, detail, round(coverage, 4)) if coverage >= threshold else None


_TOKEN = re.compile(r"[A-Za-z][\w'-]*|\d[\d,.]*(?:st|nd|rd|th)?\b")
# a relation that holds both ways: "Kessenbrunn was twinned with Varnoux" says who is twinned with Kessenbrunn
_SYMMETRIC = frozenset(stem(w) for w in re.findall(r"[a-z]+", """twinned married met allied partnered bordered merged
    neighboured rivalled against versus"""))


@lru_cache(maxsize=20_000)
def _slots(text: str) -> tuple[tuple[str, str, bool], ...]:
    """(word, stem, is a name's or a number's word) for each word of ``text``: a capitalised word inside a sentence, or
    opening the text when it is no stop word ("*Newton* was instrumental in …", not "*Who* joined …"), or a number.
    Cached: the answer check reads one question against many sentences."""
    out: list[tuple[str, str, bool]] = []
    end = 0
    for match in _TOKEN.finditer(text):
        word = match.group(0)
        gap = text[end: match.start()].strip()  # what stands between this word and the one before
        opening = not out or gap[-1:] in (".", "!", "?", ":", ";", "\"", "(", "\u201c")
        lower = word.lower()
        named = (word[0].isupper() and (not opening or (not out and lower not in STOPWORDS))) or word[0].isdigit()
        out.append((word, stem(lower), named))
        end = match.end()
    return tuple(out)


def _name_spans(words: tuple[tuple[str, str, bool], ...]) -> list[tuple[int, int]]:
    """(start, end) of each run of name or number words (:func:`_slots`)."""
    spans, i = [], 0
    while i < len(words):
        if words[i][2]:
            j = i + 1
            while j < len(words) and words[j][2]:
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


def _same_frame(q: tuple[tuple[str, str, bool], ...], qs: int, qe: int, s: tuple[tuple[str, str, bool], ...], ss: int,
                se: int) -> bool:
    """Whether the words around q[qs:qe] and s[ss:se] are the same, with a word that is no stop word among them: two
    on one side ("*was instrumental*"), or one on each side, neither a stop word ("*joined* Norman *forces*"), in no
    relation that holds both ways."""
    def matches(qa: int, qb: int, sa: int, sb: int) -> bool:  # q[qa:qb] and s[sa:sb], both inside their text
        inside = qa >= 0 and sa >= 0 and qb <= len(q) and sb <= len(s)
        return inside and [w[1] for w in q[qa:qb]] == [w[1] for w in s[sa:sb]]

    def content(a: int, b: int) -> bool:
        return any(w[0].lower() not in STOPWORDS for w in q[a:b])

    if any(w[1] in _SYMMETRIC for w in q[max(qs - 2, 0):qe + 2]):
        return False
    left = matches(qs - 2, qs, ss - 2, ss) and content(qs - 2, qs)
    right = matches(qe, qe + 2, se, se + 2) and content(qe, qe + 2)
    both = (matches(qs - 1, qs, ss - 1, ss) and matches(qe, qe + 1, se, se + 1)
            and content(qs - 1, qs) and content(qe, qe + 1))
    return left or right or both


def name_in_place(question: str, sentence: str) -> str | None:
    """How ``sentence`` puts another name (or number) where ``question`` has one, in the same words around it, else
    ``None``.

    "*Newton* was instrumental in describing the characteristics of falling what?" is not answered by "*Galileo* was
    instrumental in describing the characteristics of falling objects", nor "Who joined *Norman* forces?" by "Some
    Normans joined *Turkish* forces", nor "In the *19th* century …" by "In the *20th* century …": SQuAD 2.0 writes
    unanswerable questions so. The question's name is in the sentence in no such frame, the other name shares no word
    with the question, and neither is a misspelling of the other ("ARPNET" for "ARPANET")."""
    q, s = _slots(question), _slots(strip_citations(sentence))
    asked = {w[1] for w in q}
    spans = _name_spans(s)
    for qs, qe in _name_spans(q):
        name = [w[1] for w in q[qs:qe]]
        if any([w[1] for w in s[a:b]] == name and _same_frame(q, qs, qe, s, a, b) for a, b in spans):
            continue  # the sentence says it of the question's own name
        for ss, se in spans:
            other = [w[1] for w in s[ss:se]]
            if set(other) & asked or any(misspelling_of(a, b) for a in name for b in other):
                continue
            if name[0][0].isdigit() != other[0][0].isdigit():
                continue  # a number for a number, a name for a name ("the *1912* strike" is "the *Sentinel* strike")
            if _same_frame(q, qs, qe, s, ss, se):
                return f"says {' '.join(w[0] for w in s[ss:se])!r} where the question has {' '.join(w[0] for w in q[qs:qe])!r}"
    return None


def _counted(words: str, step: int = 1) -> dict[str, int]:
    """Number words in order, each worth its place times ``step`` ("_" holds a place no word takes)."""
    return {w: i * step for i, w in enumerate(re.findall(r"[a-z_]+", words)) if w != "_"}


_UNITS = _counted("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                  "sixteen seventeen eighteen nineteen")
_TENS = _counted("_ _ twenty thirty forty fifty sixty seventy eighty ninety", 10)
_ORDINAL_UNITS = _counted("_ first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
                          "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth")
_ORDINAL_TENS = _counted("_ _ twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth", 10)
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_DIGITS = re.compile(r"(\d[\d,]*(?:\.\d+)?)(st|nd|rd|th)?")
_YEAR_WORD = re.compile(r"1\d{3}|20\d{2}")


def _number_part(word: str) -> tuple[float, bool] | None:
    """(value, is an ordinal) of one word of a number ("twenty-fourth": 24, an ordinal; "1,500": 1500), else ``None``.
    A scale word ("thousand") is read by :func:`_number_spans`."""
    low = word.lower()
    if (digits := _DIGITS.fullmatch(word)) is not None:
        return float(digits.group(1).replace(",", "")), digits.group(2) is not None
    if low in _UNITS and low != "one":
        return float(_UNITS[low]), False
    if low in _TENS:
        return float(_TENS[low]), False
    if low in _ORDINAL_UNITS or low in _ORDINAL_TENS:
        return float(_ORDINAL_UNITS.get(low) or _ORDINAL_TENS[low]), True
    tens, _, unit = low.partition("-")  # "twenty-four", "thirty-fourth"
    if tens in _TENS and unit:
        if unit in _UNITS:
            return float(_TENS[tens] + _UNITS[unit]), False
        if unit in _ORDINAL_UNITS:
            return float(_TENS[tens] + _ORDINAL_UNITS[unit]), True
    return None


@lru_cache(maxsize=20_000)
def _number_spans(text: str) -> tuple[tuple[int, int, tuple[float, bool]], ...]:
    """(start, end, (value, is an ordinal)) of each number of ``text``, by its words' places (:func:`_slots`): digits,
    words and both with a scale ("three thousand", "fifteen hundred", "one hundred", "5.25 million", "thirty-fourth").
    "One" counts only before a scale word: alone it is mostly a pronoun ("the oldest one"). Cached, as :func:`_slots`:
    the answer check reads one question against many sentences."""
    slots = _slots(text)
    spans: list[tuple[int, int, tuple[float, bool]]] = []
    i = 0
    while i < len(slots):
        low = slots[i][0].lower()
        following = slots[i + 1][0].lower() if i + 1 < len(slots) else ""
        part = (1.0, False) if low in ("one", "a") and following in _SCALES else _number_part(slots[i][0])
        if part is None:
            i += 1
            continue
        start, total, current, ordinal = i, 0.0, part[0], part[1]
        i += 1
        while i < len(slots) and not ordinal:
            low = slots[i][0].lower()
            if low in _SCALES:
                if _SCALES[low] == 100:
                    current *= 100
                else:
                    total, current = total + current * _SCALES[low], 0.0
            elif (more := _number_part(slots[i][0])) is not None and not slots[i][0][0].isdigit() and more[0] < 100:
                current, ordinal = current + more[0], more[1]  # "one hundred *twenty*"
            else:
                break
            i += 1
        spans.append((start, i, (total + current, ordinal)))
    return tuple(spans)


def number_in_place(question: str, sentence: str) -> str | None:
    """How ``sentence`` puts another number where ``question`` has one, in the same words around it, else ``None``:
    "Whose city hall was used for filming on *8* April 2015?" is not answered by "… London's City Hall was filmed on
    *18* April 2015", nor "the *thirty-fourth* James Bond film" by "the *twenty-fourth* James Bond film", nor "numbered
    over *three thousand*" by "numbered over *one thousand*": SQuAD 2.0 makes unanswerable questions so. Numbers are
    compared by value, written in digits or in words; a year is left to the year rule (:func:`conflict`), a number the
    sentence also says anywhere swaps nothing, and a count is no rank ("*4* films" is not "the *fourth* film")."""
    sentence = strip_citations(sentence)
    q, s = _slots(question), _slots(sentence)

    def year(words: tuple[tuple[str, str, bool], ...], start: int, end: int) -> bool:
        return end - start == 1 and _YEAR_WORD.fullmatch(words[start][0]) is not None

    asked = [span for span in _number_spans(question) if not year(q, span[0], span[1])]
    if not asked:
        return None
    said = _number_spans(sentence)
    values = {span[2] for span in said}
    for qs, qe, value in asked:
        if value in values:
            continue
        for ss, se, other in said:
            if other[1] == value[1] and not year(s, ss, se) and _same_frame(q, qs, qe, s, ss, se):
                return (f"says {' '.join(w[0] for w in s[ss:se])!r} where the question has "
                        f"{' '.join(w[0] for w in q[qs:qe])!r}")
    return None


_FOR_NAME = re.compile(r"\b[Ff]or ((?:the )?[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)*)")


def side_swapped(question: str, sentence: str) -> str | None:
    """How ``sentence`` says of another side what ``question`` asks *for* a named one ("How many goals did Declan
    Sowerby score *for Dunhallow Town*?" is not answered by "*For Marrowby* he scored 38 goals"), else ``None``: the
    question's name is nowhere in the sentence, and another name stands after "for", sharing no word with it."""
    asked = _FOR_NAME.search(question)
    if asked is None:
        return None
    name = {stem(w) for w in re.findall(r"[A-Za-z]+", asked.group(1)) if w.lower() != "the"}
    said = {stem(w) for w in re.findall(r"[A-Za-z]+", sentence)}
    if name & said:
        return None
    for other in _FOR_NAME.finditer(sentence):
        words = {stem(w) for w in re.findall(r"[A-Za-z]+", other.group(1)) if w.lower() != "the"}
        if words and not words & name:
            return f"says {'for ' + other.group(1)!r} where the question has {'for ' + asked.group(1)!r}"
    return None


_FROM_TO = re.compile(r"\bfrom (?:the |an? |its |their )?([A-Za-z][\w-]*) "
                      r"to (?:the |an? |its |their )?([A-Za-z][\w-]*)\b")


def direction_reversed(question: str, sentence: str) -> str | None:
    """How ``sentence`` says the way back of what ``question`` asks one way ("What do bacteria use to move proteins
    *from the host to the pathogen*?" is not answered by "… a route for proteins to move *from the pathogen to the
    host*"), else ``None``: the sentence has the question's "from A to B" only as "from B to A"."""
    said = {(stem(m.group(1).lower()), stem(m.group(2).lower())) for m in _FROM_TO.finditer(sentence)}
    for match in _FROM_TO.finditer(question):
        there, back = stem(match.group(1).lower()), stem(match.group(2).lower())
        if there != back and (back, there) in said and (there, back) not in said:
            return f"says from {match.group(2)!r} to {match.group(1)!r} where the question has {match.group(0)!r}"
    return None


_ORDER = re.compile(r"\b(before|after)\b((?:\s+[\w'’-]+){1,5})", re.I)


def order_swapped(question: str, sentence: str) -> str | None:
    """How ``sentence`` puts after what ``question`` puts before, or the other way ("What do complement proteins
    activate *before* they bind to the microbe?" is not answered by "*After* complement proteins initially bind to
    the microbe, they activate …"), else ``None``: a word of the question's before/after clause stands in the
    sentence's clause of the other word, and in no clause of the same."""
    def clauses(text: str) -> list[tuple[str, set[str]]]:
        return [(m.group(1).lower(), {stem(w) for w in re.findall(r"[a-z]+", m.group(2)) if w not in STOPWORDS})
                for m in _ORDER.finditer(text)]
    said = clauses(sentence)
    for word, asked in clauses(question):
        other = [words for said_word, words in said if said_word != word and words & asked]
        same = [words for said_word, words in said if said_word == word and words & asked]
        if other and not same:
            return f"says {'after' if word == 'before' else 'before'} where the question has {word!r}"
    return None


def negated_modifier(question: str, sentence: str) -> str | None:
    """How ``sentence`` says the opposite modifier of the question's ("What continues to move with a *zero velocity*?"
    is not answered by "… it continues to move with a *non-zero velocity*"), else ``None``: a pair of words the
    question has with one polarity (plain, or after "non-"), the sentence only with the other."""
    def pairs(text: str) -> dict[tuple[str, str], set[bool]]:
        words = re.findall(r"[a-z]+", text.lower())
        out: dict[tuple[str, str], set[bool]] = {}
        for i in range(len(words) - 1):
            if words[i] not in STOPWORDS and words[i + 1] not in STOPWORDS and words[i] != "non":
                out.setdefault((words[i], words[i + 1]), set()).add(i > 0 and words[i - 1] == "non")
        return out
    said = pairs(sentence)
    for pair, polarity in pairs(question).items():
        if pair not in said:
            continue
        if said[pair] and not said[pair] & polarity:
            words = " ".join(pair)
            return (f"says {('non-' if True in said[pair] else '') + words!r} where the question has "
                    f"{('non-' if True in polarity else '') + words!r}")
    return None


_OBJECT_CLAUSE = re.compile(r"(?P<before>[^,;]*?), (?:which|that) (?P<clause>[^,;]+)")


def _words(text: str) -> list[str]:
    """The stems of ``text``'s words in order, stop words and numbers left out: where a claim's words stand."""
    return [stem(w) for w in re.findall(r"[A-Za-z]+", text.lower()) if w not in STOPWORDS]


def without_object_clauses(sentence: str, claim: str) -> str:
    """``sentence`` without a relative clause said of the claim's *object* that holds the claim's own act: in "the
    removal of … the bundled Java runtime, *which had added* about 140 megabytes" the runtime added megabytes;
    nothing in it says that the release added the runtime ("Why did Quennet 2.0 *add* a bundled Java runtime?"). A
    clause said of the claim's subject ("The canal, which closed in 1967, …") stays."""
    if ", which " not in sentence and ", that " not in sentence:  # no such clause (the pattern's least)
        return sentence
    order = _words(claim)
    position = {w: i for i, w in reversed(list(enumerate(order)))}

    def drop(match: re.Match[str]) -> str:
        antecedent = [w for w in _words(match.group("before"))[-3:] if w in position]
        acts = [w for w in _words(match.group("clause")) if w in position]
        said_of_object = antecedent and acts and min(position[a] for a in acts) < min(position[w] for w in antecedent)
        return match.group("before") if said_of_object else match.group(0)

    return _OBJECT_CLAUSE.sub(drop, sentence)


_ORDINALS = frozenset(stem(w) for w in re.findall(r"[a-z]+", ORDINAL_WORDS))
_RANKED = re.compile(rf"\b({ORDINAL_WORDS})((?:\s+[A-Za-z-]+){{1,4}})", re.I)
# a name in a ranked role's owner's place: "*Orlund's* third managing director", "the third director *of the Brevaz
# School*"
_OWNER = re.compile(rf"[A-Z][\w-]*(?: [A-Z][\w-]*)*(?:'s|\u2019s) (?=(?:{ORDINAL_WORDS})\b)"
                    r"|\b(?:of|at) (?:the )?[A-Z][\w-]*(?:(?: of)? [A-Z][\w-]*)*")


# a role someone holds, as stemmed ("director", "chairman", "abbot"): a law or a floor is ranked too, and the fifth law
# of a set does deny that the third says so
_HOLDER = re.compile(r"[a-z]+(?:er|or|ist|ian|ant|ent)|chair|chairman|chairwoman|head|abbot|abbess|mayor|dean|captain|"
                     r"keeper|warden|secretari|treasur|wife|husband|son|daughter|princip|bishop|king|queen")


def _ranks(text: str) -> dict[str, set[str]]:
    """Each ordinal of ``text`` with the stems of the (up to four) words after it: the role it ranks ("the *third
    managing director*")."""
    out: dict[str, set[str]] = {}
    for match in _RANKED.finditer(text):
        out.setdefault(stem(match.group(1).lower()), set()).update(_words(match.group(2)))
    return out


def _another_holder(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` ranks another holder of the role the claim asks about by rank, and the claim names no one
    (beyond the role's owner): "Noor Delacasse is the *seventh* and current managing director of Orlund" says who
    the seventh was; it does not deny that Orlund had a *third* ("Who did Orlund's third managing director marry?").
    A claim that names its holder ("Marta Ilgen was the *second* director") is denied by "Marta Ilgen was the
    *third*"."""
    asked, stated = _ranks(claim), _ranks(sentence)
    if not asked or not stated or set(asked) & set(stated):
        return False
    if re.search(r"\b[A-Z][a-z]", _OWNER.sub(" ", claim)[1:]):
        return False  # the claim names someone outside the owner's place
    return any(_HOLDER.fullmatch(word) for roles in asked.values() for other in stated.values() for word in roles & other)


# a role said before a name ("motorman *Edvin Strale*", "the architect *Petronella Osk*")
_ROLE_NAME = re.compile(r"\b([a-z]{4,}) ((?:[A-Z][\w-]+)(?: [A-Z][\w-]+){0,2})")


def _roles(claim: str) -> list[tuple[str, str]]:
    """(role, name) for each name the claim gives a role word before: a sentence may speak of the name by its role."""
    return [(m.group(1), m.group(2)) for m in _ROLE_NAME.finditer(claim) if m.group(1) not in STOPWORDS]


_VERDICTS = frozenset(stem(w) for w in ["convict", "acquit", "clear", "guilty", "innocent", "blame", "exonerate"])


def _verdict(claim: TextFeatures, unit: TextFeatures) -> bool:
    """Whether the antonym between ``claim`` and ``unit`` is a verdict on someone (convicted / acquitted, blamed /
    cleared), which holds of the case the page is about; not a direction or a degree ("*south* of the Old Mill")."""
    found = conflict(claim, unit)
    return found is not None and found[0] == "antonym" and bool(found[2]) and found[2] <= _VERDICTS


# "*No data* … was lost": the denial is of the noun after "no"; "no one", "no longer" deny an act
_NO_NOUN = re.compile(r"\b[Nn]o (?!one\b|longer\b|more\b|later\b|fewer\b|less\b|other\b|single\b|sooner\b)([a-z]+)")
_OTHER_NEGATION = re.compile(r"\b(?:not|never|neither|nor|none|nothing|nobody|without)\b|n't\b", re.I)


def _denies_another(claim: TextFeatures, sentence: str) -> bool:
    """Whether ``sentence`` denies only things the claim does not speak of, each as "no <noun>": "*No data* on the
    Marrow file system was lost" says nothing of the jobs the outage lost."""
    nouns = [stem(m.group(1)) for m in _NO_NOUN.finditer(sentence)]
    return bool(nouns) and not _OTHER_NEGATION.search(sentence) and not any(claim.covers(n) for n in nouns)


def find_contradiction(claim: str, passages: Sequence[Passage], threshold: float,
                       kinds: frozenset[ConflictKind] = ALL_KINDS) -> Contradiction | None:
    """The passage sentence that best contradicts ``claim`` in one of ``kinds`` (``None`` when none does)."""
    wanted = features(_read_phrases(claim))
    if not wanted.content:
        return None
    found_all: list[Contradiction] = []
    pinned = {t for name in wanted.names for t in name}
    doer_asked = asks_doer(claim)  # a claim that opens on its verb: "acquired … from the family"
    refused = refused_acts(claim)
    ranked = bool(wanted.tokens & _ORDINALS)
    roles = _roles(claim)
    dated = False  # a sentence about the claim's names in the claim's year: another year is another occasion
    for index, passage in enumerate(passages):
        known = [(role, name) for role, name in roles
                 if re.search(rf"\b{re.escape(role)},? {re.escape(name)}\b", passage.text, re.I)]
        whole: TextFeatures | None = None
        for raw in split_sentences(passage.text):
            sentence = strip_citations(raw)
            read = _read_phrases(sentence)
            # "*the motorman*", on a page that has named "its motorman, Edvin Strale", is Edvin Strale
            called = [name for role, name in known if re.search(rf"\bthe {re.escape(role)}\b", read, re.I)]
            named = f"{read} ({', '.join(called)})" if called else read
            titled = features(f"{passage.title}. {named}" if passage.title else named)
            dated = dated or bool(wanted.years and set(wanted.years) <= set(titled.years)
                                  and all(titled.covers(t) for t in pinned))
            unit = features(without_object_clauses(read, claim))
            found = conflict_about(wanted, unit, threshold, titled, doer_asked=doer_asked,
                                   own=features(embedded_text(read, passage.title)), refused=refused)
            if found is None and pinned and all(unit.covers(t) for t in pinned) and _verdict(wanted, unit):
                # a verdict on the people the sentence itself names ("The jury *acquitted* Silas Ferrand on all
                # counts") is about the case its page is about: the rest of the claim ("the 1952 animal-welfare
                # case") may be said anywhere on the page, its years in the sentence, the title or the page's
                # opening sentence ("… was a 1952 court case")
                whole = whole or features(f"{passage.title}. {_read_phrases(strip_citations(passage.text))}")
                first = features(opening(passage.text))
                if all(titled.covers(y) or first.covers(y) for y in wanted.years):
                    found = conflict_about(wanted, unit, threshold, whole, doer_asked=doer_asked, refused=refused)
            if found is not None and ((found[0] == "antonym" and ranked and _another_holder(claim, read))
                                      or (found[0] == "negation" and _denies_another(wanted, read))):
                found = None
            if found is not None and found[0] in kinds:
                found_all.append(Contradiction(index, sentence, found[0], found[1], found[2]))
    # "the fund turned to buying equipment after 1952" does not deny that it bought an X-ray set in 1913, which
    # the passage says
    candidates = [c for c in found_all if not (dated and c.kind == "year")]
    return max(candidates, key=lambda c: c.coverage, default=None)


__all__ = ["ANTONYMS", "Contradiction", "asks_doer", "conflict", "conflict_about", "direction_reversed",
           "find_contradiction", "name_in_place", "negated_modifier", "number_in_place", "order_swapped", "refused_acts",
           "side_swapped", "without_object_clauses"]
