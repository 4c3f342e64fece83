"""The product path of `bench/datasets.py`: a labelled dataset taken through the web app's own entry points.

In this process, on a fresh SQLite database in a temporary MASE_DATA_DIR with its embedded Redis (what
`manage.py serve` starts, less the HTTP server): a product manager's session, through the browser's API,

1. creates a dataset with the catalogue and uploads the training file (`POST /api/datasets/`, `.../upload/`):
   the product validates it and draws its frozen train/dev/test split (decision 0018);
2. asks for the version's training files (`POST /api/dataset-versions/<id>/training-files/`: the name a
   routing spec gives in ``environment.params.tickets``);
3. reads the routing template from the gallery (`GET /api/workflows/templates/customer_service/`) and puts
   it over the catalogue as the canvas would (``team_document``), then launches it (`POST /api/runs/`); the
   queued delivery is executed here as a worker executes it (`runs.execution.execute`);
4. deploys the run (`POST /api/deployments/`) and sends every test ticket to the deployment's ticket API
   (`POST /api/deployments/<id>/tickets/`): the answer is what a customer gets (model, breaker fallback or
   the out-of-scope hand-off).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from typing import Any

TEMPLATE_SLUG = "customer_service"  # the gallery's routing template


@dataclass
class Web:
    client: Any
    project: int

    def call(self, method: str, url: str, body: Any = None, expect: int = 200, **extra) -> Any:
        """One API call as the browser makes it; its JSON, or RuntimeError with the answer."""
        if body is not None and "format" not in extra:
            extra |= {"data": json.dumps(body), "content_type": "application/json"}
        elif body is not None:
            extra.pop("format")
            extra["data"] = body
        answer = getattr(self.client, method)(url, **extra)
        if answer.status_code != expect:
            raise RuntimeError(f"{method.upper()} {url}: {answer.status_code} {answer.content[:800]!r}")
        return answer.json() if answer.content else None


@contextlib.contextmanager
def web_app():
    """A product manager's session on a fresh web app in this process (module docstring)."""
    work = tempfile.mkdtemp(prefix="mase-bench-datasets-web-")
    os.environ["MASE_DATA_DIR"] = work
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from mase_web.accounts.models import Membership, Project, Role
    from mase_web.embedded import ensure_embedded_redis

    call_command("migrate", interactive=False, verbosity=0)
    redis = ensure_embedded_redis(settings.REDIS)
    try:
        user = get_user_model().objects.create_user("bench-pm", password=os.urandom(8).hex())
        project = Project.objects.create(name="bench datasets")
        Membership.objects.create(project=project, user=user, role=Role.PRODUCT_MANAGER)
        client = Client(HTTP_HOST="localhost")
        client.force_login(user)
        yield Web(client, project.pk)
    finally:
        from django.db import connection

        connection.close()
        if redis is not None:
            redis.stop()
        shutil.rmtree(work, ignore_errors=True)


def jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps({"text": r["text"], "intents": r["intents"]}) + "\n" for r in rows).encode()


def upload(web: Web, name: str, rows: list[dict[str, Any]], catalogue: list[dict], seed: int) -> dict:
    """Steps 1–2: the dataset, its first version and its training files; what the upload answered."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    dataset = web.call(
        "post", "/api/datasets/", {"project": web.project, "name": name, "catalogue": {"intents": catalogue}},
        expect=201,
    )  # fmt: skip
    file = SimpleUploadedFile(f"{name}.jsonl", jsonl(rows), content_type="application/jsonl")
    answer = web.call(
        "post", f"/api/datasets/{dataset['id']}/upload/", {"file": file, "seed": str(seed)}, expect=201,
        format="multipart",
    )  # fmt: skip
    version = answer["version"]["id"]
    files = web.call("post", f"/api/dataset-versions/{version}/training-files/", expect=201)
    return {"dataset": dataset["id"], "version": version, "tickets": files["tickets"], "counts": files["counts"],
            "accepted": answer["accepted"], "refused": answer["refused"]}  # fmt: skip


def split_rows(web: Web, version: int, split: str) -> list[dict[str, Any]]:
    """A split of the version as its export gives it (labelled rows only; a row without its own id, which
    the export leaves out, gets its place in the split)."""
    answer = web.client.get(f"/api/dataset-versions/{version}/export/?split={split}")
    if answer.status_code != 200:
        raise RuntimeError(f"export {version} {split}: {answer.status_code}")
    rows = [json.loads(line) for line in answer.content.decode().splitlines() if line.strip()]
    rows = [{"id": f"{split}-{n}", **row} for n, row in enumerate(rows, start=1)]
    return [r for r in rows if r["intents"]]


def template(web: Web) -> dict[str, Any]:
    return web.call("get", f"/api/workflows/templates/{TEMPLATE_SLUG}/")["spec"]


def train(web: Web, name: str, spec: dict[str, Any]) -> tuple[int, float]:
    """Step 3: launch the run and execute its delivery as a worker does; (run id, wall seconds)."""
    from mase_web.runs.execution import execute
    from mase_web.runs.models import Run

    started = time.perf_counter()
    run = web.call(
        "post", "/api/runs/", {"project": web.project, "name": name, "spec": spec, "baselines": False}, expect=201
    )  # fmt: skip
    task = Run.objects.get(pk=run["id"]).task_id
    state = execute(run["id"], task)
    if state != Run.State.SUCCEEDED:
        raise RuntimeError(f"run {run['id']} ended {state}: {Run.objects.get(pk=run['id']).error}")
    return run["id"], time.perf_counter() - started


def deploy(web: Web, run: int, name: str) -> int:
    return web.call("post", "/api/deployments/", {"run": run, "name": name}, expect=201)["id"]


def answers(web: Web, deployment: int, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Step 4: each row's text sent to the deployment's ticket API; what came back per ticket."""
    out = []
    for row in rows:
        answer = web.call(
            "post", f"/api/deployments/{deployment}/tickets/", {"text": row["text"]}, expect=201
        )
        out.append(answered(answer))
    return out


def answered(answer: dict[str, Any]) -> dict[str, Any]:
    """The intents a ticket's answer gave and who gave them: ``out_of_scope`` (handed to a person),
    ``model``, ``fallback`` (the breaker's rules) or ``mixed`` (both within the ticket)."""
    result = answer.get("result") or {}
    sources = result.get("sources") or {}
    fallback = sum(v for k, v in sources.items() if "fallback" in str(k))
    by = "model" if not fallback else "mixed" if sum(sources.values()) > fallback else "fallback"
    if result.get("status") == "out_of_scope":
        by = "out_of_scope"
    intents = (result.get("info") or {}).get("predicted_intents") or []
    return {"intents": sorted(intents), "by": by, "status": result.get("status")}


def exact(rows: list[dict[str, Any]], given: list[dict[str, Any]]) -> float:
    hits = [sorted(r["intents"]) == g["intents"] for r, g in zip(rows, given, strict=True)]
    return sum(hits) / len(hits) if hits else 0.0
