"""Errors of the LM layer that carry a message meant for the user."""


class LMBackendError(RuntimeError):
    """The LM backend cannot be set up (unknown model, missing key, missing package)."""
