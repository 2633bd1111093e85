"""A sentence that speaks of its page's subject answers nothing about another thing the question names (session 45):
"*Its* population has hovered around forty people" on the page of Tolsey, which its opening places "two miles south
of Skerrin", is no population of Skerrin, and the answer judge does not overrule that."""

from __future__ import annotations

from groundqa.programs.answerability import _names_asked_of, asked, check
from groundqa.programs.context import NumberedContext
from groundqa.programs.rescue import rescue_answer
from groundqa.signatures.types import Passage


def _check(question: str, text: str, title: str, before: str = "", about: str = ""):
    return check(asked(question), text, title=f"{title}. {before}", about=about)


def test_its_on_a_page_of_another_place():
    verdict = _check("What is the population of Skerrin?",
                     "Its population has hovered around forty people for most of the twentieth century.", "Tolsey",
                     "Tolsey is the smallest inhabited island on the company's network, a rocky outcrop two miles south "
                     "of Skerrin.")
    assert verdict.score == 0.0 and verdict.other_question
    assert any("Tolsey" in m for m in verdict.missing)
    # asked of the page's own subject, it answers
    assert _check("What is the population of Tolsey?",
                  "Its population has hovered around forty people for most of the twentieth century.", "Tolsey",
                  "Tolsey is the smallest inhabited island on the company's network.").score > 0.6


def test_she_after_a_sentence_that_spoke_of_the_page_so():
    verdict = _check("How many crew did the Sentinel carry?", "She was 31 metres long and carried a crew of fourteen.",
                     "Vigilant (revenue cutter)", "She was built by Brask Shipworks at Varnholt and launched on 9 May "
                     "1896, the first steam-powered vessel in the service, replacing the sailing cutter Sentinel.")
    assert verdict.score == 0.0 and verdict.other_question


def test_the_title_head_word_names_the_page():
    verdict = _check("What is the yield of the Corvin Spring in litres per minute?",
                     "The yield of the spring is about 190 litres per minute.", "Adelgunde Spring",
                     "Since 1883 its water has been piped to the Colonnade Pump Room.")
    assert verdict.score == 0.0 and any("Adelgunde Spring" in m for m in verdict.missing)
    assert _check("What is the yield of the Adelgunde Spring in litres per minute?",
                  "The yield of the spring is about 190 litres per minute.", "Adelgunde Spring").score > 0.6


def test_a_body_spoken_of_as_its():
    verdict = _check("How many people were employed at the Fenwright Street Pumping Station?",
                     "At its height the works employed around 640 people.", "Drummond & Laverick",
                     "The young Hester Varlowe served an apprenticeship in its drawing office during the 1850s.")
    assert verdict.score == 0.0


def test_the_question_s_own_name_or_a_pronoun_of_it_still_answers():
    # the sentence names it
    assert _check("How many crew did the Sentinel carry?", "The Sentinel carried a crew of nine.",
                  "Vigilant (revenue cutter)").score > 0.6
    # the sentence before opens on it: the pronoun may be that one's
    assert _check("How many crew did the Sentinel carry?", "She carried a crew of nine.", "Varnholt customs service",
                  "The Sentinel was a sailing cutter built in 1859.").score > 0.6
    # "he" on a page that is no person, where nothing before spoke of the page so
    verdict = _check("Where was Harriet Dunmore's brother born?", "He was born in Tellwick.", "Marrowby Miners' Institute",
                     "The institute was funded by Harriet Dunmore's brother.")
    assert not any("speaks of it" in m for m in verdict.missing)


def test_who_questions_are_left_to_the_page():
    # the page's subject may be the answer
    verdict = _check("Who built the Sentinel?", "It built fishing smacks and the revenue cutter for the customs service.",
                     "Halloran & Vesk")
    assert not any("speaks of it" in m for m in verdict.missing)
    verdict = check(asked("Who designed the Orsmund Pavilion?"), "He designed it in 1901.",
                    title="Ruth Kessing Arnold. He trained in Tellwick.")
    assert not any("speaks of it" in m for m in verdict.missing)


def test_the_answer_judge_does_not_overrule_it() -> None:
    page = Passage(chunk_id="tolsey#0", doc_id="tolsey", title="Tolsey", score=0.6, text=(
        "Tolsey is the smallest inhabited island on the company's network, a rocky outcrop two miles south of Skerrin. "
        "Its population has hovered around forty people for most of the twentieth century."))
    judged: list[str] = []

    def reads(title: str, before: str, sentence: str, question: str) -> float:
        judged.append(sentence)
        return 5.0 if "population" in sentence else -5.0

    context = NumberedContext([page], "")
    assert rescue_answer("What is the population of Skerrin?", context, reads, floor=3.0, candidates=6) is None
    assert not any("population" in s for s in judged)
    rescued = rescue_answer("What is the population of Tolsey?", context, reads, floor=3.0, candidates=6)
    assert rescued is not None


def test_the_names_a_question_asks_its_attribute_of() -> None:
    assert _names_asked_of("How many crew did the Sentinel carry?") == (("sentinel",),)
    assert _names_asked_of("What is the population of Skerrin?") == (("skerrin",),)
    assert _names_asked_of("Year Caddick was knighted?") == (("caddick",),)  # a terse question's common noun
    assert _names_asked_of("How many volumes of notebooks did Agnes Holt's mentor leave?") == ()  # the mentor's
    assert _names_asked_of("How many boat bays were there in the boathouse Hugh Lastry paid for?") == ()
    assert _names_asked_of("In what year did the market town nearest Holmbrake Abbey get its charter?") == ()


def test_the_sentence_speaks_of_the_question_s_thing_otherwise() -> None:
    # by its surname
    verdict = _check("How much of the yard's start-up money did Anselm Oyle put in?",
                     "Of its starting capital of £5,500, Oyle provided £4,000.", "Merrow Shipyard",
                     "It was founded in 1858.")
    assert not any("speaks of it" in m for m in verdict.missing)
    # by "the" and its last word, which is not the page's
    verdict = _check("Which is the deepest single lock on the Vessary Canal?",
                     "Its lock, Calverholt Lock, is the deepest single lock on the canal at 4.6 metres.", "Calverholt",
                     "Calverholt is a village on the Vessary Canal.")
    assert not any("speaks of it" in m for m in verdict.missing)
    # a page that shares a name with the question's is its own ("the Carrow-Pryse family")
    verdict = _check("How much did Ottilie Carrow-Pryse get for the family's shares?",
                     "Falling demand for roofing slate led her to sell the family's shares to Ardwyn Minerals in 1938 "
                     "for £186,000.", "Carrow-Pryse family")
    assert not any("speaks of it" in m for m in verdict.missing)


def test_a_question_that_describes_what_it_asks_of_is_left_to_the_bridge() -> None:
    verdict = _check("How many volumes of notebooks did Agnes Holt's mentor leave?",
                     "His notebooks, which fill 46 volumes, are held by the Threlkirk Local History Society.",
                     "Edmund Quayle", "He taught the young Agnes Holt to survey.")
    assert not any("speaks of it" in m for m in verdict.missing)


def test_a_pronoun_after_a_sentence_about_the_question_s_name_is_that_one_s() -> None:
    verdict = _check("What was the purpose of CSNET", "Its purpose was to extend networking benefits.",
                     "Packet switching", "The Computer Science Network (CSNET) was a computer network funded by the "
                     "NSF that began operation in 1981.")
    assert not any("speaks of it" in m for m in verdict.missing)
    # a sentence before cut short by an abbreviation: the passage's opening has it as its subject
    verdict = _check("What was the purpose of CSNET", "Its purpose was to extend networking benefits.",
                     "Packet switching", "National Science Foundation (NSF) that began operation in 1981.",
                     about="The Computer Science Network (CSNET) was a computer network funded by the U.S.")
    assert not any("speaks of it" in m for m in verdict.missing)


def test_a_page_the_question_may_describe_is_left_alone() -> None:
    # asked of someone a relative clause describes: the page may be theirs
    verdict = _check("Where was the Surveyor-General born who was in charge when the Great Theodolite went on loan?",
                     "He was born in Dunmere, the son of a clockmaker.", "Lorcan Maybridge")
    assert not any("speaks of it" in m for m in verdict.missing)
    # the page's title shares a word with the question: "the top station" may be this station
    verdict = _check("At what altitude is the top station of the Selvatrin line?",
                     "It stands at an altitude of 2,163 metres in a broad saddle.", "Pradell Summit Station and Hotel")
    assert not any("speaks of it" in m for m in verdict.missing)
    # the page is another name the question gives
    verdict = _check("What got Silas Brandwood thrown out of the Harnsey club?",
                     "The oar he used in the wager match hangs above the door.", "Silas Brandwood")
    assert not any("speaks of it" in m for m in verdict.missing)
