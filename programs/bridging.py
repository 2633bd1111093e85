"""Bridge retrieval for multi-hop questions: find the entity the first hop names, and ask again.

"Where was the composer of the Tide Suite born?" describes someone instead of naming them. The
first retrieval finds the passage that names the composer ("… composed by Greta Voss"), but the
answer (her birthplace) is in another document that the question's words do not reach. The bridge
is the name that the first hop's best-matching sentence gives and the question does not; the second
hop asks the question again about it ("Greta Voss born"), and its passages are merged by chunk id.

Only questions that *describe* an entity ("the composer of …", "the engineer who built …", "the
clinic founded by …", "Port Vessany's twin town") are bridged, so single-hop look-ups cost nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundqa.judges.lexical import STOPWORDS, features, stem
from groundqa.signatures.types import Passage
from groundqa.text import split_sentences, strip_citations

from .answerability import CALENDAR_WORDS, asked

# "the engineer who", "the clinic founded by", "the lighthouse where", "the club whose", "the library that",
# "Port Vessany's twin town", and "the <role> of" for nouns that name someone by what they did or are to
# another ("the composer of the Tide Suite"; not "the wreck of the Meriden", which is the Meriden itself)
_ROLE = (r"[a-z]+(?:er|or|ist|ian|ant|ent)|architect|guide|pilot|poet|chair|chairman|chairwoman|coach|dean|"
         r"bishop|priest|judge|chef|mayor|founder|owner|king|queen|wife|husband|son|daughter|father|"
         r"mother|brother|sister|widow|heir|successor|predecessor|captain|chief|head|keeper|twin town|home town|"
         r"birthplace|home|capital")
_DESCRIPTION = re.compile(
    rf"\bthe (?:[a-z]+ ){{0,2}}[a-z]+ (?:who|whom|that|which|whose|where|(?:[a-z]+ed|built|run|led|held|written|"
    rf"drawn|made|won|painted|founded) by)\b|\bthe (?:[a-z]+ )?(?:{_ROLE}) of\b|\b[A-Z][a-z]+(?: [A-Z][a-z]+)*'s [a-z]+")


@dataclass(frozen=True)
class Bridge:
    """The entity the first hop found, the passage that named it, and the second hop's query."""

    entity: str
    chunk_id: str
    sentence: str
    query: str


_CONTRACTION = re.compile(r"\b(What|Who|Where|When|Why|How|Which|That|There|Here|It)'s\b", re.I)


def describes_entity(question: str) -> bool:
    """The question refers to something by description rather than by name ("What's" is no possessive)."""
    return bool(_DESCRIPTION.search(_CONTRACTION.sub(r"\1 is", question)))


def _names(sentence: str) -> list[str]:
    spans = re.findall(r"\b[A-Z][a-z\u00C0-\u024F]+(?:[- ](?:of the |of |the |de |van )?[A-Z][a-z\u00C0-\u024F]+)*",
                       sentence)
    return [s for s in spans if len(s) > 2 and s.lower() not in CALENDAR_WORDS]  # not "August"


def find_bridge(question: str, passages: Sequence[Passage], max_passages: int = 2) -> Bridge | None:
    """The bridge entity of ``question`` in its first hop's best ``passages`` (``None`` if there is none)."""
    if not describes_entity(question):
        return None
    wanted = features(question)
    known = {t for name in wanted.names for t in name}
    best: tuple[float, int, str, str, str] | None = None
    for order, passage in enumerate(passages[:max_passages]):
        for raw in split_sentences(passage.text):
            sentence = strip_citations(raw)
            unit = features(f"{passage.title}. {sentence}")
            overlap = sum(unit.covers(t) for t in wanted.content) / max(1, len(wanted.content))
            for name in _names(sentence):
                words = name.replace("-", " ").split()
                if words[0].lower() in STOPWORDS:  # "His charts", "The library": not a name
                    words = words[1:]
                    name = " ".join(words)
                tokens = {stem(w) for w in words}
                if not words or tokens <= known:
                    continue
                # a name that says what the description is ("Nessa *Clinic*" for "the clinic founded by")
                kind_bonus = 0.5 if tokens & (wanted.content - known) else 0.0
                score = overlap + kind_bonus - 0.01 * order
                if best is None or score > best[0]:
                    best = (score, order, name, passage.chunk_id, sentence)
    if best is None or best[0] <= 0:
        return None
    _, _, entity, chunk_id, sentence = best
    query = " ".join([entity, *_surface(question, asked(question).attribute)])
    return Bridge(entity=entity, chunk_id=chunk_id, sentence=sentence, query=query)


def _surface(question: str, stems: Sequence[str]) -> list[str]:
    """The question's own words for ``stems`` (queries read better unstemmed)."""
    words = re.findall(r"[A-Za-z]+", question)
    out: list[str] = []
    for s in stems:
        match = next((w for w in words if stem(w) == s), s)
        if match not in out:
            out.append(match)
    return out


__all__ = ["Bridge", "describes_entity", "find_bridge"]
