"""Runs of the learning core on a Celery worker, the events they emit, and their checkpoints."""

from __future__ import annotations

from pathlib import PurePath

from django.conf import settings
from django.db import models

from mase_web.core.facade import shown_text  # noqa: F401 - runs.facade offers it with the run's paths


def shown_checkpoint_path(run_id: int, path: str) -> str:
    """A checkpoint's directory as the API shows it: relative to its run's directory ("checkpoints/mappo/
    best"), never the server's absolute path (one outside the run's directory: its last part)."""
    try:
        return str(PurePath(path).relative_to(settings.DATA_DIR / "runs" / str(run_id)))
    except ValueError:
        return PurePath(path).name


class Run(models.Model):
    class Kind(models.TextChoices):
        TRAINING = "training"
        EVALUATION = "evaluation"

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"

    class Device(models.TextChoices):
        CPU = "cpu"
        GPU = "gpu"

    TERMINAL = (State.SUCCEEDED, State.FAILED, State.CANCELLED)

    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.TRAINING)
    device = models.CharField(max_length=8, choices=Device.choices, default=Device.CPU)
    spec = models.JSONField(help_text="The validated team spec this run executes (a snapshot).")
    source = models.JSONField(
        default=dict, blank=True, help_text="Where the spec came from, e.g. a workflow version."
    )
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="runs"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Ownership while running: which worker holds the run and when it last proved it is alive.
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    # When the delivery named by task_id was sent: recovery leaves a run queued moments ago alone.
    dispatched_at = models.DateTimeField(null=True, blank=True)
    deliveries = models.PositiveIntegerField(
        default=0, help_text="How many times a worker picked the run up."
    )
    cancel_requested = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    metrics = models.JSONField(default=dict, blank=True, help_text="Final metrics of the run.")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["project", "state"])]

    def __str__(self) -> str:
        return f"run {self.pk} {self.name} ({self.state})"

    @property
    def is_terminal(self) -> bool:
        return self.state in self.TERMINAL

    @property
    def shown_error(self) -> str:
        """Why it failed, as answers show it (`shown_text`: no server path); `error` keeps the words as raised."""
        return shown_text(self.error)

    @property
    def out_dir(self):
        return settings.DATA_DIR / "runs" / str(self.pk)


class RunEvent(models.Model):
    """One event of the library's event stream, numbered per run from 1 with no gaps."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    payload = models.JSONField(default=dict)
    time = models.DateTimeField()

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="one_event_per_seq")]
        indexes = [models.Index(fields=["run", "type", "seq"])]

    def __str__(self) -> str:
        return f"run {self.run_id} #{self.seq} {self.type}"

    @property
    def shown_payload(self) -> dict:
        """The payload as the API and live stream show it: a checkpoint's path relative to the run, an
        error's message and traceback without the server's paths (`shown_text`)."""
        if self.type == "error":
            return {k: shown_text(v) if isinstance(v, str) else v for k, v in self.payload.items()}
        path = self.payload.get("path") if self.type == "checkpoint" else None
        if not isinstance(path, str):
            return self.payload
        return {**self.payload, "path": shown_checkpoint_path(self.run_id, path)}

    def as_message(self) -> dict:
        payload = self.shown_payload
        return {"seq": self.seq, "type": self.type, "payload": payload, "time": self.time.timestamp()}


class Checkpoint(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="checkpoints")
    step = models.PositiveIntegerField(help_text="Episodes played when the checkpoint was written.")
    path = models.CharField(max_length=500)
    metrics = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "step"]

    def __str__(self) -> str:
        return f"run {self.run_id} checkpoint at {self.step}"

    @property
    def shown_path(self) -> str:
        """Its directory relative to the run's (`shown_checkpoint_path`); `path` stays for the server."""
        return shown_checkpoint_path(self.run_id, self.path)


class RunTag(models.Model):
    """A label people put on a run ("baseline", "ablation-lr") to find and group runs by."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="tag_rows")
    name = models.CharField(max_length=40)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="one_tag_per_run")]
        indexes = [models.Index(fields=["name"])]

    def __str__(self) -> str:
        return f"run {self.run_id} #{self.name}"
