"""``constrained``: run a DSPy module under its Assert / Suggest / Constraint contract."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

import dspy
from dspy.utils.exceptions import AdapterParseError

from groundqa.contracts.constraints import Constraint
from groundqa.contracts.errors import ContractDefinitionError
from groundqa.contracts.options import ContractOptions, Policy, SoftKeep
from groundqa.contracts.runner import arun_contract, run_contract

M = TypeVar("M", bound=dspy.Module)

_WRAPPER_MARK = "_contract_wrapper"
_subclasses: dict[type, type] = {}
_subclasses_lock = threading.Lock()


@overload
def constrained(module: M, /, **options: Any) -> M: ...
@overload
def constrained(module: type[M], /, **options: Any) -> type[M]: ...
@overload
def constrained(module: None = None, /, **options: Any) -> Callable[[Any], Any]: ...


def constrained(
    module: Any = None,
    /,
    *,
    max_attempts: int = 3,
    policy: Policy = "raise",
    fallback: Callable[..., Any] | None = None,
    accumulate_errors: bool = True,
    soft_keep: SoftKeep = "best",
    constraints: Iterable[Constraint] = (),
    retry_on: Iterable[type[BaseException]] = (AdapterParseError,),
) -> Any:
    """Enforce the module's constraints: retry with feedback, then apply ``policy``.

    Works three ways: ``constrained(MyModule(), ...)`` returns a constrained shallow copy that
    shares the original predictors (same names, same objects, so optimizers map traces to them);
    ``@constrained(...)`` on a ``dspy.Module`` subclass constrains every instance; bare
    ``@constrained`` uses the defaults. See :class:`ContractOptions` for the options;
    ``fallback`` is called as ``fallback(*args, attempts=[AttemptRecord, ...], **kwargs)``.
    """
    options = ContractOptions(
        max_attempts=max_attempts,
        policy=policy,
        fallback=fallback,
        accumulate_errors=accumulate_errors,
        soft_keep=soft_keep,
        constraints=tuple(constraints),
        retry_on=tuple(retry_on),
    )
    if module is None:
        return lambda target: _apply(target, options)
    return _apply(module, options)


def _apply(target: Any, options: ContractOptions) -> Any:
    if isinstance(target, type) and issubclass(target, dspy.Module):
        return _constrain_class(target, options)
    if isinstance(target, dspy.Module):
        return _constrain_instance(target, options)
    raise ContractDefinitionError(
        f"constrained() takes a dspy.Module instance or subclass, not {type(target).__name__}."
    )


def _constrain_class(cls: type[M], options: ContractOptions) -> type[M]:
    """Patch ``cls`` in place (it stays importable and picklable under its own name)."""
    _require_forward(cls)
    cls.forward = _forward_wrapper(_unwrapped(cls.forward))  # type: ignore[method-assign]
    if getattr(cls, "aforward", None) is not None:
        cls.aforward = _aforward_wrapper(_unwrapped(cls.aforward))  # type: ignore[attr-defined]
    cls._contract_options = options  # type: ignore[attr-defined]
    return cls


def _constrain_instance(module: M, options: ContractOptions) -> M:
    """A shallow copy of ``module`` whose class runs the contract; predictors are shared."""
    clone = copy.copy(module)
    clone.__class__ = _constrained_subclass(type(module))
    clone.history = []
    clone.callbacks = list(getattr(module, "callbacks", []) or [])
    clone._contract_options = options
    return clone


def _constrained_subclass(cls: type) -> type:
    """The cached run-time subclass of ``cls`` whose forward runs the contract."""
    if "_contract_name" in vars(cls):  # already one of ours: derive from the user's class again
        cls = cls.__mro__[1]
    found = _subclasses.get(cls)
    if found is not None:
        return found
    _require_forward(cls)
    namespace: dict[str, Any] = {
        "forward": _forward_wrapper(_unwrapped(cls.forward)),
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "_contract_name": cls.__name__,
    }
    if getattr(cls, "aforward", None) is not None:
        namespace["aforward"] = _aforward_wrapper(_unwrapped(cls.aforward))
    with _subclasses_lock:
        found = _subclasses.get(cls)
        if found is None:
            found = type(cls.__name__, (cls,), namespace)
            _subclasses[cls] = found
    return found


def _require_forward(cls: type) -> None:
    if getattr(cls, "forward", None) is None:
        raise ContractDefinitionError(f"{cls.__name__} has no forward method to constrain.")


def _unwrapped(method: Callable[..., Any]) -> Callable[..., Any]:
    """The user's method under a contract wrapper (so constraining twice never nests)."""
    while getattr(method, _WRAPPER_MARK, False):
        method = method.__wrapped__  # type: ignore[attr-defined]
    return method


def _name(module: dspy.Module) -> str:
    return getattr(type(module), "_contract_name", None) or type(module).__name__


def _forward_wrapper(original: Callable[..., Any]) -> Callable[..., Any]:
    def forward(self: dspy.Module, *args: Any, **kwargs: Any) -> Any:
        return run_contract(
            self, _name(self), self._contract_options, lambda: original(self, *args, **kwargs), args, kwargs
        )

    forward.__doc__ = original.__doc__
    forward.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(forward, _WRAPPER_MARK, True)
    return forward


def _aforward_wrapper(original: Callable[..., Any]) -> Callable[..., Any]:
    async def aforward(self: dspy.Module, *args: Any, **kwargs: Any) -> Any:
        return await arun_contract(
            self, _name(self), self._contract_options, lambda: original(self, *args, **kwargs), args, kwargs
        )

    aforward.__doc__ = original.__doc__
    aforward.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(aforward, _WRAPPER_MARK, True)
    return aforward
