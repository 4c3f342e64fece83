"""A scope gate keeps its encoded vectors in a store directory (serving/scope.py): a second gate over the same
texts on the same backbone reads them instead of encoding them (one text is encoded, to check the backbone
still agrees), with the same floor and verdicts; other texts, another backbone name, or other weights under
the same name encode again; a store that cannot be written costs nothing but the next build. Hand-made
vectors, no backbone."""

from __future__ import annotations

import pytest
import torch

from serving.scope import STORE_FILE, ScopeGate

CATALOGUE = [{"name": "vpn", "description": "vpn"}, {"name": "printer", "description": "printer"}]
VECTORS = {
    "vpn: vpn": [1.0, 0.0, 0.0, 0.0],
    "printer: printer": [0.0, 1.0, 0.0, 0.0],
    "the vpn drops": [0.9, 0.1, 0.0, 0.0],
    "printer jammed": [0.1, 0.9, 0.0, 0.0],
    "tunnel keeps falling over": [0.3, 0.0, 0.95, 0.0],
    "tunnel falls over again": [0.3, 0.0, 0.9, 0.1],
    "lasagne recipe": [0.0, 0.0, 0.0, 1.0],
    "weather tomorrow": [0.0, 0.1, 0.1, 0.9],
}
EXAMPLES = [{"text": "the vpn drops", "intents": ["vpn"]}, {"text": "printer jammed", "intents": ["printer"]}]
DEV = [{"text": t, "intents": ["vpn"]} for t in ("tunnel keeps falling over", "tunnel falls over again")]
OUTSIDE = [{"text": "weather tomorrow", "intents": []}]


class Encoder:
    """The backbone's ``encode``: records each text it is asked for; ``turn`` swaps two dimensions (other
    weights under the same name)."""

    def __init__(self, turn: bool = False):
        self.texts: list[str] = []
        self.turn = turn

    def __call__(self, texts):
        self.texts += list(texts)
        vectors = torch.tensor([VECTORS[t] for t in texts], dtype=torch.float32)
        return vectors[:, [1, 0, 2, 3]] if self.turn else vectors


def gate(store, encoder, dev=DEV, backbone_key="minilm|mean|64") -> ScopeGate:
    return ScopeGate(
        CATALOGUE, EXAMPLES, encoder, dev=dev, outside=OUTSIDE, store=store, backbone_key=backbone_key
    )


def test_a_second_gate_over_the_same_texts_reads_the_kept_vectors(tmp_path):
    first = gate(tmp_path, Encoder())
    assert first.describe()["vectors"] == "encoded" and (tmp_path / STORE_FILE).is_file()
    encoder = Encoder()
    second = gate(tmp_path, encoder)
    assert second.describe()["vectors"] == "store"
    assert encoder.texts == ["vpn: vpn"]  # only the check that the backbone still agrees
    assert second.floor == first.floor and second.describe() | {"vectors": "encoded"} == first.describe()
    for text in ("lasagne recipe", "the vpn drops", "tunnel falls over again"):
        assert second.check(text) == first.check(text)


@pytest.mark.parametrize(
    "changed, turn",
    [
        ({"dev": DEV[:1]}, False),  # other texts
        ({"backbone_key": "mpnet|mean|64"}, False),  # another backbone
        ({}, True),  # other weights under the same name
    ],
)
def test_other_texts_or_another_backbone_encode_again(tmp_path, changed, turn):
    gate(tmp_path, Encoder())
    encoder = Encoder(turn)
    again = gate(tmp_path, encoder, **changed)
    assert again.describe()["vectors"] == "encoded" and len(encoder.texts) >= again.describe()["anchors"]
    assert gate(tmp_path, Encoder(turn), **changed).describe()["vectors"] == "store"  # kept for the new key


def test_a_store_that_cannot_be_written_only_costs_the_next_build(tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    assert gate(not_a_directory, Encoder()).describe()["vectors"] == "encoded"
    assert gate(not_a_directory, Encoder()).describe()["vectors"] == "encoded"
    assert not_a_directory.read_text() == ""
