"""Many contracted calls at once: per-call state, no bleed between calls, no shrinking budgets."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import dspy

from groundqa.contracts import Assert, constrained
from groundqa.lm.scripted import ScriptedPrompt, scripted_lm

CALLS = 48


class Echo(dspy.Module):
    def __init__(self) -> None:
        super().__init__()
        self.generate = dspy.Predict("question -> answer")

    def forward(self, question: str) -> dspy.Prediction:
        pred = self.generate(question=question)
        Assert(pred.answer == f"{question}!", f"Answer exactly {question}! (got {pred.answer}).", key="exact")
        return pred


def failures_before_success(question: str) -> int:
    """Question i needs i % 3 failed attempts first (0, 1 or 2)."""
    return int(question.split("-")[1]) % 3


def respond(prompt: ScriptedPrompt) -> dict[str, str]:
    question = prompt.inputs["question"]
    failures = prompt.inputs.get("feedback", "").count("Attempt ")
    if failures < failures_before_success(question):
        return {"answer": f"{question}?"}
    return {"answer": f"{question}!"}


def call(program: dspy.Module, lm: dspy.LM, question: str) -> tuple[dspy.Prediction, list[Any]]:
    trace: list[Any] = []
    with dspy.context(lm=lm, trace=trace):
        return program(question=question), trace


def test_concurrent_calls_keep_their_own_attempts_feedback_and_trace() -> None:
    lm = scripted_lm(respond, delay_s=0.002)  # a small latency so that calls interleave
    program = constrained(Echo(), max_attempts=3)
    questions = [f"q-{i}" for i in range(CALLS)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(lambda q: call(program, lm, q), questions))

    for question, (pred, trace) in zip(questions, results, strict=True):
        expected_attempts = failures_before_success(question) + 1
        report = pred.contract
        assert pred.answer == f"{question}!"
        assert len(report.attempts) == expected_attempts and report.accepted_attempt == expected_attempts
        assert pred.violations == expected_attempts - 1
        for attempt in report.attempts[1:]:  # feedback only ever mentions this call's own attempts
            assert attempt.feedback["generate"].splitlines() == [
                f"- Attempt {k} (must fix): Answer exactly {question}! (got {question}?)."
                for k in range(1, attempt.number)
            ]
        assert len(trace) == 1 and trace[0][1] == {"question": question}
        assert trace[0][0] is program.generate
    assert len(lm.scripted.prompts) == sum(failures_before_success(q) + 1 for q in questions)


def test_budgets_do_not_shrink_across_calls() -> None:
    lm = scripted_lm(respond)
    program = constrained(Echo(), max_attempts=3)
    first = [len(call(program, lm, f"q-{i}")[0].contract.attempts) for i in range(6)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        again = [len(r[0].contract.attempts) for r in pool.map(lambda i: call(program, lm, f"q-{i}"), range(6))]
    assert first == again == [1, 2, 3, 1, 2, 3]
