"""The number-guessing task's text: clue phrasings per clue family, distractor sentences, numbers in words.

Each family has 12 paraphrase templates; the environment (`agents/envs/number_guess.py`) shows the first
10 in training and keeps the last 2 (`HELD_OUT`) for generalisation tests.
"""

from __future__ import annotations

import string

# -- clue templates -----------------------------------------------------------------------------------
# Binary families: (text when the digit is 0, text when it is 1). Number slots: {h} threshold,
# {m} modulus, {w} digit weight, {zero}/{one}/{two} small numbers (all rendered per `numbers`).
PARITY = (
    ("The number is even.", "The number is odd."),
    ("The secret number is an even number.", "The secret number is an odd number."),
    ("It is divisible by {two}.", "It is not divisible by {two}."),
    (
        "Divided by {two}, the number leaves no remainder.",
        "Divided by {two}, the number leaves a remainder of {one}.",
    ),
    ("My clue: the number is even.", "My clue: the number is odd."),
    (
        "The hidden value splits into {two} equal whole halves.",
        "The hidden value cannot be split into {two} equal whole halves.",
    ),
    ("Being even, the number splits evenly in two.", "Being odd, the number does not split evenly in two."),
    ("Clue: even number.", "Clue: odd number."),
    ("The secret is an even value.", "The secret is an odd value."),
    ("I can tell you the number is even.", "I can tell you the number is odd."),
    ("Here is what I know: the value is even.", "Here is what I know: the value is odd."),
    ("Parity of the secret: even.", "Parity of the secret: odd."),
)
THRESHOLD = (
    ("The number is below {h}.", "The number is at least {h}."),
    ("The secret number is less than {h}.", "The secret number is {h} or more."),
    ("It is smaller than {h}.", "It is greater than or equal to {h}."),
    ("The number lies in the lower half, under {h}.", "The number lies in the upper half, from {h} up."),
    ("My clue: the number is under {h}.", "My clue: the number is {h} or above."),
    (
        "Counting up from {zero}, the number comes before {h}.",
        "Counting up from {zero}, the number comes at {h} or later.",
    ),
    ("Clue: below {h}.", "Clue: at least {h}."),
    ("I can tell you the number is less than {h}.", "I can tell you the number is {h} or greater."),
    ("The secret value is lower than {h}.", "The secret value is higher than or equal to {h}."),
    ("Think of a number under {h}.", "Think of a number that is {h} or bigger."),
    ("Here is what I know: the value is below {h}.", "Here is what I know: the value is at least {h}."),
    ("The hidden value falls short of {h}.", "The hidden value reaches {h} or goes beyond it."),
)
MID_BIT = (
    (
        "Divided by {m}, the number leaves a remainder below {w}.",
        "Divided by {m}, the number leaves a remainder of at least {w}.",
    ),
    (
        "The remainder of the number divided by {m} is less than {w}.",
        "The remainder of the number divided by {m} is {w} or more.",
    ),
    (
        "Take the number modulo {m}: the result is under {w}.",
        "Take the number modulo {m}: the result is at least {w}.",
    ),
    ("In binary, the digit worth {w} is {zero}.", "In binary, the digit worth {w} is {one}."),
    ("My clue: the number mod {m} is below {w}.", "My clue: the number mod {m} is at least {w}."),
    (
        "After removing all multiples of {m}, what is left is smaller than {w}.",
        "After removing all multiples of {m}, what is left is {w} or larger.",
    ),
    ("Clue: the remainder modulo {m} is below {w}.", "Clue: the remainder modulo {m} is at least {w}."),
    (
        "I can tell you the remainder after dividing by {m} is less than {w}.",
        "I can tell you the remainder after dividing by {m} is {w} or more.",
    ),
    ("Modulo {m}, the number is below {w}.", "Modulo {m}, the number is at least {w}."),
    (
        "Write the number in binary: the digit worth {w} is {zero}.",
        "Write the number in binary: the digit worth {w} is {one}.",
    ),
    (
        "Here is what I know: dividing by {m} leaves less than {w}.",
        "Here is what I know: dividing by {m} leaves {w} or more.",
    ),
    ("The binary digit for {w} is switched off.", "The binary digit for {w} is switched on."),
)
# Base-r families: one text per digit value. Slots: {lo}/{hi} interval ends, {m} modulus, {d} digit.
RANGE = (
    "The number lies between {lo} and {hi}.",
    "The secret number is somewhere from {lo} to {hi}.",
    "It is at least {lo} and at most {hi}.",
    "My clue: the number is in the range {lo} to {hi}.",
    "The number is no smaller than {lo} and no larger than {hi}.",
    "Look between {lo} and {hi}, both included: the number is there.",
    "Clue: the number is between {lo} and {hi}.",
    "I can tell you the number falls from {lo} through {hi}.",
    "The secret value is one of {lo} to {hi}.",
    "Search from {lo} to {hi}: the number is in there.",
    "Here is what I know: the value falls within {lo} to {hi}.",
    "The hidden value sits in the interval from {lo} up to {hi}.",
)
MID_RANGE = (
    "Divided by {m}, the number leaves a remainder between {lo} and {hi}.",
    "The remainder of the number divided by {m} is from {lo} to {hi}.",
    "Take the number modulo {m}: the result lies between {lo} and {hi}.",
    "My clue: the number mod {m} is in the range {lo} to {hi}.",
    "After removing all multiples of {m}, what is left is between {lo} and {hi}.",
    "Modulo {m}, the number is at least {lo} and at most {hi}.",
    "Clue: the number mod {m} is between {lo} and {hi}.",
    "I can tell you the remainder after dividing by {m} falls from {lo} through {hi}.",
    "The number modulo {m} is one of {lo} to {hi}.",
    "Dividing the number by {m} leaves at least {lo} and at most {hi}.",
    "Here is what I know: dividing by {m} leaves something from {lo} to {hi}.",
    "Its remainder after division by {m} sits in the interval {lo} up to {hi}.",
)
REMAINDER = (
    "Divided by {m} it leaves {d}.",
    "The remainder of the number divided by {m} is {d}.",
    "Take the number modulo {m}: the result is {d}.",
    "My clue: the number mod {m} equals {d}.",
    "After removing all multiples of {m}, {d} is left.",
    "The number is a multiple of {m} plus {d}.",
    "Clue: the number mod {m} is {d}.",
    "I can tell you the remainder after dividing by {m} is {d}.",
    "The number modulo {m} is {d}.",
    "Dividing the number by {m} leaves {d} over.",
    "Here is what I know: dividing by {m} leaves {d}.",
    "Its remainder after division by {m} is exactly {d}.",
)
# Distractors: (template, slot name, fillers). Numbers in fillers are rendered per `numbers` too.
DISTRACTORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "The weather today is {x}.",
        (
            "sunny",
            "rainy",
            "cloudy",
            "windy",
            "foggy",
            "snowy",
            "stormy",
            "mild and calm",
            "hot and humid",
            "cold and dry",
        ),
    ),
    (
        "Did you know that {x}?",
        (
            "octopuses have three hearts",
            "honey never spoils",
            "bananas are berries",
            "Venus spins backwards",
            "sharks are older than trees",
            "a group of crows is called a murder",
            "wombat droppings are cube-shaped",
            "the Eiffel Tower grows a little in summer",
            "sea otters hold hands while they sleep",
            "a day on Mars lasts slightly longer than on Earth",
        ),
    ),
    (
        "The train to {x} leaves on time.",
        (
            "Paris",
            "Berlin",
            "Madrid",
            "Lisbon",
            "Vienna",
            "Prague",
            "Oslo",
            "Dublin",
            "Rome",
            "Warsaw",
            "Athens",
            "Zurich",
        ),
    ),
    (
        "I had {x} for lunch today.",
        (
            "soup",
            "a sandwich",
            "noodles",
            "a salad",
            "rice and beans",
            "pizza",
            "dumplings",
            "fried fish",
            "an omelette",
            "curry",
        ),
    ),
    (
        "The cat in the garden is {x}.",
        (
            "sleeping",
            "chasing a butterfly",
            "washing itself",
            "climbing a tree",
            "watching the birds",
            "hiding under a bush",
        ),
    ),
    (
        "The meeting was moved to {x} o'clock.",
        (
            "{one}",
            "{two}",
            "{three}",
            "{four}",
            "{five}",
            "{six}",
            "{seven}",
            "{eight}",
            "{nine}",
            "{ten}",
            "{eleven}",
            "{twelve}",
        ),
    ),
    (
        "The shop on the corner now sells {x}.",
        (
            "fresh bread",
            "umbrellas",
            "old records",
            "houseplants",
            "phone cases",
            "hand-made soap",
            "maps",
            "tea",
        ),
    ),
    (
        "My neighbour just adopted a {x}.",
        ("puppy", "kitten", "parrot", "tortoise", "rabbit", "goldfish", "hamster", "ferret"),
    ),
    (
        "Someone said the museum opens on {x}.",
        ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    ),
    (
        "There is a new book about {x} in the library.",
        (
            "volcanoes",
            "medieval castles",
            "jazz music",
            "deep sea fish",
            "ancient Rome",
            "bird migration",
            "space travel",
            "gardening",
        ),
    ),
)

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
SMALL_NAMES = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
CHARSET = "".join(c for c in string.printable if c not in "\t\n\r\x0b\x0c")


def number_to_words(k: int) -> str:
    """English words for 0 <= k < 10000 ("thirty-one", "one hundred and five")."""
    if not 0 <= k < 10000:
        raise ValueError(f"number_to_words supports 0..9999, got {k}")
    if k < 20:
        return _ONES[k]
    if k < 100:
        tens, ones = divmod(k, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    if k < 1000:
        hundreds, rest = divmod(k, 100)
        return f"{_ONES[hundreds]} hundred" + (f" and {number_to_words(rest)}" if rest else "")
    thousands, rest = divmod(k, 1000)
    tail = (
        "" if not rest else (f" and {number_to_words(rest)}" if rest < 100 else f" {number_to_words(rest)}")
    )
    return f"{_ONES[thousands]} thousand" + tail
