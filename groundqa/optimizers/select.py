"""``SelectAnswers``: a DSPy optimizer that fits the program's answer-or-abstain model on the trainset.

The gates decide one signal at a time (:mod:`groundqa.optimizers.calibrate` moves them one threshold at a
time). This optimizer fits what weighs them together, the program's :class:`~groundqa.programs.selection.Selector`
(selective answering, after Kamath, Jia and Liang 2020):

1. split the trainset into *fit* and *check* (stratified by should-abstain, grouped by gold document or by
   article: :func:`~groundqa.optimizers.calibrate.stratified_split`), unless a ``valset`` is given for check;
2. run the program once on every question with the selector off, recording each run's
   :class:`~groundqa.programs.selection.Signals` and its candidate answer (the answer it gave, or the best
   passage sentence it would give), and score both choices with the metric: answering with the candidate and
   abstaining. That is the only pass that asks the LM; everything after it is arithmetic;
3. fit a logistic model on *fit*: the label is "answering scores better than abstaining", each question
   weighted by how much better (a question where both choices score alike teaches nothing), L2-regularised
   on standardised signals; then the threshold that maximises the mean metric on *fit*;
4. score the unselected program and the selected one on *check* (from the recorded runs: no LM call) and
   keep the model only if it gains at least ``min_gain`` and one question's worth there, else leave the
   selector off: never something worse than the program it started from on check.

A trainset too small to fit, or one whose fit or check part has no should-abstain question or no answerable
one, leaves the selector off and says why. An interrupted run (Ctrl-C) leaves it off too: a half-recorded
trainset fits nothing honestly. The report is ``compiled.selection``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import dspy
import numpy as np
from pydantic import BaseModel, Field

from groundqa.optimizers.calibrate import gold_documents, stratified_split
from groundqa.programs.selection import SIGNAL_NAMES, Selector, Signals
from groundqa.signatures.types import AbstainReason

MIN_TRAIN = 16


class SelectionReport(BaseModel):
    """What the selection fit did and why (also logged to MLflow by the compile)."""

    kept: str = Field("off", description="'fitted' or 'off'")
    reasons: list[str] = Field(default_factory=list)
    n_fit: int = 0
    n_check: int = 0
    fit_start: float | None = Field(None, description="mean metric on fit without the selector")
    fit_best: float | None = Field(None, description="mean metric on fit with the fitted selector")
    check_start: float | None = None
    check_best: float | None = None
    oracle_fit: float | None = Field(None, description="the best any answer-or-abstain choice could score on fit")
    flips_fit: int = Field(0, description="fit questions whose outcome the selector changes")
    flips_check: int = 0
    selector: dict[str, Any] = Field(default_factory=dict, description="the fitted model (kept or not)")
    seconds: float = 0.0


class Recorded(BaseModel):
    """One trainset question: its signals and what each choice scores."""

    signals: dict[str, float] | None = Field(None, description="None: the run ended where the selector cannot act")
    answer_score: float = 0.0
    abstain_score: float = 0.0
    own_score: float = 0.0
    answered: bool = False


def fit_logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray, l2: float = 1.0,
                 iterations: int = 50) -> tuple[np.ndarray, float]:
    """Weighted, L2-regularised logistic regression by Newton's method on standardised columns; returns
    (weights, bias) in the raw units of ``x`` (the standardisation folded in)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    beta = np.zeros(z.shape[1])
    penalty = np.diag(np.r_[0.0, np.full(z.shape[1] - 1, l2)])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ beta, -40, 40)))
        gradient = z.T @ (weight * (p - y)) + penalty @ beta
        hessian = (z * (weight * p * (1 - p))[:, None]).T @ z + penalty + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    raw = beta[1:] / scale
    return raw, float(beta[0] - (raw * mean).sum())


class SelectAnswers(dspy.teleprompt.Teleprompter):
    """Fit ``student.selector`` to ``metric`` on the trainset (see the module docstring)."""

    def __init__(self, metric: Callable[..., Any], seed: int = 0, check_share: float = 1 / 3,
                 min_train: int = MIN_TRAIN, l2: float = 1.0, min_gain: float = 0.01,
                 group: Callable[[Any], Any] | None = None, say: Callable[[str], None] | None = None,
                 progress: bool = True) -> None:
        super().__init__()
        self.metric = metric
        self.seed = seed
        self.check_share = check_share
        self.min_train = min_train
        self.l2 = l2
        """L2 penalty on the standardised signals' weights (larger: a smoother, less confident model)."""
        self.min_gain = min_gain
        """How much the fitted model must gain on check (and at least one question's worth) to be kept."""
        self.group = group or gold_documents
        self.say = say or (lambda text: print(f"select: {text}", file=sys.stderr))
        self.progress = progress

    def compile(self, student: dspy.Module, *, trainset: Sequence[dspy.Example],
                valset: Sequence[dspy.Example] | None = None, **_: Any) -> dspy.Module:
        started = time.perf_counter()
        program = student.deepcopy()
        selector: Selector | None = getattr(program, "selector", None)
        if not isinstance(selector, Selector):
            raise TypeError(f"{type(student).__name__} has no Selector to fit (expected a .selector attribute)")
        report = SelectionReport()
        program.selection = report
        start = selector.dump_state()
        if len(trainset) < self.min_train:
            return self._off(program, start, report, f"the trainset has {len(trainset)} question(s); selection needs "
                                                     f"at least {self.min_train}: the selector stays off")
        fit, check = (list(trainset), list(valset)) if valset else stratified_split(trainset, self.check_share,
                                                                                   self.seed, self.group)
        report.n_fit, report.n_check = len(fit), len(check)
        for part, items in (("fit", fit), ("check", check)):
            flags = {bool(e.get("should_abstain")) for e in items}
            if flags != {False, True}:
                missing = "should-abstain" if True not in flags else "answerable"
                return self._off(program, start, report, f"the {part} set has no {missing} question: answering "
                                                         "cannot be weighed against abstaining; the selector stays off")
        selector.load_state(Selector().model_dump())  # record the stages' own decisions
        try:
            self.say(f"running the program once on {len(fit) + len(check)} train question(s) (the only LM pass)")
            rows = self.record(program, [*fit, *check])
        except KeyboardInterrupt:
            return self._off(program, start, report, "interrupted while recording the trainset: the selector stays off")
        fitted, fit_rows, check_rows = self._fit(rows[: len(fit)], report), rows[: len(fit)], rows[len(fit):]
        if fitted is None:
            return self._off(program, start, report, report.reasons[-1] if report.reasons else "nothing to fit")
        report.selector = fitted.dump_state()
        report.fit_start, report.fit_best = _mean(fit_rows, None), _mean(fit_rows, fitted)
        report.oracle_fit = round(float(np.mean([max(r.answer_score, r.abstain_score) if r.signals else r.own_score
                                                 for r in fit_rows])), 6)
        report.flips_fit = _flips(fit_rows, fitted)
        report.check_start, report.check_best = _mean(check_rows, None), _mean(check_rows, fitted)
        report.flips_check = _flips(check_rows, fitted)
        needed = max(self.min_gain, 1.0 / max(len(check_rows), 1))
        if report.check_best < report.check_start + needed - 1e-9:
            report.reasons.append(f"the fitted selector scores {report.check_best:.3f} on check against "
                                  f"{report.check_start:.3f} without it (needs +{needed:.3g}): it stays off")
            selector.load_state(start)
        else:
            selector.load_state(report.selector)
            report.kept = "fitted"
        report.seconds = round(time.perf_counter() - started, 2)
        self.say(f"selector {report.kept}: fit {report.fit_start:.3f} -> {report.fit_best:.3f} "
                 f"(oracle {report.oracle_fit:.3f}), check {report.check_start:.3f} -> {report.check_best:.3f} "
                 f"({report.flips_check} of {len(check_rows)} check outcomes changed, {report.seconds:.0f}s)")
        return program

    # -- recording -------------------------------------------------------------------------------
    def record(self, program: dspy.Module, examples: Sequence[dspy.Example]) -> list[Recorded]:
        """Run ``program`` once per example with the selector recording, and score both choices."""
        rows: list[Recorded] = []
        bar = _progress(len(examples), self.progress)
        for number, example in enumerate(examples, start=1):
            rows.append(self._record_one(program, example))
            bar(number)
        return rows

    def _record_one(self, program: dspy.Module, example: dspy.Example) -> Recorded:
        seen: list[tuple[Signals, Any]] = []
        try:
            with program.recording_selection(lambda signals, candidate: seen.append((signals, candidate))):
                pred = program(**example.inputs())
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception:
            return Recorded()
        own = float(self.metric(example, pred))
        result = pred.get("result")
        if not seen or result is None:
            return Recorded(own_score=own, answered=not bool(pred.get("abstained")))
        signals, candidate = seen[-1]
        abstain = float(self.metric(example, _prediction(result.model_copy(deep=True), None)))
        answer = own if not result.abstained else (
            float(self.metric(example, _prediction(result.model_copy(deep=True), candidate))) if candidate else 0.0)
        return Recorded(signals=signals.vector(), answer_score=answer, abstain_score=abstain, own_score=own,
                        answered=not result.abstained)

    # -- fitting ---------------------------------------------------------------------------------
    def _fit(self, rows: list[Recorded], report: SelectionReport) -> Selector | None:
        usable = [r for r in rows if r.signals is not None]
        if not any(r.answer_score > r.abstain_score for r in usable) or not any(
                r.abstain_score > r.answer_score for r in usable):
            report.reasons.append("on the fit set answering and abstaining never differ in one direction: nothing "
                                  "to learn; the selector stays off")
            return None
        x = np.array([[r.signals[name] for name in SIGNAL_NAMES] for r in usable])  # type: ignore[index]
        gain = np.array([r.answer_score - r.abstain_score for r in usable])
        weights, bias = fit_logistic(x, (gain > 0).astype(float), np.abs(gain) + 1e-3, self.l2)
        model = Selector(weights={n: round(float(w), 6) for n, w in zip(SIGNAL_NAMES, weights, strict=True) if w},
                         bias=round(bias, 6), fitted_on=len(usable))
        best_t, best = 0.5, -1.0
        for t in np.round(np.linspace(0.05, 0.95, 19), 2):  # ties: the threshold nearest 0.5
            model.threshold = float(t)
            score = _mean(rows, model)
            if score > best + 1e-9 or (abs(score - best) <= 1e-9 and abs(t - 0.5) < abs(best_t - 0.5)):
                best_t, best = float(t), score
        model.threshold = best_t
        return model

    def _off(self, program: dspy.Module, start: dict[str, Any], report: SelectionReport, reason: str) -> dspy.Module:
        program.selector.load_state(start)
        report.reasons.append(reason)
        self.say(reason)
        return program


def _decision(row: Recorded, model: Selector | None) -> float:
    """What ``row`` scores with ``model`` deciding (its own outcome where no model, or no signals)."""
    if model is None or row.signals is None:
        return row.own_score
    return row.answer_score if model.answers(Signals(**row.signals)) else row.abstain_score


def _mean(rows: Sequence[Recorded], model: Selector | None) -> float:
    return round(float(np.mean([_decision(r, model) for r in rows])), 6) if rows else 0.0


def _flips(rows: Sequence[Recorded], model: Selector) -> int:
    return sum(1 for r in rows if r.signals is not None and model.answers(Signals(**r.signals)) != r.answered)


def _prediction(result: Any, candidate: Any) -> dspy.Prediction:
    """``result`` as an abstention (``candidate`` None) or answered with ``candidate`` (a finished answer)."""
    if candidate is None:
        if not result.abstained:
            result.abstain_reason = AbstainReason.LOW_CONFIDENCE
        result.abstained, result.answer, result.citations, result.mode = True, "", [], "none"
    else:
        result.abstained, result.abstain_reason, result.abstain_message = False, None, ""
        result.answer, result.citations, result.passages, result.mode = (
            candidate.answer, candidate.citations, candidate.passages, "extractive")
    return dspy.Prediction(answer=result.answer, abstained=result.abstained, result=result, passages=result.passages)


def _progress(total: int, enabled: bool) -> Callable[[int], None]:
    if not enabled or not sys.stderr.isatty():
        return lambda done: None
    from tqdm import tqdm

    bar = tqdm(total=total, desc="recording for selection", unit="q", file=sys.stderr)

    def update(done: int) -> None:
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update


__all__ = ["SelectAnswers", "SelectionReport", "fit_logistic"]
