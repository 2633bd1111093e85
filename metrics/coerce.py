"""Turn whatever a program returned, and whatever an example is, into groundqa's typed objects.

Predictions accepted by the metrics:

* a :class:`~groundqa.signatures.types.GroundedResult`;
* anything with a ``result`` attribute holding one (groundqa's programs return ``dspy.Prediction(result=...)``);
* a generic prediction (``dspy.Prediction``, dict or object) with ``answer`` and optionally ``abstained``,
  ``abstain_reason`` and ``passages`` / ``context`` (``Passage`` objects, ``{"title", "text"}`` dicts or
  strings; a single string of ``[1] ... [2] ...`` is split at the markers). For generic predictions an
  answer such as "NOT IN SOURCES", "I don't know" or "cannot be answered" counts as an abstention.

For every prediction an empty answer counts as an abstention (SQuAD 2.0: the empty string is "no answer").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from groundqa.datasets.loaders import Question
from groundqa.refusals import looks_like_abstention
from groundqa.signatures.types import AbstainReason, GroundedResult, Passage


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    try:
        value = getattr(obj, key)
    except (AttributeError, KeyError):
        return default
    return default if value is None else value


_MARKER = re.compile(r"(?:^|\n)\s*\[(\d+)\]\s*")


def _passages(raw: Any) -> list[Passage]:
    if raw is None:
        return []
    if isinstance(raw, str):
        pieces = _MARKER.split(raw)
        texts = [t.strip() for t in pieces[2::2]] if len(pieces) > 1 else [raw]
        raw = [t for t in texts if t]
    out: list[Passage] = []
    for i, item in enumerate(raw, start=1):
        if isinstance(item, Passage):
            out.append(item)
        elif isinstance(item, str):
            out.append(Passage(chunk_id=f"p{i}", doc_id=f"p{i}", text=item))
        elif isinstance(item, Mapping):
            out.append(Passage(
                chunk_id=str(item.get("chunk_id") or item.get("id") or f"p{i}"),
                doc_id=str(item.get("doc_id") or item.get("id") or f"p{i}"),
                title=str(item.get("title") or ""), text=str(item.get("text") or item.get("long_text") or ""),
            ))
        else:
            out.append(Passage(chunk_id=f"p{i}", doc_id=f"p{i}", text=str(item)))
    return out


def _reason(raw: Any) -> AbstainReason | None:
    if raw is None or isinstance(raw, AbstainReason):
        return raw
    try:
        return AbstainReason(str(raw).strip().lower())
    except ValueError:
        return None


def as_result(pred: Any, question: str = "") -> GroundedResult | None:
    """The :class:`GroundedResult` inside/behind ``pred``; ``None`` if ``pred`` is ``None`` or has no answer."""
    if pred is None:
        return None
    if isinstance(pred, GroundedResult):
        return pred
    inner = _get(pred, "result")
    if isinstance(inner, GroundedResult):
        return inner
    if isinstance(inner, Mapping) and "answer" in inner:
        return GroundedResult.model_validate({"question": question, **inner})
    answer = _get(pred, "answer")
    if answer is None:
        return None
    answer = str(answer)
    flag = _get(pred, "abstained")
    abstained = bool(flag) if flag is not None else False
    abstained = abstained or looks_like_abstention(answer)
    passages = _get(pred, "passages")
    if passages is None:
        passages = _get(pred, "context")
    return GroundedResult(
        question=str(_get(pred, "question", question) or question),
        answer=answer,
        passages=_passages(passages),
        abstained=abstained,
        abstain_reason=_reason(_get(pred, "abstain_reason")),
    )


def is_abstention(result: GroundedResult | None) -> bool:
    """The result abstained, or answered with nothing (an empty answer is "no answer")."""
    return result is not None and (result.abstained or not result.answer.strip())


def gold_of(example: Any) -> Question:
    """The gold :class:`Question` behind a ``dspy.Example``, a ``Question`` or a dict."""
    if isinstance(example, Question):
        return example
    data: dict[str, Any] = {}
    for key in ("id", "question", "answers", "should_abstain", "type", "gold_docs", "false_premise", "gold_pages"):
        value = _get(example, key)
        if value is not None:
            data[key] = value
    answers = data.get("answers")
    if isinstance(answers, str):
        data["answers"] = [answers]
    elif answers is not None and not isinstance(answers, list):
        data["answers"] = list(answers)
    if "answers" not in data:  # an example built by to_example has gold answers: its `answer` is a demo label
        single = _get(example, "answer")
        if isinstance(single, str) and single:
            data["answers"] = [single]
    data.setdefault("id", "")
    data.setdefault("question", "")
    return Question.model_validate(data)
