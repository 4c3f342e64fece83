"""What the evaluation slice is made of: corrected tickets and tickets an operator confirmed as right (the
team's answer is their label), so the champion is not judged only where it was wrong; and a corrected row's
weight in the challenger's tickets."""

from __future__ import annotations

import json

import pytest

from agents import places
from mase_web.deployments.evolution import challenger_spec, first_generation, labelled_traffic
from mase_web.deployments.models import Correction, DecisionStep, Episode, Generation
from mase_web.deployments.tests.conftest import make_deployment, team_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def deployment(team, trained_checkpoint, tiny_backbone_dir):
    project, _ = team
    return make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))


def played(deployment, i: int, predicted: list[str], review: str) -> Episode:
    episode = Episode.objects.create(
        deployment=deployment, request_id=f"slice-{deployment.pk}-{i}", task_text=f"ticket {i}",
        status="completed", result={"info": {"predicted_intents": predicted}},
    )  # fmt: skip
    for step, (action, status) in enumerate([("pass", DecisionStep.Review.UNREVIEWED), ("answer", review)]):
        DecisionStep.objects.create(
            episode=episode, step=step, agent="logistics", observation="{}", action=action,
            action_index=step, source="model", review_status=status,
        )  # fmt: skip
    return episode


def test_confirmed_tickets_are_labelled_by_the_teams_answer_and_corrections_stand_over_it(deployment):
    review = DecisionStep.Review
    ok = played(deployment, 0, ["order_tracking"], review.OK)
    wrong = played(deployment, 1, ["complaint"], review.WRONG)
    Correction.objects.create(episode=wrong, intents=["delivery_delay"])
    played(deployment, 2, ["complaint"], review.ESCALATED)  # escalated: not a label
    played(deployment, 3, ["complaint"], review.UNREVIEWED)  # nobody looked
    played(deployment, 4, [], review.OK)  # out of scope confirmed: no intents to learn or judge
    corrected_ok = played(deployment, 5, ["recommendation"], review.OK)
    Correction.objects.create(episode=corrected_ok, intents=["product_question"])  # the correction stands
    assert [(t["episode"], t["intents"]) for t in labelled_traffic(deployment)] == [
        (ok.pk, ["order_tracking"]),
        (wrong.pk, ["delivery_delay"]),
        (corrected_ok.pk, ["product_question"]),
    ]


def test_a_corrected_row_stands_weight_times_in_the_challengers_tickets(deployment):
    parent = first_generation(deployment)
    rows = [{"episode": 7, "text": "the kettle came dented", "intents": ["damaged_item"]}]
    spec, about = challenger_spec(deployment, parent, 2, rows, weight=3)
    assert about["row_weight"] == 3
    name = spec["environment"]["params"]["tickets"]
    directory = places.data_dir(places.DataFiles(places.TICKETS_FOLDER, "dataset file"))
    lines = [json.loads(x) for x in (directory / f"{name}.jsonl").read_text().splitlines()]
    assert sum(t["text"] == "the kettle came dented" for t in lines) == 3
    assert len(lines) == about["base_tickets"] + 3
    assert len({t["id"] for t in lines}) == len(lines)
    # a promoted generation's tickets already hold these rows: its challenger reads them once, not twice
    promoted = Generation.objects.create(
        deployment=deployment, number=2, spec=spec, parent=parent, run=parent.run
    )
    again, about_again = challenger_spec(deployment, promoted, 3, rows, weight=3)
    name = again["environment"]["params"]["tickets"]
    lines = [json.loads(x) for x in (directory / f"{name}.jsonl").read_text().splitlines()]
    assert about_again["base_tickets"] == about["base_tickets"]
    assert sum(t["text"] == "the kettle came dented" for t in lines) == 3


def test_a_challenger_the_rule_promotes_says_so_and_not_a_person(deployment, trained_checkpoint, tmp_path):
    from mase_web.deployments.evolution import promote
    from mase_web.deployments.tests.test_evolution import challenger_of

    generation = challenger_of(deployment, trained_checkpoint, tmp_path)
    promoted = promote(generation, None)
    assert promoted.reason.startswith("promoted by the promotion rule: trained on 40 corrected tickets")
    assert promoted.status == "champion" and promoted.promoted_by is None


def test_a_challenger_of_a_team_trained_on_a_dataset_keeps_the_datasets_dev_split(deployment):
    directory = places.data_dir(places.DataFiles(places.TICKETS_FOLDER, "dataset file"))
    directory.mkdir(parents=True, exist_ok=True)
    rows = {
        "mine": ["where is my parcel", "the mug arrived broken"],
        "mine.validation": ["parcel still lost"],
    }
    for name, texts in rows.items():
        lines = [
            json.dumps({"id": f"{name}-{i}", "text": t, "intents": ["order_tracking"]})
            for i, t in enumerate(texts)
        ]
        (directory / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    deployment.spec["environment"]["params"]["tickets"] = "mine"
    deployment.save(update_fields=["spec"])
    spec, about = challenger_spec(deployment, first_generation(deployment), 2, [])
    name = spec["environment"]["params"]["tickets"]
    dev = [json.loads(x)["text"] for x in (directory / f"{name}.validation.jsonl").read_text().splitlines()]
    assert dev == ["parcel still lost"] and about["dev_tickets"] == 1 and about["base_tickets"] == 2
