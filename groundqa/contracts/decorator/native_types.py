"""Native-type wrapping for ``@contract``: check (and wrap) values against a type annotation.

Supports what pydantic supports — ``str``, ``int``, ``list[int]``, ``dict[str, int]``,
``Optional``, ``Union``, ``Literal``, pydantic models (a dict is wrapped into the model) — plus
arbitrary classes by ``isinstance``. Validation is strict: ``"3"`` is not an ``int``.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from pydantic import ConfigDict, PydanticUserError, TypeAdapter, ValidationError

_UNCHECKED = (Any, object, inspect.Parameter.empty)


def coerce(value: Any, annotation: Any) -> tuple[Any, str | None]:
    """``(wrapped value, None)`` when ``value`` fits ``annotation``, else ``(value, problem)``."""
    if annotation in _UNCHECKED:
        return value, None
    try:
        return _adapter(annotation).validate_python(value, strict=True), None
    except ValidationError as exc:
        return value, _describe(exc)


def type_name(annotation: Any) -> str:
    """A short readable name of a type annotation."""
    if annotation in _UNCHECKED:
        return "Any"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _describe(exc: ValidationError) -> str:
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    text = f"{where}: {first['msg']}" if where else first["msg"]
    return text + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")


def _adapter(annotation: Any) -> TypeAdapter:
    try:
        return _cached_adapter(annotation)
    except TypeError:  # unhashable annotation
        return _build_adapter(annotation)


@functools.lru_cache(maxsize=256)
def _cached_adapter(annotation: Any) -> TypeAdapter:
    return _build_adapter(annotation)


def _build_adapter(annotation: Any) -> TypeAdapter:
    try:
        return TypeAdapter(annotation, config=ConfigDict(arbitrary_types_allowed=True))
    except PydanticUserError:  # models, dataclasses and TypedDicts carry their own config
        return TypeAdapter(annotation)
