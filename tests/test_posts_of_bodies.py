"""Year bridges for a post of a body (session 44): "Who was chairman *of the cooperative* when …" asks who held the
post, not something of its holder; "at the time of the Great Vellow Flood" dates by a noun; an aside about another
thing (", which had stood there since 1862") does not date the event; a sentence that says the event without a year
is dated by its passage's opening; and the current holder, named with when they came in, holds the years since."""

from __future__ import annotations

from groundqa.judges.lexical import features
from groundqa.programs.year_bridge import dated_question, event_year, find_year_bridge
from groundqa.signatures.types import Passage


def test_the_body_a_post_is_of_is_no_holder():
    dated = dated_question("Who was chairman of the cooperative when the avalanche destroyed the cheese hut on Grisalp?")
    assert dated is not None and dated.main == "Who was chairman of the cooperative"
    assert dated_question("who was chair of the resource allocation committee when two-factor login was introduced")
    # something asked of the holder is still a hop short of the term
    assert dated_question("What was the maiden name of the mother of the harbour master in office when the Varnholt "
                          "Bridge opened?") is None
    assert dated_question("Whom did the wife of the mayor marry when the museum first opened?") is None


def test_at_the_time_of_an_event_named_by_a_noun():
    dated = dated_question("who was president of the club at the time of the Great Vellow Flood")
    assert dated is not None
    assert dated.main == "who was president of the club" and dated.event == "the Great Vellow Flood"


def test_an_aside_about_another_thing_does_not_date_the_event():
    sentence = ("It destroyed the alp's cheese hut and stable, which had stood there since 1862, and flattened a strip "
                "of larch forest.")
    assert event_year("the avalanche destroyed the cheese hut on Grisalp", sentence) is None
    # an aside that says the event still does
    assert event_year("the bridge opened", "The old ferry ran until the bridge, which opened in 1884, replaced it.") == (
        "1884")


def _page(*texts: str, title: str) -> list[Passage]:
    return [Passage(chunk_id=f"p#{n}", doc_id="p", title=title, score=0.7, text=text) for n, text in enumerate(texts)]


def test_a_sentence_without_its_own_year_is_dated_by_its_passage_s_opening():
    dated = dated_question("Who was chairman of the cooperative when the avalanche destroyed the cheese hut on Grisalp?")
    assert dated is not None
    passages = _page("The Grisalp avalanche came down from the Grisflue on the night of 23 January 1951. It destroyed "
                     "the alp's cheese hut and stable, which had stood there since 1862, and flattened a strip of "
                     "larch forest.", title="Grisalp avalanche")
    bridge = find_year_bridge(dated, passages)
    assert bridge is not None and bridge.entity == "1951"
    # an opening with two years gives none
    two = _page("The Grisalp avalanche of 1951 was the worst since 1888. It destroyed the alp's cheese hut on Grisalp, "
                "which had stood there since 1862.", title="Grisalp avalanche")
    assert find_year_bridge(dated, two) is None


def test_the_current_holder_holds_the_years_since_they_came_in():
    assert features("The current chair, Anselm Quaye, a statistician, took office in October 2022.").spans_year("2023")
    said = features("Dorli Amsel chaired the cooperative from 1990 to 2008, and the present chairman, Mattias Perren, "
                    "was elected in 2008.")
    assert said.spans_year("2012") and not said.spans_year("1989")
    assert not features("The present building was completed in 1901.").spans
    assert not features("The current chair took office in 2022.").spans_year("2022")  # its predecessor's last year


def test_the_current_holder_is_who_held_the_post_in_a_year_since():
    from groundqa.programs.answerability import asked, in_term

    what = asked("Who was in the chair of the allocation committee in 2023?")
    said = "The first chair was Mira Holt. The current chair, Anselm Quaye, a statistician, took office in October 2022."
    assert in_term(what, "2023", said)
    assert not in_term(what, "2021", said)


def test_the_event_s_verb_in_another_voice_dates_it():
    sentence = ("The original cheese hut and stable, dating from 1862, were destroyed by the avalanche of January 1951, "
                "and new buildings were put up in 1953 on a safer site.")
    assert event_year("the avalanche destroyed the cheese hut on Grisalp", sentence) == "1951"


def test_brackets_handed_on_from_one_holder_to_the_next_are_terms():
    listed = ("The office has been held by nine people: Ansgar Vennick (1738–1771), the founder; his son Corvin Vennick "
              "(1771–1809); Corvin's son Matthis Vennick (1809–1844); Elof Grunstad (1844–1879).")
    assert features(listed).spans_year("1812")
    from groundqa.programs.answerability import held_terms

    assert held_terms("1812", listed)[0][1] == "Matthis Vennick"
    # lifespans that do not hand on are still lifespans
    assert not features("Hedvig Vennick (1846–1926) married Anton Rielle (1850–1930); their son Per (1882–1950).").spans
