"""Where the gold answer of each question the program gets wrong was: shown, retrieved but not shown, or never retrieved.

A diagnosis for retrieval work (the multi-hop bridge above all): an answer the program never retrieved cannot be
chosen by any later stage, one it retrieved but did not show is lost to the context cut, and one it showed was
there to quote. For a questions file and its corpus (development data only, like every study of the rules):

    python scripts/where_answers_are.py --questions datasets/workbench/valley/questions.jsonl \
        --corpus datasets/workbench/valley/corpus.jsonl [--type multi] [--gate NAME=VALUE ...]
    python scripts/where_answers_are.py --squad ../shared/data/squad2/dev-v2.0.json --sample 600

prints one line per wrong answerable question (question, where the gold answer was, the program's answer or
refusal) and the counts. "Wrong" is a composite score below 0.75, as the workbench figures count; "the gold answer"
is any of the question's answers found, normalised, in a passage's text. Retrievals are those of the answer path
(the question, its sub-queries, bridge hops), not of premise verification.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

WHERE = ("shown", "retrieved", "in the corpus", "nowhere")


class RecordingRetriever:
    """The program's retriever, keeping the text of every passage it returns, by chunk id."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seen: dict[str, str] = {}

    def retrieve(self, query: str, k: int, contains: Any = (), lexical: int = 0) -> Any:
        passages = self.inner.retrieve(query, k, contains=contains, lexical=lexical)
        self.seen.update((p.chunk_id, p.text) for p in passages)
        return passages

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def where(golds: list[str], shown: list[str], retrieved: list[str], corpus: list[str]) -> str:
    """The first of :data:`WHERE` whose texts hold a gold answer (normalised, as the metrics compare)."""
    from groundqa.metrics.correctness import normalize_answer

    wanted = [f" {normalize_answer(g)} " for g in golds if normalize_answer(g)]
    for name, texts in zip(WHERE, (shown, retrieved, corpus), strict=False):
        if any(w in f" {normalize_answer(t)} " for w in wanted for t in texts):
            return name
    return WHERE[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions")
    parser.add_argument("--corpus")
    parser.add_argument("--squad", help="a SQuAD 2.0 JSON file: its training articles only")
    parser.add_argument("--sample", type=int, default=600)
    parser.add_argument("--type", help="only questions of this type (e.g. multi)")
    parser.add_argument("--gate", action="append", default=[], help="NAME=VALUE, as groundqa evaluate takes it")
    args = parser.parse_args(argv)

    from groundqa.cli.common import gate_overrides
    from groundqa.errors import GroundQAError
    from groundqa.metrics.composite import score_item
    from groundqa.workbench import corpus_program, development_data

    try:
        gates = gate_overrides(args.gate)
        docs, questions = development_data(args.squad, args.sample, args.questions, args.corpus)
    except (GroundQAError, OSError, ValueError) as exc:
        print(f"where_answers_are: {exc}", file=sys.stderr)
        return 2
    questions = [q for q in questions if args.type is None or q.type == args.type]
    if not docs or not questions:
        print("where_answers_are: no documents or no questions to read", file=sys.stderr)
        return 2
    program = corpus_program("where", docs, questions, gates)
    recording = RecordingRetriever(program.retriever)
    program.retriever = recording
    texts = [d.text for d in docs]
    counts: Counter[str] = Counter()
    for question in questions:
        if question.should_abstain:
            continue
        recording.seen.clear()
        result = program.run(question.question)
        if score_item(question, result).score >= 0.75:
            counts["right"] += 1
            continue
        shown = [p.text for p in result.passages]
        found = where(list(question.answers), shown, list(recording.seen.values()), texts)
        counts[found] += 1
        outcome = result.answer[:100] if not result.abstained else f"refused ({result.abstain_reason.value})"
        print(f"{found:13} | {question.question} | {outcome}")
    wrong = sum(counts[w] for w in WHERE)
    print(f"{counts['right']} right, {wrong} wrong: " + ", ".join(f"{w} {counts[w]}" for w in WHERE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
