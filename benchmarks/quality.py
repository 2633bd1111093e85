"""Quality suites: GroundedQA against plain DSPy RAG peers on the same LM, retriever and questions.

``quality``
    The same questions through :class:`~groundqa.programs.peers.PlainRAG`,
    :class:`~groundqa.programs.peers.RefineRAG`, GroundedQA with premise verification on and off, and
    GroundedQA compiled (``--program PATH``, else a quick BootstrapFewShot compile with the extractive
    teacher on at most 16 answerable train questions, 3 demos). One process, one LM object, one retriever,
    DSPy's cache and the retrieval cache off, so every program really calls the LM and the store.
    In-process memo caches (MiniLM embeddings, offline-judge verdicts) are emptied before each program, and each
    program reads the embedding cache as ingestion left it (:class:`~benchmarks.suite_setup.IngestedEmbeddings`:
    the chunks' vectors and, by default, each chunk's sentences), as a user's home has it after ``groundqa ingest``.
    Scores come from :func:`groundqa.evaluation.evaluate` (offline judge). LM calls, tokens, LM time and
    retrieval time come from GroundedQA's own usage and traces, and for the peers from meters wrapped
    around the same LM and retriever (the meters also run under GroundedQA, as a cross-check).
``quality-squad``
    The same on a SQuAD 2.0 sample of the held-out articles, compiled on the training articles; skipped
    when the file is not there. ``GROUNDQA_BENCH_SQUAD_EVAL=train`` evaluates on other questions of the
    training articles instead (development: whether a calibration carries over to new questions about
    the documents it was fitted on; not a held-out figure).

Options: the registry runner (``python -m benchmarks run --suite quality --quick``) takes the LM from
``GROUNDQA_LM`` (default ``embedded``) and the data/program from ``GROUNDQA_BENCH_DATA`` /
``GROUNDQA_BENCH_PROGRAM`` (``GROUNDQA_BENCH_SQUAD`` for ``quality-squad``); :mod:`benchmarks.peers`
takes them as flags.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import dspy

from benchmarks.meters import Instrumented, Meter, MeteredLM, MeteredRetriever, QuestionUsage, percentile
from benchmarks.registry import register
from benchmarks.suite_setup import (
    CALIBRATION_TRIALS,
    CALIBRATION_TRIALS_QUICK,
    COMPILE_BUDGET,
    COMPILE_MAX,
    IngestedEmbeddings,
    SuiteData,
    build_store,
    compile_quick,
    drop_process_caches,
    load_average_text,
    quiet_logs,
    say,
    scratch_dir,
    skipped_result,
    suite_data,
    suite_option,
    warm_up,
)
from groundqa.datasets.loaders import Question
from groundqa.experiment_data import DatasetError, parse_dataset_spec
from groundqa.store.chroma_store import CorpusStore

PLAIN, REFINE = "PlainRAG", "RefineRAG"
GQA, GQA_OFF, GQA_COMPILED = "GroundedQA", "GroundedQA (no premises)", "GroundedQA compiled"
PROGRAMS = (PLAIN, REFINE, GQA, GQA_OFF, GQA_COMPILED)


# -- one program's figures -------------------------------------------------------------------
def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def program_row(name: str, report: Any, usage: list[QuestionUsage], setup_s: float = 0.0) -> dict[str, Any]:
    """The figures of one program: quality from the evaluation report, cost from the usage records."""
    overall = report.metrics.overall.metrics
    answerable = [r.scores.score for r in report.records if not r.scores.should_abstain]
    multi = [r for r in report.records if r.type == "multi" and not r.scores.should_abstain]
    n = max(1, len(usage))
    total = sum(u.latency_s for u in usage)
    lm_s = sum(u.lm_s for u in usage)
    ret_s = sum(u.retrieval_s for u in usage)
    judge_s = sum(u.judge_s for u in usage)  # the answer judge's forward passes: a model's time, not the program's
    busy = sum(u.busy_s for u in usage) + judge_s
    meter_calls = sum(u.meter.lm_calls for u in usage if u.meter is not None)
    return {
        "program": name,
        "n": report.n,
        "score": overall.get("score"),
        "answerable_quality": _mean(answerable),
        "abstain_f1": overall.get("abstain_f1"),
        "abstain_recall": overall.get("abstain_recall"),
        "over_abstention_rate": overall.get("over_abstention_rate"),
        "multi_hop_correct": (sum(1 for r in multi if not r.abstained and (r.scores.str_em or 0) >= 1) / len(multi)
                              if multi else None),
        "citation_precision": overall.get("citation_precision"),
        "citation_recall": overall.get("citation_recall"),
        "str_em": overall.get("str_em"),
        "answer_rate": overall.get("answer_rate"),
        "error_rate": overall.get("error_rate"),
        "lm_calls_per_q": sum(u.lm_calls for u in usage) / n,
        "prompt_tokens_per_q": sum(u.prompt_tokens for u in usage) / n,
        "completion_tokens_per_q": sum(u.completion_tokens for u in usage) / n,
        "retrievals_per_q": sum(u.retrievals for u in usage) / n,
        "judgments_per_q": sum(u.judgments for u in usage) / n,
        "latency_p50_s": percentile([u.latency_s for u in usage], 50),
        "latency_p95_s": percentile([u.latency_s for u in usage], 95),
        "total_s": total,
        "lm_s": lm_s,
        "retrieval_s": ret_s,
        "judge_s": judge_s,
        "overhead_share": min(1.0, max(0.0, (total - lm_s - ret_s - judge_s) / total)) if total > 0 else None,
        "overhead_share_union": min(1.0, max(0.0, (total - busy) / total)) if total > 0 else None,
        "overhead_ms_per_q": 1000 * max(0.0, total - lm_s - ret_s - judge_s) / n,
        "lm_share": lm_s / total if total > 0 else None,
        "retrieval_share": ret_s / total if total > 0 else None,
        "judge_share": judge_s / total if total > 0 else None,
        "figures_from": usage[0].source if usage else "",
        "meter_lm_calls_per_q": meter_calls / n,
        "refine_failed_rollouts": sum(u.refine_failures for u in usage),
        "modes": {m: sum(u.mode == m for u in usage) for m in ("generated", "extractive", "none")
                  if any(u.mode == m for u in usage)},
        "setup_s": setup_s,
    }


def question_records(report: Any, usage: list[QuestionUsage]) -> list[dict[str, Any]]:
    """Per-question outcome and cost (for the JSON results)."""
    return [
        {"id": r.id, "type": r.type, "answer": r.answer, "abstained": r.abstained, "error": r.error,
         "score": round(r.scores.score, 4), "latency_s": round(u.latency_s, 3), "lm_calls": u.lm_calls,
         "prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens, "lm_s": round(u.lm_s, 3),
         "retrievals": u.retrievals, "retrieval_s": round(u.retrieval_s, 4), "judgments": u.judgments,
         "judge_s": round(u.judge_s, 3), "mode": u.mode}
        for r, u in zip(report.records, usage, strict=False)
    ]


# -- the comparison ------------------------------------------------------------------------
def run_quality(
    inner_lm: dspy.BaseLM,
    store: CorpusStore,
    questions: Sequence[Question],
    train: Sequence[Question],
    settings: Any,
    config_lm: str,
    program_path: str | Path | None = None,
    programs: Sequence[str] = PROGRAMS,
    peer_reasoning: bool = True,
    seed: int = 13,
    progress: bool = True,
    adapter: Any = None,
    quick: bool = False,
    calibration_group: Any = None,
    calibration_fixed: tuple[tuple[str, ...], str] = ((), ""),
    qa_overrides: dict[str, Any] | None = None,
    before_program: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Evaluate every program of ``programs`` on ``questions`` with ``inner_lm`` over ``store``.

    Peers call ``MeteredLM(inner_lm)``; GroundedQA calls ``GuardedLM(MeteredLM(inner_lm))`` (its runtime:
    budgets, usage, traces). Caches are not touched here: the caller turns them off. ``config_lm``
    picks GroundedQA's defaults (:meth:`QAConfig.for_lm`), ``qa_overrides`` changes them for every
    GroundedQA variant; ``before_program()`` runs before each program is timed (:class:`IngestedEmbeddings`'s
    ``fresh``). Returns ``{"rows": [...], "compile": ...,
    "reports": {name: EvaluationReport}}``.
    """
    from groundqa.evaluation import evaluate
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig
    from groundqa.programs.peers import PlainRAG, RefineRAG
    from groundqa.runtime.guarded_lm import GuardedLM

    meter = Meter()
    metered = MeteredLM(inner_lm, meter)
    guarded = GuardedLM(metered)
    adapter = adapter or dspy.ChatAdapter(use_json_adapter_fallback=not config_lm.startswith("embedded"))
    k = int(getattr(settings, "k", 4))
    retriever = MeteredRetriever(store, meter, k=k, cache=None)
    base_config = QAConfig.for_lm(config_lm, **(qa_overrides or {}))
    peer_k = min(k, base_config.gates.max_passages)  # the peers see as many passages as GroundedQA shows its LM

    def grounded(**overrides: Any) -> GroundedQA:
        return GroundedQA(retriever, QAConfig.for_lm(config_lm, **{**(qa_overrides or {}), **overrides}))

    compile_info: dict[str, Any] | None = None
    built: dict[str, tuple[Any, bool, float]] = {}
    for name in programs:
        started = time.perf_counter()
        if name == PLAIN:
            built[name] = (PlainRAG(retriever, k=peer_k, reasoning=peer_reasoning), False, 0.0)
        elif name == REFINE:
            built[name] = (RefineRAG(retriever, k=peer_k, reasoning=peer_reasoning), False, 0.0)
        elif name == GQA:
            built[name] = (grounded(verify_premises=True), True, 0.0)
        elif name == GQA_OFF:
            built[name] = (grounded(verify_premises=False), True, 0.0)
        elif name == GQA_COMPILED:
            student = grounded(verify_premises=True)
            if program_path is not None:
                from groundqa.programs.persistence import load_program

                load_program(student, program_path)
                compile_info = {"how": f"loaded from {program_path}"}
                built[name] = (student, True, time.perf_counter() - started)
            else:
                if progress:
                    say(f"quality: compiling GroundedQA (BootstrapFewShot, extractive teacher, "
                         f"<= {COMPILE_MAX} answerable train questions, {COMPILE_BUDGET} demos; then gate calibration "
                         f"on {'at most 36' if quick else 'all'} {len(train)} train questions) ...")
                with dspy.context(lm=guarded, adapter=adapter):
                    compiled, compile_info = compile_quick(
                        student, train, settings, seed,
                        trials=CALIBRATION_TRIALS_QUICK if quick else CALIBRATION_TRIALS,
                        calibrate_on=36 if quick else None, group=calibration_group,
                        fixed=calibration_fixed)
                built[name] = (compiled, True, time.perf_counter() - started)
        else:
            raise ValueError(f"unknown program {name!r}; choose from {', '.join(PROGRAMS)}")

    rows: list[dict[str, Any]] = []
    reports: dict[str, Any] = {}
    records: dict[str, list[dict[str, Any]]] = {}
    for i, (name, (program, is_grounded, setup_s)) in enumerate(built.items(), start=1):
        if progress:
            say(f"quality: [{i}/{len(built)}] {name} on {len(questions)} questions")
        drop_process_caches()
        if before_program is not None:
            before_program()
        wrapped = Instrumented(name, program, meter, grounded=is_grounded)
        with dspy.context(lm=guarded if is_grounded else metered, adapter=adapter):
            report = evaluate(wrapped, list(questions), threads=1, judge="offline", progress=progress)
        reports[name] = report
        rows.append(program_row(name, report, wrapped.usage, setup_s))
        records[name] = question_records(report, wrapped.usage)
        if progress:
            row = rows[-1]
            say(f"quality: {name}: composite {row['score']:.3f}, abstention F1 {row['abstain_f1'] or 0:.3f}, "
                 f"{row['total_s']:.0f} s")
    return {"rows": rows, "compile": compile_info, "reports": reports, "records": records, "peer_k": peer_k}


# -- tables, notes, chart --------------------------------------------------------------------
QUALITY_COLUMNS = [
    ("Program", "program"), ("Composite", "score"), ("Answerable quality", "answerable_quality"),
    ("Abstention F1", "abstain_f1"), ("Abstention recall", "abstain_recall"), ("Over-abstention", "over_abstention_rate"),
    ("Multi-hop correct", "multi_hop_correct"),
    ("Citation precision", "citation_precision"), ("Citation recall", "citation_recall"), ("STR-EM", "str_em"),
    ("Errors", "error_rate"),
]
COST_COLUMNS = [
    ("Program", "program"), ("LM calls/q", "lm_calls_per_q"), ("Prompt tokens/q", "prompt_tokens_per_q"),
    ("Completion tokens/q", "completion_tokens_per_q"), ("Retrievals/q", "retrievals_per_q"),
    ("Judgments/q", "judgments_per_q"), ("Latency p50 (s)", "latency_p50_s"), ("Latency p95 (s)", "latency_p95_s"),
    ("LM share", "lm_share"), ("Retrieval share", "retrieval_share"), ("Judge share", "judge_share"),
    ("Overhead share", "overhead_share"), ("Figures from", "figures_from"),
]


def _rows(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]]) -> list[list[Any]]:
    return [[_round(row.get(key)) for _, key in columns] for row in rows]


def _round(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def _f(value: Any, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


GATE_TARGETS = (  # the grounding-gates issue's targets for GroundedQA (premise verification on)
    ("answerable_quality", ">=", 0.80), ("abstain_f1", ">=", 0.90), ("abstain_recall", ">=", 0.85),
    ("over_abstention_rate", "<=", 0.10), ("multi_hop_correct", ">=", 0.70),
    ("latency_p50_s", "<=", 0.7), ("latency_p95_s", "<=", 2.0),
)


def gate_target_notes(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The grounding-gates targets next to the measured values, and compiled − baseline composite."""
    by = {r["program"]: r for r in rows}
    notes: list[str] = []
    for name in (GQA, GQA_COMPILED):
        g = by.get(name)
        if g is None:
            continue
        parts = []
        for key, how, target in GATE_TARGETS:
            value = g.get(key)
            if value is None:
                continue
            ok = value >= target if how == ">=" else value <= target
            parts.append(f"{key} {value:.3f} ({how} {target}: {'met' if ok else 'MISSED'})")
        notes.append(f"Gate targets — {name}: " + "; ".join(parts) + ".")
    if GQA in by and GQA_COMPILED in by:
        delta = (by[GQA_COMPILED]["score"] or 0.0) - (by[GQA]["score"] or 0.0)
        notes.append(f"Compiled (demos + calibrated gates) − baseline composite: {delta:+.3f} "
                     f"(target ≥ +0.08: {'met' if delta >= 0.08 else 'MISSED'}).")
    return notes


def type_table(reports: dict[str, Any]) -> dict[str, Any] | None:
    """Composite per question type (rows: programs)."""
    if not reports:
        return None
    types = sorted({t for rep in reports.values() for t in rep.metrics.by_type})
    rows = [[name, *[_round(rep.metrics.by_type[t].metrics.get("score")) if t in rep.metrics.by_type else None
                     for t in types]] for name, rep in reports.items()]
    counts = next(iter(reports.values())).metrics.by_type
    return {"title": "Composite by question type", "columns": ["Program", *[f"{t} ({counts[t].counts.get('n', '')})"
                                                                             if t in counts else t for t in types]],
            "rows": rows}


def target_notes(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The issue's targets next to the measured values (reported, never asserted)."""
    by = {r["program"]: r for r in rows}
    peers = [by[p] for p in (PLAIN, REFINE) if p in by]
    notes: list[str] = []
    for name in (GQA, GQA_COMPILED, GQA_OFF):
        g = by.get(name)
        if g is None or not peers:
            continue
        parts = []
        met = True
        for p in peers:
            q_ok = (g["answerable_quality"] or 0.0) >= (p["answerable_quality"] or 0.0)
            f_ok = (g["abstain_f1"] or 0.0) > (p["abstain_f1"] or 0.0)
            met = met and q_ok and f_ok
            parts.append(f"vs {p['program']}: answerable quality {_f(g['answerable_quality'])} vs "
                         f"{_f(p['answerable_quality'])} ({'≥' if q_ok else '<'}), abstention F1 "
                         f"{_f(g['abstain_f1'])} vs {_f(p['abstain_f1'])} ({'>' if f_ok else '≤'})")
        notes.append(f"Target 'GroundedQA ≥ each peer on answerable quality while beating them on abstention F1' "
                     f"— {name}: {'MET' if met else 'MISSED'}; " + "; ".join(parts) + ".")
    for name in (GQA, GQA_OFF, GQA_COMPILED):
        g = by.get(name)
        if g is None or g.get("overhead_share") is None:
            continue
        ok = g["overhead_share"] < 0.05
        notes.append(f"Target 'program overhead < 5% of wall time' — {name}: {'MET' if ok else 'MISSED'}, "
                     f"{100 * g['overhead_share']:.1f}% outside LM, retrieval and answer judge (LM "
                     f"{100 * (g['lm_share'] or 0):.1f}%, retrieval {100 * (g['retrieval_share'] or 0):.1f}%, answer "
                     f"judge {100 * (g['judge_share'] or 0):.1f}%; counting parallel calls once: "
                     f"{100 * (g['overhead_share_union'] or 0):.1f}%); {g.get('overhead_ms_per_q', 0):.0f} ms per "
                     "question outside them" + ("; no LM call was made, so the share is of the retrieval, judge "
                                                            "and program time alone" if not g.get("lm_s") else "") + ".")
    on, off = by.get(GQA), by.get(GQA_OFF)
    if on and off:
        notes.append(
            "Premise verification (measured trade-off, on − off): composite "
            f"{_signed(on['score'], off['score'])}, answerable quality "
            f"{_signed(on['answerable_quality'], off['answerable_quality'])}, abstention F1 "
            f"{_signed(on['abstain_f1'], off['abstain_f1'])}, over-abstention "
            f"{_signed(on['over_abstention_rate'], off['over_abstention_rate'])}; cost: "
            f"{_signed(on['lm_calls_per_q'], off['lm_calls_per_q'], 2)} LM calls/q, "
            f"{_signed(on['retrievals_per_q'], off['retrievals_per_q'], 2)} retrievals/q, latency p50 "
            f"{_signed(on['latency_p50_s'], off['latency_p50_s'], 2)} s.")
    return notes


def _signed(a: float | None, b: float | None, digits: int = 3) -> str:
    if a is None or b is None:
        return "–"
    return f"{a - b:+.{digits}f}"


def quality_result(outcome: dict[str, Any], config: dict[str, Any], extra_notes: Sequence[str] = ()) -> dict[str, Any]:
    """The registry result dict (tables, notes, chart) of a :func:`run_quality` outcome."""
    rows = outcome["rows"]
    n = rows[0]["n"] if rows else 0
    notes = list(extra_notes) + target_notes(rows) + gate_target_notes(rows)
    by = {r["program"]: r for r in rows}
    if REFINE in by:
        notes.append(f"RefineRAG: {by[REFINE]['refine_failed_rollouts']} Refine rollout(s) or advice call(s) failed "
                     "with an exception (dspy.Refine prints and skips them); a question whose every rollout fails "
                     "counts as an error, not an abstention.")
    cross = [f"{r['program']} {r['lm_calls_per_q']:.2f} (usage) vs {r['meter_lm_calls_per_q']:.2f} (meter)"
             for r in rows if r["figures_from"] == "trace"]
    if cross:
        notes.append("LM calls per question, GroundedQA's own usage vs the meter around the same LM: "
                     + "; ".join(cross) + ".")
    modes = [f"{r['program']} {r['modes'].get('generated', 0)} generated / {r['modes'].get('extractive', 0)} "
             f"extractive / {r['modes'].get('none', 0)} none" for r in rows if r.get("modes")]
    if modes:
        notes.append("Where GroundedQA's answers came from (result.mode over all questions; 'none' = abstained): "
                     + "; ".join(modes) + ".")
    if outcome.get("compile"):
        notes.append(f"Compiled program: {outcome['compile']}.")
    notes.append(
        "Answerable quality = mean composite over should_abstain=False questions (an abstention there scores 0). "
        "Composite, abstention F1, over-abstention, citation precision/recall (ALCE, over answered items) and "
        "STR-EM come from groundqa.evaluation.evaluate with the offline judge. Latency is per question, "
        "program only (scoring excluded). Overhead share = (total − LM time − retrieval time − answer-judge time) / "
        "total, summed over questions; GroundedQA's LM and retrieval time come from its traces (LMCall/RetrievalCall "
        "latency_ms), its answer judge's from its usage (judgments, judge_ms: forward passes of the tuned judge in "
        "llama.cpp), the peers' from meters around the same LM and retriever.")
    chart = {
        "title": f"Peers on {n} questions: composite, abstention F1, answerable quality",
        "ylabel": "score (0–1)",
        "series": {
            "composite": {r["program"]: r["score"] or 0.0 for r in rows},
            "abstention F1": {r["program"]: r["abstain_f1"] or 0.0 for r in rows},
            "answerable quality": {r["program"]: r["answerable_quality"] or 0.0 for r in rows},
        },
    }
    return {
        "title": "Peers: GroundedQA vs plain DSPy RAG on the same LM and retriever",
        "config": config,
        "results": {"rows": rows, "compile": outcome.get("compile"), "peer_k": outcome.get("peer_k"),
                    "per_type": {name: {t: g.metrics.get("score") for t, g in rep.metrics.by_type.items()}
                                 for name, rep in outcome.get("reports", {}).items()},
                    "questions": outcome.get("records", {})},
        "tables": [
            {"title": f"Quality ({n} questions)", "columns": [c for c, _ in QUALITY_COLUMNS],
             "rows": _rows(rows, QUALITY_COLUMNS)},
            {"title": "Cost per question", "columns": [c for c, _ in COST_COLUMNS], "rows": _rows(rows, COST_COLUMNS)},
            *([table] if (table := type_table(outcome.get("reports", {}))) else []),
        ],
        "notes": notes,
        "chart": chart,
        "headline": quality_headline(rows),
    }


def quality_headline(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Composite, abstention F1 and answerable quality per program; GroundedQA's overhead share."""
    if not rows:
        return []
    n = rows[0]["n"]
    lines = [f"{n} questions — " + "; ".join(
        f"{r['program']}: composite {_f(r['score'])}, abstention F1 {_f(r['abstain_f1'])}, answerable "
        f"{_f(r['answerable_quality'])}, {r['lm_calls_per_q']:.2f} LM calls/q" for r in rows)]
    by = {r["program"]: r for r in rows}
    if GQA in by and by[GQA].get("overhead_share") is not None:
        lines.append(f"GroundedQA overhead {100 * by[GQA]['overhead_share']:.1f}% of wall time (target < 5%)")
    return lines


# -- suites ----------------------------------------------------------------------------------
@register("quality")
def quality_suite(args: argparse.Namespace) -> dict[str, Any]:
    """PlainRAG, RefineRAG and GroundedQA (premises on/off, compiled) on the same LM, retriever and questions."""
    from groundqa.app import configure_lm
    from groundqa.config import load_settings
    from groundqa.runtime.guarded_lm import unwrap

    quiet_logs()
    program_path = suite_option(args, "program", "GROUNDQA_BENCH_PROGRAM", None)
    peer_reasoning = not bool(getattr(args, "peer_predict", False))
    chosen = suite_option(args, "programs", "GROUNDQA_BENCH_PROGRAMS", None)
    programs = [p.strip() for p in chosen.split(",") if p.strip()] if chosen else list(PROGRAMS)
    unknown = [p for p in programs if p not in PROGRAMS]
    if unknown:
        raise ValueError(f"unknown program(s) {', '.join(unknown)}; choose from {', '.join(PROGRAMS)}")
    settings = load_settings(lm=getattr(args, "lm", None), cache=False)
    qa_overrides = dict(getattr(args, "qa_overrides", None) or {})
    data = suite_data(args)
    bundled = data.dataset.kind == "bundled"
    config = {"lm": settings.lm, "data": data.data, "split": "test" if bundled else "sample",
              "questions": len(data.questions), "quick": data.quick, "seed": data.seed, "program": program_path,
              "peer_module": "ChainOfThought" if peer_reasoning else "Predict", "dspy_cache": False,
              "retrieval_cache": False, "k": settings.k, "judge": "offline", "threads": 1, "programs": programs,
              **({"squad_eval": data.squad_eval} if not bundled else {}),
              **({"qa_overrides": qa_overrides} if qa_overrides else {})}
    if data.skip:
        return skipped_result("Peers", config, data.skip)
    from groundqa.compile import judge_read

    guarded = configure_lm(settings)
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    inner = unwrap(guarded)
    with scratch_dir("groundqa-peers-") as tmp:
        embeddings = IngestedEmbeddings(tmp)
        try:
            embeddings.start()
            store = build_store(tmp / "chroma", data.docs, settings, data.collection("peers"))
            embeddings.freeze()
            warm_s = warm_up(inner, store, judge_settings=settings)
            load_before = load_average_text()
            outcome = run_quality(inner, store, data.questions, data.train, settings, settings.lm,
                                  program_path=program_path, programs=programs, peer_reasoning=peer_reasoning,
                                  seed=data.seed, quick=data.quick, calibration_group=calibration_group(data),
                                  calibration_fixed=judge_read(data.data),
                                  qa_overrides=qa_overrides, before_program=embeddings.fresh)
            load_after = load_average_text()
        finally:  # the scratch folder goes with the suite: no later suite may write into it
            embeddings.stop()
    notes = [
        f"LM {settings.lm} (one object shared by every program; DSPy cache off, retrieval cache off, "
        f"temperature {settings.temperature}, max_tokens {settings.max_tokens}); {len(data.questions)} "
        f"{data.description} questions{' (stratified quick sample)' if data.quick and bundled else ''}; "
        f"peers retrieve k={outcome['peer_k']} passages (as many as GroundedQA shows its LM) and use "
        f"{config['peer_module']}; warm-up (model loads) {warm_s:.1f} s, not counted.",
        "Each program starts from the embedding cache as ingestion left it (the chunks' vectors and, with "
        f"embed_sentences = {str(settings.embed_sentences).lower()}, each chunk's sentences as the program reads "
        "them), as a user's home has it after `groundqa ingest`; nothing another program, the compile or the "
        "scoring embedded.",
        f"Load average (1/5/15 min) before the programs ran: {load_before}; after: {load_after} "
        f"({os.cpu_count()} cores; other work on the machine inflates latency, not scores).",
    ]
    if settings.lm.startswith("embedded") and peer_reasoning:
        notes.append("The embedded engine decodes output fields one by one, so the ChainOfThought peers get their "
                     "`reasoning` (free text, half of max_tokens at most) and then their `answer` under the same "
                     "citation constraint as GroundedQA's synthesizer (one sentence ending with [k], or NOT IN "
                     "SOURCES).")
    elif settings.lm.startswith("embedded"):
        notes.append("Peers use dspy.Predict: their only output field is `answer`, decoded under the same "
                     "citation constraint as GroundedQA's synthesizer.")
    return quality_result(outcome, config, notes)


def calibration_group(data: SuiteData) -> Any:
    """How the compile splits its fit and check sets: as ``groundqa optimize`` does for the data
    (:func:`groundqa.compile.check_group`: by article for SQuAD, whose evaluation is on other articles),
    except that an evaluation on the training articles themselves groups by gold document."""
    from groundqa.compile import CompileOptions, check_group
    from groundqa.optimizers.calibrate import gold_documents

    if data.squad_eval == "train":
        return gold_documents
    return check_group(CompileOptions(optimizer="calibrate", dataset=data.data))


@register("quality-squad")
def quality_squad_suite(args: argparse.Namespace) -> dict[str, Any]:
    """The quality suite on a SQuAD 2.0 sample (answerable and unanswerable); skipped without the file."""
    data = getattr(args, "data", None)
    if not (data and is_squad_spec(str(data))):
        env = os.environ.get("GROUNDQA_BENCH_SQUAD")
        data = f"squad:{env}" if env else "squad"
    return quality_suite(argparse.Namespace(**{**vars(args), "data": data}))


def is_squad_spec(data: str) -> bool:
    """Whether ``data`` names a SQuAD 2.0 file (``squad`` or ``squad:PATH``); anything else, even a spec
    that does not parse, is replaced by the SQuAD default in ``quality-squad``."""
    try:
        return parse_dataset_spec(data).kind == "squad"
    except DatasetError:
        return False
