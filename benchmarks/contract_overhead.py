"""Contracts suite: per-call overhead of ``constrained`` / ``@contract`` with a zero-latency LM,
and the demos ``BootstrapFewShot`` collects through a contract vs through ``dspy.Refine``.

The LM is groundqa's scripted engine behind a real ``dspy.LM`` (cache off), so every call still
goes through DSPy's adapter and LM layer: that is the module's own work. Each case is timed
against the same module without a contract; the difference is the contract's overhead. Figures
are medians over repeats of the mean time per call, in CPU time of the calling thread (with a
zero-latency LM all the work is CPU: on an idle machine this equals wall time, and it is not
inflated by other processes); baseline and contracted calls alternate one by one, and the overhead
is the median of the per-repeat differences.

Demo counts: a trainset of questions, half of them "hard" (the scripted LM answers them wrongly on
a first try and correctly once the prompt carries feedback or Refine's hint); BootstrapFewShot
(metric: exact match, ``max_labeled_demos=0``) compiles the plain module, the module with an
Assert under ``constrained``, and ``dspy.Refine`` around the plain module.

Run: ``python -m benchmarks.contract_overhead [--quick]`` (or, once registered in
``benchmarks.SUITE_MODULES``, ``python -m benchmarks run --suite contracts``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import dspy

from benchmarks.registry import register
from benchmarks.report import markdown_table
from groundqa.contracts import Assert, Suggest, constrained, contract
from groundqa.lm.scripted import ScriptedPrompt, scripted_lm


class PlainQA(dspy.Module):
    def __init__(self) -> None:
        super().__init__()
        self.generate = dspy.Predict("question -> answer")

    def forward(self, question: str) -> dspy.Prediction:
        return self.generate(question=question)


class CheckedQA(PlainQA):
    def forward(self, question: str) -> dspy.Prediction:
        pred = self.generate(question=question)
        Assert(pred.answer.isupper(), "Answer in upper case.", key="upper")
        Suggest(len(pred.answer) < 80, "Keep the answer short.", key="short")
        return pred


class NoLM(dspy.Module):
    """No predictor at all: isolates the contract runtime from DSPy's LM layer."""

    def forward(self, question: str) -> dspy.Prediction:
        Assert(bool(question), "A question is needed.")
        return dspy.Prediction(answer=question.upper())


class PlainTyped(dspy.Module):
    """What ``@contract`` does, by hand: one generator call, no checks."""

    def __init__(self) -> None:
        super().__init__()
        self.contract_generator = dspy.Predict(dspy.Signature({
            "text": (str, dspy.InputField()), "output": (str, dspy.OutputField())}, "Answer in upper case."))

    def forward(self, text: str) -> str:
        return self.contract_generator(text=text).output


@contract
class ContractTyped(dspy.Module):
    prompt = "Answer in upper case."

    def pre(self, input: str) -> None:
        if not input:
            raise ValueError("Empty input.")

    def post(self, output: str) -> None:
        if not output.isupper():
            raise ValueError("Answer in upper case.")

    def forward(self, text: str) -> str:
        return self.contract_result if self.contract_successful else text


def respond(prompt: ScriptedPrompt) -> dict[str, str]:
    """Upper case; lower case for questions starting with "retry" until feedback arrives."""
    text = prompt.inputs.get("question") or prompt.inputs.get("text", "")
    field = prompt.output_fields[0]
    if text.startswith("retry") and "feedback" not in prompt.inputs:
        return {field: text.lower()}
    return {field: text.upper()}


def interleaved_us(baseline: Callable[[int], Any], contracted: Callable[[int], Any], calls: int) -> tuple[float, float]:
    """Mean µs per call of each (CPU time of this thread), the two timed alternately, call by call."""
    clock = time.thread_time
    base_total = contract_total = 0.0
    for i in range(calls):
        start = clock()
        baseline(i)
        middle = clock()
        contracted(i)
        end = clock()
        base_total += middle - start
        contract_total += end - middle
    return base_total / calls * 1e6, contract_total / calls * 1e6


def compare(baseline: Callable[[int], Any], contracted: Callable[[int], Any], lm_calls: int,
            calls: int, repeats: int) -> dict[str, float]:
    """Medians over repeats of the per-call times and of their difference (the overhead)."""
    interleaved_us(baseline, contracted, min(100, calls))  # warm-up: signature, adapter, type caches
    bases, contracts, overheads = [], [], []
    for _ in range(repeats):
        base, contract_time = interleaved_us(baseline, contracted, calls)
        bases.append(base * lm_calls)
        contracts.append(contract_time)
        overheads.append(contract_time - base * lm_calls)
    return {
        "baseline_us": statistics.median(bases),
        "contracted_us": statistics.median(contracts),
        "overhead_us": statistics.median(overheads),
    }


def measure(calls: int, repeats: int) -> dict[str, dict[str, float]]:
    """Per-call times (µs) of each case and of its uncontracted baseline."""
    lm = scripted_lm(respond)
    plain, checked = PlainQA(), constrained(CheckedQA(), max_attempts=3)
    no_lm, no_lm_checked = NoLM(), constrained(NoLM(), max_attempts=3)
    typed_plain, typed_contract = PlainTyped(), ContractTyped()
    cases = {
        "runtime only (no LM), first attempt passes": (
            lambda i: no_lm(question=f"q{i}"), lambda i: no_lm_checked(question=f"q{i}"), 1),
        "constrained, first attempt passes": (
            lambda i: plain(question=f"q{i}"), lambda i: checked(question=f"q{i}"), 1),
        "constrained, one retry (2 LM calls)": (
            lambda i: plain(question=f"retry{i}"), lambda i: checked(question=f"retry{i}"), 2),
        "@contract (pre, generate, post, forward)": (
            lambda i: typed_plain(text=f"q{i}"), lambda i: typed_contract(f"q{i}"), 1),
    }
    with dspy.context(lm=lm):
        return {name: compare(base, contracted, lm_calls, calls, repeats)
                for name, (base, contracted, lm_calls) in cases.items()}


def demo_respond(prompt: ScriptedPrompt) -> dict[str, Any]:
    if "advice" in prompt.output_fields:  # Refine's OfferFeedback call
        return {"discussion": "The answer was not in upper case.", "advice": {"generate": "Use upper case."}}
    question = prompt.inputs["question"]
    helped = "feedback" in prompt.inputs or "hint_" in prompt.inputs
    return {"answer": question.lower() if question.startswith("hard") and not helped else question.upper()}


def measure_demos(size: int) -> dict[str, dict[str, int]]:
    """Bootstrapped demos and metric passes per way of retrying, on ``size`` questions (half hard)."""
    import contextlib
    import io

    trainset = [dspy.Example(question=f"{'hard' if i % 2 == 0 else 'easy'} question {i}",
                             answer=f"{'hard' if i % 2 == 0 else 'easy'} question {i}".upper()).with_inputs("question")
                for i in range(size)]
    students = {
        "no contract": lambda: PlainQA(),
        "constrained(Assert), max_attempts=3": lambda: constrained(CheckedQA(), max_attempts=3),
        "dspy.Refine(N=3)": lambda: dspy.Refine(
            module=PlainQA(), N=3, reward_fn=lambda args, pred: float(pred.answer.isupper()), threshold=1.0),
    }
    results = {}
    for name, make in students.items():
        passed = {"n": 0}

        def metric(example: dspy.Example, pred: dspy.Prediction, trace: Any = None, _p: dict = passed) -> bool:
            ok = pred.answer == example.answer
            _p["n"] += ok
            return ok

        optimizer = dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=size, max_labeled_demos=0)
        with dspy.context(lm=scripted_lm(demo_respond)), contextlib.redirect_stdout(io.StringIO()):
            compiled = optimizer.compile(make(), trainset=trainset)
        demos = sum(1 for p in compiled.predictors() for d in p.demos if d.get("augmented"))
        results[name] = {"questions": size, "metric_passed": passed["n"], "demos": demos}
    return results


def run_suite(quick: bool) -> dict[str, Any]:
    calls, repeats = (300, 3) if quick else (2000, 5)
    load_before = os.getloadavg()[0]
    results = measure(calls, repeats)
    load_after = os.getloadavg()[0]
    demos = measure_demos(8)
    rows = [[name, r["baseline_us"], r["contracted_us"], r["overhead_us"]] for name, r in results.items()]
    demo_rows = [[name, r["questions"], r["metric_passed"], r["demos"]] for name, r in demos.items()]
    return {
        "title": "Contract overhead per call (zero-latency scripted LM)",
        "config": {"calls": calls, "repeats": repeats, "lm": "scripted engine behind dspy.LM, cache off",
                   "load_average_1min": [round(load_before, 2), round(load_after, 2)]},
        "results": {"overhead": results, "demos": demos},
        "tables": [{
            "title": "Per-call time, µs (median of repeats)",
            "columns": ["case", "module without contract", "with contract", "overhead"],
            "rows": rows,
        }, {
            "title": "BootstrapFewShot demos collected (half the questions need a retry)",
            "columns": ["program", "questions", "metric passed", "bootstrapped demos"],
            "rows": demo_rows,
        }],
        "notes": [
            "Baseline = the same module without a contract; for the retry case, twice the one-call baseline "
            "(the retry's second LM call is the module's own work, not overhead).",
            "Target: overhead under 1 ms (1,000 µs) per call beyond the module's own work.",
        ],
        "headline": ["contract overhead per call: " + ", ".join(
            f"{name} {r['overhead_us']:.0f} µs" for name, r in results.items()) + " (target < 1,000 µs)"],
    }


@register("contracts")
def contracts_suite(args: argparse.Namespace) -> dict[str, Any]:
    """Per-call overhead of contracts (Assert/Suggest, @contract) and demos collected through them."""
    return run_suite(bool(getattr(args, "quick", False)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.contract_overhead", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer calls (a few seconds)")
    args = parser.parse_args(argv)
    result = run_suite(args.quick)
    print(f"## {result['title']}\n")
    config = result["config"]
    load = config["load_average_1min"]
    print(f"{config['calls']} calls x {config['repeats']} repeats; 1-min load average {load[0]} -> {load[1]} "
          f"on {os.cpu_count()} CPUs\n")
    for table in result["tables"]:
        print(f"### {table['title']}\n")
        print(markdown_table(table["columns"], table["rows"]) + "\n")
    for note in result["notes"]:
        print(f"- {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
