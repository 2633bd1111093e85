"""Feedback injection: on a retry, a target predictor sees its past outputs and the feedback.

The contract runs each attempt under ``dspy.context(adapter=<feedback adapter>)``. The feedback
adapter is the user's adapter (ChatAdapter by default) with ``__call__`` / ``acall`` overridden:
when the calling predictor has feedback planned for this attempt, it appends the input fields
``past_<output>`` and ``feedback`` to the signature and their values to the inputs, then hands
over to the user's adapter. Predictors themselves are never changed, and ``Predict`` records its
trace entry from its own keyword arguments, so the injected fields never reach the trace.
"""

from __future__ import annotations

import copy
import functools
import threading
from typing import Any

import dspy
from dspy.adapters.types.base_type import Type as DspyType
from dspy.dsp.utils.settings import settings

from groundqa.contracts.state import ContractCallState, Injection, current_contract_call

PAST_DESC = "Your previous {name}, which broke the constraints listed in the feedback."
FEEDBACK_DESC = (
    "Problems found in your previous attempt(s). Produce a new output that fixes every "
    "'must fix' item and, where possible, every 'should fix' item."
)

_MARK = "_groundqa_feedback_adapter"
_classes: dict[type, type] = {}
_classes_lock = threading.Lock()
_default_adapter: Any = None


def feedback_adapter(base: Any) -> Any:
    """The feedback-injecting version of ``base`` (``None``: DSPy's default ChatAdapter)."""
    global _default_adapter
    if base is None:
        if _default_adapter is None:
            _default_adapter = _wrap(dspy.ChatAdapter())
        return _default_adapter
    if getattr(base, _MARK, False):
        return base  # an enclosing contracted call already installed it; it serves every run
    return _wrap(base)


def _wrap(base: Any) -> Any:
    wrapped = copy.copy(base)
    wrapped.__class__ = _feedback_class(type(base))
    return wrapped


def _feedback_class(base_cls: type) -> type:
    """A subclass of ``base_cls`` whose calls inject feedback (cached per adapter class)."""
    cls = _classes.get(base_cls)
    if cls is not None:
        return cls

    def __call__(self: Any, lm: Any, lm_kwargs: dict[str, Any], signature: Any, demos: list[Any],  # noqa: N807
                 inputs: dict[str, Any]) -> Any:
        caller, lm_kwargs, signature, inputs = _prepare(lm, lm_kwargs, signature, inputs)
        try:
            return base_cls.__call__(self, lm, lm_kwargs, signature, demos, inputs)
        except Exception:
            _note_failure(caller)
            raise

    async def acall(self: Any, lm: Any, lm_kwargs: dict[str, Any], signature: Any, demos: list[Any],
                    inputs: dict[str, Any]) -> Any:
        caller, lm_kwargs, signature, inputs = _prepare(lm, lm_kwargs, signature, inputs)
        try:
            return await base_cls.acall(self, lm, lm_kwargs, signature, demos, inputs)
        except Exception:
            _note_failure(caller)
            raise

    with _classes_lock:
        cls = _classes.get(base_cls)
        if cls is None:
            # Same name as the base class: DSPy's streaming listeners look adapters up by class name.
            cls = type(
                base_cls.__name__,
                (base_cls,),
                {"__call__": __call__, "acall": acall, _MARK: True, "__module__": __name__,
                 "__qualname__": base_cls.__qualname__},
            )
            # Adapter.__init_subclass__ wraps format/parse with callbacks again: keep the parent's.
            for name in ("format", "parse"):
                if name in cls.__dict__:
                    delattr(cls, name)
            _classes[base_cls] = cls
    return cls


def _calling_predictor() -> Any:
    """The predictor whose call reached the adapter (innermost module being called)."""
    caller = settings.caller_predict
    if caller is None:
        modules = settings.caller_modules
        caller = modules[-1] if modules else None
    return caller


def _prepare(
    lm: Any, lm_kwargs: dict[str, Any], signature: Any, inputs: dict[str, Any]
) -> tuple[Any, dict[str, Any], Any, dict[str, Any]]:
    """(calling predictor, LM kwargs, signature, inputs), with feedback injected when planned."""
    run = current_contract_call()
    caller = _calling_predictor()
    if run is None or caller is None:
        return caller, lm_kwargs, signature, inputs
    run.last_caller = caller
    injection = run.injection_for(caller)
    if injection is None:
        return caller, lm_kwargs, signature, inputs
    signature, inputs = inject(signature, inputs, injection)
    return caller, _fresh_rollout(lm, lm_kwargs, injection), signature, inputs


def _note_failure(caller: Any) -> None:
    run: ContractCallState | None = current_contract_call()
    if run is not None and caller is not None:
        run.failed_caller = caller


def _fresh_rollout(lm: Any, lm_kwargs: dict[str, Any], injection: Injection) -> dict[str, Any]:
    """A new ``rollout_id`` per retry when sampling (temperature > 0); at 0 it has no effect."""
    defaults = getattr(lm, "kwargs", None) or {}
    temperature = lm_kwargs.get("temperature", defaults.get("temperature"))
    if not temperature or temperature <= 0 or injection.attempt < 2:
        return lm_kwargs
    base = lm_kwargs.get("rollout_id", defaults.get("rollout_id")) or 0
    return {**lm_kwargs, "rollout_id": base + injection.attempt - 1}


def inject(signature: Any, inputs: dict[str, Any], injection: Injection) -> tuple[Any, dict[str, Any]]:
    """Signature and inputs extended with ``past_<output>`` fields and ``feedback``."""
    past = injection.past
    past_names = tuple(name for name in signature.output_fields if past is not None and name in past)
    extended, names = _extended_signature(signature, past_names)
    values = dict(inputs)
    for output_name, field_name in zip(past_names, names[:-1], strict=True):
        value = past[output_name]
        if _is_dspy_type(signature.output_fields[output_name].annotation):
            value = str(value)
        values[field_name] = value
    values[names[-1]] = injection.feedback
    return extended, values


def _is_dspy_type(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, DspyType)


@functools.lru_cache(maxsize=512)
def _extended_signature(signature: Any, past_names: tuple[str, ...]) -> tuple[Any, tuple[str, ...]]:
    """(extended signature, names of the added fields: past fields then the feedback field)."""
    taken = set(signature.fields)
    added: list[str] = []
    for output_name in past_names:
        field_name = _free_name(f"past_{output_name}", taken)
        annotation = signature.output_fields[output_name].annotation
        if _is_dspy_type(annotation):
            annotation = str
        signature = signature.append(
            field_name, dspy.InputField(desc=PAST_DESC.format(name=output_name)), type_=annotation
        )
        added.append(field_name)
    feedback_name = _free_name("feedback", taken)
    signature = signature.append(feedback_name, dspy.InputField(desc=FEEDBACK_DESC), type_=str)
    added.append(feedback_name)
    return signature, tuple(added)


def _free_name(name: str, taken: set[str]) -> str:
    candidate = name if name not in taken else f"contract_{name}"
    while candidate in taken:
        candidate = f"contract_{candidate}"
    taken.add(candidate)
    return candidate
