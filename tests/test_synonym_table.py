"""The synonym table is keyed by stems, so two keys with one stem would silently replace each other
(:func:`groundqa.judges.paraphrase.stemmed_groups`)."""

from __future__ import annotations

import pytest

from groundqa.judges.lexical import stem
from groundqa.judges.paraphrase import SYNONYMS, stemmed_groups
from groundqa.programs.answerability import asked, check
from groundqa.programs.gates import Gates


def test_two_keys_with_one_stem_are_an_error():
    with pytest.raises(ValueError, match="'begin'"):
        stemmed_groups({"start": "found", "begin": "set"})


def test_a_fire_that_broke_out_started():
    assert stem("broke") in SYNONYMS[stem("start")]
    what = asked("On what date did the fire on Uhrgasse start?")
    verdict = check(what, "The Uhrgasse fire broke out on the night of 14 March 1923 in the enamel room.",
                    title="Uhrgasse fire of 1923. ")
    assert verdict.score >= 0.6


def test_switched_off_is_disabled_and_linked_is_connected():
    assert "disabl" in asked("When was password login switched off on the clusters?").attribute
    from groundqa.judges.offline import OfflineJudge

    verdict = OfflineJudge().judge("connected Corvid's nodes", [
        "Corvid. The machine consisted of 96 compute nodes, and the nodes were linked by 20 Gb/s DDR InfiniBand."])
    assert verdict.support >= Gates().premise_threshold


def test_a_station_that_went_off_the_air_for_good_closed():
    assert asked("When did HRR Coast go off the air for good?").attribute == ("clos",)
    assert "disabl" in asked("On what date did HRR turn off its medium-wave signal for good?").attribute
    # a passage that says "switched off" still says it
    what = asked("When was password login switched off on the clusters?")
    verdict = check(what, "Password login on the clusters was switched off on 19 June 2017.", title="Access. ")
    assert verdict.score >= 0.6


@pytest.mark.parametrize(("question", "sentence"), [
    ("Which actor portrayed Aldo Brenn?", "Tomas Ekberg was cast in the role of Aldo Brenn, his first part on film."),
    ("What actress portrays Ida Lorne in The Harbour Lights?", "Marit Hove reprised her role as Ida Lorne in The Harbour "
                                                              "Lights."),
    ("How many cameras were built for the movie?", "Only six cameras were built for the film by the Brenn workshop."),
])
def test_a_part_in_a_film_is_said_by_who_was_cast_in_it(question: str, sentence: str) -> None:
    """Session 53, on two SQuAD 2.0 training-file articles no rule had read (``scripts/squad_articles.py``): a film's
    pages say who was cast, who reprised a role, and call the movie a film."""
    assert check(asked(question), sentence).score >= 0.6
    # without the table's words the sentence says nothing of the part (or of the movie)
    bare = sentence.replace("cast in the role of", "seen with").replace("reprised her role as", "met").replace(
        "film", "screen")
    assert check(asked(question), bare).score < check(asked(question), sentence).score
