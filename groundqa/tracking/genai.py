"""``groundqa evaluate --engine mlflow``: the questions through ``mlflow.genai.evaluate`` with the grounding
scorers (:mod:`groundqa.metrics.scorers`), so the Evaluation runs page shows every question's trace with
its grounding assessments.

The program runs once per question inside MLflow's harness; every answer is scored by the same
``score_item`` as the default ``dspy.Evaluate`` engine (one computation per question, shared by all
scorers through an :class:`~groundqa.metrics.scorers.ItemCache`), and the results come back in the shape
``dspy.Evaluate`` gives (example, prediction, score), so :func:`groundqa.evaluation.evaluate` builds the
same report from either engine.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import dspy

from groundqa.datasets.examples import to_example
from groundqa.datasets.loaders import Question
from groundqa.judges import EntailmentJudge
from groundqa.metrics.composite import GroundingScore


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    """Set environment variables for the block (MLflow reads its evaluation knobs from there)."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def genai_evaluate(program: Callable[..., dspy.Prediction], questions: Sequence[Question],
                   judge: EntailmentJudge, threads: int = 1) -> tuple[list[tuple[Any, Any, Any]], float]:
    """Run ``program(question=...)`` (a prediction with ``result``/``error``/``latency_s``, as
    :class:`groundqa.evaluation._SafeProgram` returns) on ``questions`` with ``mlflow.genai.evaluate``.

    Returns ``[(example, prediction, GroundingScore)]`` in question order and the seconds spent scoring.
    Uses the active MLflow run (one is started when there is none). ``program`` should make one MLflow
    trace per call (:class:`groundqa.tracking.traces.TracedProgram`).
    """
    import mlflow

    from groundqa.metrics.scorers import ItemCache, expectations_of, grounding_scorers, item_scores

    questions = list(questions)
    by_id = {q.id: q for q in questions}
    predictions: dict[str, Any] = {}
    lock = threading.Lock()

    def predict(question: str, question_id: str = "") -> dict[str, Any]:
        pred = program(question=question)
        with lock:
            predictions[question_id] = pred
        result = pred.get("result")
        if result is not None:
            return result.model_dump(mode="json")
        return {"error": pred.get("error") or "the program returned no answer"}

    cache = ItemCache()
    scorers = grounding_scorers(judge, cache)
    data = [{"inputs": {"question": q.question, "question_id": q.id}, "expectations": expectations_of(q)}
            for q in questions]
    # DSPy's own tracing would add a second copy of every LM call to the traces made from the records.
    mlflow.dspy.autolog(disable=True, silent=True)
    workers = str(max(1, int(threads)))
    with _environment(MLFLOW_GENAI_EVAL_MAX_WORKERS=workers, MLFLOW_GENAI_EVAL_MAX_SCORER_WORKERS=workers,
                      MLFLOW_GENAI_EVAL_SKIP_TRACE_VALIDATION="true"):
        mlflow.genai.evaluate(data=data, predict_fn=predict, scorers=scorers)

    results: list[tuple[Any, Any, Any]] = []
    for question in questions:
        pred = predictions.get(question.id) or dspy.Prediction(result=None, error="mlflow.genai.evaluate did not "
                                                               "call the program", latency_s=0.0)
        result = pred.get("result")
        outputs = result.model_dump(mode="json") if result is not None else {
            "error": pred.get("error") or "the program returned no answer"}
        item = item_scores(outputs, expectations_of(by_id[question.id]), question.question, judge, cache)
        score = GroundingScore(score=item.score, feedback=item.feedback)
        score._item = item
        results.append((to_example(question), pred, score))
    return results, cache.seconds
