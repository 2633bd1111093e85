"""Judge suite: what one judgment of the tuned answer judge costs, its adapter merged into the weights or applied by
llama.cpp at run time.

The answer judge (:mod:`groundqa.judges.answer_judge`) is most of a slow question's time on the embedded default: a
refusal's rescue or a bridge reading judges 6 to 14 sentences. Three engines read the same prompts, in interleaved
passes so that load on the machine falls on all of them alike:

* ``merged``: a copy of the model with ``W + (alpha / rank) · B·A`` in its weights (:mod:`groundqa.lm.finetune.merge`,
  the default, ``judge_merged = true``);
* ``applied``: the base GGUF with the adapter given to llama.cpp as ``lora_path`` (``judge_merged = false``);
* ``base``: the base GGUF without any adapter, the floor a merge can reach.

Prompts are the judge's own (:func:`~groundqa.judges.answer_judge.judge_prompt`): a synthetic passage sentence with
the one before it and a synthetic question, about 70 tokens, as the program's are. Reported: milliseconds per judgment
(median over passes), the ratio to ``applied``, and how far ``merged`` margins are from ``applied`` ones.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.registry import register
from benchmarks.report import rendered_result
from benchmarks.retrieval import SyntheticText

ENGINES = ("merged", "applied", "base")


def judge_prompts(count: int, seed: int) -> list[str]:
    """``count`` judge prompts over synthetic passages and questions."""
    from groundqa.judges.answer_judge import judge_prompt

    text = SyntheticText(seed)
    prompts = []
    for _ in range(count):
        town = text.rng.choice(text.towns)
        prompts.append(judge_prompt(town, text.sentence(town), text.sentence(town), text.question()))
    return prompts


def _margins(engine: Any, prompts: list[str]) -> tuple[list[float], float]:
    """Margins of ``prompts`` evaluated by ``engine`` (an :class:`AnswerJudge`, its caches bypassed), and the seconds
    it took."""
    started = time.perf_counter()
    out = [engine.evaluate(prompt) for prompt in prompts]
    return out, time.perf_counter() - started


def run_judge_speed(quick: bool = False, seed: int = 13) -> dict[str, Any]:
    """Milliseconds per judgment of each engine, in interleaved passes over the same prompts."""
    from groundqa.config import load_settings
    from groundqa.judges.answer_judge import SHIPPED, SHIPPED_SHA256, AnswerJudge
    from groundqa.lm.finetune.adapter import verify_adapter
    from groundqa.lm.finetune.merge import MERGE_FORMAT, merged_model
    from groundqa.lm.gemma import model_path

    settings = load_settings()
    base = model_path(settings.cache_dir)
    info = verify_adapter(SHIPPED, SHIPPED_SHA256, base)
    started = time.perf_counter()
    copy = merged_model(base, info, settings.cache_dir / "merged")
    merge_s = time.perf_counter() - started  # 0 when an earlier run wrote it
    engines = {"merged": AnswerJudge(SHIPPED, base, settings.lm_threads, merged=copy),
               "applied": AnswerJudge(SHIPPED, base, settings.lm_threads),
               "base": AnswerJudge(None, base, settings.lm_threads)}
    prompts = judge_prompts(12 if quick else 40, seed)
    passes = 2 if quick else 5
    for engine in engines.values():  # first touch of each model's pages, not counted
        _margins(engine, prompts[:2])
    seconds: dict[str, list[float]] = {name: [] for name in ENGINES}
    margins: dict[str, list[float]] = {}
    for done in range(passes):
        for name in ENGINES if done % 2 == 0 else reversed(ENGINES):
            margins[name], spent = _margins(engines[name], prompts)
            seconds[name].append(spent / len(prompts))
        print(f"judge speed: pass {done + 1}/{passes}", file=sys.stderr, flush=True)
    tokens = statistics.mean(len(engines["base"].llm.tokenize(p.encode(), add_bos=True)) for p in prompts)
    diffs = [abs(a - b) for a, b in zip(margins["merged"], margins["applied"], strict=True)]
    signs = sum((a > 0) != (b > 0) for a, b in zip(margins["merged"], margins["applied"], strict=True))
    rows = [{"engine": name, "ms_per_judgment": 1000 * statistics.median(seconds[name]),
             "ms_spread": [1000 * min(seconds[name]), 1000 * max(seconds[name])]} for name in ENGINES]
    applied = rows[1]["ms_per_judgment"]
    for row in rows:
        row["vs_applied"] = row["ms_per_judgment"] / applied
    return {
        "config": {"prompts": len(prompts), "passes": passes, "seed": seed, "quick": quick,
                   "threads": settings.lm_threads, "merge_format": MERGE_FORMAT, "model": Path(base).name},
        "rows": rows,
        "mean_prompt_tokens": tokens,
        "merge_s": merge_s,
        "margin_diff": {"mean": statistics.mean(diffs), "max": max(diffs), "sign_changes": signs,
                        "median_abs_margin": statistics.median(abs(m) for m in margins["applied"])},
    }


def tables(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One table: milliseconds per judgment per engine and the ratio to the run-time adapter."""
    names = {"merged": "adapter merged into the weights (default)", "applied": "adapter applied by llama.cpp at run "
             "time", "base": "base model, no adapter (reference)"}
    return [{
        "title": f"Answer judge: one judgment ({results['mean_prompt_tokens']:.0f}-token prompts)",
        "columns": ["engine", "ms per judgment (median of passes)", "range over passes", "× run-time adapter"],
        "rows": [[names[r["engine"]], f"{r['ms_per_judgment']:.0f}",
                  f"{r['ms_spread'][0]:.0f}–{r['ms_spread'][1]:.0f}", f"{r['vs_applied']:.2f}"]
                 for r in results["rows"]],
    }]


def chart(results: dict[str, Any]) -> dict[str, Any]:
    return {"title": "Answer judge: ms per judgment", "ylabel": "ms per judgment (median of passes)",
            "series": {"ms": {r["engine"]: r["ms_per_judgment"] for r in results["rows"]}}, "log": False}


def notes(results: dict[str, Any]) -> list[str]:
    d = results["margin_diff"]
    merge = (f"writing the merged copy took {results['merge_s']:.1f} s (once per home)" if results["merge_s"] > 1
             else "the merged copy was already written")
    return [
        f"{results['config']['prompts']} prompts, {results['config']['passes']} passes, engines in alternating "
        "order; each judgment evaluates its whole prompt (no prefix reuse, as in the program); caches off.",
        f"Margins logit(' yes') − logit(' no'), merged against run-time adapter: mean |difference| {d['mean']:.3f}, "
        f"max {d['max']:.3f}, {d['sign_changes']} sign changes; the median |margin| is {d['median_abs_margin']:.2f}.",
        f"{merge}; merged tensors are {results['config']['merge_format']}.",
    ]


def headline(results: dict[str, Any]) -> list[str]:
    by = {r["engine"]: r for r in results["rows"]}
    return [f"answer judge ms per judgment: merged {by['merged']['ms_per_judgment']:.0f}, run-time adapter "
            f"{by['applied']['ms_per_judgment']:.0f} (×{by['merged']['vs_applied']:.2f}), base model "
            f"{by['base']['ms_per_judgment']:.0f}"]


@register("judge")
def judge_suite(args: argparse.Namespace) -> dict[str, Any]:
    """Milliseconds per answer-judge judgment: adapter merged vs applied at run time vs no adapter."""
    results = run_judge_speed(quick=bool(getattr(args, "quick", False)), seed=int(getattr(args, "seed", 13)))
    return rendered_result("Answer judge: merged adapter vs run-time adapter", results, tables, notes, chart, headline)
