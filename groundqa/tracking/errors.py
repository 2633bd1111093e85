"""The tracking layer's user-facing error.

A missing or unreachable MLflow store, an unknown run, or a program that cannot be read for a diff
is the user's to fix, so it is a :class:`~groundqa.errors.GroundQAError` (one line, exit code 2).
"""

from __future__ import annotations

from groundqa.errors import GroundQAError


class TrackingError(GroundQAError):
    """The MLflow store, a run in it, or a compiled program to compare cannot be used; the message says why."""
