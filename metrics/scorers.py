"""The grounding metrics as ``mlflow.genai`` scorers: ``Feedback(value, rationale)`` per question.

``mlflow.genai.evaluate(data, predict_fn, scorers=grounding_scorers())`` puts one assessment per metric on
every question's trace, so MLflow's Evaluation runs page shows per-question grounding next to the traces.
The scorers do not re-implement anything: each reads one field of :func:`groundqa.metrics.composite.score_item`,
the same function ``dspy.Evaluate`` runs through :func:`groundqa.metrics.grounding_metric`, so both engines
give the same numbers on the same answers. ``score_item`` runs once per question (the scorers share an
:class:`ItemCache`), whatever the number of scorers.

What a scorer receives:

* ``outputs``: a :class:`~groundqa.signatures.types.GroundedResult` (or its JSON dict), ``{"error": ...}``
  for a question the program failed on, or any prediction :func:`groundqa.metrics.coerce.as_result` reads;
* ``expectations``: the gold fields of a question (``answers``, ``should_abstain``, ``type``, ``gold_docs``,
  ``false_premise``, ``id``), e.g. :func:`expectations_of`;
* ``inputs``: ``{"question": ...}``.

A metric that does not apply to a question (citation recall of an abstention, STR-EM of a question that
should be abstained on) is ``Feedback(value=None)`` with the reason; MLflow leaves those out of its means,
as :mod:`groundqa.metrics.aggregate` does. Abstention and premise detection are set-level metrics (F1) in
the report; per question the scorer says whether the decision was right (1/0), and MLflow's mean of it is
the decision accuracy.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from mlflow.entities import Feedback
from mlflow.genai.scorers import Scorer
from pydantic import PrivateAttr

from groundqa.datasets.loaders import Question
from groundqa.judges import EntailmentJudge, get_judge
from groundqa.metrics.coerce import gold_of
from groundqa.metrics.composite import ItemScores, score_item
from groundqa.signatures.types import GroundedResult

SCORERS: dict[str, str] = {
    "grounding_score": "the composite grounding metric (the optimizers' objective), in [0, 1]",
    "citation_recall": "ALCE citation recall: share of answer sentences fully supported by their citations",
    "citation_precision": "ALCE citation precision: share of citations that support their sentence",
    "faithfulness": "RAGAS-style faithfulness: share of the answer's claims entailed by the passages",
    "answer_correctness": "max(token F1, STR-EM) against the gold answers (SQuAD-normalised)",
    "str_em": "STR-EM: a gold answer appears in the answer",
    "abstention": "1 when the program abstained exactly when it should have",
    "premise_detection": "1 when the program flagged a false premise exactly when the question had one",
}
"""Scorer name -> what it measures, in display order."""

REPORT_METRIC = {"grounding_score": "score", "answer_correctness": "correctness"}
"""Scorer names that differ from the metric they read (``ItemScores``; ``score`` is the report's composite).
``answer_correctness`` is not called ``correctness``: MLflow's UI shows a scorer of that name as its own
yes/no correctness judge."""


class ItemCache:
    """``score_item`` results by (expectations, outputs): every scorer of a question reads one computation,
    and the evaluation report reads it too (thread-safe; MLflow scores questions in parallel)."""

    def __init__(self) -> None:
        self._items: dict[str, ItemScores] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self.seconds = 0.0

    @staticmethod
    def key(expectations: Mapping[str, Any] | None, outputs: Any) -> str:
        payload = json.dumps([_jsonable(expectations), _jsonable(outputs)], sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

    def get(self, key: str, compute: Callable[[], ItemScores]) -> ItemScores:
        with self._lock:
            if key in self._items:
                return self._items[key]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._lock:
                if key in self._items:
                    return self._items[key]
            import time

            started = time.perf_counter()
            item = compute()
            with self._lock:
                self._items[key] = item
                self.seconds += time.perf_counter() - started
            return item


def _jsonable(value: Any) -> Any:
    if isinstance(value, GroundedResult):
        return value.model_dump(mode="json")
    if hasattr(value, "toDict"):
        return {k: _jsonable(v) for k, v in value.toDict().items()}
    return value


def expectations_of(question: Question) -> dict[str, Any]:
    """The gold fields of ``question`` as an MLflow ``expectations`` dict (``None`` fields left out)."""
    data = {"id": question.id, "type": question.type, "answers": list(question.answers),
            "should_abstain": question.should_abstain, "gold_docs": list(question.gold_docs),
            "false_premise": question.false_premise}
    return {k: v for k, v in data.items() if v is not None}


def item_scores(outputs: Any, expectations: Mapping[str, Any] | None, question: str = "",
                judge: EntailmentJudge | str = "offline", cache: ItemCache | None = None) -> ItemScores:
    """Every score of one answer (``score_item`` with ``full=True``), through ``cache`` when given."""

    def compute() -> ItemScores:
        gold = gold_of({"question": question, **dict(expectations or {})})
        if isinstance(outputs, Mapping) and "answer" not in outputs and "result" not in outputs:
            return score_item(gold, None, judge, full=True, error=str(outputs.get("error") or "no answer"))
        prediction = outputs
        if isinstance(outputs, Mapping) and "answer" in outputs and "citations" in outputs:
            prediction = GroundedResult.model_validate({"question": question, **outputs})
        return score_item(gold, prediction, judge, full=True)

    if cache is None:
        return compute()
    return cache.get(ItemCache.key({"question": question, **dict(expectations or {})}, outputs), compute)


def _feedback(metric: str, item: ItemScores) -> Feedback:
    """The Feedback of ``metric`` read from ``item`` (what the report aggregates)."""
    field = REPORT_METRIC.get(metric, metric)
    if item.error is not None and metric not in ("abstention", "premise_detection", "grounding_score"):
        value = getattr(item, field, None) if metric in ("answer_correctness", "str_em") else None
        return Feedback(value=value, rationale=f"the program failed: {item.error}")
    if metric == "grounding_score":
        return Feedback(value=item.score, rationale=item.feedback)
    if metric in ("citation_recall", "citation_precision", "faithfulness"):
        value = getattr(item, metric)
        if value is None:
            why = "abstained" if item.abstained else "no answer"
            return Feedback(value=None, rationale=f"not applicable: {why} (scored on answered questions only)")
        detail = (f"{item.n_sentences} sentence(s), {item.n_citations} citation(s)"
                  + (f"; cites passages that do not exist: {item.out_of_range}" if item.out_of_range else ""))
        return Feedback(value=value, rationale=f"{SCORERS[metric]}: {value:.2f} ({detail})")
    if metric in ("answer_correctness", "str_em"):
        value = getattr(item, field)
        if value is None:
            return Feedback(value=None, rationale="not applicable: the question has no gold answer or should be "
                                                  "abstained on")
        return Feedback(value=value, rationale=f"exact match {item.exact_match:.0f}, token F1 {item.token_f1:.2f}, "
                                               f"STR-EM {item.str_em:.0f}" + (" (abstained: 0)" if item.abstained else ""))
    if metric == "abstention":
        right = item.abstained == item.should_abstain
        should = "should abstain" if item.should_abstain else "answerable"
        did = "abstained" if item.abstained else ("failed" if item.error else "answered")
        return Feedback(value=1.0 if right else 0.0, rationale=f"{should}; the program {did}")
    if metric == "premise_detection":
        right = item.premise_detected == item.false_premise
        gold = "has a false premise" if item.false_premise else "has no false premise"
        said = "flagged a false premise" if item.premise_detected else "did not flag a false premise"
        return Feedback(value=1.0 if right else 0.0, rationale=f"the question {gold}; the program {said}")
    raise ValueError(f"unknown grounding metric {metric!r}; choose one of {', '.join(SCORERS)}")


class GroundingScorer(Scorer):
    """One grounding metric as an ``mlflow.genai`` scorer (see the module docstring)."""

    metric: str
    _judge: Any = PrivateAttr(default="offline")
    _cache: ItemCache | None = PrivateAttr(default=None)

    def __call__(self, *, inputs: Any = None, outputs: Any = None, expectations: Any = None) -> Feedback:
        question = str((inputs or {}).get("question", "")) if isinstance(inputs, Mapping) else str(inputs or "")
        item = item_scores(outputs, expectations, question, self._judge, self._cache)
        return _feedback(self.metric, item)


def grounding_scorers(judge: EntailmentJudge | str = "offline", cache: ItemCache | None = None,
                      metrics: tuple[str, ...] | None = None) -> list[GroundingScorer]:
    """A scorer per grounding metric (``metrics``: a subset of :data:`SCORERS`), sharing ``judge`` and one
    :class:`ItemCache` so that each question is scored once."""
    judge_obj = get_judge(judge)
    cache = cache if cache is not None else ItemCache()
    chosen = metrics or tuple(SCORERS)
    scorers = []
    for metric in chosen:
        if metric not in SCORERS:
            raise ValueError(f"unknown grounding metric {metric!r}; choose one of {', '.join(SCORERS)}")
        s = GroundingScorer(name=metric, metric=metric, description=SCORERS[metric])
        s._judge, s._cache = judge_obj, cache
        scorers.append(s)
    return scorers


__all__ = ["SCORERS", "GroundingScorer", "ItemCache", "expectations_of", "grounding_scorers", "item_scores"]
