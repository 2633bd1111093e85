"""Agreement of an entailment judge with the hand-labelled pairs in ``datasets/judge/entailment_labels.jsonl``.

    python -m benchmarks.judge_agreement                 # offline judge, all pairs + dev/test halves
    python -m benchmarks.judge_agreement --errors        # also list the disagreements
    python -m benchmarks.judge_agreement --judge lm --lm openai/gpt-4o-mini   # an LM judge (LiteLLM id)

Prints accuracy, precision / recall on the *entailed* class, Cohen's kappa, agreement per split and per
kind of pair, and the judging rate.

The labels (hand-written, invented facts) are JSONL: ``{"id", "premises": [{"title", "text"}], "hypothesis",
"label": "entailed" | "not_entailed", "kind", "split"}``; the premises are judged jointly. Splits: ``dev``
(offline-judge thresholds were set on it), ``test`` and ``holdout`` (inspected while its rules were
developed), ``final`` (written after the offline judge was frozen: the honest figure).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.registry import register
from groundqa.judges import EntailmentJudge, JudgeNotConfiguredError, OfflineJudge, get_judge
from groundqa.metrics.citations import format_passage

LABELS = Path(__file__).resolve().parent.parent / "datasets" / "judge" / "entailment_labels.jsonl"


def load_pairs(path: str | Path = LABELS) -> list[dict[str, Any]]:
    """The labelled pairs; each has ``premises`` (formatted strings), ``hypothesis``, ``gold`` (bool)."""
    pairs = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        row["premise_texts"] = [format_passage(p.get("title", ""), p["text"]) for p in row["premises"]]
        row["gold"] = row["label"] == "entailed"
        pairs.append(row)
    return pairs


def agreement(gold: Sequence[bool], pred: Sequence[bool]) -> dict[str, float]:
    """Accuracy, precision/recall/F1 on the positive (entailed) class and Cohen's kappa."""
    n = len(gold)
    if n == 0:
        return {"n": 0, "accuracy": float("nan"), "precision": float("nan"), "recall": float("nan"),
                "f1": float("nan"), "kappa": float("nan")}
    tp = sum(g and p for g, p in zip(gold, pred, strict=True))
    fp = sum((not g) and p for g, p in zip(gold, pred, strict=True))
    fn = sum(g and (not p) for g, p in zip(gold, pred, strict=True))
    tn = n - tp - fp - fn
    acc = (tp + tn) / n
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    f1 = 2 * precision * recall / (precision + recall) if tp else 0.0
    p_yes = ((tp + fp) / n) * ((tp + fn) / n)
    p_no = ((tn + fn) / n) * ((tn + fp) / n)
    expected = p_yes + p_no
    kappa = (acc - expected) / (1 - expected) if expected < 1 else float("nan")
    return {"n": n, "accuracy": acc, "precision": precision, "recall": recall, "f1": f1, "kappa": kappa,
            "tp": tp, "fp": fp, "fn": fn, "tn": tn}


def _fmt(m: dict[str, float]) -> str:
    return (f"n={m['n']:>3}  accuracy {m['accuracy']:.3f}  precision {m['precision']:.3f}  "
            f"recall {m['recall']:.3f}  F1 {m['f1']:.3f}  kappa {m['kappa']:.3f}")


def run(judge: EntailmentJudge, pairs: list[dict[str, Any]], show_errors: bool = False) -> dict[str, Any]:
    """Judge every pair and print the agreement report; returns the overall figures."""
    t0 = time.perf_counter()
    if isinstance(judge, OfflineJudge):  # one batch of embeddings for everything, as the metrics do
        judge.warm_up([text for p in pairs for text in (p["hypothesis"], *p["premise_texts"])])
    embed_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    preds = [judge.judge(p["hypothesis"], p["premise_texts"]) for p in pairs]
    cold = time.perf_counter() - t0
    gold = [p["gold"] for p in pairs]
    pred = [v.entailed for v in preds]
    overall = agreement(gold, pred)
    print(f"judge: {judge.name}   pairs: {len(pairs)} ({sum(gold)} entailed)   file: {LABELS}")
    print(f"  all    {_fmt(overall)}")
    for split in ("dev", "test", "holdout", "final"):
        idx = [i for i, p in enumerate(pairs) if p.get("split") == split]
        if idx:
            print(f"  {split:<6} {_fmt(agreement([gold[i] for i in idx], [pred[i] for i in idx]))}")
    by_kind: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        by_kind[p.get("kind", "?")].append(i)
    print("  agreement by kind:")
    for kind, idx in sorted(by_kind.items()):
        ok = sum(gold[i] == pred[i] for i in idx)
        print(f"    {kind:<22} {ok:>3}/{len(idx):<3}")
    if show_errors:
        print("  disagreements:")
        for i, p in enumerate(pairs):
            if gold[i] != pred[i]:
                print(f"    {p['id']} gold={p['label']} kind={p.get('kind')}: {p['hypothesis']}")
                print(f"        {preds[i].rationale}")
    if isinstance(judge, OfflineJudge):
        # Warm caches: time fresh verdicts (verdict cache cleared) and cached verdicts separately.
        judge._verdicts.clear()
        t0 = time.perf_counter()
        for p in pairs:
            judge.judge(p["hypothesis"], p["premise_texts"])
        warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(10):
            for p in pairs:
                judge.judge(p["hypothesis"], p["premise_texts"])
        cached = (time.perf_counter() - t0) / 10
        print(f"  speed: batch embedding of all texts {embed_s:.1f}s; then {len(pairs) / cold:,.0f} judgements/s "
              f"(first pass), {len(pairs) / warm:,.0f}/s (parsed texts cached), "
              f"{len(pairs) / cached:,.0f}/s (repeated verdicts)")
    return overall


@register("judge_agreement")
def suite(args: argparse.Namespace) -> dict[str, Any]:
    """Agreement of the offline entailment judge with the hand labels, per split."""
    judge = get_judge("offline")
    pairs = load_pairs()
    judge.warm_up([t for p in pairs for t in (p["hypothesis"], *p["premise_texts"])])
    t0 = time.perf_counter()
    pred = [judge.judge(p["hypothesis"], p["premise_texts"]).entailed for p in pairs]
    rate = len(pairs) / max(time.perf_counter() - t0, 1e-9)
    gold = [p["gold"] for p in pairs]
    rows, results = [], {}
    for split in ("all", "dev", "test", "holdout", "final"):
        idx = [i for i, p in enumerate(pairs) if split == "all" or p.get("split") == split]
        m = agreement([gold[i] for i in idx], [pred[i] for i in idx])
        results[split] = m
        rows.append([split, m["n"], round(m["accuracy"], 3), round(m["precision"], 3), round(m["recall"], 3),
                     round(m["kappa"], 3)])
    return {
        "title": "Offline entailment judge vs hand labels",
        "config": {"judge": judge.name, "labels": str(LABELS)},
        "results": {"splits": results, "judgements_per_s": rate},
        "tables": [{"title": "Agreement", "columns": ["split", "n", "accuracy", "precision", "recall", "kappa"],
                    "rows": rows}],
        "notes": ["'final' was written after the judge was frozen; 'dev' set its thresholds.",
                  "ALCE's TRUE (T5-XXL NLI) judge cannot run here; this is the approximation's agreement."],
        "headline": [f"offline judge vs {results['all']['n']} hand labels: {100 * results['all']['accuracy']:.0f}% "
                     f"agreement (kappa {results['all']['kappa']:.2f}); {100 * results['final']['accuracy']:.0f}% on "
                     "the pairs written after it was frozen"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", default="offline", help="offline | lm | auto")
    parser.add_argument("--lm", default=None, help="LiteLLM model id for --judge lm (else dspy's configured LM)")
    parser.add_argument("--labels", default=str(LABELS))
    parser.add_argument("--errors", action="store_true", help="list the disagreements")
    args = parser.parse_args(argv)
    if args.lm:
        import dspy

        dspy.configure(lm=dspy.LM(args.lm))
    judge = get_judge(args.judge)
    if isinstance(judge, OfflineJudge):
        t0 = time.perf_counter()
        judge.warm_up(["warm up"])
        print(f"(MiniLM loaded in {time.perf_counter() - t0:.1f}s)")
    try:
        run(judge, load_pairs(args.labels), show_errors=args.errors)
    except JudgeNotConfiguredError as exc:
        print(f"error: {exc}")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
