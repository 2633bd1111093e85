"""Does a fitted answer-or-abstain model carry over? ``python -m benchmarks run --suite selection|selection-squad``.

:class:`~groundqa.optimizers.select.SelectAnswers` fits a logistic model over every stage's signals on the train
questions and keeps it only when its grouped cross-validation gains. This suite shows each figure that decision
rests on, and what the held-out questions say about it, kept or not:

* train: the program's own decisions, the model scored on the questions it was fitted on, and the oracle (the
  better of answering and abstaining on every question: the most any selector could reach);
* check: the same questions, each decided by a model fitted on the other folds (whole documents or articles);
* held out: the bundled test split, or SQuAD's held-out articles, with the model fitted on every train question
  **forced on**, whatever the check decided (the figure a compile would have given had it kept the model).

Nothing is fitted on the held-out questions; they are only scored.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from benchmarks.registry import register
from benchmarks.suite_setup import (
    build_store,
    load_average_text,
    quiet_logs,
    say,
    scratch_dir,
    skipped_result,
    suite_data,
)


@register("selection")
def selection_suite(args: argparse.Namespace) -> dict[str, Any]:
    from groundqa.app import build_program, configure_lm
    from groundqa.compile import CompileOptions, check_group
    from groundqa.config import load_settings
    from groundqa.datasets.examples import to_example
    from groundqa.metrics.composite import make_grounding_metric
    from groundqa.optimizers.select import SelectAnswers, SelectionReport, grouped_folds, mean_score

    quiet_logs()
    settings = load_settings(lm=getattr(args, "lm", None))
    data = suite_data(args)
    config = {"lm": settings.lm, "data": data.data, "train": len(data.train), "held_out": len(data.questions),
              "quick": data.quick, "seed": data.seed}
    if data.skip:
        return skipped_result("Selection", config, data.skip)
    configure_lm(settings)
    group = check_group(CompileOptions(optimizer="select", dataset=data.data))
    optimizer = SelectAnswers(make_grounding_metric("offline"), seed=data.seed, progress=False, say=say)
    train = [to_example(q) for q in data.train]
    held = [to_example(q) for q in data.questions]
    load_before = load_average_text()
    with scratch_dir("groundqa-selection-") as tmp:
        store = build_store(tmp / "chroma", data.docs, settings, data.collection("selection"))
        # the scratch collection's name comes back run after run: no retrieval cache (LM answers stay cached)
        program = build_program(settings.model_copy(update={"cache": False}), store=store)
        say(f"selection: recording {len(train)} train and {len(held)} held-out questions")
        train_rows = optimizer.record(program, train)
        held_rows = optimizer.record(program, held)
    model = optimizer.fit_rows(train_rows, SelectionReport())
    folds = grouped_folds(train, optimizer.folds, optimizer.seed, group)
    decided = optimizer.out_of_fold(train_rows, folds)
    own_train, cv = mean_score(train_rows, None), sum(decided) / len(decided)
    needed = max(optimizer.min_gain, 1 / len(train_rows))
    kept = model is not None and cv >= own_train + needed - 1e-9
    oracle = sum(max(r.answer_score, r.abstain_score) if r.signals else r.own_score for r in train_rows) / len(train_rows)
    rows = [
        ["train (fitted on)", len(train_rows), own_train, mean_score(train_rows, model) if model else own_train, oracle],
        [f"check ({len(set(folds))}-fold grouped, out of fold)", len(train_rows), own_train, cv, None],
        ["held out (model forced on)", len(held_rows), mean_score(held_rows, None),
         mean_score(held_rows, model) if model else mean_score(held_rows, None), None],
    ]
    weights = sorted((model.weights.items() if model else []), key=lambda kv: -abs(kv[1]))[:8]
    notes = [
        f"{data.description} ({data.data}): {len(train_rows)} train questions (the compile's), {len(held_rows)} held "
        f"out; LM {settings.lm}; the check groups {'articles' if data.dataset.kind == 'squad' else 'gold documents'}.",
        f"The compile would {'keep' if kept else 'leave off'} the selector: check {own_train:.3f} -> {cv:.3f} "
        f"(needs +{needed:.3g}).",
        "Largest weights (raw units): " + (", ".join(f"{n} {w:+.2f}" for n, w in weights) or "none (nothing to fit)")
        + (f"; threshold {model.threshold}" if model else "") + ".",
        f"Load average (1/5/15 min) before: {load_before}; after: {load_average_text()} ({os.cpu_count()} cores).",
    ]
    labels = ["train (fitted on)", "check (out of fold)", "held out (forced on)"]
    chart = {"title": f"answer-or-abstain model, {data.dataset.kind}", "ylabel": "mean composite",
             "series": {"program's own decisions": {label: r[2] for label, r in zip(labels, rows, strict=True)},
                        "with the fitted model": {label: r[3] for label, r in zip(labels, rows, strict=True)}}}
    return {
        "title": f"Selection: a fitted answer-or-abstain model, train -> check -> held out ({data.dataset.kind})",
        "config": config,
        "results": {"rows": rows, "kept": kept, "model": model.dump_state() if model else None},
        "tables": [{"title": "Mean composite", "columns": ["questions", "n", "own decisions", "with the model",
                                                          "oracle"], "rows": rows}],
        "notes": notes,
        "chart": chart,
        "headline": [f"selection ({data.dataset.kind}): check {own_train:.3f} -> {cv:.3f} "
                     f"({'kept' if kept else 'off'}); held out, forced on: {rows[2][2]:.3f} -> {rows[2][3]:.3f}"],
    }


@register("selection-squad")
def selection_squad_suite(args: argparse.Namespace) -> dict[str, Any]:
    """The selection suite on SQuAD 2.0: the compile's training-article questions, the held-out articles."""
    env = os.environ.get("GROUNDQA_BENCH_SQUAD")
    return selection_suite(argparse.Namespace(**{**vars(args), "data": f"squad:{env}" if env else "squad"}))
