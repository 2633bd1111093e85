"""Cache suite: GroundedQA on the same questions cold, warm, and warm from disk only.

DSPy's LM cache (memory + disk, under a temporary home) and the retrieval cache are on. The third
pass empties every memory cache first, as a new process would find them, so it measures what the
disk caches alone give back. Options as for :mod:`benchmarks.quality` (``GROUNDQA_LM``,
``GROUNDQA_BENCH_DATA``, or :mod:`benchmarks.peers`' flags).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import dspy

from benchmarks.registry import register
from benchmarks.suite_setup import (
    build_store,
    drop_process_caches,
    load_average_text,
    quiet_logs,
    scratch_home,
    skipped_result,
    suite_data,
    warm_up,
)
from groundqa.datasets.loaders import Question
from groundqa.programs.retriever import Retriever
from groundqa.runtime.retrieval_cache import RetrievalCache
from groundqa.store.chroma_store import CorpusStore


def run_passes(program: Any, questions: Sequence[Question], label: str, progress: bool = True
               ) -> dict[str, Any]:
    """Run ``program.run`` on every question with caches on; wall time, answers, cache hits."""
    from tqdm import tqdm

    answers: list[tuple[str, bool]] = []
    lm_calls = lm_hits = ret_calls = ret_hits = judgments = 0
    judge_ms = 0.0
    started = time.perf_counter()
    for q in tqdm(questions, desc=label, unit="q", file=sys.stderr, disable=not progress, mininterval=1.0):
        result = program.run(q.question, use_cache=True)
        answers.append((result.answer, result.abstained))
        lm_calls += result.usage.lm_calls
        lm_hits += result.usage.lm_cache_hits
        ret_calls += result.usage.retrieval_calls
        ret_hits += result.usage.retrieval_cache_hits
        judgments += result.usage.judgments
        judge_ms += result.usage.judge_ms
    return {"seconds": time.perf_counter() - started, "answers": answers, "lm_calls": lm_calls,
            "lm_cache_hits": lm_hits, "retrievals": ret_calls, "retrieval_cache_hits": ret_hits,
            "judgments": judgments, "judge_s": judge_ms / 1000}


def run_cache(settings: Any, store: CorpusStore, questions: Sequence[Question], home: Path,
              progress: bool = True, **config: Any) -> dict[str, Any]:
    """Cold, warm (memory + disk) and warm-from-disk passes of GroundedQA with every cache on (``config``:
    overrides of the LM's default :class:`QAConfig`, e.g. ``extractive_first=1.0`` to ask the LM first).

    Before the cold pass the in-process memo caches are emptied too (:func:`drop_process_caches`).

    The caller configures the LM and DSPy's cache (``configure_lm(settings)`` puts it under ``home``).
    """
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig

    directory = home / "cache" / "retrieval"
    retriever = Retriever(store, k=settings.k, cache=RetrievalCache(directory))
    program = GroundedQA(retriever, QAConfig.for_lm(settings.lm, **config))
    drop_process_caches()
    cold = run_passes(program, questions, "cold", progress)
    warm = run_passes(program, questions, "warm", progress)
    # As a new process would find things: DSPy's and the retrieval cache's memory layers empty, the
    # in-process embedding and judge memos (the answer judge's too) empty; only the disk caches are warm.
    dspy.cache.reset_memory_cache()
    retriever.cache = RetrievalCache(directory)
    drop_process_caches()
    disk = run_passes(program, questions, "warm (disk)", progress)
    passes = {"cold": cold, "warm": warm, "warm_disk": disk}
    return {
        "passes": {k: {key: v for key, v in p.items() if key != "answers"} for k, p in passes.items()},
        "identical_warm": sum(a == b for a, b in zip(cold["answers"], warm["answers"], strict=True)),
        "identical_disk": sum(a == b for a, b in zip(cold["answers"], disk["answers"], strict=True)),
        "n": len(questions),
        "speedup_warm": cold["seconds"] / warm["seconds"] if warm["seconds"] > 0 else None,
        "speedup_disk": cold["seconds"] / disk["seconds"] if disk["seconds"] > 0 else None,
    }


def cache_result(outcome: dict[str, Any], config: dict[str, Any], extra_notes: Sequence[str] = ()) -> dict[str, Any]:
    """The registry result dict of a :func:`run_cache` outcome."""
    n = outcome["n"]
    rows = []
    for key, label in (("cold", "cold"), ("warm", "warm (memory + disk)"), ("warm_disk", "warm, disk only (memory caches emptied)")):
        p = outcome["passes"][key]
        speedup = None if key == "cold" else outcome["speedup_warm" if key == "warm" else "speedup_disk"]
        identical = None if key == "cold" else outcome["identical_warm" if key == "warm" else "identical_disk"]
        rows.append([label, round(p["seconds"], 3), round(1000 * p["seconds"] / max(1, n), 1),
                     round(speedup, 1) if speedup else None, p["lm_calls"], p["lm_cache_hits"], p["retrievals"],
                     p["retrieval_cache_hits"], p["judgments"], round(p["judge_s"], 2),
                     f"{identical}/{n}" if identical is not None else "–"])
    warm = outcome["speedup_warm"] or 0.0
    headline = [f"warm re-run {warm:.0f}× faster than cold (target ≥ 50×: {'MET' if warm >= 50 else 'MISSED'}); "
                f"disk-only warm {outcome['speedup_disk'] or 0:.0f}×; identical answers "
                f"{outcome['identical_warm']}/{n}"]
    notes = list(extra_notes) + [
        f"Target 'warm re-run ≥ 50× faster' — {'MET' if warm >= 50 else 'MISSED'}: {warm:.1f}× "
        f"(warm from disk only: {outcome['speedup_disk'] or 0:.1f}×); answers identical on "
        f"{outcome['identical_warm']}/{n} (memory) and {outcome['identical_disk']}/{n} (disk).",
        "'Disk only' empties DSPy's and the retrieval cache's memory layers and the in-process embedding and "
        "judge memos (the answer judge's included) before the pass, as a new process would find them (the models "
        "stay loaded); LM answers, retrievals, MiniLM vectors and the answer judge's margins then come from their "
        "disk caches under the home (DSPy's cache, the retrieval cache, embeddings.sqlite, answer-judge.sqlite). "
        "Judge readings: distinct sentences the tuned answer judge was asked about (from a cache or not); judge "
        "time: the seconds they took. What a warm run still does: input checks, presupposition rules, the offline "
        "judge's scoring for premise and sentence support, context building and the extractive fallback.",
    ]
    return {
        "title": "Cache: GroundedQA cold vs warm",
        "config": config,
        "results": outcome,
        "tables": [{"title": f"Cold vs warm cache ({n} questions)",
                    "columns": ["Pass", "Wall time (s)", "ms/question", "Speed-up vs cold", "LM calls",
                                "LM cache hits", "Retrievals", "Retrieval cache hits", "Judge readings",
                                "Judge time (s)", "Identical answers"],
                    "rows": rows}],
        "notes": notes,
        "chart": {"title": "GroundedQA wall time per question, cold vs warm cache", "ylabel": "ms per question",
                  "series": {"ms/question": {r[0]: r[2] for r in rows}}, "log": True},
        "headline": headline,
    }


@register("cache")
def cache_suite(args: argparse.Namespace) -> dict[str, Any]:
    """GroundedQA cold vs warm cache (DSPy memory + disk cache, retrieval cache): wall time and identity."""
    from groundqa.app import configure_lm
    from groundqa.config import load_settings
    from groundqa.runtime.guarded_lm import unwrap

    quiet_logs()
    base = load_settings(lm=getattr(args, "lm", None))
    data = suite_data(args)
    config = {"lm": base.lm, "data": data.data, "questions": len(data.questions), "quick": data.quick,
              "seed": data.seed, "dspy_cache": "memory + disk (temporary home)", "retrieval_cache": "memory + disk"}
    if data.skip:
        return skipped_result("Cache", config, data.skip)
    with scratch_home(base, "groundqa-cache-") as home:
        settings = base.model_copy(update={"home": home, "cache": True})
        # DSPy, retrieval and embedding caches under <home>/cache, before ingesting: a chunk's sentences are
        # embedded into that home's cache as a user's ingestion embeds them (``embed_sentences``)
        lm = configure_lm(settings)
        store = build_store(home / "chroma", data.docs, settings, data.collection("cache"))
        warm_up(unwrap(lm), store, judge_settings=base)
        load_before = load_average_text()
        outcome = run_cache(settings, store, data.questions, home)
        load_after = load_average_text()
    notes = [f"LM {settings.lm}; {len(data.questions)} {data.description} questions; load average (1/5/15 min) "
             f"before: {load_before}, after: {load_after} ({os.cpu_count()} cores)."]
    return cache_result(outcome, config, notes)
