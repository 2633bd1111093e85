"""WordNet's noun hypernyms (groundqa.hypernyms): a word names a kind of the asked noun, within limits, and
the derived table is what the build script writes."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from groundqa.hypernyms import MIN_DEPTH, TABLE, kinds_of, names_a_kind_of


@pytest.mark.parametrize("text, category, word", [
    ("A keen amateur flute player, Brandt took part in the evenings.", "instrument", "flute"),
    ("Its walls are built of grey gneiss from the quarry.", "stone", "gneiss"),
    ("Two ferries cross the strait.", "boat", "ferries"),  # a plural
    ("She caught trout in the Ilse.", "fish", "trout"),
    ("He played the bass drum in the town band.", "instrument", "bass drum"),  # a two-word name
])
def test_a_word_names_a_kind_of_the_asked_noun(text, category, word):
    assert names_a_kind_of(text, category) == word


@pytest.mark.parametrize("text, category", [
    ("The lights were designed in 1987 by Odile Marchetti.", "instrument"),
    ("Its walls are built of grey gneiss.", "instrument"),
    ("The instrument was restored in 1990.", "instrument"),  # the asked word itself is no kind of it
    ("The flute groove runs the length of the column.", "fish"),
    ("A violin and a stone.", "object"),  # a category near WordNet's root names no kind at all
    ("A violin and a stone.", "entity"),
    ("A violin.", "qwertyuiop"),  # not a WordNet noun
])
def test_nothing_else_names_a_kind_of_it(text, category):
    assert names_a_kind_of(text, category) is None


def test_wordnets_root_names_no_kind():
    # "entity" is WordNet's root; "object" as a physical object is too near it, and only its deeper senses
    # ("an aim", "a grammatical object") name kinds
    assert kinds_of("entity") == frozenset() and MIN_DEPTH >= 3
    assert names_a_kind_of("A violin and a stone.", "object") is None


# A WordNet database in miniature: entity > artifact > device > tool > instrument > flute > piccolo; "pipe" is a
# groove, a glass and an artifact in its three commonest senses and an instrument only in its fourth
_DATA = {1: ("entity", None), 2: ("artifact", 1), 3: ("device", 2), 4: ("tool", 3), 5: ("instrument", 4),
         6: ("flute", 5), 7: ("groove", 2), 8: ("glass", 2), 9: ("piccolo", 6), 10: ("pipe", 5)}
_INDEX = {"entity": [1], "artifact": [2], "device": [3], "tool": [4], "instrument": [5], "flute": [6], "groove": [7],
          "glass": [8], "piccolo": [9], "pipe": [7, 8, 2, 10]}


def _tiny_wordnet(folder: Path) -> Path:
    folder.mkdir()
    licence = "  1 WordNet Release 3.0 This software and database is being provided by Princeton University  \n"
    data = [f"{n:08d} 06 n 01 {word} 0 {0 if up is None else 1:03d}{f' @ {up:08d} n 0000' if up else ''} | a gloss  "
            for n, (word, up) in _DATA.items()]
    index = [f"{word} n {len(offsets)} 1 @ {len(offsets)} 0 " + " ".join(f"{o:08d}" for o in offsets) + "  "
             for word, offsets in sorted(_INDEX.items())]
    (folder / "data.noun").write_text(licence + "\n".join(data) + "\n", encoding="latin-1")
    (folder / "index.noun").write_text(licence + "\n".join(index) + "\n", encoding="latin-1")
    (folder / "LICENSE").write_text("WordNet 3.0 Copyright 2006 by Princeton University.\n", encoding="utf-8")
    return folder


def test_the_build_script_writes_the_table_the_look_up_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A WordNet folder in, the compact table and its licence out, byte for byte the same on a second run; read
    back, it climbs hypernyms, takes plurals, climbs only a word's commonest senses and finds no kind of a
    category near the root. A folder that is not WordNet's is one line and writes nothing."""
    from groundqa import hypernyms

    script = Path(__file__).parents[1] / "scripts/build_wordnet_nouns.py"
    bad = subprocess.run([sys.executable, str(script), "--wordnet", str(tmp_path), "--out", str(tmp_path / "x.gz")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "not a WordNet 3.0 database folder" in bad.stderr and not (tmp_path / "x.gz").exists()

    source, table = _tiny_wordnet(tmp_path / "wn"), tmp_path / "out" / "nouns.txt.gz"
    written = []
    for _ in range(2):
        run = subprocess.run([sys.executable, str(script), "--wordnet", str(source), "--out", str(table)],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        written.append(table.read_bytes())
    assert written[0] == written[1] and (table.parent / "LICENSE-WordNet").is_file()

    caches = (hypernyms._nouns, hypernyms._senses, hypernyms._depth, hypernyms.kinds_of, hypernyms._ancestors)
    monkeypatch.setattr(hypernyms, "TABLE", table)
    for cached in caches:
        cached.cache_clear()
    try:
        assert hypernyms.names_a_kind_of("He played the piccolos.", "instrument") == "piccolos"
        assert hypernyms.names_a_kind_of("a flute", "instrument") == "flute"
        assert hypernyms.names_a_kind_of("an instrument", "instrument") is None  # not a kind of itself
        assert hypernyms.names_a_kind_of("a pipe", "instrument") is None  # its fourth sense only
        assert hypernyms.names_a_kind_of("a pipe", "artifact") is None  # "artifact" is one step from the root
        assert hypernyms.kinds_of("instrument") and not hypernyms.kinds_of("device")
    finally:
        for cached in caches:
            cached.cache_clear()


def test_the_shipped_table_holds_wordnets_nouns_with_its_licence():
    with gzip.open(TABLE, "rt", encoding="utf-8") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    synsets = [line for line in lines if not line.startswith("=")]
    assert len(synsets) == 82115 and len(lines) - len(synsets) == 117798  # WordNet 3.0's nouns
    assert (TABLE.parent / "LICENSE-WordNet").read_text(encoding="utf-8").count("Princeton University") >= 2
