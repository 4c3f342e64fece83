"""The label chart's counts: a row with no intent that people marked out of scope (``metadata.out_of_scope``,
from annotators' "none of these" or a reviewer's correction) is counted as out of scope, not as unlabelled."""

from __future__ import annotations

import json

from mase_web.datasets.tests.conftest import make_dataset, upload
from mase_web.runs.tests.conftest import client_for


def test_rows_marked_out_of_scope_are_not_counted_as_unlabelled(people):
    project, _, users = people
    dataset = make_dataset(users["pm"], project)
    rows = [{"text": f"where is parcel {i}", "intents": ["delivery"]} for i in range(6)]
    rows += [{"text": f"I was charged twice, order {i}", "intents": [], "metadata": {"out_of_scope": True}}
             for i in range(3)]  # fmt: skip
    rows += [{"text": f"not read yet {i}", "intents": []} for i in range(2)]
    content = "".join(json.dumps(row) + "\n" for row in rows)
    version = upload(users["pm"], dataset["id"], content).json()["version"]
    labels = client_for(users["ann"]).get(f"/api/dataset-versions/{version['id']}/labels/").json()
    assert labels["out_of_scope"]["count"] == 3 and labels["unlabelled"]["count"] == 2
    outside = labels["out_of_scope"]
    assert outside["train"] + outside["dev"] + outside["test"] == 3
    assert [entry["name"] for entry in labels["intents"]] == ["delivery"]
