"""The live conversation's reader (`agents.envs.interactive_support.reading`) reads a product fault described by
its symptom as a warranty problem, not as an account or delivery-damage one. The messages below were written for
this test, none of them in the reader's descriptions (which name no symptom); "my coffee machine leaks" is the
message a new user's walkthrough saw misread."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.backbone import Backbone
from agents.envs.interactive_support.reading import MessageReader
from agents.envs.interactive_support.world import PROBLEMS

MESSAGES = [
    ("my coffee machine leaks", "warranty"),
    ("the kettle I bought in March won't heat up any more", "warranty"),
    ("my blender makes a horrible grinding noise when I switch it on", "warranty"),
    ("the washing machine is leaking water all over the floor", "warranty"),
    ("the headphones only play sound in one ear now", "warranty"),
    ("my vacuum cleaner keeps switching itself off", "warranty"),
    ("the fridge has stopped cooling", "warranty"),
    ("I forgot my password and the reset email never comes", "account"),
    ("it says my login is blocked after too many attempts", "account"),
    ("the vase was shattered when the courier handed it over", "damaged"),
]


@pytest.fixture(scope="module")
def reader() -> MessageReader:
    torch.set_num_threads(1)
    backbone = Backbone.load("default")

    def embed(texts):
        with torch.no_grad():
            return torch.nn.functional.normalize(backbone.encode(list(texts)).float(), dim=-1).numpy()

    return MessageReader(embed)


@pytest.mark.parametrize(("text", "problem"), MESSAGES)
def test_a_problem_in_the_customers_own_words_is_read_as_that_problem(reader, text, problem):
    reading = reader.read(text)
    assert PROBLEMS[int(np.argmax(reading.problem_belief))] == problem, reading
