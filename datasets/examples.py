"""Questions as ``dspy.Example`` objects: the one conversion the optimizers, the evaluation and the
metrics share.

An example carries every gold field of its :class:`~groundqa.datasets.loaders.Question` (the metrics
read them back with :func:`groundqa.metrics.coerce.gold_of`) and an ``answer``: the label a labelled
few-shot demo shows, i.e. the first gold answer, or the abstention phrase where the question should
be abstained on. The program itself only ever sees the input, ``question``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from groundqa.datasets.loaders import Question

if TYPE_CHECKING:
    import dspy


def to_example(question: Question) -> dspy.Example:
    """A ``dspy.Example`` with ``question`` as input and the gold fields for metrics (and ``answer``
    for labelled demos: the first gold answer, or the abstention phrase)."""
    import dspy

    from groundqa.signatures.qa import NOT_IN_SOURCES

    answer = question.answers[0] if question.answers and not question.should_abstain else NOT_IN_SOURCES
    return dspy.Example(
        id=question.id, question=question.question, answers=list(question.answers),
        should_abstain=question.should_abstain, type=question.type, gold_docs=list(question.gold_docs),
        false_premise=question.false_premise, answer=answer,
    ).with_inputs("question")


def to_examples(questions: Sequence[Question]) -> list[dspy.Example]:
    """:func:`to_example` over a list."""
    return [to_example(q) for q in questions]
