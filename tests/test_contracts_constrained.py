"""Assert / Suggest / Constraint under ``constrained``: attempts, feedback, policies, trace, LM cache.

Every LM here is scripted (groundqa.lm.scripted.scripted_lm): no real model is involved.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

import dspy
import pytest

from groundqa.contracts import (
    Assert,
    AttemptRecord,
    Constraint,
    ContractDefinitionError,
    ContractError,
    Suggest,
    collect_reports,
    constrained,
)
from groundqa.lm.scripted import ScriptedPrompt, scripted_lm


# -- helpers ----------------------------------------------------------------------------------
class QA(dspy.Module):
    """One predictor; the answer must be upper case (hard)."""

    def __init__(self) -> None:
        super().__init__()
        self.generate = dspy.Predict("question -> answer")
        self.after_assert = 0

    def forward(self, question: str) -> dspy.Prediction:
        pred = self.generate(question=question)
        Assert(pred.answer.isupper(), f"Answer {pred.answer!r} must be upper case.", key="upper")
        self.after_assert += 1
        return pred


def upper_after_feedback(prompt: ScriptedPrompt) -> dict[str, str]:
    """Lower case on a first try, upper case once feedback is in the prompt."""
    question = prompt.inputs["question"]
    return {"answer": question.upper() if "feedback" in prompt.inputs else question.lower()}


def sequence(*answers: str, field: str = "answer") -> Callable[[ScriptedPrompt], dict[str, str]]:
    """Answer with ``answers`` in turn (the last one repeats)."""
    lock = threading.Lock()
    counter = itertools.count()

    def respond(prompt: ScriptedPrompt) -> dict[str, str]:
        with lock:
            index = next(counter)
        return {field: answers[min(index, len(answers) - 1)]}

    return respond


def run(program: dspy.Module, lm: dspy.LM, **inputs: Any) -> Any:
    with dspy.context(lm=lm):
        return program(**inputs)


# -- attempts and feedback ------------------------------------------------------------------
def test_first_attempt_passing_makes_a_single_call_without_feedback() -> None:
    lm = scripted_lm(lambda p: {"answer": "PARIS"})
    pred = run(constrained(QA(), max_attempts=3), lm, question="paris?")
    assert pred.answer == "PARIS"
    assert len(lm.scripted.prompts) == 1
    assert "feedback" not in lm.scripted.prompts[0].inputs
    report = pred.contract
    assert [a.number for a in report.attempts] == [1]
    assert report.outcome == "accepted" and report.accepted_attempt == 1
    assert pred.violations == 0 and report.satisfied


def test_retry_gives_the_target_its_past_outputs_and_the_feedback() -> None:
    lm = scripted_lm(upper_after_feedback)
    pred = run(constrained(QA(), max_attempts=3), lm, question="Rome")
    assert pred.answer == "ROME"
    first, second = lm.scripted.prompts
    assert set(first.inputs) == {"question"}
    assert second.inputs["past_answer"] == "rome"
    assert "Answer 'rome' must be upper case." in second.inputs["feedback"]
    assert "must fix" in second.inputs["feedback"]
    record = pred.contract.attempts[0]
    assert record.outcome == "halted" and record.violations[0].targets == ("generate",)
    assert pred.contract.attempts[1].feedback["generate"].endswith("must be upper case.")
    assert pred.violations == 1 and pred.contract.by_key == {"upper": 1}
    assert all(a.latency_ms > 0 for a in pred.contract.attempts)


@pytest.mark.parametrize("max_attempts", [1, 2, 4])
def test_max_attempts_counts_every_attempt_first_included(max_attempts: int) -> None:
    lm = scripted_lm(lambda p: {"answer": "never upper"})
    with pytest.raises(ContractError) as caught:
        run(constrained(QA(), max_attempts=max_attempts), lm, question="q")
    assert len(lm.scripted.prompts) == max_attempts
    assert [a.number for a in caught.value.attempts] == list(range(1, max_attempts + 1))
    assert caught.value.messages == ["Answer 'never upper' must be upper case."] * max_attempts
    assert caught.value.module == "QA"
    assert caught.value.report.outcome == "raised"


class PlanThenAnswer(dspy.Module):
    """Two predictors; the Assert is about the plan but runs after the answer was generated."""

    def __init__(self, target: Any) -> None:
        super().__init__()
        self.plan = dspy.Predict("question -> plan")
        self.generate = dspy.Predict("question, plan -> answer")
        self.target = target

    def forward(self, question: str) -> dspy.Prediction:
        plan = self.plan(question=question).plan
        pred = self.generate(question=question, plan=plan)
        target = self.plan if self.target == "object" else self.target
        Assert(plan.startswith("step"), "The plan must start with 'step'.", target=target)
        return pred


def plan_responder(prompt: ScriptedPrompt) -> dict[str, str]:
    if "plan" in prompt.output_fields:
        return {"plan": "step 1" if "feedback" in prompt.inputs else "no plan"}
    return {"answer": "42"}


@pytest.mark.parametrize("target", ["plan", "object"])
def test_named_or_object_target_receives_the_feedback(target: str) -> None:
    lm = scripted_lm(plan_responder)
    pred = run(constrained(PlanThenAnswer(target)), lm, question="q")
    assert pred.answer == "42"
    prompts = lm.scripted.prompts
    assert len(prompts) == 4  # plan, answer, plan (with feedback), answer
    assert prompts[2].inputs["past_plan"] == "no plan" and "feedback" in prompts[2].inputs
    assert "feedback" not in prompts[3].inputs  # the answer predictor is not the target
    assert pred.contract.attempts[0].violations[0].targets == ("plan",)


def test_default_target_is_the_last_predictor_called() -> None:
    lm = scripted_lm(plan_responder)
    with pytest.raises(ContractError) as caught:
        run(constrained(PlanThenAnswer(None), max_attempts=2), lm, question="q")
    prompts = lm.scripted.prompts
    assert "feedback" not in prompts[2].inputs  # plan: not targeted, so it stays "no plan"
    assert prompts[3].inputs["past_answer"] == "42" and "feedback" in prompts[3].inputs
    assert caught.value.attempts[0].violations[0].targets == ("generate",)


def test_unknown_target_name_is_a_clear_error() -> None:
    lm = scripted_lm(plan_responder)
    with pytest.raises(ContractDefinitionError, match=r"'nope' names no predictor \(known: plan, generate\)"):
        run(constrained(PlanThenAnswer("nope")), lm, question="q")


def test_chain_of_thought_target_gets_every_past_output() -> None:
    class CoT(dspy.Module):
        def __init__(self) -> None:
            super().__init__()
            self.think = dspy.ChainOfThought("question -> answer")

        def forward(self, question: str) -> dspy.Prediction:
            pred = self.think(question=question)
            Assert(pred.answer == "yes", "Answer yes.", target=self.think)
            return pred

    def respond(prompt: ScriptedPrompt) -> dict[str, str]:
        return {"reasoning": "because", "answer": "yes" if "feedback" in prompt.inputs else "no"}

    lm = scripted_lm(respond)
    pred = run(constrained(CoT()), lm, question="q")
    assert pred.answer == "yes"
    retry = lm.scripted.prompts[1].inputs
    assert retry["past_reasoning"] == "because" and retry["past_answer"] == "no"
    assert pred.contract.attempts[0].violations[0].targets == ("think.predict",)


@pytest.mark.parametrize("accumulate", [True, False])
def test_accumulate_errors_chooses_all_messages_or_the_last(accumulate: bool) -> None:
    lm = scripted_lm(sequence("a", "b", "c"))
    with pytest.raises(ContractError):
        run(constrained(QA(), max_attempts=3, accumulate_errors=accumulate), lm, question="q")
    third = lm.scripted.prompts[2].inputs["feedback"]
    assert "Attempt 2 (must fix): Answer 'b' must be upper case." in third
    assert ("Answer 'a'" in third) is accumulate
    assert lm.scripted.prompts[2].inputs["past_answer"] == "b"


# -- policies --------------------------------------------------------------------------------
def test_fallback_is_called_with_the_call_arguments_and_every_attempt() -> None:
    seen: dict[str, Any] = {}

    def fallback(question: str, *, attempts: list[AttemptRecord]) -> dspy.Prediction:
        seen.update(question=question, attempts=attempts)
        return dspy.Prediction(answer="EXTRACTIVE")

    lm = scripted_lm(lambda p: {"answer": "low"})
    pred = run(constrained(QA(), max_attempts=2, policy="fallback", fallback=fallback), lm, question="Q?")
    assert pred.answer == "EXTRACTIVE"
    assert seen["question"] == "Q?" and [a.number for a in seen["attempts"]] == [1, 2]
    assert pred.contract.outcome == "fallback" and pred.contract.accepted_attempt is None
    assert pred.contract.hard_violations == 2


class TwoRules(dspy.Module):
    """Two hard rules: upper case, and at most 3 characters."""

    def __init__(self) -> None:
        super().__init__()
        self.generate = dspy.Predict("question -> answer")

    def forward(self, question: str) -> dspy.Prediction:
        pred = self.generate(question=question)
        Assert(pred.answer.isupper(), "Use upper case.", key="upper")
        Assert(len(pred.answer) <= 3, "At most 3 characters.", key="short")
        return pred


@pytest.mark.parametrize(
    ("policy", "expected", "outcome", "accepted"),
    [("return_best", "LONG", "returned_best", 2), ("return_last", "longer", "returned_last", 3)],
)
def test_return_best_and_return_last(policy: str, expected: str, outcome: str, accepted: int) -> None:
    lm = scripted_lm(sequence("long", "LONG", "longer"))  # violations: 2, 1, 2
    pred = run(constrained(TwoRules(), max_attempts=3, policy=policy), lm, question="q")
    assert pred.answer == expected
    assert pred.contract.outcome == outcome and pred.contract.accepted_attempt == accepted
    assert [a.hard for a in pred.contract.attempts] == [2, 1, 2]  # non-halting: both rules checked
    assert pred.contract.by_key == {"upper": 2, "short": 3}


def test_refrain_returns_a_prediction_of_nones_marked_refrained() -> None:
    lm = scripted_lm(lambda p: {"answer": "low"})
    pred = run(constrained(QA(), max_attempts=2, policy="refrain"), lm, question="q")
    assert isinstance(pred, dspy.Prediction)
    assert pred.answer is None and pred.refrained is True
    assert pred.contract.outcome == "refrained" and pred.contract.refrained


def test_noop_records_and_accepts_the_first_attempt() -> None:
    lm = scripted_lm(lambda p: {"answer": "low"})
    program = constrained(QA(), max_attempts=3, policy="noop")
    pred = run(program, lm, question="q")
    assert pred.answer == "low" and len(lm.scripted.prompts) == 1
    assert pred.contract.outcome == "noop" and pred.violations == 1
    assert program.after_assert == 1  # noop never halts


def test_return_policies_raise_when_no_attempt_produced_an_output() -> None:
    class Crashes(QA):
        def forward(self, question: str) -> dspy.Prediction:
            pred = self.generate(question=question)
            Assert(pred.answer.isupper(), "Upper case.")
            raise RuntimeError("code after the Assert fails on the bad value")

    lm = scripted_lm(lambda p: {"answer": "low"})
    with pytest.raises(ContractError, match="no attempt produced an output") as caught:
        run(constrained(Crashes(), max_attempts=2, policy="return_best"), lm, question="q")
    assert [a.outcome for a in caught.value.attempts] == ["halted", "halted"]
    assert "RuntimeError" in caught.value.attempts[0].error


def test_an_exception_without_a_violation_propagates() -> None:
    class Broken(QA):
        def forward(self, question: str) -> dspy.Prediction:
            raise KeyError("bug")

    with pytest.raises(KeyError):
        run(constrained(Broken()), scripted_lm(lambda p: {"answer": "A"}), question="q")


def test_halting_follows_the_policy_and_can_be_overridden() -> None:
    lm = scripted_lm(lambda p: {"answer": "low"})
    program = constrained(QA(), max_attempts=2, policy="refrain")
    run(program, lm, question="q")
    assert program.after_assert == 0  # raise / fallback / refrain: the failing Assert halts

    class NoHalt(QA):
        def forward(self, question: str) -> dspy.Prediction:
            pred = self.generate(question=question)
            Assert(pred.answer.isupper(), "Upper case.", halt=False)
            self.after_assert += 1
            return pred

    program = constrained(NoHalt(), max_attempts=2, policy="refrain")
    run(program, lm, question="q")
    assert program.after_assert == 2


# -- soft constraints --------------------------------------------------------------------------
class SoftRules(dspy.Module):
    def __init__(self) -> None:
        super().__init__()
        self.generate = dspy.Predict("question -> answer")

    def forward(self, question: str) -> dspy.Prediction:
        pred = self.generate(question=question)
        Suggest(pred.answer.isupper(), "Prefer upper case.")
        Suggest(len(pred.answer) <= 5, "Prefer at most 5 characters.")
        return pred


@pytest.mark.parametrize(("soft_keep", "expected", "accepted"), [("best", "ABCDEFGH", 2), ("last", "abcdefghij", 3)])
def test_suggest_never_raises_and_keeps_the_best_or_last(soft_keep: str, expected: str, accepted: int) -> None:
    lm = scripted_lm(sequence("abcdefgh", "ABCDEFGH", "abcdefghij"))  # soft violations: 2, 1, 2
    pred = run(constrained(SoftRules(), max_attempts=3, soft_keep=soft_keep), lm, question="q")
    assert pred.answer == expected and pred.contract.accepted_attempt == accepted
    assert pred.contract.outcome == "accepted" and not pred.contract.satisfied
    assert pred.contract.soft_violations == 5 and pred.contract.hard_violations == 0
    assert [a.outcome for a in pred.contract.attempts] == ["soft_violation"] * 3
    assert len(pred.contract.final_violations) == {"best": 1, "last": 2}[soft_keep]


def test_soft_feedback_is_marked_should_fix_and_suggest_is_retried() -> None:
    lm = scripted_lm(sequence("abc", "ABC"))
    pred = run(constrained(SoftRules(), max_attempts=3), lm, question="q")
    assert pred.answer == "ABC" and len(lm.scripted.prompts) == 2
    assert "Attempt 1 (should fix): Prefer upper case." in lm.scripted.prompts[1].inputs["feedback"]


def test_an_attempt_with_only_soft_violations_beats_the_hard_policy() -> None:
    class Mixed(dspy.Module):
        def __init__(self) -> None:
            super().__init__()
            self.generate = dspy.Predict("question -> answer")

        def forward(self, question: str) -> dspy.Prediction:
            pred = self.generate(question=question)
            Assert(not pred.answer.startswith("x"), "Never start with x.")
            Suggest(pred.answer.isupper(), "Prefer upper case.")
            return pred

    lm = scripted_lm(sequence("abc", "xyz", "xyy"))
    pred = run(constrained(Mixed(), max_attempts=3, policy="raise"), lm, question="q")
    assert pred.answer == "abc" and pred.contract.accepted_attempt == 1
    assert [v.kind for v in pred.contract.final_violations] == ["soft"]


# -- bad input -----------------------------------------------------------------------------------
def test_a_non_boolean_condition_names_the_module_and_method() -> None:
    class Sloppy(QA):
        def forward(self, question: str) -> dspy.Prediction:
            pred = self.generate(question=question)
            Assert(pred.answer, "The answer must not be empty.")  # a str, not a bool
            return pred

    with pytest.raises(ContractDefinitionError, match=r"Assert in Sloppy\.forward: the condition must be a bool, got str"):
        run(constrained(Sloppy()), scripted_lm(lambda p: {"answer": "A"}), question="q")


def test_an_empty_message_is_rejected() -> None:
    with pytest.raises(ContractDefinitionError, match="message must be a non-empty string"):
        Suggest(True, "  ")


def test_assert_outside_a_contracted_module_raises_and_suggest_warns(caplog: pytest.LogCaptureFixture) -> None:
    assert Assert(True, "fine") is True
    with pytest.raises(ContractError, match="not inside a contracted module"):
        Assert(False, "broken")
    with caplog.at_level(logging.WARNING):
        assert Suggest(False, "could be better") is False
    assert "could be better" in caplog.text


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_attempts": 0}, "max_attempts must be an int >= 1"),
        ({"policy": "retry"}, "policy must be one of"),
        ({"policy": "fallback"}, "needs fallback="),
        ({"fallback": print}, "only used with policy='fallback'"),
        ({"soft_keep": "first"}, "soft_keep"),
    ],
)
def test_invalid_options_fail_at_definition(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ContractDefinitionError, match=message):
        constrained(QA(), **options)


def test_constraint_checks_must_take_one_or_two_arguments_and_return_bool() -> None:
    with pytest.raises(ContractDefinitionError, match="must take"):
        Constraint(lambda a, b, c: True, "m")
    constraint = Constraint(lambda out: "yes", "m")
    with pytest.raises(ContractDefinitionError, match="must return a bool"):
        constraint.holds({}, None)


# -- declarative constraints ---------------------------------------------------------------------
class Plain(dspy.Module):
    def __init__(self) -> None:
        super().__init__()
        self.generate = dspy.Predict("question -> answer")

    def forward(self, question: str) -> dspy.Prediction:
        return self.generate(question=question)


def test_module_level_constraint_sees_the_call_inputs_and_output() -> None:
    upper = Constraint(
        lambda inputs, pred: pred.answer == inputs["question"].upper(),
        lambda inputs, pred: f"Answer {inputs['question'].upper()!r}, not {pred.answer!r}.",
        target="generate",
        key="echo",
    )
    lm = scripted_lm(upper_after_feedback)
    pred = run(constrained(Plain(), constraints=[upper]), lm, question="oslo")
    assert pred.answer == "OSLO"
    assert "Answer 'OSLO', not 'oslo'." in lm.scripted.prompts[1].inputs["feedback"]
    assert pred.contract.by_key == {"echo": 1}
    assert pred.contract.attempts[0].outcome == "hard_violation"  # declarative checks never halt


def test_predictor_level_constraint_is_checked_on_each_call_of_that_predictor() -> None:
    short = Constraint(lambda out: len(out.answer) <= 3, "At most 3 characters.", kind="soft", predictor="generate")
    lm = scripted_lm(sequence("toolong", "ok"))
    pred = run(constrained(Plain(), constraints=[short]), lm, question="q")
    assert pred.answer == "ok"
    assert pred.contract.attempts[0].violations[0].targets == ("generate",)
    assert pred.contract.soft_violations == 1


def test_class_decorator_form() -> None:
    @constrained(max_attempts=2, policy="refrain")
    class Decorated(QA):
        pass

    lm = scripted_lm(lambda p: {"answer": "low"})
    pred = run(Decorated(), lm, question="q")
    assert pred.refrained and len(lm.scripted.prompts) == 2


def test_instance_form_shares_the_original_predictors() -> None:
    original = QA()
    program = constrained(original, max_attempts=2)
    assert program.generate is original.generate
    assert [n for n, _ in program.named_predictors()] == ["generate"]
    assert type(program).__name__ == "QA" and isinstance(program, QA)
    again = constrained(program, max_attempts=5)
    assert again._contract_options.max_attempts == 5 and type(again) is type(program)


# -- parse errors, trace, temperature, cache -----------------------------------------------------
def test_a_parse_error_is_a_hard_violation_and_the_target_is_told() -> None:
    state = {"calls": 0}

    def respond(prompt: ScriptedPrompt) -> dict[str, str] | str:
        state["calls"] += 1
        return {"answer": "FIXED"} if "feedback" in prompt.inputs else "no fields at all"

    lm = scripted_lm(respond)
    pred = run(constrained(QA(), max_attempts=2), lm, question="q")
    assert pred.answer == "FIXED"
    first = pred.contract.attempts[0]
    assert first.outcome == "error" and "AdapterParseError" in first.error
    assert first.violations[0].source == "error" and first.violations[0].targets == ("generate",)
    assert "could not be used" in lm.scripted.prompts[-1].inputs["feedback"]


def test_trace_holds_only_the_accepted_attempt_without_injected_fields() -> None:
    lm = scripted_lm(upper_after_feedback)
    program = constrained(QA(), max_attempts=3)
    trace: list[Any] = []
    with dspy.context(lm=lm, trace=trace):
        program(question="lima")
    assert len(trace) == 1
    predictor, inputs, outputs = trace[0]
    assert predictor is program.generate
    assert inputs == {"question": "lima"} and outputs.answer == "LIMA"


def test_first_attempt_keeps_the_temperature_and_retries_get_a_new_rollout() -> None:
    lm = scripted_lm(upper_after_feedback, temperature=0.7)
    run(constrained(QA()), lm, question="q")
    assert [p.temperature for p in lm.scripted.prompts] == [0.7, 0.7]
    assert "rollout_id" not in lm.history[0]["kwargs"]
    assert lm.history[1]["kwargs"]["rollout_id"] == 1

    cold = scripted_lm(upper_after_feedback)
    run(constrained(QA()), cold, question="q")
    assert all("rollout_id" not in entry["kwargs"] for entry in cold.history)


@pytest.fixture
def memory_cache() -> Any:
    from dspy.clients.cache import Cache

    saved = dspy.cache
    dspy.cache = Cache(enable_disk_cache=False, enable_memory_cache=True, disk_cache_dir="", disk_size_limit_bytes=0)
    yield dspy.cache
    dspy.cache = saved


def test_the_lm_cache_cannot_return_the_failing_answer_to_a_retry(memory_cache: Any) -> None:
    lm = scripted_lm(upper_after_feedback, cache=True)
    program = constrained(QA(), max_attempts=3)
    first = run(program, lm, question="cached")
    assert first.answer == "CACHED" and len(lm.scripted.prompts) == 2
    again = run(program, lm, question="cached")
    assert again.answer == "CACHED" and len(lm.scripted.prompts) == 2  # both attempts served by the cache
    assert [a.number for a in again.contract.attempts] == [1, 2]


def test_the_feedback_adapter_passes_for_the_users_adapter() -> None:
    from groundqa.contracts.feedback import feedback_adapter

    for base in (None, dspy.ChatAdapter(), dspy.JSONAdapter()):
        wrapped = feedback_adapter(base)
        expected = type(base) if base is not None else dspy.ChatAdapter
        assert isinstance(wrapped, expected) and type(wrapped).__name__ == expected.__name__
        assert feedback_adapter(wrapped) is wrapped  # nested contracted calls reuse it


def test_the_users_json_adapter_carries_the_feedback() -> None:
    def respond(prompt: ScriptedPrompt) -> str:
        retried = "feedback" in prompt.user and "past_answer" in prompt.user
        return json.dumps({"answer": "UPPER" if retried else "lower"})

    lm = scripted_lm(respond)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        pred = constrained(QA())(question="q")
    assert pred.answer == "UPPER" and pred.contract.accepted_attempt == 2


def test_report_is_an_attribute_not_a_prediction_field() -> None:
    pred = run(constrained(QA()), scripted_lm(upper_after_feedback), question="q")
    assert "contract" not in list(pred.keys()) and "violations" not in pred.toDict()
    assert pred.contract.to_dict()["attempts"][0]["outcome"] == "halted"


def test_collect_reports_gathers_every_contracted_call() -> None:
    lm = scripted_lm(upper_after_feedback)
    program = constrained(QA())
    with collect_reports() as reports, dspy.context(lm=lm):
        program(question="a")
        with pytest.raises(ContractError):
            constrained(QA(), max_attempts=1)(question="b")
    assert [r.outcome for r in reports] == ["accepted", "raised"]


def test_nested_contracted_modules_keep_their_own_attempts() -> None:
    class Outer(dspy.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = constrained(QA(), max_attempts=2)
            self.check = dspy.Predict("answer -> verdict")

        def forward(self, question: str) -> dspy.Prediction:
            answer = self.inner(question=question).answer
            verdict = self.check(answer=answer).verdict
            Assert(verdict == "ok", "Verdict must be ok.", target="check")
            return dspy.Prediction(answer=answer, verdict=verdict)

    def respond(prompt: ScriptedPrompt) -> dict[str, str]:
        if "verdict" in prompt.output_fields:
            return {"verdict": "ok" if "feedback" in prompt.inputs else "bad"}
        return upper_after_feedback(prompt)

    lm = scripted_lm(respond)
    trace: list[Any] = []
    with dspy.context(lm=lm, trace=trace):
        pred = constrained(Outer(), max_attempts=2)(question="q")
    assert pred.verdict == "ok" and pred.contract.accepted_attempt == 2
    assert [type(p).__name__ for p, _, _ in trace] == ["Predict", "Predict"]
    assert [i for _, i, _ in trace] == [{"question": "q"}, {"answer": "Q"}]


def test_async_calls_retry_too() -> None:
    lm = scripted_lm(upper_after_feedback)
    program = constrained(dspy.Predict("question -> answer"), max_attempts=2,
                          constraints=[Constraint(lambda out: out.answer.isupper(), "Upper case.")])

    async def main() -> dspy.Prediction:
        with dspy.context(lm=lm):
            return await program.acall(question="async")

    pred = asyncio.run(main())
    assert pred.answer == "ASYNC" and pred.contract.accepted_attempt == 2
