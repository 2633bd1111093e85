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
