"""How often the program's own retrieval brings a question's gold document, with and without BM25's chunks beside the
dense hits (the ``lexical_pool`` gate of hybrid retrieval).

For each answerable question: the passages ``GroundedQA._retrieve`` keeps for the question itself (2×k dense hits,
plus ``lexical_pool`` BM25 chunks, re-ranked by word overlap, k kept), and whether one of them is from a gold
document. Development data only, like every study of the rules: a questions file and its corpus, or SQuAD's
*training* articles (the held-out ones are refused):

    python scripts/retrieval_recall.py --squad ../shared/data/squad2/dev-v2.0.json --sample 600 --pools 0 1 2
    python scripts/retrieval_recall.py --questions Q.jsonl --corpus C.jsonl --pools 0 1

prints one line per pool size: questions with a gold document among the kept passages, and how many kept passages
came from BM25 alone.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions")
    parser.add_argument("--corpus")
    parser.add_argument("--squad", help="a SQuAD 2.0 JSON file: its training articles only")
    parser.add_argument("--sample", type=int, default=600)
    parser.add_argument("--pools", type=int, nargs="+", default=[0, 1])
    args = parser.parse_args(argv)

    from groundqa.app import build_program
    from groundqa.errors import GroundQAError
    from groundqa.workbench import corpus_settings, development_data

    try:
        docs, questions = development_data(args.squad, args.sample, args.questions, args.corpus)
    except (GroundQAError, OSError, ValueError) as exc:
        print(f"retrieval_recall: {exc}", file=sys.stderr)
        return 2
    answerable = [q for q in questions if not q.should_abstain and q.gold_docs]
    if not docs or not answerable:
        print("retrieval_recall: no documents or no answerable question with a gold document", file=sys.stderr)
        return 2
    settings = corpus_settings("recall", docs, questions)
    for pool in args.pools:
        program = build_program(settings, gates={"lexical_pool": pool})
        found = from_bm25 = 0
        for question in answerable:
            kept = program._retrieve(question.question)
            dense = {p.chunk_id for p in program.retriever.retrieve(question.question, 2 * program.gates.k)}
            found += any(p.doc_id in question.gold_docs for p in kept)
            from_bm25 += sum(p.chunk_id not in dense for p in kept)
        print(f"lexical_pool={pool}: gold document kept for {found} of {len(answerable)} answerable questions "
              f"({found / len(answerable):.3f}); {from_bm25} kept passages from BM25 alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
