"""Optimizers see through contracts: BootstrapFewShot through ``constrained`` vs through ``dspy.Refine``.

The scripted LM answers in lower case on a first try for the questions marked "hard", and in upper
case once the prompt carries feedback (ours) or a hint (Refine's). The metric wants upper case, so
the hard questions only pass after a retry.
"""

from __future__ import annotations

from typing import Any

import dspy

from groundqa.contracts import Assert, constrained, contract
from groundqa.lm.scripted import ScriptedPrompt, scripted_lm

TRAINSET = [
    dspy.Example(question=q, answer=q.upper()).with_inputs("question")
    for q in ("hard one", "easy two", "hard three", "easy four")
]


class QA(dspy.Module):
    def __init__(self) -> None:
        super().__init__()
        self.generate = dspy.Predict("question -> answer")

    def forward(self, question: str) -> dspy.Prediction:
        return self.generate(question=question)


class AssertedQA(QA):
    def forward(self, question: str) -> dspy.Prediction:
        pred = self.generate(question=question)
        Assert(pred.answer.isupper(), f"Answer {pred.answer!r} must be upper case.", key="upper")
        return pred


def respond(prompt: ScriptedPrompt) -> dict[str, Any]:
    if "advice" in prompt.output_fields:  # Refine's OfferFeedback call
        return {"discussion": "The answer was lower case.", "advice": {"generate": "Use upper case."}}
    question = prompt.inputs["question"]
    helped = "feedback" in prompt.inputs or "hint_" in prompt.inputs
    return {"answer": question.lower() if question.startswith("hard") and not helped else question.upper()}


def exact(example: dspy.Example, pred: dspy.Prediction, trace: Any = None) -> bool:
    return pred.answer == example.answer


def bootstrap(
    student: dspy.Module, metric: Any = exact, errors: int = 0
) -> tuple[list[dspy.Example], dict[str, bool]]:
    """(bootstrapped demos of the compiled program, metric verdict per training question)."""
    verdicts: dict[str, bool] = {}

    def recording_metric(example: dspy.Example, pred: dspy.Prediction, trace: Any = None) -> bool:
        verdicts[example.question] = bool(metric(example, pred, trace))
        return verdicts[example.question]

    optimizer = dspy.BootstrapFewShot(metric=recording_metric, max_bootstrapped_demos=4, max_labeled_demos=0)
    with dspy.context(lm=scripted_lm(respond)):
        compiled = optimizer.compile(student, trainset=TRAINSET)
    assert optimizer.error_count == errors
    demos = [demo for predictor in compiled.predictors() for demo in predictor.demos if demo.get("augmented")]
    return demos, verdicts


def bootstrapped_demos(student: dspy.Module, metric: Any = exact, errors: int = 0) -> list[dspy.Example]:
    return bootstrap(student, metric, errors)[0]


def test_bootstrap_collects_demos_from_accepted_attempts_through_constrained() -> None:
    demos, verdicts = bootstrap(constrained(AssertedQA(), max_attempts=3))
    assert all(verdicts.values()) and len(verdicts) == len(TRAINSET)
    assert len(demos) == len(TRAINSET)
    assert {d.answer for d in demos} == {q.upper() for q in ("hard one", "easy two", "hard three", "easy four")}
    for demo in demos:  # the accepted attempt only, without the injected fields
        assert set(demo.keys()) == {"question", "answer", "augmented"}


def test_bootstrap_through_refine_collects_no_demos() -> None:
    refine = dspy.Refine(
        module=QA(), N=3, reward_fn=lambda args, pred: float(pred.answer.isupper()), threshold=1.0
    )
    demos, verdicts = bootstrap(refine)
    assert all(verdicts.values()) and len(verdicts) == len(TRAINSET)  # Refine does fix the hard questions...
    assert len(demos) == 0  # ...but runs its attempts on deep copies: the traces map to no predictor


def test_without_contract_only_the_easy_questions_bootstrap() -> None:
    assert len(bootstrapped_demos(QA())) == 2


def test_the_metric_can_read_violation_counts() -> None:
    seen: dict[str, int] = {}

    def metric(example: dspy.Example, pred: dspy.Prediction, trace: Any = None) -> bool:
        seen[example.question] = pred.violations
        assert pred.contract.by_key.get("upper", 0) == pred.violations
        return exact(example, pred)

    bootstrapped_demos(constrained(AssertedQA(), max_attempts=3), metric=metric)
    assert seen == {"hard one": 1, "easy two": 0, "hard three": 1, "easy four": 0}


def test_with_a_single_attempt_the_hard_questions_raise_and_yield_no_demo() -> None:
    demos = bootstrapped_demos(constrained(AssertedQA(), max_attempts=1), errors=2)  # ContractError x2
    assert {d.question for d in demos} == {"easy two", "easy four"}


def test_bootstrap_collects_the_accepted_generator_call_of_a_contract() -> None:
    @contract(tries=2)
    class Upper(dspy.Module):
        """Answer the question in upper case."""

        def post(self, output: str) -> None:
            if not output.isupper():
                raise ValueError("Use upper case.")

        def forward(self, question: str) -> str:
            return self.contract_result if self.contract_successful else "FAILED"

    def respond_output(prompt: ScriptedPrompt) -> dict[str, Any]:
        return {"output": respond(prompt)["answer"]}

    optimizer = dspy.BootstrapFewShot(metric=lambda e, p, t=None: p == e.answer, max_labeled_demos=0)
    with dspy.context(lm=scripted_lm(respond_output)):
        compiled = optimizer.compile(Upper(), trainset=TRAINSET)
    demos = compiled.contract_generator.demos
    assert [(d.question, d.output) for d in demos] == [(e.question, e.answer) for e in TRAINSET]
