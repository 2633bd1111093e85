"""Picking a judge by name, and the one shared offline judge with its caches."""

from __future__ import annotations

import threading

import dspy

from groundqa.judges import answer_judge, lexical
from groundqa.judges.base import EntailmentJudge
from groundqa.judges.lm import LMJudge
from groundqa.judges.offline import OfflineJudge
from groundqa.judges.premise_units import parse_premise

_offline_lock = threading.Lock()
_offline: OfflineJudge | None = None


def shared_offline_judge() -> OfflineJudge:
    """The process-wide :class:`OfflineJudge` (one embedding and verdict cache for every caller)."""
    global _offline
    with _offline_lock:
        if _offline is None:
            _offline = OfflineJudge()
        return _offline


def get_judge(name: str | EntailmentJudge = "offline") -> EntailmentJudge:
    """A judge by name: ``"offline"`` (shared, cached instance), ``"lm"``, or ``"auto"``.

    ``"auto"`` gives the LM judge when ``dspy.settings.lm`` is set and the offline judge otherwise.
    A judge object is returned unchanged.
    """
    if not isinstance(name, str):
        return name
    key = name.strip().lower()
    if key == "auto":
        key = "lm" if dspy.settings.lm is not None else "offline"
    if key == "offline":
        return shared_offline_judge()
    if key == "lm":
        return LMJudge()
    raise ValueError(f"unknown judge {name!r}: expected 'offline', 'lm' or 'auto'")


def clear_caches() -> None:
    """Empty the judges' in-process memo caches (the shared offline judge's vectors and verdicts, the answer
    judges' margins, parsed premises, lexical features) so that a benchmark can start every program cold."""
    with _offline_lock:
        judge = _offline
    if judge is not None:
        judge.clear_memory()
    for cached in (lexical.features, lexical.token_features, parse_premise):
        cached.cache_clear()
    answer_judge.clear_memory_caches()
