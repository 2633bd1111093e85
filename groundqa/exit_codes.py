"""Process exit codes of the command line, decided in one place.

A script that calls ``groundqa ask`` must tell three outcomes apart without parsing text:

* ``0`` -- the run completed: an answer, or a grounded abstention (``no_evidence``,
  ``premise_unsupported``, ``not_answered``, ...). Abstaining is a correct outcome, not a failure.
  A run stopped by a budget the user set (``MAX_LM_CALLS_REACHED``, ``MAX_RETRIEVALS_REACHED``,
  ``MAX_CONTEXT_REACHED``) also exits 0: it ended where it was told to, and says so
  (``abstain_reason: run_stopped``, ``exit: ...``).
* ``2`` -- bad input: an empty or invalid question, a bad flag, a missing or malformed file
  (:class:`groundqa.errors.GroundQAError`), before or instead of a run.
* ``3`` -- the run failed on the machinery it depends on: the LM (an error, rate limiting, a timeout,
  no usable answer) or the vector store. Trying again later, or with another LM, may succeed.

``groundqa serve`` answers over HTTP and keeps its own status codes; ``groundqa evaluate`` reports
failed questions and exits 0 unless every question failed (see :func:`evaluation_exit_code`).
"""

from __future__ import annotations

from collections.abc import Iterable

from groundqa.signatures.types import ExitReason

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_RUN_FAILED = 3
EXIT_INTERRUPTED = 130

RUN_FAILURES: frozenset[ExitReason] = frozenset({
    ExitReason.RATE_LIMITED, ExitReason.LM_ERROR, ExitReason.TIMEOUT, ExitReason.RETRIEVAL_ERROR,
    ExitReason.LM_GENERATION_FAILURE,
})
"""Exit reasons of a run that failed on the LM or the store (exit code 3)."""

BAD_INPUT: frozenset[ExitReason] = frozenset({ExitReason.EMPTY_INPUT, ExitReason.INVALID_INPUT})
"""Exit reasons of a question rejected by the pre-contract (exit code 2)."""

EXIT_CODES: dict[ExitReason, int] = {
    reason: EXIT_RUN_FAILED if reason in RUN_FAILURES else EXIT_USAGE if reason in BAD_INPUT else EXIT_OK
    for reason in ExitReason
}
"""The exit code of every exit reason (the set is closed: each reason has exactly one code)."""


def _reason(reason: ExitReason | str) -> ExitReason:
    return reason if isinstance(reason, ExitReason) else ExitReason(reason)


def exit_code_for(reason: ExitReason | str) -> int:
    """The process exit code of a run that ended with ``reason``."""
    return EXIT_CODES[_reason(reason)]


def run_failed(reason: ExitReason | str | None) -> bool:
    """Whether a run that ended with ``reason`` failed on the LM or the store (``None``: it raised)."""
    return reason is None or _reason(reason) in RUN_FAILURES


def evaluation_exit_code(reasons: Iterable[ExitReason | str | None]) -> int:
    """``groundqa evaluate``: 0 when it completed and reported (failed questions are counted in the
    report), 3 when every question failed (nothing was evaluated)."""
    reasons = list(reasons)
    return EXIT_RUN_FAILED if reasons and all(run_failed(r) for r in reasons) else EXIT_OK


__all__ = ["BAD_INPUT", "EXIT_CODES", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_RUN_FAILED", "EXIT_USAGE", "RUN_FAILURES",
           "evaluation_exit_code", "exit_code_for", "run_failed"]
