"""Bridge retrieval for multi-hop questions: find the entity the first hop names, and ask again.

"Where was the composer of the Tide Suite born?" describes someone instead of naming them. The
first retrieval finds the passage that names the composer ("… composed by Greta Voss"), but the
answer (her birthplace) is in another document that the question's words do not reach. The bridge
is the name that the first hop's best-matching sentence gives and the question does not; the second
hop asks what the question asks of it ("Greta Voss born"), its passages are merged by chunk id, and the
second-hop passage shown beside the naming one is the best one that mentions what is asked.

Only questions that *describe* an entity ("the composer of …", "the engineer who built …", "the
clinic founded by …", "Port Vessany's twin town") are bridged, so single-hop look-ups cost nothing.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundqa.hypernyms import is_noun, names_a_kind_of
from groundqa.judges.lexical import (
    HONORIFICS,
    KINSHIP,
    LIFESPAN,
    NAMED_AFTER_A_FAMILY,
    NOT_A_PERSON,
    ORDINAL_WORDS,
    STOPWORDS,
    YEAR_IN_TEXT,
    features,
    stem,
)
from groundqa.judges.paraphrase import said_otherwise
from groundqa.signatures.types import Passage
from groundqa.text import split_sentences, strip_citations

from .answerability import (
    CALENDAR_WORDS,
    KIN_DESCRIBED,
    RELATIVE_HEAD,
    Asked,
    asked,
    asks_for_description,
    describes_entity,
    description_span,
    holds_value,
    mentions,
    stated_terms,
    unsaid,
)


@dataclass(frozen=True)
class Bridge:
    """The entity the first hop found, the passage that named it, and the second hop's query."""

    entity: str
    chunk_id: str
    sentence: str
    query: str
    asks: str = ""
    """The question the second hop answers, where it is not the question itself: a year bridge asks it of the year
    (:mod:`.year_bridge`: "Which mayor was in charge of Port Vessany in 2001?")."""
    target: str = ""
    """The chunk of the second hop's passage the rules read as answering (a year bridge's term): citable whatever its
    retrieval score, as the rules' reading is the stronger evidence ("Henrik Oldeborg held the post from 1962 to
    1979" scores 0.24 for "Who was running the works 1967")."""
    on_page: bool = False
    """Whether the page that named the bridge is its own and says what was asked of it ("Anselm Varrick (1889–1962)
    was a mountain guide … and the founder of the Kessarn Valley Mountain Rescue"): the answer is read there too,
    not only a hop further."""


# a plural possessive inside a name is part of it ("the Kelbrunn Glassworkers' Union")
# a firm's partners are one name ("Fennick *&* Sons")
_NAME = re.compile(r"\b[A-Z][a-z\u00C0-\u024F]+(?:(?<=s)['’](?= [A-Z]))?"
                   r"(?:(?:[- ]| & )(?:of the |of |the |de |van )?[A-Z][a-z\u00C0-\u024F]+(?:(?<=s)['’](?= [A-Z]))?)*")


def _names(sentence: str, capitalised: set[str]) -> list[str]:
    """The names in ``sentence``. A single word that opens the sentence is a name
    only where the passages also capitalise it mid-sentence ("Plugins may also add …" names nothing;
    "Pebbleheap was …" does); months and seasons date, they do not name."""
    out: list[str] = []
    for match in _NAME.finditer(sentence):
        span = match.group(0)
        words = span.replace("-", " ").split()
        if words[0].lower() in STOPWORDS:  # "His charts", "The library": not a name
            words = words[1:]
            span = " ".join(words)
        if len(words) >= 3 and words[0].lower() in HONORIFICS:  # "Matron Winifred Clay" is Winifred Clay
            words = words[1:]
            span = " ".join(words)
        if len(span) <= 2 or not words or span.lower() in CALENDAR_WORDS:
            continue
        if match.start() == 0 and len(words) == 1 and span not in capitalised:
            continue
        if words[-1] == "No" and sentence[match.end():match.end() + 1] == ".":
            continue  # a numbered work ("Symphony No. 3") cut at its number: no name of anyone
        out.append(span)
    out += [m.group(0) for m in _IDENTIFIER.finditer(sentence)]
    out += [m.group(1) for m in _FIRM_BY.finditer(sentence)]  # "built … by *Hobbart and Lisle* of Stannick"
    return out


_FIRM_BY = re.compile(r"\bby ([A-Z][a-z\u00C0-\u024F]+ and [A-Z][a-z\u00C0-\u024F]+)\b(?! [A-Z])")
"""Two surnames joined by "and" after "by": a firm's name ("Hobbart and Lisle"), read whole as well as by its parts."""


_IDENTIFIER = re.compile(r"(?<![\w.])[a-z][a-z0-9_]+(?:\.[a-z][a-z0-9_]+)+(?![\w.]*\w)")
"""A dotted identifier, which technical documentation names its modules by ("the move to *qstd.tide*")."""


def _capitalised(passages: Sequence[Passage]) -> set[str]:
    """Words the passages capitalise mid-sentence (names, not sentence openers)."""
    return {m.group(1) for p in passages for m in re.finditer(r"(?<=[a-z,;:] )([A-Z][\w-]+)", p.text)}


_ROLE_NOUN = (r"(?:[a-z-]+ ){0,2}(?:[a-z]+(?:er|or|ist|ian)|graduate|student|pupil|architect|guide|pilot|poet|chair|"
              r"founder|owner|captain|keeper|mayor|chief|head)\b")
"""A person's role, after up to two modifiers ("chief *pilot*", "most successful *graduate*")."""
_TITLES = (r"mayor|director|conductor|president|chairman|chairwoman|chair|manager|captain|rector|principal|"
           r"headmaster|headmistress|editor|curator|keeper|abbot|abbess|bishop|professor|engineer|architect|composer|"
           r"surveyor|foreman|governor|minister|secretary|treasurer|warden|dean|provost|superintendent|commander|"
           r"harbou?r ?master|stationmaster|postmaster|skipper|coach|trainer|founder")
"""Offices written before a name as a title ("under *director* Johanna Ferrant", "*mayor* Henrik Voss")."""


def _may_name(name: str, sentence: str) -> bool:
    """Whether ``sentence`` may hold ``name`` at all, as the patterns below look for it (case aside): the test that
    spares building and compiling a pattern for every name and sentence the bridge search pairs (the ``re``
    module's cache holds 512; these pairs run to thousands a question). Where either text is not ASCII, case
    folding may pair other letters, and the patterns decide."""
    return not (name.isascii() and sentence.isascii()) or name.lower() in sentence.lower()


def _titled_otherwise(name: str, sentence: str, question: str) -> bool:
    """Whether ``sentence`` gives ``name`` an office as a title ("under *director* Johanna Ferrant") where the question
    describes the one it asks about by another ("the *mayor* who held office when …"): that is someone else."""
    if not _may_name(name, sentence):
        return False
    title = re.search(rf"\b({_TITLES}) {re.escape(name)}\b", sentence, re.I)
    if title is None:
        return False
    roles = {stem(m.group(1).lower()) for m in re.finditer(rf"\b(?:the|[a-z]+['’]s) (?:[a-z]+ )?({_TITLES}) "
                                                            r"(?:of|who|whom|that|at|in)\b", question, re.I)}
    return bool(roles) and stem(title.group(1).lower()) not in roles


_PERSON_WORDS = r"person|man|woman|guy|people"
"""Nouns that say "someone" and nothing more."""
_ROLE_WORDS = (r"[a-z]+(?:er|or|ist|ian)|architect|guide|pilot|poet|chair|founder|owner|captain|keeper|mayor|surgeon|"
               r"matron|nurse|wife|husband|son|daughter|father|mother")
"""Nouns of a person's role or kin, as a description heads with them ("the *composer* of …")."""
_PERSON_HEAD = re.compile(rf"\b(?:the (?:[a-z]+ )?(?:{_PERSON_WORDS}|[A-Za-z-]+ who|[A-Za-z-]+ whom)\b|"
                          rf"the (?:[a-z]+ )?(?:{_ROLE_WORDS}) "
                          r"(?:(?:of|who|whom|that)\b|(?=[A-Z][a-z]+ [A-Z][a-z]+ [a-z]))|"  # or a contact clause:
                          # "the player *Anselm Korvath beat*"
                          # a role of something described ("the academy's most successful *graduate*")
                          r"\bthe (?:[a-z]+ )?[a-z]+'s " + _ROLE_NOUN + ")")


# The last word of a body's name says what kind of body it is in other words than a question may use
# ("Tolland *Slipways*" is the shipyard, the Hollins Maritime *Trust* the charity).
_KIND_OF: dict[str, frozenset[str]] = {
    stem(name): frozenset(stem(w) for w in kinds.split()) for name, kinds in {
        "slipways": "shipyard yard", "boatworks": "shipyard yard", "dockyard": "shipyard yard",
        "trust": "charity foundation", "foundation": "charity trust", "fund": "charity",
        "systems": "company firm", "ltd": "company firm", "inc": "company firm", "group": "company firm",
        "academy": "school college", "college": "school", "gazette": "newspaper paper",
        "press": "publisher", "society": "club association", "league": "club association",
    }.items()}


_WORKS = frozenset(stem(w) for w in ("company", "firm", "factory"))
"""What a name whose last word ends in *-works* is ("Halvard *Ropeworks*", "the Orlanc *Glassworks*"): a firm. Not
"works", whose stem is the verb's ("Which company did the engineer *work* for?" describes no -works name)."""


def _kinds(tokens: set[str], name: str) -> frozenset[str]:
    """What the name's words (``tokens``, stemmed) say it is ("slipway" -> shipyard, yard; "Ropeworks" -> company)."""
    last = name.replace("-", " ").split()[-1].lower()
    works = _WORKS if len(last) > 7 and last.endswith("works") else frozenset()  # a compound: Ropeworks, not Works
    return frozenset().union(works, *(_KIND_OF.get(t, frozenset()) for t in tokens))


def _head_is_a_kind(name: str, nouns: Sequence[str]) -> bool:
    """Whether the name's last word names a kind of a noun the question describes ("Dunmarrow Point
    *Aerodrome*" for "the *airfield* where ...", by WordNet's hypernyms)."""
    head = name.replace("-", " ").split()[-1]
    return len(head) > 3 and any(names_a_kind_of(head.lower(), noun) for noun in nouns)


_NAMING = r"(?:known as|called|named|nicknamed|dubbed)"
"""Words that give a thing its name after its noun ("the beam engine *known as* Lady Hester")."""


def _called(name: str, sentence: str, nouns: Sequence[str], heads: Sequence[str] = ()) -> bool:
    """Whether the sentence calls the name by a noun the question describes, right before it ("hauled by
    *locomotive* No. 3 Hadwig", "the *architect* Ilse Varnholt", "the *manager*, Tobias Crane"), or by the
    described thing's own noun (one of ``heads``) right after it ("her parents kept the Copper Lantern *inn*" for "the *inn* where she grew up";
    not "the Kestrelhorn *fire*" for the director who led its evacuation)."""
    if not _may_name(name, sentence):
        return False
    named, called = re.escape(name), _any_of(nouns)  # one pattern for all the nouns: built once per name
    return bool(called and (
        re.search(rf"\b{called}s?,?\s+(?:{_NAMING}\s+)?(?:No\.?\s*\d+\s+)?{named}\b", sentence, re.I)
        # or after it, in apposition ("the Abbey of Saint-Ebrin, *its mother house*")
        or re.search(rf"\b{named}, (?:its|his|her|their|the) (?:[a-z]+ )?{called}\b", sentence))) or bool(
        heads and re.search(rf"\b{named}\s+{_any_of(heads)}s?\b", sentence, re.I))


def _any_of(words: Sequence[str]) -> str:
    """A pattern for any of ``words`` as written (a group; "" for none)."""
    return f"(?:{'|'.join(map(re.escape, words))})" if words else ""


def _called_or_listed(name: str, sentence: str, nouns: Sequence[str]) -> bool:
    """Whether the sentence calls the name by one of ``nouns`` (:func:`_called`), or lists it after a name so called
    ("the beam *engines* Prudence and *Hesper*")."""
    if not _may_name(name, sentence):
        return False
    listed = r"\s+[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*,? (?:and|or) "
    return _called(name, sentence, nouns) or bool(
        nouns and re.search(rf"\b(?i:{_any_of(nouns)}s?),?{listed}{re.escape(name)}\b", sentence))


# Who makes a work: the name after "by" in the sentence that names the work ("a 1997 play *by* Tobias Fenwright"
# for "the author of Winter at Greyhollow")
_MAKERS = frozenset(re.findall(r"[a-z]+", """author writer playwright poet novelist composer painter artist architect
    designer builder creator maker sculptor photographer breeder"""))


# what is made, or the act of making it, right before "by" ("a 1997 *play by*", "*painted* in 1934 *by*"); not
# "*commissioned* by the company"
_MADE = (r"(?:play|novel|book|poem|opera|symphony|suite|painting|picture|portrait|sculpture|photograph|building|"
         r"written|painted|composed|designed|built|drawn|made|created|carved|sculpted|photographed|bred)")


def _done_by(name: str, sentence: str, acts: set[str]) -> bool:
    """Whether the sentence says the name did what the description says was done, as "<done> by <name>" ("*sewn by*
    the sailmakers Fennick & Sons" for "the firm that *sewed* the Great Canvas") or "<the act> from <name>" ("on a
    *commission from* Ansel Korrigan" for "the man who *commissioned* the Great Theodolite", "*begun* in 1902 *on the
    orders of* Hester Quill-Amory" for "the surveyor-general who *started* the quarter-million maps"); ``acts`` are
    the description's word stems."""
    if not _may_name(name, sentence):
        return False
    said = acts | {w for act in acts for w in said_otherwise(act)}  # "*set up* in 1809 by" for "the founder of"
    # the act of an agent noun ("the school has been *directed by* Anselm Quadri" for "the current *director*")
    said |= {act[:-2] for act in acts if len(act) >= 6 and act.endswith(("or", "er"))}
    return any(stem(m.group(1)) in said for m in re.finditer(
        rf"\b([a-z]+)(?: up)?(?: in \d{{4}})? (?:by|from|{_AGENT_OF}) (?:the (?:[a-z]+ ){{0,2}})?{re.escape(name)}\b",
        sentence))


_PARENT_ASKED = re.compile(r"['’]s? (?:mother|father|parents?)\b|\bthe (?:mother|father|parents?) of\b", re.I)
_CHILD_OF = re.compile(r"\b(?:son|daughter|child|children|sons|daughters) of ([^.;]+)")


def _parent(name: str, sentence: str, question: str) -> bool:
    """Whether the question asks for someone's parent and the sentence names the name as one ("the only *daughter
    of* Corra Bell Tallack and the boatbuilder Neil Tallack" for "Ismay Tallack's *mother*")."""
    if not _may_name(name, sentence):
        return False
    if not _PARENT_ASKED.search(question):
        return False
    return any(re.search(rf"\b{re.escape(name)}\b", m.group(1)) for m in _CHILD_OF.finditer(sentence))


_AGENT_OF = r"on the (?:orders|initiative|advice) of|at the (?:request|instigation|initiative) of"
"""Who an act was done for, said as a noun ("begun in 1902 *on the orders of* Hester Quill-Amory")."""


_WHOSE = re.compile(r"\bwhose ([a-z]+)\b")


def _whose(name: str, sentence: str, question: str) -> bool:
    """Whether the sentence gives the name the thing a "whose" clause speaks of ("the *roof of* the neighbouring
    Elvirabad was scorched", "*Elvirabad's roof*" for "the bath house *whose roof* was scorched")."""
    if not _may_name(name, sentence):
        return False
    escaped = re.escape(name)
    return any(re.search(rf"\b{noun}s? of (?:the )?(?:[a-z]+ )?{escaped}\b|\b{escaped}['’]s? (?:[a-z]+ )?{noun}s?\b",
                         sentence)
               for noun in _WHOSE.findall(question) if noun not in STOPWORDS)


_POSSESSED = re.compile(r"[A-Z][\w'’-]*['’]s? ([a-z]{4,}) (?:[a-z]+)\b")
"""A relation a possessive description names by its modifier ("Port Vessany's *twin* town")."""


def _related(name: str, sentence: str, question: str) -> bool:
    """Whether the sentence relates the name by the word a possessive description qualifies its noun with, either way
    round ("Port Vessany has been *twinned with* Kellaby", "Kestrup was *twinned with* Varnholt" for "Varnholt's twin
    town")."""
    if not _may_name(name, sentence):
        return False
    escaped = re.escape(name)
    for word in _POSSESSED.findall(question):
        if word.lower() in STOPWORDS:
            continue
        root = re.escape(stem(word.lower()))
        if re.search(rf"\b{root}\w* (?:with|to) (?:the (?:[a-z]+ ){{0,2}}of )?{escaped}\b", sentence) or re.search(
                rf"\b{escaped} (?:is|was|has been|had been|were|are) {root}\w* (?:with|to)\b", sentence):
            return True
    return False


_PLACE_PREPOSITIONS = r"at|in|on|into|from|to|near"


def _done_where(name: str, sentence: str, question: str) -> bool:
    """Whether the sentence puts the name where the description puts its act, by the same verb and preposition
    ("*docking at* Nessa" for "the ferry *docks at* a stone harbor on Calder")."""
    if not _may_name(name, sentence):
        return False
    acts = {(stem(m.group(1)), m.group(2).lower()) for m in re.finditer(
        rf"\b([a-z]{{3,}}) ({_PLACE_PREPOSITIONS})\b", question) if m.group(1) not in STOPWORDS}
    return any((stem(m.group(1)), m.group(2)) in acts for m in re.finditer(
        rf"\b([a-z]{{3,}}) ({_PLACE_PREPOSITIONS}) (?:the )?{re.escape(name)}\b", sentence))


def _boarded(name: str, sentence: str, nouns: Sequence[str]) -> bool:
    """Whether the sentence puts someone *aboard* the name ("flew a farmer … *aboard the* Saltmarsh Lady") and the
    question describes a conveyance (by WordNet's hypernyms: "the *plane* that carried …"): one travels aboard a craft,
    not a place or a person."""
    if not _may_name(name, sentence):
        return False
    return (re.search(rf"\b(?:aboard|on board) (?:the )?{re.escape(name)}\b", sentence) is not None
            and any(names_a_kind_of(noun, "conveyance") for noun in nouns))


# What a maker of a kind makes, where the kind says it: an architect's part is the design ("built by Ottmar Reindl *to
# designs by* Bertram Quellhorst": Quellhorst is the architect, Reindl the builder)
_MAKER_ACTS: dict[str, str] = {
    "architect": r"(?:designed|designs?|plans|drawn up)", "designer": r"(?:designed|designs?|plans)",
    "builder": r"(?:built|constructed)", "composer": r"(?:composed|written|music)", "sculptor": r"(?:sculpted|carved|cast)",
    "painter": r"(?:painted|painting|portrait)", "photographer": r"(?:photographed|photograph)", "breeder": r"(?:bred)",
}


def _made_by(name: str, sentence: str, nouns: Sequence[str]) -> bool:
    """Whether the question describes a maker and the sentence says the name made something ("by <name>"); a maker
    whose kind says what it makes (:data:`_MAKER_ACTS`) made it by that act ("to *designs by*" for an architect)."""
    makers = _MAKERS & set(nouns)
    acts = [_MAKER_ACTS[m] for m in sorted(makers) if m in _MAKER_ACTS]
    done = "|".join(acts) if acts else _MADE
    made = (rf"\b(?:{done})(?:,? (?:in|from|between) [\w ,–-]{{1,30}}?,?)? by (?:the (?:[a-z]+ )?)?"
            rf"{re.escape(name)}\b")
    return bool(makers) and re.search(made, sentence) is not None


# A place a person's life is tied to, named by a noun the sentence says as an act and a preposition ("the *birthplace*
# of Johanna Ferrant": "She was *born in* Varnoux-les-Thermes", not the River Orvel of another sentence on her page)
_PLACE_ROLES: dict[str, str] = {
    "birthplace": r"born (?:in|at)", "hometown": r"(?:born|grew up|raised) (?:in|at)",
    "burial": r"(?:buried|interred|lies) (?:in|at)", "deathplace": r"died (?:in|at)",
}


# "the city *where* Irmina Falkstedt *was born*": a birthplace said as a clause; a settlement's, not "the *inn* where
# she grew up" (the inn, not the town it stands in)
_WHERE_LIFE = re.compile(r"\b(?:city|town|village|hamlet|place|port|country|island|parish|region|district|county|"
                         r"province|settlement) where\b[^?]*?\b(born|died|buried|grew up|raised)\b", re.I)
_LIFE_ROLE = {"born": "birthplace", "died": "deathplace", "buried": "burial", "grew up": "hometown", "raised": "hometown"}


def _placed(name: str, sentence: str, nouns: Sequence[str], question: str = "") -> bool:
    """Whether the question describes a place by a life's event (:data:`_PLACE_ROLES`: "the *birthplace* of …", "the
    city *where* she *was born*") and the sentence puts the event at the name ("*born in* Varnoux-les-Thermes")."""
    roles = [*nouns, *(_LIFE_ROLE[m.group(1).lower()] for m in _WHERE_LIFE.finditer(question))]
    acts = [_PLACE_ROLES[n] for n in roles if n in _PLACE_ROLES]
    return any(re.search(rf"\b{act} (?:the (?:[a-z]+ )?)?{re.escape(name)}\b", sentence) for act in acts)


# "Cornelius Ashby's *predecessor*", "the abbot's *successor*": the name the sentence puts before or after him; "the
# chair who *preceded* Tobias Wrenfield", "the chair who *came before* Meera Castellane"
_SUCCESSION_Q = re.compile(r"['’]s? (predecessor|successor)s?\b|\bwho (preceded|came before|succeeded|followed|took over "
                           r"from) [A-Z]", re.I)


def _succession(match: re.Match[str]) -> str:
    """``"predecessor"`` or ``"successor"``: whom the question's succession asks for."""
    said = (match.group(1) or match.group(2)).lower()
    return "predecessor" if said in ("predecessor", "preceded", "came before") else "successor"


def _handed_on(succession: re.Match[str] | None, name: str, passage: Passage, known: set[str]) -> bool:
    """Whether ``passage`` states terms of office for ``name`` and for the one the question names (``known``, its
    names' stems), ``name``'s ending where the other's begins (a predecessor: "The first chair was Orla Brennick, who
    held the post from March 2010 to September 2014. She was followed by Tobias Wrenfield, chair from October 2014 to
    September 2018") or beginning where it ends (a successor), as the question's ``succession`` asks."""
    if succession is None:
        return False
    terms = stated_terms(passage.text)
    theirs = [(start, end) for start, end, holder in terms if holder == name]
    named = [(start, end) for start, end, holder in terms
             if {stem(w) for w in holder.replace("-", " ").split()} <= known]
    if _succession(succession) == "predecessor":
        return any(0 <= start - end <= 1 for _, end in theirs for start, _ in named)
    return any(0 <= start - end <= 1 for _, end in named for start, _ in theirs)


_BEFORE = r"(?:succeeded|replaced|took over from|followed on from)"
_AFTER = r"(?:succeeded|replaced|followed|taken over)"


def _succeeds(succession: re.Match[str] | None, name: str, sentence: str) -> bool:
    """Whether ``sentence`` says ``name`` held the post before ("He *succeeded* Edmund Fairlie") or after ("He was
    *followed* in the editorship *by* Hugh Dunmore", "Mara Quell *succeeded him*") whoever the question names, as its
    ``succession`` ("'s predecessor", "'s successor") asks."""
    if succession is None:
        return False
    named = re.escape(name)
    if _succession(succession) == "predecessor":
        return re.search(rf"\b{_BEFORE}\s+(?:the [a-z]+ )?{named}\b", sentence) is not None
    return re.search(rf"\b{_AFTER}\b[^.;]{{0,40}}?\bby (?:the [a-z]+ )?{named}\b|\b{named},? (?:who )?"
                     rf"(?:succeeded|replaced|took over from) (?:him|her|them)\b|\bhanded [^.;]{{0,30}}?\bto {named}\b",
                     sentence) is not None


def _dated_by(name: str, sentence: str, years: frozenset[str]) -> bool:
    """Whether ``sentence`` lists several names each with a year, and gives ``name`` one of ``years`` (the question's):
    "Piet Arvo won in 2015, *Lena Quint* again in *2016*, Tobin Maro in 2017" for "the 2016 winner"."""
    if not years or len(YEAR_IN_TEXT.findall(sentence)) < 2:
        return False
    # the year after the name, before the next capitalised word
    return any(m.group(1) in years for m in re.finditer(
        rf"\b{re.escape(name)}\b[^A-Z.;]{{0,30}}?{YEAR_IN_TEXT.pattern}", sentence))


_RANK_ASKED = re.compile(rf"\b({ORDINAL_WORDS}) (?:[a-z-]+ ){{0,2}}?[a-z]+(?: of| at| for|['’]s|\b)", re.I)
_RANKS = re.compile(rf"\b(?:{ORDINAL_WORDS})\b", re.I)


def _ranked_in_list(name: str, sentence: str, rank: str) -> bool:
    """Whether ``sentence`` lists holders by rank and gives ``name`` the question's ``rank`` ("first, Aurèle Velloury
    (1858–1891); second, his daughter Céleste Velloury …; *third, her nephew Ormand Vey*" for "the third head of Maison
    Velloury"): right after the rank word, past at most a relation ("her nephew")."""
    if not rank or len(_RANKS.findall(sentence)) < 2:
        return False
    return re.search(rf"\b{rank},?(?: (?:the|his|her|its|their) [a-z-]+,?)? {re.escape(name)}\b", sentence,
                     re.I) is not None


_PRONOUN_OPENING = re.compile(r"^(?:He|She|They|His|Her|Their)\b")
_PAGE_TITLE = re.compile(r"[A-Z][\w'-]+(?: (?:of |the |de |van )?[A-Z][\w'-]+)+")


def _page_subject(passage: Passage, sentence: str) -> list[str]:
    """The page's subject where ``sentence`` opens on "he", "she", "his", "her" or "they" on a page titled with a full
    name ("Amos Quint": "*He* came to Calder Island in 1958 as its first resident doctor and founded a clinic in
    Nessa" names the doctor who founded the clinic). Not "it" or "its": tried in session 36 for a firm's page ("*Its*
    best-known products are the beam engines …"), it lost three development answers for one gained."""
    title = passage.title.strip()
    if not _PAGE_TITLE.fullmatch(title) or not _PRONOUN_OPENING.match(sentence) or title in sentence:
        return []
    return [title]


def _head_word(name: str) -> str:
    """The word that says what a name names: its last, or the one before "of" ("the *Department* of Plant Breeding",
    the "*University* of Marlshire")."""
    words = name.split()
    return words[words.index("of") - 1] if "of" in words[1:] else words[-1]


def _ends(name: str) -> set[str]:
    """The stems of the words that can say what a name is: its first and its head ("Nessa *Clinic*", "*Port* Vessany",
    the "*Department* of Plant Breeding"), not a word inside it (the "Salt *Barge* Affair" is no barge)."""
    spaced = name.replace("-", " ")
    return {stem(spaced.split()[0]), stem(_head_word(spaced))}


def _wants_person(question: str) -> bool:
    """The description's head is a person ("the guide who …", "the composer of …", "the man honoured …")."""
    return bool(_PERSON_HEAD.search(question))


def _role_of_a_thing(question: str) -> bool:
    """The person asked for holds a role of a thing described ("the managing director *of the company that* has
    sponsored …"): the bridge may be the thing's name, a body, and the role what the second hop asks of it."""
    found = _PERSON_HEAD.search(question)
    held = _OF_DESCRIBED.match(question, found.end()) if found is not None and found.group(0).endswith(" of") else None
    return held is not None and _PERSON_NOUN.fullmatch(held.group(1)) is None


_OF_DESCRIBED = re.compile(r"\s*the (?:[a-z]+ )?([a-z]+) (?:that|which|whose|where|(?:in|at|on|from|by) which)\b")
"""A role's holder's thing, described by a relative clause ("… of *the company that* …")."""
_PERSON_NOUN = re.compile(rf"{_PERSON_WORDS}|men|women|{_ROLE_WORDS}")
"""A noun that names a person, as :data:`_PERSON_HEAD` reads one."""


_WHICH_KIND = re.compile(r"^(?:(?:in|at|on|from|for|to|by|with|under) )?(?:which|what) "
                         r"(?!(?:is|was|are|were|do|does|did|has|have|had)\b)([a-z]+)\b(?! (?:is|was|are|were)\b)", re.I)
"""The kind a "which" question asks for (not the verb of "What *was* the debut …"), unless the question says that it
is what the description describes ("Which *firm was* the architect of the renovation?")."""

_LIGHT_VERBS = frozenset(stem(w) for w in re.findall(r"[a-z]+", "make makes made do does did take takes took have has had "
                                                                  "give gives gave"))
"""Verbs that carry a description's noun and say nothing of their own ("the man who *made* the first winter ascent"):
a sentence that has them ("The first ascent was *made* … by Anselm Varrick") is no nearer the description."""


def find_bridges(question: str, passages: Sequence[Passage], limit: int = 3, max_passages: int = 3) -> list[Bridge]:
    """Up to ``limit`` candidate bridges of ``question`` in its first hop's best ``passages``, best first
    (none for a question that names what it asks about).

    A name scores the share of the question's words its sentence holds (with its passage title), plus 0.5
    when it says what the description is ("Nessa *Clinic*" for "the clinic founded by", "Halvard *Ropeworks*" for
    "the company whose donation …"), held the post before or after the one the question names ("He *succeeded*
    Edmund Fairlie" for "Cornelius Ashby's predecessor") or has the question's year in a list of names with years
    ("Lena Quint again in 2016" for "the 2016 winner") or the question's rank in a list of holders by rank ("third, her
    nephew Ormand Vey" for "the third head"), plus 0.5 when it is the eponym
    of a name in it ("Ansel *Drummore*" for "Eurythenes *drummorei*"), less 0.5 when the description is of
    a person and the name is a body or a place (0.25 when it is one word: a person is introduced by full name);
    a question that asks for the described thing itself ("What was Edvin Marrowby's home village?") has none.
    Each name counts once, at its best sentence; the sentence recorded as naming it is the one that says most of the
    description, and a page titled with a full name names its subject where a sentence says "he" or "she"
    (:func:`_page_subject`). Light verbs ("the man who *made* …") count toward no sentence."""
    if not describes_entity(question) or asks_for_description(question):
        return []
    wanted = features(question)
    content = wanted.content - _LIGHT_VERBS
    known = {t for name in wanted.names for t in name}
    capitalised = _capitalised(passages[:max_passages])
    units: list[tuple[int, Passage, str]] = [
        (order, passage, strip_citations(raw))
        for order, passage in enumerate(passages[:max_passages]) for raw in split_sentences(passage.text)]
    scored: dict[str, float] = {}  # name -> its score, at its best sentence
    what = asked(question)
    person = _wants_person(question)
    role_of_a_thing = _role_of_a_thing(question)
    # the kind a "which" question asks for is the answer's, not the bridge's ("Which *firm* employed the author of
    # Tallyhold …?": "the logistics *firm* Grenmark Freight" is the answer, the author the bridge)
    asked_kind = _WHICH_KIND.match(question)
    described = [w.lower() for w in _surface(question, sorted(wanted.content - known)) if len(w) > 3
                 and not (asked_kind and w.lower() == asked_kind.group(1).lower())]
    heads = RELATIVE_HEAD.findall(question)
    # what a relative clause describes is what the bridge is called by ("the *firm* that built the engines", not the
    # engine called Prudence); "was *that* quay" has no such head
    head_nouns = [h for h in heads if h not in STOPWORDS]
    # the clause's other nouns ("the firm that built the *engines*"), not its verbs ("exported Orsavel lace")
    other_nouns = [w for w in described if stem(w) not in {stem(h) for h in head_nouns} and is_noun(w)]
    succession = _SUCCESSION_Q.search(question)
    years = features(question).years
    ranked = _RANK_ASKED.search(question)
    rank = ranked.group(1).lower() if ranked else ""  # "the *third* head of …"
    # the description's words (its clauses' terms and the names it holds): what the naming sentence says
    weights = what.weight
    main = _main_clause(question, what)  # what the second hop asks of whichever name
    description_terms = {t for t in content if weights.get(t, 1.0) < 1.0 or t in known}
    # a name that is what the description says (the "*Clinic*" of "the clinic founded by"), not what the main clause
    # asks of it ("the *college*" of "… graduate from the college")
    describing = ((description_terms - known) | {stem(h) for h in heads}) or (wanted.content - known)
    # name -> ((its naming sentence's description overlap, overall overlap), the bridge by that sentence)
    naming: dict[str, tuple[tuple[int, float], Bridge]] = {}
    for order, passage, sentence in units:
        # a lifespan says when someone was born, not where ("Liesel Hartung-Brenner (7 June 1889 – 15 March 1971)
        # was a botanist" does not say where the garden's founder was born)
        unit = features(f"{passage.title}. {sentence if what.kind == 'date' else LIFESPAN.sub(' ', sentence)}")
        overlap = sum(unit.covers(t) for t in content) / max(1, len(content))
        says_description = (sum(unit.covers(t) for t in description_terms), overlap)
        for name in _names(sentence, capitalised) + _page_subject(passage, sentence):
            tokens = {stem(w) for w in name.replace("-", " ").split()}
            if tokens <= known or name in question:  # the question's own name ("superseded *qstd.weave*")
                continue
            said = ((_ends(name) | _kinds(tokens, name)) & describing or _head_is_a_kind(name, described)
                    or _called(name, sentence, head_nouns or described, heads) or _made_by(name, sentence, described)
                    or _done_by(name, sentence, describing) or _done_where(name, sentence, question)
                    or _whose(name, sentence, question) or _placed(name, sentence, described, question)
                    or _boarded(name, sentence, described)
                    or _parent(name, sentence, question)
                    or _related(name, sentence, question))
            succeeds = _succeeds(succession, name, sentence)
            kind_bonus = 0.5 if said or succeeds or _dated_by(name, sentence, years) or (
                _ranked_in_list(name, sentence, rank)) or _handed_on(succession, name, passage, known) else 0.0
            if succeeds:
                kind_bonus += 0.5  # the succession is the description: "He *succeeded* Edmund Fairlie" names Cornelius
                # Ashby's predecessor, where "Bartholomew Quill, the *editor* of the Courier" only holds a like post
            if any(len(t) >= 5 and k != t and k.startswith(t) and len(k) - len(t) <= 3 for t in tokens
                   for k in wanted.tokens):
                kind_bonus += 0.5  # an eponym: "Ansel *Drummore*" for "the amphipod Eurythenes *drummorei*"
            if person and not role_of_a_thing and (stem(_head_word(name)) in NOT_A_PERSON
                           or stem(name.split()[0]) in NAMED_AFTER_A_FAMILY and len(name.split()) > 1):
                kind_bonus -= 0.5  # "the person who led …" is not the Orvenau Alpine Club, nor *Maison* Velloury
            elif person and _titled_otherwise(name, sentence, question):
                kind_bonus -= 0.5  # "under *director* Johanna Ferrant" is not "the *mayor* who held office when …"
            elif person and len(name.split()) == 1:
                kind_bonus -= 0.25  # a person is introduced by full name; one word is more often a place
            if not said and head_nouns and _called_or_listed(name, sentence, other_nouns):
                kind_bonus -= 0.5  # "the beam *engines* Prudence and Hesper" are what "the firm that built the
                # engines" built: a noun of the clause calls the name, not its head
            if person and re.search(re.escape(name) + r"['’]s\b(?! " + _ROLE_NOUN + ")", sentence):
                kind_bonus -= 0.25  # "gave the first performances of *Edvin Marrowby's* symphonies": he owns
                # what the act is about; the one who did it is another ("He", the passage's subject). A role of
                # the name's ("Kestrelwing Air's *chief pilot*") is the way to the person.
            score = overlap + kind_bonus - 0.01 * order
            if score <= 0:
                continue
            # a name scores at its best sentence, but is named by the sentence that best says the description ("In
            # 1925 it made the new windows of Saint Aldric's cathedral", not "The cathedral of Saint Aldric … its
            # bell tower is 71 metres", which answers "How tall is the bell tower of the cathedral that received new
            # windows from the Lorvin Glassworks in 1925?")
            scored[name] = max(scored.get(name, score), score)
            if name not in naming or says_description > naming[name][0]:
                terms = _surface(question, _hop_terms(what, sentence))
                query = _hop_search(main, name, terms) or " ".join([name, *terms])  # "Anselm Varrick born"
                naming[name] = (says_description,
                                Bridge(entity=name, chunk_id=passage.chunk_id, sentence=sentence, query=query))
    ranked = sorted(scored, key=scored.__getitem__, reverse=True)
    return [naming[name][1] for name in ranked[:limit]]


def _hop_terms(what: Asked, sentence: str) -> tuple[str, ...]:
    """What the second hop asks of a name found in ``sentence``: the main clause's terms; where the main clause names
    only the slot ("How many *inhabitants* does the town where the railway's workshop is located have?"), the terms
    the naming sentence does not say ("Corvenna inhabitants", not "… railway workshop located": those describe the
    bridge, and the first hop found them already)."""
    if what.weights and max(what.weights) >= 1.0:
        return what.main
    return unsaid(what, sentence) or what.main


_PHRASE_ENDS = frozenset(["who", "whom", "whose", "which", "that", "of", "in", "at", "on", "for", "by", "with", "as",
                          "from"])


def _description_head(description: str) -> str:
    """The noun a description is of: "shipyard" of "the shipyard that built the ferry Albatross", "predecessor" of
    "Cornelius Ashby's predecessor"."""
    words = re.findall(r"[^\W\d_]+(?:['’]s)?", description)
    owner = next((i for i, w in enumerate(words) if w.endswith(("'s", "’s"))), None)
    ends = next((i for i, w in enumerate(words) if w.lower() in _PHRASE_ENDS), len(words))
    if owner is not None and owner < ends and owner + 1 < len(words):
        # "the house's current master *perfumer*"; an owner after "of" owns no head ("the *teacher* of the Harbour Wing's …")
        phrase = list(itertools.takewhile(lambda w: w.lower() not in _PHRASE_ENDS, words[owner + 1:]))
        return phrase[-1] if phrase else words[owner + 1]
    if words and words[0].lower() == "the":
        return words[1] if len(words) > 1 else ""
    return words[0] if words else ""


@dataclass(frozen=True)
class _MainClause:
    """What a multi-hop question's main clause asks, outside its description: read once per question, asked of each
    candidate bridge (:func:`_hop_search`)."""

    asked: tuple[str, ...]
    """Its asked words as written, once each: terms, names, and the kind a "which" question asks for ("What
    *building* in *Pellory* was *designed* …"), not a count's noun ("How many *people* live in …": "Kellaby people"
    finds "employs about 400 people")."""
    said: frozenset[str]
    """The stems the main clause or the description's head says ("the *shipyard* that built …")."""


def _main_clause(question: str, what: Asked) -> _MainClause | None:
    """The main clause of ``question`` where its description can be told apart
    (:func:`~.answerability.description_span`) and the main clause asks something outside it; ``None`` otherwise
    ("the boat *skippered* by the founder of …": the main clause is inside what was read as the description)."""
    span = description_span(question)
    if span is None:
        return None
    outside = re.findall(r"[^\W\d_]+", question[: span[0]] + " " + question[span[1]:])
    kind = _WHICH_KIND.match(question)
    asks = {*what.attribute, *what.names, what.slot, stem(kind.group(1)) if kind else ""} - {""}
    asked: dict[str, str] = {}  # each asked stem by its first spelling, in the question's order
    for word in outside:
        if stem(word) in asks:
            asked.setdefault(stem(word), word)
    if not asked:
        return None
    said = {stem(w) for w in outside} | {stem(_description_head(question[span[0]: span[1]]))}
    return _MainClause(tuple(asked.values()), frozenset(said))


def _hop_search(main: _MainClause | None, name: str, terms: Sequence[str]) -> str:
    """The second hop's query for ``name``, where the question's ``main`` clause asks more than ``terms`` (what
    :func:`_hop_terms` asks of the name): the name, those of ``terms`` the main clause or the description's head says,
    and the main clause's other asked words. "Thaddeus Morrow designed building Pellory", not "Thaddeus Morrow
    designed architect", for "What building in Pellory was designed by the teacher of the Harbour Wing's architect?":
    the description's other words the first hop found already, and they pull the second hop back to pages about them
    ("Thaddeus Morrow (1801–1879) was an *architect* …" before "Morrow also designed the Corn Exchange at Pellory");
    the head stays ("Brandt *shipyard*"). Empty (the plain query) otherwise."""
    if main is None:
        return ""
    have = {stem(t) for t in terms}
    added = [w for w in main.asked if stem(w) not in have]
    kept = [t for t in terms if stem(t) in main.said] or list(terms)
    return " ".join([name, *kept, *added]) if added or len(kept) < len(terms) else ""


def find_bridge(question: str, passages: Sequence[Passage], max_passages: int = 3) -> Bridge | None:
    """The best candidate bridge of ``question`` (:func:`find_bridges`), or ``None``."""
    found = find_bridges(question, passages, limit=1, max_passages=max_passages)
    return found[0] if found else None


def second_hop_target(question: str, hop: Sequence[Passage], bridge: Bridge) -> Passage | None:
    """The second hop's passage to show beside the naming one: the best-ranked passage (not the naming one)
    that mentions what the question asks of the bridge ("born" for "Where was the chair … born?"), else the
    best-ranked one. A person's document opens with the birth and ends with the career: the densest match
    for "Teodor Makaveyev-Lunn born" may be the chunk about his career; "inhabitants" answers "live"). Where
    the question has an event the answer must say (:attr:`~.answerability.Asked.event`), the best-ranked
    passage that says it comes first."""
    others = [p for p in hop if p.chunk_id != bridge.chunk_id]
    what = asked(question)
    # the word the answer must say, where the question has one ("When was the record label … *founded*?"): the
    # chunk that says it beats one that only names the label again ("… sold the *label* in 2004")
    if what.event:
        said = next((p for p in others if features(f"{p.title}. {p.text}").covers(what.event)), None)
        if said is not None:
            return said
    # where the main clause asks only for a type ("What was the *profession* of the man whose daughter gave her
    # name to No. 1?": every word describes the bridge), the second hop brings the bridge's value of that type,
    # which the opening of its document usually states ("Jorin Halvesty (1842–1911) was a *banker* …")
    if what.type_only:
        typed = [p for p in others if holds_value(what, p.text) and about(bridge.entity, f"{p.title}. {p.text}")]
        if typed:
            return next((p for p in typed if p.title and p.text.lstrip().startswith(p.title)), typed[0])
    # what the naming sentence already says is not what the second hop must bring ("*taveneri*" in "What did
    # the man honoured in the name of Pennatula taveneri *train* as?")
    return next((p for p in others if mentions(what, f"{p.title}. {p.text}", known=bridge.sentence)),
                others[0] if others else None)


def hop_question(question: str, entity: str) -> str | None:
    """``question`` asked of ``entity`` itself: its description replaced by the name ("Where did the zoo's current
    director work for nine years …?" -> "Where did Tobias Quennell work for nine years …?"), the single-hop question
    the second hop answers. ``None`` where the question's description cannot be told apart."""
    span = description_span(question)
    if span is None:
        return None
    body = question.strip().rstrip("?").rstrip()
    # a time the description ends on frames the main clause ("Who was rector of the institution that runs the
    # observatory *before 2017*?"): the name's question keeps it
    frame = _TRAILING_FRAME.search(body[span[0]: span[1]])
    rest = body[span[1]:].lstrip()
    if frame is not None and span[1] >= len(body) - 1:
        rest = f"{rest} {frame.group(0).strip()}".strip()
    # a relative of the one described is that one's relative ("What year was *the mother of* the aviation museum's
    # current curator born?" -> "What year was Lowell Tavener's mother born?"), not the name itself
    kin = KIN_DESCRIBED.match(body[span[0]: span[1]])
    named = f"{entity}'s {kin.group(1)}" if kin and stem(kin.group(1)) in KINSHIP else entity
    return f"{body[: span[0]]}{named} {rest}".strip() + "?"


_TRAILING_FRAME = re.compile(r"\s(?:before|after|until) (?:1[0-9]{3}|20[0-9]{2})$", re.I)


def about(entity: str, text: str) -> bool:
    """Whether ``text`` names ``entity`` (every word of it, any case): the second hop's answer must be about
    the bridge, not about whoever else its passage mentions."""
    unit = features(text)
    return all(unit.covers(stem(w)) for w in re.findall(r"[^\W\d_]+", entity))


def _surface(question: str, stems: Sequence[str]) -> list[str]:
    """The question's own words for ``stems`` (queries read better unstemmed)."""
    words = re.findall(r"[A-Za-z]+", question)
    out: list[str] = []
    for s in stems:
        match = next((w for w in words if stem(w) == s), s)
        if match not in out:
            out.append(match)
    return out


__all__ = ["Bridge", "about", "describes_entity", "find_bridge", "find_bridges", "second_hop_target"]
