"""Training runs: GRPO (after an SFT warm start) of a base model on an export of curated trajectories.

A run's config is written to disk next to its outputs (var/training/run-<id>/); the training process
(training/engine/, started by the `training.run` job on the one-worker gpu cluster) streams its metrics back as
TrainingMetric rows. A finished run's checkpoint becomes a benchmarks.ModelEntry (tuned_from_run = the run's id).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db import models

from training.engine.presets import PRESETS


class TrainingRun(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        STOPPED = "stopped", "stopped (resumable)"
        FAILED = "failed", "failed (resumable)"
        FINISHED = "finished", "finished"

    class ToolMode(models.TextChoices):
        SANDBOX = "sandbox", "sandbox (calls executed over HTTP)"
        REPLAY = "replay", "replay (the trajectories' recorded answers)"

    name = models.CharField(max_length=200, blank=True, help_text="A label; defaults to preset and base model.")
    preset = models.CharField(max_length=40, choices=[(p, p) for p in PRESETS])
    base_model_path = models.CharField(
        max_length=500, blank=True, help_text="Local checkpoint folder (empty for tiny-cpu, which builds its model)."
    )
    dataset_path = models.CharField(max_length=500, help_text="Export file of trajectories (openai or hf JSONL).")
    # An id, not a foreign key: the dataset-version model lands separately; its export is the file above.
    dataset_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The frozen dataset version, if any."
    )
    tool_mode = models.CharField(max_length=10, choices=ToolMode.choices, default=ToolMode.SANDBOX)
    overrides = models.JSONField(default=dict, blank=True, help_text='Dotted keys, e.g. {"grpo.steps": 50}.')
    config = models.JSONField(default=dict, help_text="The full config the training process reads.")
    output_dir = models.CharField(max_length=500, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    phase = models.CharField(max_length=10, blank=True, help_text="sft or grpo while running.")
    step = models.PositiveIntegerField(default=0)
    total_steps = models.PositiveIntegerField(default=0, help_text="GRPO steps planned.")
    last_metrics = models.JSONField(default=dict, blank=True)
    error = models.CharField(max_length=600, blank=True, help_text="One line: why the run failed or stopped.")
    log_tail = models.TextField(blank=True, help_text="The last lines of the training log, kept on failure.")
    checkpoint = models.CharField(max_length=500, blank=True, help_text="The final model folder.")
    model_entry = models.ForeignKey(
        "benchmarks.ModelEntry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    base_entry = models.ForeignKey(
        "benchmarks.ModelEntry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    base_eval = models.ForeignKey(
        "benchmarks.EvalRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    tuned_eval = models.ForeignKey(
        "benchmarks.EvalRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    eval_note = models.CharField(max_length=600, blank=True, help_text="Why evaluation was not queued, if it was not.")
    job = models.ForeignKey(
        "kopa_site.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The latest job."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "training run"

    def __str__(self) -> str:
        return f"Training run #{self.pk} ({self.preset}, {self.status})"

    @property
    def label(self) -> str:
        base = Path(self.base_model_path).name if self.base_model_path else "tiny"
        return self.name or f"{self.preset} · {base}"

    @property
    def folder(self) -> Path:
        return Path(self.output_dir)

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.PENDING, self.Status.RUNNING)


class TrainingMetric(models.Model):
    """One logged step of the training process (metrics.jsonl): loss, rewards per component, KL, tool use."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="metrics")
    phase = models.CharField(max_length=10)
    step = models.PositiveIntegerField()
    values = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "phase", "step"]
        constraints = [
            models.UniqueConstraint(fields=["run", "phase", "step"], name="training_metric_unique_step"),
        ]

    def __str__(self) -> str:
        return f"{self.run_id} {self.phase} step {self.step}"
