"""POST /api/dataset-versions/<id>/training-files/: a version becomes the tickets a routing spec names. Its
labelled rows are written once per split where the environment reads datasets; editors only; another
project's version is a 404; a version with no labelled training row is a 400."""

from __future__ import annotations

import json

from agents import places
from mase_web.datasets.tests.conftest import make_dataset, upload
from mase_web.runs.tests.conftest import client_for


def rows(count: int, intents: list[str]) -> str:
    return "".join(
        json.dumps({"text": f"ticket {i} {intents}", "intents": intents}) + "\n" for i in range(count)
    )


def test_training_files_name_the_versions_labelled_splits(people, tmp_path):
    project, elsewhere, users = people
    saved = places.places()
    places.configure(saved.models_dir, tmp_path / "tickets", saved.runs_dir, tmp_path / "datasets")
    try:
        dataset = make_dataset(users["pm"], project)
        answer = upload(users["pm"], dataset["id"], rows(20, ["refund"]) + rows(10, [])).json()
        version = answer["version"]["id"]
        url = f"/api/dataset-versions/{version}/training-files/"

        assert client_for(users["ann"]).post(url).status_code == 403  # members read, editors write
        assert client_for(users["stranger"]).post(url).status_code == 404  # another project's version
        made = client_for(users["op"]).post(url)
        assert made.status_code == 201, made.content
        body = made.json()
        assert body["counts"] == {"train": 16, "dev": 2, "test": 2}  # the unlabelled rows are left out
        folder = places.data_dir(places.DataFiles(places.TICKETS_FOLDER, "dataset file"))
        train = (folder / f"{body['tickets']}.jsonl").read_text().splitlines()
        assert len(train) == 16 and all(json.loads(line)["intents"] == ["refund"] for line in train)
        assert len((folder / f"{body['tickets']}.validation.jsonl").read_text().splitlines()) == 2
        assert client_for(users["op"]).post(url).json() == body  # written once: the same name again

        few = make_dataset(users["pm"], project, name="few")  # 3 rows: all train, no dev or test file
        small = upload(users["pm"], few["id"], rows(3, ["refund"])).json()["version"]["id"]
        named = client_for(users["pm"]).post(f"/api/dataset-versions/{small}/training-files/").json()
        assert named["counts"] == {"train": 3, "dev": 0, "test": 0}
        assert not (folder / f"{named['tickets']}.validation.jsonl").exists()

        empty = make_dataset(users["pm"], project, name="unlabelled")
        bare = upload(users["pm"], empty["id"], rows(5, [])).json()["version"]["id"]
        refused = client_for(users["pm"]).post(f"/api/dataset-versions/{bare}/training-files/")
        assert refused.status_code == 400 and "version" in refused.json()["errors"], refused.content
    finally:
        places.configure(saved.models_dir, saved.tickets_dir, saved.runs_dir, saved.datasets_dir)
