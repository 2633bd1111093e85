"""Sentences suite: what embedding each chunk's sentences at ingestion (``embed_sentences``) costs and gives back.

A user ingests a corpus into a fresh home, then asks. Each variant gets a home of its own (caches on, under a
temporary folder, as the default home has them) and the same corpus and questions: ``embed_sentences = false``
embeds a sentence when a question first reads it, ``true`` embeds every chunk's sentences while ingesting
(:mod:`groundqa.programs.passage_reading`). Printed: ingestion seconds, the texts MiniLM encoded while questions
ran, seconds per question outside the tuned answer judge (which neither variant changes) and in all, and whether
every answer is the same. The questions are the bundled train split (or SQuAD's training articles): a timing,
nothing is fitted. Options as for :mod:`benchmarks.quality` (``GROUNDQA_BENCH_DATA``, ``--quick``).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.registry import register
from benchmarks.suite_setup import (
    drop_process_caches,
    load_average_text,
    quiet_logs,
    say,
    scratch_home,
    skipped_result,
    suite_data,
    warm_up,
)
from groundqa.datasets.loaders import Document, Question

QUICK = 20
"""Questions in a ``--quick`` run."""


def run_variant(base: Any, docs: Sequence[Document], questions: Sequence[Question], embed_sentences: bool,
                collection: str) -> dict[str, Any]:
    """Ingest ``docs`` into a fresh home with ``embed_sentences`` as given, then run GroundedQA on ``questions``
    with every in-process memo emptied first (as a new process would find them)."""
    from groundqa.app import configure_lm, open_store
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig
    from groundqa.programs.retriever import Retriever
    from groundqa.runtime.guarded_lm import unwrap
    from groundqa.store.embeddings import get_embedder

    with scratch_home(base, "groundqa-sentences-") as home:
        settings = base.model_copy(update={"home": home, "cache": True, "collection": collection,
                                           "embed_sentences": embed_sentences})
        lm = configure_lm(settings)  # the caches under the scratch home, before ingesting
        store = open_store(settings)
        drop_process_caches()
        started = time.perf_counter()
        report = store.ingest(list(docs), settings.chunk_size, settings.chunk_overlap)
        ingest_s = time.perf_counter() - started
        say(f"embed_sentences={embed_sentences}: {report.chunks_total} chunks ingested in {ingest_s:.1f} s "
            f"(sentences {report.stage_seconds.get('embed_sentences', 0.0):.1f} s)")
        warm_up(unwrap(lm), store, judge_settings=base)
        program = GroundedQA(Retriever(store, k=settings.k, cache=None), QAConfig.for_lm(settings.lm))
        drop_process_caches()
        embedder = get_embedder()
        encoded_before = embedder.stats["encoded"]
        answers: list[tuple[str, str | None]] = []
        judge_s = 0.0
        started = time.perf_counter()
        for question in questions:
            result = program.run(question.question)
            answers.append((result.answer, result.abstain_reason.value if result.abstain_reason else None))
            judge_s += result.usage.judge_ms / 1000
        seconds = time.perf_counter() - started
        encoded = int(embedder.stats["encoded"] - encoded_before)
    n = max(1, len(questions))
    return {"embed_sentences": embed_sentences, "chunks": report.chunks_total, "ingest_s": ingest_s,
            "sentences_s": report.stage_seconds.get("embed_sentences", 0.0), "seconds": seconds,
            "per_question_s": seconds / n, "outside_judge_s": (seconds - judge_s) / n, "judge_s": judge_s,
            "encoded_at_questions": encoded, "answers": answers}


def sentences_result(off: dict[str, Any], on: dict[str, Any], config: dict[str, Any],
                     notes: Sequence[str]) -> dict[str, Any]:
    """The registry result dict: one row per variant, ratios on against off."""
    n = len(off["answers"])
    same = sum(a == b for a, b in zip(off["answers"], on["answers"], strict=True))
    rows = [[("on" if v["embed_sentences"] else "off"), v["chunks"], round(v["ingest_s"], 1), round(v["sentences_s"], 1),
             v["encoded_at_questions"], round(1000 * v["outside_judge_s"], 1), round(1000 * v["per_question_s"], 1)]
            for v in (off, on)]
    ratio_outside = on["outside_judge_s"] / off["outside_judge_s"] if off["outside_judge_s"] > 0 else float("nan")
    ratio_total = on["per_question_s"] / off["per_question_s"] if off["per_question_s"] > 0 else float("nan")
    ratio_ingest = on["ingest_s"] / off["ingest_s"] if off["ingest_s"] > 0 else float("nan")
    headline = [f"embed_sentences: per question ×{ratio_total:.2f} (outside the answer judge ×{ratio_outside:.2f}), "
                f"ingestion ×{ratio_ingest:.2f}; texts encoded while asking {off['encoded_at_questions']} -> "
                f"{on['encoded_at_questions']}; identical answers {same}/{n}"]
    return {
        "title": "Sentences: embedding each chunk's sentences at ingestion",
        "config": config,
        "results": {"off": {k: v for k, v in off.items() if k != "answers"},
                    "on": {k: v for k, v in on.items() if k != "answers"}, "identical": same, "n": n},
        "tables": [{"title": f"A fresh home, ingest then ask ({n} questions)",
                    "columns": ["embed_sentences", "Chunks", "Ingestion (s)", "of which sentences (s)",
                                "Texts encoded while asking", "ms/question outside the answer judge",
                                "ms/question"],
                    "rows": rows}],
        "notes": [*notes, f"On against off: ms/question ×{ratio_total:.2f}, outside the answer judge "
                          f"×{ratio_outside:.2f}; ingestion ×{ratio_ingest:.2f}; identical answers {same}/{n}."],
        "chart": {"title": "ms per question after a fresh ingestion", "ylabel": "ms per question",
                  "series": {"outside the answer judge": {r[0]: r[5] for r in rows},
                             "in all": {r[0]: r[6] for r in rows}}},
        "headline": headline,
    }


@register("sentences")
def sentences_suite(args: argparse.Namespace) -> dict[str, Any]:
    """Ingestion with and without each chunk's sentences embedded, then the same questions in a fresh home."""
    from groundqa.config import load_settings

    quiet_logs()
    base = load_settings(lm=getattr(args, "lm", None))
    data = suite_data(args)
    questions = data.train[:QUICK] if data.quick else data.train
    config = {"lm": base.lm, "data": data.data, "questions": len(questions), "quick": data.quick,
              "question_source": "train split (SQuAD: training articles)", "retrieval_cache": False}
    if data.skip:
        return skipped_result("Sentences", config, data.skip)
    load_before = load_average_text()
    off = run_variant(base, data.docs, questions, False, data.collection("sentences-off"))
    on = run_variant(base, data.docs, questions, True, data.collection("sentences-on"))
    load_after = load_average_text()
    notes = [f"LM {base.lm}; {len(questions)} questions of the {data.dataset.kind} training data, the corpus of "
             f"{len(data.docs)} documents; each variant in a fresh home (caches on: embeddings, answer judge; "
             f"retrieval cache off), in-process memos emptied after ingestion; load average (1/5/15 min) before: "
             f"{load_before}, after: {load_after} ({os.cpu_count()} cores; a shared machine: compare the ratios)."]
    return sentences_result(off, on, config, notes)
