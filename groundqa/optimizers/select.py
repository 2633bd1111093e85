"""``SelectAnswers``: a DSPy optimizer that fits the program's answer-or-abstain model on the trainset.

The gates decide one signal at a time (:mod:`groundqa.optimizers.calibrate` moves them one threshold at a
time). This optimizer fits what weighs them together, the program's :class:`~groundqa.programs.selection.Selector`
(selective answering, after Kamath, Jia and Liang 2020):

1. run the program once on every train question with the selector off, recording each run's
   :class:`~groundqa.programs.selection.Signals` and its candidate answer (the answer it gave, or the best
   passage sentence it would give), and score both choices with the metric: answering with the candidate and
   abstaining. That is the only pass that asks the LM; everything after it is arithmetic;
2. fit a logistic model: the label is "answering scores better than abstaining", each question weighted by
   how much better (a question where both choices score alike teaches nothing), L2-regularised on
   standardised signals; then the threshold that maximises the mean metric on the questions it was fitted on;
3. check it by grouped cross-validation: the questions are dealt into ``folds`` groups of whole documents
   (gold documents, or SQuAD articles: :func:`~groundqa.optimizers.calibrate.gold_documents`), and each fold
   is decided by a model fitted on the others. The mean over every question, each decided by a model that
   never saw its documents, is the check score (a ``valset``, when given, is the check instead);
4. keep the model fitted on every question only if the check gains at least ``min_gain`` and one question's
   worth over the program without it, else leave the selector off: never something the check says is worse
   than where the compile started. It is the best the compile can know, not a forecast: on SQuAD and bundled
   data its sign disagreed with the held-out questions' as often as not (docs/BENCHMARKS.md, "A learned
   answer-or-abstain model").

A trainset too small to fit, or one whose fit or check part has no should-abstain question or no answerable
one, leaves the selector off and says why. An interrupted run (Ctrl-C) leaves it off too: a half-recorded
trainset fits nothing honestly. The report is ``compiled.selection``.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import dspy
import numpy as np
from pydantic import BaseModel, Field

from groundqa.optimizers.calibrate import gold_documents
from groundqa.optimizers.progress import progress_bar
from groundqa.programs.selection import SIGNAL_NAMES, Candidate, Selector, Signals
from groundqa.signatures.types import AbstainReason

MIN_TRAIN = 16


class SelectionReport(BaseModel):
    """What the selection fit did and why (also logged to MLflow by the compile)."""

    kept: str = Field("off", description="'fitted' or 'off'")
    reasons: list[str] = Field(default_factory=list)
    n_fit: int = Field(0, description="questions the kept model is fitted on")
    n_check: int = Field(0, description="questions the check scores (out of fold, or the valset)")
    folds: int = Field(0, description="cross-validation folds (0: a valset was the check)")
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

    def __init__(self, metric: Callable[..., Any], seed: int = 0, folds: int = 5,
                 min_train: int = MIN_TRAIN, l2: float = 3.0, min_gain: float = 0.01,
                 group: Callable[[Any], Any] | None = None, say: Callable[[str], None] | None = None,
                 progress: bool = True) -> None:
        super().__init__()
        self.metric = metric
        self.seed = seed
        self.folds = folds
        """Cross-validation folds of the check (fewer when there are fewer groups of documents)."""
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
        fit, check = list(trainset), list(valset or [])
        report.n_fit, report.n_check = len(fit), len(check) or len(fit)
        for part, items in (("train", fit), ("check", check)):
            flags = {bool(e.get("should_abstain")) for e in items}
            if items and flags != {False, True}:
                missing = "should-abstain" if True not in flags else "answerable"
                return self._off(program, start, report, f"the {part} set has no {missing} question: answering "
                                                         "cannot be weighed against abstaining; the selector stays off")
        selector.load_state(Selector().model_dump())  # record the stages' own decisions
        try:
            self.say(f"running the program once on {len(fit) + len(check)} train question(s) (the only LM pass)")
            rows = self.record(program, [*fit, *check])
        except KeyboardInterrupt:
            return self._off(program, start, report, "interrupted while recording the trainset: the selector stays off")
        fit_rows, check_rows = rows[: len(fit)], rows[len(fit):]
        fitted = self.fit_rows(fit_rows, report)
        if fitted is None:
            return self._off(program, start, report, report.reasons[-1] if report.reasons else "nothing to fit")
        report.selector = fitted.dump_state()
        report.fit_start, report.fit_best = mean_score(fit_rows, None), mean_score(fit_rows, fitted)
        report.oracle_fit = round(float(np.mean([max(r.answer_score, r.abstain_score) if r.signals else r.own_score
                                                 for r in fit_rows])), 6)
        report.flips_fit = _flips(fit_rows, fitted)
        if check_rows:
            report.check_start, report.check_best = mean_score(check_rows, None), mean_score(check_rows, fitted)
            report.flips_check = _flips(check_rows, fitted)
        else:
            folds = grouped_folds(fit, self.folds, self.seed, self.group)
            report.folds = len(set(folds))
            decided = self.out_of_fold(fit_rows, folds)
            report.check_start = mean_score(fit_rows, None)
            report.check_best = round(float(np.mean(decided)), 6)
            report.flips_check = sum(1 for r, d in zip(fit_rows, decided, strict=True) if d != r.own_score)
        needed = max(self.min_gain, 1.0 / max(report.n_check, 1))
        how = f"{report.folds}-fold grouped cross-validation" if report.folds else "the check set"
        if report.check_best < report.check_start + needed - 1e-9:
            report.reasons.append(f"the fitted selector scores {report.check_best:.3f} in {how} against "
                                  f"{report.check_start:.3f} without it (needs +{needed:.3g}): it stays off")
            selector.load_state(start)
        else:
            selector.load_state(report.selector)
            report.kept = "fitted"
        report.seconds = round(time.perf_counter() - started, 2)
        self.say(f"selector {report.kept}: train {report.fit_start:.3f} -> {report.fit_best:.3f} "
                 f"(oracle {report.oracle_fit:.3f}); {how} {report.check_start:.3f} -> {report.check_best:.3f} "
                 f"({report.flips_check} of {report.n_check} outcomes changed, {report.seconds:.0f}s)")
        return program

    def out_of_fold(self, rows: list[Recorded], folds: list[int]) -> list[float]:
        """Each row's score decided by a model fitted on the other folds (its own outcome where they teach
        nothing)."""
        decided = [r.own_score for r in rows]
        for fold in sorted(set(folds)):
            train = [r for r, f in zip(rows, folds, strict=True) if f != fold]
            model = self.fit_rows(train, SelectionReport())
            for i, (row, f) in enumerate(zip(rows, folds, strict=True)):
                if f == fold:
                    decided[i] = _decision(row, model)
        return decided

    # -- recording -------------------------------------------------------------------------------
    def record(self, program: dspy.Module, examples: Sequence[dspy.Example]) -> list[Recorded]:
        """Run ``program`` once per example with the selector recording, and score both choices."""
        rows: list[Recorded] = []
        bar = progress_bar(len(examples), "recording for selection", "q", self.progress)
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
        if not result.abstained:
            answer = own
        elif candidate is None:  # nothing to answer with: the stage keeps the refusal whatever the model says
            answer = abstain
        else:
            answer = float(self.metric(example, _prediction(result.model_copy(deep=True), candidate)))
        return Recorded(signals=signals.vector(), answer_score=answer, abstain_score=abstain, own_score=own,
                        answered=not result.abstained)

    # -- fitting ---------------------------------------------------------------------------------
    def fit_rows(self, rows: list[Recorded], report: SelectionReport) -> Selector | None:
        """The model fitted on ``rows`` (its threshold chosen on them too); None, with the reason in ``report``,
        when they teach nothing."""
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
            score = mean_score(rows, model)
            if score > best + 1e-9 or (abs(score - best) <= 1e-9 and abs(t - 0.5) < abs(best_t - 0.5)):
                best_t, best = float(t), score
        model.threshold = best_t
        return model

    def _off(self, program: dspy.Module, start: dict[str, Any], report: SelectionReport, reason: str) -> dspy.Module:
        program.selector.load_state(start)
        report.reasons.append(reason)
        self.say(reason)
        return program


def grouped_folds(items: Sequence[Any], k: int, seed: int, group: Callable[[Any], Any]) -> list[int]:
    """A fold number (0..k-1) for each item: whole groups (``group``: gold documents, articles) dealt in a seeded
    order to the fold that holds the fewest items so far, so no fold shares a document with another."""
    groups: dict[Any, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(group(item), []).append(i)
    order = list(groups.values())
    random.Random(seed).shuffle(order)
    order.sort(key=len, reverse=True)  # large groups first: the folds come out even
    k = max(1, min(k, len(order)))
    sizes, out = [0] * k, [0] * len(items)
    for members in order:
        fold = min(range(k), key=lambda f: (sizes[f], f))
        sizes[fold] += len(members)
        for i in members:
            out[i] = fold
    return out


def _decision(row: Recorded, model: Selector | None) -> float:
    """What ``row`` scores with ``model`` deciding (its own outcome where no model, or no signals)."""
    if model is None or row.signals is None:
        return row.own_score
    return row.answer_score if model.answers(Signals(**row.signals)) else row.abstain_score


def mean_score(rows: Sequence[Recorded], model: Selector | None) -> float:
    return round(float(np.mean([_decision(r, model) for r in rows])), 6) if rows else 0.0


def _flips(rows: Sequence[Recorded], model: Selector) -> int:
    return sum(1 for r in rows if r.signals is not None and model.answers(Signals(**r.signals)) != r.answered)


def _prediction(result: Any, candidate: Candidate | None) -> dspy.Prediction:
    """``result`` as an abstention (``candidate`` None) or answered with ``candidate``, as the stage would."""
    if candidate is None:
        if not result.abstained:
            result.abstain_reason = AbstainReason.LOW_CONFIDENCE
        result.abstained, result.answer, result.citations, result.mode = True, "", [], "none"
    else:
        candidate.answer_in(result)
    return dspy.Prediction(answer=result.answer, abstained=result.abstained, result=result, passages=result.passages)


__all__ = ["Recorded", "SelectAnswers", "SelectionReport", "fit_logistic", "grouped_folds", "mean_score"]
