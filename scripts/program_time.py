"""GroundedQA's own time a question, with the answer judge's margins, the retrievals and the vectors warm: what the
rules themselves cost, and whether a change to them moved any answer.

Development data only: the bundled train split and a sample of SQuAD 2.0's *training* articles. One pass answers every
question (it fills the caches and records the answers); the timed passes then run them again:

    python scripts/program_time.py --home H --squad ../shared/data/squad2/dev-v2.0.json --passes 3 --answers A.json
    python scripts/program_time.py --home H --squad ... --compare A.json   # every answer the same?

prints milliseconds a question for each timed pass, with the load average (a shared machine: compare two trees in
alternating runs, as session 52 did with ``PYTHONPATH=<other tree>``). ``--profile F`` writes a cProfile of the timed
passes.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import sys
import time
from typing import Any


def _program(argv: list[str], most: int | None = None) -> tuple[Any, list[Any]]:
    """GroundedQA over one evaluation source, built as ``groundqa evaluate`` builds it, and its questions."""
    from groundqa.app import build_program, configure_lm
    from groundqa.cli.common import settings_from
    from groundqa.cli.evaluate import load_questions
    from groundqa.cli.main import build_parser
    from groundqa.experiment_data import ExperimentData, stratified_sample
    from groundqa.ingest import ingest_documents

    args = build_parser().parse_args(["evaluate", *argv, "--no-mlflow"])
    name, docs, questions = load_questions(args)
    questions = stratified_sample(questions, most, args.seed)
    settings = settings_from(args)
    settings = settings.model_copy(update={"collection": ExperimentData(name, docs, [], questions).collection})
    configure_lm(settings)
    ingest_documents(settings, docs, progress=None)
    program = build_program(settings)
    program.warm_up()
    return program, questions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", help="project home (its caches are filled and read)")
    parser.add_argument("--squad", help="a SQuAD 2.0 JSON file: a sample of its training articles joins bundled train")
    parser.add_argument("--sample", type=int, default=600)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--max-questions", type=int, help="at most this many of each source (stratified by type)")
    parser.add_argument("--answers", help="write every answer (and refusal reason) here")
    parser.add_argument("--compare", help="an --answers file: count the answers that differ")
    parser.add_argument("--profile", help="write a cProfile of the timed passes here")
    args = parser.parse_args(argv)
    if args.home:
        os.environ["GROUNDQA_HOME"] = args.home
    sources = [["--split", "train"]]
    if args.squad:
        sources.append(["--squad", args.squad, "--articles", "train", "--sample", str(args.sample)])
    programs = [_program(source, args.max_questions) for source in sources]
    answers: dict[str, list[Any]] = {}
    for program, questions in programs:  # fills the caches; the answers these passes would give
        for question in questions:
            result = program(question=question.question).result
            answers[question.id] = [result.answer, result.abstain_reason.value if result.abstain_reason else None]
        print(f"answered {len(questions)} questions", file=sys.stderr)
    profile = cProfile.Profile() if args.profile else None
    n = sum(len(questions) for _, questions in programs)
    for number in range(1, args.passes + 1):
        started = time.perf_counter()
        if profile:
            profile.enable()
        for program, questions in programs:
            for question in questions:
                program(question=question.question)
        if profile:
            profile.disable()
        load = "/".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"pass {number}: {1000 * (time.perf_counter() - started) / n:.1f} ms a question ({n} questions, load {load})")
    if profile:
        profile.dump_stats(args.profile)
    if args.answers:
        with open(args.answers, "w", encoding="utf-8") as handle:
            json.dump(answers, handle)
    if args.compare:
        with open(args.compare, encoding="utf-8") as handle:
            before = json.load(handle)
        moved = [key for key, value in answers.items() if before.get(key) != value]
        print(f"{len(moved)} of {len(answers)} answers differ from {args.compare}")
        return 1 if moved else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
