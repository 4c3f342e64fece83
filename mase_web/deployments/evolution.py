"""A deployed team's next generation, trained on its own corrected traffic and promoted only when better.

The loop (docs/design.md, "Evolution of a deployed team"):

1. Operators correct tickets in review; each corrected ticket lands in the deployment's dataset.
2. Every corrected ticket is assigned once, by a seeded hash of (deployment, episode), either to the
   deployment's *evaluation slice* (one in ``slice_every``) or to training. The assignment never changes,
   so the slice is frozen as drawn and only grows; its tickets never reach a training file
   (`serving.promotion.check_disjoint` refuses a comparison that would).
3. "Evolve" launches a challenger run: the champion's spec, its tickets = the champion's training tickets
   (for a team trained on a product dataset, that dataset's latest version: `evolution_base`, so labels
   given to it since reach the challenger) plus the deployment dataset's training rows outside the slice, taught by the champion's checkpoint where the
   trainer can read one (``training.teacher = "checkpoint"``; no trainer starts from another run's weights).
   Intents accepted onto the deployment's design join the challenger's catalogue (`accepted_intents`).
4. When the run has succeeded, champion and challenger answer the slice's tickets through serving runtimes;
   `serving.promotion.compare` judges them and the challenger is promoted only when it says so (and the
   policy promotes automatically), else it stays a candidate with the reason in words.
5. Promotion and rollback switch the deployment's run, checkpoint and spec under its row lock: a ticket in
   flight finishes on the runtime it started with (runtimes are cached per checkpoint).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from agents import places
from mase_web.datasets.facade import Dataset, latest_version, version_rows
from mase_web.deployments import breaker_store
from mase_web.deployments.accepted_intents import with_accepted_intents
from mase_web.deployments.evolution_base import BaseRefused, DatasetBase, dataset_base
from mase_web.deployments.models import Correction, DecisionStep, Deployment, Generation
from mase_web.runs.facade import Run, launch_run, teacher_problem
from serving.promotion import PromotionRule, check_disjoint

DEFAULT_TICKETS = "train"  # what a routing environment reads when its spec names no dataset


class EvolutionRefused(Exception):
    """Evolving now is not allowed; the message says why (too soon, a challenger already training, an empty
    evaluation slice…). ``waits``: nothing to fix, only to wait (too soon, or a challenger in flight)."""

    def __init__(self, message: str, too_soon: bool = False, waits: bool = False):
        super().__init__(message)
        self.too_soon = too_soon
        self.waits = waits or too_soon


@dataclass(frozen=True)
class EvolutionPolicy:
    """How a deployment evolves (its ``evolution`` field over the server's defaults)."""

    min_interval_s: int = 3600  # never two challengers closer than this
    after_corrections: int = 0  # evolve by itself after this many new corrections (0: only by hand)
    every_s: int = 0  # evolve by itself on this schedule (0: never), still never closer than min_interval_s
    auto_promote: bool = True  # promote a challenger the rule accepts without a person
    slice_every: int = 5  # one corrected ticket in this many is held out for evaluation
    correction_weight: int = 1  # each corrected row stands this many times in the challenger's tickets
    margin: float = 0.02
    intent_tolerance: float = 0.02
    min_tickets: int = 100
    min_intent_tickets: int = 20

    @property
    def rule(self) -> PromotionRule:
        return PromotionRule(
            margin=self.margin,
            intent_tolerance=self.intent_tolerance,
            min_tickets=self.min_tickets,
            min_intent_tickets=self.min_intent_tickets,
        )


def policy_of(deployment: Deployment) -> EvolutionPolicy:
    known = {f.name for f in fields(EvolutionPolicy)}
    merged = {**getattr(settings, "MASE_EVOLUTION_DEFAULTS", {}), **(deployment.evolution or {})}
    return EvolutionPolicy(**{k: v for k, v in merged.items() if k in known})


def policy_dict(policy: EvolutionPolicy) -> dict[str, Any]:
    return asdict(policy)


# ---- the lineage -------------------------------------------------------------------------------------
def first_generation(deployment: Deployment) -> Generation:
    """Generation 1: the team the deployment was made with, recorded on first need (older deployments)."""
    found = deployment.generations.filter(number=1).first()
    if found is not None:
        return found
    generation, _ = Generation.objects.get_or_create(
        deployment=deployment,
        number=1,
        defaults={
            "run_id": deployment.run_id,
            "checkpoint": deployment.checkpoint,
            "spec": deployment.spec,
            "status": Generation.Status.CHAMPION,
            "phase": Generation.Phase.READY,
            "data": {"tickets": _tickets_name(deployment.spec), "rows_added": 0},
            "created_by": deployment.created_by,
            "promoted_by": deployment.created_by,
            "promoted_at": deployment.created_at,
            "reason": "the team the deployment was made with",
        },
    )
    return generation


def champion(deployment: Deployment) -> Generation:
    first_generation(deployment)
    return deployment.generations.filter(status=Generation.Status.CHAMPION).order_by("-number").first()


# ---- the evaluation slice and the training rows --------------------------------------------------------
def in_slice(deployment_id: int, episode_id: int, every: int) -> bool:
    """Whether a corrected ticket belongs to the evaluation slice: decided by a hash, never redrawn."""
    digest = hashlib.sha256(f"mase-slice:{deployment_id}:{episode_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % max(1, every) == 0


def labelled_traffic(deployment: Deployment) -> list[dict[str, Any]]:
    """The deployment's reviewed tickets with their intents, oldest first: a correction's (the newest
    stands), or, for a ticket an operator confirmed as right, the intents the team answered.

    Confirmed tickets matter for the slice: corrected tickets are the ones the serving team got wrong, so a
    slice of them alone scores the champion near zero by construction and flatters any challenger."""
    rows = (
        Correction.objects.filter(episode__deployment=deployment)
        .exclude(intents=[])
        .select_related("episode")
        .order_by("episode_id", "-created_at")
    )
    seen: dict[int, dict[str, Any]] = {}
    for c in rows:
        seen.setdefault(
            c.episode_id, {"episode": c.episode_id, "text": c.episode.task_text, "intents": c.intents}
        )
    for episode in confirmed_episodes(deployment).exclude(pk__in=list(seen)):
        intents = ((episode.result or {}).get("info") or {}).get("predicted_intents") or []
        if intents:
            seen[episode.pk] = {"episode": episode.pk, "text": episode.task_text, "intents": list(intents)}
    return [seen[k] for k in sorted(seen)]


def confirmed_episodes(deployment: Deployment):
    """Tickets whose decisions an operator reviewed as right (some ok, none wrong or escalated)."""
    review = DecisionStep.Review
    return (
        deployment.episodes.filter(steps__review_status=review.OK)
        .exclude(steps__review_status__in=[review.WRONG, review.ESCALATED])
        .exclude(corrections__isnull=False)
        .distinct()
        .only("pk", "task_text", "result")
    )


def evaluation_slice(deployment: Deployment, policy: EvolutionPolicy) -> list[dict[str, Any]]:
    return [
        t for t in labelled_traffic(deployment) if in_slice(deployment.pk, t["episode"], policy.slice_every)
    ]


def training_rows(deployment: Deployment, policy: EvolutionPolicy) -> tuple[list[dict[str, Any]], dict]:
    """The deployment dataset's labelled training rows outside the slice, and where they came from."""
    dataset = Dataset.objects.filter(deployment_id=deployment.pk).first()
    version = latest_version(dataset) if dataset is not None else None
    if version is None:
        return [], {"dataset": None, "version": None}
    rows = []
    for row in version_rows(version, "train").exclude(intents=[]):
        episode = (row.metadata or {}).get("episode")
        if episode is not None and in_slice(deployment.pk, int(episode), policy.slice_every):
            continue  # a held-out ticket: never trained on
        rows.append({"text": row.text, "intents": list(row.intents), "episode": episode})
    return rows, {"dataset": dataset.pk, "version": version.pk, "version_number": version.number}


# ---- evolving ------------------------------------------------------------------------------------------
def _tickets_name(spec: dict) -> str:
    params = ((spec or {}).get("environment") or {}).get("params") or {}
    return str(params.get("tickets") or DEFAULT_TICKETS)


def refuse_if_too_soon(deployment: Deployment, policy: EvolutionPolicy) -> None:
    if deployment.generations.filter(
        phase__in=[Generation.Phase.TRAINING, Generation.Phase.EVALUATING]
    ).exists():
        raise EvolutionRefused(
            "a challenger is already training or being evaluated; wait for its verdict", waits=True
        )
    last = deployment.generations.filter(number__gt=1).order_by("-created_at").first()
    if last is None:
        return
    ready_at = last.created_at + timedelta(seconds=policy.min_interval_s)
    if timezone.now() < ready_at:
        wait = int((ready_at - timezone.now()).total_seconds()) + 1
        raise EvolutionRefused(
            f"generation {last.number} started less than {policy.min_interval_s} s ago "
            f"(the deployment's minimum interval between evolutions); evolve again in {wait} s",
            too_soon=True,
        )


def empty_slice_refusal(slice_tickets: int, policy: EvolutionPolicy) -> str | None:
    """Why a deployment cannot evolve while its evaluation slice is empty (None once it holds a ticket): a
    challenger trained now could never be judged, so no run is spent on it."""
    if slice_tickets > 0:
        return None
    return (
        "the evaluation slice is empty, so a challenger could not be compared with the champion: the promotion "
        f"rule judges one on at least {policy.min_tickets} slice tickets, and one in {policy.slice_every} live "
        "tickets that operators confirm or correct in Review joins the slice; review tickets first"
    )


def _write_tickets(name: str, tickets: list[dict[str, Any]]) -> None:
    """The challenger's training tickets as a ticket reader's dataset file (written once, never changed)."""
    directory = places.data_dir(places.DataFiles(places.TICKETS_FOLDER, "dataset file"))
    if directory is None:
        raise EvolutionRefused("no data directory is configured for training tickets (MASE_DATASETS_DIR)")
    target = directory / f"{name}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tickets), encoding="utf-8")


def _champion_tickets(spec: dict) -> list[dict[str, Any]]:
    from agents.envs.routing import routing

    environment = (spec or {}).get("environment") or {}
    interface = routing(environment.get("name"))
    if interface is None:
        raise EvolutionRefused("only a routing team (one that answers tickets by intent) can evolve yet")
    params = environment.get("params") or {}
    loaded = interface.load_tickets(_tickets_name(spec), params)
    return [{"id": t.id, "text": t.text, "intents": list(t.intents)} for t in loaded]


def _champion_dev(spec: dict) -> list[dict[str, Any]]:
    """The parent's own dev split (a dataset's ``NAME.validation``), which its challenger selects its best
    checkpoint and calibrates on too (the shipped catalogue falls back to the shipped split by itself; a
    dataset's team would have none); [] when the parent has no dev split of its own."""
    from agents.envs.routing import routing

    environment = (spec or {}).get("environment") or {}
    interface = routing(environment.get("name"))
    params = environment.get("params") or {}
    if interface is None or not interface.has_own_dev_split(params):
        return []
    loaded = interface.load_tickets(interface.dev_tickets(params), params)
    return [{"id": t.id, "text": t.text, "intents": list(t.intents)} for t in loaded]


def challenger_spec(
    deployment: Deployment, parent: Generation, number: int, rows: list[dict], weight: int = 1
) -> tuple[dict, dict]:
    """The parent's spec reading its tickets plus ``rows`` (each ``weight`` times: a few hundred corrections
    beside thousands of generated tickets otherwise barely move the readers' fit); taught by the parent's
    checkpoint when the trainer can read it. Returns the spec and what the generation's data summary says."""
    ours = f"d{deployment.pk}-e"  # rows an earlier generation added come back from the dataset, newest labels
    source, from_dataset = _base_source(deployment, parent)
    base = [t for t in _base_tickets(source, from_dataset) if not str(t["id"]).startswith(ours)]
    added = [
        {"id": f"d{deployment.pk}-e{r['episode']}-{i}-w{w}", "text": r["text"], "intents": r["intents"]}
        for i, r in enumerate(rows)
        for w in range(max(1, int(weight)))
    ]
    name = f"evolve-d{deployment.pk}-g{number}"
    _write_tickets(name, base + added)
    dev = _champion_dev(source)
    if dev:
        _write_tickets(f"{name}.validation", dev)
    spec, new_intents = with_accepted_intents(deployment, json.loads(json.dumps(parent.spec)))
    spec.setdefault("environment", {}).setdefault("params", {})["tickets"] = name
    training = spec.setdefault("training", {})
    taught = {**training, "teacher": "checkpoint", "teacher_checkpoint": str(parent.run_id)}
    problem = teacher_problem({**spec, "training": taught}, deployment.project_id)
    if new_intents:  # its owners' action spaces grew: the parent's checkpoint does not fit them
        problem = f"the catalogue gained {', '.join(new_intents)} on the design's canvas"
    if problem is None and training.get("algorithm") in ("mappo", "ippo"):
        spec["training"] = taught
        start = f"taught by generation {parent.number}'s checkpoint (run {parent.run_id})"
    else:
        start = (
            f"trained from the spec (the parent's checkpoint cannot teach it: {problem or 'not a PPO team'})"
        )
    about = {
        "tickets": name,
        "base_tickets": len(base),
        "dev_tickets": len(dev),
        "row_weight": max(1, int(weight)),
        "start": start,
        "intents_added": new_intents,
    }
    if from_dataset is not None:
        about["base_dataset"] = from_dataset.about
    return spec, about


def _base_source(deployment: Deployment, parent: Generation) -> tuple[dict, DatasetBase | None]:
    """The spec whose tickets (training and dev split) a challenger's base is read from: for a team trained
    on a product dataset, the parent's spec reading that dataset's latest version (`evolution_base`), so
    labels given to it since reach the next generation; else the parent's spec as it is."""
    try:
        found = dataset_base(deployment, first_generation(deployment), parent)
    except BaseRefused as exc:
        raise EvolutionRefused(str(exc)) from None
    if found is None:
        return parent.spec, None
    source = json.loads(json.dumps(parent.spec))
    source.setdefault("environment", {}).setdefault("params", {})["tickets"] = found.tickets
    return source, found


def _base_tickets(source: dict, from_dataset: DatasetBase | None) -> list[dict[str, Any]]:
    if from_dataset is None:
        return _champion_tickets(source)
    try:
        return _champion_tickets(source)
    except (ValueError, OSError) as exc:  # a row the catalogue cannot read, or no labelled training rows
        number = from_dataset.about["version_number"]
        raise EvolutionRefused(
            f"version {number} of the team's training dataset cannot be read: {exc}"
        ) from None


def evolve(deployment: Deployment, user=None, trigger: str = "hand") -> Generation:
    """Launch a challenger run for the deployment (see the module docstring); raises EvolutionRefused."""
    policy = policy_of(deployment)
    with transaction.atomic():
        locked = Deployment.objects.select_for_update().get(pk=deployment.pk)
        refuse_if_too_soon(locked, policy)
        parent = champion(locked)
        if not (Path(parent.checkpoint) / "state.json").is_file():
            raise EvolutionRefused(
                f"generation {parent.number}'s checkpoint is not on disk: a challenger could not be compared with it"
            )
        slice_ids = [t["episode"] for t in evaluation_slice(locked, policy)]
        refusal = empty_slice_refusal(len(slice_ids), policy)
        if refusal is not None:
            raise EvolutionRefused(refusal)
        rows, source = training_rows(locked, policy)
        check_disjoint(slice_ids, [r["episode"] for r in rows if r["episode"] is not None])
        before = int((parent.data or {}).get("rows_total", 0))
        number = (locked.generations.order_by("-number").values_list("number", flat=True).first() or 1) + 1
        spec, about = challenger_spec(locked, parent, number, rows, policy.correction_weight)
        source_of_run = {
            "kind": "evolution",
            "deployment": locked.pk,
            "generation": number,
            "trigger": trigger,
        }
        run = launch_run(
            locked.project_id, f"{locked.name}: generation {number}", spec, source_of_run, by=user
        )
        data = {**about, **source, "rows_total": len(rows), "rows_added": max(0, len(rows) - before),
                "slice_tickets": len(slice_ids), "trigger": trigger}  # fmt: skip
        return Generation.objects.create(
            deployment=locked, number=number, run=run, spec=spec, parent=parent, data=data, created_by=user
        )


# ---- promotion and rollback ----------------------------------------------------------------------------
def _serve(generation: Generation, user, reason: str) -> Generation:
    """Make ``generation`` the champion, under the deployment's row lock (tickets in flight keep theirs)."""
    with breaker_store.locked_deployment(generation.deployment_id) as deployment:
        deployment.generations.filter(status=Generation.Status.CHAMPION).exclude(pk=generation.pk).update(
            status=Generation.Status.RETIRED
        )
        deployment.run_id, deployment.checkpoint, deployment.spec = (
            generation.run_id, generation.checkpoint, generation.spec,
        )  # fmt: skip
        deployment.save(update_fields=["run", "checkpoint", "spec"])
        generation.status = Generation.Status.CHAMPION
        generation.promoted_by, generation.promoted_at = user, timezone.now()
        generation.reason = reason or generation.reason
        generation.save(update_fields=["status", "promoted_by", "promoted_at", "reason"])
    return generation


def promote(generation: Generation, user) -> Generation:
    if generation.phase != Generation.Phase.READY or not generation.checkpoint:
        raise EvolutionRefused(
            f"generation {generation.number} has no evaluated checkpoint yet ({generation.phase})"
        )
    if generation.status == Generation.Status.CHAMPION:
        raise EvolutionRefused(f"generation {generation.number} is already the champion")
    who = "the promotion rule" if user is None else getattr(user, "username", "a person")
    return _serve(generation, user, f"promoted by {who}: {generation.reason}".strip(": "))


def rollback(deployment: Deployment, user) -> Generation:
    """Serve again the generation that served before the champion (the newest retired one)."""
    current = champion(deployment)
    previous = (
        deployment.generations.filter(status=Generation.Status.RETIRED, number__lt=current.number)
        .order_by("-promoted_at", "-number")
        .first()
    ) or deployment.generations.filter(status=Generation.Status.RETIRED).order_by("-promoted_at").first()
    if previous is None:
        raise EvolutionRefused("no earlier generation to roll back to")
    served = _serve(
        previous,
        user,
        f"rolled back from generation {current.number} by {getattr(user, 'username', 'a person')}",
    )
    Generation.objects.filter(pk=current.pk).update(status=Generation.Status.REJECTED)
    return served


def run_of(generation: Generation) -> Run:
    return generation.run
