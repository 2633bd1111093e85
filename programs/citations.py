"""Citation checks done in code: every ``[n]`` must name a passage of this run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from groundqa.text import MAX_CITATIONS, citation_numbers, split_sentences, strip_citations

_WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass
class SentenceCheck:
    """One sentence of the program's own answer and what its citations say (0-based ``index``).

    Not :class:`groundqa.metrics.citations.SentenceCitations`, which records how the metric *scored* a
    sentence (1-based, with the judge's verdicts); this one is the program's check before it answers.
    """

    index: int
    text: str
    cited: list[int] = field(default_factory=list)  # the first 3, in order
    out_of_range: list[int] = field(default_factory=list)
    ignored: list[int] = field(default_factory=list)  # beyond the first 3
    factual: bool = True

    @property
    def claim(self) -> str:
        return strip_citations(self.text)

    @property
    def valid(self) -> bool:
        return not self.out_of_range and (bool(self.cited) or not self.factual)


def is_factual(sentence: str) -> bool:
    """A sentence that states something: not a heading, table rule or short connective."""
    claim = strip_citations(sentence).strip()
    if not claim or claim.endswith(":") or set(claim) <= set("|-: "):
        return False
    return len(_WORD.findall(claim)) >= 3


def analyse(answer: str, n_passages: int) -> list[SentenceCheck]:
    """Split ``answer`` into sentences and check their citations against ``[1]..[n_passages]``."""
    checks: list[SentenceCheck] = []
    for index, sentence in enumerate(split_sentences(answer)):
        numbers = citation_numbers(sentence)
        counted, ignored = numbers[:MAX_CITATIONS], numbers[MAX_CITATIONS:]
        checks.append(
            SentenceCheck(
                index=index, text=sentence, cited=[n for n in counted if 1 <= n <= n_passages],
                out_of_range=[n for n in numbers if not 1 <= n <= n_passages], ignored=ignored,
                factual=is_factual(sentence),
            )
        )
    return checks


def citation_feedback(checks: list[SentenceCheck], n_passages: int) -> list[str]:
    """Messages naming every broken citation (empty when the citations are valid)."""
    messages: list[str] = []
    for check in checks:
        if check.out_of_range:
            bad = ", ".join(f"[{n}]" for n in check.out_of_range)
            messages.append(
                f"Sentence {check.index + 1} cites {bad}, which is not a passage; cite only [1]..[{n_passages}]."
            )
        elif check.factual and not check.cited:
            messages.append(
                f"Sentence {check.index + 1} ({check.claim[:60]!r}) has no citation; end it with the passage "
                "number(s) that support it, e.g. [1]."
            )
    return messages


def render(checks: list[SentenceCheck], keep: set[int] | None = None) -> str:
    """Re-assemble the answer from its sentences (all, or only the indices in ``keep``)."""
    return " ".join(c.text.strip() for c in checks if keep is None or c.index in keep).strip()
