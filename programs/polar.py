"""Yes/no questions answered only from a passage that says so, else refused.

"Did Paolo Marchetti ever work in engineering?" has three honest answers: *yes* with the sentence
that states it, *no* with the sentence that denies it ("… has never worked in engineering"), or a
refusal when the corpus is silent. A topical sentence about Paolo Marchetti is none of them, so a
polar question never falls back to "the best-matching sentence": it is turned into its statement
("Paolo Marchetti work in engineering"), and

* **yes** needs one passage that entails the statement (the entailment judge, ``support_threshold``)
  with one sentence that holds every content word of it ("sold" is not "sold abroad");
* **no** needs one sentence that contradicts it (:mod:`.contradiction`, ``contradiction`` gate), or a
  negated sentence about its subject that means nearly the same in other words (``denial_similarity``);
* anything else is ``not_answered``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from groundqa.judges import EntailmentJudge
from groundqa.judges.lexical import features, negated_clause, negates
from groundqa.signatures.types import Passage
from groundqa.store.embeddings import get_embedder
from groundqa.text import split_sentences, strip_citations

from .context import NumberedContext
from .contradiction import find_contradiction

_AUX = re.compile(r"^(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must)\s+",
                  re.I)
_EVER = re.compile(r"\b(?:ever|already|still|once)\s+", re.I)


def statement(question: str) -> str:
    """The statement a yes/no question asks about: "Did X ever work at Y?" -> "X work at Y"."""
    text = _AUX.sub("", question.strip().rstrip("?").strip(), count=1)
    return _EVER.sub("", text).strip()


@dataclass(frozen=True)
class PolarAnswer:
    """A cited *yes* or *no*: the verdict, the passage number and the sentence that decides it."""

    verdict: Literal["yes", "no"]
    number: int
    sentence: str
    support: float

    @property
    def text(self) -> str:
        return f"{self.verdict.capitalize()}. {self.sentence.rstrip()} [{self.number}]"


def premise_of(passage: Passage) -> str:
    """The passage as the judge reads a yes/no question's statement against it: under a ``Title:`` line."""
    return passage.text if not passage.title else f"Title: {passage.title}\n{passage.text}"


def polar_answer(question: str, context: NumberedContext, judge: EntailmentJudge, support_threshold: float,
                 contradiction_threshold: float, citable: set[int] | None = None,
                 denial_similarity: float = 1.01) -> PolarAnswer | None:
    """A cited yes or no for ``question`` from ``context`` (only passages numbered in ``citable``, all
    when None), or ``None`` when no passage decides it. ``denial_similarity`` (above 1: off): how close a
    negated sentence about the subject must mean to the statement to say "No" in other words."""
    claim = statement(question)
    if not claim:
        return None
    best: PolarAnswer | None = None
    for number, passage in enumerate(context.passages, start=1):
        if citable is not None and number not in citable:
            continue
        verdict = judge.judge(claim, [premise_of(passage)])
        if not verdict.entailed or verdict.support < support_threshold:
            continue
        sentence, coverage = _best_sentence(claim, passage.text, passage.title)
        if coverage == 1.0 and (best is None or verdict.support > best.support):
            best = PolarAnswer("yes", number, sentence, round(verdict.support, 4))
    allowed = [p for n, p in enumerate(context.passages, start=1) if citable is None or n in citable]
    if best is not None and _on_its_subjects_page(claim, context.passages[best.number - 1]):
        return best
    denial = find_contradiction(claim, allowed, contradiction_threshold)
    denied = denial is not None and denial.kind in ("negation", "antonym")
    # a "yes" read off another page ("The city's railway station opened in 1868; it remained the nearest station to
    # Strenholm" on Oderwick's) gives way to a denial on the subject's own ("The town has never had its own railway
    # station" on Strenholm's)
    if best is not None and not (denied and _on_its_subjects_page(claim, allowed[denial.passage])):
        return best
    if denial is not None and denied:
        number = context.passages.index(allowed[denial.passage]) + 1
        return PolarAnswer("no", number, denial.sentence, denial.coverage)
    return _denial_in_other_words(claim, context, allowed, denial_similarity)


def _on_its_subjects_page(claim: str, passage: Passage) -> bool:
    """Whether ``passage`` is titled with every name ``claim`` pins (its subject's own page)."""
    names = features(claim).names
    title = features(passage.title or "")
    return bool(names) and any(all(title.covers(t) for t in name) for name in names)


def _denial_in_other_words(claim: str, context: NumberedContext, allowed: list[Passage],
                           similarity: float) -> PolarAnswer | None:
    """A negated sentence about the claim's subject that means nearly what the claim says ("Sarn never
    exhibited outside the valley" for "Sarn show her paintings outside the valley"): "No", from cosine
    ``similarity`` on (:func:`denial_similarities`), for a sentence that shares a word of what the claim says of its
    subject. Words alone miss it (exhibited / show); an unrelated
    negation about the same person ("has never worked in engineering") stays below (development data,
    ``python scripts/denial_similarity.py``: questions the corpus is silent on at most 0.53; 15 of 24
    explicit denials reach 0.55, those worded further off, "offered the post … and declined it", do not)."""
    said = features(claim)
    surnames = {name[-1] for name in said.names}
    # what it says of its subject, beyond the subject's name: a denial shares a word of it ("*outside* the *valley*",
    # "never set foot on the *Grauzahn*"); "Gideon Hask never learned to swim" is near "Gideon Hask own a coal mine" by
    # his name alone
    predicate = said.content - set(said.names[0] if said.names else ())
    candidates: list[tuple[Passage, str]] = []
    for passage in allowed:
        for raw in split_sentences(passage.text):
            sentence = strip_citations(raw)
            words = features(f"{passage.title}. {sentence}")
            if (negates(sentence) and all(words.covers(name) for name in surnames)
                    and (not predicate or any(features(sentence).covers(t) for t in predicate))):
                candidates.append((passage, sentence))
    if not candidates:
        return None
    scores = denial_similarities(claim, [sentence for _, sentence in candidates])
    best = max(range(len(scores)), key=scores.__getitem__)
    if scores[best] < similarity:
        return None
    passage, sentence = candidates[best]
    return PolarAnswer("no", context.passages.index(passage) + 1, sentence, round(scores[best], 4))


def denial_similarities(claim: str, sentences: list[str]) -> list[float]:
    """How near each negated sentence means to ``claim``: the cosine to the sentence or to its denying clause,
    whichever is nearer (the clauses that go on about a denial, "…, which he regarded as loose and unlucky",
    pull the sentence away from the claim it denies)."""
    if not sentences:
        return []
    texts = [text for sentence in sentences for text in (sentence, negated_clause(sentence))]
    vectors = get_embedder().embed([claim, *texts])
    cosines = [sum(a * b for a, b in zip(vectors[0], v, strict=True)) for v in vectors[1:]]
    return [max(cosines[2 * i], cosines[2 * i + 1]) for i in range(len(sentences))]


def _best_sentence(claim: str, text: str, title: str = "") -> tuple[str, float]:
    """The passage sentence covering most of ``claim``'s content words, and the share it covers (names may
    come from the passage title: "She retired in 2011" under "Odile Marchetti")."""
    wanted = features(claim).content
    sentences = [strip_citations(s) for s in split_sentences(text)] or [text]

    def covered(sentence: str) -> float:
        unit = features(f"{title}. {sentence}" if title else sentence)
        return sum(unit.covers(t) for t in wanted) / len(wanted) if wanted else 0.0

    best = max(sentences, key=covered)
    return best, covered(best)


__all__ = ["PolarAnswer", "denial_similarities", "polar_answer", "statement"]
