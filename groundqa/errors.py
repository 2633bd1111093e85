"""The one base class of user-facing errors.

Every layer raises its own subclass (configuration, store, dataset, program file, LM backend,
tracking, command line) so that callers can catch one kind; the command line catches this base
and prints the message as one line with exit code 2, never a traceback.
"""

from __future__ import annotations


class GroundQAError(Exception):
    """A user-facing error: printed as one line, exit code 2."""
