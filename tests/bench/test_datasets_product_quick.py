"""bench/datasets.py --quick on a catalogue no code of MASE knows (a library's front desk: four intents, 64
training and 20 test rows written for this test, no catalogue file, so the intents come from the rows): the
product's path runs end to end through the web app's API — upload, training files, the gallery template
over the rows' intents, a run launched and executed as a worker executes it, a deployment, every test
ticket sent to its ticket API — and the figures come back under datasets.custom."""

import pytest

FIXTURE = "tests/fixtures/library_desk"


@pytest.mark.slow
@pytest.mark.timeout(1500)  # a tiny training budget, but the template's warm start on a shared machine
def test_quick_run_takes_an_unknown_catalogue_through_the_product(run_quick_bench):
    files = ["--train", f"{FIXTURE}/train.jsonl", "--test", f"{FIXTURE}/test.jsonl", "--parts", "domains"]
    result = run_quick_bench("datasets", *files, timeout=1400)
    assert set(result["datasets"]) == {"custom"}  # nothing else trained
    custom = result["datasets"]["custom"]
    for key in ("exact_match", "rules_exact_match", "plain_exact_match", "holdout_exact_match"):
        assert 0.0 <= custom[key] <= 1.0, key
    assert custom["intents"] == 4 and custom["rows"]["uploaded"] == 64 and custom["rows"]["refused"] == 0
    # the product's frozen 80/10/10 split of 16 rows per intent: 13 train, 2 dev, 1 test each (decision 0018)
    assert (custom["labels"], custom["rows"]["dev"], custom["rows"]["holdout"]) == (52, 8, 4)
    assert custom["rows"]["test"] == 20 and sum(custom["answered_by"].values()) == 20
    assert custom["train_seconds"] > 0 and set(custom["path"]) == {"dataset", "version", "run", "deployment"}
    # the plain classifier reads these short tickets (its words are the intents' own)
    assert custom["plain_exact_match"] >= 0.6, custom
