"""Answer correctness: SQuAD normalisation, exact match, token F1 and ALCE's STR-EM.

Gold ``answers`` are alternatives (SQuAD convention): every score is the maximum over them. Citation
marks are removed from the prediction before scoring (as ALCE does).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel

_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CITATION = re.compile(r"\s*\[\d+\]")


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower-case, drop punctuation and articles, collapse whitespace."""
    text = (text or "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def remove_citations(text: str) -> str:
    """``text`` without ``[n]`` marks."""
    return _CITATION.sub("", text or "")


def exact_match(prediction: str, gold: str) -> float:
    """1.0 iff the normalised strings are equal."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1; if either side is empty, 1.0 iff both are."""
    pred = normalize_answer(prediction).split()
    ref = normalize_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    common = Counter(pred) & Counter(ref)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred)
    recall = same / len(ref)
    return 2 * precision * recall / (precision + recall)


def str_em(prediction: str, golds: Sequence[str]) -> float:
    """ALCE STR-EM (``exact_presence``): 1.0 iff a normalised gold is a substring of the normalised answer."""
    context = normalize_answer(prediction)
    return float(any(normalize_answer(g) and normalize_answer(g) in context for g in golds))


class CorrectnessScores(BaseModel):
    """Correctness of one answer against alternative gold answers (``None`` without golds)."""

    exact_match: float | None = None
    token_f1: float | None = None
    str_em: float | None = None
    best_gold: str | None = None

    @property
    def correctness(self) -> float | None:
        """``max(token F1, STR-EM)``: the correctness term of the composite metric."""
        if self.token_f1 is None or self.str_em is None:
            return None
        return max(self.token_f1, self.str_em)


def correctness(prediction: str, golds: Sequence[str]) -> CorrectnessScores:
    """EM, token F1 and STR-EM of ``prediction`` (citations removed), maximised over ``golds``."""
    golds = [g for g in golds if g and g.strip()]
    if not golds:
        return CorrectnessScores()
    text = remove_citations(prediction)
    f1s = [token_f1(text, g) for g in golds]
    best = max(range(len(golds)), key=lambda i: f1s[i])
    return CorrectnessScores(
        exact_match=max(exact_match(text, g) for g in golds),
        token_f1=f1s[best],
        str_em=str_em(text, golds),
        best_gold=golds[best],
    )
