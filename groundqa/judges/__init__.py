"""Entailment judges behind one interface: ``judge(hypothesis, premises) -> Verdict``.

A layer of its own, below both users: the programs judge what they wrote (the synthesizer's support
check, the premise verifier) and the metrics judge what the programs returned (ALCE citation scores,
faithfulness). Programs -> judges -> store; metrics -> judges.

* :class:`OfflineJudge` (:mod:`.offline`) — deterministic, lexical (:mod:`.lexical`) + MiniLM; the
  default for tests and the embedded setup.
* :class:`LMJudge` (:mod:`.lm`) — asks the configured DSPy LM with :class:`groundqa.signatures.qa.JudgeClaim`.
* :func:`get_judge` (:mod:`.registry`) — ``"offline"`` | ``"lm"`` | ``"auto"`` (LM if one is configured, else offline).
"""

from groundqa.judges.base import EntailmentJudge, JudgeNotConfiguredError, Verdict
from groundqa.judges.lm import LMJudge
from groundqa.judges.offline import NEGATION_MISMATCH, OfflineJudge
from groundqa.judges.registry import clear_caches, get_judge, shared_offline_judge

__all__ = [
    "NEGATION_MISMATCH",
    "EntailmentJudge",
    "JudgeNotConfiguredError",
    "LMJudge",
    "OfflineJudge",
    "Verdict",
    "clear_caches",
    "get_judge",
    "shared_offline_judge",
]
