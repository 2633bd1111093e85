"""Shapes found on SQuAD's training articles (development data) in session 39: a word written closed in the passage
and as two words in the question ("Apple Talk" / "AppleTalk", "rain fell" / "rainfall"), and a phrasal verb people
say for what passages state ("kicked … out" / "forced from")."""

from __future__ import annotations

from groundqa.judges.lexical import features
from groundqa.judges.offline import OfflineJudge
from groundqa.programs.answerability import plain_words

APPLETALK = "AppleTalk was a proprietary suite of networking protocols developed by Apple Inc. in 1985."
RAIN = "Annual rainfall was 842 millimetres in 2010 and 1,034 millimetres in 2012."


def test_a_word_written_closed_covers_its_two_halves():
    passage = features(APPLETALK)
    assert passage.covers_in_compound("talk", {"appl"})  # "Apple Talk": the name's words, stemmed
    assert not passage.covers_in_compound("talk", {"bank"})  # the other half must be a word of what is checked
    assert features(RAIN).covers_in_compound("fall", {"rain"})
    assert not features(RAIN).covers_in_compound("fall", {"snow"})
    # the other half must be three letters or more: "abed" is no "a" + "bed"
    assert features("Snowfall was heavy.").covers_in_compound("fall", {"snow"})
    assert not features("He lay abed.").covers_in_compound("bed", {"a"})


def test_a_name_written_as_two_words_is_named_by_the_closed_word():
    judge = OfflineJudge()
    verdict = judge.judge("Apple Talk", [APPLETALK])
    assert verdict.entailed and "not in the premise" not in verdict.rationale
    assert not judge.judge("Apple Walk", [APPLETALK]).entailed


def test_kicked_out_is_forced_out():
    assert plain_words("Who kicked Ethelred out?") == "Who forced Ethelred out?"
    assert plain_words("Why was he kicked out of the club?") == "Why was he forced out of the club?"
    assert plain_words("Who kicked the ball?") == "Who kicked the ball?"
