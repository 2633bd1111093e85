"""A why-question stands on the sentence that gives its cause (session 46): "Penhallow resigned in 1904 *because of*
failing eyesight" on Josiah Penhallow's page states what "Why did Josiah Penhallow step down as principal?" takes for
granted, and answers it, though the sentence alone neither names him in full nor says "principal" (his page's opening
does)."""

from __future__ import annotations

from scripted_retrieval import ScriptedRetriever, passage

from groundqa.judges.lexical import stem
from groundqa.programs.answerability import GIVES_CAUSE, asked, check, plain_words
from groundqa.programs.context import build_context
from groundqa.programs.extractive import extractive_answer, rank_sentences
from groundqa.programs.gates import Gates
from groundqa.programs.premises import PremiseVerifier, _explained, _predicate
from groundqa.programs.presuppositions import heuristic_presuppositions
from groundqa.programs.rescue import second_opinion
from groundqa.signatures.types import Passage

_OPENING = ("The Reverend Josiah Penhallow (1840–1912) was the first principal of Wendlecombe Agricultural College, "
            "serving from 1887 to 1904.")


def _verdict(question: str, *passages: Passage):
    verifier = PremiseVerifier(ScriptedRetriever(passages), extractor="heuristic", judge="offline")
    (claim,) = verifier.presuppositions(question)
    return claim, verifier.verify(claim, Gates())


_PENHALLOW = (
    passage("penhallow#1", 0.6, f"{_OPENING} He also introduced compulsory Sunday chapel and a ban on students keeping dogs.",
             "Josiah Penhallow"),
    passage("penhallow#2", 0.6, "His own herbarium of 3,100 pressed specimens was given to the college library. Penhallow "
                            "resigned in 1904 because of failing eyesight and retired to the coast at Skelby Bay.",
             "Josiah Penhallow"),
)


def test_what_a_why_question_explains_is_stated_by_the_sentence_that_gives_its_cause():
    claim, verdict = _verdict("Why did Josiah Penhallow step down as principal?", *_PENHALLOW)
    assert (claim.claim, claim.role) == ("Josiah Penhallow resigned as principal", "explained")
    assert verdict.supported and verdict.evidence == ["penhallow#2"]
    assert "gives its cause" in verdict.rationale
    # the same claim merely asserted is judged by the passages' units alone, where the sentence without his page's
    # name embeds far from it
    plain = PremiseVerifier(ScriptedRetriever(_PENHALLOW), extractor="heuristic", judge="offline")
    assert not plain.verify(claim.model_copy(update={"role": "asserted"}), Gates()).supported


def test_a_cause_of_something_else_does_not_state_the_event():
    # every word but the event's own: "delayed because of a miscompilation" is no recall of Quennet 3.4
    release = passage("quennet-3-4#1", 0.6, "Quennet 3.4 was released on 2 March 2019. The release was delayed by five weeks "
                                        "because of a miscompilation found on FreeBSD.", "Quennet 3.4")
    (claim,) = heuristic_presuppositions("Why was Quennet 3.4 recalled after its release?")
    assert claim.role == "explained" and _explained(claim.claim, [release], 0.6) is None
    # where the event is said, the sentence that gives its cause is found
    recalled = release.model_copy(update={"text": "Quennet 3.4 was recalled after its release because of a "
                                                  "miscompilation found on FreeBSD."})
    assert _explained(claim.claim, [recalled], 0.6) is not None
    # a sentence that states the event without giving a cause is left to the passages' own reading
    quiet = passage("penhallow#2", 0.6, "Penhallow resigned in 1904 and retired to the coast at Skelby Bay.", "Josiah Penhallow")
    assert _explained("Josiah Penhallow resigned as principal", [quiet], 0.6) is None
    assert _explained("Josiah Penhallow resigned as principal", [_PENHALLOW[1]], 0.6) is not None


def test_the_predicate_is_what_follows_the_name():
    assert _predicate("Josiah Penhallow resigned as principal") == stem("resigned")
    assert _predicate("the Firnboden T-bar shut down") == stem("shut")
    assert _predicate("Hesper never been steamed again") == stem("steamed")
    assert _predicate("Quennet 3.4 recalled after its release") == stem("recalled")
    assert _predicate("the painters walk out") == stem("painters")  # no name: the first content word


def test_a_choice_to_act_is_explained_by_the_cause_of_the_act():
    assert plain_words("Why did Tobias Orlanc choose to settle in Kelbrunn?") == "Why did Tobias Orlanc settle in Kelbrunn?"
    # outside a why-question the choice is its own event (when it was made); a decision is one, said as such ("announced
    # the decision, citing severe geological faulting")
    assert plain_words("When did Tobias Orlanc choose to settle in Kelbrunn?") == (
        "When did Tobias Orlanc choose to settle in Kelbrunn?")
    assert "decide" in plain_words("Why did the Northern Fuel Board decide to shut Varnholt Colliery?")


def test_the_page_opening_says_what_the_sentence_giving_the_cause_leaves_out():
    what = asked("Why did Josiah Penhallow step down as principal?")
    because = "Penhallow resigned in 1904 because of failing eyesight and retired to the coast at Skelby Bay."
    assert check(what, because, title="Josiah Penhallow. ", about=_OPENING).score >= 0.6
    # a later passage of his page opens on something else: its page's opening, where at hand, says it
    later = "His own herbarium of 3,100 pressed specimens was given to the college library."
    assert "principal" in check(what, because, title="Josiah Penhallow. ", about=later).missing
    assert check(what, because, title="Josiah Penhallow. ", about=later, page_opening=_OPENING).score >= 0.6
    # no cause given: the sentence must say the whole event itself
    assert "principal" in check(what, "Penhallow resigned in 1904 and retired to the coast at Skelby Bay.",
                                title="Josiah Penhallow. ", about=_OPENING).missing
    # an opening that does not say it leaves it missing
    assert "principal" in check(what, because, title="Josiah Penhallow. ",
                                about="Josiah Penhallow (1840–1912) was an English clergyman and botanist.").missing
    # the sentence must say some of the event itself: the opening cannot say all of it
    assert check(what, "The college closed its farm in 1958 because of falling enrolment.", title="Josiah Penhallow. ",
                 about=_OPENING).score < 0.6


_ASHBY = (
    passage("cornelius-ashby#1", 0.6, "Cornelius Ashby (1838–1911) edited the Carrowmere Sentinel for twenty-eight years, "
                                  "from 1874 to 1902. He succeeded Edmund Fairlie, under whom he had served as chief "
                                  "reporter. His editorials drew him into a long feud with Bartholomew Quill. Ashby "
                                  "retired in 1902 because of failing eyesight.", "Cornelius Ashby"),
)
_RULE = passage("lannerhaug-draw-rule#1", 0.6, "The Lannerhaug draw rule is a regulation of the Calvonian Chess Federation "
                                            "that forbids players to agree a draw before Black's 30th move. The rule was "
                                            "introduced because spectators and sponsors had complained about short "
                                            "draws at the Meirholt Open.", "Lannerhaug draw rule")


def test_a_why_question_is_answered_by_the_sentence_that_gives_a_cause_first():
    question = "Why was the Lannerhaug draw rule brought in?"
    found = extractive_answer(question, build_context([_RULE], 4000), floor=0.0, answerability=0.6, max_sentences=1)
    assert "because spectators" in found.answer
    # the same passage asked what the rule is: the definition is quoted
    found = extractive_answer("What does the Lannerhaug draw rule forbid?", build_context([_RULE], 4000), floor=0.0,
                              answerability=0.6, max_sentences=1)
    assert "forbids players" in found.answer


def test_an_editorship_given_up_is_a_retirement_from_editing():
    what = asked("Why did Cornelius Ashby give up the editorship?")
    assert check(what, "Ashby retired in 1902 because of failing eyesight.", title="Cornelius Ashby. ",
                 about=_ASHBY[0].text.split(". ")[0]).score >= 0.6


def test_the_judge_prefers_no_sentence_without_a_cause_to_one_that_gives_it():
    question = "Why did Cornelius Ashby give up the editorship?"
    context = build_context(list(_ASHBY), 4000)
    ranked = rank_sentences(question, context)
    chosen = [c for c in ranked if "failing eyesight" in c.text]

    def likes_the_succession(title: str, before: str, sentence: str, q: str) -> float:
        return 0.3 if "succeeded" in sentence else -2.7

    assert second_opinion(question, context, likes_the_succession, chosen, 2.0, 6).preferred is None
    # where the rules chose a sentence without a cause, the judge's preference stands
    plain = [c for c in ranked if "editorials" in c.text]
    preferred = second_opinion(question, context, likes_the_succession, plain, 2.0, 6).preferred
    assert preferred is not None and "succeeded" in preferred.text


def test_an_after_that_gives_a_time_gives_no_cause():
    assert GIVES_CAUSE.search("It was called by the union after the management announced a 15 percent cut.")
    for timed in ("The strike was called off by the union after 47 days.", "It reopened after two years.",
                  "Ringing totals fell after 1990.", "The bell was rehung after a few weeks."):
        assert not GIVES_CAUSE.search(timed), timed
