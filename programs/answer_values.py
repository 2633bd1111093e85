"""What value of the asked type a sentence holds: a date, a number of the asked kind, a name, an occupation.

The answerability check (:mod:`.answerability`) asks two things of an answer: does it say what was asked (the
asked attribute), and does it hold a value of the asked type? This module answers the second. A value is read as
the question wants it: "How many boats …?" is not answered by a year a sentence dates something by ("set up *in
2017*") nor by a sum of money ("she invested *£2,400*"); "How much was he *paid*?" needs money, which a length is
not; "How long was the boat?" is not answered by "withdrawn *in 1986*"; "which *month*" needs a month.
"""

from __future__ import annotations

import re
from typing import Literal

from groundqa.judges.lexical import KINSHIP, NOT_A_PERSON, features, stem

AnswerType = Literal["date", "number", "person", "place", "organisation", "name", "occupation", "yes_no"]

# What a measure question may ask for ("the *population* of", "gross *tonnage*"): a number, never a date
MEASURES = (r"number|percentage|share|proportion|amount|temperature|speed|depth|height|altitude|elevation|distance|"
            r"length|width|area|population|cost|price|fee|budget|salary|capacity|weight|mass|diameter|volume|tonnage|"
            r"density|attendance|revenue|turnover|income")
# "What is the (annual) *population* of Velmarre?": a measure of something is a number, and no date is one
MEASURE_OF = re.compile(rf"^(?:what|which) (?:is|was|are|were) (?:the )?(?:\w+ )?(?:{MEASURES}) of\b", re.I)
# The same asked without a verb ("*Seating capacity of* the Great Canvas?", "Corran Bay gross *tonnage*?", "calder
# wren top *speed*"): a question that is only the measure's noun phrase (see ``answerability.telegraphic``)
TELEGRAPHIC_MEASURE = re.compile(rf"^(?:[\w-]+ )?(?:{MEASURES}|headcount|size) of\b|\b(?:{MEASURES}|headcount)\W*$",
                                 re.I)
_DETERMINERS = frozenset(("a", "an", "as", "the"))
_OCCUPATION_VALUE = re.compile(
    r"\b(?:a|an|as|the)\s+(?:[a-z]+\s+)?(?!(?:after|other|another|under|never|over|water|winter|summer|number|later|ever|whether|either|neither|"
    r"rather|together|order|power|paper|matter|letter|corner|border|river|tower|center|centre|member|manner|"
    r"mother|father|brother|sister|daughter|monitor|interior|exterior|corridor|minor|major|junior|senior|"
    r"prior|error|floor|door|indoor|outdoor|christian|guardian|italian|civilian)\b)[a-z]{3,}(?:er|or|ist|ian)s?\b"
    r"|\b(?:architect|chef|clerk|nurse|pilot|poet|priest|judge|mayor|monk|nun|cook|guide|smith|mason|surgeon|"
    r"physician|scientist|engineer|officer|agent|merchant|accountant|consultant|assistant|lawyer|journalist|"
    r"editor|composer|musician|carpenter|fisherman|fishermen|shepherd|librarian|curator|captain|sailor|"
    r"(?!(?:hu|wo|ger|ro)man\b)[a-z]{3,}man)s?\b", re.I)

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
           "spring", "summer", "autumn", "winter"]
CALENDAR_WORDS = frozenset(_MONTHS)
_CALENDAR_STEMS = frozenset(stem(w) for w in _MONTHS)
"""Months, weekdays and seasons: capitalised words that date something rather than name it."""
_DATE_VALUE = re.compile(r"\b(?:1[0-9]{3}s?|20[0-9]{2}s?|[0-9]{1,2}(?:st|nd|rd|th) century|(?:" + "|".join(_MONTHS)
                         + r")s?|(?:first|second|third|fourth|last) (?:week|day|weekend)|\d{1,4} (?:BC|BCE|AD|CE)|"
                           r"(?:AD|CE) \d{1,4})\b", re.I)
"""A date: a year or a decade ("the *1990s*"), a century, a month or season, a year of an era ("*430 BC*")."""
# A date question that names its unit wants a value of that unit: "which *month*" is not answered by a
# year, "what *day of the week*" not by "14 March 2016".
_DATE_UNITS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"\b(?:day of the week|weekday)\b", re.I),
     re.compile(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|\bweekends?\b", re.I)),
    # a month, and a date or a day and month too ("On what day and month was Casimir Drevet born?" is not answered by
    # "Casimir Drevet (1878–1957)")
    (re.compile(r"^(?:\w+ )?(?:what|which) month\b|\b(?:what|which) (?:exact )?(?:date|day and month)\b", re.I),
     re.compile(r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b",
                re.I)),
    (re.compile(r"^(?:\w+ )?(?:what|which) year\b", re.I), re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")),
    # a time of day ("At what time of night did the fire begin?" is not answered by "on the night of 17–18 January")
    (re.compile(r"\b(?:at )?what time\b(?! (?:limit|span|frame|scale))|\bwhat hour\b", re.I),
     re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.|o['’]clock)|\b(?:midnight|noon|midday|"
                r"dawn|dusk|daybreak|sunrise|sunset)\b", re.I)),
)
# "How many"/"how much" asks for a count or an amount: a year the sentence dates something by ("reintroduced
# *in 1994*", "set up *in 2017*", "by *the 1970s*", "on 14 *August 1861*") is no answer to it.
_COUNT_Q = re.compile(r"^(?:\w+ )?how (?:many|much)\b", re.I)
_DATING_YEAR = re.compile(r"\b(?:(?:in|since|by|from|until|till|before|after|around|circa|c\.|of)\s+(?:the\s+)?|(?:"
                          + "|".join(_MONTHS[:12]) + r")\s+)(?:1[0-9]{3}|20[0-9]{2})s?\b", re.I)
_DAY_OF_MONTH = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:" + "|".join(_MONTHS[:12]) + r")(?:,? \d{4})?\b",
                           re.I)
_YEAR_SPAN = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\s*(?:–|-|to|and|until)\s*(?:1[0-9]{3}|20[0-9]{2})\b")
_WHO = re.compile(r"^(?:\w+ )?(?:who|whom|whose)\b", re.I)
_PERCENTAGE = re.compile(r"\b\d[\d,.]*\s*(?:per ?cent|percent)\b|\b\d[\d,.]*\s*%", re.I)
_SHARE_Q = re.compile(r"\b(?:per ?cent|percent|percentage|share|proportion|fraction|discount)\b", re.I)
_NUMBER = (r"\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
           r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
           r"thousand|million|billion|dozen|half|quarter|twice|once|double")
_NUMBER_VALUE = re.compile(rf"\b(?:{_NUMBER})\b", re.I)
_NAME_VALUE = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z\u00C0-\u024F]+|\b[A-Z]{2,}\b")
# "How much did it *cost*?", "How much was he *paid*?": an amount of money, which a length or a year is not
_MONEY_Q = re.compile(r"^(?:\w+ )?how much\b(?! of\b).*\b(?:pay|pays|paid|cost|costs|spend|spends|spent|charge|charges|"
                      r"charged|earn|earns|earned|sell|sold|buy|bought|worth|fees?|price|fares?|tickets?|"
                      r"money|funds?|funding|donate|donated|invest|invested|owe|owed|lend|lent|borrow|borrowed|damages|"
                      r"compensation|fetch|fetched|salary|wages?|budget|grants?|admission|membership|contribute|"
                      r"contributed|capital)\b", re.I)
_CURRENCY = (r"(?:crowns?|pounds?|dollars?|euros?|francs?|marks?|shillings?|pence|guineas?|florins?|ducats?|kron[aeo]r?|"
             r"lire|lira|yen|rupees?|pesos?|roubles?|rubles?|thalers?|guilders?|sovereigns?|cents?|USD|GBP|EUR|CHF)")
_MONEY_VALUE = re.compile(rf"[£$€¥]\s?\d|\b(?:{_NUMBER})\s*(?:(?:million|billion|thousand|hundred)\s+)?{_CURRENCY}\b|"
                          r"\bfree\b", re.I)
# An amount of money in full, which is no count ("How many boats were in the fleet?" is not answered by "he invested
# *£2,400*")
_MONEY_AMOUNT = re.compile(rf"[£$€¥]\s?\d[\d,.]*(?:\s*(?:million|billion|m|bn)\b)?|\b(?:{_NUMBER})\s*(?:(?:million|billion|"
                           rf"thousand|hundred)\s+)?{_CURRENCY}\b", re.I)
# "What was her *winning time*?": a time on the clock, which "won the Hornvelt Cup in 1977" does not give
_RACE_TIME_Q = re.compile(r"\b(?:winning|fastest|record|finishing|best|qualifying|course) times?\b(?! limit)", re.I)
_RACE_TIME = re.compile(r"\b\d{1,2}:\d{2}(?:[.,]\d+)?\b|\b\d+(?:[.,]\d+)?\s*(?:min(?:ute)?s?|sec(?:ond)?s?|hours?|h|s)\b",
                        re.I)
# What a thing cost is not what someone was paid while it was made ("How much did it *cost to build* the canal?" is not
# answered by "Quayle was paid *a salary of £300* a year while the canal was being built")
_COST_Q = re.compile(r"\b(?:cost|costs|costing|price|priced|spent|spend|expense)\b", re.I)
_PAY_WORDS = re.compile(r"\b(salary|salaries|wage|wages|stipend|pension|fee|fees|fine|reward|bonus|allowance|gift|"
                        r"donation|bequest|legacy|prize)\b(?:\s+\w+){0,3}?\s+(?:of\s+)?$", re.I)


_TOWARDS = re.compile(r"\s*(?:towards?|in aid of)\b", re.I)
"""After a sum: a part given towards something, not what the whole cost."""


def pay_not_cost(question: str, text: str) -> str:
    """The kind of payment (a salary, a fee, a gift) every sum of ``text`` is, where ``question`` asks what something
    cost and names no such payment itself; else ""."""
    if not _COST_Q.search(question):
        return ""
    kinds = []
    for amount in _MONEY_AMOUNT.finditer(text):
        paid = _PAY_WORDS.search(text[max(0, amount.start() - 40): amount.start()])
        if paid is not None:
            kinds.append(paid.group(1).lower())
        elif _TOWARDS.match(text, amount.end()):  # "She gave £4,200 *towards* the building of the institute"
            kinds.append("contribution")
        else:
            return ""
    asked = {w.lower() for w in re.findall(r"[a-z]+", question, re.I)}
    return kinds[0] if kinds and not asked & set(kinds) else ""


# "What was the company's *turnover* in 2019?", "What *price* did he pay for the farm?", "What weekly *wage* did the
# painters earn?": an amount of money, which a head count or a year is not
_MONEY_NOUN_Q = re.compile(r"^(?:\w+ )?(?:what(?:'s| is| was| are| were) (?:the )?(?:[\w'-]+ ){0,4}?(?:turnover|revenue|"
                           r"income|budget|salary|profit|price|cost|fee|fare|wage|takings|endowment)s?\b|"
                           r"(?:what|which) (?:[\w'-]+ ){0,2}?(?:price|fee|fare|wage|salary|sum|rent|toll)s?"
                           r"(?: per [\w-]+)? (?:did|does|do|was|were|is|are|has|have|had|will|would)\b)", re.I)
# A span of time is no count or amount, unless the question asks for one ("For *six centuries* its inhabitants
# lived from dairy farming" gives no population)
_DURATION = re.compile(rf"\b(?:{_NUMBER}|several|many|a few)\s+(centur(?:y|ies)|decades?|years?|months?|weeks?|"
                       r"days?|nights?|hours?|minutes?|seasons?)\b", re.I)
_DIMENSION_Q = re.compile(r"\bhow (?:long|tall|high|deep|wide|big|large|far|heavy|fast)\b", re.I)
# A measure in its unit is no count ("How many turbines …?" is not answered by "gusts of *64 metres* per second"),
# unless the unit is what is counted ("How many kilometres …?")
_HOW_MANY = re.compile(r"^(?:\w+ )?how many\b", re.I)
_MEASURE_AMOUNT = re.compile(
    rf"\b(?:{_NUMBER})\s*(?:-\s*)?((?:kilo|centi|milli)?met(?:re|er)s?|km|cm|mm|m|feet|foot|ft|inch(?:es)?|miles?|yards?|"
    r"knots?|(?:kilo|mega|giga)?watts?|kw|mw|(?:kilo|mega|giga)watt-hours?|tonnes?|tons?|kilo(?:gram)?s?|kg|grams?|"
    r"pounds?|litres?|liters?|gallons?|hectares?|acres?|degrees?|°[cf]?)\b", re.I)
_TIME_Q = re.compile(r"\bhow (?:long|old|often|quickly|soon)\b|\b(?:age|time|duration|period|term|tenure|spell)\b", re.I)

_QUOTED = re.compile(r"[\"“‘]\w[^\"“”‘’]{0,60}[\"”’]|(?<!\w)'\w[^'“”‘’]{0,60}'(?!\w)")
"""A quoted phrase: what something is called, capitalised or not."""
_COLOUR_Q = re.compile(r"\b(?:what|which) colou?rs?\b", re.I)
_COLOUR_VALUE = re.compile(r"\b(?:red|white|green|blue|yellow|black|gr[ae]y|amber|purple|violet|brown|pink|golden|crimson|"
                           r"scarlet|maroon|turquoise|ochre|orange|cream|ivory|silver|lilac|mauve|magenta|indigo|"
                           r"[a-z]+-colou?red)\b", re.I)  # not "navy", "gold", "-ish"
"""A question that asks for a colour, and a colour the answer names."""

def has_type(kind: AnswerType | None, text: str, question_words: frozenset[str], question: str = "") -> bool:
    """Whether ``text`` holds a value of the asked type; a name counts for who/where/which-organisation
    only when the question does not already hold it, in any case ("who chairs the quorvane committee"
    is not answered by "The Quorvane committee decides ...")."""
    if kind in ("name", None) and _left_unnamed(question, text):
        return False
    if kind is None:
        # an open "what" with a closed set of values: "What *colour* is the light?" is not answered by its range;
        # "What was its *turnover*?" by no amount of money
        if _MONEY_NOUN_Q.search(question):
            return bool(_MONEY_VALUE.search(text))
        if _RACE_TIME_Q.search(question):
            return bool(_RACE_TIME.search(text))
        return not (_COLOUR_Q.search(question) and not _COLOUR_VALUE.search(text))
    if kind == "date":
        unit = next((value for asks, value in _DATE_UNITS if asks.search(question)), _DATE_VALUE)
        return bool(unit.search(text))
    if kind == "number":
        if _COUNT_Q.search(question) or MEASURE_OF.search(question) or TELEGRAPHIC_MEASURE.search(question):
            text = _DATING_YEAR.sub(" ", _DAY_OF_MONTH.sub(" ", _YEAR_SPAN.sub(" ", text)))  # "on 14 March 2010"
            text = re.sub(r"\((?:1[0-9]{3}|20[0-9]{2})\)", " ", text)  # "the series Nine Dark Nights (2014)"
            if not _SHARE_Q.search(question):  # "How many votes were cast?" is not answered by "58 per cent"
                text = _PERCENTAGE.sub(" ", text)
        elif _DIMENSION_Q.search(question):  # "How long was the boat?" is not answered by "withdrawn *in 1986*"
            text = _DATING_YEAR.sub(" ", _DAY_OF_MONTH.sub(" ", text))  # (a span of years may say how long)
        if not re.search(r"\btimes\b|\bhow often\b", question, re.I):
            text = re.sub(r"\bonce\b", " ", text, flags=re.I)  # "ships were *once* inspected there": formerly, no count
        text = re.sub(r"\bone of\b", " ", text, flags=re.I)  # "*one of* the oldest shows": no count of anything
        if not _TIME_Q.search(question):  # a duration counts only where the question asks for its unit
            asked_units = features(question).content
            text = _DURATION.sub(lambda m: m.group(0) if stem(m.group(1)) in asked_units else " ", text)
        if _MONEY_Q.search(question) or _MONEY_NOUN_Q.search(question):
            return bool(_MONEY_VALUE.search(text))
        if _HOW_MANY.search(question):  # "how *much* did she get for the shares": "for £186,000" is how much
            text = _MONEY_AMOUNT.sub(" ", text)
        if _HOW_MANY.search(question):
            asked_units = features(question).content
            text = _MEASURE_AMOUNT.sub(lambda m: m.group(0) if stem(m.group(1)) in asked_units else " ", text)
        for given in set(re.findall(r"\d[\d,.]*\d|\d", question)):  # the question's own numbers are no answer
            # ("the asteroid *4127* Velmarre")
            text = re.sub(rf"(?<![\d,.]){re.escape(given)}(?![\d,]|\.\d)", " ", text)
        return bool(_NUMBER_VALUE.search(text))
    if kind == "occupation":
        # "an *assistant* engineer" is another job than the question's "chief engineer"
        return any({stem(w) for w in m.group(0).split() if w.lower() not in _DETERMINERS} - question_words
                   for m in _OCCUPATION_VALUE.finditer(text))
    if kind == "yes_no":
        return True  # a yes/no answer is judged by its attribute (and, for "No", by an explicit negation)
    if kind in ("person", "name") and _kin_left_unnamed(question, text):  # "the name of Tancred's nephew"
        return False
    if kind == "person" and not _WHO.match(question):
        # "the name of the *man* who founded …", "which *architect* …": a person's name, not "the River Tarn", nor
        # where something is ("Guided tours start *at the Palm House*")
        if not _SOMEONE.search(text):
            text = _without_places(text)
        # a lone capitalised word that opens the sentence is read as a plain word ("*Guided* tours start …"), as the
        # who-path reads it; a full name there is still one ("Aurel Marovell founded …")
        text = _OPENING_WORD.sub(lambda m: m.group(1) + m.group(2).lower(), text)
        places = {stem(m.group(1).lower()) for m in _PLACE_BEFORE_NOUN.finditer(text)}
        return any(set(name) - question_words - _CALENDAR_STEMS - places and not set(name) & NOT_A_PERSON
                   for name in features(text).names)
    if kind == "name" and _QUOTED.search(text):  # a nickname in quotes ("known among readers as "the yellow sheet"")
        return True
    if kind == "person" and not _SOMEONE.search(text):
        # "Who runs the Pellmouth branch?": "branches *at Osk Varrow* and *at Pellmouth*" name no one; a sentence about
        # someone ("Since 2020 *she* has chaired the trustees of the Vellick Lantern Museum") names its page's person
        text = _without_places(text)
    names = {m.group(0).lower() for m in _NAME_VALUE.finditer(_spelt_out_acronyms(text))}
    # a month names no one ("… on 7 *September* 1986, when a visiting birdwatcher found it" says who only as "a
    # birdwatcher")
    calendar = _CALENDAR_STEMS if kind == "person" else frozenset()
    return bool({stem(n) for n in names} - question_words - calendar - {"the", "a", "an", "he", "she", "it", "they", "in"})


_SOMEONE = re.compile(r"\b(?:he|she|him|his|her|hers)\b", re.I)
_OPENING_WORD = re.compile(r"^(\W*)([A-Z][a-z]+)(?= [a-z])")
_NAME_WORDS = r"[A-Z][\w'’-]+(?:\s+(?:of\s+)?[A-Z][\w'’-]+)*"
_AT_A_PLACE = re.compile(rf"\b(?:at|in|near|into|inside|outside|across)\s+(?:the\s+)?{_NAME_WORDS}")
_INSTITUTION = re.compile(rf"(\bby\s+)?\b(?:the\s+)?{_NAME_WORDS}\s+(?:Museum|Library|Club|Hall|Street|Road|Square|"
                          r"Branch|Station|Church|Cathedral|Abbey|Castle|Park|Bridge|Lighthouse|Harbour|Harbor|River|"
                          r"Valley|Lake|Island|Hill|Mountain|Quay|School|College|Hospital|Theatre|Theater|"
                          # a body people sit on ("the Calvonian Chess *Federation*", "the Vellow Regatta *committee*");
                          # not a company, trust or society, which may own, build or run what is asked about
                          r"(?:[Cc]ommittee|[Bb]oard|[Cc]ouncil|[Aa]ssociation|[Ff]ederation|[Uu]nion|[Dd]epartment))\b")


def _without_places(text: str) -> str:
    """``text`` without the names that say where ("*at Pellmouth*", "in the Vennick Bell Museum") or name a building or
    body ("shown in the Vennick Bell *Museum*", "the Vellow Regatta *committee*"), which answer no "who"; a body that
    did something ("built *by* the Harnsey Cross Rowing Club") still does."""
    text = _AT_A_PLACE.sub(" ", text)
    return _INSTITUTION.sub(lambda m: m.group(0) if m.group(1) else " ", text)


_ACRONYM = re.compile(r"((?:[a-z][\w-]*\s+){0,5}[a-z][\w-]*)\s+\(([A-Z]{2,6})\)")


def _spelt_out_acronyms(text: str) -> str:
    """``text`` without an acronym that only abbreviates the common words before it: "a high-pressure *(HP)* cylinder"
    names no one (whereas "the Royal Air Force (RAF)" is a name in its own words)."""
    def spelt(match: re.Match[str]) -> str:
        initials = "".join(part[0] for part in re.split(r"[\s-]+", match.group(1)) if part).upper()
        return match.group(1) if initials.endswith(match.group(2)) else match.group(0)
    return _ACRONYM.sub(spelt, text) if "(" in text else text


KIN_OF = re.compile(r"([A-Z][\w-]*(?: [A-Z][\w-]*)*)'s ((?:[a-z]+ )?[a-z]+)\b")
"""A named person's relative ("Hester Quayle's *husband*", "Ada's *eldest son*")."""


def _kin_left_unnamed(question: str, text: str) -> bool:
    """Whether the question asks who a named person's relative is ("What was the name of Hester Quayle's *husband*?")
    and ``text`` speaks of that relative only as "her late husband" or "his father, a pit foreman", with no name
    beside: the other names in the sentence are not the relative's ("Her husband, Silas Quayle", "his father Anton
    Korvath" and "married the grain merchant Silas Quayle" name him)."""
    kin = {w.lower() for match in KIN_OF.finditer(question) for w in match.group(2).split() if stem(w) in KINSHIP}
    kin |= {w.lower() for w in re.findall(r"\b(?:the|a) (husband|wife) of\b", question, re.I)}
    if not kin:
        return False
    nouns = "|".join(re.escape(w) for w in kin)
    person = {t for match in KIN_OF.finditer(question) for t in features(match.group(1)).content}
    mentions = list(re.finditer(rf"\b(?:his|her|their)(?: [a-z]+){{0,2}} (?:{nouns})s?(['’]s?)?", text, re.I))
    if kin & {"father", "mother"}:  # "the son of a cooper": a parent said only as a trade
        mentions += re.finditer(r"\b(?:son|daughter|child) of (?:an?|the) (?:[a-z]+ ){0,2}[a-z]+()", text)
    if mentions:
        # the name after the relative must be another than the question's own ("Bohemond and *his nephew Tancred*"
        # says whose nephew Tancred is, not who Tancred's nephew was)
        return not any(not m.group(1) and (named := re.match(r",? (?:(?:called|named|the [a-z]+) )?([A-Z][\w'’-]*)",
                                                              text[m.end():]))
                       and not features(named.group(1)).content & person for m in mentions)
    # "Adeline married the glassmaker Fabien Vey" is someone else's marriage, not Aurèle Velloury's; "he married" names
    # a wife, not a husband
    for m in re.finditer(r"\b(he|she|[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)*) (?:married|wed)\b", text):
        said = m.group(1)
        if said in ("he", "He") and "husband" in kin or said in ("she", "She") and "wife" in kin:
            return True
        if said.lower() not in ("he", "she") and not {stem(w) for w in said.split()} & person:
            return True
    return False


# a name that qualifies a place noun names the place ("along the *Tarn valley*"), not a person
_PLACE_BEFORE_NOUN = re.compile(r"\b([A-Z][a-z]+) (?:valley|river|coast|estuary|strait|region|district|province|bay|"
                                r"hills?|mountains?|islands?|peninsula|basin|lowlands?|highlands?)\b")
_NAME_OF_THING = re.compile(r"\bnames? of (?:the|a|an|this|that|his|her|its|their) (?:[a-z]+ )??([a-z]{3,})\b"
                            # "What was the *boat* called from which …?"
                            r"|^(?:what|which) (?:is|was|are|were) (?:the|its|his|her|their) (?:[a-z]+ )??([a-z]{3,}) "
                            r"(?:called|named)\b", re.I)


def _left_unnamed(question: str, text: str) -> bool:
    """Whether the question asks the name of a thing ("What was the name of the *bookshop* kept by …?") and ``text``
    speaks of it only as "a bookshop" or "the same street", with no name given ("… where his father kept *a
    bookshop*"): the other names in the sentence are not its name. "a bookshop called …", "a bookshop, the …", "the Gull, a small boat" name it."""
    asked_thing = _NAME_OF_THING.search(question)
    if asked_thing is None:
        return False
    noun = re.escape(asked_thing.group(1) or asked_thing.group(2))
    mentions = list(re.finditer(rf"\b(an?|another|the|this|that|his|her|its|their|[A-Z][\w'’-]*)((?: [a-z]+){{0,2}}) {noun}s?\b",
                                text))
    # "a bookshop", "another boat", "the same street": a thing of the kind, not one named
    indefinite = [m for m in mentions if m.group(1).lower() in ("a", "an", "another") or " same" in m.group(2)]
    return bool(indefinite) and len(indefinite) == len(mentions) and not any(
        re.match(r",? (?:called|named|known as|nicknamed|dubbed)\b|,? [\"“‘A-Z]|,? the [A-Z]", text[m.end():])
        or re.search(r"[A-Z][\w'’-]*[\"”’]?, $", text[:m.start()])  # "the Gull, a small open boat"
        for m in indefinite)


# "How tall/high/deep/wide/heavy …?" asks for a physical measure, which only a number in its unit gives ("A clock tower
# was added in 1838" and "supported by four king poles" say no height); not "how long" or "how far", which also ask a
# time or a stage reached
_PHYSICAL_Q = re.compile(r"\bhow (?:tall|high|deep|wide|heavy)\b", re.I)
_IN_ITS_UNIT = re.compile(rf"{_MEASURE_AMOUNT.pattern}|{_MONEY_VALUE.pattern}|\d\s*(?:%|per ?cent\b)|"
                          rf"\b(?:{_NUMBER})\s*(?:-\s*)?(?:stor(?:e)?ys?|stories|floors?|hundredweight|cwt|fathoms?)\b", re.I)


# "How heavy …?", "How much does the trophy weigh?": a weight, which only a number in a unit of mass gives ("a silver
# rook *48 cm tall*" says how tall it is)
_WEIGHT_Q = re.compile(r"\bhow heavy\b|\bweigh(?:s|ed|t)?\b", re.I)
_MASS = re.compile(rf"\b(?:{_NUMBER})\s*(?:-\s*)?(?:(?:million|thousand|hundred)\s+)?(?:tonnes?|tons?|kilo(?:gram)?s?|kg|"
                   r"grams?|g|pounds?|lbs?|ounces?|oz|hundredweights?|cwt|quintals?|stones?)\b", re.I)


# "How many patients could the Fever House *hold*?": what it had room for, which a count of those it held at one time
# ("61 patients were treated") is not; only a sentence that speaks of room gives it
_CAPACITY_Q = re.compile(r"^(?:\w+ )?how many\b.*\b(?:could|can|would|will)\b.*\b(?:hold|seat|accommodate|take|house|carry|"
                         r"sleep|fit)\b", re.I)
_CAPACITY = re.compile(r"\b(?:hold|holds|held|holding|seat|seats|seated|seating|accommodat\w*|capacity|room for|beds?|"
                       r"berths?|carr(?:y|ies|ied|ying)|sleeps?|takes?|took|taking|house[sd]?|housing|fits?)\b")
"""Words of room, in lower case only (the "Fever *House*" holds no one)."""
# "How old was the motorman at the time of the accident?", "At what age did she become master founder?": an age, which
# "fifty years after the disaster" is not
_AGE_Q = re.compile(r"\bhow old (?:was|were|is|are)\b(?! (?:the|its|this|that) (?:building|house|church|bridge|tree|"
                    r"tower|ship|wreck|mill|site)\b)|\bat what age\b|\bwhat age\b", re.I)
_AGE = re.compile(rf"\bage(?:d| of)\s|\b(?:{_NUMBER})[- ]years?[- ]old\b|\bat (?:the age of )?(?:{_NUMBER})\b(?![-–]|\s*(?:%|per|"
                  r"metres?|m\b|km|°))|\(\s*\d{1,3}\s*\)|\bin (?:his|her|their) (?:teens|twenties|thirties|forties|fifties|"
                  r"sixties|seventies|eighties|nineties)\b|\b(?:teenager|boy|girl|child)\b", re.I)
# "How many *times* has Tallyhold been downloaded?": a count of occasions, which "8 parallel download connections" is not
_TIMES_Q = re.compile(r"\bhow many times\b", re.I)
_TIMES = re.compile(r"\b(?:times|once|twice|thrice|occasions?)\b", re.I)
_COUNTS_ASKED = ((_CAPACITY_Q, _CAPACITY), (_TIMES_Q, _TIMES), (_AGE_Q, _AGE))
"""(what a question asks for, what a sentence that gives it says): room, a count of occasions, an age."""


def lacks_measure(question: str, text: str) -> bool:
    """Whether ``question`` asks for a physical measure (:data:`_PHYSICAL_Q`) and ``text`` gives no number in a unit
    (or a share or a price: "how high was turnout", "how high were the fares"); or asks for a weight and ``text``
    gives none in a unit of mass; or what something could hold and ``text`` speaks of no room (:data:`_CAPACITY_Q`);
    or how many times and ``text`` counts no occasions; or a person's age and ``text`` gives none (:data:`_AGE_Q`)."""
    if _WEIGHT_Q.search(question):
        return not _MASS.search(text)
    if any(asks.search(question) and not said.search(text) for asks, said in _COUNTS_ASKED):
        return True
    return bool(_PHYSICAL_Q.search(question)) and not _IN_ITS_UNIT.search(text)


# "When did Runa Vennick-Dahl die?" is answered by a sentence that speaks of a death or gives a lifespan, not by
# "(born 1899) was master founder … from 1934 to 1968", whose years the tuned judge reads as a life's
_LIFE_EVENTS = (
    (re.compile(r"\b(?:die|died|dies|death)\b", re.I),
     re.compile(r"\b(?:died|dies|death|dead|killed|drowned|perished|buried|burial|funeral|murdered|executed|"
                r"lost (?:his|her|their) li(?:fe|ves))\b|\(\s*(?:c\.\s*)?\d{3,4}\s*[–-]\s*(?:c\.\s*)?\d{3,4}\s*\)"
                r"|\bd\.\s*\d{4}", re.I)),
    (re.compile(r"\b(?:born|birth)\b", re.I),
     re.compile(r"\b(?:born|birth|née)\b|\(\s*(?:c\.\s*)?\d{3,4}\s*[–-]|\bb\.\s*\d{4}", re.I)),
)


def life_event_unsaid(question: str, text: str) -> bool:
    """Whether ``question`` asks about a birth or a death and ``text`` speaks of neither it nor a lifespan."""
    return any(asks.search(question) and not said.search(text) for asks, said in _LIFE_EVENTS)


__all__ = ["CALENDAR_WORDS", "KIN_OF", "MEASURE_OF", "MEASURES", "TELEGRAPHIC_MEASURE", "AnswerType", "has_type", "lacks_measure",
           "life_event_unsaid"]
