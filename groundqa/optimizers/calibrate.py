"""``CalibrateGates``: a DSPy optimizer that searches a program's grounding gates against the metric.

Demos and instructions cannot move a threshold. The decisions that most change grounding quality —
is this passage evidence, is this premise supported, does this sentence answer what was asked —
are numbers (:class:`~groundqa.programs.gates.Gates`), and their right values depend on the corpus
and the embedder. This optimizer fits them on the user's own train split:

1. split the trainset into a *fit* part and a *check* part (stratified by should-abstain, and grouped
   by gold document, so that check asks about passages the fit never saw), unless a ``valset`` is given
   for the check;
2. score the program's current gates on *fit*, after asking the LM about every fit question once with
   every gate in front of it lifted (premises off, the lowest evidence floor, the LM first): that pass
   pays for the LM calls and retrievals, so that moving a floor never needs a new LM call;
3. run an Optuna TPE search (seeded) over the decision gates' declared ranges, its first half spent
   on local moves (one gate a quarter of its range away from the current value); each trial re-runs
   *fit* with the LM and retrieval answers memoised, so a trial costs metric time, not LM time (a
   gate that moves a passage in or out of the context asks the LM once for that context, then never
   again). The size gates (:data:`SIZE_GATES`: what every prompt holds) join the search with
   ``sizes=True``, each new combination paying an LM pass;
4. prefer parsimony: among the trials within ``tolerance`` of the best fit score, the one that moves the
   fewest gates (then the best-scoring) is the winner, since a gate moved to gain a question or two of
   *fit* is how a calibration overfits; then each gate the winner moved is put back, one at a time, and
   stays back where *fit* stays within ``tolerance`` of the winner (``prune``: a TPE trial moves every gate
   at once, most of them for nothing the fit set can see);
5. score the winner and the current gates on *check*; keep the winner only if it beats them there by at
   least ``min_gain`` (0.01) *and* by one question's worth (1 / the check set's size), else keep the
   current gates: never something worse than the defaults on check, and no change that check cannot tell
   from them (a tie, or a gain of less than one question, is a gate moved for the fit set alone: on the
   10-question check of a 62-question corpus, +0.025 kept gates that lost 0.081 on its held-out half).

What it cannot do is said, not hidden: a trainset too small to calibrate keeps the gates; a
trainset (or check set) with no should-abstain question cannot calibrate abstention, so the gates
that decide refusing are left alone; an interrupted search (Ctrl-C) keeps the best trial so far, still
subject to the check (interrupted during the check, it keeps the current gates).
The report (every trial, the winner, the check scores, the reasons) is ``compiled.calibration``.
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import dspy
from pydantic import BaseModel, Field

from groundqa.optimizers.progress import progress_bar
from groundqa.programs.gates import Gates

MIN_TRAIN = 8
#: Gates that change what the LM is asked (how many passages, in which order, and whether it is asked at all):
#: each new combination pays an LM pass, so they are searched only when asked for (``sizes=True``).
SIZE_GATES = ("k", "max_passages", "lexical_weight", "lexical_pool", "extractive_first", "bridge_candidates")
#: Gates whose job is to refuse: they cannot be fitted without questions that should be refused.
ABSTENTION_GATES = ("evidence_floor", "min_sources", "min_confidence", "premise_threshold", "asked_premise_threshold",
                    "premise_floor", "answerability", "contradiction", "denial_similarity")


class Trial(BaseModel):
    number: int
    score: float
    gates: dict[str, Any]
    seconds: float


class CalibrationReport(BaseModel):
    """What the calibration did and why (also logged to MLflow by the compile)."""

    kept: str = Field(description="'calibrated' or 'defaults'")
    reasons: list[str] = Field(default_factory=list)
    start: dict[str, Any] = Field(default_factory=dict, description="the gates before calibration")
    best: dict[str, Any] = Field(default_factory=dict, description="the best trial's gates")
    gates: dict[str, Any] = Field(default_factory=dict, description="the gates the program leaves with")
    fit_start: float | None = None
    fit_best: float | None = None
    check_start: float | None = None
    check_best: float | None = None
    n_fit: int = 0
    n_check: int = 0
    trials: list[Trial] = Field(default_factory=list)
    interrupted: bool = False
    searched: list[str] = Field(default_factory=list)
    pruned: list[str] = Field(default_factory=list, description="gates the winner moved, put back (prune)")
    seconds: float = 0.0

    @property
    def curve(self) -> list[float]:
        """Best score so far after each trial (the optimisation curve)."""
        out: list[float] = []
        for trial in self.trials:
            out.append(max(trial.score, out[-1]) if out else trial.score)
        return out


class _MemoLM(dspy.BaseLM):
    """Serves a repeated request from memory (a calibration trial re-asks what the first pass asked)."""

    def __init__(self, inner: dspy.BaseLM) -> None:
        super().__init__(model=inner.model, model_type=inner.model_type, cache=False, num_retries=0)
        self.inner = inner
        self.kwargs = inner.kwargs
        self.memo: dict[str, list[Any]] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _MemoLM:
        return self

    def __call__(self, prompt: Any = None, *, messages: Any = None, **kwargs: Any) -> list[Any]:
        key = json.dumps([prompt, messages, kwargs], sort_keys=True, default=str)
        if key not in self.memo:
            self.memo[key] = self.inner(prompt, messages=messages, **kwargs)
        return list(self.memo[key])

    def forward(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - __call__ is overridden
        raise NotImplementedError


class _MemoRetrievals:
    """An in-memory retrieval cache, used while no other cache is configured."""

    def __init__(self) -> None:
        self.items: dict[str, Any] = {}

    def get(self, key: str) -> Any:
        return self.items.get(key)

    def put(self, key: str, passages: Any) -> None:
        self.items[key] = passages


@contextlib.contextmanager
def _premises_off(program: dspy.Module) -> Iterator[None]:
    """Premise verification off for the block, where the program has it (``config.verify_premises``)."""
    config = getattr(program, "config", None)
    if not hasattr(config, "verify_premises"):
        yield
        return
    saved, config.verify_premises = config.verify_premises, False
    try:
        yield
    finally:
        config.verify_premises = saved


@contextlib.contextmanager
def memoised(program: dspy.Module) -> Iterator[None]:
    """LM calls and retrievals of ``program`` answered from memory after their first time."""
    lm = dspy.settings.lm
    retriever = getattr(program, "retriever", None)
    saved = getattr(retriever, "cache", None)
    if retriever is not None and saved is None:
        retriever.cache = _MemoRetrievals()
    try:
        with dspy.context(lm=_MemoLM(lm) if lm is not None else None):
            yield
    finally:
        if retriever is not None and saved is None:
            retriever.cache = None


def gold_documents(item: Any) -> Any:
    """The default group of a question in :func:`stratified_split`: its gold documents (or itself)."""
    docs = tuple(sorted(getattr(item, "gold_docs", None) or ()))
    return docs or ("id", getattr(item, "id", None) or id(item))


def stratified_split(items: Sequence[Any], check_share: float, seed: int,
                     group: Callable[[Any], Any] = gold_documents) -> tuple[list[Any], list[Any]]:
    """``(fit, check)`` with about ``check_share`` of the answerable and of the should-abstain items in check,
    and the questions with the same gold documents on the same side.

    Questions about the same passage share its wording and its retrieval scores: split across fit and
    check, they let the check set reward gates fitted to that passage, and the check promises a gain
    that documents it never saw do not give (SQuAD, 360 training-article questions: +0.129 on check,
    −0.003 on the held-out articles). So whole groups (the questions with the same gold documents; a
    question without any is its own group; ``group`` may say otherwise, e.g. the article of a passage)
    go to check, in a seeded order, each one that brings both classes nearer their share (a large group
    may overshoot one class by less than it fills the other)."""
    groups: dict[Any, list[Any]] = {}
    for item in items:
        groups.setdefault(group(item), []).append(item)
    order = list(groups.values())
    random.Random(seed).shuffle(order)
    want = {flag: round(sum(bool(getattr(e, "should_abstain", False)) is flag for e in items) * check_share)
            for flag in (False, True)}
    have = {False: 0, True: 0}
    fit: list[Any] = []
    check: list[Any] = []
    for group in order:
        adds = {flag: sum(bool(getattr(e, "should_abstain", False)) is flag for e in group) for flag in (False, True)}
        before = sum(abs(want[f] - have[f]) for f in have)
        if sum(abs(want[f] - have[f] - adds[f]) for f in have) < before:  # the group brings check nearer its share
            check.extend(group)
            have = {f: have[f] + adds[f] for f in have}
        else:
            fit.extend(group)
    return fit, check


class CalibrateGates(dspy.teleprompt.Teleprompter):
    """Fit ``student.gates`` to ``metric`` on the trainset (see the module docstring)."""

    def __init__(self, metric: Callable[..., Any], n_trials: int = 60, seed: int = 0, check_share: float = 1 / 3,
                 min_train: int = MIN_TRAIN, gates: Sequence[str] | None = None, sizes: bool = False,
                 on_trial: Callable[[Trial], None] | None = None, say: Callable[[str], None] | None = None,
                 progress: bool = True, tolerance: float = 0.01, min_gain: float = 0.01,
                 group: Callable[[Any], Any] | None = None, prune: bool = True,
                 fixed: Sequence[str] = (), fixed_reason: str = "") -> None:
        super().__init__()
        self.fixed, self.fixed_reason = tuple(fixed), fixed_reason
        """Gates kept at their values, and why (e.g. the judge's gates on data the judge was trained on)."""
        self.prune = prune
        """Put back, one by one, the gates the winner moved whose move the fit set cannot tell from none
        (:meth:`_prune`)."""
        self.group = group or gold_documents
        """What keeps questions on one side of the fit/check split (default: their gold documents)."""
        self.metric = metric
        self.tolerance = tolerance
        """Fit-score margin within which the trial that moves the fewest gates beats the best one."""
        self.min_gain = min_gain
        """How much the winner must beat the current gates by on the check set to be kept (a smaller gain is
        noise on a check set of tens of questions); never less than one question's worth (:meth:`needed_gain`)."""
        self.n_trials = n_trials
        self.seed = seed
        self.check_share = check_share
        self.min_train = min_train
        default = [g for g in Gates.search_space() if sizes or g not in SIZE_GATES]
        self.gates = tuple(gates) if gates is not None else tuple(default)
        self.on_trial = on_trial
        self.say = say or (lambda text: print(f"calibrate: {text}", file=sys.stderr))
        self.progress = progress

    # -- scoring -------------------------------------------------------------------------------
    def score(self, program: dspy.Module, examples: Sequence[dspy.Example]) -> float:
        """Mean metric of ``program`` over ``examples`` (a failing question scores 0)."""
        total = 0.0
        for example in examples:
            try:
                pred = program(**example.inputs())
                total += float(self.metric(example, pred))
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception:  # one question's failure is a zero, not the end of the search
                continue
        return total / len(examples) if examples else 0.0

    # -- the optimizer -------------------------------------------------------------------------
    def compile(self, student: dspy.Module, *, trainset: Sequence[dspy.Example],
                valset: Sequence[dspy.Example] | None = None, **_: Any) -> dspy.Module:
        started = time.perf_counter()
        program = student.deepcopy()
        gates: Gates | None = getattr(program, "gates", None)
        if not isinstance(gates, Gates):
            raise TypeError(f"{type(student).__name__} has no Gates to calibrate (expected a .gates attribute)")
        start = gates.model_dump()
        report = CalibrationReport(kept="defaults", start=start, gates=start)
        program.calibration = report
        if len(trainset) < self.min_train:
            report.reasons.append(f"the trainset has {len(trainset)} question(s); calibration needs at least "
                                  f"{self.min_train}: the gates keep their values")
            self.say(report.reasons[-1])
            return program
        fit, check = (list(trainset), list(valset)) if valset else stratified_split(trainset, self.check_share, self.seed,
                                                                                   self.group)
        report.n_fit, report.n_check = len(fit), len(check)
        names = list(self.gates)
        if self.fixed and set(names) & set(self.fixed):
            names = [n for n in names if n not in self.fixed]
            why = f"{self.fixed_reason}: " if self.fixed_reason else ""
            report.reasons.append(f"{why}{', '.join(self.fixed)} keep their values")
            self.say(report.reasons[-1])
        if not any(e.get("should_abstain") for e in fit) or (check and not any(e.get("should_abstain") for e in check)):
            names = [n for n in names if n not in ABSTENTION_GATES]
            report.reasons.append("no should-abstain question in the fit or check set: abstention cannot be "
                                  "calibrated, so its gates (" + ", ".join(ABSTENTION_GATES) + ") keep their values")
            self.say(report.reasons[-1])
        report.searched = names
        if not names:
            return program

        with memoised(program):
            self.say(f"scoring the current gates on {len(fit)} fit question(s) (the LM answers once, then from memory)")
            self._ask_everything(program, fit)
            report.fit_start = self.score(program, fit)
            best_score, best_gates = report.fit_start, dict(start)
            try:
                best_score, best_gates = self._search(program, fit, names, start, report)
            except KeyboardInterrupt:
                report.interrupted = True
                report.reasons.append(f"interrupted after {len(report.trials)} trial(s): the best so far is kept")
                self.say(report.reasons[-1])
                if report.trials:
                    winner = max(report.trials, key=lambda t: t.score)
                    if winner.score > best_score:
                        best_score, best_gates = winner.score, winner.gates
            best_score, best_gates = self._parsimonious(report.trials, start, report.fit_start or 0.0, best_score,
                                                        best_gates)
            if self.prune and not report.interrupted:
                try:
                    best_score, best_gates = self._prune(program, fit, start, best_score, best_gates, report)
                except KeyboardInterrupt:  # the winner as the search left it
                    program.gates.load_state(start)
                    report.interrupted = True
                    report.reasons.append("interrupted while putting gates back: the search's winner is kept")
                    self.say(report.reasons[-1])
            report.fit_best, report.best = best_score, best_gates
            try:
                self._decide(program, start, best_gates, check, report)
            except KeyboardInterrupt:  # interrupted (again) while checking: nothing unchecked is kept
                program.gates.load_state(start)
                report.kept, report.gates, report.interrupted = "defaults", dict(start), True
                report.reasons.append("interrupted while scoring the best trial on the check set: the current "
                                      "gates are kept")
                self.say(report.reasons[-1])
        report.seconds = round(time.perf_counter() - started, 2)
        self.say(f"kept the {'calibrated' if report.kept == 'calibrated' else 'starting'} gates: fit {report.fit_start:.3f} -> {report.fit_best:.3f}"
                 + (f", check {report.check_start:.3f} -> {report.check_best:.3f}" if report.check_best is not None
                    else "") + f" ({len(report.trials)} trials, {report.seconds:.0f}s)")
        return program

    def _ask_everything(self, program: dspy.Module, fit: list[dspy.Example]) -> None:
        """Ask the LM about every fit question once, before any gate is scored, so that no trial pays an LM
        call. What the LM is shown depends on the size gates only, but *whether* it is asked depends on the
        gates in front of it: a premise or evidence floor that refuses a question first, and
        ``extractive_first`` answering without it. So this pass lifts them all (premises off, the lowest
        evidence floor, one source, the LM first); the trials then find every answer in memory."""
        gates: Gates = program.gates  # type: ignore[assignment]
        low = Gates.search_space()
        lifted = {"extractive_first": 1.0, "evidence_floor": low["evidence_floor"][0],
                  "min_sources": low["min_sources"][0]}
        with gates.overridden(**lifted), _premises_off(program):
            self.score(program, fit)

    def _search(self, program: dspy.Module, fit: list[dspy.Example], names: list[str], start: dict[str, Any],
                report: CalibrationReport) -> tuple[float, dict[str, Any]]:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        space = Gates.search_space()
        study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=self.seed))
        study.enqueue_trial({n: start[n] for n in names})  # the current gates are trial 0
        for neighbour in neighbours(start, names, space)[: max(0, self.n_trials // 2)]:
            study.enqueue_trial(neighbour)  # local moves first: one gate a quarter of its range away
        best_score, best_gates = report.fit_start or 0.0, dict(start)
        bar = progress_bar(self.n_trials, "calibrating gates", "trial", self.progress)
        for number in range(self.n_trials):
            trial = study.ask()
            values = dict(start)
            for name in names:
                low, high, kind = space[name]
                values[name] = (trial.suggest_int(name, int(low), int(high)) if kind is int
                                else round(trial.suggest_float(name, float(low), float(high)), 3))
            score = self._trial(program, fit, values, report)
            study.tell(trial, score)
            if score > best_score + 1e-9:
                best_score, best_gates = score, values
            bar(number + 1, best=f"{best_score:.3f}")
        program.gates.load_state(start)
        return best_score, best_gates

    def _trial(self, program: dspy.Module, fit: list[dspy.Example], gates: dict[str, Any],
               report: CalibrationReport) -> float:
        """Score ``gates`` on ``fit`` (from memory), record the trial in ``report`` and tell ``on_trial``."""
        t0 = time.perf_counter()
        program.gates.load_state(gates)
        score = self.score(program, fit)
        record = Trial(number=len(report.trials), score=round(score, 6), gates=gates,
                       seconds=round(time.perf_counter() - t0, 3))
        report.trials.append(record)
        if self.on_trial is not None:
            self.on_trial(record)
        return score

    def _parsimonious(self, trials: Sequence[Trial], start: dict[str, Any], start_score: float, best_score: float,
                      best_gates: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        """The trial within ``tolerance`` of ``best_score`` that moves the fewest gates (ties: the better), among
        the trials that beat the starting gates on fit (one that only equals them is no reason to move)."""
        def moved(gates: dict[str, Any]) -> int:
            return sum(gates.get(name) != value for name, value in start.items())

        near = [t for t in trials if t.score >= best_score - self.tolerance and t.score > start_score + 1e-9
                and moved(t.gates)]
        if not near:
            return best_score, best_gates
        winner = min(near, key=lambda t: (moved(t.gates), -t.score, t.number))
        if moved(winner.gates) < moved(best_gates):
            self.say(f"a trial moving {moved(winner.gates)} gate(s) scores {winner.score:.3f}, within "
                     f"{self.tolerance} of the best ({best_score:.3f}, {moved(best_gates)} gates moved): it wins")
            return winner.score, dict(winner.gates)
        return best_score, best_gates

    def _prune(self, program: dspy.Module, fit: list[dspy.Example], start: dict[str, Any], best_score: float,
               best_gates: dict[str, Any], report: CalibrationReport) -> tuple[float, dict[str, Any]]:
        """Backward elimination: each gate ``best_gates`` moves from ``start`` is put back to its starting value, one
        at a time in declaration order, and stays back where the fit score stays within ``tolerance`` of
        ``best_score`` (and above the starting gates'). Each put-back is a trial (one pass over *fit*, from
        memory); a winner moving fewer than two gates is left as it is."""
        moved = [name for name in report.searched if best_gates.get(name) != start.get(name)]
        if len(moved) < 2:
            return best_score, best_gates
        self.say(f"the best trial moves {len(moved)} gates: putting each back where the fit set does not need it")
        fit_start = report.fit_start or 0.0
        current, current_score = dict(best_gates), best_score
        for name in moved:
            candidate = {**current, name: start[name]}
            score = self._trial(program, fit, candidate, report)
            if score >= best_score - self.tolerance and score > fit_start + 1e-9:
                current, current_score = candidate, score
        program.gates.load_state(start)
        kept = sum(current.get(name) != start.get(name) for name in moved)
        report.pruned = [name for name in moved if current.get(name) == start.get(name)]
        self.say(f"{kept} of {len(moved)} moved gates kept (fit {current_score:.3f}; the search's best {best_score:.3f})")
        return current_score, current

    def needed_gain(self, n_check: int) -> float:
        """What the winner must gain on a check set of ``n_check`` questions to be kept: ``min_gain``, and at
        least one question's worth (a mean of per-question scores in 0..1 moves by 1/n when one flips)."""
        return max(self.min_gain, 1.0 / max(n_check, 1))

    def _decide(self, program: dspy.Module, start: dict[str, Any], best: dict[str, Any], check: list[dspy.Example],
                report: CalibrationReport) -> None:
        if best == start:
            report.reasons.append("no trial beat the current gates on the fit set")
            program.gates.load_state(start)
            return
        if check:
            program.gates.load_state(start)
            report.check_start = self.score(program, check)
            program.gates.load_state(best)
            report.check_best = self.score(program, check)
            needed = self.needed_gain(len(check))
            if report.check_best < report.check_start + needed - 1e-9:
                relation = ("below" if report.check_best < report.check_start - 1e-9 else
                            "no better than" if report.check_best <= report.check_start + 1e-9 else
                            f"less than {needed:.3g} (min_gain {self.min_gain}, or one question of "
                            f"{len(check)}) above")
                report.reasons.append(f"the best trial scored {report.check_best:.3f} on the check set, {relation} the "
                                      f"current gates' {report.check_start:.3f}: the current gates are kept")
                program.gates.load_state(start)
                return
        program.gates.load_state(best)
        report.kept, report.gates = "calibrated", dict(best)


def neighbours(start: dict[str, Any], names: Sequence[str],
               space: dict[str, tuple[float | int, float | int, type]]) -> list[dict[str, Any]]:
    """The gates one step from ``start``, one gate at a time (a quarter of its range, 1 for an integer),
    both directions, clipped to the range: the local moves tried before TPE explores further."""
    moves: list[dict[str, Any]] = []
    for name in names:
        low, high, kind = space[name]
        step = 1 if kind is int else (float(high) - float(low)) / 4
        for sign in (-1, 1):
            value = min(high, max(low, start[name] + sign * step))
            value = int(value) if kind is int else round(float(value), 3)
            if value != start[name]:
                moves.append({n: (value if n == name else start[n]) for n in names})
    return moves


__all__ = ["ABSTENTION_GATES", "SIZE_GATES", "CalibrateGates", "CalibrationReport", "Trial", "memoised", "stratified_split"]
