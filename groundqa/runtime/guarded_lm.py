"""The guarded LM: budgets, transient-error retries, tracing and replay around any DSPy LM.

Inside a run (:func:`groundqa.runtime.run.current_run`) every call is counted against the LM-call
budget and the deadline, transient failures are retried with backoff and jitter (counted as
retries), and the request/response is recorded in the run's trace. Outside a run it is a plain
pass-through, so a guarded LM can stay configured for optimizers and ``dspy.Evaluate``.

An LM reached over HTTP (a LiteLLM model string) gets a per-call ``timeout``: the run's remaining
wall-clock budget (at least :data:`MIN_CALL_TIMEOUT_S`). The deadline is otherwise checked only between
calls, so one slow call could outlive ``Budgets.timeout_s`` by its whole duration; with the timeout
the client gives up when the budget does, and a run ends within a few seconds of it. A timeout never
changes an answer, so it is kept out of DSPy's response-cache key (like the API key and base URL).
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import dspy
from dspy.utils.usage_tracker import UsageTracker

from groundqa.lm.token_sink import TOKEN_SINK
from groundqa.runtime.redact import redact_text
from groundqa.runtime.retry import backoff_delay, exit_reason_for, is_transient
from groundqa.runtime.run import RunStopped, current_run, current_stage
from groundqa.runtime.safe_text import has_lone_surrogates, scrub_surrogates
from groundqa.runtime.trace import LMCall, ReplayLM, ReplayMiss, request_key
from groundqa.signatures.types import ExitReason

MIN_CALL_TIMEOUT_S = 1.0
"""The shortest per-call timeout: a call made just before the deadline still gets a chance to finish."""

# DSPy's own adapters hand a guard OpenAI-style messages; forwarding them is not the caller's doing.
warnings.filterwarnings("ignore", message="Passing OpenAI-style message dictionaries", category=DeprecationWarning)


def _ignore_timeout_in_cache_keys() -> None:
    """DSPy's response cache keys every call setting except a few client settings; add ``timeout``, or a
    per-call timeout (different on every call) would make every cached answer unreachable."""
    try:
        from dspy.clients import execution
    except ImportError:  # pragma: no cover - another DSPy layout: caching still works, just keyed on it
        return
    ignored = getattr(execution, "IGNORED_CACHE_KEYS", None)
    if isinstance(ignored, list) and "timeout" not in ignored:
        ignored.append("timeout")


_ignore_timeout_in_cache_keys()


def takes_timeout(lm: Any) -> bool:
    """Whether ``lm`` accepts a per-call ``timeout``: a ``dspy.LM`` on a DSPy-owned HTTP engine (LiteLLM or
    lm15); custom engines (the embedded llama.cpp one, scripted LMs) own their connection and refuse it."""
    return isinstance(lm, dspy.LM) and isinstance(getattr(lm, "engine", None), str)


def scrub_outputs(outputs: list[Any]) -> list[Any]:
    """LM outputs with lone surrogates replaced (U+FFFD): a broken reply must not make the adapter, the
    embedder or the trace raise when they encode it."""
    return [_scrub_output(o) for o in outputs]


def _scrub_output(output: Any) -> Any:
    if isinstance(output, str):
        return scrub_surrogates(output)
    if isinstance(output, dict) and any(isinstance(v, str) and has_lone_surrogates(v) for v in output.values()):
        return {k: scrub_surrogates(v) if isinstance(v, str) else v for k, v in output.items()}
    return output


def _usage_of(tracker: UsageTracker) -> dict[str, int]:
    totals: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0}
    for usage in tracker.get_total_tokens().values():
        for key in totals:
            value = usage.get(key)
            if isinstance(value, int):
                totals[key] += value
    return totals if any(totals.values()) else {}


class GuardedLM(dspy.BaseLM):
    """Wraps ``inner`` (any ``dspy.BaseLM``); optionally serves answers from a recorded trace."""

    def __init__(self, inner: dspy.BaseLM, replay: ReplayLM | None = None) -> None:
        super().__init__(model=inner.model, model_type=inner.model_type, cache=inner.cache, num_retries=0)
        self.inner = inner
        self.replay = replay
        self.kwargs = inner.kwargs
        self._timeout = takes_timeout(inner)

    def __deepcopy__(self, memo: dict[int, Any]) -> GuardedLM:
        return self  # an LM is a shared resource, never copied with a program

    def call_timeout(self, run: Any) -> float | None:
        """The per-call timeout for the next call of ``run`` (its remaining budget), or ``None`` when the
        inner LM takes none (it runs in process)."""
        if not self._timeout or self.replay is not None:
            return None
        return max(MIN_CALL_TIMEOUT_S, run.budgets.timeout_s - run.elapsed_s)

    def _call_inner(self, prompt: Any, messages: Any, kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, int]]:
        if self.replay is not None:
            return self.replay.complete(messages, prompt)
        tracker = UsageTracker()
        with dspy.context(usage_tracker=tracker):
            outputs = self.inner(prompt, messages=messages, **kwargs)
        return outputs, _usage_of(tracker)

    def __call__(self, prompt: Any = None, *, messages: Any = None, **kwargs: Any) -> list[Any]:
        run = current_run()
        if run is None:
            return self._call_inner(prompt, messages, kwargs)[0]
        if run.stopped:  # e.g. an adapter falling back after a terminal error: do not call again
            raise RunStopped(run.exit_reason, run.exit_message)
        run.before_lm_call()
        if not run.use_cache:
            kwargs["cache"] = False
        key = request_key(messages, prompt)
        stage = current_stage()
        retry = 0
        run.usage.lm_calls += 1
        while True:
            started = time.perf_counter()
            sink = None
            if run.on_event is not None and stage == "answer":
                sink = lambda text: run.emit("token", text=text)  # noqa: E731
            token = TOKEN_SINK.set(sink)
            timeout = self.call_timeout(run)
            try:
                outputs, usage = self._call_inner(prompt, messages,
                                                  kwargs if timeout is None else {**kwargs, "timeout": timeout})
            except ReplayMiss:
                raise
            except RunStopped:
                raise
            except Exception as exc:
                latency = (time.perf_counter() - started) * 1000
                self._record(run, key, stage, messages, kwargs, [], {}, latency, False, retry, exc)
                if is_transient(exc) and retry < run.budgets.max_lm_retries:
                    retry += 1
                    run.usage.lm_retries += 1
                    delay = backoff_delay(retry, run.budgets.backoff_base_s, run.budgets.backoff_max_s,
                                          getattr(exc, "retry_after", None))
                    # never sleep past the deadline: the check below then ends the run on time
                    time.sleep(max(0.0, min(delay, run.budgets.timeout_s - run.elapsed_s + 0.01)))
                    run.check_deadline()
                    continue
                reason = exit_reason_for(exc)
                detail = f"{type(exc).__name__}: {redact_text(str(exc))[:300]}"
                if is_transient(exc):
                    detail += f" (after {retry} retries)"
                raise run.stop(reason, detail) from exc
            finally:
                TOKEN_SINK.reset(token)
            latency = (time.perf_counter() - started) * 1000
            # no completion at all (a provider with zero choices) reads as empty text: the adapter then
            # reports a format problem the contracts handle, instead of a prediction without fields
            outputs = scrub_outputs(list(outputs or [])) or [""]
            cache_hit = self.replay is None and not usage
            run.usage.prompt_tokens += usage.get("prompt_tokens", 0)
            run.usage.completion_tokens += usage.get("completion_tokens", 0)
            run.usage.lm_cache_hits += int(cache_hit)
            self._record(run, key, stage, messages, kwargs, outputs, usage, latency, cache_hit, retry, None)
            run.check_deadline()  # a call that ended past the deadline ends the run
            if not outputs or all(not (o.get("text") if isinstance(o, dict) else o) for o in outputs):
                run.note("the LM returned empty text")
            return outputs

    def _record(self, run: Any, key: str, stage: str, messages: Any, kwargs: dict[str, Any], outputs: list[Any],
                usage: dict[str, int], latency: float, cache_hit: bool, retry: int, error: Exception | None) -> None:
        if run.trace is None:
            return
        run.trace.add(
            LMCall, "lm", model=self.model, stage=stage, messages=list(messages or []),
            kwargs={k: v for k, v in kwargs.items() if isinstance(v, (str, int, float, bool)) and k != "api_key"},
            outputs=list(outputs), usage=usage, latency_ms=round(latency, 3), cache_hit=cache_hit, retry=retry,
            error=None if error is None else f"{type(error).__name__}: {error}", request_key=key,
        )


def unwrap(lm: Any) -> Any:
    """The LM inside any guard."""
    return lm.inner if isinstance(lm, GuardedLM) else lm


__all__ = ["GuardedLM", "unwrap", "ExitReason"]
