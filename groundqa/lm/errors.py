"""Errors of the LM layer that carry a message meant for the user."""

from groundqa.errors import GroundQAError


class LMBackendError(GroundQAError, RuntimeError):
    """The LM backend cannot be set up (unknown model, missing key, missing package)."""
