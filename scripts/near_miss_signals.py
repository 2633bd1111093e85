"""Whether MiniLM tells an answering sentence from a near miss, on development data only (session 19).

``sentences CORPUS...``: for every question of the named workbench corpora, the sentences of the passages retrieved
for it, each with the answer check's verdict and MiniLM's cosine to the question; prints the AUC of that cosine
(and of the check's own coverage) between the sentences that hold a gold answer and those that do not, among the
sentences that hold a value of the asked type, are vetoed by no rule and fall short of the ``answerability`` gate.

``words``: MiniLM's cosine between single words, for pairs a passage uses for the question's word and pairs that
must not be read as each other.

``chunks --reports DIR CORPUS...``: for the single look-ups of the named corpora, whether the answer first appears in a
document's first chunk or a later one, and how often each was refused, from ``groundqa evaluate ... --json
DIR/<corpus>.json`` reports.

``pool CORPUS... --out DIR``: the named workbench corpora as one corpus and one question set (ids prefixed by
corpus), for ``python optimize.py --optimizer calibrate --dataset DIR/questions.jsonl --corpus DIR/corpus.jsonl``.

Never reads bundled dev/test or SQuAD.

    python scripts/near_miss_signals.py sentences software valley institute ...
    python scripts/near_miss_signals.py words
    python scripts/near_miss_signals.py chunks --reports /tmp/reports chess island ...
    python scripts/near_miss_signals.py pool chess island pharma shipyard --out /tmp/pool
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

WORKBENCH = Path(__file__).parents[1] / "datasets" / "workbench"
SAID_OTHERWISE = [("inaugurated", "opened"), ("create", "launched"), ("nickname", "call"), ("ban", "suspension"),
                  ("pills", "tablets"), ("factory", "plant"), ("annually", "year"), ("turnover", "revenue"),
                  ("stake", "percent"), ("female", "woman"), ("entry", "admission"), ("halted", "stopped"),
                  ("vehicles", "cars"), ("doctorate", "PhD"), ("boatyard", "shipwright"), ("trophy", "ibex"),
                  ("donated", "gift"), ("sculpted", "sculptor"), ("established", "founded"), ("quit", "resigned"),
                  ("capacity", "seats"), ("wage", "pay")]
NOT_THE_SAME = [("budget", "revenue"), ("height", "length"), ("born", "died"), ("population", "visitors"),
                ("founded", "closed"), ("president", "secretary"), ("bought", "sold"), ("wife", "daughter"),
                ("deep", "wide"), ("price", "salary"), ("temperature", "altitude"), ("father", "son"),
                ("opened", "demolished"), ("winner", "runner-up"), ("budget", "visitors"), ("mayor", "council"),
                ("width", "depth"), ("first", "last"), ("north", "south"), ("architect", "builder")]


def auc(positive: list[float], negative: list[float]) -> float:
    """The chance that a positive outscores a negative (ties count half)."""
    if not positive or not negative:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


def sentences(corpora: list[str]) -> None:
    import numpy as np

    from groundqa.datasets.loaders import load_corpus, load_questions_jsonl
    from groundqa.programs.answerability import asked, check
    from groundqa.text import opening, split_sentences
    from groundqa.workbench import corpus_program

    gold_cos: list[float] = []
    miss_cos: list[float] = []
    gold_cov: list[float] = []
    miss_cov: list[float] = []
    for name in corpora:
        root = WORKBENCH / name
        docs = load_corpus(root / "corpus.jsonl").items
        questions = load_questions_jsonl(root / "questions.jsonl").items
        program = corpus_program("questions", docs, questions)
        embedder = program.retriever.store.embedder
        for q in questions:
            what = asked(q.question)
            golds = [] if q.should_abstain else [a.lower() for a in q.answers]
            rows = []
            for passage in program.retriever.retrieve(q.question, program.gates.k):
                parts = split_sentences(passage.text)
                for i, sentence in enumerate(parts):
                    verdict = check(what, sentence, title=f"{passage.title}. {parts[i - 1] if i else ''}",
                                    about=opening(passage.text))
                    # a rule's veto (a swapped word, another name, a relative) leaves has_type false
                    if verdict.has_type and verdict.score < program.gates.answerability:
                        rows.append((sentence, verdict.coverage, any(g in sentence.lower() for g in golds)))
            if not rows:
                continue
            vectors = np.array(embedder.embed([q.question, *(r[0] for r in rows)]))
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            for (_, coverage, gold), cosine in zip(rows, vectors[1:] @ vectors[0], strict=True):
                (gold_cos if gold else miss_cos).append(float(cosine))
                (gold_cov if gold else miss_cov).append(coverage)
        print(f"{name}: done", file=sys.stderr)
    print(f"typed, unvetoed sentences below the gate: {len(gold_cos) + len(miss_cos)} ({len(gold_cos)} hold a gold "
          f"answer); AUC of the question cosine {auc(gold_cos, miss_cos):.3f}, of the check's coverage "
          f"{auc(gold_cov, miss_cov):.3f}")


def words() -> None:
    import numpy as np

    from groundqa.store.embeddings import get_embedder

    embedder = get_embedder()

    def cosines(pairs: list[tuple[str, str]]) -> list[float]:
        out = []
        for a, b in pairs:
            v = np.array(embedder.embed([a, b]))
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            out.append(float(v[0] @ v[1]))
        return sorted(out)

    for label, pairs in (("said otherwise", SAID_OTHERWISE), ("not the same", NOT_THE_SAME)):
        values = cosines(pairs)
        print(f"{label} ({len(values)} pairs): {values[0]:.2f}-{values[-1]:.2f}, median {values[len(values) // 2]:.2f}")


def chunks(corpora: list[str], reports: Path) -> None:
    from collections import Counter

    from groundqa.store.chunking import chunk_text

    counts: Counter[tuple[str, bool]] = Counter()
    for name in corpora:
        root = WORKBENCH / name
        docs = {d["id"]: d for d in map(json.loads, (root / "corpus.jsonl").read_text(encoding="utf-8").splitlines())}
        refused = {r["id"]: bool(r["abstain_reason"])
                   for r in json.loads((reports / f"{name}.json").read_text(encoding="utf-8"))["records"]}
        for q in map(json.loads, (root / "questions.jsonl").read_text(encoding="utf-8").splitlines()):
            if q["type"] != "single" or q["should_abstain"]:
                continue
            gold = q["answers"][0].lower()
            where = next((("first" if i == 0 else "later") for d in q["gold_docs"]
                          for i, c in enumerate(chunk_text(d, docs[d]["text"])) if gold in c.text.lower()), "none")
            counts[(where, refused[q["id"]])] += 1
    for where in ("first", "later", "none"):
        total = counts[(where, True)] + counts[(where, False)]
        if total:
            print(f"answer in the {where} chunk: {total} look-ups, {counts[(where, True)]} refused "
                  f"({counts[(where, True)] / total:.0%})")


def pool(corpora: list[str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    docs, questions = [], []
    for name in corpora:
        root = WORKBENCH / name
        for line in (root / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
            doc = json.loads(line)
            docs.append({**doc, "id": f"{name}-{doc['id']}"})
        for line in (root / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            q = {**q, "id": f"{name}-{q['id']}", "gold_docs": [f"{name}-{g}" for g in q.get("gold_docs", [])]}
            if q.get("contradicted_by"):
                q["contradicted_by"] = f"{name}-{q['contradicted_by']}"
            questions.append(q)
    (out / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    (out / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    print(f"{out}: {len(docs)} documents, {len(questions)} questions")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("sentences").add_argument("corpora", nargs="+")
    sub.add_parser("words")
    chunked = sub.add_parser("chunks")
    chunked.add_argument("corpora", nargs="+")
    chunked.add_argument("--reports", type=Path, required=True, help="folder of <corpus>.json evaluation reports")
    pooled = sub.add_parser("pool")
    pooled.add_argument("corpora", nargs="+")
    pooled.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    unknown = [c for c in getattr(args, "corpora", []) if not (WORKBENCH / c / "questions.jsonl").is_file()]
    if unknown:
        print(f"near_miss_signals: no workbench corpus named {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.command == "sentences":
        sentences(args.corpora)
    elif args.command == "words":
        words()
    elif args.command == "chunks":
        chunks(args.corpora, args.reports)
    else:
        pool(args.corpora, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
