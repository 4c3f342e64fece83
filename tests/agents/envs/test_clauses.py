"""Cutting tickets into clauses: requests apart, abbreviations whole."""

import pytest

from agents.envs.customer_service.clauses import split_clauses


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        ("where is my parcel btw the mug arrived cracked", ["where is my parcel", "the mug arrived cracked"]),
        ("Refund please. Thanks!", ["Refund please.", "Thanks!"]),
        ("eta 12 | return the mug", ["eta 12", "return the mug"]),
        # a number keeps the words that say what it is
        (
            "whereabouts of consignment no. 225756; moreover",
            ["whereabouts of consignment no. 225756;", "moreover"],
        ),
        ("order nr. #123 is late", ["order nr. #123 is late"]),
        ("Yours faithfully, J. Chen", ["Yours faithfully", "J. Chen"]),
        ("Dr. Smith here. Where is it?", ["Dr. Smith here.", "Where is it?"]),
        # a full stop after "no" that ends an answer still cuts
        ("No. I want a refund", ["No.", "I want a refund"]),
    ],
)
def test_split_clauses(text, clauses):
    assert split_clauses(text) == clauses


def test_a_limit_joins_the_tail_and_drops_no_words():
    text = "a, b, c, d. no. 12 late"
    assert split_clauses(text, limit=3) == ["a", "b", "c d. no. 12 late"]
    assert split_clauses("") == [""]
