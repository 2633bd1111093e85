"""Grounding metrics (ALCE citation recall/precision, faithfulness, correctness, abstention).

* :mod:`.citations` — ALCE citation recall / precision; :mod:`.faithfulness` — RAGAS-style faithfulness;
* :mod:`.correctness` — SQuAD EM / token F1, STR-EM; :mod:`.abstention` — abstention and premise detection;
* :mod:`.pages` — the gold-page-cited rate, where questions name gold pages (PDF corpora);
* the entailment judges they score with live in :mod:`groundqa.judges` (re-exported here);
* :mod:`.composite` — :func:`grounding_metric` for DSPy optimizers (score + feedback);
* :mod:`.aggregate` — every metric overall and per question type;
* :mod:`.scorers` — each metric as an ``mlflow.genai`` scorer (``grounding_scorers()``, loaded on first use).
"""

# to_example(s), the judges and looks_like_abstention live below the metrics (the programs use them
# too); they are re-exported here for compatibility.
from groundqa.datasets.examples import to_example, to_examples
from groundqa.judges import (
    EntailmentJudge,
    JudgeNotConfiguredError,
    LMJudge,
    OfflineJudge,
    Verdict,
    get_judge,
)
from groundqa.metrics.abstention import (
    abstention_scores,
    detects_false_premise,
    is_false_premise,
    premise_detection_scores,
)
from groundqa.metrics.aggregate import (
    METRICS,
    AggregateMetrics,
    GroupMetrics,
    aggregate,
    aggregate_scores,
    group_metrics,
)
from groundqa.metrics.citations import (
    MAX_CITATIONS,
    CitationScores,
    SentenceCitations,
    citation_scores,
    format_passage,
)
from groundqa.metrics.coerce import as_result, gold_of
from groundqa.metrics.composite import (
    GroundingScore,
    ItemScores,
    grounding_metric,
    make_grounding_metric,
    score_item,
)
from groundqa.metrics.correctness import (
    CorrectnessScores,
    correctness,
    exact_match,
    normalize_answer,
    str_em,
    token_f1,
)
from groundqa.metrics.faithfulness import FaithfulnessScore, answer_claims, faithfulness
from groundqa.metrics.pages import gold_page_cited
from groundqa.refusals import looks_like_abstention

_SCORER_NAMES = ("SCORERS", "GroundingScorer", "ItemCache", "expectations_of", "grounding_scorers", "item_scores")


def __getattr__(name: str) -> object:
    """The ``mlflow.genai`` scorers (:mod:`.scorers`) load on first use: importing MLflow takes seconds that
    a program using only the metrics should not pay."""
    if name in _SCORER_NAMES:
        from groundqa.metrics import scorers

        return getattr(scorers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "METRICS", "MAX_CITATIONS",
    "AggregateMetrics", "CitationScores", "CorrectnessScores", "EntailmentJudge", "FaithfulnessScore",
    "GroundingScore", "GroupMetrics", "ItemScores", "JudgeNotConfiguredError", "LMJudge", "OfflineJudge",
    "SentenceCitations", "Verdict",
    "abstention_scores", "aggregate", "aggregate_scores", "answer_claims", "as_result", "citation_scores",
    "correctness", "detects_false_premise", "exact_match", "faithfulness", "format_passage", "get_judge",
    "gold_of", "gold_page_cited", "grounding_metric", "group_metrics", "is_false_premise", "looks_like_abstention",
    "make_grounding_metric", "normalize_answer", "premise_detection_scores", "score_item", "str_em",
    "to_example", "to_examples", "token_f1",
]
