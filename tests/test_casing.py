"""Names typed in lower case, read as the passages write them (programs/casing.py)."""

from __future__ import annotations

from groundqa.programs.answerability import asked, check
from groundqa.programs.casing import truecase
from groundqa.signatures.types import Passage

PASSAGES = [
    Passage(chunk_id="lena#0", doc_id="lena", title="Lena Tarrant", score=0.6,
            text="Lena Tarrant (born 1970) is a sports journalist. The club plays at Cobbler's Meadow in Marrowby."),
    Passage(chunk_id="meadow#0", doc_id="meadow", title="Cobbler's Meadow", score=0.5,
            text="Cobbler's Meadow holds 7,450 people. The stand burned in 1971, and the meadow was rebuilt."),
]


def test_a_lower_case_question_gets_the_passages_names_back():
    assert truecase("where was lena tarrant born", PASSAGES) == "where was Lena Tarrant born"
    assert truecase("how many people can cobblers meadow hold", PASSAGES) == "how many people can Cobbler's Meadow hold"
    # a single word the passages also write in lower case, or only at a sentence start, is no name
    assert truecase("when was the meadow rebuilt", PASSAGES) == "when was the meadow rebuilt"
    assert truecase("where does the club play", PASSAGES) == "where does the club play"
    assert truecase("where is marrowby", PASSAGES) == "where is Marrowby"


def test_a_question_with_capitals_is_taken_as_written():
    assert truecase("Where was lena Tarrant born?", PASSAGES) == "Where was lena Tarrant born?"
    # a capital only at the start is how sentences begin: its names are still read
    assert truecase("Where was lena tarrant born?", PASSAGES) == "Where was Lena Tarrant born?"
    assert truecase("where was lena tarrant born", []) == "where was lena tarrant born"


def test_a_born_year_says_when_not_where():
    where = asked("Where was Lena Tarrant born?")
    assert check(where, "Lena Tarrant (born 1970) is a journalist at the Marrowby Courier.", title="Lena Tarrant").score == 0
    assert check(where, "Lena Tarrant was born in Dunhallow in 1970.", title="Lena Tarrant").score >= 0.6


def test_a_sentence_opening_article_is_no_part_of_the_name():
    violin = [Passage(chunk_id="k#0", doc_id="k", title="Kestrel violin", score=0.7,
                      text="The Kestrel violin was made in 1721. Between concerts the Kestrel is kept at 20 °C.")]
    assert truecase("at what temperature is the kestrel violin kept", violin) == \
        "at what temperature is the Kestrel violin kept"


def test_a_unit_written_as_a_sign_says_the_dimension():
    what = asked("At what temperature are the holding tanks at the Harwick station kept?")
    assert "temperatur" in what.required
    assert check(what, "Its holding tanks are kept at 8 °C.", title="Harwick station").score >= 0.6
    assert check(what, "The holding tanks were installed in 1957.", title="Harwick station").score == 0
