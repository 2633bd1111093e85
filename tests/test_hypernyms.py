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


def test_only_a_words_commonest_senses_are_climbed():
    # "flute" is a glass too (its 3rd sense) and a groove (its 2nd): only the commonest senses count
    assert names_a_kind_of("a flute", "instrument") == "flute"
    # "entity" is WordNet's root; "object" as a physical object is too near it, and only its deeper senses
    # ("an aim", "a grammatical object") name kinds
    assert kinds_of("entity") == frozenset() and MIN_DEPTH >= 3
    assert names_a_kind_of("A violin and a stone.", "object") is None


def test_the_table_is_what_the_build_script_writes(tmp_path: Path):
    """The shipped table holds all of WordNet 3.0's nouns with Princeton's licence beside it, and the script
    that writes it names a folder that is not WordNet's in one line, writing nothing."""
    script = Path(__file__).parents[1] / "scripts/build_wordnet_nouns.py"
    bad = subprocess.run([sys.executable, str(script), "--wordnet", str(tmp_path), "--out", str(tmp_path / "x.gz")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "not a WordNet 3.0 database folder" in bad.stderr and not (tmp_path / "x.gz").exists()
    with gzip.open(TABLE, "rt", encoding="utf-8") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    synsets = [line for line in lines if not line.startswith("=")]
    assert len(synsets) == 82115 and len(lines) - len(synsets) == 117798  # WordNet 3.0's nouns
    assert (TABLE.parent / "LICENSE-WordNet").read_text(encoding="utf-8").count("Princeton University") >= 2
