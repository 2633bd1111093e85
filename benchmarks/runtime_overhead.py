"""Runtime and contract overhead per question with a zero-latency scripted LM and a warm retrieval cache.

``python -m benchmarks run --suite runtime [--quick]``: GroundedQA on the demo corpus, the LM answers
instantly (scripted), retrievals come from a warm cache, so what is measured is groundqa's own work
per question (input checks, premise rules and judging, context, adapter formatting and parsing,
citation checks, contracts, result). Target of issue 5: under 5 ms p50.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import dspy

from benchmarks.registry import register

QUESTIONS = [
    "Who designed the harbor lights of Port Vessany?",
    "How long does the ferry crossing to Calder take?",
    "When did Paolo Marchetti design the harbor lights?",
    "How many people live on Calder Island?",
    "What is the boiling point of liquid nitrogen?",
    "When was the Lorvin Maritime Library opened?",
]
ANSWER = {"answer": "The harbor lights were designed by engineer Odile Marchetti [1]."}


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def measure(repeats: int, premises: bool) -> dict[str, float]:
    """Per-question wall time (ms) of GroundedQA.run with an instant LM and warm caches."""
    from groundqa.datasets.loaders import load_corpus
    from groundqa.lm.scripted import ScriptedLM
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig
    from groundqa.programs.retriever import Retriever
    from groundqa.runtime.guarded_lm import GuardedLM
    from groundqa.runtime.retrieval_cache import RetrievalCache
    from groundqa.store.chroma_store import CorpusStore

    with tempfile.TemporaryDirectory() as tmp:
        store = CorpusStore(Path(tmp) / "chroma")
        store.ingest(load_corpus(Path(__file__).resolve().parents[1] / "datasets/demo/corpus.jsonl").items)
        dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
        dspy.configure(lm=GuardedLM(ScriptedLM(lambda m: ANSWER)),
                       adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
        program = GroundedQA(Retriever(store, k=4, cache=RetrievalCache()),
                             QAConfig.for_lm("embedded", verify_premises=premises))
        for question in QUESTIONS:  # warm the retrieval cache, the judge's embeddings, imports
            program.run(question)
            program.run(question)
        samples: list[float] = []
        lm_ms: list[float] = []
        for _ in range(repeats):
            for question in QUESTIONS:
                from groundqa.runtime.trace import Trace

                trace = Trace()
                started = time.perf_counter()
                program.run(question, trace=trace)
                samples.append((time.perf_counter() - started) * 1000)
                lm_ms.append(sum(c.latency_ms for c in trace.lm_calls()))
    return {"p50_ms": _percentile(samples, 0.5), "p95_ms": _percentile(samples, 0.95),
            "mean_ms": statistics.fmean(samples), "lm_call_ms_mean": statistics.fmean(lm_ms), "n": len(samples)}


@register("runtime")
def runtime_suite(args: argparse.Namespace) -> dict[str, Any]:
    """GroundedQA's own time per question with a zero-latency LM and warm retrieval (premises on/off)."""
    repeats = 5 if getattr(args, "quick", False) else 30
    rows = []
    results = {}
    for premises in (True, False):
        m = measure(repeats, premises)
        results["premises_on" if premises else "premises_off"] = m
        rows.append(["on" if premises else "off", m["n"], m["p50_ms"], m["p95_ms"], m["mean_ms"],
                     m["lm_call_ms_mean"]])
    return {
        "title": "Runtime overhead per question (zero-latency scripted LM, warm retrieval cache)",
        "config": {"repeats": repeats, "questions": len(QUESTIONS)},
        "results": results,
        "tables": [{"title": "", "columns": ["premise verification", "questions", "p50 ms", "p95 ms", "mean ms",
                                             "of which inside the LM call (DSPy + engine) ms"],
                    "rows": rows}],
        "notes": ["Target (issue 5): under 5 ms p50 per question.",
                  "Includes DSPy's ChatAdapter formatting/parsing of the synthesis call and the offline judge "
                  "(cached MiniLM embeddings); excludes real LM generation and Chroma queries (warm cache)."],
        "headline": [f"program overhead per question p50 {results['premises_on']['p50_ms']:.1f} ms with premise "
                     f"verification, {results['premises_off']['p50_ms']:.1f} ms without"],
    }
