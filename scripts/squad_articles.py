"""Write some articles of a SQuAD 2.0 file as a SQuAD 2.0 file of their own: development data no rule has read.

The project's SQuAD file (``../shared/data/squad2/dev-v2.0.json``) has sixteen articles: six for development and
calibration, ten held out (:data:`groundqa.datasets.squad.SQUAD2_TRAIN_ARTICLES`). After fifty sessions of rules the
six are well worn, and the held-out ten may not be read. SQuAD 2.0's official *training* file (``train-v2.0.json``,
https://rajpurkar.github.io/SQuAD-explorer/, CC BY-SA 4.0) shares no article with them; its articles that hold
unanswerable questions are fresh development data for the questions SQuAD 2.0 asks. Session 53 used two of them:

    python scripts/squad_articles.py train-v2.0.json /tmp/squad-fresh.json \\
        "The_Legend_of_Zelda:_Twilight_Princess" "Spectre_(2015_film)"
    groundqa evaluate --squad /tmp/squad-fresh.json --articles all --sample 400 --no-mlflow --json F

(836 questions, 348 of them unanswerable; ``--sample 400`` draws 200 of each). Nothing of the file is copied into the
project: the text stays where the user keeps it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", type=Path, help="a SQuAD 2.0 JSON file")
    parser.add_argument("out", type=Path, help="where to write the chosen articles")
    parser.add_argument("titles", nargs="+", help="article titles, as the file writes them")
    args = parser.parse_args(argv)
    try:
        data = json.loads(args.source.read_text(encoding="utf-8"))
        articles = data["data"]
        titles = [a["title"] for a in articles]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        print(f"squad_articles: {args.source} is not a readable SQuAD 2.0 file ({exc})", file=sys.stderr)
        return 2
    missing = [t for t in args.titles if t not in titles]
    if missing:
        print(f"squad_articles: no article titled {', '.join(map(repr, missing))} in {args.source}", file=sys.stderr)
        return 2
    chosen = [a for a in articles if a["title"] in args.titles]
    questions = [q for a in chosen for p in a["paragraphs"] for q in p["qas"]]
    args.out.write_text(json.dumps({"version": data.get("version", "v2.0"), "data": chosen}), encoding="utf-8")
    unanswerable = sum(bool(q.get("is_impossible")) for q in questions)
    print(f"{len(chosen)} articles, {len(questions)} questions ({unanswerable} unanswerable) written to {args.out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
