"""Synthesized trajectories, the runs that made them, and each trajectory's steps and calls.

A SynthesisRun walks a graph snapshot, executes every walk through the catalog's executor and keeps the ones that
pass the quality filters as `pending review`; a trajectory that fails a filter is kept as `filtered`, with every
stage's result, so a reviewer can see why. A walk discarded while executing (a failed call, nothing to bind) is
not stored: its reason is counted on the run. Each call points at the ApiCall it left, each trajectory at the
verified edges it used.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class SynthesisRun(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        FAILED = "failed", "failed"
        STOPPED = "stopped", "stopped"

    job = models.ForeignKey(
        "kopa_site.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The latest job."
    )
    snapshot = models.ForeignKey(
        "graphs.GraphSnapshot", null=True, blank=True, on_delete=models.SET_NULL, related_name="synthesis_runs"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    params = models.JSONField(
        default=dict, help_text="count, lengths, strategy, junctions, seed, mode ... (RUN_DEFAULTS)."
    )
    counters = models.JSONField(
        default=dict, blank=True, help_text="Walks tried, kept, filtered, duplicates, calls, discards per reason."
    )
    diversity = models.JSONField(
        default=dict, blank=True, help_text="Tools, providers, junctions, lengths of kept items."
    )
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Synthesis run #{self.pk} ({self.status})"


class Trajectory(models.Model):
    class Status(models.TextChoices):
        PENDING_REVIEW = "pending_review", "pending review"
        APPROVED = "approved", "approved"
        REJECTED = "rejected", "rejected"
        FILTERED = "filtered", "failed filters"

    class Generator(models.TextChoices):
        TEMPLATE = "template", "templates"
        LLM = "llm", "LLM"

    run = models.ForeignKey(SynthesisRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="trajectories")
    snapshot = models.ForeignKey(
        "graphs.GraphSnapshot", null=True, blank=True, on_delete=models.SET_NULL, related_name="trajectories"
    )
    attempt = models.PositiveIntegerField(default=0, help_text="The walk's number within its run.")
    request = models.TextField(help_text="The Korean user request.")
    answer = models.TextField(help_text="The answer, from the observations.")
    short_answer = models.CharField(max_length=500, blank=True, help_text='The answer in a few words ("정답:" line).')
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING_REVIEW, db_index=True)
    template_id = models.CharField(max_length=16, db_index=True, help_text="Hash of the chain template.")
    template = models.TextField(help_text="The chain without values: tools, junctions, bindings, answer.")
    junctions = models.JSONField(default=list, help_text="Junction types in step order.")
    junction_tags = models.CharField(max_length=200, blank=True, db_index=True, help_text='",SEQ,FAN," for filtering.')
    length = models.PositiveSmallIntegerField(default=1, db_index=True, help_text="Steps executed.")
    tool_names = models.JSONField(default=list)
    tool_tags = models.TextField(blank=True, help_text='",tool_a,tool_b," for filtering.')
    providers = models.JSONField(default=list)
    provider_tags = models.TextField(blank=True)
    plan = models.JSONField(default=dict, help_text="The walk's plan (graphs.engine.walk.Plan).")
    facts = models.JSONField(
        default=dict, help_text="Entry values, selectors, values passed between calls, answer values."
    )
    named = models.JSONField(default=list, help_text="Per value the request must name, the ways it may be written.")
    units = models.JSONField(default=dict, blank=True, help_text="Field -> unit, for reading numbers in answers.")
    schemas = models.JSONField(default=list, help_text="OpenAI function schemas of the tools used.")
    aliases = models.JSONField(default=dict, blank=True, help_text="Function -> {schema parameter: original name}.")
    clock = models.CharField(max_length=40, blank=True, help_text="The (sandbox) time the calls ran at.")
    mode = models.CharField(max_length=10, blank=True, help_text="Executor mode: sandbox, live, replay, record.")
    generator = models.CharField(max_length=10, choices=Generator.choices, default=Generator.TEMPLATE, db_index=True)
    generator_model = models.CharField(max_length=200, blank=True)
    generator_note = models.CharField(max_length=500, blank=True, help_text="Why the templates stood in for the LLM.")
    filters = models.JSONField(default=dict, help_text="format, execution and semantic results with their problems.")
    failed_stage = models.CharField(max_length=10, blank=True, db_index=True)
    dedupe_key = models.CharField(max_length=64, db_index=True)
    edges = models.ManyToManyField("graphs.CandidateEdge", blank=True, related_name="trajectories")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "trajectories"
        indexes = [models.Index(fields=["status", "created_at"], name="trajectory_status_created")]

    def __str__(self) -> str:
        return f"Trajectory #{self.pk} ({self.length} steps, {self.status})"

    @property
    def status_badge(self) -> str:
        """The site's badge colour class for the status."""
        return {
            self.Status.PENDING_REVIEW: "pending",
            self.Status.APPROVED: "succeeded",
            self.Status.REJECTED: "failed",
            self.Status.FILTERED: "cancelled",
        }.get(self.status, "pending")


class TrajectoryStep(models.Model):
    """One step of the walk: a tool, how its parent fed it, and what was picked, tested or compared."""

    trajectory = models.ForeignKey(Trajectory, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveSmallIntegerField()
    parent = models.PositiveSmallIntegerField(null=True, blank=True)
    tool = models.ForeignKey("apis.Tool", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    tool_name = models.CharField(max_length=64)
    junction = models.CharField(max_length=4, blank=True)
    branch = models.CharField(max_length=4, blank=True)
    executed = models.BooleanField(default=True)
    links = models.JSONField(
        default=list, help_text="The verified bindings from the parent: fields, params, transform, edge."
    )
    picks = models.JSONField(default=list, help_text="How the parent's record(s) were chosen.")
    condition = models.JSONField(null=True, blank=True)
    comparison = models.JSONField(null=True, blank=True)
    answer = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["trajectory_id", "index"]
        constraints = [models.UniqueConstraint(fields=["trajectory", "index"], name="trajectory_step_unique_index")]

    def __str__(self) -> str:
        return f"{self.trajectory_id}/{self.index} {self.tool_name}"


class TrajectoryCall(models.Model):
    """One executed call: arguments, the bindings that produced them, the observation, and its ApiCall."""

    trajectory = models.ForeignKey(Trajectory, on_delete=models.CASCADE, related_name="calls")
    step = models.ForeignKey(TrajectoryStep, on_delete=models.CASCADE, related_name="calls")
    seq = models.PositiveSmallIntegerField()
    round = models.PositiveSmallIntegerField(help_text="Calls of one round can be made at once (one assistant turn).")
    page = models.PositiveSmallIntegerField(null=True, blank=True)
    branch = models.CharField(max_length=8, blank=True)
    tool_name = models.CharField(max_length=64)
    arguments = models.JSONField(default=dict)
    bindings = models.JSONField(default=list, help_text="Per argument: where its value came from.")
    observation = models.JSONField(default=dict, help_text="ok, totals, page and the records as a model sees them.")
    ok = models.BooleanField(default=False)
    latency_ms = models.FloatField(default=0.0)
    api_call = models.ForeignKey("apis.ApiCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["trajectory_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["trajectory", "seq"], name="trajectory_call_unique_seq")]

    def __str__(self) -> str:
        return f"{self.trajectory_id}#{self.seq} {self.tool_name}"
