"""LM suite: speed of the embedded LM (Gemma 3 270M through llama.cpp) on DSPy ChatAdapter prompts.

Two measurements, both with DSPy's cache off (``cache=False``) so every call really runs:

* throughput: prompt evaluation and generation tokens/s, separately, on prompts of ~300 tokens
  (zero-shot: instructions + question + numbered passages) and ~1,500 tokens (the same with 2 demos
  and more passages), formatted by ``dspy.ChatAdapter`` and read from llama.cpp's own performance
  counters; prefix reuse is off so every prompt token is evaluated;
* prefix reuse: the same prefix (instructions + 2 demos) with different questions and passages,
  ``reuse_prefix=False`` vs ``True``; mean latency per call and the speed-up ratio.

The prompts are formatted by the ChatAdapter and sent with ``lm(messages=...)`` (one LM call per
prompt, never the adapter's JSON fallback), then parsed back to count well-formed answers.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

import dspy

from benchmarks.registry import register
from benchmarks.report import rendered_result
from benchmarks.retrieval import SyntheticText
from groundqa.programs.peers import PeerAnswer

MAX_TOKENS = 64


def _passages(text: SyntheticText, count: int, sentences: int = 2) -> str:
    return "\n".join(f"[{i + 1}] {' '.join(text.sentences(sentences))}" for i in range(count))


def make_demos(text: SyntheticText, passages_per_demo: int) -> list[dict[str, Any]]:
    """Two cited-answer demos: the answer sentence sits in passage [1], the rest are distractors."""
    rng = text.rng
    person, company, town = rng.choice(text.people), rng.choice(text.companies), rng.choice(text.towns)
    bridge, river = rng.choice(text.bridges), rng.choice(text.rivers)
    year, length = rng.randint(1700, 1990), rng.randint(40, 3_000)
    facts = [
        (f"Who founded {company}?", f"{person} founded {company} in {year} to make copper wire.",
         f"{person} founded {company} in {year} [1]."),
        (f"When was the {bridge} bridge completed?",
         f"The {bridge} bridge over the {river} was completed in {year + 37} and is {length} metres long.",
         f"The {bridge} bridge was completed in {year + 37} [1]."),
    ]
    demos = []
    for question, fact, answer in facts:
        rest = [" ".join(text.sentences(2)) for _ in range(passages_per_demo - 1)]
        block = "\n".join(f"[{i + 1}] {p}" for i, p in enumerate([f"{fact} {text.sentence(town)}", *rest]))
        demos.append({"question": question, "passages": block, "answer": answer})
    return demos


def count_tokens(lm: Any, messages: list[dict[str, Any]]) -> int:
    """Tokens of the flattened transcript the embedded engine sends to llama.cpp (approximately)."""
    llm = lm.llama._model()
    flat = "\n\n".join(str(m["content"]).strip() for m in messages) + "\n\n"
    return len(llm.tokenize(flat.encode("utf-8"), add_bos=True, special=False))


def build_prompt(
    lm: Any, adapter: dspy.ChatAdapter, demos: list[dict[str, Any]], text: SyntheticText, target_tokens: int
) -> tuple[list[dict[str, Any]], int]:
    """ChatAdapter messages with as many passages as needed to reach about ``target_tokens``."""
    question = text.question()
    count = 1
    while True:
        inputs = {"question": question, "passages": _passages(text, count)}
        messages = adapter.format(PeerAnswer, demos, inputs)
        tokens = count_tokens(lm, messages)
        if tokens >= target_tokens or count >= 200:
            return messages, tokens
        # grow by an estimate of the passages still missing (a passage is ~45 tokens)
        count += max(1, (target_tokens - tokens) // 60)


class PerfCounters:
    """llama.cpp's per-context counters: prompt-eval and generation time and token counts."""

    def __init__(self, lm: Any) -> None:
        import llama_cpp

        self._api = llama_cpp
        self._llm = lm.llama._model()

    def reset(self) -> None:
        self._api.llama_perf_context_reset(self._llm.ctx)

    def read(self) -> dict[str, float]:
        data = self._api.llama_perf_context(self._llm.ctx)
        return {
            "prompt_ms": float(data.t_p_eval_ms), "prompt_tokens": int(data.n_p_eval),
            "gen_ms": float(data.t_eval_ms), "gen_tokens": int(data.n_eval),
        }


def timed_call(lm: Any, perf: PerfCounters, adapter: dspy.ChatAdapter, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """One LM call: wall time, llama.cpp counters, and whether the ChatAdapter can parse the output."""
    perf.reset()
    started = time.perf_counter()
    outputs = lm(messages=messages)
    wall = time.perf_counter() - started
    counters = perf.read()
    output = outputs[0] if outputs else ""
    output = output.get("text", "") if isinstance(output, dict) else str(output)
    try:
        parsed = bool(adapter.parse(PeerAnswer, output).get("answer"))
    except Exception:  # the base model sometimes breaks the format; that is data, not an error
        parsed = False
    return {"wall_s": wall, **counters, "parsed": parsed, "output": output}


def _bar(total: int, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="call", file=sys.stderr, mininterval=1.0, leave=False)


def measure_throughput(
    lm: Any, adapter: dspy.ChatAdapter, target_tokens: int, prompts: int, seed: int, demos: bool,
    decoder: str | None = "regex",
) -> dict[str, Any]:
    """Prompt-eval and generation tokens/s over ``prompts`` distinct prompts of ~``target_tokens``.

    ``lm`` must have prefix reuse off, so every prompt token is evaluated. ``decoder`` picks how the
    engine constrains cited answers for these calls: ``"regex"`` (default), ``"gbnf"`` or None (off).
    """
    text = SyntheticText(seed)
    shots = make_demos(text, 2) if demos else []
    perf = PerfCounters(lm)
    engine = lm.llama
    has_grammar = hasattr(engine, "cite_grammar")
    previous = (getattr(engine, "cite_grammar", False), getattr(engine, "cite_decoder", "regex"))
    if has_grammar:
        engine.cite_grammar = decoder is not None
        engine.cite_decoder = decoder or previous[1]
    label = decoder or "off"
    calls = []
    try:
        with _bar(prompts, f"~{target_tokens}-token prompts, constraint {label}") as bar:
            for _ in range(prompts):
                messages, tokens = build_prompt(lm, adapter, shots, text, target_tokens)
                call = timed_call(lm, perf, adapter, messages)
                call["prompt_tokens_total"] = tokens
                calls.append(call)
                bar.update()
    finally:
        if has_grammar:
            engine.cite_grammar, engine.cite_decoder = previous
    # Wall time after the prompt is evaluated: decoding + sampling (+ grammar) + DSPy's own work.
    after_prompt_s = sum(max(1e-9, c["wall_s"] - c["prompt_ms"] / 1000.0) for c in calls)
    prompt_ms = sum(c["prompt_ms"] for c in calls)
    gen_ms = sum(c["gen_ms"] for c in calls)
    prompt_tokens = sum(c["prompt_tokens"] for c in calls)
    gen_tokens = sum(c["gen_tokens"] for c in calls)
    return {
        "target_tokens": target_tokens, "prompts": prompts, "demos": len(shots),
        "cite_grammar": bool(decoder and has_grammar), "constraint": label if has_grammar else "off",
        "mean_prompt_tokens": round(statistics.fmean(c["prompt_tokens_total"] for c in calls), 1),
        "mean_generated_tokens": round(gen_tokens / prompts, 1),
        "prompt_tokens_per_s": round(1000.0 * prompt_tokens / prompt_ms, 1) if prompt_ms else 0.0,
        "generation_tokens_per_s": round(1000.0 * gen_tokens / gen_ms, 1) if gen_ms else 0.0,
        "ms_per_prompt_token": round(prompt_ms / prompt_tokens, 3) if prompt_tokens else 0.0,
        "ms_per_generated_token": round(gen_ms / gen_tokens, 2) if gen_tokens else 0.0,
        "end_to_end_generation_tokens_per_s": round(gen_tokens / after_prompt_s, 1),
        "end_to_end_ms_per_generated_token": round(1000.0 * after_prompt_s / gen_tokens, 2) if gen_tokens else 0.0,
        "mean_call_s": round(statistics.fmean(c["wall_s"] for c in calls), 3),
        "parsed": sum(c["parsed"] for c in calls),
        "outputs": [c["output"] for c in calls],
    }


def measure_prefix_reuse(
    lm_off: Any, lm_on: Any, adapter: dspy.ChatAdapter, passages_per_demo: int, calls: int, seed: int
) -> dict[str, Any]:
    """Same prefix (instructions + 2 demos), different questions: ``reuse_prefix=False`` vs ``True``.

    Two engines (one per mode, each with its own KV cache) answer the same prompts in turn, so a
    change of machine load affects both modes alike.
    """
    text = SyntheticText(seed)
    demos = make_demos(text, passages_per_demo)
    prompts = []
    for _ in range(calls + 1):  # the first one primes each engine and is not counted
        inputs = {"question": text.question(), "passages": _passages(text, 3)}
        prompts.append(adapter.format(PeerAnswer, demos, inputs))
    prefix = count_tokens(lm_on, adapter.format(PeerAnswer, demos, {"question": "", "passages": ""})[:-1])
    total = statistics.fmean(count_tokens(lm_on, m) for m in prompts)
    engines = {"reuse_off": lm_off, "reuse_on": lm_on}
    perfs = {key: PerfCounters(lm) for key, lm in engines.items()}
    results: dict[str, list[dict[str, Any]]] = {key: [] for key in engines}
    with _bar(2 * (calls + 1), f"prefix reuse ({passages_per_demo} passages/demo)") as bar:
        for i, messages in enumerate(prompts):
            for key, lm in engines.items():
                call = timed_call(lm, perfs[key], adapter, messages)
                if i:
                    results[key].append(call)
                bar.update()
    modes: dict[str, Any] = {}
    for key, calls_ in results.items():
        modes[key] = {
            "mean_call_s": round(statistics.fmean(c["wall_s"] for c in calls_), 4),
            "p50_call_s": round(statistics.median(c["wall_s"] for c in calls_), 4),
            "mean_prompt_tokens_evaluated": round(statistics.fmean(c["prompt_tokens"] for c in calls_), 1),
            "mean_prompt_eval_ms": round(statistics.fmean(c["prompt_ms"] for c in calls_), 1),
            "mean_generated_tokens": round(statistics.fmean(c["gen_tokens"] for c in calls_), 1),
            "parsed": sum(c["parsed"] for c in calls_),
        }
    off, on = modes["reuse_off"], modes["reuse_on"]
    same = sum(a["output"] == b["output"] for a, b in zip(results["reuse_off"], results["reuse_on"], strict=True))
    return {
        "passages_per_demo": passages_per_demo, "calls": calls,
        "prefix_tokens": prefix, "mean_prompt_tokens": round(total, 1),
        **modes,
        "speedup": round(off["mean_call_s"] / on["mean_call_s"], 2) if on["mean_call_s"] else 0.0,
        "speedup_p50": round(off["p50_call_s"] / on["p50_call_s"], 2) if on["p50_call_s"] else 0.0,
        "identical_outputs": same,
    }


def run_lm(quick: bool = False, seed: int = 13) -> dict[str, Any]:
    """Run the LM measurements; returns structured results (no files written)."""
    from groundqa.config import load_settings
    from groundqa.lm.embedded import EmbeddedLM

    settings = load_settings()
    n_ctx = max(int(settings.n_ctx), 4096)
    started = time.perf_counter()
    lms = {
        reuse: EmbeddedLM(
            cache_dir=settings.cache_dir / "models", temperature=0.0, max_tokens=MAX_TOKENS, n_ctx=n_ctx,
            n_threads=settings.lm_threads, reuse_prefix=reuse, cache=False,
        )
        for reuse in (False, True)
    }
    for lm in lms.values():
        lm(messages=[{"role": "user", "content": "Warm-up."}])
    load_s = (time.perf_counter() - started) / 2
    adapter = dspy.ChatAdapter()
    rng = random.Random(seed)
    prompts = 2 if quick else 4
    calls = 3 if quick else 8
    print("lm: throughput on ~300" + ("" if quick else " and ~1,500") + "-token prompts", file=sys.stderr)
    decoders = ("regex", "gbnf", None) if hasattr(lms[False].llama, "cite_decoder") else (None,)
    throughput = []
    for size in ((300,) if quick else (300, 1500)):
        size_seed = rng.randrange(10**6)
        rows = {decoder: measure_throughput(lms[False], adapter, size, prompts, size_seed, size > 500, decoder)
                for decoder in decoders}  # the same prompts under each citation constraint and without one
        if "regex" in rows:  # greedy decoding: the regex constraint should pick GBNF's tokens
            same = sum(a == b for a, b in zip(rows["regex"]["outputs"], rows["gbnf"]["outputs"], strict=True))
            rows["regex"]["same_as_gbnf"] = f"{same}/{prompts}"
        throughput.extend(rows.values())
    print("lm: prefix reuse off vs on", file=sys.stderr)
    reuse = [
        measure_prefix_reuse(lms[False], lms[True], adapter, per_demo, calls, rng.randrange(10**6))
        for per_demo in (2, 8)
    ]
    first = lms[True]
    return {
        "config": {
            "model": first.model, "n_ctx": n_ctx, "n_threads": first.llama.n_threads, "max_tokens": MAX_TOKENS,
            "temperature": 0.0, "dspy_cache": False, "adapter": "ChatAdapter", "prompts_per_size": prompts,
            "calls_per_mode": calls, "seed": seed,
            "cite_grammar_default": bool(getattr(first.llama, "cite_grammar", False)),
        },
        "model_load_s": round(load_s, 2),
        "throughput": throughput,
        "prefix_reuse": reuse,
    }


def tables(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The Markdown tables of a :func:`run_lm` result."""
    speed_rows = [
        [f"~{t['target_tokens']:,} ({'2 demos' if t['demos'] else 'zero-shot'})",
         t.get("constraint", "on" if t.get("cite_grammar") else "off"), t["prompts"], t["mean_prompt_tokens"], t["prompt_tokens_per_s"],
         t["mean_generated_tokens"], t["generation_tokens_per_s"], t["end_to_end_generation_tokens_per_s"],
         t["end_to_end_ms_per_generated_token"], t["mean_call_s"], f"{t['parsed']}/{t['prompts']}",
         t.get("same_as_gbnf", "–")]
        for t in results["throughput"]
    ]
    reuse_rows = [
        [f"instructions + 2 demos × {r['passages_per_demo']} passages", r["prefix_tokens"], r["mean_prompt_tokens"],
         r["calls"], r["reuse_off"]["mean_call_s"], r["reuse_on"]["mean_call_s"], r["speedup"],
         r["reuse_off"]["mean_prompt_tokens_evaluated"], r["reuse_on"]["mean_prompt_tokens_evaluated"],
         f"{r['identical_outputs']}/{r['calls']}"]
        for r in results["prefix_reuse"]
    ]
    return [
        {
            "title": "Embedded LM throughput (reuse off: every prompt token evaluated)",
            "columns": ["Prompt size", "Citation constraint", "Prompts", "Mean prompt tokens", "Prompt eval (tokens/s)",
                        "Mean generated tokens", "Decode (tokens/s)", "Generation end to end (tokens/s)",
                        "ms per generated token, end to end", "Mean call (s)", "Parsed by ChatAdapter",
                        "Same answers as GBNF"],
            "rows": speed_rows,
        },
        {
            "title": "Prompt-prefix reuse: same prefix, different questions",
            "columns": ["Shared prefix", "Prefix tokens", "Mean prompt tokens", "Calls per mode",
                        "Mean call, reuse off (s)", "Mean call, reuse on (s)", "Speed-up (off/on)",
                        "Tokens evaluated per call, off", "Tokens evaluated per call, on", "Identical outputs"],
            "rows": reuse_rows,
        },
    ]


def chart(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Two panels: tokens/s by prompt size; mean latency per call with reuse off/on."""
    speed: dict[str, dict[str, float]] = {"prompt eval": {}, "decode": {}, "generation end to end": {}}
    for t in results["throughput"]:
        label = f"~{t['target_tokens']:,} tokens, {t.get('constraint', 'on' if t.get('cite_grammar') else 'off')}"
        speed["prompt eval"][label] = t["prompt_tokens_per_s"]
        speed["decode"][label] = t["generation_tokens_per_s"]
        speed["generation end to end"][label] = t["end_to_end_generation_tokens_per_s"]
    latency: dict[str, dict[str, float]] = {"reuse_prefix=False": {}, "reuse_prefix=True": {}}
    for r in results["prefix_reuse"]:
        label = f"{r['prefix_tokens']:,}-token prefix (×{r['speedup']:.2f})"
        latency["reuse_prefix=False"][label] = r["reuse_off"]["mean_call_s"]
        latency["reuse_prefix=True"][label] = r["reuse_on"]["mean_call_s"]
    return [
        {"title": "Gemma 3 270M (llama.cpp, 2 cores): tokens/s", "ylabel": "tokens per second", "series": speed,
         "log": True},
        {"title": "Prefix reuse: mean latency per call", "ylabel": "seconds per call", "series": latency},
    ]


def notes(results: dict[str, Any]) -> list[str]:
    """Caveats printed under the tables."""
    cfg = results["config"]
    return [
        f"Model {cfg['model']} (Gemma 3 270M base, Q4_K_M GGUF) in process through llama-cpp-python, "
        f"{cfg['n_threads']} threads, n_ctx {cfg['n_ctx']}, greedy (temperature 0), max_tokens {cfg['max_tokens']}; "
        f"model load + first call {results['model_load_s']:.1f} s (not counted).",
        "Prompts: DSPy ChatAdapter messages sent with lm(messages=...) and DSPy's cache off; ~300-token "
        "prompts are zero-shot (instructions + question + 2 numbered synthetic passages), ~1,500-token prompts "
        "have 2 demos and more passages. Prompt-eval and generation rates come from llama.cpp's performance "
        "counters (llama_perf_context); latency per call is wall-clock through dspy.LM.",
        "'Decode' = llama.cpp's token evaluation time alone (llama_perf_context); 'generation end to end' = "
        "generated tokens / (wall time − prompt-eval time), i.e. including sampling, the citation constraint "
        "and DSPy's own work. Constraint 'regex' (the default) = groundqa's RegexConstraint (likeliest tokens "
        "checked first); 'gbnf' = llama.cpp's GBNF grammar sampler (checks all 262,144 tokens each step); "
        "'off' = free decoding. Same prompts in each mode.",
        "Generation stops at the ChatAdapter end marker (or the grammar's end) or max_tokens, so generated-token "
        "counts are short answers; 'Parsed by ChatAdapter' counts outputs the adapter parses into a non-empty answer; "
        "'Same answers as GBNF' compares the regex constraint's greedy output with the GBNF grammar's, prompt by prompt.",
        "Prefix reuse (engine defaults, citation grammar on): two engines (reuse_prefix=False / True, each with its own KV cache) answer the same "
        "prompts in turn (3 fresh passages + a new question after the shared prefix); the first prompt primes "
        "both and is not counted. With reuse on, llama.cpp keeps the KV cache of the longest common token "
        "prefix with the previous call, so only the question, its passages and the answer are evaluated anew. "
        "'Identical outputs' compares the greedy answers of the two modes call by call.",
    ]


@register("lm")
def lm_suite(args: argparse.Namespace) -> dict[str, Any]:
    """Embedded LM tokens/s (prompt eval, generation) and the speed-up of prompt-prefix reuse."""
    import logging

    # "LM response was truncated" is expected at max_tokens; keep the progress output readable.
    logging.getLogger("dspy.clients.lm").setLevel(logging.ERROR)
    results = run_lm(quick=bool(getattr(args, "quick", False)), seed=int(getattr(args, "seed", 13)))
    return rendered_result("Embedded LM: Gemma 3 270M through llama.cpp", results, tables, notes, chart, headline)


def headline(results: dict[str, Any]) -> list[str]:
    """Prefix-reuse speed-ups and the cost per generated token under each citation constraint."""
    reuse = ", ".join(f"×{r['speedup']:.2f} ({r['prefix_tokens']:,}-token prefix)" for r in results["prefix_reuse"])
    lines = [f"prefix reuse speed-up per call {reuse}"]
    by: dict[str, list[float]] = {}
    for t in results["throughput"]:
        by.setdefault(t.get("constraint", "off"), []).append(t["end_to_end_ms_per_generated_token"])
    if by:
        lines.append("ms per generated token end to end: " + ", ".join(
            f"{name} {sum(v) / len(v):.1f}" for name, v in by.items()))
    return lines
