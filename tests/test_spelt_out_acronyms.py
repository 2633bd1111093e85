"""An acronym that abbreviates the common words before it names no one.

SQuAD's "Who patented a high-pressure compound engine in 1804?" was answered by "… expands in a high-pressure (HP)
cylinder and then enters … lower-pressure (LP) cylinders": "HP" and "LP" were read as names, so the sentence seemed to
say who. A capitalised name in its own words ("the Royal Air Force (RAF)") still counts.
"""

from __future__ import annotations

from groundqa.judges.lexical import features
from groundqa.programs.answer_values import has_type

WHO = "Who patented a high-pressure compound engine in 1804?"


def _names_someone(sentence: str) -> bool:
    return has_type("person", sentence, features(WHO).tokens, WHO)


def test_an_acronym_of_common_words_is_no_name() -> None:
    assert not _names_someone("In the compound engine, steam expands in a high-pressure (HP) cylinder and then enters "
                              "one or more lower-pressure (LP) cylinders.")


def test_a_name_and_its_acronym_still_name_someone() -> None:
    assert _names_someone("The engine was patented by the Steam Power Company (SPC) in 1805.")
    assert _names_someone("Arthur Woolf patented the engine in 1805.")
