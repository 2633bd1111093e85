"""A price asked with "what" is an amount of money.

"What *price* did Aurèle Velloury pay the Brassacs for the jasmine farm?" is not answered by "Aurèle Velloury bought it
that year from the Brassac family, whose son stayed on as farm manager until 1912": a year is no price. Until now only
"how much … pay" and "what was the … price" were read as money (``programs.answer_values._MONEY_NOUN_Q``).
"""

from __future__ import annotations

import pytest

from groundqa.judges.lexical import features
from groundqa.programs.answer_values import _MONEY_NOUN_Q, has_type
from groundqa.programs.answerability import asked

NO_PRICE = "Aurèle Velloury bought it that year from the Brassac family, whose son stayed on as farm manager until 1912."
PRICE = "He paid 14,000 francs for it, and the painters were paid 18 crowns a week."


@pytest.mark.parametrize("question", [
    "what price did Aurèle Velloury pay the Brassacs for the jasmine farm",
    "What weekly wage did the Strenholm painters earn before the 1911 strike?",
    "What price per kilogram did Vannaz Frères pay for the cheese?",
    "Which fee does the museum charge on Sundays?",
])
def test_a_price_asked_with_what_is_money(question: str) -> None:
    kind, words = asked(question).kind, features(question).tokens
    assert not has_type(kind, NO_PRICE, words, question)
    assert has_type(kind, PRICE, words, question)


def test_a_price_range_is_not_an_amount_paid() -> None:
    assert not _MONEY_NOUN_Q.search("What price range is the wine sold in?")
    assert _MONEY_NOUN_Q.search("What price did the wine fetch?")
