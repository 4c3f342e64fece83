"""The lineage export: a row per generation with its figures against its parent, CSV or JSON, for those
who may see the deployment; a spreadsheet formula in a text cell stays text."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth import get_user_model

from mase_web.accounts.models import Role
from mase_web.deployments.evolution import first_generation
from mase_web.deployments.models import Generation
from mase_web.deployments.tests.conftest import client_for, make_deployment, make_trained_run, team_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def lineage(team, tiny_backbone_dir):
    project, users = team
    spec = team_spec(tiny_backbone_dir)
    deployment = make_deployment(project, tiny_backbone_dir / "champion", spec)
    parent = first_generation(deployment)
    sly = get_user_model().objects.create_user("=HYPERLINK(1)")
    Generation.objects.create(
        deployment=deployment, number=2, run=make_trained_run(project, None, spec), spec=spec, parent=parent,
        phase=Generation.Phase.READY, status=Generation.Status.CANDIDATE, created_by=sly,
        data={"trigger": "hand", "rows_added": 40, "rows_total": 40},
        comparison={"tickets": 120, "champion": 0.70, "challenger": 0.75, "gain": 0.05,
                    "interval": [0.01, 0.09], "p_value": 0.02, "promote": True},
        reason="better by 5.0 points",
    )  # fmt: skip
    return deployment, users


def test_the_lineage_exports_as_csv_with_each_generation_against_its_parent(lineage):
    deployment, users = lineage
    answer = client_for(users[Role.OPERATOR]).get(
        f"/api/deployments/{deployment.pk}/generations/export/?as=csv"
    )
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    assert f"deployment-{deployment.pk}-generations.csv" in answer["Content-Disposition"]
    table = list(csv.DictReader(io.StringIO(answer.content.decode())))
    assert [r["generation"] for r in table] == ["1", "2"]
    second = table[1]
    figures = (second["parent"], second["exact_match"], second["gain_low"], second["rows_added"])
    assert figures == ("1", "0.75", "0.01", "40")
    assert second["created_by"] == "'=HYPERLINK(1)"  # text, not a formula


def test_the_json_export_holds_the_policy_and_bad_formats_or_strangers_are_refused(lineage):
    deployment, users = lineage
    path = f"/api/deployments/{deployment.pk}/generations/export/"
    body = client_for(users[Role.OPERATOR]).get(path).json()
    assert body["policy"]["slice_every"] == 5 and [g["generation"] for g in body["generations"]] == [1, 2]
    assert body["generations"][1]["p_value"] == 0.02
    bad = client_for(users[Role.OPERATOR]).get(path + "?as=xlsx")
    assert bad.status_code == 400 and "as" in bad.json()["errors"]
    for outsider in (users["stranger"], users[Role.ANNOTATOR]):  # annotators see no deployments
        assert client_for(outsider).get(path + "?as=csv").status_code == 404
