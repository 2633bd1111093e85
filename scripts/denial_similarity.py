"""How close "No in other words" sits to silence, on development data only (the denial_similarity gate).

For every "Did X ever ...?" question of bundled train and the workbench corpora, the cosine between its
statement and the closest negated sentence about X among the passages retrieved for it: the explicit "No"
questions (``answers == ["No"]``) should score above the gate, the ones the corpus is silent on below.
Never reads bundled dev/test or SQuAD.

    python scripts/denial_similarity.py
"""

from __future__ import annotations

from groundqa.datasets.bundled import load_bundled
from groundqa.datasets.loaders import load_corpus, load_questions_jsonl
from groundqa.judges.lexical import features, negates
from groundqa.programs.polar import denial_similarities, statement
from groundqa.text import split_sentences, strip_citations
from groundqa.workbench import corpus_program

WORKBENCH = ("software", "valley", "institute", "orchestra", "railway", "vineyard", "airline", "football")


def development_sets():
    docs, questions = load_bundled("train")
    yield "bundled-train", docs, questions
    for name in WORKBENCH:
        root = f"datasets/workbench/{name}"
        yield name, load_corpus(f"{root}/corpus.jsonl").items, load_questions_jsonl(f"{root}/questions.jsonl").items


def main() -> None:
    print("set | said | cosine | statement | closest negated sentence")
    for name, docs, questions in development_sets():
        program = corpus_program(name, docs, questions)
        for q in questions:
            if q.type != "negative_existence":
                continue
            claim = statement(q.question)
            surnames = {n[-1] for n in features(claim).names}
            negated = []
            for passage in program.retriever.retrieve(q.question, program.gates.k):
                for raw in split_sentences(passage.text):
                    sentence = strip_citations(raw)
                    about = features(f"{passage.title}. {sentence}")
                    if negates(sentence) and all(about.covers(s) for s in surnames):
                        negated.append(sentence)
            best = max(zip(denial_similarities(claim, negated), negated, strict=True), default=(0.0, ""))
            said = "No" if q.answers == ["No"] else "silent"
            print(f"{name} | {said} | {best[0]:.2f} | {claim} | {best[1][:80]}")


if __name__ == "__main__":
    main()
