"""A number in the question's place (session 53): SQuAD 2.0 makes an unanswerable question of a sentence by changing
one of its numbers ("filmed on *18* April" asked as "on *8* April", "the *twenty-fourth* film" as "the
*thirty-fourth*", "over *fifteen hundred* extras" as "over *one hundred*"). Such a sentence answers another question:
the answer check refuses it, and where it is the best-ranked sentence of the context the question was made from it and
is refused whole. Numbers are compared by value, in digits or in words; a year is left to the year rule.

The sentences here are written for the tests (a harbour town's festival and shipyard), not taken from any dataset.
"""

from __future__ import annotations

import pytest

from groundqa.programs.answerability import asked, check
from groundqa.programs.context import build_context
from groundqa.programs.contradiction import _number_spans, number_in_place
from groundqa.programs.extractive import extractive_answer
from groundqa.signatures.types import Passage


@pytest.mark.parametrize(("text", "values"), [
    ("over fifteen hundred visitors", [(1500.0, False)]),
    ("numbered over three thousand", [(3000.0, False)]),
    ("one hundred twenty boats", [(120.0, False)]),
    ("the twenty-fourth regatta", [(24.0, True)]),
    ("the 19th century and 2,400 people", [(19.0, True), (2400.0, False)]),
    ("$5.25 million", [(5_250_000.0, False)]),
    ("the oldest one of them", []),  # "one" alone is a pronoun
])
def test_numbers_are_read_by_value_in_digits_or_words(text: str, values: list[tuple[float, bool]]) -> None:
    assert [value for _, _, value in _number_spans(text)] == values


@pytest.mark.parametrize(("question", "sentence", "detail"), [
    ("On which quay did the fleet gather on 8 June 1911?",
     "The fleet gathered on the North Quay on 18 June 1911, before the storm.", "'18' where the question has '8'"),
    ("What was the name of the thirty-fourth Vessany regatta?",
     "The Lantern Cup was the twenty-fourth Vessany regatta held in the harbour.", "'twenty-fourth'"),
    ("Over one hundred volunteers were hired for what?",
     "In 1998 over fifteen hundred volunteers were hired for the opening parade.", "'fifteen hundred'"),
    ("The crew of which ship numbered over three thousand?",
     "The crew of the Albatross numbered over one thousand, the largest the yard had seen.", "'one thousand'"),
])
def test_another_number_in_the_same_words_is_a_swap(question: str, sentence: str, detail: str) -> None:
    found = number_in_place(question, sentence)
    assert found is not None and detail in found
    assert check(asked(question), sentence).score == 0.0


@pytest.mark.parametrize(("question", "sentence"), [
    # the question's own number, in other words
    ("What was the name of the 24th Vessany regatta?", "The Lantern Cup was the twenty-fourth Vessany regatta."),
    ("Over 1,500 volunteers were hired for what?", "Over fifteen hundred volunteers were hired for the parade."),
    # the question's number is said too, beside another one
    ("On which quay did the fleet gather on 8 June?", "On 8 June the fleet gathered on the North Quay; on 18 June it sailed."),
    # another number in other words around it is no swap
    ("How many boats sailed in the 12th regatta?", "Forty boats sailed in the first regatta of 1911."),
    # a year is the year rule's ("In 1911 …" for "In 1912 …")
    ("Which quay was rebuilt in 1912?", "The North Quay was rebuilt in 1911 after the storm."),
    # a count is no rank
    ("What was the fourth ship the yard built?", "The yard built 4 ships for the ferry company."),
])
def test_the_same_number_or_none_in_its_place_is_no_swap(question: str, sentence: str) -> None:
    assert number_in_place(question, sentence) is None


def test_the_best_sentence_with_another_number_refuses_the_question() -> None:
    """Where the best-ranked sentence of the context puts another number in the question's place, the question was made
    from it: nothing is quoted, not even a lesser sentence about the same thing."""
    passage = Passage(doc_id="regatta", chunk_id="regatta#0", title="Vessany regatta", score=0.8,
                      text="The Lantern Cup was the twenty-fourth Vessany regatta held in the harbour. "
                           "The race ended at the North Quay, where the boats were hauled out for the winter.")
    context = build_context([passage], 4000)
    refused = extractive_answer("What was the name of the thirty-fourth Vessany regatta?", context, floor=0.0,
                                answerability=0.6)
    assert not refused.answer and refused.swapped and "twenty-fourth" in refused.swapped
    answered = extractive_answer("What was the name of the twenty-fourth Vessany regatta?", context, floor=0.0,
                                 answerability=0.6)
    assert "Lantern Cup" in answered.answer
