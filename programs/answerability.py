"""Answerability, checked in code: does an answer contain what the question asks for?

A grounded answer can cite a real passage and still not answer: "What is the annual budget of the
garden?" answered with the garden's founding date is faithful, cited and useless. So every answer,
generated or extractive, is checked against what the question asks for:

* the **answer type** read off the question's wording — ``date`` (when, what year, which day),
  ``number`` (how many/much/long/high/old…, at what temperature), ``person`` (who), ``place``
  (where, in which city), ``organisation`` (which company/school…), ``name`` (what is … called),
  ``occupation`` (what job/profession), ``yes_no`` (did/is/has…), or none for an open "what";
* the **asked attribute**: the question's content words that are not names it pins ("annual budget",
  "population", "temperature", "train"). A term counts as present when a word of the answer (or its
  passage title) shares its stem or a synonym, or, for a dimension ("how deep", "what temperature"),
  when the answer gives a unit of that dimension ("84 metres", "minus 18 degrees").

``score = coverage of the asked attribute`` (main-clause terms weigh 1, terms of a relative clause
0.5, of a trailing "before/after/while…" clause 0.3) when the answer holds a value of the asked type, else 0. A dimension the
question asks for ("how *tall*", "what does it *cost*", "how many people *live*") and a year it pins
("in *2021*") belong to the type: without them the answer scores 0.
The program keeps an answer only when ``score >= gates.answerability`` (a learnable gate); otherwise
it tries the next-best sentence and then abstains with ``not_answered``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from groundqa.hypernyms import is_noun, names_a_kind_of
from groundqa.judges.lexical import (
    KINSHIP,
    LIFESPAN,
    NAMED_AFTER_A_FAMILY,
    NOT_A_PERSON,
    ORDINAL_WORDS,
    STOPWORDS,
    TYPO_MIN,
    TextFeatures,
    features,
    misspelling_of,
    negated_clause,
    negates,
    stem,
    term_spans,
)
from groundqa.judges.paraphrase import said_otherwise, stemmed_groups
from groundqa.text import acronyms, spells_out, strip_citations

from .answer_values import (
    CALENDAR_WORDS,
    KIN_OF,
    MEASURE_OF,
    MEASURES,
    TELEGRAPHIC_MEASURE,
    AnswerType,
    has_type,
    lacks_measure,
    pay_not_cost,
)
from .contradiction import (
    asks_doer,
    conflict_about,
    direction_reversed,
    name_in_place,
    negated_modifier,
    number_in_place,
    order_swapped,
    prefixed_opposites,
    side_swapped,
)

_AUX = r"(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must)"
_DATE_Q = re.compile(
    r"^(?:(?:in|during|on|since|by|until|from|at) )?(?:when|(?:what|which) (?:year|decade|century|month|date|day|"
    r"season|time|period|era))\b", re.I)
_TRAILING_DATE_Q = re.compile(r"\b(?:in|on|during|by) (?:which|what) (?:year|decade|century|month|date|day)\W*$",
                              re.I)
_NUMBER_Q = re.compile(
    r"^(?:(?:at|to|by|in) )?(?:how (?:many|much|long|old|far|tall|high|deep|big|large|wide|heavy|fast|often|"
    r"early|late|quickly|soon)|(?:what|which) (?:number|percentage|percent|share|proportion|amount|temperature|"
    r"speed|depth|height|altitude|distance|length|age|size|area|population|cost|price|fee|budget|salary|capacity|"
    r"weight|rate|total|sum|score))\b", re.I)
_PERSON_NOUNS = (r"person|man|woman|guy|architect|artist|composer|writer|author|painter|engineer|scientist|mayor|king|"
                 r"queen|leader|founder|player|captain|director|designer|builder|owner|president|teacher|student|"
                 r"musician|poet|sculptor|doctor|nurse|boy|girl|child|wife|husband|son|daughter|father|mother|"
                 r"brother|sister|keeper|guide|pilot|priest|editor|manager|chair|head|coach|photographer|surgeon|"
                 r"matron")
_PERSON_Q = re.compile(rf"^(?:(?:by|for|to|with|from) )?(?:who|whom|whose|(?:which|what) (?:{_PERSON_NOUNS}))\b", re.I)
# "What was the name of the *man* who …" asks for a person; "What is the name of the *ship* …" for a name
_NAME_OF = re.compile(r"^(?:what|which) (?:is|was|are|were) (?:the )?(?:\w+ )?names? of (?:(?:the|a|an|this|that|his|"
                      r"her|its|their) |(?-i:[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*)['’]s? )(\w+(?: \w+)?)", re.I)
""""What was the name of *the* architect …", "… of *Hester Quayle's* husband": the noun whose name is asked."""
_CALLED_KIN = re.compile(rf"['’]s? (?:\w+ )?(?:{_PERSON_NOUNS}) (?:called|named)\b", re.I)
""""What was Tobias Wrenfield's *wife called*?": a person's name."""
_PLACE_Q = re.compile(
    r"^(?:(?:in|at|to|from|near|on) )?(?:where|(?:which|what) (?:city|town|village|country|region|province|"
    r"island|state|county|place|port|street|river|mountain|lake|continent|district|harbou?r))\b"
    # "What was Tobias Wrenn's *hometown*?", "*Birthplace* of Edda Marrowby?"
    r"|^(?:(?:what|which) (?:is|was) [\w'’ -]*?\b)?(?:hometown|home town|birthplace)\b", re.I)
_ORG_Q = re.compile(
    r"^(?:(?:at|for|by|with|from|in) )?(?:which|what) (?:company|firm|organi[sz]ation|institution|university|"
    r"school|college|team|club|publisher|newspaper|orchestra|band|party|bank|shipyard|museum|library|agency|"
    r"ministry|department|committee|council|group|body)\b", re.I)
_YES_NO_Q = re.compile(rf"^{_AUX}\b", re.I)
# "What job did X have …?", "What was the profession of …?": a trade or role ("a banker", "assistant engineer")
_OCCUPATION_Q = re.compile(r"^(?:\w+ )?(?:what|which) (?:(?:is|was|are|were) )?(?:the |his |her |their |"
                           r"[A-Z][\w-]*(?: [A-Z][\w-]*)*'s )?(?:job|"
                           r"profession|occupation|trade|line of work|line of business)\b"
                           r"|^(?:what|which) (?:did|does|do) .+ do for a living\b", re.I)
# "What is the station's research boat *called*?", "What was the ship named?": a name is asked for
# "What was the works called?", and called at another time ("… called *before the province bought it*", "… named
# *until 1819*")
# ("… the woman the Orsmund Pavilion is *named after*?" asks of the eponym, not for a name)
_NAME_Q = re.compile(r"^(?:what|which)\b.*\b(?:called|named)(?: (?:before|until|when|in|originally|at first)\b.*"
                     r"| after\s+\w.*)?\W*$", re.I)

# Words of the wh-phrase that name the asked type, not an attribute ("in which *city*", "what *year*").
def _words(text: str) -> list[str]:
    return text.split()


_TYPE_NOUNS = frozenset(stem(w) for w in _words("""year decade century month date day week weekday season time period era number
    person man woman guy bloke chap lady city town village country region province place state county continent district
    company firm organisation organization institution group body kind type sort job profession occupation career
    trade"""))


# Words that frame the slot without naming what is asked ("at its deepest *point*").
_FILLER = frozenset(stem(w) for w in _words("""point part way name title called known exactly approximately roughly
    about currently today now usually typically mostly mainly chiefly largely generally actually main total different
    down"""))
# A verb that only carries the slot ("how much money *comes with* the prize"): the answer need not repeat it.
# ("have", "get" are stop words already; "use" is not light: "How did RAND *use* this network?" asks for it.)
_LIGHT = frozenset(stem(w) for w in _words("come comes came go goes went gone carry carries carried responsible"))
# Verbs that only say an event took place, light where its time or place is asked ("When did the breach *occur*?"),
# not where the event itself is ("What *happens* when …?")
_EVENT_LIGHT = frozenset(stem(w) for w in _words("occur occurs occurred happen happens happened"))
# Verbs that only carry a named slot ("What *gauge* does the railway *use*?", "What *motto* *appears* beneath the
# crest?", "Which *post* did she *hold*?"): the answer names the gauge, the motto, the post, not the verb.
_SLOT_VERBS = frozenset(stem(w) for w in _words("use uses used appear appears appeared feature features featured "
                                                 "bear bears bore hold holds held display displays displayed "
                                                 # "At what *altitude* does the hut *stand*?", "What type of *rock* is
                                                 # it *made* of?"
                                                 "stand stands stood lie lies sit sits make makes made"))
_COUNT_LIGHT = frozenset(stem(w) for w in _words("make makes made"))
# Where a place question only locates ("Where in Port Vessany is the boatyard *located*?"): the answer
# gives the place ("a boatyard on the East Mole") without the verb.
_LOCATING = frozenset(stem(w) for w in _words("located situated based"))
# Idioms read as the verb they stand for, so that the answer's plain word counts.
_IDIOMS = ((re.compile(r"\blo(?:st|se|ses|sing) (?:their|his|her|its) li(?:fe|ves)\b", re.I), "died"),
           (re.compile(r"\bturn(?:s|ed)? out\b", re.I), "built"),
           (re.compile(r"\bturn(?:s|ed|ing)? down\b", re.I), "rejected"),
           (re.compile(r"\b(?:start(?:s|ed|ing)?|beg[iau]ns?) (?:[a-z]+ing )?again\b", re.I), "resumed"),
           # what people say for what passages state ("Who's *in charge of* …", "When did it *open its doors*?")
           (re.compile(r"\bin charge of\b", re.I), "heads"),
           (re.compile(r"\bopen(?:s|ed)? (?:its|their|her|his) doors\b", re.I), "opened"),
           (re.compile(r"\bt(?:ake|akes|ook|aken) to the (?:air|skies)\b", re.I), "flew"),
           (re.compile(r"\blook(?:s|ed|ing)? after\b", re.I), "kept"),
           (re.compile(r"\bfinish(?:es|ed)? (?:her|his|their|its) (?:studies|training|degree)\b", re.I), "graduated"),
           (re.compile(r"\bthese days\b", re.I), "now"),
           (re.compile(r"\bhand(?:s|ed|ing)? out\b", re.I), "awards"),  # "Who *hands out* the awards?"
           (re.compile(r"\b(?:start|begin|began|begun)(?:s|ed|ing)? (?:operating|operations|running|service)\b", re.I),
            "opened"),  # "When did the cable car *start operating*?"
           (re.compile(r"\bCEO\b"), "chief executive"), (re.compile(r"\bCFO\b"), "chief financial officer"),
           (re.compile(r"\bsound(?:s|ed|ing)? the alarm\b", re.I), "raised the alarm"),
           (re.compile(r"\bma(?:ke|kes|de|king) up\b", re.I), "comprise"),  # no light "make" ("make appearances")
           (re.compile(r"\b(?:year-round|all year(?: round)?|all the year round)\b", re.I), "permanently"),
           (re.compile(r"\bco-?op\b", re.I), "cooperative"),
           # the holder a post began with ("the *founding* chair of the allocation committee": "The *first* chair was
           # Orla Brennick"); not the founder of what it is a post of
           (re.compile(r"\bfounding (?=(?:[a-z]+ )?(?:chair|chairman|chairwoman|director|president|editor|head|principal|"
                       r"conductor|curator|manager|secretary|captain|dean|abbot|abbess|rector|warden)\b)", re.I), "first "),
           (re.compile(r"\bt(?:ake|akes|ook|aken|aking) over from\b", re.I), "succeeded"),  # "was *succeeded* by"
           (re.compile(r"\bg(?:ive|ives|ave|iven|iving) up\b", re.I), "quit"),  # "Why did he *give up* the post?"
           (re.compile(r"\b(?:st(?:ep|eps|epped|epping)|st(?:and|ands|ood|anding)) down\b", re.I), "resigned"),
           # "how often does the committee *get together*": "which *meets* four times a year"
           (re.compile(r"\bg(?:et|ets|ot|etting) together\b", re.I), "meet"),
           (re.compile(r"\bevery day\b", re.I), "daily"),  # "when did the paper start coming out *every day*"
           (re.compile(r"\b(?:put|go|went|gone|be|been|was|were) on (?:show|display)\b", re.I), "exhibited"),
           (re.compile(r"\bdeath toll\b", re.I), "number of deaths"),
           (re.compile(r"\b([a-z]+) count(?=\W*$)", re.I), r"number of \1"),  # "Ostler Hut *bed count*?"
           (re.compile(r"\bhelp(?:s|ed|ing)? (?:to )?pay for\b", re.I), "funded"),  # "Which company *helped pay for* …?"
           (re.compile(r"\b(?:nowadays|at the moment|right now|at present)\b", re.I), "now"),
           # "what did the northern traverse *end up costing*": what it cost
           (re.compile(r"\bend(?:s|ed)? up ([a-z]+?)(?:ing)\b", re.I), r"\1"),
           # "When was password login *switched off*?" / "password login was *disabled* on 19 June 2017"
           (re.compile(r"\b(?:switch|turn|shut)(?:s|es|ed|ing)? off\b", re.I), "disabled"),
           (re.compile(r"\b(?:switch|turn)(?:s|es|ed|ing)? on\b", re.I), "enabled"),
           (re.compile(r"\b(?:go|goes|going|went|gone) off (?:the )?air\b", re.I), "closed"),  # a station
           (re.compile(r"\b(?:go|goes|going|went|gone|come|comes|came|coming) on (?:the )?air\b", re.I), "launched"),
           (re.compile(r"\bfor good\b", re.I), ""),
           # "Until what year did the mayor *stay in office*?" / "Henrik Voss *served* from 2004 to 2012"
           (re.compile(r"\b(?:stay|stays|stayed|staying|remain|remains|remained|remaining) in "
                       r"(?:office|post|the post|the job|power)\b", re.I), "served"),
           (re.compile(r"\bcall(?:s|ed|ing)? off\b", re.I), "cancelled"),
           (re.compile(r"\bc(?:ome|omes|ame|oming) out\b", re.I), "released"),  # "when release 4.0 *came out*"
           # "Which town did the man … *come from*?", "Where did Tobias Wrenfield *come from originally*?"
           (re.compile(r"\b(?:originally )?c(?:ome|omes|ame) from(?: originally)?(?=\W*$)", re.I), "born"),  # "the year the regatta was *called off*"
           (re.compile(r"\b(?:go|goes|going|went|gone) up in smoke\b", re.I), "destroyed"),  # "stills *went up in smoke*"
           # a name's building is the named place ("which part of the *Montbrac building*": "the Montbrac distillery")
           (re.compile(r"\b([A-Z][\w'’-]+) building\b"), r"\1"),  # "turn off its signal *for good*": once, not for a while
           (re.compile(r"\bw(?:alk|alks|alked|alking) out\b", re.I), "strike"),  # "Why did the painters *walk out*?"
           # "Why did Tobias Orlanc *choose to settle* in Kelbrunn?": the cause of the choice is the cause of the settling
           (re.compile(r"^(\W*why\b.*?)\b(?:choose|chose|opt|opted) to ", re.I), r"\1"),
           # "Who *kicked* Ethelred *out*?" / "he was *forced* from his kingdom by Sweyn Forkbeard"
           (re.compile(r"\bkick(?:s|ed|ing)? ((?:[A-Z][\w'-]+ )*)out\b"), r"forced \1out"),
           # a release *ships* ("when Quennet 3.0 *shipped*"); a cargo is shipped, too, so only after a version number
           (re.compile(r"\b(\d+(?:\.\d+)+) ship(?:s|ped)\b"), r"\1 released"),
           (re.compile(r"\bt(?:ake|akes|ook|aken|aking) off the market\b", re.I), "withdrawn"),
           # "Which bells were *carried off* in the requisition?" / "none of them was *removed*"
           (re.compile(r"\bcarr(?:y|ies|ied|ying) (?:off|away)\b", re.I), "removed"),
           (re.compile(r"\bg(?:ive|ives|ave|iven|iving) (\w+(?: \w+)?) the green light\b", re.I), r"approved \1"),
           (re.compile(r"\bfree of charge\b", re.I), "free"),
           (re.compile(r"\bhead (?:office|offices|quarters)\b", re.I), "headquarters"),
           (re.compile(r"\bt(?:ake|akes|ook|aken|aking) out of (?:service|use|commission)\b", re.I), "decommissioned"),
           # a trade in other words ("What *line of business* was he in?", "What did her father *do for a living*?")
           (re.compile(r"\bline of (?:business|work)\b", re.I), "trade"),
           (re.compile(r"\bdo for a living\b", re.I), "trade"),
           # an act done as a ceremony ("Who *performed the opening of* the visitor centre?" / "It was *opened* … by")
           (re.compile(r"\b(?:perform|performs|performed|performing) the (open|clos)ing (?:ceremony )?of\b", re.I),
            r"\1ed"),
           # a hedge is no part of what is asked ("What *is thought to have* started the fire?")
           (re.compile(r"\b(?:is|was|are|were) (?:thought|believed|said|reported|understood) to (?:have )?", re.I), ""))
# Terms after one of these belong to a trailing clause ("... *before* joining the authority"): they
# narrow the question, the main clause says what is asked, so they weigh half.
_SUBORDINATE = re.compile(r"\b(?:before|after|while|when|during|since|because|although|though|until|unless|if)\b", re.I)
# Verbs a question may end on that say nothing themselves ("How many inhabitants does the town … *have*?")
_CARRIER = frozenset(_words("have has had do does did be is are was were"))
# A subordinating word followed by a noun phrase opens a phrase, not a clause ("*after the* accident")
_PHRASE = re.compile(r"\s+(?:the|a|an)\b", re.I)
# A relative clause sits inside the main one ("the engineer *who built the railway* born"): its terms
# weigh half too, except the question's last word, which is where the main clause resumes.
_RELATIVE = re.compile(r"\b(?:who|whom|whose|which|that|where)\b", re.I)
_WH_OPENING = re.compile(r"^(?:in|on|at|to|for|from|by|with|under|during|into|after|before|since|until|of)\s+"
                         r"(?:which|whom|whose)\b", re.I)
"""A question word after a preposition ("*In which* year …", "*To whom* …"): it asks, it does not relate."""

# A dimension attribute is present when the answer gives one of its units or words.
_DIMENSIONS: dict[str, frozenset[str]] = stemmed_groups({
        "high": "high height tall elevation altitude rise metre meter feet foot ft km kilometre",
        "tall": "tall height high metre meter feet foot storey floor",
        "deep": "deep depth metre meter feet foot fathom",
        "long": "long length metre meter kilometre km mile feet minute hour day week month year second",
        "far": "far distance kilometre km mile metre meter away",
        "old": "old age aged year born",
        "wide": "wide width metre meter kilometre km feet",
        "big": "big large size area hectare acre square kilometre km metre gallon litre liter cubic",  # "large" stems to "big"
        "size": "size big large area hectare acre square kilometre km metre",
        "temperature": "temperature degree celsius fahrenheit kelvin minus",
        "hot": "hot warm temperature degree celsius fahrenheit",  # "how *hot* did the hall get": "climbed to 41 °C"
        "power": "power horsepower hp kilowatt kw watt megawatt mw",
        "heavy": "heavy weight tonne ton kilogram kg pound",
        "weigh": "weigh weight tonne ton kilogram kg pound",
        "fast": "fast speed knot kilometre km mile hour",
        # "How *quickly* does the team acknowledge a report?": "within 48 hours" (a time it takes)
        "quickly": "quick within minute hour day week month second",
        "soon": "within minute hour day week month second later after",
        "often": "often every daily weekly monthly yearly annually quarterly times twice thrice interval",
        "much": "much cost price fee pound dollar euro crown worth",
        "cost": "cost price fee pound dollar euro crown worth",
        "price": "price cost fee pound dollar euro crown worth",
        "money": "money cost price fee pound dollar euro crown worth",
        "population": "population resident inhabitant people live census",
        "share": "share per cent percent percentage proportion fraction half third quarter majority",
        "live": "live resident inhabitant inhabited population people home",
        "born": "born birth native",  # "*A native of* Tessing, he trained as a surveyor"
        "died": "die death dead kill fatal drown drowned perish perished",
        "married": "married marry wife husband spouse wed",
        "wife": "wife married marry spouse wed",  # "Tobias Wrenfield's *wife*": "In 1858 he *married* Clara Ashe"
        "husband": "husband married marry spouse wed",
        "founded": "found establish begin start open create",
        "built": "build construct complete erect open",
})
_DIMENSIONS[stem("death")] = _DIMENSIONS[stem("died")]  # "the *death* toll" / "nine people *drowned*"


def _type_of(question: str) -> AnswerType | None:
    q = question.strip()
    # a thing of a named one is called by a name ("the Calder Marine Station's research boat"); a kind of thing
    # by a term ("What are the agents detected by the immune system called?")
    of_a_name = bool(re.search(r"\s[A-Z]", q))
    if named := _NAME_OF.match(q):
        if any(re.fullmatch(_PERSON_NOUNS, w, re.I) for w in named.group(1).split()):
            return "person"
        return "name" if of_a_name else None
    for kind, pattern in (("date", _DATE_Q), ("number", _NUMBER_Q), ("number", MEASURE_OF), ("person", _PERSON_Q),
                          ("place", _PLACE_Q), ("organisation", _ORG_Q), ("name", _NAME_Q),
                          ("occupation", _OCCUPATION_Q)):
        if pattern.match(q) and (kind != "name" or of_a_name):
            return "person" if kind == "name" and _CALLED_KIN.search(q) else kind  # type: ignore[return-value]
    if _YES_NO_Q.match(q):
        return "yes_no"
    if _TRAILING_DATE_Q.search(q):  # "Colour photos first appeared in the Sentinel *in which year*?"
        return "date"
    if _NICKNAME.search(q):  # "What was Johanna Ferrant's *nickname*?", "Kessenbrunn's nickname?"
        return "name"
    if telegraphic(q):
        if _TELEGRAPHIC_DATE.search(q):
            return "date"
        if TELEGRAPHIC_MEASURE.search(q):
            return "number"
    return None


_WH_WORD = re.compile(r"\b(?:what|which|who|whom|whose|where|when|why|how)\b", re.I)


def telegraphic(question: str) -> bool:
    """Whether the question is only a noun phrase ("Aurel Falk birth year?", "Height of the Vallisch Cup trophy?",
    "calder wren top speed"): no wh-word and no leading auxiliary, so its head noun says what is asked."""
    q = question.strip()
    return not _WH_WORD.search(q) and not _YES_NO_Q.match(q)


_NICKNAME = re.compile(r"\bnick-?names?\b(?! (?:for|of) (?:her|him|them|it)\b)", re.I)
_OWN_VALUE = re.compile(rf"nick-?names?|mottos?|{MEASURES}|headcount", re.I)
"""A possessive noun that is a value of its owner, not a thing of its own ("Kessenbrunn's *nickname*")."""
# "Aurel Falk *birth year*?", "Tobias Quennell *date of birth*?", "*Opening date of* the lace museum?", "*Year* Caddick
# was knighted?"
_TELEGRAPHIC_DATE = re.compile(r"^(?:[\w-]+ )?(?:year|date)\b|\b(?:year|date)(?: of (?:birth|death))?\W*$", re.I)


# "the engineer who", "the clinic founded by", "the lighthouse where", "the club whose", "the library that",
# "Port Vessany's twin town", and "the <role> of" for nouns that name someone by what they did or are to
# another ("the composer of the Tide Suite"; not "the wreck of the Meriden", which is the Meriden itself)
# -er/-or/-ent words that name a thing, not an agent ("the *number* of", "the *endowment* of")
_NOT_ROLE_WORDS = (r"number|water|winter|summer|center|centre|quarter|river|order|power|matter|letter|border|cover|"
                   r"other|paper|chapter|layer|tower|corner|weather|character|floor|door|colou?r|error|interior|exterior|"
                   r"sector|factor|mirror|harbou?r|event|content|extent|percent|continent|accident|incident|"
                   r"theat(?:er|re)|[a-z]*ment")
_NOT_ROLE = rf"(?!(?:{_NOT_ROLE_WORDS}) of\b)"
_NOT_A_ROLE_WORD = rf"(?!(?:{_NOT_ROLE_WORDS})\b)"
"""Not one of those words at all: "the *number* reported in …" describes no person, as "the *defendant* acquitted in
…" does."""
_ROLE = (r"[a-z]+(?:er|or|ist|ian|ant|ent)|architect|guide|pilot|poet|chair|chairman|chairwoman|coach|dean|"
         r"bishop|abbot|abbess|priest|judge|chef|mayor|founder|owner|king|queen|wife|husband|son|daughter|father|"
         r"mother|brother|sister|niece|nephew|cousin|aunt|uncle|grandson|granddaughter|grandfather|grandmother|"
         r"widow|heir|successor|predecessor|captain|chief|head|keeper|twin town|home town|hometown|"
         r"birthplace|home|capital|surgeon|matron|nurse|vicar|curate|trustee|patron|apprentice|pupil|student|"
         r"graduate|clerk|monk|nun|friend|rival|spouse|colleague|secretary|treasurer|steward|warden|"
         # a body's or a ship's relations ("the *mother house* of Holmbrake Abbey", "the *sister ship* of the Vigilant")
         r"mother house|parent company|sister ship|sister company")
PERSON_ROLE = rf"{_NOT_A_ROLE_WORD}(?:{_ROLE})"
"""A word that names someone by a role or a relation ("the harbour *master*", "the *mother*"), not a thing."""
_ORDINAL = rf"(?:{ORDINAL_WORDS}|last|\d+(?:st|nd|rd|th))"
_ROLE_MODIFIERS = (rf"(?:(?:most|current|former|new|best-known|{_ORDINAL}|managing|founding|acting|presiding|"
                   r"[a-z]+est|[a-z]+ful|[a-z]+ic|[a-z]+al) ){0,2}")
"""Up to two words that pick one holder of a role ("the academy's *most successful* graduate", "the company's *current
artistic* director", "the school's *second* director", "the works' *third managing* director")."""
_RANKED_ROLE = rf"{_ORDINAL} (?:[a-z]+ )?(?:{_ROLE})\b"
"""A holder picked by rank, which a named owner's role has too ("Orlund's *third managing director*")."""
# Things known by a name, so that "the *company* Mira Tell founded" is bridged to it (not "the storms she painted")
_NAMED_BODIES = (r"company|firm|business|club|society|school|college|university|museum|gallery|library|band|orchestra|"
                 r"choir|team|party|newspaper|magazine|label|publisher|shipyard|yard|ship|boat|vessel|station|"
                 r"institute|foundation|trust|charity|festival|hotel|restaurant|farm|brewery|cooperative|theatre|"
                 r"theater|church|hospital|clinic|bank|studio|shop|factory|works|mill|railway|airline")
# works known by a name ("the *play* Mireille Adance premiered")
_NAMED_WORKS = r"play|opera|ballet|film|novel|book|album|song|painting|statue|poem|symphony|treatise"
# what someone does to a thing or a person, asked in the present ("the club Matthias Brel *plays* top board for")
_DOES = r"plays|coaches|manages|runs|owns|leads|directs|captains|sponsors|trains|teaches|edits|chairs|employs"
# a past tense that is no participle: after "was" it is still the name's act, not the question's own passive ("Where
# was the player Anselm Korvath *beat* in 1953 born?")
_PAST_ONLY = r"wrote|ran|took|chose|began|sang|drew|beat|gave|saw|knew|rode|flew|swam"
# a contact clause's noun and name: a named body or work, or a person by role ("the *club Matthias Brel* plays for")
_CONTACT_HEAD = (rf"the (?:[a-z]+ )?(?:{_NAMED_BODIES}|{_NAMED_WORKS}|{_NOT_A_ROLE_WORD}(?:{_ROLE})) "
                 r"[A-Z][a-z]+(?: [A-Z][a-z]+)* ")
# a person described by a role of something ("the chief *arbiter of* the Meirholt Match")
# "the *first head cheesemaker* of the Kessweil Dairy": up to two words before the role
_ROLE_OF = rf"\bthe (?:[a-z]+ ){{0,2}}{_NOT_ROLE}(?:{_ROLE}) (?:of|behind|at the time of|during)\b"
_CONTENT_WORD = (r"(?!(?:of|in|at|on|for|from|with|by|during|after|before|to|into|that|which|who|whom|whose|where|when|"
                 r"and|or|as|than|is|was|are|were)\b)[a-z]+")
"""A word of a noun phrase, not a preposition, conjunction, relative or auxiliary."""
_DESCRIPTION = re.compile(
    # (a title written with capitals and a hyphen is a role: "the *Surveyor-General* who started …")
    rf"\bthe (?:[a-z]+ ){{0,2}}(?:[a-z]+|[A-Z][a-z]+(?:-[A-Za-z]+)+) (?:who|whom|that|which|whose|where|(?:[a-z]+ed|built|run|led|held|written|"
    rf"drawn|made|won|painted|founded) by)\b|{_ROLE_OF}|\b(?:[A-Z][a-z]+|[A-Z]{{2,}})(?: [A-Z][a-z]+)*'s [a-z]+"
    # a role of something described itself ("the academy's most successful *graduate*", "the museum's *curator*")
    rf"|\bthe (?:[A-Za-z]+ )?[a-z]+'s {_ROLE_MODIFIERS}(?:{_ROLE}|graduate|student|pupil)\b"
    # a contact clause ("the company *Mira Tell founded*"): a noun, a name, and what the name did to it
    # ("the *play Mireille Adance premiered*", "the *rival Anselm Korvath beat*"); after "was" it is the question's
    # own passive ("When was the company Pellory Systems founded?"), unless in the present ("When was the *club
    # Matthias Brel plays* top board for founded?")
    rf"|(?:(?<!\bwas )(?<!\bwere )(?<!\bis )(?<!\bare )\b{_CONTACT_HEAD}(?:[a-z]+ed|built|made|won|wrote|ran|led|held|"
    rf"drew|sold|bought|began|chose|took|beat|met|taught|sang|fought|caught)|\b{_CONTACT_HEAD}(?:{_DOES}|{_PAST_ONLY}))\b"
    # a person described by what was done to or for them ("the man *honoured in* the name of …", "the woman
    # buried at …"): a reduced relative clause
    # ("the *defendant acquitted in* the 1952 case")
    rf"|\bthe (?:[a-z]+ )?(?:man|woman|person|guy|men|women|people|boy|girl|{_NOT_A_ROLE_WORD}(?:{_ROLE})) [a-z]+(?:ed|en|wn) "
    rf"(?:in|at|on|by|for|after|from|to|as)\b"
    # a contact clause naming after someone ("the woman *the Orsmund Pavilion is named after*")
    rf"|\bthe (?:[a-z]+ )?(?:man|woman|person|{_NOT_A_ROLE_WORD}(?:{_ROLE})) (?:the )?[A-Z][a-z]+(?: [A-Z][a-z]+)* "
    rf"(?:is|was|are|were) named (?:after|for)\b"
    # the first, last or only one to do something ("the *first woman to serve* as Collector of Customs"): an
    # infinitive relative clause
    rf"|\bthe (?:first|last|only|second|third|[a-z]+est) (?:[a-z]+ )?[a-z]+ to (?!be\b)[a-z]+\b"
    # a contact clause whose subject is a described thing ("the *building the orchestra moved* into in 1968")
    rf"|\bthe (?:{_CONTENT_WORD} )?{_CONTENT_WORD} (?:the|its|his|her|their) (?:{_CONTENT_WORD} )?{_CONTENT_WORD} "
    rf"(?:[a-z]+ed|built|made|won|wrote|ran|led|held|drew|sold|bought|began|chose|took|beat|met|taught|sang|fought|"
    rf"caught)\b")


RELATIVE_HEAD = re.compile(r"\b([a-z]{3,}) (?:who|whom|whose|which|that|where|"
                           r"(?:on|in|at|from|to|by|for|with|under|near) (?:which|whom|whose))\b")
"""A noun and the relative clause that describes it ("the *inn* where Ida Tavener grew up", "the body *that* bought
the Sentinel", "the *river* on which Varnholt's twin town stands"): what a bridge is called by, and a question whose
relation spans two hops."""

_CONTRACTION = re.compile(r"\b(What|Who|Where|When|Why|How|Which|That|There|Here|It)'s\b", re.I)


_NAMED_AFTER = re.compile(r"(?:\s+[a-z-]+){0,6}?\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*")
_DESCRIBED_BY = re.compile(r"\b(?:of|'s)\s+((?:(?:the|of|a|an)\s+)*(?:[A-Z][\w-]*\s*)+|(?:(?:the|a|an)\s+)?\S+)")


def _description_span(text: str) -> tuple[int, int] | None:
    """Where a role description ("the composer *of the Tide Suite*", "Port Vessany's *twin*") lies in
    ``text``: from "the" to the end of what follows "of" (a name, or one word), as ``(start, end)``."""
    match = _DESCRIPTION.search(_CONTRACTION.sub(lambda m: m.group(1) + " s", text))  # same length: "What s"
    if match is None or re.search(r"\b(?:who|whom|that|which|whose|where|by)$", match.group(0)):
        return None  # a relative clause or "founded by": read as such
    if match.group(0).endswith("of"):
        tail = _DESCRIBED_BY.match(text, match.end() - 2)
        return match.start(), (tail.end() if tail else match.end())
    if "'s " not in match.group(0):  # a reduced relative clause: up to the first name after it
        named = _NAMED_AFTER.match(text, match.end())
        return match.start(), (named.end() if named else match.end())
    owner, owned = text[match.start():].split("'s ", 1)
    # a described owner's role may have modifiers ("the academy's *most successful* graduate"); a named one's
    # thing has a name of its own ("Thorncastle Brewery's best-known beer")
    modifiers = _ROLE_MODIFIERS if owner.islower() else ""
    if not re.match(rf"{modifiers}(?:{_ROLE}|graduate|student|pupil)\b" if modifiers else rf"(?:{_ROLE})\b|{_RANKED_ROLE}",
                    owned):
        return None  # "Newton's life", "Tesla's laboratory": a thing of the name, asked about as such
    return match.start(), match.end()


# What opens a clause inside a description ("the club *that won* the cup", "the stand *built* in 1920"): another hop
_CLAUSE_WORDS = frozenset(_words("who whom whose which that where when while is was are were did does do has have had "
                                  "before after"))
_PARTICIPLE = re.compile(r"[a-z]+(?:ed|en|wn|lt)|made|won|held|run|led|sold|bought|taught")
_COPULA_Q = re.compile(r"^(?:what|which|who)\s+(?:is|was|are|were)\s+", re.I)


_NAME_OF_DESCRIBED = re.compile(r"(?:(?:what|which) (?:is|was|are|were) )?(?:the )?(?:full |real |first )?names? of ", re.I)
"""The name of what a description describes is asked ("What was the name of …", telegraphic "name of …")."""


def asks_for_description(question: str) -> bool:
    """The question asks for the described thing itself ("What was Edvin Marrowby's *home* village?"): a
    look-up whose whole subject is the description, with at most a noun of the asked type after it; no
    second hop."""
    text = question.strip().rstrip("?").strip()
    named = _NAME_OF_DESCRIBED.match(text)
    span = description_span(text) if named else None
    if named and span and span[0] == named.end():
        # "What was the name of *the man who founded the Lorvin Glassworks*?": the described one is asked, unless the
        # description holds another ("the street where *the founder of* Halloran Boatworks grew up": a hop away)
        first = _DESCRIPTION.search(text, span[0])
        return first is not None and not describes_entity(text[first.end(): span[1]])
    lead = _COPULA_Q.match(text)
    span = _description_span(text) if lead else None
    if lead is None or span is None or span[0] != lead.end():
        return False
    after = text[span[1]:].split()
    if not after or (len(after) == 1 and stem(after[0]) in _TYPE_NOUNS):
        return True
    # "Who was the leader of the 1912 boatmen's strike on the Vessary Canal?": the rest of the phrase only says
    # which strike (no clause in it, so no other hop); "Who was the founder of the club that won the cup?" has one
    return lead.group(0).lower().startswith("who") and not any(
        w.lower() in _CLAUSE_WORDS or _PARTICIPLE.fullmatch(w) for w in after)


_ROLE_DESCRIPTION = re.compile(_ROLE_OF)


def describes_by_role(question: str) -> bool:
    """Whether the question describes a person by a role of something ("the chief *arbiter of* the Meirholt Match",
    "the *sponsor of* the record winner's team"): one page names the holder, another says what was asked of them."""
    return bool(_ROLE_DESCRIPTION.search(_CONTRACTION.sub(r"\1 is", question)))


def describes_entity(question: str) -> bool:
    """The question refers to something by description rather than by name ("What's" is no possessive; a
    possessive of the answer's type, "Josiah Brandreth's *job*", is asked of the name itself)."""
    lead = _LEAD.match(question.strip())
    if lead is not None and _REFERS_BACK.search(lead.group("ask")):
        return True  # "The ferry … docks at a stone harbor on Calder. In what year was *that harbor* deepened?"
    text = _CONTRACTION.sub(r"\1 is", question)
    # what a named subject became is said of it, not a description of another ("In what year did Agnes Penhallow
    # *become the first curator of* the Orsavel Lace Museum?")
    match = next((m for m in _DESCRIPTION.finditer(text) if not _BECAME.search(text, 0, m.start())), None)
    if match is None:
        return False
    owned = re.search(r"'s ([a-z]+)", match.group(0))
    # "Josiah Brandreth's *job*" asks the type of answer of the name itself, as "Johanna Ferrant's *nickname*" and
    # "the Amsel's *length*" ask a value of it; "Ottilie Sarn's best-known painting" is a thing of hers with a name of
    # its own, a hop away
    return not (owned and (stem(owned.group(1)) in _TYPE_NOUNS or _OWN_VALUE.fullmatch(owned.group(1))))


_BECAME = re.compile(r"\b[A-Z][\w'’-]+ (?:become|became|becomes|be appointed|be elected|be named|serve as)\s+$")
"""A named subject's predicate that a role follows: the role is what the question asks about that name."""

_MEASURED_THING = re.compile(
    r"^(?i:how) (?:long|tall|high|deep|wide|big|large|far|heavy|old) (?:is|was|are|were) the (?:[a-z]+ )?([a-z]+)"
    r"(?= (?:from|of|in|at|on|between|to|across|up|down|under|over|near|that|which)\b|\W*$)")


@dataclass(frozen=True)
class Asked:
    """What a question asks for: the answer type and the asked attribute (stems), and the names it pins."""

    question: str
    kind: AnswerType | None
    attribute: tuple[str, ...]
    names: frozenset[str]
    weights: tuple[float, ...] = ()
    """Weight of each attribute term: 1 in the main clause, 0.5 for the slot's noun and in a relative
    clause, 0.3 in a trailing one."""
    event: str = ""
    """The word the answer must say in some form, as its stem: the participle a passive date question ends on
    ("When was the road bridge *opened*?": a year of its proposal is no answer), the act a who-question asks
    about ("Who *designed* …?": the town that proposed it is no answer), what a count counts ("How many
    *contributors* …?": "a single node" is no answer)."""
    relation: str = ""
    """The word of a trailing clause that holds all the question says ("What did Voss do *before* he went
    into politics?"): the answer must stand in that relation ("*Before* entering politics he managed …"),
    not merely mention politics."""
    named: tuple[tuple[str, ...], ...] = ()
    """The name the asked relation is about when the question puts it right after its auxiliary ("When did
    *Henrik Voss* compose the suite?"), as its word stems: the answer must be about it, not about a
    namesake or another holder of the same relation. A name in a description ("the composer of the *Tide
    Suite*", "the storms *Sinead Ardley* painted") is not required: the answer is a hop away from it."""
    slot: str = ""
    """The wh-slot's noun ("what track *gauge* does …"): a sentence that says it speaks of what was asked
    ("built to a *gauge* of 785 mm"), though an answer need not say it."""
    heads: tuple[tuple[str, str], ...] = ()
    """(modifier, head) pairs of a compound's last two terms ("the *surface area*", "what *track gauge*"): a
    sentence that says the head with no rival modifier need not say this one ("covers an *area* of 6.4 km²";
    a "*cruising* speed" is no "top speed")."""
    category: str = ""
    """The asked noun as written, where the question asks for an instance of it ("what *instrument* did he
    play", "what kind of *business*"): a sentence that names a kind of it ("a keen amateur *flute* player",
    WordNet's musical instrument; :mod:`groundqa.hypernyms`) says it."""
    optional: frozenset[str] = frozenset()
    """Terms whose absence costs nothing: a verb that only carries the slot ("What gauge does it *use*?",
    "What motto *appears* beneath the crest?"). Said, they count like any other."""
    denied: bool = False
    """The question asks what is *not* so ("What is *not* a side effect of glucocorticoids?", "Which day *can't*
    you visit the museum?", "What cell is *unable* to act as a scavenger?"): only a sentence that denies or
    excludes something answers it ("The museum is *closed* on Mondays"). The sentence that says the same thing
    without the negation ("these drugs can have many undesirable side effects, such as …") is the topical non-answer
    such a question is made from (SQuAD 2.0's negation questions)."""

    @property
    def weight(self) -> dict[str, float]:
        """Each attribute term's weight (1 for every term where none were read)."""
        return dict(zip(self.attribute, self.weights or (1.0,) * len(self.attribute), strict=True))

    @property
    def main(self) -> tuple[str, ...]:
        """The terms of the main clause (all terms when it has none): what the answering sentence itself must
        mention at least one of ("*born*" in "In which village was the guide who led the first ascent …
        born?"; the relative clause may be read off the sentence before or the passage that named him)."""
        top = tuple(t for t, w in self.weight.items() if w >= 1.0)
        return top or self.attribute

    @property
    def category_term(self) -> str:
        """The asked noun as an attribute term ("instrument", "ston"), or "" where none is asked."""
        return _kind_term(self.category)

    @property
    def type_only(self) -> bool:
        """Whether the main clause asks only for a type and every term describes what has it ("What was the
        *profession* of the man whose daughter gave her name to No. 1?"): a bridged answer need only hold a
        value of the type, since the naming sentence says the rest."""
        return self.kind not in (None, "yes_no") and bool(self.weights) and max(self.weights) < 1.0

    @property
    def measured(self) -> str:
        """The thing a dimension is asked of, as its term ("How long is the *road* from Velmarre up to the
        observatory?"), or "": a length of something else (an asteroid's orbit) is no answer."""
        match = _MEASURED_THING.match(self.question.strip())
        if match is None or describes_entity(self.question):  # "the lake *shown in* her painting": a hop away
            return ""
        term = _superlative_base(stem(match.group(1)))
        return term if term in self.attribute else ""

    @property
    def counted_act(self) -> str:
        """The act a count is of, as its term, where the question says it right after what it counts ("How many
        students *failed* the final exam?", "how many copies *sold*"), or "": "Today the school has 96 students" counts
        students, not those who failed."""
        match = _COUNTED_ACT.match(self.question.strip())
        term = stem(match.group(1).lower()) if match else ""
        return term if term in self.attribute and term != self.event and term not in _BEING_VERBS else ""

    @property
    def required(self) -> frozenset[str]:
        """Terms the answer cannot do without: an asked dimension, the thing it is asked of, the act a count is of and
        a year the question pins."""
        weights = self.weight
        measured = self.measured
        counted = self.counted_act
        return frozenset(t for t in self.attribute if (t in _DIMENSIONS and (weights[t] >= 1.0 or re.search(
                             rf"\b(?:what|which) {t}", self.question, re.I)) and not (  # "at what *temperature*"
                             t == "old" and not re.search(r"\bhow old\b", self.question, re.I)))  # "the *old* ferry"
                         or t == self.event or t == measured or t == counted
                         or (len(t) == 4 and t.isdigit() and weights[t] >= 0.5))  # not a trailing clause's date


# "How many students *failed* …", "how many jobs *were lost* …": the verb after the counted noun
# verbs that say only that the counted things are there ("How many people *sit* on the committee?" asks its members)
_BEING_VERBS = frozenset(stem(w) for w in _words("sit sits sat serve serves served belong belongs exist exists remain remains stay stays "
                                "stand stands stood get gets got take takes took come came go went"))
_COUNTED_ACT = re.compile(r"^how many [a-z-]+ (?:(?:were|was|have been|had been|has been) )?([a-z]+)\b", re.I)
# a question's subject described by a relative clause, after "did" ("When *did the chief executive* who …") or, in the
# passive, after "was" ("In what year *was the engineer* who designed the dock elected president …?")
_DESCRIBED_SUBJECT = re.compile(r"^(?:\w+ ){0,4}?(?i:when|where|why|how|what|which|who|whom)\b(?: \w+){0,3}? "
                                r"(?i:(did|does|do)|was|were|is|are) (?:the|a|an) ((?:[a-z][a-z'-]* )?[a-z][a-z-]*) ?$")
# a passive main clause said whole before its described object ("What medal *was awarded to the captain* who …")
_DONE_TO = re.compile(r"\b(?:was|were|is|are)\s+[a-z]+(?:ed|en|wn)\s+(?:to|by|for|from|at|in|on|with)\s+(?:the|a|an)\s+"
                      r"(?:[a-z]+\s+)?[a-z]+\s*$")
_NOT_A_VERB_AFTER = frozenset(_words("first second third last new old original former main only early late"))


def _after_a_noun(before: str) -> bool:
    """Whether a word after ``before`` may be a verb resuming a main clause: ``before`` is a name or a content word,
    not an ordinal or the like ("the *first* ascent"), nor a possessive ("the railway's *workshop*" is a noun)."""
    return ((before[:1].isupper() or bool(features(before).content) or _YEAR.fullmatch(before) is not None)
            and before.lower() not in _NOT_A_VERB_AFTER and not before.endswith("'s"))


_YEAR = re.compile(r"1[0-9]{3}|20[0-9]{2}")
"""A year ends a clause as a noun does ("… the weekend Morning Table from 1979 to *1998 chair* now")."""


def _resumed_participle(words: list[str]) -> str:
    """Where a passive question's main clause resumes after the relative clause that describes its subject: the
    rightmost participle after a name or a noun, with all that follows it ("… who designed the Merrow Dock *elected
    president of his institution*?"); "" for none, or where the participle ends the question (what resumes is then
    the clause's last word, as before)."""
    # the clause's own verb comes first ("where Ilsa Mornay *served* as chief pilot"): what resumes comes after it
    own = next((i for i, word in enumerate(words) if _PARTICIPLE.fullmatch(word)), len(words))
    for i in range(len(words) - 2, own, -1):
        word, before = words[i], words[i - 1]
        if _PARTICIPLE.fullmatch(word) and _after_a_noun(before):
            return " ".join(words[i:])
    return ""


# A phrasal verb's particle ("close *down*", "give *up*"): the phrase resumes at the verb before it
_PARTICLES = frozenset(_words("down up out off over away back"))


def _resumed_verb_phrase(words: list[str]) -> str:
    """Where a do-question's main clause resumes after its relative clause: the rightmost bare word after a content
    word ("When did the chief executive who negotiated the Corrant merger *first join Vellmar*?", "… the union
    secretary who led the 1923 strike *serve as mayor of Hollenby*?"), with all that follows it; "" for none. A word
    that only frames the time ("… *chair now*") is not where it resumes."""
    if words and words[-1].lower() in _CARRIER:  # "… is located *have*": a verb that only carries the slot
        return ""
    for i in range(len(words) - 1, 1, -1):
        word, before = words[i], words[i - 1]
        if (word.islower() and word.isalpha() and features(word).content and not word.endswith(("ed", "s"))
                and word not in _PARTICLES and stem(word) not in _FILLER and _after_a_noun(before)):
            return " ".join(words[i:])
    return ""


_TERSE_OF = re.compile(r"^([A-Z][a-z]+)(?= of (?:the )?[A-Z])")


@lru_cache(maxsize=20_000)
def plain_words(question: str) -> str:
    """``question`` with what people say put in the words passages use (``_IDIOMS``: "Who *sounded the alarm*?" ->
    "Who *raised the alarm*?", "Who's *in charge of* …" -> "Who's *heads* …"; cached: every check of a question
    reads it again)."""
    for idiom, verb in _IDIOMS:
        question = idiom.sub(verb, question)
    return question


# A description that is a clause: a relative, "founded by", an infinitive or a reduced relative ("the man who",
# "the stand built by", "the first woman to serve", "the woman buried at")
_CLAUSE_DESCRIPTION = re.compile(r"(?:who|whom|that|which|whose|where|by|to [a-z]+|[a-z]+(?:ed|en|wn) (?:in|at|on|by|"
                                 r"for|after|from|to|as))$")
_DO_QUESTION = re.compile(r"\b(?:did|does|do)\b", re.I)
# what ends a described noun phrase ("the mother of the aviation museum's current curator *born*"): a preposition,
# a conjunction or a relative word
_PHRASE_ENDS = frozenset(_words("in at on for from with by to during before after when while as since until who whom "
                                "which that where whose and or than"))
_FINAL_PARTICIPLE = re.compile(rf"born|{_PARTICIPLE.pattern}")
_IN_A_NAME = frozenset(_words("of the a an"))
_DETERMINERS = frozenset(_words("the a an his her its their this these those all every each"))


def _phrase_end(body: str, pos: int, do_question: bool) -> int:
    """Where the noun phrase that goes on at ``pos`` ends: before a preposition, a conjunction or a relative word,
    before a participle ("… curator *born*"), and in a do-question before its main verb: the first bare word followed
    by the question's end, a preposition or a determiner ("… the Threlkirk Local History Society *write*", "… Kellby
    Lighthouse *spend* his childhood", "… the 2016 Strait Regatta winner *arrive* on …")."""
    tokens = list(re.finditer(r"\S+", body[pos:]))
    end = pos
    for i, token in enumerate(tokens):
        word = token.group(0)
        if word.lower() in _PHRASE_ENDS:
            break
        if word.islower() and not word.endswith("'s") and word not in _IN_A_NAME:
            if not do_question and _FINAL_PARTICIPLE.fullmatch(word):
                break
            after = tokens[i + 1].group(0).lower() if i + 1 < len(tokens) else ""
            if do_question and (not after or after in _PHRASE_ENDS or after in _DETERMINERS):
                break
        end = pos + token.end()
    return end


def description_span(question: str) -> tuple[int, int] | None:
    """Where the description of what ``question`` asks about lies in it, as ``(start, end)``: from "the" to where
    the main clause resumes ("When did *the doctor who founded the Nessa Clinic* die?", "Where did *the zoo's
    current director* work for nine years …?", "In which city was *the man who led the first ascent of Mount
    Skarn* born?"). A bridge's name put in its place asks the second hop's question of it. ``None`` where the
    question describes nothing."""
    body = question.strip().rstrip("?").rstrip()
    text = _CONTRACTION.sub(lambda m: m.group(1) + " s", body)  # same length: "What s"
    match = _DESCRIPTION.search(text)
    if match is None:
        return None
    do_question = bool(_DO_QUESTION.search(body[: match.start()]))
    clause = match if _CLAUSE_DESCRIPTION.search(match.group(0)) else _DESCRIPTION.search(text, match.end())
    if clause is None or not _CLAUSE_DESCRIPTION.search(clause.group(0)):
        span = _description_span(body)  # "the composer of the Tide Suite", "the zoo's current director"
        return None if span is None else (span[0], max(span[1], _phrase_end(body, span[1], do_question)))
    words = body[clause.end():].split()
    end = len(body)  # "Who painted the portrait of the lighthouse keeper who spotted the distress flares?"
    if words and words[-1].lower() in _CARRIER:  # "How many inhabitants does the port where … was built *have*?"
        end = body.rindex(" " + words[-1])
    elif do_question:
        resumed = _resumed_verb_phrase(words)
        end = body.rindex(resumed) if resumed else end
    elif resumed := _resumed_participle(words):
        end = body.rindex(resumed)
    elif len(words) >= 2 and _FINAL_PARTICIPLE.fullmatch(words[-1]) and _after_a_noun(words[-2]):
        end = body.rindex(" " + words[-1])
    return clause.start(), end


# A question led by a sentence that says what it asks about ("Ines Halloran's cousin builds boats. *What year was he
# born?*"): the last sentence asks; the lead describes
_LEAD = re.compile(r"^(?P<lead>.*?[a-z0-9)'’][.!;:])\s+(?P<ask>(?:(?:In|On|At|From|By|Until|Since|For|To|During) (?i:what|which) |"
                   r"(?:What|Which|Who|Whom|Whose|When|Where|Why|How|Did|Does|Do|Is|Was|Were|Are|Has|Have|Had|Can|"
                   r"Could|Will|Would)\b)[^.!?]*\??)\s*$")


# The question sentence after a lead points back at what the lead describes ("*that* museum", "*he*")
_REFERS_BACK = re.compile(r"\b(?:(?:that|this|these|those|the same) [a-z]+|he|she|it|they|him|her|his|its|their)\b",
                          re.I)


@lru_cache(maxsize=4096)
def asked(question: str) -> Asked:
    """Read the answer type and the asked attribute off ``question``.

    A lead sentence before the question ("Ines Halloran's cousin builds boats. What year was he born?") is read as a
    description of what the question asks about: the question sentence gives the type and the main clause, the
    lead's words weigh as a relative clause's do, and its names are pinned like the question's."""
    lead = _LEAD.match(question.strip())
    if lead is None:
        return _asked(question)
    inner = _asked(lead.group("ask"))
    described = features(plain_words(lead.group("lead")))
    names = {tok for name in described.names for tok in name}
    terms = dict(zip(inner.attribute, inner.weights or (1.0,) * len(inner.attribute), strict=True))
    # the noun that points back ("that *guild*") is the lead's description's head, not what is asked of it
    for back in _REFERS_BACK.finditer(lead.group("ask")):
        head = stem(back.group(0).split()[-1].lower())
        if head in terms and len(back.group(0).split()) > 1:
            terms[head] = min(terms[head], 0.5)
    for token in sorted(described.content):
        term = _superlative_base(token)
        if token in names or term in _TYPE_NOUNS or term in _FILLER or term in _LIGHT or token.isdigit():
            continue
        terms.setdefault(term, 0.5)
    order = tuple(terms)
    return replace(inner, question=question, attribute=order, weights=tuple(terms[t] for t in order),
                   names=inner.names | frozenset(names))


def _asked(question: str) -> Asked:
    # a terse look-up opens on the asked noun, capitalised as the first word, not as a name ("*Birthplace* of
    # Edda Marrowby?")
    read = plain_words(_TERSE_OF.sub(lambda m: m.group(1).lower(), question))
    feats = features(read)
    name_tokens = {tok for name in feats.names for tok in name}
    kind = _type_of(question)
    body = read.strip().rstrip("?")
    # the question word is no relative ("*In which* year did the breeder … graduate …?", "*On which* island was the
    # chief pilot *who* testified … born?"): clauses are looked for after it
    opening = _WH_OPENING.match(body)
    start = opening.end() if opening else len(body.split(maxsplit=1)[0]) if body else 0
    trailing = _SUBORDINATE.search(body, pos=start)
    first_relative = _RELATIVE.search(body, pos=start)
    if trailing and first_relative and first_relative.start() < trailing.start() and _PHRASE.match(body, trailing.end()):
        trailing = None  # "the manager who ordered new brakes *after the accident* born": a phrase of the clause
    main_text = body[: trailing.start()] if trailing else body
    relative = _RELATIVE.search(main_text, pos=start)
    embedded = features(main_text[relative.start():]).content if relative else frozenset()
    if relative:
        words = main_text[relative.start():].split()[1:]
        said = [w for w in words if features(w).content]
        # the main clause resumes at the clause's last content word ("… Calder bridge *belong* to"), unless it
        # ends in a verb that only carries the slot ("… is located *have*"): then nothing resumes
        last = said[-1] if said and not (words and words[-1].lower() in _CARRIER) else ""
        if _DONE_TO.search(main_text[: relative.start()]):
            last = ""  # "What medal *was awarded to* the captain who commanded …?": the main clause is whole before it
        subject = _DESCRIBED_SUBJECT.search(main_text[: relative.start()])
        head = subject if subject and subject.group(1) else None  # a do-question's
        if head and " " in head.group(2) and relative.group(0).lower() == "that":
            head = None  # "did the inquiry *conclude that* …": a verb's clause, not a noun's
        verb_phrase = _resumed_verb_phrase(words) if head else ""
        passive = _resumed_participle(words) if subject and not subject.group(1) else ""
        resumed = verb_phrase or passive or last
        if not head and subject and (passive or _FINAL_PARTICIPLE.fullmatch(last)):
            head = subject  # a passive main clause of its own ("In which village was the *guide* who led … *born*?")
        elif head and not features(verb_phrase).content - _LIGHT - _EVENT_LIGHT:  # "… *happen*?" asks nothing of it
            head = None
        if head:
            # "In what year did the *scientist* whose team discovered Cardavin retire?": the noun the clause describes
            # is what the bridge's page says; the clause that resumes after it is what was asked of it
            embedded = embedded | features(head.group(2)).content
            main_text = main_text[: head.start(2)]
        main_text = main_text[: relative.start()] + " " + resumed
    else:  # "the composer of the Tide Suite", "Port Vessany's twin town": a description, weighed as one
        described = _description_span(main_text)
        if described is not None:
            embedded = features(main_text[described[0]: described[1]]).content
            main_text = main_text[: described[0]] + " " + main_text[described[1]:]
    main = features(main_text).content
    slot = _slot_noun(body) or _typed_slot_noun(kind, body)
    terms: dict[str, float] = {}
    for token in feats.content:
        term = _superlative_base(token)
        if kind == "number" and term in _COUNT_LIGHT:
            continue  # "How many appearances did he *make*?": the count is the answer, not the making
        if token in name_tokens or term in _TYPE_NOUNS or term in _FILLER or (
                (term in _LIGHT or (kind == "place" and term in _LOCATING)
                 or (kind in ("date", "place") and term in _EVENT_LIGHT)) and len(feats.content) > 1):
            continue
        if token.isdigit() and not (len(token) == 4 and token in feats.numbers):
            continue  # a year the question pins must be in the answer ("in 2021"); other numbers need not
        weight = 0.5 if token == slot else 1.0 if token in main else 0.5 if token in embedded else 0.3
        terms[term] = max(terms.get(term, 0.0), weight)
    cause = _CAUSE_Q.search(question)
    if cause:  # "What *started* the 1962 fire?" asks for its cause, which the answer must give
        terms.pop(stem(cause.group(1)), None)
        terms[_CAUSE] = 1.0
    order = sorted(terms, key=lambda t: (question.lower().find(t[:4]) % 10_000))
    # the asked compound's last noun is its head ("the surface *area* of", "what track *gauge* does")
    compound = _ASKED_COMPOUND.match(read.strip())
    pair = tuple(_superlative_base(stem(w.lower())) for w in compound.groups()) if compound else ()
    heads = ((pair[0], pair[1]),) if pair and pair[0] in terms and pair[1] in terms and pair[2] not in terms else ()
    named_kind = _KIND_OF.match(read.strip()) or _SLOT_NOUN.match(read.strip()) or _TYPED_SLOT.match(read.strip())
    category = named_kind.group(1).lower() if named_kind else ""
    category = category if _kind_term(category) in terms else ""
    # a verb carries the asked noun, or the kind asked of ("What type of *rock* is the Hornvelt *made* of?")
    optional = frozenset(t for t in terms if (slot or category) and t in _SLOT_VERBS)
    relation = trailing.group(0).lower() if trailing and terms and max(terms.values()) < 0.5 else ""
    said = (_DATED_EVENT.match(question.strip()) if kind == "date"
            else (_DOER.match(read.strip()) or _role_holder(read) or _WHICH_DOER.match(read.strip()))
            if kind == "person" else _WHICH_DOER.match(read.strip()) if kind == "organisation"
            else _COUNTED.match(question.strip()))
    done = next((g for g in said.groups() if g), "") if said else ""  # the role holder's pattern has two groups
    event = _CAUSE if cause else stem(done) if done and stem(done) in terms else ""
    denied = kind != "yes_no" and bool(_DENIED_Q.search(_NOT_DENYING.sub(" ", question)))
    return Asked(question, kind, tuple(order), frozenset(name_tokens), tuple(terms[t] for t in order), event,
                 relation if relation in _RELATIONS else "", _subject_name(question, feats.names),
                 slot if slot in terms else "", heads, category, optional, denied)


# A question that asks what is not so; "why" takes the failure for granted and asks its cause ("Why *couldn't* the
# firefighters reach the summit?" is answered by the storm), so it is left to premise verification
_DENIED_Q = re.compile(r"^(?!\W*why\b).*?(?:\b(?:not|never|cannot|unable)\b|n['’]t\b)", re.I)
# "not" in an idiom that asserts ("*not far* from the station" is near it)
_NOT_DENYING = re.compile(r"\b(?:whether or not|if not|not only|not just|not yet known|or not|or may not|not far|"
                          r"not long (?:after|before)|not until|not least)\b", re.I)
# Words that deny or exclude in other words than a negation (``lexical.NEGATIONS``, which ``negates`` reads): "The
# museum is *closed* on Mondays", "open daily *except* Mondays", "*only* four interactions are known"
_DENYING = re.compile(r"\b(?:except|excepting|excluding|excluded|exclusively|other than|apart from|only|closed|unable|"
                      r"lacks?|lacked|lacking|fail(?:s|ed)?|absent|missing|instead|rather|unlike)\b", re.I)


# The two words right after the wh-phrase, and the word after them: "What's the *surface area of*", "What
# *track gauge does*". Only the asked attribute's own compound: a modifier deeper in the question ("problems
# with *multiple outputs*") is what an unanswerable variant changes.
_ASKED_COMPOUND = re.compile(r"^(?:\w+ )?(?:what|which)(?:'s| is| was| are| were)?(?: the)? ([a-z]+) ([a-z]+) ([a-z]+)\b",
                             re.I)
# What gives a cause: "resigned in 1904 *because of* failing eyesight", "widened *after* engineers judged it too narrow",
# "hauled empty wagons up the other, *so* the incline needed no engine"; an "after" that gives a time does not
GIVES_CAUSE = re.compile(r"\bbecause\b|\b(?:owing|due) to\b|\bin order to\b|\bso (?:that|as to)\b|\bcaused by\b|"
                         r"\bresult of\b|\bblamed\b|\bfor fear\b|,\s*so\b|\bciting\b|"
                         # not a time ("called off *after 47 days*", "after 1990", "after two years")
                         r"\bafter\b(?! (?:\d|(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|several|many|"
                         r"a few|some) (?:\w+ )?(?:days?|weeks?|months?|years?|hours?|minutes?|decades?|seasons?)\b))",
                         re.I)
_WHY_Q = re.compile(r"^\W*why\b", re.I)


def asks_why(question: str) -> bool:
    """Whether ``question`` asks for a cause ("Why did …?")."""
    return _WHY_Q.match(question) is not None


_CAUSE = stem("cause")
_CAUSE_Q = re.compile(r"\bwhat (?:\w+ ){0,2}?(started|caused|sparked|triggered|ended)\b", re.I)
_DATED_EVENT = re.compile(r"^(?:in |on )?(?:when|(?:what|which) (?:year|date|decade|century|month|day)) (?:was|were|is|are|"
                          r"has|have|had)\b.* ([a-z]+(?:ed|en|wn|lt))\W*$", re.I)
# "Who was the *leader* of the strike?": the role asked about, which the answer must give in some form
_ROLE_HOLDER = re.compile(rf"^who(?:'s| is| was| are| were) (?:the (?:[a-z]+ ){{0,2}}?([a-z]+) (?:of|at|for|in)\b|"
                          # a role without its article, dated or placed ("who was club *captain* the year …")
                          rf"(?:[a-z]+ )?({_ROLE})\b(?= (?:the year|when|in|at|during|while)\b|\W*$))", re.I)


def _role_holder(question: str) -> re.Match[str] | None:
    """The role a who-question asks the holder of ("Who was the *leader* of the strike?", "who was club *captain* the
    year …"), where it asks for the holder itself: "who is the first *chair* of the allocation committee *married to*"
    asks of the chair, a hop away."""
    match = _ROLE_HOLDER.match(question.strip())
    if match is None or _ASKED_OF_HOLDER.search(question):
        return None
    return match if match.group(1) or not describes_entity(question) else None


# what a who-question asks of a role's holder, after it ("who is the first chair of the allocation committee *married
# to*"): the role describes, the relation is asked
_ASKED_OF_HOLDER = re.compile(r"\b(?:married|related|engaged|wed|known|famous|remembered|succeeded|followed)\s+"
                              r"(?:to|for|as|by)\W*$", re.I)
# "Who *designed* the bridge?": the act asked about; "How many *contributors* worked on it?": what is counted
# "Which firm *built* the engine …?", "Which architect *designed* …?": the act asked about, done by the asked one
_WHICH_DOER = re.compile(r"^(?:which|what) (?:[a-z]+ ){1,2}?([a-z]+ed|built|made|won|sold|bought|wrote|drew|ran|led|"
                         r"bred|cast|dug|paid|sank|took)\b(?! by\b)", re.I)
_DOER = re.compile(r"^who(?:'s)? (?!(?:is|was|are|were|has|have|had|did|does|do|will|would|can|could|should)\b)([a-z]+)\b",
                   re.I)
_COUNTED = re.compile(r"^(?:\w+ )?how many (?!(?:people|persons?|men|women|times|years|days|hours|more|of|items|"
                      r"things|objects|pieces|units|entries|works)\b)([a-z]+)\b",
                      re.I)
# (the auxiliary is the main clause's: not one inside a relative clause, "what does the guy who *did* the weekend
# Morning Table chair now")
_SUBJECT = re.compile(rf"^(?:(?!(?i:when|where|why|how|what|which|who|whom)\b)\w+ ){{0,4}}?"
                      rf"(?i:when|where|why|how|what|which|who|whom)\b"
                      rf"(?: (?!(?:who|whom|whose|which|that)\b)\w+){{0,4}}? {_AUX} "
                      r"(?:the (?:(?!(?:where|who|whom|whose|which|that|from|of|in|at|on|to|by|for|with|near)\b)[a-z]+ )"
                      r"{0,2})?((?:[A-Z][\w-]*)(?: (?:of the |of |de |van |the )?[A-Z][\w-]*)*)\b(?!'s)")


_MEASURED_NAME = re.compile(r"\s+(?:the\s+)?([A-Z][\w-]*(?:\s+(?:of the |of |the )?[A-Z][\w-]*)*)\b(?!'s)")


def _subject_name(question: str, names: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
    """The question's name right after its auxiliary ("When did *Henrik Voss* compose ..."), or the one a measure
    is of ("What is the population of *Tarnwick*?"), if any."""
    match = _SUBJECT.match(question.strip())
    measure = MEASURE_OF.match(question.strip())
    if measure:
        match = _MEASURED_NAME.match(question.strip(), measure.end()) or match
    if not match:
        return ()
    span = description_span(question)
    start = match.start(1) - (len(question) - len(question.lstrip()))
    if span is not None and span[0] <= start < span[1] and re.fullmatch(r"the (?:[a-z]+ ){1,2}",
                                                                         question.strip()[span[0]: start]):
        return ()  # a contact clause's name is the description's ("Where was the player *Anselm Korvath* beat in
        # 1953 born?"): the answer is about the one it describes, a hop away
    words = {stem(w) for w in re.findall(r"[^\W_]+", match.group(1))}
    return tuple(name for name in names if name and set(name) <= words)


_SLOT_NOUN = re.compile(rf"^(?:\w+ )?(?i:which|what|how many|how much) (?:(?!{_AUX}\b)[a-z]+ )?(?!{_AUX}\b)([a-z]+) "
                        rf"(?:{_AUX}|[a-z]+(?:ed|s))\b")
# "What *kind of* business did he run?": the noun after it is what the answer names a kind of
_KIND_WORDS = frozenset(stem(w) for w in _words("breed breeds species variety varieties"))
_VALUE_KINDS: dict[str, tuple[str, ...]] = {
    stem("nationality"): ("inhabitant",), stem("citizenship"): ("inhabitant",),  # "*Greek* mathematician Hero"
    stem("voice"): ("singing voice",),  # "What type of voice did she have?": "a mezzo-*soprano*"
}
"""Attribute terms whose values are kinds of a WordNet noun, so a sentence says the term by naming one of its
values although it never writes the word: a nationality by a people ("Greek", "Norwegian", WordNet's
inhabitants), a voice by its range ("soprano", "tenor")."""
_KIND_OF = re.compile(r"^(?:\w+ )?(?i:which|what) (?i:kind|kinds|type|types|sort|sorts|breed|breeds|species|variety|"
                      r"varieties) of ([a-z]+)\b")


def _slot_noun(question: str) -> str | None:
    """The noun of the wh-slot ("which *party* is …", "how many *items* does …"): the answer names an
    instance of it ("the Coastal League", "40,000 charts"), often without the noun itself, so it weighs 0.5."""
    match = _SLOT_NOUN.match(question)
    if not match or match.group(1).lower() in {"is", "are", "was", "were", "do", "does", "did"}:
        return None
    word = match.group(1)
    return None if word[:1].isupper() else stem(word)


_TYPED_SLOT = re.compile(r"^(?:\w+ )?(?i:which|what) ([a-z]+)\b")


def _typed_slot_noun(kind: AnswerType | None, question: str) -> str | None:
    """The noun of a typed wh-slot ("which *shipyard* built …", "what *museum* …") that
    :func:`_slot_noun` misses before an irregular verb: the answer names one ("the Brannock & Lyle yard")."""
    if kind not in ("person", "place", "organisation"):
        return None
    match = _TYPED_SLOT.match(question)
    return stem(match.group(1)) if match else None


def _superlative_base(token: str) -> str:
    """"deepest" -> "deep", "highest" -> "high" (the dimension asked about)."""
    return stem(token[:-3]) if token.endswith("est") and len(token) > 6 else token


@dataclass(frozen=True)
class Answerability:
    """How much of what was asked an answer contains."""

    score: float
    has_type: bool
    coverage: float
    missing: tuple[str, ...]
    other_question: bool = False
    """The sentence answers another question than the one asked: it measures another dimension ("31 metres *in
    diameter*" for "How tall is the dome?"), says that what was asked about is not so (:attr:`denies`), or speaks of
    its page's subject, another thing than the question names ("*Its* population …" on the page of an island beside
    the one asked of), or dates the act the question pins to a year to another one (:func:`act_dated_otherwise`).
    No reading of the answer judge overrules that (:mod:`.rescue`). A swapped word
    (:func:`substitution`) is not counted: the rules read a swap where there is none often enough ("its first chair,
    the *Gullwing* author …" for "who chairs the *Quorvane* steering committee") that the judge's reading is worth
    having there."""
    denies: bool = False
    """The sentence says that what the question asks about is not so (:func:`denies_asked`): a correction of the
    question's premise, which the program gives as ``premise_contradicted`` where no other sentence answers."""

    def feedback(self, what: Asked) -> str:
        """The contract's feedback when the answer falls short."""
        if not self.has_type:
            return {
                "date": "The question asks when: answer with the year or date the passages give.",
                "number": "The question asks for a quantity: answer with the number the passages give.",
                "person": "The question asks who: answer with the person's name from the passages.",
                "place": "The question asks where: answer with the place the passages name.",
                "organisation": "The question asks which organisation: name it from the passages.",
                "name": "The question asks what something is called: answer with the name the passages give.",
                "occupation": "The question asks for a job: answer with the trade or role the passages give.",
                "yes_no": "The question asks yes or no: answer only from a passage that says so.",
            }.get(what.kind or "", "The answer does not contain what the question asks for.")
        return ("The answer does not say what the question asks about ("
                + ", ".join(self.missing) + "): answer from a sentence that states it, or reply NOT IN SOURCES.")


def names_someone(what: Asked, text: str) -> bool:
    """Whether ``text`` names a person the question does not (a name that is no place or body)."""
    asked_words = features(what.question).tokens
    return any(set(name) - asked_words for name in features(text).names if not set(name) & NOT_A_PERSON)


_FULL_NAME = re.compile(r"[A-Z][\w'-]+(?: [A-Z][\w'-]+)+")


def in_term(what: Asked, term: str, text: str) -> bool:
    """Whether ``term`` is a year inside a term ``text`` states for someone the question does not name: the full
    name written last before the span ("*Anton Belair* served from 1998 to 2004", "He was succeeded by *Tobias
    Wrenfield*, who was collector from 1858 to 1873" say who held the post in 2001, in 1867). Only a who-question is
    answered so: a thing's years of service ("The Petrel was operated by the Pilotage *Board* from 1884 to 1931") or
    an officer's term say nothing else of a year (not the union's membership in 1926, nor who drowned in 1921)."""
    return what.kind == "person" and any(names_someone(what, holder) for _, holder in held_terms(term, text))


def held_terms(term: str, text: str) -> list[tuple[int, str]]:
    """``(years, holder)`` of each term ``text`` states that holds the year ``term``, the narrowest first: how many
    years it spans and the full name written last before it ("*Anton Belair* served from 1998 to 2004" for 2001).
    A list's own span ("This list covers the wardens of Kestel Harbour from 1902 to 1960") is wider than a term."""
    if not term.isdigit():
        return []
    return sorted(((end - start, holder) for start, end, holder in stated_terms(text) if start <= int(term) <= end),
                  key=lambda held: held[0])


def stated_terms(text: str) -> list[tuple[int, int, str]]:
    """``(first year, last year, holder)`` of each term ``text`` states with a full name written before it."""
    found = []
    for start, end, offset in term_spans(text):
        holders = _FULL_NAME.findall(text[:offset])
        if holders:
            found.append((start, end, holders[-1]))
    return found


def _term_present(term: str, answer: frozenset[str], prefixes: frozenset[str],
                  named: frozenset[str] = frozenset()) -> bool:
    """Whether ``answer`` (stems) says ``term``: itself, its agent, or a word for the same thing, which must not be
    one of the ``named`` stems (for an asked event, the words only ever written inside a name: the "Open" of "the
    Meirholt Open" does not say that something opened)."""
    if term in answer or (len(term) >= 5 and term[:5] in prefixes):
        return True
    if {term + "or", term + "er", term + "r"} & answer:  # the agent says the act: "its *editor*" for "who *edits*"
        return True
    related = _DIMENSIONS.get(term, frozenset()) | said_otherwise(term)
    return bool(related & (answer - named)) or _misspelt(term, answer - named)


def _misspelt(term: str, answer: frozenset[str]) -> bool:
    """Whether ``term`` is a misspelling of a word of ``answer`` ("What equation *decribes* …", "mathmatical"): one
    letter off (:func:`~groundqa.judges.lexical.misspelling_of`), and no word WordNet knows as a noun, where one
    letter often makes another word ("painter", "printer")."""
    return len(term) >= TYPO_MIN and not is_noun(term) and any(misspelling_of(term, word) for word in answer)


_WORD = re.compile(r"[A-Za-z][\w'-]*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\(|\"|\u201c)$")


def name_words(text: str) -> frozenset[str]:
    """Stems of the words ``text`` writes only with a capital inside a sentence, as part of a name ("the Meirholt
    *Open*", "the *Founders'* Hall"), never in lower case."""
    capital: set[str] = set()
    lower: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group(0)
        if word[0].islower():
            lower.add(stem(word))
        elif not _SENTENCE_START.search(text[:match.start()]):
            capital.add(stem(word))
    return frozenset(capital - lower)


_QUOTED = re.compile(r"\"[^\"]{2,200}\"|\u201c[^\u201d]{2,200}\u201d")


def swap_of(what: Asked, answer: str, coverage: float = 0.6, title: str = "", lead: str = "") -> tuple[str, str] | None:
    """How ``answer`` swaps a word of the question for a conflicting one, as (kind, how), else ``None``: the kind is
    "name", "side", "direction", "modifier" or "order" (:mod:`.contradiction`), or a kind of :func:`conflict`.

    A sentence that repeats a question but for one word ("the *third* law" for "the *fifth* law",
    "*weaker*" for "*stronger*", "*not* more difficult", another person of the same surname, another name in the
    same words around it: :func:`~groundqa.programs.contradiction.name_in_place`) answers a different question: that
    is how unanswerable questions are made from answerable ones (SQuAD 2.0).
    It counts only when the sentence is about the same thing, as for a contradicted premise
    (:func:`~groundqa.programs.contradiction.conflict_about`: the names the question pins, and at least
    ``coverage`` of its other content words, in the sentence or its passage ``title``). A yes/no question
    is exempt: "No" is answered by exactly such a sentence.
    """
    if what.kind == "yes_no":
        return None
    # words in quotation marks are named, not claimed: a motto "Nobody stays on the mountain" denies nothing
    text = _QUOTED.sub(" quoted ", strip_citations(answer))
    # another name in the question's name's place ("*Galileo* was instrumental in describing …" for "*Newton* was
    # instrumental …"); a bridged answer answers its hop's question, which names the bridge
    if not lead:
        for kind, read in (("name", name_in_place), ("number", number_in_place), ("side", side_swapped),
                           ("direction", direction_reversed), ("modifier", negated_modifier), ("order", order_swapped)):
            if (placed := read(what.question, text)) is not None:
                return kind, placed
    found = conflict_about(features(plain_words(what.question)), features(text), coverage,  # the question's idioms read
                           features(f"{title}. {text}") if title else None,
                           stated_both=frozenset(what.attribute) - set(what.main),  # a description's words
                           doer_asked=asks_doer(what.question))
    if found is None:
        return None
    # a sentence that names the asked name beside its namesake swaps nothing ("the North Mole, 640 metres long; the
    # shorter South Mole, 410 metres"); a premise is judged otherwise (:mod:`.premises`)
    said = set(features(text).names)
    if found[0] == "person" and all(name in said for name in features(what.question).names
                                    if any(other[-1] == name[-1] and other != name for other in said)):
        return None
    # a year of the description that a bridged answer's ``lead`` says ("the union that called the *1934* strike")
    # is the first hop's: the second hop's own year ("founded in 1897") swaps nothing
    described = {t for t, w in what.weight.items() if t.isdigit() and w < 1.0}
    if found[0] == "year" and lead and described and described <= features(lead).tokens:
        return None
    return found[0], found[1]


def substitution(what: Asked, answer: str, coverage: float = 0.6, title: str = "", lead: str = "") -> str | None:
    """How ``answer`` swaps a word of the question for a conflicting one (:func:`swap_of`), else ``None``."""
    found = swap_of(what, answer, coverage, title, lead)
    return found[1] if found else None


# A place an opening locates its page by ("Calverholt is a village on the canal, *52 km east of Tarnwick*"): it says
# where the page's subject is, not that the page is about Tarnwick
_REFERENCE_POINT = re.compile(
    r"(?:\b(?:about |some |roughly )?\d[\d,.]*\s*(?:km|kilometres?|kilometers?|miles?|metres?|meters?|m)\s+)?"
    r"\b(?:(?:north|south)(?:-?(?:east|west))?|east|west|upstream|downstream|outside|near)"
    r"\s+(?:of\s+|from\s+)?(?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")


# a name that ends in its number ("the *Calibre 12*", "*Route 5*", "*Line 3*"): the number is what tells it from its
# kin ("The Calibre 41 has 211 parts" says nothing of the Calibre 12); not a year ("Spring 1923")
_NUMBERED_NAME = re.compile(r"(?<![.?!] )(?<!^)\b([A-Z][a-z]+) (\d{1,3})\b(?![,.]\w)")  # not "Quorvane *4.x*"


_IT_OPENING = re.compile(r"^(?:It|Its|This)\b")


def _another_of_its_kind(what: Asked, page_title: str, text: str) -> str:
    """The page's subject where ``text`` speaks of it as "it" and the question names another of the same kind, by the
    same head word ("When did Silas Brandwood found *Harnsey Cross Rowing Club*?": "*It* was founded in 1879 by Silas
    Brandwood" on the page of *Ostley Reach Boat Club*) or first word of a house named after a family (*Maison*
    Velloury, *Maison* Drevanne), and ``text`` does not name that one itself; else ""."""
    words = page_title.split()
    if not _IT_OPENING.match(text.strip()) or len(words) < 2 or not all(w[:1].isupper() for w in words):
        return ""
    said = features(text)
    kinds = [rf"\b(?:[A-Z][\w'’-]*\s+)+{re.escape(words[-1])}\b"]  # "… Rowing *Club*"
    if stem(words[0].lower()) in NAMED_AFTER_A_FAMILY:  # "*Maison* Velloury"
        kinds.append(rf"\b{re.escape(words[0])}(?:\s+[A-Z][\w'’-]*)+")
    for match in (m for kind in kinds for m in re.finditer(kind, what.question)):
        other = match.group(0)
        words_of = features(other).content
        if words_of <= features(page_title).content:  # "the Vennick Foundry" for the Vennick Bell Foundry: the same one
            continue
        if not all(said.covers(t) for t in words_of):
            return page_title
    return ""


# the page's subject spoken of by a pronoun near the sentence's start ("*Its* population has hovered …", "At *its*
# height the works employed …", "*She* was 31 metres long"), by family: the "it" a place or a body is, "he" or "she"
_PAGE_PRONOUN = re.compile(r"^(?:\W*[\w'’-]+){0,3}?\W*\b(it|its|he|his|she|her|they|their)\b", re.I)
_PRONOUN_FAMILY = {"it": "it", "its": "it", "he": "he", "his": "he", "she": "she", "her": "she", "they": "they",
                   "their": "they"}
_PERSON_SHAPED = re.compile(r"[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)+")
_QUESTION_NAME = re.compile(r"(?<![\w'’-])[A-Z][\w'’-]*(?:\s+(?:&\s+)?[A-Z][\w'’-]*)*")
# the words a name the question asks something of stands after: an auxiliary ("did *the Sentinel* carry"), an article
# or a preposition ("the population *of Skerrin*", "employed *at the* Fenwright Street Pumping Station")
_ASKED_OF = frozenset(_words("the a an of at in on for to by with from did does do is was are were has have had will "
                             "would can could many much"))


_FIRST_VERB = re.compile(r"\b(?:is|was|are|were|has|had|have|became|becomes|remains|remained)\b")
"""Where the sentence before's subject ends, as far as it matters here."""


@lru_cache(maxsize=4096)
def _names_asked_of(question: str) -> tuple[tuple[str, ...], ...]:
    """The names (as stems) a question asks its attribute of: not a possessor ("*Agnes Holt*'s mentor": the mentor is
    asked of), not the subject of a clause that describes something else ("the boathouse *Hugh Lastry* paid for"), nor
    a name the description places it by ("the market town nearest *Holmbrake Abbey*"); a common noun that opens a
    terse question ("*Year* Caddick was knighted?") is no name."""
    names: list[tuple[str, ...]] = []
    for match in _QUESTION_NAME.finditer(question):
        span = match.group(0)
        before = question[:match.start()].split()
        if span.endswith(("'s", "’s")) or question[match.end():match.end() + 2] in ("'s", "’s"):
            continue
        if not before:  # the question's first word: a name only where it is no common noun
            first, _, rest = span.partition(" ")
            if first.lower() in STOPWORDS or is_noun(first.lower()):
                span = rest.strip()
                if not span or not span[:1].isupper():
                    continue
        elif before[-1].lower().strip(",") not in _ASKED_OF:
            continue
        names.extend(features(span).names)
    return tuple(names)


def _of_the_page(what: Asked, page_title: str, before: str, about: str, text: str) -> str:
    """The page's subject where ``text`` speaks of it and of no name the question asks of, else "": "*Its* population
    has hovered around forty people" on the page of *Tolsey*, whose opening places it "two miles south of Skerrin",
    is no population of Skerrin; "*She* was 31 metres long and carried a crew of fourteen" on the *Vigilant*'s page,
    after "… replacing the sailing cutter Sentinel", is no crew of the Sentinel; "The yield of *the spring*" on the
    *Adelgunde Spring*'s page is not the Corvin Spring's (:func:`_refers_to_page`). A sentence that speaks of the
    question's name (:func:`_says_name`), or on a page that is the question's own thing, is not meant.
    Who-questions, which-body questions and questions that describe what they ask of (:func:`describes_entity`, a
    relative clause) are left out (the page's subject may be the answer, or the thing described), as are a page that
    shares a name or another word with the question (it may be the question's thing, described), and a sentence whose
    sentence before or passage opening (``about``) has the question's name as its subject (the pronoun may be that
    one's)."""
    if (what.kind in ("person", "organisation", "yes_no") or not page_title or describes_entity(what.question)
            or RELATIVE_HEAD.search(what.question)):
        return ""  # "Where was the Surveyor-General born *who* was in charge when …": asked of someone described
    asked_names = _names_asked_of(what.question)
    page = features(re.sub(r"\s*\(.*?\)", "", page_title))
    if not asked_names or not page.names:
        return ""
    head = stem(page_title.split("(")[0].split()[-1].lower())
    if any(_says_name(name, text, head) for name in asked_names):
        return ""
    for name in features(what.question).names:  # any name of the question, asked of or not ("What got *Silas Brandwood*
        # thrown out of the Harnsey club?" on his page)
        if all(page.covers(w) for w in name) or set(name) >= set(page.names[0]) or set(name) & set(page.names[0]) - {head}:
            return ""  # the page is the question's own thing ("the Vennick Foundry" on the Vennick Bell Foundry's page)
    named = {w for name in asked_names for w in name}
    if set(page.content) & (set(features(what.question).content) - named):
        return ""  # the question may describe the page's subject ("the top *station* of the Selvatrin line" on the page
        # of Pradell Summit *Station*, "the Strenholm *painters*" walking out on the page of the *Painters*' strike)
    for earlier in (before, about):
        verb = _FIRST_VERB.search(earlier)
        subject = features(earlier[:verb.start()] if verb else " ".join(earlier.split()[:len(asked_names[0]) + 2]))
        if any(all(subject.covers(w) for w in name) for name in asked_names):
            return ""  # "The Computer Science Network (CSNET) was …. *Its* purpose was …" speaks of CSNET
    # a sentence that opens with the page's own name ("*Melody* reached …") speaks of the page where the question's
    # subject is another name; a question about something described may be answered on that thing's page
    named_subject = _ASKED_SUBJECT.search(what.question) is not None
    refers = _refers_to_page(page_title, page, before, text) or (named_subject and _opens_with_title(page, text))
    return page_title if refers else ""


_ASKED_SUBJECT = re.compile(r"\b(?:did|does|do|is|was|are|were|has|have|had|will|would|can|could)\s+(?:the\s+)?[A-Z]")
"""A question whose subject is a name ("How many listeners did *The Lantern Hour* get?"), not a description ("are the
helicopters stationed at the Sennbach base built"), which a sentence about another thing by name does not answer."""


def _says_name(name: tuple[str, ...], text: str, page_head: str) -> bool:
    """Whether ``text`` speaks of the question's ``name``: whole, by its last word as a name ("*Oyle* provided
    £4,000" for Anselm Oyle) or by "the" and its last word ("the deepest lock on *the canal*" for the Vessary Canal),
    unless that word is also the page's head word (the Adelgunde Spring's page's "the spring" is its own)."""
    said = features(text)
    last = name[-1]
    return (all(said.covers(w) for w in name) or any(last in said_name for said_name in said.names)
            or (last != page_head and re.search(rf"\bthe (?:[a-z]+ )?{re.escape(last)}\w*\b", text.lower()) is not None))


_OPENING_NAME = re.compile(r"(?:The\s+)?([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*)\s+[a-z]")
"""A sentence's opening name, as its subject ("*Melody* reached …", "*The Albatross* carries …")."""


def _opens_with_title(page: TextFeatures, text: str) -> bool:
    """Whether ``text`` opens with a name made of its page title's words ("*Melody* reached 191,000 listeners a week"
    on the page of HRR Melody)."""
    opening = _OPENING_NAME.match(text.strip())
    named = features(opening.group(1)).names if opening is not None else ()
    return bool(named) and all(page.covers(w) for w in named[0])


def _refers_to_page(page_title: str, page: TextFeatures, before: str, text: str) -> bool:
    """Whether ``text`` speaks of its page's subject: by "the" and the title's last word ("the yield of *the spring*"
    on the Adelgunde Spring's page), by "it"/"its" where the page is no person, by "he"/"she" where it is a person or
    where the sentence before spoke of it so ("*She* was built in 1896 …. *She* was 31 metres long" on a ship's page)."""
    head = page_title.split("(")[0].split()[-1]
    if re.search(rf"\bthe {re.escape(head.lower())}\b", text) and not head[:1].isdigit():
        return True
    pronoun = _PAGE_PRONOUN.match(text.strip())
    if pronoun is None:
        return False
    family = _PRONOUN_FAMILY[pronoun.group(1).lower()]
    person_shaped = _PERSON_SHAPED.fullmatch(page_title.strip()) is not None and not set(page.content) & NOT_A_PERSON
    before_pronoun = _PAGE_PRONOUN.match(before.strip())
    return ((family == "it" and not person_shaped) or (family in ("he", "she") and person_shaped)
            or (before_pronoun is not None and _PRONOUN_FAMILY[before_pronoun.group(1).lower()] == family))


_OF_ITS_PERSON = re.compile(r"(?:He|She|His|Her)\b")


def names_another_person(what: Asked, page_title: str) -> bool:
    """Whether ``page_title`` is a person's full name ("Greta Voss") other than one the question holds: not a page
    about a place or a body ("Lorvin Conservatory"), nor the question's own person's."""
    words = set(features(page_title).content)
    return (_PERSON_SHAPED.fullmatch(page_title.strip()) is not None and not words & NOT_A_PERSON
            and not words & features(what.question).tokens)


def _page_person(what: Asked, page_title: str, text: str) -> str:
    """The person whose page it is, where a who-question is answered by a sentence that speaks of them as "he" or
    "she" ("*Her* works include … the opera The Lamplighter" on the page titled "Greta Voss"): the title names the
    one asked for, as the quoted answer shows (it is quoted after the title; :func:`names_another_person`); ""
    otherwise."""
    if what.kind != "person" or not _OF_ITS_PERSON.match(text.strip()) or not names_another_person(what, page_title):
        return ""
    return page_title.strip()


def _unnamed(what: Asked, text: str) -> list[str]:
    """The subject names of ``what`` that ``text`` does not hold, every word of them, and the names that end in a
    number whose number it does not hold (yes/no: none)."""
    if what.kind == "yes_no":
        return []
    feats = features(text)
    numbered = [f"{m.group(1)} {m.group(2)}" for m in _NUMBERED_NAME.finditer(what.question)
                if m.group(2) not in feats.numbers]
    if not what.named:
        return numbered
    # an acronym the text writes out ("the tracing *GC*": "the tracing *garbage collector*") is named
    spelled = {a.lower() for a in acronyms(what.question) if spells_out(a, text)}
    return [" ".join(name) for name in what.named
            if not all(feats.covers(word) or word in spelled for word in name)
            and not _by_surname(name, feats)] + numbered


def _by_surname(name: tuple[str, ...], feats: TextFeatures) -> bool:
    """Whether ``feats`` speaks of a person the question names in full by the surname alone, as a page does after its
    first mention ("In what city did Daniel Craig have surgery …?": "… Craig was flown to New York …"), written as a
    name, and naming no one else of that surname ("Greta Voss" is not the Henrik Voss asked of)."""
    return (len(name) == 2 and stem(name[-1]) not in NOT_A_PERSON and not feats.covers(name[0])
            and any(other[-1] == name[-1] for other in feats.names)  # said as a name: "the *canal* boats" is none
            and not any(len(other) >= 2 and other[-1] == name[-1] and other[0] != name[0] for other in feats.names))


_LENGTH_UNIT = r"(?:metres?|meters?|m|km|kilometres?|kilometers?|feet|ft|foot|miles?)"
_MEASURED = re.compile(rf"\b\d[\d,.]*\s*{_LENGTH_UNIT}\s+"
                       r"(wide|long|high|tall|deep|thick)\b", re.I)
# A length given by what runs along it ("the cellar *runs for 380 metres* parallel to the river")
_RUNS_FOR = re.compile(r"\b(?:runs?|ran|stretch(?:es|ed)?|extends?|extended)\s+(?:for\s+)?(?:some\s+|about\s+|"
                       rf"roughly\s+|nearly\s+|almost\s+)?\d[\d,.]*\s*{_LENGTH_UNIT}\b", re.I)
# "a 2,240-metre tunnel" (a length); not "a 12-metre-wide channel", which says its own dimension
_COMPOUND_MEASURE = re.compile(r"\b\d[\d,.]*-(?:metre|meter|kilometre|kilometer|km|mile|foot|feet)\b(?!-)", re.I)
# "31 metres *in diameter*" measures across; "about 120 metres *from* the river" how far away, which is a length
# between two places but no height, depth or width
_ACROSS_OR_AWAY = re.compile(rf"\b\d[\d,.]*\s*{_LENGTH_UNIT}\s+"
                             r"(?:(in diameter|across|in circumference)|(?:from|away)\b"
                             # "420 metres *from its highest to its lowest level*": a height or a depth, not how far
                             r"(?! (?:its|the) (?:highest|lowest|top|bottom|surface|summit|base|crest|rim)\b))", re.I)
# "at an *altitude of* 2,163 metres", "a *depth of* 7.5 metres": the dimension named before its value
_DIMENSION_OF = re.compile(r"\b(altitude|elevation|height|depth|width|breadth|diameter|length) of (?:about |some |roughly |"
                           r"nearly |almost |over |up to )?\d", re.I)
# "rises to 21 metres at the central dome": a height
_RISES_TO = re.compile(r"\b(?:rises?|rose|risen|rising|reach(?:es|ed)?|towers?|towered) (?:to |up to |some |about )*\d[\d,.]*\s*"
                       r"(?:metres?|meters?|m|feet|ft)\b", re.I)
# "It was *lengthened to* 245 m in 1937": a size changed to a value is a size of that dimension
_RESIZED = re.compile(rf"\b(lengthen|widen|deepen|heighten|raise)(?:ed|s)?\s+(?:[a-z]+\s+){{0,3}}?to\s+(?:about\s+|some\s+)?"
                      rf"\d[\d,.]*\s*{_LENGTH_UNIT}\b", re.I)
# "topping out at 2,184 m *above sea level*": a height, whatever else the sentence measures
_ABOVE_SEA = re.compile(rf"\b\d[\d,.]*\s*{_LENGTH_UNIT}\s+above (?:sea level|the sea)\b", re.I)
_RESIZED_AS = {"lengthen": "long", "widen": "wide", "deepen": "deep", "heighten": "high", "raise": "high"}
_DIMENSION_NOUNS = {"altitude": "high", "elevation": "high", "height": "high", "depth": "deep", "width": "wide",
                    "breadth": "wide", "diameter": "wide", "length": "long"}
# the words of each dimension, by the stem of the question's word (``Asked.required`` holds stems: "wide" is "wid")
_SAME_DIMENSION = {stem(key): words for key, words in {
    "deep": {"deep", "depth"}, "high": {"high", "tall", "height", "altitude", "elevation"},
    "tall": {"tall", "high", "height"}, "long": {"long", "length"},
    "wide": {"wide", "width", "narrow", "broad", "breadth"}}.items()}  # "*narrows* to 900 metres" measures a width


def _other_dimension(what: Asked, text: str) -> str:
    """The dimension ``text`` measures when it is not the one asked ("140 metres *wide*" for "how deep"), else ""."""
    asked_dims = [t for t in what.required if t in _SAME_DIMENSION]
    if not asked_dims:
        return ""
    measured = [m.group(1).lower() for m in _MEASURED.finditer(text)] + ["long" for _ in _RUNS_FOR.finditer(text)]
    if asked_dims[0] in (stem("wide"), stem("deep")):  # "a *2,240-metre* tunnel" gives its length, not its width
        measured += ["long" for _ in _COMPOUND_MEASURE.finditer(text)]
    measured += [_DIMENSION_NOUNS[m.group(1).lower()] for m in _DIMENSION_OF.finditer(text)]
    measured += ["high" for _ in _RISES_TO.finditer(text)]
    measured += [_RESIZED_AS[m.group(1).lower()] for m in _RESIZED.finditer(text)]
    measured += ["high" for _ in _ABOVE_SEA.finditer(text)]
    measured += ["wide" if m.group(1) else "far" for m in _ACROSS_OR_AWAY.finditer(text)
                 if m.group(1) or asked_dims[0] != stem("long")]
    same = _SAME_DIMENSION[asked_dims[0]]
    if not measured or any(m in same for m in measured) or features(text).content & {stem(w) for w in same}:
        return ""
    return measured[0]


def says_denial(text: str, question: str) -> bool:
    """``text`` denies or excludes something: a negation ("never", "not"), a word that excludes ("closed",
    "except", "only"), or a word of ``question`` with a negative prefix ("*in*active" for "isn't *active*", "*un*solved"
    for "not *solved*"). What a question that asks what is *not* so (:attr:`Asked.denied`) needs of its answer."""
    if negates(text) or _DENYING.search(text):
        return True
    said = features(text).tokens
    return any(prefixed_opposites(term, said) for term in features(question).content)


def holds_value(what: Asked, text: str) -> bool:
    """Whether ``text`` holds a value of the asked type (a date, a number, a name the question lacks); never
    for an open "what" or a yes/no question, which have no value to look for."""
    if what.kind in (None, "yes_no"):
        return False
    return has_type(what.kind, text, features(what.question).tokens, what.question)


_TOKEN = re.compile(r"[^\W_][\w,.'-]*[^\W_]|[^\W_]")
_VALUE_PROBE = "x "
"""Put before a lone word so that a capitalised one is not read as a sentence opener (``_NAME_VALUE``)."""


def value_beside(what: Asked, text: str, window: int = 3) -> bool:
    """Whether a value of the asked type stands within ``window`` words of a word that says what was asked
    (a main-clause term, a unit or synonym of one): "He was *born in Tellbrück*" states where he was born;
    "a plaque on the house where he was *born* was unveiled by the *Orvenau* Alpine Club" only mentions both."""
    if what.kind in (None, "yes_no") or not what.attribute:
        return False
    words = _TOKEN.findall(text)
    main = set(what.main)
    said = [i for i, word in enumerate(words)
            if (feats := features(word)).content and any(_term_present(t, feats.content, feats.prefixes) for t in main)]
    if not said:
        return False
    asked_words = features(what.question).tokens
    valued = [i for i, word in enumerate(words)
              if has_type(what.kind, _VALUE_PROBE + word, asked_words, what.question)
              and not features(word).content & main]
    return any(abs(i - j) <= window for i in valued for j in said)


def unsaid(what: Asked, known: str) -> tuple[str, ...]:
    """The terms of the question's main clause that ``known`` (what was read already) does not say."""
    if not known:
        return what.main
    read = features(known)
    return tuple(t for t in what.main if not _term_present(t, read.content, read.prefixes))


def mentions(what: Asked, text: str, known: str = "") -> bool:
    """Whether ``text`` mentions a term of the question's main clause (or a unit, sign or synonym of one: "inhabitants"
    mentions "How many people *live* …"), its slot or, for a who-question, the act or role asked for
    (:attr:`Asked.event`: "designed by the *architect* Fenna Roost" for "Who was the architect of Stelling Hill
    library?"). Terms that ``known`` (what was read already, e.g. the sentence that named a bridge) holds do not
    count, unless it holds them all."""
    feats = features(text)
    # a lifespan ("Bastian Korr (1861–1934)") says when he was born
    content = feats.content | (feats.tokens & _LIFE_EVENTS) if what.kind == "date" else feats.content
    # a near-match by prefix does not count where a word of the description shares it: "Greta Voss is a
    # *composer*" names the description ("the composer of the Tide Suite"), not "teach *composition*"
    described = {t[:5] for t in what.attribute if t not in what.main}
    terms = unsaid(what, known) or what.main
    return any(_term_present(t, content, frozenset() if t[:5] in described else feats.prefixes)
               or _said_by_sign(t, text)  # "It rises to 2,948 *m*" says how tall
               or _value_said(t, text)  # "*Greek* mathematician Hero" says his nationality
               or _made_by(what, t, text)  # "a statue of him *by* the sculptor Elin Varga" says who made it
               or in_term(what, t, text)  # "Anton Belair served from 1998 to 2004" for "in 2001"
               for t in (*terms, *((what.slot,) if what.slot else ()),
                         *((what.event,) if what.event and what.kind == "person" else ()))) or (
        # a kind of the asked noun mentions it where the main clause asks for it ("What kind of *business* did he
        # run?": "he ran a sports *shop*"), not where it only names the slot ("What *colour* is the light?": a
        # white tower says nothing of the light)
        what.category_term in terms and _kind_said(what, text))


def _kind_term(category: str) -> str:
    """The attribute term of an asked noun ("stone" -> "ston"), "" for none."""
    return _superlative_base(stem(category)) if category else ""


# "What kind of vessel is *the Marigold*?": the thing whose kind is asked
_KIND_OF_SUBJECT = re.compile(r"^(?:\w+ )?(?:what|which) (?:kind|type|sort) of [a-z]+ (?:is|was|are|were) (?:the |a |an )?"
                              r"(?P<subject>[\w'’ -]+?)\W*$", re.I)


def _defines(question: str, text: str) -> bool:
    """Whether ``text`` says what the thing whose kind ``question`` asks is, in a definition ("*Marigold is a*
    preserved Vessary keel") or an apposition ("*norvaxolone, a* synthetic steroid"): that is its kind, whatever noun
    the question files it under."""
    match = _KIND_OF_SUBJECT.match(question.strip())
    if match is None:
        return False
    subject = re.escape(match.group("subject").strip())
    return re.search(rf"\b{subject}\b(?: \([^)]*\))?(?:,| (?:is|was|are|were)) (?:a|an)\b", text, re.I) is not None


def _kind_said(what: Asked, text: str) -> bool:
    """Whether ``text`` names a kind of the asked noun ("flute" for "what *instrument*") or of a word that says
    the same (:func:`~groundqa.judges.paraphrase.said_otherwise`: a barque is a sailing *vessel*, so a kind of
    "ship" as people use the word), or defines the thing whose kind is asked (:func:`_defines`)."""
    if not what.category:
        return False
    said = (what.category, *sorted(said_otherwise(what.category_term)))
    return any(names_a_kind_of(text, category) is not None for category in said) or _defines(what.question, text)


_MAKING = frozenset(stem(w) for w in _words("make makes made create creates created produce produces produced"))
_BY_SOMEONE = re.compile(r"\bby (?:the )?(?:[a-z]+ ){0,2}[A-Z][a-z]+")


def _made_by(what: Asked, term: str, text: str) -> bool:
    """Whether ``text`` says who made something by the work's "by" ("a bronze statue of him *by* the sculptor
    Elin Varga" for "Who *made* the statue?"): only for a who-question's act of making, which a work's credit
    says without the verb."""
    return what.kind == "person" and term == what.event and term in _MAKING and _BY_SOMEONE.search(text) is not None


def _value_said(term: str, text: str) -> bool:
    """Whether ``text`` names a value of ``term`` (``_VALUE_KINDS``: "Greek" says a nationality)."""
    return any(names_a_kind_of(text, kind) is not None for kind in _VALUE_KINDS.get(term, ()))


_LIFE_EVENTS = frozenset(("born", "die"))
_LIFE_WORDS = _LIFE_EVENTS | {"birth", "death"}
"""Stems of a question that asks when someone was born or died: a lifespan's dates answer it."""
# An area, or the two sides that give one ("a shed measuring 48 m by 30 m")
_AREA_SIGNS = re.compile(r"\d\s*(?:m²|km²|ha)\b|\d\s*(?:m|km|metres?|meters?|feet|ft)\s*(?:by|x|×)\s*\d")
# What says a term without its word, which no word list sees: a unit written as a sign ("held at 20 °C", "for
# £3,400"), a cause in so many words ("caused by")
_SIGNS = {stem("score"): re.compile(r"[\d½¼¾]\s*(?:to|–|-)\s*\d"),  # "won by 7½ *to* 6½" gives the final score
          _CAUSE: re.compile(r"\b(?:caused|started|sparked|triggered|set off) by\b|\bblamed on\b|\bdue to\b|"
                             r"\bbecause of\b|\bresult of\b|\btraced to\b|\bforced (?:him|her|them|it) to\b|"
                             # what set a fire going ("a faulty heater *had ignited* stored scenery")
                             r"\b(?:had |was |were )?(?:ignited|set fire to|set alight)\b", re.I),
          **dict.fromkeys((stem("price"), stem("cost"), stem("fee"), stem("money")), re.compile(r"[£$€]\s?\d")),
          stem("temperature"): re.compile(r"\d\s*°"), stem("deep"): re.compile(r"\d\s*m\b"),
          stem("high"): re.compile(r"\d\s*m\b"), stem("tall"): re.compile(r"\d\s*m\b"),
          stem("long"): re.compile(r"\d\s*(?:m|km)\b"), stem("big"): _AREA_SIGNS, stem("size"): _AREA_SIGNS,
          # "Gusts of up to 148 *km/h*" says how fast
          **dict.fromkeys((stem("speed"), stem("fast")), re.compile(r"\d\s*(?:km/h|kph|mph|m/s|knots?)\b", re.I))}


def _said_by_sign(term: str, text: str) -> bool:
    """Whether ``text`` says ``term`` by a sign rather than a word (``_SIGNS``: "20 °C" says a temperature)."""
    return term in _SIGNS and _SIGNS[term].search(text) is not None


# "Who is the harbour master *today*?" is not answered by a holder whose time is over ("was the harbour master *from
# 1996 to 2013*", "Colm Ardley *(1950–2019)*")
_NOW_Q = re.compile(r"\b(?:today|now|currently|at present|presently)\b|^who(?:'s| is| are) the current\b", re.I)
_FORMER = re.compile(r"\bfrom (?:1\d{3}|20\d{2}) (?:to|until|till) (?:1\d{3}|20\d{2})\b|\buntil (?:his |her |their )?"
                     r"(?:death|retirement)\b|\(\s*(?:\d{1,2} [A-Z][a-z]+ )?\d{4}\s*[\u2013\u2014-]\s*(?:\d{1,2} [A-Z][a-z]+ )?"
                     r"\d{4}\s*\)|\bformer(?:ly)?\b|\bthe late\b")
# a place named by what happened there ("a plaque on the house *where he was born* was unveiled in 1929"): the
# sentence's date is of its main verb, not of the event in the clause
_WHERE_IT_HAPPENED = re.compile(r"\bwhere (?:he|she|they|it|[A-Z][\w'-]+) (?:was|were|had been|is|are) [a-z]+\b")
_BORN_WHEN = re.compile(r"\(born (?:on )?(?:\d{1,2} [A-Z][a-z]+ )?\d{4}\)|" + LIFESPAN.pattern)
# a time given only from another event ("where he died *four years later*", "reopened *the following year*"): the
# sentence's year is the other event's, and the asked one's is not written
_RELATIVE_TIME = re.compile(r"\b(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+|a few|"
                            r"several) (?:years?|months?|weeks?|days?|decades?) (?:later|after(?:wards)?|earlier|before)|"
                            r"the (?:following|next|previous|same) (?:year|month|spring|summer|autumn|winter)|"
                            r"(?:later|earlier) that year)\b", re.I)
_OWN_SUBJECT = re.compile(r"\b(?:he|she|they|it|who|which)\s+(?:[a-z]+\s+)?[a-z]+(?:ed|en|wn|ew|ok|ld|ve|de)\b", re.I)
_CLAUSE = re.compile(r"[;,:()]|\s(?:and|but|where|when|after|before)\s")
_DATED = re.compile(r"\b(?:1\d{3}|20\d{2})\b|\b\d{1,2}(?:st|nd|rd|th)?\b")  # a year, or a day of a month


def dated_otherwise(what: Asked, text: str) -> str:
    """Why ``text`` does not date what a date question asks of it ("When did Dorran Pickwell *die*?"), though it holds
    a date; "" where it may:

    - the event is said only in a clause that dates it from another and writes no date of its own ("He left Veldmoor
      in 1920 …, where he *died four years later*": the year is the leaving's);
    - the event is said only in undated clauses, and the dates only in clauses with a subject of their own that say
      none of it ("*Born* in Lindvik, he trained …, where *in 1921 he founded* the firm": the founding's year).

    What is asked of it is the main clause's terms, not the description a bridge's lead says."""
    terms = set(what.main)
    clauses = [(features(c).tokens & terms, c, bool(_DATED.search(c))) for c in _CLAUSE.split(text)]
    dated = set().union(*(said for said, _, has_date in clauses if has_date))
    # an undated clause that says part of it ("*reopened* two years later") that no dated clause says ("The museum
    # closed in 1950")
    if any(said - dated and _RELATIVE_TIME.search(c) for said, c, has_date in clauses if not has_date):
        return "the sentence dates it only from another event"
    saying = [has_date for said, _, has_date in clauses if said]
    dating = [(said, c) for said, c, has_date in clauses if has_date]
    if saying and dating and not any(saying) and all(not said and _OWN_SUBJECT.search(c) for said, c in dating):
        return "the sentence dates another event"
    return ""


_YEAR_WORD = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
# a year after one of these words dates what the question describes, not what it asks ("Who founded the union *that*
# called the 1934 strike?")
_DESCRIBED_YEAR = re.compile(r"^\W*\w+\b.*?\b(?:that|which|who|whom|whose|when|while|where|after|before|during|"
                             r"until|since)\b.*?\b(?:1[0-9]{3}|20[0-9]{2})\b", re.I)


def act_dated_otherwise(what: Asked, text: str) -> str:
    """Why ``text`` does not say the act a question pins to a year happened then, or "": every clause that says the act
    dates it to another year ("Who *patented* a high-pressure compound engine in *1804*?": "… was invented in 1804 by
    Arthur Woolf, who *patented* his … engine in *1805*"). A term that spans the year ("chaired it from 1998 to 2004"
    for 2001) dates it right, a clause with the year and no act of its own goes on with the act before it ("… in 1977
    *and Hansi in 1979*"), and a year in the question's description ("the union *that* called the 1934 strike") dates
    something else."""
    years = set(_YEAR_WORD.findall(what.question))
    if len(years) != 1 or not what.event or _DESCRIBED_YEAR.search(what.question):
        return ""
    year = next(iter(years))
    clauses = [(c, features(c)) for c in _CLAUSE.split(text) if c]
    acting = [f for _, f in clauses if what.event in f.tokens]
    if not acting or any(not f.years or year in f.years or f.spans_year(year) for f in acting):
        return ""
    # a clause that holds the year with no act of its own goes on with the act before it ("Brodbeck won it in 1977
    # *and Hansi in 1979*")
    if any((year in f.years or f.spans_year(year)) and not any(_PARTICIPLE.fullmatch(w) for w in c.lower().split())
           for c, f in clauses):
        return ""
    return f"the sentence dates the {what.event} to {', '.join(sorted({y for f in acting for y in f.years}))}"


_BEFORE_YEAR = re.compile(r"\bbefore (1[0-9]{3}|20[0-9]{2})\b", re.I)
_TERM_START = re.compile(r"\b(?:since|from) (1[0-9]{3}|20[0-9]{2})\b|\b(1[0-9]{3}|20[0-9]{2}) ?[–-] ?(?:present|today)\b", re.I)


def begun_after(question: str, text: str) -> bool:
    """Whether the question asks of a time before a year ("Who was rector … *before 2017*?") and every term ``text``
    states began in that year or later ("Dr. Hanne Rusk has been rector *since 2017*"): the one it names held the post
    after, not before."""
    before = _BEFORE_YEAR.search(question)
    starts = [int(m.group(1) or m.group(2)) for m in _TERM_START.finditer(text)]
    return before is not None and bool(starts) and min(starts) >= int(before.group(1))


# The words that put something in a trailing clause's relation to what it names.
_RELATIONS: dict[str, frozenset[str]] = {word: frozenset(stem(w) for w in _words(words)) for word, words in {
    "before": "before prior until earlier previously formerly first",
    "after": "after later afterwards following since then subsequently",
    "while": "while when during as",
    "during": "while when during as",
}.items()}
"""The trailing clause's word (as written) -> the stems that say the same relation."""


def _head_said(what: Asked, modifier: str, text: str) -> bool:
    """Whether ``text`` says the head of the compound that ``modifier`` opens with no rival modifier before it:
    "covers *an area* of 6.4 km²" says the surface area; "a *cruising speed* of 12 knots" is not the top speed,
    "a *summer course*" not the winter course."""
    heads = [b for a, b in what.heads if a == modifier]
    if not heads:
        return False
    words = [_superlative_base(stem(w.lower())) for w in re.findall(r"[^\W_][\w,.'-]*[^\W_]|[^\W_]", text)]
    return any(word == heads[0] and (i == 0 or not features(words[i - 1]).content or words[i - 1] == modifier)
               for i, word in enumerate(words))


def _kin_unsaid(what: Asked, missing: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` speaks of the person whose relative the question asks about, but not of the relative
    ("In what year did *Marta Vine's son* take over …?" is not answered by what Marta Vine did in 1816; a sentence
    about the niece herself, "Lena Tarrant … writes for the Courier", need not say she is a niece)."""
    said = features(text)
    for match in KIN_OF.finditer(what.question):
        kin = {stem(w) for w in match.group(2).split()} & KINSHIP  # "Ada's son", "Ada's eldest son"
        if kin & set(missing) and all(said.covers(w) for w in features(match.group(1)).content):
            return True
    for match in KIN_DESCRIBED.finditer(what.question):
        # "the *mother of* the aviation museum's current curator" is not answered by the curator's own birth year
        described = features(match.group(2)).content
        if (stem(match.group(1)) in KINSHIP and stem(match.group(1)) in missing and described
                and sum(said.covers(w) for w in described) >= len(described) / 2):
            return True
    return False


KIN_DESCRIBED = re.compile(r"\bthe (?:[a-z]+ )?([a-z]+) of ((?:the |a |an )?[^?,;]+)", re.I)
"""A described person's relative ("the *mother of* the aviation museum's current curator"; group 1 is a kin word only
where :data:`~groundqa.judges.lexical.KINSHIP` holds its stem)."""


# a sentence whose subject is a relative of the page's person ("*His descendants* remained patrons … until the line
# died out in 1386"; "*Her son* took over in 1850"): what it says of them is no answer about the person
_KIN_SUBJECT = re.compile(r"^(?:his|her|their)\s+([a-z]+)(?:\s+([a-z]+))?\b", re.I)
_RELATIVES = KINSHIP | {stem(w) for w in ("descendant", "heir", "child", "ancestor")}
_FAMILY = KINSHIP - {stem("successor"), stem("predecessor")}  # "Edgar's *predecessor*" is who he succeeded


def _kin_subject(what: Asked, text: str) -> str:
    """The relative ``text`` is about, where its subject is one ("His *descendants* …") and the question asks of no
    relative; else ""."""
    match = _KIN_SUBJECT.match(text.strip())
    asked_words = features(what.question).tokens
    for word in (match.groups() if match else ()):  # "His *descendants*", "Her eldest *son*"
        if word and stem(word) in _RELATIVES:
            return "" if stem(word) in asked_words else word
    # the question's person said only as a relative's owner: "Malcolm married *Edgar's sister* Margaret" is no
    # marriage of Edgar's ("Who did Edgar marry?")
    def named(span: str) -> bool:
        return any(stem(w.lower()) in what.names for w in span.split())
    owned = [kin for m in KIN_OF.finditer(text.replace("’", "'")) if named(m.group(1))  # "Edgar's younger sister"
             for kin in m.group(2).split() if stem(kin) in _FAMILY]
    said = [span for span in re.findall(r"\b[A-Z][\w-]*(?: [A-Z][\w-]*)*", text) if named(span)]
    if owned and len(owned) == len(said) and not {stem(kin) for kin in owned} & asked_words:
        return owned[0]
    return ""


# a relation between two people a description may go by ("the *teacher* of Orlund's fourth managing director")
_RELATION_NOUNS = frozenset(stem(w) for w in _words("""teacher tutor mentor pupil student apprentice successor predecessor
    deputy assistant partner wife husband son daughter father mother brother sister widow heir patron master"""))
_RELATION_ASKED = re.compile(r"\bthe ([a-z]+) of\b|['’]s ([a-z]+)\b")
_OF_THE_PAGE_SUBJECT = re.compile(r"^(?:He|She|They)\b")


def _relation_apart(what: Asked, text: str) -> str:
    """The relation the question's description goes by ("Where was the *teacher* of Orlund's fourth managing director
    born?"), where ``text`` speaks of its page's subject ("*He* was born in 1892 in Skellbach") and names the
    relation's holder as someone else ("… *his teacher* there *was Aurel Pfendt*"): what it says is of the subject,
    not of the teacher; else "". A who-question is answered by that name."""
    if what.kind in ("person", "name") or not _OF_THE_PAGE_SUBJECT.match(text.strip()):
        return ""
    for match in _RELATION_ASKED.finditer(what.question):
        noun = match.group(1) or match.group(2)
        if stem(noun) in _RELATION_NOUNS and re.search(
                rf"\b(?:his|her|their) (?:[a-z]+ )?{noun}s?(?: [a-z]+)?(?:,| (?:was|were|is|being)) (?:the [a-z]+ )?[A-Z]",
                text):
            return noun
    return ""


# A negation that dates or times what it denies asserts when it did happen ("*not* identified … *until* the work of
# Newton", "*not* improved upon *for* nearly three hundred *years*")
_NOT_UNTIL = re.compile(r"\b(?:not|never|n['’]t)\b[^.;]*?\b(?:until|till|before|for [^.;]*?\b(?:years|decades|"
                        r"centuries|months|weeks|days|hours))\b", re.I)


@lru_cache(maxsize=4096)
def _question_words(question: str) -> frozenset[str]:
    """The question's word stems, its idioms put in the passages' words (read once per question, not per sentence)."""
    return features(plain_words(question)).tokens


# The word a negation governs, past auxiliaries and adverbs ("has *never* been *nationalised*", "*never* *won*")
_NEGATED_WORD = re.compile(r"\b(?:not|never|no|nor|n['’]t)\s+(?:(?:been|be|being|have|has|had|ever|once|again|yet|even|"
                           r"actually|formally|officially|really|a|an|the|any)\s+)*([A-Za-z][a-z-]+)", re.I)


def denies_asked(what: Asked, text: str) -> bool:
    """Whether ``text`` says that what the question asks about did not happen or does not exist ("The circus *never
    owned* a locomotive" for "What was the name of the locomotive owned by Circus Marovell?"; "has *never been
    nationalised*" for "In what year was the company nationalised?"): the word a negation governs is a word of the
    question, and the denying clause negates a term of the question's main clause and says at least half of them.
    Such a sentence corrects the question; it does not answer it. Not for a question that asks what is not so or
    denies itself, nor for a yes/no question (a "No" answers it), nor where the negation dates or times the act
    ("*not* … *until* 1990", "*not* … *for* three hundred *years*")."""
    if not negates(text) or what.denied or what.kind == "yes_no" or negates(what.question):
        return False  # the question itself: "… there are *no* unbalanced forces?"
    said = negated_clause(_NOT_DENYING.sub(" ", text))
    if _NOT_UNTIL.search(said):
        return False
    clause = features(said)
    main = {t for t in what.main if t not in what.optional}
    # what is denied is the word the negation governs, and the question must say it: "The circus never *owned* a
    # locomotive" for "… the locomotive *owned* by …"; not "She never *remarried* after the death of her husband"
    governed = features(" ".join(m.group(1) for m in _NEGATED_WORD.finditer(said))).tokens
    asked_words = _question_words(what.question)
    # and the denying clause says most of what is asked: "Quenby never played a match for the *club*" denies nothing
    # of "Who succeeded Walter Quenby as *club* secretary?"
    return (bool(governed & asked_words) and bool(clause.negated & main)
            and sum(clause.covers(t) for t in main) >= len(main) / 2)


_OEUVRE = re.compile(r"\b(?:her|his|their) (?:[a-z]+ )?works\b", re.I)
"""Someone's works: what they wrote or composed."""

_HOLDERS_LIST = re.compile(r"\b(?:first|second|third),? (?:the [a-z]+ )?[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)* \(\d{4}\s*[–-]")
"""A list of holders by rank with their terms ("first, Matthias Orlund (1847–1879); second, …"): years of office."""


_STANDS_FOR = re.compile(r"(?:what|which \w+) (?:does|did|do) (?:the )?[\w.&-]+ stand for\W*$", re.I)
"""A question that asks what an acronym's letters stand for."""


def check(what: Asked, answer: str, title: str = "", conflict_coverage: float = 0.6, about: str = "",
          lead: str = "", page_opening: str = "") -> Answerability:
    """Score ``answer`` (citation marks ignored; ``title`` is its passage's title) against ``what``: 0 when
    it lacks the asked type, swaps a word of the question (:func:`substitution`, from
    ``conflict_coverage`` of the question's other words on), or is not about every name the question pins
    (in the answer, the ``title`` or ``about``, its passage's opening sentence: "When did *Henrik* Voss
    compose the suite?" is not answered by "Greta Voss is a composer"). A bridged answer's ``lead``, the
    sentence that named the bridge, covers the question's description ("the guide who led the first
    ascent"), never its type, and its words are not read as a swap ("the *third* son" is no answer to
    "the *first* ascent" only when the sentence itself is about the ascent). A sentence that gives the cause a
    why-question asks may leave the rest of the event to ``about`` or its page's opening (``page_opening``, where the
    page's first passage is at hand): "Penhallow resigned in 1904 because of failing eyesight" on a page that opens
    "… was the first principal of …" answers why he stepped down as principal."""
    text = strip_citations(answer)
    if _STANDS_FOR.match(what.question.strip()) and any(spells_out(a, text) for a in acronyms(what.question)):
        # "What does ELF stand for?": "… Executable and Linkable Format (ELF) programs …" writes it out
        return Answerability(1.0, True, 1.0, ())
    if what.kind == "place" or (what.kind == "date" and not features(what.question).tokens & _LIFE_WORDS):
        # "Lena Tarrant (*born 1970*)" says when she was born: not where, nor when she did anything else ("In what
        # year did the racer ... *retire*?" is not answered by "Jorin Tschopp (born 11 March *1989*) is a retired racer")
        text = _BORN_WHEN.sub(" ", text)
    # a bridged answer's passage opening says what the bridge is ("The Vessany Gazette is the local *newspaper*")
    feats = features(" ".join(p for p in (title, lead, about if lead else "", text) if p))
    # a lifespan ("(1884–1962)") says *when* someone was born and died, not where
    # (not the terms of a list of holders: "managing directors: first, Matthias Orlund (1847–1879); second, …")
    said = (feats.content | (feats.tokens & _LIFE_EVENTS) if what.kind == "date" and not _HOLDERS_LIST.search(text)
            else feats.content)
    if _OEUVRE.search(text):  # "*Her works* include … the opera The Lamplighter": what she wrote (not "working")
        said = said | {stem("write")}
    # the asked event said by a word that is only part of a name ("the Meirholt *Open*") is not said; a category may
    # be ("the Marrowby *Courier*" is a paper)
    named = name_words(". ".join(p for p in (title, lead, about if lead else "", text) if p)) if what.event else frozenset()
    missing = tuple(t for t in what.attribute if not _term_present(t, said, feats.prefixes,
                                                                   named if t == what.event else frozenset())
                    and not _said_by_sign(t, text) and not in_term(what, t, text))
    if lead and what.event and what.event not in missing:
        # the act asked of a bridge is said by the second hop, not by the sentence that named it ("Which firm *built*
        # the engine that Edmund Penhallow bought for the mill?": "… the mill *built* the weaving shed and bought the
        # engine known as Lady Hester" names the engine; "It was *built* by Ferrant & Doyle" answers)
        outside = features(" ".join(p for p in (title, about, text) if p))
        if not _term_present(what.event, outside.content, outside.prefixes, named):
            missing = (*missing, what.event)
    missing = tuple(t for t in missing if t not in what.optional and not _head_said(what, t, text)
                    # "What *breed* of dog …?": a kind of dog named ("a German Shepherd") says the breed too
                    and not ((t == what.category_term or t in _KIND_WORDS) and _kind_said(what, text))
                    and not _value_said(t, text) and not _made_by(what, t, text))
    if missing and about and len(missing) < len(what.attribute) and asks_why(what.question) and GIVES_CAUSE.search(text):
        # "Why did Josiah Penhallow step down as principal?": "Penhallow resigned in 1904 because of failing eyesight"
        # gives the cause of what it says; the page's opening says the rest ("… was the first *principal* of …")
        opening = features(f"{about} {page_opening}")
        missing = tuple(t for t in missing if not _term_present(t, opening.content, opening.prefixes))
    swapped = substitution(what, text, conflict_coverage, title, lead)
    if swapped is not None:
        missing = (*missing, f"the sentence {swapped}")
    # the title and the sentence before only help read it: a sentence that says nothing of what was asked (of
    # its main clause, where it has one)
    # ("Her brother is a cartographer" after "She teaches a summer course") does not answer it
    # a bridged answer: what the lead lacks, unless the question only asks for a type of what the lead names
    silent = bool(what.attribute) and not (lead and what.type_only) and not mentions(what, text, known=lead)
    # a count's "event" is the counted noun, which no clause dates ("46,850 *in 2023*" goes on from "sold … in 2019")
    misdated = act_dated_otherwise(what, text) if what.kind not in ("date", "number") else ""
    if silent:
        missing = (*missing, "the sentence itself says nothing of it")
    elif what.kind == "date" and what.attribute and not mentions(what, _WHERE_IT_HAPPENED.sub(" ", text), known=lead):
        silent, missing = True, (*missing, "the sentence says where it happened, not when")
    elif what.kind == "date" and what.attribute and (undated := dated_otherwise(what, text)):
        silent, missing = True, (*missing, undated)
    elif misdated:
        silent, missing = True, (*missing, misdated)
    if what.relation and not features(text).tokens & _RELATIONS[what.relation]:
        silent, missing = True, (*missing, f"the sentence does not say what came {what.relation}")
    elif what.relation and not silent:  # in that relation to what the clause names, which it may word otherwise
        missing = tuple(t for t in missing if t not in what.attribute)  # ("*Before* taking up railway work he …")
    former = what.kind == "person" and not lead and bool(_NOW_Q.search(what.question) and _FORMER.search(text))
    if former:
        missing = (*missing, "the sentence says who it was, not who it is now")
    undenied = what.denied and not says_denial(text, what.question)
    if undenied:
        missing = (*missing, "the sentence does not say what is not so")
    relative = _kin_subject(what, text)
    if relative:
        missing = (*missing, f"the sentence is about a relative ({relative})")
    apart = _relation_apart(what, text)
    if apart:
        missing = (*missing, f"the sentence names the {apart} but speaks of another")
    elsewhere = _unnamed(what, f"{title}. {_REFERENCE_POINT.sub(' ', about)}. {text}")
    page_title, _, before = title.partition(". ")
    other_page = "" if lead else (_another_of_its_kind(what, page_title, text)
                                  or _of_the_page(what, page_title, before, about, text))
    if other_page:
        elsewhere = [*elsewhere, f"{other_page} (the sentence speaks of it)"]
    other = _other_dimension(what, text) if what.kind == "number" else ""
    if other:
        missing = (*missing, f"the sentence measures how {other}")
    paid = pay_not_cost(what.question, text) if what.kind == "number" and not other else ""
    if paid:
        missing = (*missing, f"the sentence gives a {paid}, not what it cost")
        other = paid  # it answers another question, as another dimension measured does (the judge may not overrule it)
    unmeasured = what.kind == "number" and not other and lacks_measure(what.question, text)
    if unmeasured:  # "How tall is the clock tower?": "A clock tower was added above the east wing in 1838"
        missing = (*missing, "the sentence gives no measure")
    denial = denies_asked(what, text)
    if denial:
        missing = (*missing, "the sentence says it is not so")
    later = begun_after(what.question, text)
    if later:
        missing = (*missing, "the term it states began after the question's time")
    missing = (*missing, *(f"the name {name}" for name in elsewhere))
    # a dimension asked for ("how *tall*", "how much does it *cost*") is part of the answer's type
    valued = f"{person}: {text}" if (person := _page_person(what, page_title, text)) else text
    typed = (has_type(what.kind, valued, features(what.question).tokens, what.question) and not what.required & set(missing)
             and not other and not unmeasured and not former and not undenied and not relative and not apart
             and not _kin_unsaid(what, missing, f"{title}. {text}")
             and swapped is None and not elsewhere and not silent and not denial and not later)
    weights = what.weight
    total = sum(weights.values())
    coverage = 1.0 - sum(weights.get(t, 0.0) for t in missing) / total if total else 1.0
    return Answerability(round(coverage if typed else 0.0, 4), typed, round(coverage, 4), missing,
                         bool(other) or denial or bool(other_page) or bool(misdated), denial and not elsewhere)


__all__ = ["CALENDAR_WORDS", "GIVES_CAUSE", "KIN_DESCRIBED", "PERSON_ROLE", "RELATIVE_HEAD", "Answerability", "AnswerType", "Asked", "asked", "asks_for_description", "asks_why", "check", "denies_asked", "describes_by_role", "held_terms", "holds_value", "in_term", "mentions", "names_another_person", "names_someone", "plain_words", "says_denial", "stated_terms", "substitution", "unsaid",
           "value_beside"]
