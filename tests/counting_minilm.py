"""The real MiniLM with a record of what it encodes: shared by the tests that count what reaches the model."""

from __future__ import annotations

from typing import Any


class CountingModel:
    """Wraps the real MiniLM encoder and records the texts it encodes."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.encoded: list[str] = []

    def encode(self, texts: list[str], **kwargs: Any) -> Any:
        self.encoded.extend(texts)
        return self.model.encode(texts, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)
