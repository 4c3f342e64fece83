"""The OpenAPI schema says what the API does: bare arrays where views return bare arrays, pages where they
paginate, and the one error shape for the 400/403/404 every operation can answer."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

BARE_ARRAYS = {
    "/api/deployments/{id}/alerts/": "Alert",
    "/api/deployments/{id}/batches/": "BatchJob",
    "/api/deployments/{id}/transitions/": "Transition",
    "/api/feedback/queues/{id}/reward-models/": "RewardModel",
    "/api/runs/{id}/checkpoints/": "Checkpoint",
    "/api/runs/{id}/events/": "RunEvent",
}
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture
def admin_client():
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_superuser("root", "root@example.org", "pw"))
    return client


@pytest.fixture
def schema(admin_client) -> dict:
    response = admin_client.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def body_schema(schema: dict, path: str, method: str, status: str) -> dict:
    return schema["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]


def component(schema: dict, ref: dict) -> dict:
    return schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[-1]]


def test_lists_that_are_not_paginated_are_documented_as_bare_arrays(schema):
    for path, item in BARE_ARRAYS.items():
        documented = body_schema(schema, path, "get", "200")
        assert documented == {"type": "array", "items": {"$ref": f"#/components/schemas/{item}"}}, path


def test_writes_on_list_actions_document_their_own_answer(schema):
    batch = schema["paths"]["/api/deployments/{id}/batches/"]["post"]
    assert body_schema(schema, "/api/deployments/{id}/batches/", "post", "202")["$ref"].endswith("/BatchJob")
    assert "200" not in batch["responses"]
    assert {"application/json", "multipart/form-data"} <= set(batch["requestBody"]["content"])
    trained = body_schema(schema, "/api/feedback/queues/{id}/reward-models/", "post", "201")
    assert trained["$ref"].endswith("/RewardModel")
    for path in ("/api/feedback/ratings/", "/api/feedback/judgements/"):  # first answer 201, update 200
        assert {"200", "201"} <= set(schema["paths"][path]["post"]["responses"])


def test_my_items_is_documented_as_a_page_of_items_with_my_answers(schema):
    page = component(schema, body_schema(schema, "/api/feedback/my-items/", "get", "200"))
    assert {"count", "results"} <= set(page["required"])
    item = component(schema, page["properties"]["results"]["items"])
    assert {"id", "snapshot", "my_rating", "my_judgement"} <= set(item["properties"])
    assert item["properties"]["my_rating"]["nullable"] is True


def test_queues_document_the_progress_they_carry(schema):
    queue = component(schema, body_schema(schema, "/api/feedback/queues/{id}/", "get", "200"))
    assert {"my_progress", "can_manage"} <= set(queue["required"])
    assert "progress" in queue["properties"] and "progress" not in queue["required"]  # managers only


def is_the_error_shape(schema: dict, body: dict) -> bool:
    """``ApiError`` itself, or a named extension of it: every one of its fields, word for word, the same
    required ones, and optional extras (an upload's refused rows) a client may ignore."""
    name = body.get("$ref", "").rsplit("/", 1)[-1]
    if name == "ApiError":
        return True
    error, extended = schema["components"]["schemas"]["ApiError"], schema["components"]["schemas"].get(name)
    if extended is None:
        return False
    same_fields = all(extended["properties"].get(k) == v for k, v in error["properties"].items())
    return same_fields and set(extended.get("required", [])) == set(error["required"])


def test_every_operation_documents_its_errors_in_the_one_error_shape(schema):
    error = schema["components"]["schemas"]["ApiError"]
    assert set(error["required"]) == {"detail", "errors"}
    assert error["properties"]["errors"]["additionalProperties"] == {
        "type": "array",
        "items": {"type": "string"},
    }
    operations = 0
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method not in METHODS:
                continue
            operations += 1
            responses = operation["responses"]
            if path != "/api/health/":  # open to all, no authentication: nothing to refuse
                assert "403" in responses, (method, path)
            if "{" in path:
                assert "404" in responses, (method, path)
            if method != "get" or "requestBody" in operation:
                assert "400" in responses, (method, path)
            for status in ("400", "403", "404"):
                if status in responses:
                    assert is_the_error_shape(schema, body_schema(schema, path, method, status)), (
                        method,
                        path,
                        status,
                    )
    assert operations >= 60
    assert "503" in schema["paths"]["/api/health/"]["get"]["responses"]


def test_unmatched_api_urls_answer_in_the_error_shape(admin_client):
    response = admin_client.get("/api/workflows/not-a-number/diff/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found.", "errors": {}}
    page = admin_client.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


def test_a_missing_run_answers_404_in_the_error_shape(admin_client):
    response = admin_client.get("/api/runs/987654/communication/")
    assert response.status_code == 404
    assert set(response.json()) == {"detail", "errors"}
