"""The extractive fallback: the best passage sentence that answers what was asked, cited.

Used when the LM cannot meet the citation contract or does not answer the question. Each sentence of
the numbered context is scored ``0.6 * cosine + 0.4 * overlap`` against the question (and against a
bridge query when the question was bridged; the better of the two counts), where ``overlap`` is the
share of the question's content words found in the sentence or its passage title (or a word that says one
otherwise, as the answer check reads them: :data:`~groundqa.judges.paraphrase.SYNONYMS`); a sentence that opens on a
pronoun is embedded after its passage title, which is what it is about. Sentences that give
instructions ("ignore previous instructions…") are never candidates, and a passage's own ``[n]``
marks are removed.

Ranked best first, the candidates above ``floor`` are then tried in order: the first one whose
answerability (:mod:`.answerability`: the asked type and attribute) reaches ``answerability`` is the
answer; a topical sentence that does not contain what was asked is skipped, never quoted. A sentence
is read with its passage title and the sentence before it, so "The fare rose to 6.50 crowns in 2021."
can answer what the sentence before set up. A bridged question is answered from a second-hop passage
when one answers (the naming passage is tried last), and the sentence that named the bridge is
quoted first, so the answer carries both hops, each cited. A who-question answered by what a person's own page
says of "her" or "him" is quoted after the page's title, which names her. The result says why nothing was chosen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from groundqa.judges.lexical import NOT_A_PERSON, features, stem
from groundqa.judges.paraphrase import said_otherwise
from groundqa.signatures.types import Passage
from groundqa.store.embeddings import get_embedder
from groundqa.text import content_words, embedded_text, opening, split_sentences, strip_citations

from .answerability import (
    GIVES_CAUSE,
    Answerability,
    Asked,
    asked,
    asks_why,
    check,
    holds_value,
    in_term,
    names_another_person,
    names_someone,
    swap_of,
    value_beside,
)
from .bridging import Bridge, about
from .context import NumberedContext
from .judge_budget import AnswerJudgment, JudgeBudgetSpent

# Sentences that address the reader instead of stating facts are never quoted as answers.
INSTRUCTION = re.compile(
    r"\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|prompts?|rules)\b|\byou are now\b|\bsystem prompt\b"
    r"|\b(answer|respond|reply|say) (that|with|only)\b", re.I)


@dataclass(frozen=True)
class ScoredSentence:
    score: float
    number: int  # the passage's [n]
    text: str
    before: str = ""
    """The sentence before it in its passage: context for reading it ("The fare rose to 6.50 crowns in
    2021." answers "adult single ticket" only with the sentence before)."""


@dataclass
class Extraction:
    """What the extractive fallback chose, or why it chose nothing."""

    answer: str = ""
    chosen: list[ScoredSentence] = field(default_factory=list)
    best: ScoredSentence | None = None
    """The best candidate above the floor, chosen or not."""
    shortfall: Answerability | None = None
    """Why the best candidate above the floor did not answer (when nothing was chosen)."""
    judged: list[tuple[str, float]] = field(default_factory=list)
    """(sentence, the answer judge's margin) for each sentence the judge was asked about."""
    answering: ScoredSentence | None = None
    """The first sentence that answers (after its lead, where it has one)."""
    coverage: float = 0.0
    """How much of what was asked it says, with its lead (:attr:`Answerability.coverage`)."""
    denial: ScoredSentence | None = None
    """The best-ranked sentence that says what was asked about is not so (:attr:`Answerability.denies`): the
    correction of the question's premise, where no sentence answers."""
    swapped: str = ""
    """How the best-ranked sentence repeats the question with a relation turned round, a word swapped for its
    opposite or another number (:data:`MADE_BY_SWAP`), where it does: the question was made from it, and no other
    sentence answers."""


MADE_BY_SWAP = frozenset({"antonym", "direction", "modifier", "number", "order", "side"})
"""Swaps that make an unanswerable question of the sentence they turn (SQuAD 2.0 writes them so): an opposite ("the
*strong* force" for "the *weak* force"), a relation turned round (:mod:`.contradiction`), another number in the same
words ("the *twenty-fourth* James Bond film" for "the *thirty-fourth*": a question's number is rarely written otherwise
in those words, a name's casing often is). Not a negation ("*not* identified … *until* the work of Isaac Newton"
answers who identified gravity), another year, another person ("*founded in 1838 by* Edwin Halloran and Piet Vesk"
for who founded Halloran & Vesk), nor another name in a name's place: a question typed in lower case is read with the
passages' capitals (:mod:`.casing`), and "who chairs the quorvane steering committee" then met "the *Gullwing* author"
in its best sentence."""


@lru_cache(maxsize=20_000)
def sentences_of(text: str, title: str) -> tuple[tuple[str, str], ...]:
    """(sentence, the sentence before it) for each sentence of a passage worth ranking (cached: a passage is ranked
    again for every hop and rescue of a question, and for every question that retrieves it)."""
    out: list[tuple[str, str]] = []
    before = ""
    for raw in split_sentences(text):
        sentence = strip_citations(raw)  # a passage's own [n] marks must not pose as our citations
        # a short sentence read after its title ("Lindqvist & Haarmann. It was dissolved in 1937.") says enough
        if len(content_words(embedded_text(sentence, title))) >= 3 and not INSTRUCTION.search(sentence):
            out.append((sentence, before))
        before = sentence
    return tuple(out)


@lru_cache(maxsize=50_000)
def _stems(text: str) -> frozenset[str]:
    """The stems of the content words of ``text`` (cached, as :func:`sentences_of`)."""
    return frozenset(stem(w) for w in content_words(text))


def rank_sentences(question: str, context: NumberedContext, queries: Sequence[str] = ()) -> list[ScoredSentence]:
    """Every sentence of the context scored against the question (or a query), best first."""
    candidates = [(number, sentence, passage.title, before)
                  for number, passage in enumerate(context.passages, start=1)
                  for sentence, before in sentences_of(passage.text, passage.title)]
    if not candidates:
        return []
    probes = [question, *queries]
    # words are compared by stem: "What subject did Edith Orlanc *study* …?" shares its verb with "Having *studied*
    # chemistry at Altenbrück, she took charge …"
    asks = [_stems(p) for p in probes]
    what = asked(question)
    vectors = get_embedder().embed(probes + [embedded_text(sentence, title) for _, sentence, title, _ in candidates])
    # cosine similarities (the vectors are normalised), every sentence against every probe in one product
    similarity = np.asarray(vectors[len(probes):]) @ np.asarray(vectors[: len(probes)]).T
    scored: list[ScoredSentence] = []
    for (number, sentence, title, before), row in zip(candidates, similarity.tolist(), strict=True):
        words = _stems(sentence) | _stems(title)
        # a year inside a term the sentence states for its holder counts as said ("Anton Belair served from 1998 to
        # 2004" for "mayor in 2001"), as the answer check reads it
        words |= {w for ask in asks for w in ask if w.isdigit() and in_term(what, w, sentence)}
        # a word said otherwise counts as said, as the answer check reads it ("What *registration* did it carry?" /
        # "… and *registered* it as MI-KAA")
        best = max(
            0.6 * cosine + 0.4 * (sum(1 for a in ask if a in words or said_otherwise(a) & words) / len(ask) if ask else 0.0)
            for cosine, ask in zip(row, asks, strict=True)
        )
        scored.append(ScoredSentence(round(best, 4), number, sentence, before))
    return sorted(scored, key=lambda s: s.score, reverse=True)


def _bridge_sentence(context: NumberedContext, bridge: Bridge | None, candidate: ScoredSentence) -> ScoredSentence | None:
    """The sentence that named the bridge, when ``candidate`` comes from another passage than it, or from the same
    passage where that is the bridge's own page ("Amos Quint (1925-2009) was a physician. He came to Calder Island
    … as its first resident doctor and founded a clinic …" names the doctor; "… and died in Nessa in 2009" says
    when he died)."""
    if bridge is None:
        return None
    for number, passage in enumerate(context.passages, start=1):
        if passage.chunk_id != bridge.chunk_id:
            continue
        if number != candidate.number or (candidate.text.strip() != bridge.sentence.strip()
                                          and about(bridge.entity, passage.title)):
            return ScoredSentence(candidate.score, number, bridge.sentence)
    return None


def _read_in_place(context: NumberedContext, sentence: ScoredSentence | None) -> str:
    """The sentence that named a bridge as its passage presents it: after the passage's title ("Marrowby
    Athletic's *1987* Haverell Cup run. Managed by Oswin Tarrant, the team won …" is what dates the manager's
    cup run) and with the years of the passage's opening sentence ("The Ambrell Bend accident was a derailment
    … on 17 August *1931*" dates the train "hauled by locomotive No. 3 Hadwig" that the next sentence
    derails). Only the years: the opening's other words would speak for what the second hop must say."""
    if sentence is None:
        return ""
    passage = context.passages[sentence.number - 1]
    start = opening(passage.text)
    years = [] if start == sentence.text else sorted(features(start).years)
    text = f"{sentence.text} ({', '.join(years)})" if years else sentence.text
    return f"{passage.title}. {text}" if passage.title else text


def extractive_answer(question: str, context: NumberedContext, max_sentences: int = 2, floor: float = 0.35,
                      answerability: float = 0.0, bridge: Bridge | None = None,
                      citable: set[int] | None = None, conflict_coverage: float = 0.6,
                      value_bonus: float = 0.0, judge: AnswerJudgment | None = None,
                      judge_floor: float = 0.0) -> Extraction:
    """Up to ``max_sentences`` sentences above ``floor`` that each answer ``question`` (see the module
    docstring); with a bridge, second-hop sentences are tried first and the naming sentence leads. Only
    passages numbered in ``citable`` (all, when None) may be quoted; a sentence that swaps a word of the
    question for a conflicting one (from ``conflict_coverage`` of its other words on) is never quoted. A
    sentence holding a value of the asked type (a month for "which month") scores ``value_bonus`` more:
    the sentence that holds an answer outranks one that only shares the question's words; among the sentences
    above the floor, ``value_bonus`` again when the value stands beside the asked word
    (:func:`~.answerability.value_beside`). With a ``judge`` (the tuned answer judge's margin for a passage
    title, the sentence before, the sentence and the question), a sentence the answerability check accepts is
    quoted only where the judge's margin reaches ``judge_floor``; a bridged hop's sentence, which answers about
    the bridge rather than in the question's words, is not judged."""
    what = asked(question)
    out = Extraction()
    ranked = [ScoredSentence(round(c.score + (value_bonus if holds_value(what, c.text) else 0.0), 4), c.number,
                             c.text, c.before)
              for c in rank_sentences(question, context, [bridge.query] if bridge else ())]
    # a value beside the asked word re-orders the sentences above the floor; it lifts none over it
    ranked = sorted((c for c in ranked if c.score >= floor and (citable is None or c.number in citable)),
                    key=lambda c: c.score + (value_bonus if value_beside(what, c.text) else 0.0), reverse=True)
    out.best = ranked[0] if ranked else None
    bridge_number = next((n for n, p in enumerate(context.passages, start=1) if bridge and p.chunk_id == bridge.chunk_id),
                         None)
    # the bridge's passage describes the entity; the answer is usually a hop further (on the entity's own page, there)
    ordered = ranked if bridge and bridge.on_page else (
        [c for c in ranked if c.number != bridge_number] + [c for c in ranked if c.number == bridge_number])
    if bridge is not None and bridge.asks and bridge.entity.isdigit():
        # a year bridge is answered by a term that holds the year ("Henrik Oldeborg held the post from 1962 to 1979")
        # before a sentence that only has the year ("Clay came from the Tessing pit until 1967")
        ordered.sort(key=lambda c: not features(c.text).spans_year(bridge.entity))
    if asks_why(question):
        # a why-question is answered by the sentence that gives a cause ("The rule was introduced *because* spectators
        # … had complained"), before one that only says what the thing is ("The Lannerhaug draw rule is a regulation …")
        ordered.sort(key=lambda c: GIVES_CAUSE.search(c.text) is None)
    if bridge is None and ranked:  # "What do complement proteins activate *before* they bind …?" was made from
        # "*After* complement proteins initially bind …, they activate …": no other sentence of the context answers it
        top = ranked[0]
        swap = swap_of(what, top.text, conflict_coverage, f"{context.passages[top.number - 1].title}. {top.before}")
        if swap is not None and swap[0] in MADE_BY_SWAP:
            out.swapped = swap[1]
            out.shortfall = Answerability(0.0, False, 0.0, (f"the best sentence {swap[1]}",), True)
            return out
    taken: set[str] = set()
    openings = {n: opening(context.passages[n - 1].text) for n in {c.number for c in ordered}}
    # a page's opening, where its first passage is at hand (a later passage of it opens on something else)
    page_openings = {p.doc_id: opening(p.text) for p in context.passages if p.metadata.get("position") == 0}
    for candidate in ordered:
        if len(out.chosen) >= max_sentences:
            break
        if candidate.text in taken:
            continue
        lead = _bridge_sentence(context, bridge, candidate) if not out.chosen else None
        passage = context.passages[candidate.number - 1]
        if lead is not None and _of_its_page(bridge, passage, candidate.text):
            continue  # on Matthias Kolbeck's page, "*Born in* Orlenz, *he* trained … before Count Aurel Vessendorf
            # engaged him" tells where Kolbeck was born, not the bridge Vessendorf
        if lead is not None and _of_the_anchor(question, bridge, passage, candidate.text):
            continue  # "It was founded in 1742" on Port Vessany's page is not when its twin town was founded
        if lead is not None and _of_someone_else(bridge, passage, candidate.text):
            continue  # "Ruth Kessing served from 1990 to 1998" is not how long the mayor named Henrik Voss served
        if lead is not None and what.type_only and not about(
                bridge.entity, f"{passage.title}. {openings[candidate.number]} {candidate.text}"):
            continue  # a type asked of the bridge ("the *profession* of the man whose …") is said about it
        # the naming sentence covers the description ("the guide who led the first ascent"); the value asked
        # for (where he was born) must be in the second hop's sentence itself
        # a bridge that asks its own question of the second hop (a year bridge: "… mayor … in 2001?") is answered by
        # the second hop alone: the lead is quoted, not read for the description
        verdict = check(what, candidate.text, title=f"{passage.title}. {candidate.before}",
                        conflict_coverage=conflict_coverage, about=openings[candidate.number],
                        page_opening=page_openings.get(passage.doc_id, ""),
                        lead="" if bridge is not None and bridge.asks else _read_in_place(context, lead))
        if verdict.score < answerability:
            out.shortfall = out.shortfall or verdict
            if verdict.denies and lead is None and out.denial is None:
                out.denial = candidate
            continue
        if judge is not None and lead is None:
            try:
                margin: float | None = judge(passage.title, candidate.before, candidate.text, question)
            except JudgeBudgetSpent:  # the rules decide the rest
                judge, margin = None, None
            if margin is not None:
                out.judged.append((candidate.text, margin))
                if margin < judge_floor:
                    out.shortfall = out.shortfall or Answerability(
                        0.0, True, verdict.coverage, (f"the answer judge reads no answer in it: margin {margin:.1f} "
                                                      f"< {judge_floor}",))
                    continue
        if out.answering is None:
            out.answering, out.coverage = candidate, verdict.coverage
        for sentence in (lead, candidate):
            if sentence is not None and sentence.text not in taken:
                out.chosen.append(sentence)
                taken.add(sentence.text)
    if out.chosen:
        out.shortfall = None
        quoted: list[str] = []
        for c in out.chosen:  # the title once, where no sentence before named someone
            named_before = any(names_someone(what, q) for q in quoted)
            title = context.passages[c.number - 1].title
            text = (f"{title}: {c.text.rstrip()}" if _names_the_asked_kind(what, c.text, title)
                    else c.text.rstrip() if named_before else _named(what, c.text, title))
            quoted.append(f"{text} [{c.number}]")
        out.answer = " ".join(quoted)
    return out


_PERSONAL = re.compile(r"\b(?:he|she|him|her|his)\b", re.I)
_PERSON_TITLE = re.compile(r"[A-Z][\w'-]+(?: [A-Z][\w'-]+)+")


_IT = re.compile(r"(?:It|Its|This)\b")
_OF_THE_PAGE = re.compile(r"(?:He|She|His|Her|Born|Educated|Trained)\b")
"""A sentence that opens so speaks of its page's subject."""


def _of_its_page(bridge: Bridge, passage: Passage, text: str) -> bool:
    """Whether ``text`` speaks of its page's subject (:data:`_OF_THE_PAGE`), a person other than the bridge, and names
    the bridge beside them: the bridge is someone the subject met, not whom the sentence is about."""
    title = passage.title.strip()
    return (_OF_THE_PAGE.match(text) is not None and _PERSON_TITLE.fullmatch(title) is not None
            and not set(features(title).content) & NOT_A_PERSON
            and not about(bridge.entity, title) and not about(title, bridge.entity)  # ("Count" Aurel Vessendorf)
            and about(bridge.entity, text))


def _of_the_anchor(question: str, bridge: Bridge, passage: Passage, text: str) -> bool:
    """Whether ``text`` speaks of its page's subject, as "it" or by its name, where that page is the one the question
    names beside its description ("Port Vessany's twin town"): what is asked is asked of the bridge, not of the page
    that led to it."""
    title = passage.title.strip()
    return (bool(title) and (_IT.match(text) is not None or text.startswith(title)) and about(title, question)
            and not about(bridge.entity, title) and not about(bridge.entity, text))


_SUBJECT_NAME = re.compile(r"(?!(?:The|A|An|In|On|At|By|From|After|Before|During|Since|Until|When|While|As|For|With|"
                           r"Under|Over|Through|Following|Despite|Like|Unlike|Between|Among|Its|His|Her|Their|This|That|"
                           r"These|Those|Both|Each|Every|Some|Many|Most|All|Of|To|Once|Then|Later|Today)\b)"
                           r"([A-Z][\w'’-]+(?: [A-Z][\w'’-]+)+),? (?=[a-z])")
"""A sentence that opens with a full name as its subject ("Ruth Kessing served …")."""


def _of_someone_else(bridge: Bridge, passage: Passage, text: str) -> bool:
    """Whether ``text`` is said of someone named as its subject who is not the bridge, on a page that is not the
    bridge's: what it says is said of that one."""
    subject = _SUBJECT_NAME.match(text)
    return (subject is not None and not set(features(subject.group(1)).content) & NOT_A_PERSON
            and not about(subject.group(1), bridge.entity) and not about(bridge.entity, subject.group(1))
            and not about(bridge.entity, text) and not about(bridge.entity, passage.title))


def _names_the_asked_kind(what: Asked, text: str, title: str) -> bool:
    """Whether the passage title is the instance a "which <noun>" question asks for and the sentence speaks of it only
    as "it" ("Which *depot* was home to the line …?": "*It* was the home depot of Lines 3 and 4" on the page titled
    "Corrow Lane *Depot*"): the reader is owed the name."""
    head = title.replace("-", " ").split()[-1].lower() if title else ""
    return (bool(what.category_term) and _IT.match(text) is not None and len(title.split()) > 1
            and _PERSON_TITLE.fullmatch(title) is not None and stem(head) == what.category_term)


def _named(what: Asked, sentence: str, title: str) -> str:
    """``sentence`` as quoted, after its passage title where a who-question is answered by what a person's own
    page says of "her" or "him" ("Marta Lind: Since 2020 *she* has chaired the museum's trustees"): a reader asked
    who, and the name is what the title gives."""
    text = sentence.rstrip()
    if what.kind != "person" or not _PERSONAL.search(text) or not names_another_person(what, title):
        return text  # the question's own person, or a page about a place or a body
    if names_someone(what, text):
        return text  # the sentence names someone itself
    return f"{title}: {text}"
