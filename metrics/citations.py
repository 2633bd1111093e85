"""Citation recall and precision exactly as ALCE (Gao et al. 2023, ``eval.py::compute_autoais``).

Per answer (answered items only):

* the answer is split into sentences (:func:`groundqa.text.split_sentences`); a sentence's
  hypothesis is the sentence with its citation marks removed (:func:`groundqa.text.strip_citations`);
* a sentence with no citation, or with any cited number that names no passage, is unsupported, and
  (as in ALCE) its citations do **not** enter the precision denominator — the range check runs on
  *all* cited numbers, before the cap;
* otherwise only the first ``max_citations`` (3) citations count; they enter the denominator and the
  sentence is supported iff the cited passages *jointly* entail the hypothesis;
* recall = supported sentences / sentences;
* in a supported sentence with one citation that citation is relevant; with several, a citation is
  irrelevant iff it alone does not entail the sentence **and** the remaining citations still do;
  precision = relevant citations / counted citations, and 0 when no citation was counted.

Deviations from ALCE's script, all deliberate:

* sentences come from groundqa's own splitter (ALCE: NLTK ``sent_tokenize`` on the first line of
  the output only); bullets, tables and paragraphs are therefore all scored;
* a number cited twice in one sentence counts once (ALCE's regex counts ``[1][1]`` as two citations);
* ``[0]`` is out of range (ALCE's ``ref_id = 0 - 1 = -1`` silently indexes the last passage);
* an empty answer has no sentences and gets ``None`` for both scores (ALCE skips such items); the
  callers treat an empty answer as an abstention;
* the entailment judge is pluggable (ALCE: the 11B TRUE NLI model), see :mod:`groundqa.judges`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from groundqa.judges import EntailmentJudge
from groundqa.text import MAX_CITATIONS, citation_numbers, split_sentences, strip_citations


def format_passage(title: str, text: str) -> str:
    """A passage as a judge premise: ``"Title: <title>\\n<text>"`` (ALCE's ``_format_document``)."""
    title = (title or "").strip()
    return f"Title: {title}\n{text}" if title else text


def passage_texts(passages: Sequence[Any]) -> list[str]:
    """Premise strings for ``Passage`` objects, ``{"title", "text"}`` dicts or plain strings."""
    out: list[str] = []
    for p in passages:
        if isinstance(p, str):
            out.append(p)
        elif isinstance(p, dict):
            out.append(format_passage(str(p.get("title", "")), str(p.get("text", ""))))
        else:
            out.append(format_passage(getattr(p, "title", "") or "", getattr(p, "text", "") or str(p)))
    return out


def _warm_up(judge: EntailmentJudge, hypotheses: Sequence[str], premises: Sequence[str]) -> None:
    """Let a judge that supports it (the offline judge) embed everything in one batch."""
    warm_up = getattr(judge, "warm_up", None)
    if callable(warm_up):
        warm_up([*hypotheses, *premises])


class SentenceCitations(BaseModel):
    """How the metric scored one sentence of an answer (the program's own pre-answer check of a
    sentence is :class:`groundqa.programs.citations.SentenceCheck`)."""

    index: int = Field(description="1-based position of the sentence in the answer")
    sentence: str
    hypothesis: str
    cited: list[int] = Field(default_factory=list, description="every cited number, in order")
    counted: list[int] = Field(default_factory=list, description="citations that enter precision (first 3)")
    out_of_range: list[int] = Field(default_factory=list)
    supported: bool = False
    relevant: list[int] = Field(default_factory=list)
    irrelevant: list[int] = Field(default_factory=list)
    rationale: str = ""


class CitationScores(BaseModel):
    """ALCE citation recall / precision of one answer, with the per-sentence detail."""

    recall: float | None = None
    precision: float | None = None
    n_sentences: int = 0
    n_supported: int = 0
    n_citations: int = Field(0, description="precision denominator: counted citations")
    n_relevant: int = 0
    sentences: list[SentenceCitations] = Field(default_factory=list)

    @property
    def out_of_range(self) -> list[int]:
        return sorted({n for s in self.sentences for n in s.out_of_range})


def citation_scores(
    answer: str,
    passages: Sequence[Any],
    judge: EntailmentJudge,
    max_citations: int = MAX_CITATIONS,
) -> CitationScores:
    """ALCE citation recall and precision of ``answer`` against its numbered ``passages``.

    ``passages[n-1]`` is what ``[n]`` cites; they may be ``Passage`` objects, dicts or strings.
    """
    texts = passage_texts(passages)
    sentences = split_sentences(answer or "")
    if not sentences:
        return CitationScores()
    _warm_up(judge, [strip_citations(s) for s in sentences], texts)
    details: list[SentenceCitations] = []
    supported_total = 0
    relevant_total = 0
    counted_total = 0
    for position, sentence in enumerate(sentences, start=1):
        hypothesis = strip_citations(sentence)
        cited = citation_numbers(sentence)
        detail = SentenceCitations(index=position, sentence=sentence, hypothesis=hypothesis, cited=cited)
        details.append(detail)
        if not cited:
            detail.rationale = "no citation"
            continue
        detail.out_of_range = [n for n in cited if n < 1 or n > len(texts)]
        if detail.out_of_range:
            detail.rationale = "cites a passage that does not exist"
            continue
        refs = cited[:max_citations]
        detail.counted = refs
        counted_total += len(refs)
        joint = judge.judge(hypothesis, [texts[n - 1] for n in refs])
        detail.rationale = joint.rationale
        if not joint.entailed:
            continue
        detail.supported = True
        supported_total += 1
        if len(refs) == 1:
            detail.relevant = list(refs)
        else:
            for n in refs:
                alone = judge.judge(hypothesis, [texts[n - 1]])
                if alone.entailed:
                    detail.relevant.append(n)
                    continue
                rest = judge.judge(hypothesis, [texts[m - 1] for m in refs if m != n])
                if rest.entailed:
                    detail.irrelevant.append(n)
                else:
                    detail.relevant.append(n)
        relevant_total += len(detail.relevant)
    return CitationScores(
        recall=supported_total / len(sentences),
        precision=relevant_total / counted_total if counted_total else 0.0,
        n_sentences=len(sentences),
        n_supported=supported_total,
        n_citations=counted_total,
        n_relevant=relevant_total,
        sentences=details,
    )
