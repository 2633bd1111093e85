"""A deterministic presupposition extractor for LMs too small to do it (the embedded default).

A question presupposes only what it asserts *beyond the asked slot*. The slot is the wh-phrase
("how high", "on which day", "what winter course", "who"); what is left is either a plain look-up of
an attribute of something ("How high is Mount Orrin?") or an event or relation the question takes for
granted ("When did Paolo Marchetti design the lights?"). Rules, in order:

* a **yes/no** question presupposes only that the things it names exist (the asked event is what is
  asked, not presupposed: "Did X ever live on Calder?");
* a **how many … were <participle>** question presupposes that what it counts happened (role ``counted``:
  worded otherwise like an asked relation, and denied by a passage that says none did: "no one was killed");
* a **why** question presupposes its whole remainder ("Why was the festival cancelled in 2020?"), asserted
  (role ``explained``): a sentence that gives its cause may also state it ("She *resigned* in 1904 *because of*
  failing eyesight" for "Why did she step down?");
* a **look-up** (the slot, then *is/are/was/were*, then what it is about) presupposes the names and
  years it pins, a possessive relation between two names ("Colm Ardley's Nine Dark Nights"), and a
  definite description placed by a locative or participle ("the tunnel *under* the Vessany Strait",
  "the keeper *living in* the lighthouse"); never the asked attribute, so "How deep is the lake?" or
  "Which language is the engine written in?" cannot be refused as a false premise;
* otherwise the remainder is an **event** the question takes for granted, with the slot's modifiers
  ("What *winter* course does Odile teach?" -> "Odile Marchetti teach winter"); a remainder with fewer
  than 3 content words presupposes only its names. Outside a why-question that event is what the
  question *asks about* (role ``asked``): it is refused only when no passage comes near it
  (``gates.asked_premise_threshold``), since a passage that answers may word it otherwise; whether an
  answer really holds it is then the answerability check's call;
* a question that **describes** what it asks about with a relative clause ("Who chaired the body *that* bought
  the Sentinel?") is answered in two hops, one page naming the body and another saying who chaired it: no one
  passage carries its relation, so it presupposes only its names (the bridge and the answer check hold both hops
  to the rest).

At most 3 claims of at most 15 words each.
"""

from __future__ import annotations

import re
from typing import Literal

from groundqa.signatures.qa import Presupposition
from groundqa.text import content_words

from .answerability import (
    CALENDAR_WORDS,
    RELATIVE_HEAD,
    asks_for_description,
    describes_by_role,
    describes_entity,
    plain_words,
)
from .comparison import compared_question
from .year_bridge import DATING_CLAUSE, dated_question

_YES_NO = {"is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will",
           "would", "should", "shall", "may", "might", "must"}
_WH = re.compile(
    r"^(?:in |on |at |from |for |by |with |to |off |during |since |until |under )?"
    r"(?P<wh>what|when|where|who|whom|whose|which|why|how)\b\s*", re.I)
# After "how": one adjective or adverb ("how high", "how many", "how long ago"); after "what/which": the
# slot's noun phrase, up to the auxiliary or verb that starts the remainder.
_HOW_SLOT = re.compile(r"^(?:many|much|long|old|often|far|tall|high|deep|big|large|wide|heavy|fast|early|late|"
                       r"soon|come|exactly)\b(?:\s+ago)?\s*", re.I)
_AUX_WORDS = ("is|are|was|were|do|does|did|has|have|had|will|would|can|could|should|may|might|must|"
              "isn't|aren't|wasn't|weren't|don't|doesn't|didn't|hasn't|haven't|hadn't|won't|wouldn't|can't|"
              "cannot|couldn't|shouldn't|mustn't")
_AUX = re.compile(rf"^(?:{_AUX_WORDS})\s+", re.I)
_COPULA = re.compile(r"^(?:is|was|are|were)\b\s*", re.I)
_INNER_AUX = re.compile(r"\b(?:did|does|do)\s+", re.I)
# Verbs that only carry the asked quantity ("how long does the crossing *take*", "how much does it *cost*"):
# they assert nothing beyond the slot, so they are not part of a presupposition.
_LIGHT_VERB = re.compile(r"\b(?:take|takes|took|last|lasts|lasted|cost|costs|weigh|weighs|measure|measures|have|"
                         r"has|had|hold|holds|held|use|used|uses|get|gets|got|need|needs|contain|contains|carry|"
                         r"carries|carried|mean|means|include|includes|called|named|known|live|lives|lived)\b", re.I)
# "now" asserts nothing a passage must say in so many words ("How many people can the hall seat *today*?")
_NOW = re.compile(r"\b(?:today|now|nowadays|currently|at present)\b", re.I)
# A name, a year, or a numbered name ("No. 3 Hadwig"); "No" before a number is the abbreviation, no name
_ENTITY = re.compile(r"\bNo\.? ?\d+(?: [A-Z][a-z]+)+\b|\b(?:(?!No\.? ?\d)[A-Z][a-z]+(?:[- ](?:of the |of |the |de |van )?"
                     r"[A-Z][a-z]+)*|(?:1[5-9]|20)\d\d)\b")
_POSSESSIVE = re.compile(r"\b([A-Z][a-z]+(?: [A-Z][a-z]+)*)'s ([A-Z][a-z]+(?: [A-Z][a-z]+)*)")
_LOCATED_DESCRIPTION = re.compile(
    r"\bthe (?:[a-z]+ ){0,2}?([a-z]+ (?:under|in|on|at|near|across|between|inside|beneath|above|behind|beside|"
    r"living in|working at|working in|standing on|built on|built in|running to|running from|linking|connecting)"
    r" (?:the )?[A-Z][\w-]*(?: (?:of |the )?[A-Z][\w-]*)*(?: (?:today|now|still))?)(?!['\w-]| [A-Z])")
_ARTICLES = frozenset(("'s", "the", "a", "an"))
MAX_CLAIMS = 3
Kind = Literal["existence", "event"]
Role = Literal["asserted", "asked", "counted", "explained"]
MAX_WORDS = 15


def _cap(text: str) -> str:
    return " ".join(text.split()[:MAX_WORDS])


def is_yes_no(question: str) -> bool:
    first = question.strip().split(maxsplit=1)[0].lower() if question.strip() else ""
    return first in _YES_NO


def named_things(question: str, years: bool = True) -> list[str]:
    """Capitalised names and (optionally) years mentioned in the question; the first word is skipped."""
    words = question.strip().split(maxsplit=1)
    body = words[1] if len(words) > 1 else ""
    names: list[str] = []
    for match in _ENTITY.finditer(body):
        value = match.group(0).strip()
        if (value.isdigit() and not years) or value.lower() in CALENDAR_WORDS:
            continue  # a month or weekday dates, it names nothing ("no trains in *May*")
        if value not in names:
            names.append(value)
    return names


Claim = tuple[str, str, Kind]

# A count of people or things that something happened to ("How many *crew were lost* when …", "How many
# *compositors were sacked* after …"): the participle and what follows it are the counted event
_COUNTED_EVENT = re.compile(r"^how many ([a-z]+(?: [a-z]+)?) (?:(?:were|was|have been|had been|got) "
                            r"((?:[a-z]+ed|[a-z]+en|lost|hurt|shot|left|sent|caught|held|slain))|"
                            r"(died|drowned|perished|escaped))\b(.*)$", re.I)
# a count of anyone at all: "no one was killed" denies "killed in …", whoever the question counts
_ANYONE = frozenset(("people", "persons", "person", "men", "individuals"))


def _claims(items: list[Claim], role: Role = "asserted") -> list[Presupposition]:
    seen: list[Presupposition] = []
    for claim, why, kind in items:
        claim = _cap(claim.strip(" ,"))
        if claim and all(claim != p.claim for p in seen):
            seen.append(Presupposition(claim=claim, rationale=why, kind=kind, role=role))
    return seen[:MAX_CLAIMS]


def _named(question: str, years: bool, why: str) -> list[Claim]:
    return [(name, why, "existence") for name in named_things(question, years)]


def _look_up(question: str, subject: str) -> list[Presupposition]:
    """A look-up presupposes its possessive relations, located descriptions, names and years."""
    items: list[Claim] = []
    covered: set[str] = set()
    for match in _POSSESSIVE.finditer(subject):
        items.append((f"{match.group(1)}'s {match.group(2)}", "a relation the question asserts", "event"))
        covered.update((match.group(1), match.group(2)))
    for match in _LOCATED_DESCRIPTION.finditer(subject):
        items.append((match.group(1), "something the question says exists", "existence"))
        covered.update(n for n in named_things("x " + match.group(1)))
    named = [n for n in named_things(question, years=True) if not any(n in c or c in n for c in covered)]
    years = [n for n in named if n.isdigit()]
    names = [n for n in named if not n.isdigit()]
    if years and (names or covered):  # a year alone retrieves noise: it is checked with what it dates
        anchor = names[0] if names else sorted(covered)[0]
        items.append((f"{anchor} {' '.join(years)}", "a time the question pins", "existence"))
        names = names[1:] if names else names
    elif years:
        items.extend((y, "a time the question pins", "existence") for y in years)
    items.extend((n, "named in a look-up question", "existence") for n in names)
    return _claims(items)


# "Which *company* sponsors development of X?", "Which *body* granted …": a noun, then the verb the remainder starts with
_SLOT_HEAD = re.compile(r"^[a-z]{3,}(?<!ed)(?<!ing)$")
_VERB_AFTER_HEAD = re.compile(r"^(?:[a-z]{2,}(?:ed|es|s)|sank|won|led|built|made|gave|took|wrote|ran|held|bought|sold|"
                              r"left|began|became|brought|caught|drew|drove|fell|flew|fought|found|grew|kept|knew|lost|"
                              r"met|paid|rose|sent|set|taught|told|threw|beat|chose|broke|hit|shut|sang)$")


def _split_slot(text: str) -> tuple[str, str, str] | None:
    """``(wh-word, slot modifiers, remainder)`` of a wh-question, else ``None``."""
    match = _WH.match(text)
    if not match:
        return None
    wh = match.group("wh").lower()
    rest = text[match.end():]
    modifiers = ""
    if wh == "how":
        how = _HOW_SLOT.match(rest)
        if how:
            rest = rest[how.end():]
            words = rest.split()
            counted = how.group(0).strip().lower() in ("many", "much") and words
            verb_next = len(words) > 1 and _VERB_AFTER_HEAD.match(words[1]) is not None
            mass_subject = how.group(0).strip().lower() == "much" and verb_next  # "how much *rain fell* …"
            if (counted and not re.match(rf"^(?:{_AUX_WORDS})$", words[0], re.I) and not words[0][:1].isupper()
                    and not mass_subject):
                rest = " ".join(words[1:])  # "how many *passengers* used ...": the counted noun is the slot
                # (but "how much *rain* fell" keeps it: what fell is said with it, "rainfall")
    elif wh in ("what", "which", "whose"):
        words = rest.split()
        slot: list[str] = []
        while words and not re.match(rf"^(?:{_AUX_WORDS})$", words[0], re.I) and not words[0][:1].isupper():
            slot.append(words.pop(0))
        auxiliary = bool(words) and re.match(rf"^(?:{_AUX_WORDS})$", words[0], re.I) is not None
        # "Which *company* sponsors …", "Which professional *body* admitted …": the slot's verb, after its head noun
        # (past "kind of", which only types the answer: "What kind of organisation owns …")
        skip = 2 if len(slot) > 2 and re.fullmatch(r"kinds?|types?|sorts?", slot[0], re.I) and slot[1].lower() == "of" else 0
        verb = next((i for i in range(skip + 1, min(len(slot), skip + 4)) if _VERB_AFTER_HEAD.match(slot[i])), 0)
        if verb and not all(_SLOT_HEAD.match(w) for w in slot[skip:verb]):
            verb = 0
        if words and (auxiliary or not verb):
            # the slot ran up to an auxiliary (or, with no verb in it, a name): keep its modifiers, drop its head noun
            # ("which day *of the week* can't …": the head is before "of", what follows it up to the auxiliary
            # only types it)
            typed = auxiliary and (slot[-2:-1] == ["of"] or slot[-3:-2] == ["of"])
            head = max(i for i, w in enumerate(slot) if w == "of") - 1 if typed else len(slot) - 1
            modifiers = " ".join(w for w in slot[:head] if w.lower() not in _ARTICLES)  # "What's the …" leaves no "'s the"
            # "What *kind of organisation* owns the Sentinel?": the kind only types the answer
            modifiers = re.sub(r"^(?:kinds?|types?|sorts?) of \w+\s*", "", modifiers, flags=re.I)
            rest = " ".join(words)
        else:  # no auxiliary: "What happened to X?", "Which ship sank …" — the verb is in the slot, which may run up
            # to a name ("Which company sponsors development of *Quorvane*?"); the head only types the answer, as
            # before an auxiliary, and its modifiers are kept
            if verb:
                modifiers, slot = " ".join(slot[skip: verb - 1]), slot[verb:]
            rest = " ".join(slot + words)
    return wh, modifiers, rest.strip()


def heuristic_presuppositions(question: str) -> list[Presupposition]:
    """Presuppositions of ``question`` by rule (see the module docstring)."""
    text = plain_words(question).strip().rstrip("?").strip()  # in the words passages use ("raised the alarm")
    text = _QUOTE.sub("", text)  # a quoted nickname ("known as 'the Iron Ledger'") is read without its quotes
    if not text:
        return []
    if is_yes_no(text):  # the asked event is not presupposed; the things it names are
        return _claims(_named(text, years=False, why="named in a yes/no question"))
    if compared_question(text) is not None:  # "Which came first, A or B?": each side is there; neither is asserted
        return _claims(_named(text, years=False, why="named in a comparison"))
    parts = _split_slot(text)
    if parts is None:
        return []
    wh, modifiers, rest = parts
    counted = _COUNTED_EVENT.match(text)
    if counted:  # "How many people were killed in the Great Breach?" takes it that some were
        who = "" if counted.group(1).lower() in _ANYONE else counted.group(1) + " "
        what = f"{who}{counted.group(2) or counted.group(3)}{counted.group(4)}"
        return (_claims([(what, "what the question counts happened", "event")], "counted")
                + _look_up(text, _COPULA.sub("", rest, count=1)))[:MAX_CLAIMS]
    if wh != "why" and _COPULA.match(rest):
        return _look_up(text, _COPULA.sub("", rest, count=1))
    auxiliary = _AUX.match(rest)
    if wh == "why" and auxiliary and re.search(r"n't|cannot", auxiliary.group(0), re.I):
        # "Why *couldn't* the firefighters get to the summit?" takes a failure for granted; the event with its
        # negation cut off is what a passage denies ("could not reach the summit"), so only its names are checked
        return _claims(_named(text, years=False, why="named in a negated question"))
    event = _INNER_AUX.sub("", _AUX.sub("", rest))
    remainder = " ".join(_NOW.sub("", _LIGHT_VERB.sub("", event)).split())
    if modifiers:
        remainder = f"{remainder} {modifiers}"
    if len(content_words(remainder)) < 3:
        return _look_up(text, rest)
    # "how long does the crossing take": with its light verb gone, what is left only has to exist
    kind: Kind = "existence" if remainder != " ".join(event.split()) and wh != "why" else "event"
    # what a why-question explains is asserted; what any other question asks about is only asked: a passage
    # may state it in other words ("Which company sponsors development of X?" / "X is developed with the
    # backing of Y"), so it is held to gates.asked_premise_threshold, not gates.premise_threshold
    claim: list[Claim] = [(remainder, "the question takes this for granted", kind)]
    if wh == "why":
        return _claims(claim, "explained")
    if ((RELATIVE_HEAD.search(text) or describes_by_role(text) or _DESCRIBED_AGENT.search(text)) and describes_entity(text)
            and not asks_for_description(text)):
        # a bridged question's relation spans two pages (one names the company *that* bought the paper, or the
        # *arbiter of* the match, the other what it paid or what he wrote): no one passage can carry it, and the
        # answer check holds both hops to it
        return (_claims(_named(text, years=False, why="named in a question answered in two hops")) +
                _objects(rest))[:MAX_CLAIMS]
    return (_claims(_two_hops(claim[0], dated=dated_question(text) is not None), "asked") + _objects(rest))[:MAX_CLAIMS]


_QUOTE = re.compile(r"(?<!\w)['\"\u2018\u2019\u201c\u201d]|['\"\u2018\u2019\u201c\u201d](?!\w)")
"""A quotation mark that opens or closes a quotation (not the apostrophe inside a word: "Port Vessany's")."""
_RELATIVE = re.compile(r"\s(?:that|who|whom|which|whose)\s")
# a thing described by what someone *described* did to it ("the cutter commissioned *by the collector* known as …"):
# one page names the collector, another the cutter
_DESCRIBED_AGENT = re.compile(r"\bthe (?:[a-z]+ )?[a-z]+ (?:[a-z]+ed|built|run|led|held|written|drawn|made|won|founded) "
                              r"by the [a-z]+\b")


# "… *when* Quennet 3.0 shipped", "… *at the time* Quennet 3.4 was released": the year bridge's dating clause
_AT_THE_TIME = re.compile(rf"^(?P<relation>.+?),?\s+{DATING_CLAUSE}\s+(?P<event>.+)$", re.I)


def _two_hops(claim: Claim, dated: bool = False) -> list[Claim]:
    """An asked relation about a described thing ("staff work at *the research station that Ines Halloran
    directs*") spans two passages (one names the station, another counts its staff): it is checked as the
    relation up to the description's head noun and as the description from that noun on. Who held a post at the
    time of another event (``dated``, a question the year bridge answers: "Who chaired the steering committee *when*
    Quennet 3.0 shipped?") is two facts too, each on its own page (the release's date; who chaired the committee in
    which years): each is checked alone. Not any "while" ("What do astronauts experience *while* in free-fall?"): one
    passage says that."""
    text, why, kind = claim
    timed = _AT_THE_TIME.match(text) if dated else None
    if timed and content_words(timed.group("relation")) and content_words(timed.group("event")):
        return [(timed.group("relation"), why, kind), (timed.group("event"), "when the question asks about", kind)]
    clause = _RELATIVE.search(text)
    head = text[: clause.start()].split() if clause else []
    if clause is None or len(content_words(" ".join(head))) < 3 or not content_words(text[clause.end():]):
        return [claim]
    noun = " ".join(head[-2:]) if len(head) > 1 and head[-2].lower() not in _ARTICLES else head[-1]
    return [(" ".join(head), why, kind), (f"{noun}{text[clause.start():]}", "a description the question uses", kind)]


# (its last word a noun: "who hosts the Morning Table *now*" names no "Morning Table now")
_OBJECT = re.compile(r"\bthe ((?:[A-Z][\w-]+ )+(?!(?:now|today|nowadays|currently|still|then|again)\b)[a-z]{3,})\b"
                     r"(?! of\b)")


def _objects(rest: str) -> list[Presupposition]:
    """What a subject question ("Who *founded* the Calder Island airport?") takes to exist: a definite
    description of a named thing after its verb ("Calder Island airport"), checked as an existence claim
    even though the relation it is asked about is only ``asked``."""
    if not rest[:1].islower() or _AUX.match(rest) or rest.split(maxsplit=1)[0].lower() == "the":
        return []  # not a verb first: the subject comes first, and what follows it may be the verb
    return _claims([(m.group(1), "something the question says exists", "existence") for m in _OBJECT.finditer(rest)])
