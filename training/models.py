"""Training runs: GRPO (after an SFT warm start) of a base model on a frozen dataset version of curated trajectories.

A run's config is written to disk next to its outputs (var/training/run-<id>/); the training process
(training/engine/, started by the `training.run` job on the one-worker gpu cluster) streams its metrics back as
TrainingMetric rows. A finished run's checkpoint becomes a benchmarks.ModelEntry (tuned_from_run = the run's id).
"""

from __future__ import annotations

from pathlib import Path

from django.db import models

from kopa_site.models import Run
from training.engine.presets import PRESETS


class TrainingRun(Run):
    """A stopped or failed run resumes from its last checkpoint. Its settings are `overrides` and `config`, so
    it has no `params`; its progress is `step` and the metrics, so no `counters`."""

    noun = "training run"
    params = None
    counters = None

    class ToolMode(models.TextChoices):
        SANDBOX = "sandbox", "sandbox (calls executed over HTTP)"
        REPLAY = "replay", "replay (the trajectories' recorded answers)"

    name = models.CharField(max_length=200, blank=True, help_text="A label; defaults to preset and base model.")
    preset = models.CharField(max_length=40, choices=[(p, p) for p in PRESETS])
    base_model_path = models.CharField(
        max_length=500, blank=True, help_text="Local checkpoint folder (empty for tiny-cpu, which builds its model)."
    )
    dataset_version = models.ForeignKey(
        "datasets.DatasetVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="training_runs",
        help_text="The frozen dataset version trained on (its items are written to dataset_path by the job).",
    )
    dataset_path = models.CharField(
        max_length=500, help_text="The file the training process reads (OpenAI JSONL of the version's items)."
    )
    tool_mode = models.CharField(max_length=10, choices=ToolMode.choices, default=ToolMode.SANDBOX)
    overrides = models.JSONField(default=dict, blank=True, help_text='Dotted keys, e.g. {"grpo.steps": 50}.')
    config = models.JSONField(default=dict, help_text="The full config the training process reads.")
    output_dir = models.CharField(max_length=500, blank=True)
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

    class Meta(Run.Meta):
        verbose_name = "training run"

    def __str__(self) -> str:
        return f"Training run #{self.pk} ({self.preset}, {self.status})"

    @property
    def label(self) -> str:
        base = Path(self.base_model_path).name if self.base_model_path else "tiny"
        return self.name or f"{self.preset} · {base}"

    @property
    def data_label(self) -> str:
        """What the run trained on, for people: the version's name, else the export file."""
        return f"dataset version {self.dataset_version.name}" if self.dataset_version_id else self.dataset_path

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
