"""Deployed teams, the tasks they ran, every decision they made, and their circuit breaker's history.

The database row of a `Deployment` is the authoritative circuit-breaker state: web and worker processes
restore their in-memory `serving.breaker.CircuitBreaker` from it before a task and save it back after, so an
operator's force in one process applies to the next ticket everywhere.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from agents.envs.routing import routing
from mase_web.runs.facade import shown_checkpoint_path

BREAKER_STATES = [("closed", "closed"), ("open", "open"), ("half_open", "half-open")]


def site_scope_gate() -> bool:
    """A new deployment's scope gate: the site's ``MASE_SCOPE_GATE`` (off unless the operator set it)."""
    return bool(getattr(settings, "MASE_SCOPE_GATE", False))


class Deployment(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        STOPPED = "stopped"

    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="deployments")
    name = models.CharField(max_length=200)
    workflow = models.ForeignKey(
        "workflows.Workflow", null=True, blank=True, on_delete=models.SET_NULL, related_name="deployments"
    )
    run = models.ForeignKey("runs.Run", on_delete=models.PROTECT, related_name="deployments")
    checkpoint = models.CharField(max_length=500, help_text="Checkpoint directory the team is loaded from.")
    spec = models.JSONField(help_text="The team spec the run was trained from (a snapshot).")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="deployments"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    breaker_state = models.CharField(max_length=16, choices=BREAKER_STATES, default="closed")
    breaker = models.JSONField(
        default=dict, blank=True, help_text="Persisted breaker state (see deployments.breaker_store)."
    )
    generation = models.JSONField(
        default=dict,
        blank=True,
        help_text="The reply writer's backend and settings (serving.generation.GenerationConfig); no secret.",
    )
    generation_secret = models.TextField(
        blank=True, help_text="The backend's API key, encrypted (deployments.writing); never sent out."
    )
    evolution = models.JSONField(
        default=dict,
        blank=True,
        help_text="How it evolves (deployments.evolution.EvolutionPolicy): interval, triggers, promotion rule.",
    )
    offline_agents = models.JSONField(
        default=list,
        blank=True,
        help_text="Agents an operator took offline (large teams; deployments.roster), applied by every runtime.",
    )
    style_explore = models.FloatField(
        default=0.0,
        help_text="Share of replies written in another style and marked explored, for ratings to contrast "
        "(decision 0035; deployments.style_explore bounds it).",
    )
    scope_gate = models.BooleanField(
        default=site_scope_gate,
        help_text="Routing teams: hand a ticket outside the intent catalogue to a person instead of answering "
        "it (serving.scope; decisions 0020, 0031). New deployments start from MASE_SCOPE_GATE.",
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"deployment {self.pk} {self.name}"

    @property
    def routes_tickets(self) -> bool:
        """Whether the team answers tickets by intents: the teams a scope gate applies to."""
        name = (self.spec.get("environment") or {}).get("name")
        return isinstance(name, str) and routing(name) is not None

    @property
    def shown_checkpoint(self) -> str:
        """Its checkpoint directory as answers show it: relative to its run's (`shown_checkpoint_path`);
        `checkpoint` keeps the server's path for loading the team."""
        return shown_checkpoint_path(self.run_id, self.checkpoint)


class Episode(models.Model):
    """One task (a customer ticket) run through a deployed team."""

    class Source(models.TextChoices):
        API = "api"
        BROWSER = "browser"
        BATCH = "batch"

    class Status(models.TextChoices):
        RUNNING = "running"
        COMPLETED = "completed"
        TRUNCATED = "truncated"
        STEP_LIMIT = "step_limit"
        OUT_OF_SCOPE = "out_of_scope"  # the team cannot do the request: nothing played (serving.requests)
        ERROR = "error"

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="episodes")
    request_id = models.CharField(max_length=100, unique=True)
    task_id = models.CharField(max_length=200, blank=True)
    task_text = models.TextField()
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.API)
    batch = models.ForeignKey(
        "BatchJob", null=True, blank=True, on_delete=models.SET_NULL, related_name="episodes"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    result = models.JSONField(default=dict, blank=True, help_text="The runtime's result, without decisions.")
    reward = models.FloatField(null=True, blank=True)
    breaker_state = models.CharField(max_length=16, choices=BREAKER_STATES, default="closed")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    conversation = models.ForeignKey(
        "Conversation", null=True, blank=True, on_delete=models.CASCADE, related_name="episodes",
        help_text="The conversation this episode is one customer turn of (conversational teams).",
    )  # fmt: skip
    turn = models.PositiveIntegerField(null=True, blank=True, help_text="Its turn in the conversation (1 ..).")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["deployment", "created_at"])]

    def __str__(self) -> str:
        return f"episode {self.request_id}"


class Conversation(models.Model):
    """A multi-turn conversation with a conversational team (`deployments.conversations`): its state lives
    here between turns; each turn is an `Episode` (the customer's message, the decisions, the reply)."""

    class Status(models.TextChoices):
        OPEN = "open"
        RESOLVED = "resolved"  # the customer accepted an answer
        ESCALATED = "escalated"  # a person took over
        ABANDONED = "abandoned"  # the customer's patience (or the step limit) ran out
        FAILED = "failed"  # a second answer was wrong

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="conversations")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    state = models.JSONField(default=dict, blank=True, help_text="The team's side of it (live.LiveSupportEnv).")
    turns = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return f"conversation {self.pk} of deployment {self.deployment_id} ({self.status})"


class DecisionStep(models.Model):
    """One agent's decision in one step of an episode: the runtime's decision-log record, and an
    operator's review of it (unreviewed, ok, wrong with a reason, or escalated)."""

    class Source(models.TextChoices):
        MODEL = "model"
        TRIAL = "trial"
        FALLBACK = "fallback"

    class Review(models.TextChoices):
        UNREVIEWED = "unreviewed"
        OK = "ok"
        WRONG = "wrong"
        ESCALATED = "escalated"

    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="steps")
    step = models.PositiveIntegerField()
    agent = models.CharField(max_length=100)
    observation = models.TextField(help_text="Summary of what the agent observed (JSON text).")
    action = models.CharField(max_length=100)
    action_index = models.IntegerField(null=True, blank=True)
    source = models.CharField(max_length=16, choices=Source.choices)
    confidence = models.FloatField(null=True, blank=True)
    reason = models.JSONField(default=dict, blank=True)
    messages = models.JSONField(default=dict, blank=True)
    latency_ms = models.FloatField(default=0.0)
    reward = models.FloatField(null=True, blank=True)
    breaker_state = models.CharField(max_length=16, choices=BREAKER_STATES, default="closed")
    fault = models.CharField(max_length=32, blank=True)
    search_text = models.TextField(
        blank=True, help_text="Observation, action and reason as plain text, for full-text search."
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    review_status = models.CharField(max_length=16, choices=Review.choices, default=Review.UNREVIEWED)
    review_reason = models.TextField(blank=True, help_text="Why it was marked wrong or escalated.")
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["episode", "step", "id"]
        indexes = [
            models.Index(fields=["agent", "created_at"]),
            models.Index(fields=["source", "breaker_state"]),
            models.Index(fields=["review_status", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.episode_id} step {self.step} {self.agent}: {self.action}"


class Correction(models.Model):
    """An operator's correction of how a ticket was handled (`corrections`): the intents it really asked for
    and/or the agent that should own it, optionally a better reply. The corrected ticket also becomes a row of
    the deployment's dataset (provenance "corrected"); ``dataset_row`` names that row."""

    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="corrections")
    step = models.ForeignKey(
        DecisionStep, null=True, blank=True, on_delete=models.SET_NULL, related_name="corrections",
        help_text="The decision corrected in decision review (empty: the ticket as a whole).",
    )  # fmt: skip
    intents = models.JSONField(default=list, blank=True, help_text="The right intents, from the catalogue.")
    owner = models.CharField(max_length=100, blank=True, help_text="The agent that should own the ticket.")
    reply = models.TextField(blank=True, help_text="A better reply, when the operator wrote one.")
    reason = models.TextField(blank=True)
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    dataset_row = models.JSONField(
        default=dict,
        blank=True,
        help_text="Where it landed: {dataset, version, row} ids of the datasets app.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"correction of episode {self.episode_id} by {self.corrected_by_id}"


class Reply(models.Model):
    """The text the team wrote for an episode's customer, part by part, with what writing it cost."""

    episode = models.OneToOneField(Episode, on_delete=models.CASCADE, related_name="reply")
    text = models.TextField()
    parts = models.JSONField(default=list, help_text="[{agent, intents, text, source, backend, usage, …}]")
    backend = models.CharField(max_length=32)
    model = models.CharField(max_length=200, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0.0)
    cost = models.FloatField(default=0.0)
    fault = models.CharField(
        max_length=32, blank=True, help_text="The first faulty part's fault kind, if any."
    )
    fault_kinds = models.CharField(
        max_length=400,
        blank=True,
        help_text="Every faulty part's kind, each once, comma-separated with a comma on each end "
        "(',generation_timeout,refusal,'): review finds a reply by the fault of any of its parts.",
    )
    fallback = models.BooleanField(default=False, help_text="The template writer wrote at least one part.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["backend", "fault"])]

    def __str__(self) -> str:
        return f"reply to {self.episode_id} ({self.backend})"


class BreakerTransition(models.Model):
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="transitions")
    from_state = models.CharField(max_length=16, choices=BREAKER_STATES)
    to_state = models.CharField(max_length=16, choices=BREAKER_STATES)
    reason = models.CharField(max_length=32, help_text="low_confidence, a fault kind, cooldown, operator …")
    detail = models.TextField(blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    why = models.TextField(blank=True, help_text="The operator's reason when forced.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.deployment_id}: {self.from_state} → {self.to_state} ({self.reason})"


class AgentSwitch(models.Model):
    """An operator took one agent of a large team offline, or brought it back (who, when, why)."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="agent_switches")
    agent = models.CharField(max_length=64)
    online = models.BooleanField(help_text="False: taken offline; True: brought back.")
    reason = models.CharField(max_length=500, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.deployment_id}: {self.agent} {'online' if self.online else 'offline'}"


class Alert(models.Model):
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="alerts")
    level = models.CharField(max_length=16)
    name = models.CharField(max_length=100)
    detail = models.TextField(blank=True)
    transition = models.ForeignKey(
        BreakerTransition, null=True, blank=True, on_delete=models.SET_NULL, related_name="alerts"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.level} {self.name}"


class BatchJob(models.Model):
    """A JSONL file of tickets run through a deployment by a Celery worker."""

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="batches")
    tickets = models.JSONField(help_text="The validated tickets: [{id, text, intents?}].")
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"batch {self.pk} of deployment {self.deployment_id} ({self.state})"


class Generation(models.Model):
    """One team in a deployment's lineage: generation 1 is the team it was deployed with; each later one a
    challenger trained from its parent (the champion then) on the deployment's corrected traffic
    (`deployments.evolution`). Exactly one generation of a deployment is the champion (the one serving)."""

    class Status(models.TextChoices):
        CHAMPION = "champion"
        CANDIDATE = "candidate"
        SHADOW = "shadow"
        RETIRED = "retired"
        REJECTED = "rejected"

    class Phase(models.TextChoices):
        TRAINING = "training"
        EVALUATING = "evaluating"
        READY = "ready"  # trained and compared (or generation 1: nothing to train)
        FAILED = "failed"

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="generations")
    number = models.PositiveIntegerField()
    run = models.ForeignKey("runs.Run", on_delete=models.PROTECT, related_name="generations")
    checkpoint = models.CharField(max_length=500, blank=True, help_text="Empty until its run wrote one.")
    spec = models.JSONField(help_text="The spec it was trained from (served as the deployment's spec).")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CANDIDATE)
    phase = models.CharField(max_length=16, choices=Phase.choices, default=Phase.TRAINING)
    comparison = models.JSONField(
        default=dict, blank=True, help_text="serving.promotion.Comparison.as_dict() against its parent."
    )
    data = models.JSONField(
        default=dict, blank=True, help_text="Its data: dataset version, rows added since the parent, slice."
    )
    reason = models.TextField(blank=True, help_text="Why it was (not) promoted, in words.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    promoted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    promoted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["deployment", "number"]
        constraints = [
            models.UniqueConstraint(fields=["deployment", "number"], name="one_generation_per_number")
        ]

    def __str__(self) -> str:
        return f"generation {self.number} of deployment {self.deployment_id} ({self.status})"


class ShadowAnswer(models.Model):
    """What a generation running in shadow answered for a live ticket, beside the champion
    (`deployments.shadow`): never shown to the customer, only compared on the deployment page."""

    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="shadow_answers")
    generation = models.ForeignKey(Generation, on_delete=models.CASCADE, related_name="shadow_answers")
    intents = models.JSONField(default=list, help_text="The intents the shadow team predicted.")
    champion_intents = models.JSONField(default=list, help_text="What the serving team answered.")
    agrees = models.BooleanField()
    latency_ms = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["episode", "generation"], name="one_shadow_answer_per_ticket")
        ]

    def __str__(self) -> str:
        return f"shadow answer of generation {self.generation_id} to episode {self.episode_id}"
