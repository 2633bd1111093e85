"""``@contract`` on a DSPy module class: pipeline, remedies, native types, binding, perf stats.

No ``from __future__ import annotations`` here: the classes are built inside functions, and
``@contract`` reads real annotation objects from them.
"""

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional, Union

import dspy
import pytest
from pydantic import BaseModel

from groundqa.contracts import (
    ContractConfigurationError,
    ContractDefinitionError,
    ContractError,
    contract,
)
from groundqa.contracts.decorator import schedule as retry_module
from groundqa.contracts.decorator.perf import STAGES, PerfRecorder
from groundqa.contracts.decorator.schedule import RetrySchedule
from groundqa.lm.scripted import ScriptedPrompt, scripted_lm


class Summary(BaseModel):
    text: str
    words: int


def sequence(*outputs: Any):
    """Answer ``output`` with the given values in turn (the last repeats); raw strings pass as is."""
    lock, state = threading.Lock(), {"n": 0}

    def respond(prompt: ScriptedPrompt) -> Any:
        with lock:
            index = state["n"]
            state["n"] += 1
        value = outputs[min(index, len(outputs) - 1)]
        return {"output": value}

    return respond


def summarizer(**knobs: Any) -> type:
    @contract(**knobs)
    class Summarize(dspy.Module):
        prompt = "Summarize the text in at most 3 words."

        def __init__(self) -> None:
            super().__init__()
            self.seen: list[Any] = []

        def pre(self, input: str) -> None:
            if not input.strip():
                raise ValueError("The text is empty.")

        def post(self, output: Summary) -> None:
            if output.words > 3:
                raise ValueError(f"The summary has {output.words} words; use at most 3.")

        def forward(self, text: str) -> Summary:
            self.seen.append((text, self.contract_successful, self.contract_exception))
            if self.contract_successful:
                return self.contract_result
            return Summary(text=text[:10], words=1)

    return Summarize


def call(module: dspy.Module, lm: Any, *args: Any, **kwargs: Any) -> Any:
    with dspy.context(lm=lm):
        return module(*args, **kwargs)


# -- pipeline ----------------------------------------------------------------------------------
def test_success_passes_the_validated_candidate_to_forward() -> None:
    lm = scripted_lm(sequence({"text": "short", "words": 1}))
    module = summarizer()()
    result = call(module, lm, "a long text")
    assert result == Summary(text="short", words=1)
    assert module.seen == [("a long text", True, None)]
    assert module.contract_successful and module.contract_result == result  # this context's last call


def test_post_remedy_regenerates_with_the_failure_message_and_past_output() -> None:
    lm = scripted_lm(sequence({"text": "far too many words", "words": 4}, {"text": "ok", "words": 1}))
    module = summarizer(post_remedy=True, tries=3)()
    assert call(module, lm, "text") == Summary(text="ok", words=1)
    retry = lm.scripted.prompts[1].inputs
    assert "The summary has 4 words; use at most 3." in retry["feedback"]
    assert '"words": 4' in retry["past_output"]


def test_without_post_remedy_a_failed_post_goes_to_forward_as_a_failure() -> None:
    lm = scripted_lm(sequence({"text": "far too many words", "words": 4}, {"text": "ok", "words": 1}))
    module = summarizer(post_remedy=False)()
    assert call(module, lm, "original input") == Summary(text="original i", words=1)
    assert len(lm.scripted.prompts) == 1
    _, successful, exception = module.seen[0]
    assert not successful and isinstance(exception, ContractError)
    assert exception.stage == "output_validation" and exception.messages == ["The summary has 4 words; use at most 3."]


def test_a_stale_candidate_is_never_returned_as_a_success() -> None:
    # Attempt 1: well typed but fails post. Attempt 2: not even a Summary. The contract must fail,
    # not fall back to attempt 1's candidate (the seed's bug).
    lm = scripted_lm(sequence({"text": "too many words here", "words": 4}, "not json at all"))
    module = summarizer(post_remedy=True, tries=2)()
    call(module, lm, "input")
    _, successful, exception = module.seen[0]
    assert not successful and module.contract_result is None
    assert [a.outcome for a in exception.attempts] == ["halted", "error"]
    assert [a.violations[0].key for a in exception.attempts] == ["post", "error:AdapterParseError"]


def test_pre_failure_skips_generation_and_forward_gets_the_original_input() -> None:
    lm = scripted_lm(sequence({"text": "x", "words": 1}))
    module = summarizer()()
    assert call(module, lm, input="   ") == Summary(text="   ", words=1)
    assert lm.scripted.prompts == []
    _, successful, exception = module.seen[0]
    assert not successful and exception.stage == "input_validation"
    assert exception.messages == ["The text is empty."]


def test_pre_remedy_repairs_the_input_with_the_remedy_lm_outside_the_trace() -> None:
    remedy = scripted_lm(lambda p: {"repaired_text": "fixed text"})
    main = scripted_lm(sequence({"text": "fine", "words": 1}))
    module = summarizer(pre_remedy=True, tries=2, remedy_lm=remedy)()
    trace: list[Any] = []
    with dspy.context(lm=main, trace=trace):
        assert module(" ") == Summary(text="fine", words=1)
    assert "The text is empty." in remedy.scripted.prompts[0].inputs["problems"]
    assert main.scripted.prompts[0].inputs["text"] == "fixed text"
    assert module.seen[0][0] == "fixed text"  # forward receives the processed input on success
    assert [p for p, _, _ in trace] == [module.contract_generator]


def test_act_transforms_the_input_given_to_the_generator() -> None:
    @contract
    class Shout(dspy.Module):
        """Answer in capitals."""

        def act(self, input: str) -> list[str]:
            return input.split()

        def forward(self, text: str) -> str:
            return self.contract_result if self.contract_successful else "FAILED"

    lm = scripted_lm(sequence("A B"))
    module = Shout()
    assert call(module, lm, text="a b") == "A B"
    assert lm.scripted.prompts[0].inputs["text"] == '["a", "b"]'
    stats = module.contract_perf_stats()
    assert stats["act"]["count"] == 1


def test_act_returning_the_wrong_type_fails_the_contract() -> None:
    @contract
    class Bad(dspy.Module):
        """Do it."""

        def act(self, input: str) -> int:
            return "not an int"  # type: ignore[return-value]

        def forward(self, text: str) -> str:
            return "ok" if self.contract_successful else f"failed: {self.contract_exception.stage}"

    assert call(Bad(), scripted_lm(sequence("x")), "t") == "failed: act"


def test_an_lm_error_fails_the_contract_but_forward_still_runs() -> None:
    def down(prompt: ScriptedPrompt) -> Any:
        raise RuntimeError("LM down")

    module = summarizer()()
    assert call(module, scripted_lm(down), "some text") == Summary(text="some text", words=1)
    _, successful, exception = module.seen[0]
    assert not successful and exception.stage == "output_validation" and "LM down" in str(exception)


# -- native types and binding --------------------------------------------------------------------
def typed(input_type: Any, output_type: Any) -> type:
    @contract(tries=1)
    class Typed(dspy.Module):
        prompt = "Transform the value."

        def forward(self, value: input_type) -> output_type:
            if not self.contract_successful:
                raise AssertionError(str(self.contract_exception))
            return self.contract_result

    return Typed


@pytest.mark.parametrize(
    ("input_type", "value", "output_type", "lm_output", "expected"),
    [
        (str, "abc", str, "xyz", "xyz"),
        (int, 3, int, 42, 42),
        (list[int], [1, 2], list[int], [3, 4], [3, 4]),
        (dict[str, int], {"a": 1}, dict[str, int], {"b": 2}, {"b": 2}),
        (Optional[int], None, Optional[int], None, None),  # noqa: UP045
        (Union[int, str], "s", Union[int, str], 7, 7),  # noqa: UP007
        (Summary, {"text": "t", "words": 1}, Summary, {"text": "u", "words": 2}, Summary(text="u", words=2)),
    ],
)
def test_native_types_are_generated_and_checked(
    input_type: Any, value: Any, output_type: Any, lm_output: Any, expected: Any
) -> None:
    assert call(typed(input_type, output_type)(), scripted_lm(sequence(lm_output)), value) == expected


@pytest.mark.parametrize(
    ("input_type", "value"), [(int, "3"), (list[int], ["1"]), (dict[str, int], {"a": "x"}), (Summary, {"text": 1})]
)
def test_inputs_of_the_wrong_type_are_rejected_before_any_lm_call(input_type: Any, value: Any) -> None:
    lm = scripted_lm(sequence("unused"))
    with pytest.raises(AssertionError, match="The input is not a valid"):
        call(typed(input_type, str)(), lm, value)
    assert lm.scripted.prompts == []


def test_an_lm_output_of_the_wrong_type_is_retried_with_feedback() -> None:
    @contract(tries=2)
    class Count(dspy.Module):
        """Count the words."""

        def forward(self, text: str) -> int:
            return self.contract_result if self.contract_successful else -1

    lm = scripted_lm(sequence("many", "many", 3))  # ChatAdapter, its JSON fallback, then the retry
    assert call(Count(), lm, "one two three") == 3
    assert len(lm.scripted.prompts) == 3
    assert "could not be used" in lm.scripted.prompts[2].inputs["feedback"]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [(("x",), {"extra": 1}), ((), {"text": "x", "extra": 1}), ((), {"input": "x", "extra": 1})],
)
def test_input_binding_positional_then_parameter_name_then_input(args: tuple, kwargs: dict) -> None:
    @contract
    class Bound(dspy.Module):
        """Echo."""

        def forward(self, text: str, extra: int = 0) -> str:
            return f"{text}/{extra}/{self.contract_result}"

    lm = scripted_lm(sequence("gen"))
    assert call(Bound(), lm, *args, **kwargs) == "x/1/gen"
    assert lm.scripted.prompts[0].inputs["text"] == "x"


def test_a_missing_input_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match=r"Bound\.forward needs an input: .* as text=\.\.\., or as input=\.\.\."):
        @contract
        class Bound(dspy.Module):
            """Echo."""

            def forward(self, text: str) -> str:
                return text

        call(Bound(), scripted_lm(sequence("x")), other="x")


# -- bad definitions and configuration -----------------------------------------------------------
def test_forward_without_a_return_annotation_fails_at_definition() -> None:
    with pytest.raises(ContractDefinitionError, match=r"NoReturn\.forward has no return annotation"):
        @contract
        class NoReturn(dspy.Module):
            """Do."""

            def forward(self, text: str):  # noqa: ANN202
                return text


@pytest.mark.parametrize("method", ["pre", "post"])
def test_a_check_returning_false_instead_of_raising_names_the_method(method: str) -> None:
    @contract
    class Lazy(dspy.Module):
        """Do."""

        def pre(self, input: str) -> bool:
            return method != "pre"

        def post(self, output: str) -> bool:
            return method != "post"

        def forward(self, text: str) -> str:
            return text

    with pytest.raises(ContractDefinitionError, match=rf"Lazy\.{method} returned False: .* must raise"):
        call(Lazy(), scripted_lm(sequence("x")), "t")


def test_an_unconfigured_remedy_lm_names_the_module_and_method() -> None:
    module = summarizer(pre_remedy=True)()
    module.contract_generator.lm = scripted_lm(sequence({"text": "t", "words": 1}))
    with dspy.context(lm=None), pytest.raises(ContractConfigurationError, match=r"Summarize\.pre: pre_remedy needs"):
        module("text")
    with dspy.context(lm=None), pytest.raises(ContractConfigurationError, match=r"Summarize\.forward: .*no"):
        summarizer()()("text")


def test_missing_prompt_and_docstring_is_a_clear_error() -> None:
    @contract
    class Silent(dspy.Module):
        def forward(self, text: str) -> str:
            return text

    with pytest.raises(ContractDefinitionError, match=r"Silent: @contract needs a `prompt`"):
        Silent()


@pytest.mark.parametrize("graceful", [True, False])
def test_graceful_returns_a_forward_result_of_the_wrong_type(graceful: bool) -> None:
    @contract(graceful=graceful)
    class Wrong(dspy.Module):
        """Do."""

        def forward(self, text: str) -> int:
            return "not an int"  # type: ignore[return-value]

    lm = scripted_lm(sequence(1))
    if graceful:
        assert call(Wrong(), lm, "t") == "not an int"
    else:
        with pytest.raises(ContractDefinitionError, match=r"Wrong\.forward returned str, not int"):
            call(Wrong(), lm, "t")


# -- perf stats, retry schedule, threads ----------------------------------------------------------
def test_perf_stat_arithmetic() -> None:
    recorder = PerfRecorder()
    for total, forward in ((1.0, 0.5), (2.0, 0.5), (3.0, 2.0)):
        recorder.add({"input_validation": 0.1, "forward": forward, "total": total})
    recorder.add({"total": 4.0})
    stats = recorder.stats()
    assert set(stats) == set(STAGES)
    assert stats["total"] == {"count": 4, "total": 10.0, "mean": 2.5, "std": pytest.approx(1.118033988749895),
                              "min": 1.0, "max": 4.0, "percent": 100.0}
    assert stats["forward"]["count"] == 3 and stats["forward"]["total"] == 3.0
    assert stats["forward"]["mean"] == 1.0 and stats["forward"]["percent"] == pytest.approx(30.0)
    assert stats["forward"]["std"] == pytest.approx(0.7071067811865476)
    assert stats["input_validation"]["std"] == pytest.approx(0.0) and stats["act"]["count"] == 0


def test_perf_stats_of_real_calls_are_consistent() -> None:
    lm = scripted_lm(sequence({"text": "t", "words": 1}))
    module = summarizer()()
    for text in ("a", "b", " "):
        call(module, lm, text)
    stats = module.contract_perf_stats()
    assert stats["total"]["count"] == 3 and stats["forward"]["count"] == 3
    assert stats["output_validation"]["count"] == 2  # the empty text stopped at pre
    assert stats["act"]["count"] == 0
    parts = sum(stats[s]["total"] for s in ("input_validation", "output_validation", "forward"))
    assert parts <= stats["total"]["total"]
    assert stats["total"]["min"] <= stats["total"]["mean"] <= stats["total"]["max"]


def test_retry_schedule_arithmetic_and_sleeps(monkeypatch: pytest.MonkeyPatch) -> None:
    schedule = RetrySchedule(tries=5, delay=0.1, backoff=2.0, max_delay=0.3)
    rng = random.Random(0)
    assert [schedule.delay_before(n, rng) for n in range(1, 6)] == [0.0, 0.1, 0.2, 0.3, 0.3]
    jittered = RetrySchedule(delay=0.1, backoff=1.0, max_delay=-1, jitter=(0.5, 0.6))
    assert all(0.6 <= jittered.delay_before(n, rng) <= 0.7 for n in range(2, 10))
    with pytest.raises(ContractDefinitionError):
        RetrySchedule(tries=0)

    slept: list[float] = []
    monkeypatch.setattr(retry_module, "sleep", slept.append)
    lm = scripted_lm(sequence({"text": "too many words here", "words": 4}))
    call(summarizer(tries=3, delay=0.01, backoff=3.0)(), lm, "text")
    assert slept == pytest.approx([0.01, 0.03])


def test_contract_state_is_per_call_across_threads() -> None:
    @contract
    class Echo(dspy.Module):
        """Repeat."""

        def forward(self, text: str) -> str:
            assert self.contract_successful
            return f"{text}:{self.contract_result}"

    def respond(prompt: ScriptedPrompt) -> dict[str, str]:
        return {"output": prompt.inputs["text"].upper()}

    lm = scripted_lm(respond, delay_s=0.001)
    module = Echo()
    texts = [f"t{i}" for i in range(40)]

    def one(text: str) -> str:
        with dspy.context(lm=lm):
            return module(text)

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(one, texts))
    assert results == [f"{t}:{t.upper()}" for t in texts]
    assert module.contract_perf_stats()["total"]["count"] == 40
