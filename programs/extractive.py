"""The extractive fallback: the best-supported passage sentences, cited, marked ``extractive``.

Used when the LM cannot meet the hard citation contract. Each candidate sentence of the numbered
context is scored ``0.6 * cosine(question, sentence) + 0.4 * overlap`` where ``overlap`` is the share
of the question's content words found in the sentence (or its passage title), minus ``0.3`` when
the sentence cannot answer the kind of question asked; sentences that give instructions ("ignore
previous instructions…") are never candidates, and a passage's own ``[n]`` marks are removed (no year for *when*, no number for *how
many*; see :mod:`answer_checks`); the best sentences above ``floor`` are returned with their
passage number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from groundqa.store.embeddings import get_embedder
from groundqa.text import content_words, split_sentences, strip_citations

from .answer_checks import answer_problem
from .context import NumberedContext

# Sentences that address the reader instead of stating facts are never quoted as answers.
INSTRUCTION = re.compile(
    r"\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|prompts?|rules)\b|\byou are now\b|\bsystem prompt\b"
    r"|\b(answer|respond|reply|say) (that|with|only)\b", re.I)


@dataclass(frozen=True)
class ScoredSentence:
    score: float
    number: int  # the passage's [n]
    text: str


def rank_sentences(question: str, context: NumberedContext) -> list[ScoredSentence]:
    """Every sentence of the context scored against the question, best first."""
    candidates: list[tuple[int, str, str]] = []
    for number, passage in enumerate(context.passages, start=1):
        for raw in split_sentences(passage.text):
            sentence = strip_citations(raw)  # a passage's own [n] marks must not pose as our citations
            if len(content_words(sentence)) >= 3 and not INSTRUCTION.search(sentence):
                candidates.append((number, sentence, passage.title))
    if not candidates:
        return []
    asked = set(content_words(question))
    embedder = get_embedder()
    vectors = embedder.embed([question] + [s for _, s, _ in candidates])
    q = vectors[0]
    scored: list[ScoredSentence] = []
    for (number, sentence, title), vector in zip(candidates, vectors[1:], strict=True):
        cosine = sum(a * b for a, b in zip(q, vector, strict=True))
        words = set(content_words(sentence)) | set(content_words(title))
        overlap = len(asked & words) / len(asked) if asked else 0.0
        penalty = 0.3 if answer_problem(question, sentence) else 0.0
        scored.append(ScoredSentence(round(0.6 * cosine + 0.4 * overlap - penalty, 4), number, sentence))
    return sorted(scored, key=lambda s: s.score, reverse=True)


def extractive_answer(question: str, context: NumberedContext, max_sentences: int = 2,
                      floor: float = 0.35) -> tuple[str, list[ScoredSentence]]:
    """An answer made of the best-supported sentences, each cited; empty when none clears ``floor``."""
    chosen: list[ScoredSentence] = []
    for candidate in rank_sentences(question, context):
        if candidate.score < floor or len(chosen) >= max_sentences:
            break
        if candidate.text not in {c.text for c in chosen}:
            chosen.append(candidate)
    answer = " ".join(f"{c.text.rstrip()} [{c.number}]" for c in chosen)
    return answer, chosen
