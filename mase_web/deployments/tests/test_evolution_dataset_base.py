"""A team trained on a product dataset evolves from that dataset's latest version: rows an annotator labels
after the deployment (a new version) reach the next generation's training tickets, the data summary names
the version, the dataset's test split is never trained on, and a team on the shipped split is unchanged."""

from __future__ import annotations

import json

import pytest

from agents import places
from mase_web.accounts.models import Project
from mase_web.datasets.facade import Dataset, add_rows, relabel_rows, version_rows, write_training_files
from mase_web.deployments.evolution import (
    EvolutionRefused,
    _champion_tickets,
    challenger_spec,
    evolve,
    first_generation,
)
from mase_web.deployments.evolution_base import parse_dataset_name
from mase_web.deployments.models import Generation
from mase_web.deployments.tests.conftest import make_deployment, team_spec
from mase_web.deployments.tests.test_evolution import give_slice

pytestmark = pytest.mark.django_db

INTENTS = ["order_tracking", "return_refund", "damaged_item", "delivery_delay"]


def product_dataset(project) -> Dataset:
    """Version 1: 40 labelled rows and 20 unlabelled ones (splits drawn with a seed)."""
    dataset = Dataset.objects.create(project=project, name="shop tickets")
    labelled = [{"text": f"labelled ticket {i}", "intents": [INTENTS[i % 4]]} for i in range(40)]
    unlabelled = [{"text": f"unlabelled ticket {i}"} for i in range(20)]
    add_rows(dataset, labelled + unlabelled, "uploaded", seed=7)
    return dataset


def lines(name: str) -> list[dict]:
    directory = places.data_dir(places.DataFiles(places.TICKETS_FOLDER, "dataset file"))
    path = directory / f"{name}.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.is_file() else []


@pytest.fixture
def on_dataset(team, trained_checkpoint, tiny_backbone_dir):
    """A deployment whose team the product trained on version 1's labelled rows (as the Datasets page
    writes them), and that dataset."""
    project, users = team
    dataset = product_dataset(project)
    spec = team_spec(tiny_backbone_dir)
    spec["environment"]["params"]["tickets"] = write_training_files(
        dataset.versions.get(number=1), labelled_only=True, skip_empty=True
    )
    return make_deployment(project, trained_checkpoint, spec), dataset, users


def test_labels_given_to_the_training_dataset_reach_the_next_generation(on_dataset):
    deployment, dataset, users = on_dataset
    v1 = dataset.versions.get(number=1)
    unlabelled = version_rows(v1).filter(intent_key="")
    train_row, test_row = unlabelled.filter(split="train").first(), unlabelled.filter(split="test").first()
    assert train_row is not None and test_row is not None
    v2 = relabel_rows(
        dataset,
        [
            {"row": train_row.pk, "intents": ["damaged_item"]},
            {"row": test_row.pk, "intents": ["delivery_delay"]},
        ],
        "annotated",
        by=users["annotator"],
    )
    assert v2.number == 2
    give_slice(deployment)
    generation = evolve(deployment, users["product_manager"])

    trained = lines(generation.data["tickets"])
    texts = {t["text"] for t in trained}
    assert train_row.text in texts  # the annotator's label reached the challenger
    assert next(t for t in trained if t["text"] == train_row.text)["intents"] == ["damaged_item"]
    assert not texts & set(version_rows(v2, "test").values_list("text", flat=True))  # test: never trained on
    assert not any(t.startswith("unlabelled") and t != train_row.text for t in texts)  # labelled only
    dev = {t["text"] for t in lines(f"{generation.data['tickets']}.validation")}
    assert dev == set(version_rows(v2, "dev").exclude(intent_key="").values_list("text", flat=True))
    assert generation.data["base_tickets"] == version_rows(v2, "train").exclude(intent_key="").count()
    assert generation.data["base_dataset"] == {
        "dataset": dataset.pk, "dataset_name": "shop tickets", "version": v2.pk, "version_number": 2,
        "was_version_number": 1, "rows_added_since": 1, "labelled_only": True,
    }  # fmt: skip
    # the parent still reads version 1 (pinned): the next challenger of generation 2 starts from v2 again
    promoted = Generation.objects.filter(pk=generation.pk)
    promoted.update(phase=Generation.Phase.READY, status=Generation.Status.CHAMPION)
    _, about = challenger_spec(deployment, promoted.get(), 3, [])
    assert (about["base_dataset"]["version_number"], about["base_dataset"]["was_version_number"]) == (2, 2)
    assert about["base_dataset"]["rows_added_since"] == 0 and about["base_tickets"] == len(trained)


def test_a_product_manager_appending_rows_reaches_the_next_generation_too(on_dataset):
    deployment, dataset, _ = on_dataset
    add_rows(dataset, [{"text": f"appended ticket {i}", "intents": ["order_tracking"]} for i in range(10)],
             "uploaded")  # fmt: skip
    latest = dataset.versions.get(number=2)
    spec, about = challenger_spec(deployment, first_generation(deployment), 2, [])
    texts = {t["text"] for t in lines(spec["environment"]["params"]["tickets"])}
    appended = set(
        version_rows(latest, "train").filter(text__startswith="appended").values_list("text", flat=True)
    )
    assert appended and appended <= texts
    assert about["base_dataset"]["rows_added_since"] == len(appended)


def test_a_team_on_the_shipped_split_evolves_as_before(team, trained_checkpoint, tiny_backbone_dir):
    project, _ = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    parent = first_generation(deployment)
    spec, about = challenger_spec(deployment, parent, 2, [])
    assert "base_dataset" not in about
    assert lines(spec["environment"]["params"]["tickets"]) == _champion_tickets(parent.spec)
    assert parse_dataset_name("evolve-d3-g2") is None and parse_dataset_name("train") is None


def test_a_dataset_of_another_project_is_never_followed(team, trained_checkpoint, tiny_backbone_dir):
    project, _ = team
    elsewhere = product_dataset(Project.objects.create(name="not ours"))
    spec = team_spec(tiny_backbone_dir)
    spec["environment"]["params"]["tickets"] = write_training_files(
        elsewhere.versions.get(number=1), labelled_only=True, skip_empty=True
    )
    deployment = make_deployment(project, trained_checkpoint, spec)
    with pytest.raises(EvolutionRefused, match="not one of the deployment's project's datasets"):
        challenger_spec(deployment, first_generation(deployment), 2, [])
