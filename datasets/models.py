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
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from kopa_site.models import Run


class SynthesisRun(Run):
    """params: count, lengths, strategy, junctions, seed, mode ... (RUN_DEFAULTS); counters: walks tried, kept,
    filtered, duplicates, calls, discards per reason. A run is never continued: a stopped one is started anew."""

    noun = "synthesis run"
    TERMINAL = (Run.Status.RUNNING, Run.Status.STOPPED, Run.Status.FAILED, Run.Status.FINISHED)

    snapshot = models.ForeignKey(
        "graphs.GraphSnapshot", null=True, blank=True, on_delete=models.SET_NULL, related_name="synthesis_runs"
    )
    diversity = models.JSONField(
        default=dict, blank=True, help_text="Tools, providers, junctions, lengths of kept items."
    )


class Trajectory(models.Model):
    class Status(models.TextChoices):
        PENDING_REVIEW = "pending_review", _("pending review")
        APPROVED = "approved", _("approved")
        REJECTED = "rejected", _("rejected")
        FILTERED = "filtered", _("failed filters")
        DISPUTED = "disputed", _("needs adjudication")

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
    # Review (datasets.review): the edit version for optimistic concurrency, the lease of the annotator who
    # holds the item, and how many annotators have decided on it so far (overlap).
    version = models.PositiveIntegerField(default=1, help_text="Raised by every edit; a stale edit is a conflict.")
    held_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    held_since = models.DateTimeField(null=True, blank=True)
    held_until = models.DateTimeField(null=True, blank=True, help_text="The lease ends; then the item returns.")
    decision_count = models.PositiveSmallIntegerField(default=0, help_text="Standing annotator decisions.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "trajectories"
        indexes = [
            models.Index(fields=["status", "created_at"], name="trajectory_status_created"),
            models.Index(fields=["status", "id"], name="trajectory_status_id"),
            models.Index(fields=["decision_count"], name="trajectory_decision_count"),
            # The lists' order (newest first) without sorting the whole table.
            models.Index(fields=["created_at", "id"], name="trajectory_created_id"),
        ]
        permissions = [("review_trajectory", "Adjudicate and bulk-review trajectories")]

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
            self.Status.DISPUTED: "running",
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


# --- Review: policy, decisions, revisions, frozen dataset versions ----------------------------------------


REJECT_REASONS = (
    ("unnatural_request", _("unnatural request")),
    ("incoherent_chain", _("incoherent chain")),
    ("wrong_binding", _("wrong binding")),
    ("unsupported_answer", _("unsupported answer")),
    ("duplicate", _("duplicate")),
    ("other", _("other")),
)


class ReviewPolicy(models.Model):
    """The one row of review settings admins edit: overlap, lease length and the annotation guidelines."""

    overlap = models.PositiveSmallIntegerField(
        default=1, help_text="Annotators who decide on each item; disagreement goes to a reviewer."
    )
    lease_minutes = models.PositiveSmallIntegerField(
        default=30, help_text="How long a claimed item stays with its annotator before it returns to the queue."
    )
    guidelines = models.TextField(blank=True, help_text="Markdown, shown on the guidelines page.")
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "review policy"

    def __str__(self) -> str:
        return f"Review policy (overlap {self.overlap}, lease {self.lease_minutes} min)"


class ReviewDecision(models.Model):
    """One decision on a trajectory: an annotator's, a reviewer's adjudication, or a bulk action's."""

    class Kind(models.TextChoices):
        ANNOTATION = "annotation", _("annotation")
        ADJUDICATION = "adjudication", _("adjudication")
        BULK = "bulk", _("bulk")

    class Decision(models.TextChoices):
        APPROVE = "approve", _("approve")
        REJECT = "reject", _("reject")

    trajectory = models.ForeignKey(Trajectory, on_delete=models.CASCADE, related_name="decisions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.ANNOTATION, db_index=True)
    decision = models.CharField(max_length=8, choices=Decision.choices)
    reason = models.CharField(max_length=20, choices=REJECT_REASONS, blank=True)
    note = models.TextField(blank=True)
    version = models.PositiveIntegerField(help_text="The trajectory version decided on.")
    previous_status = models.CharField(max_length=20, help_text="The trajectory's status before; undo returns to it.")
    seconds = models.FloatField(null=True, blank=True, help_text="From claiming the item to deciding.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    day = models.DateField(default=timezone.localdate, db_index=True, help_text="The local date, for per-day charts.")
    retracted_at = models.DateTimeField(null=True, blank=True, help_text="Set by undo; the decision no longer counts.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["trajectory", "user"],
                condition=models.Q(kind="annotation", retracted_at__isnull=True),
                name="review_one_standing_annotation",
            )
        ]
        indexes = [models.Index(fields=["user", "created_at"], name="review_decision_user_created")]

    def __str__(self) -> str:
        return f"{self.decision} #{self.trajectory_id} by {self.user_id} ({self.kind})"


class TrajectoryRevision(models.Model):
    """One change to a trajectory's content, with the whole content before and after (restore reads it)."""

    class Kind(models.TextChoices):
        EDIT = "edit", _("edit")
        REEXECUTE = "reexecute", _("re-execute")
        RESTORE = "restore", _("restore")
        UNDO = "undo", _("undo")

    trajectory = models.ForeignKey(Trajectory, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField(help_text="The trajectory version this change made.")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.EDIT)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    before = models.JSONField(help_text="request, answer, short_answer and calls before the change.")
    after = models.JSONField()
    note = models.CharField(max_length=500, blank=True)
    undone = models.BooleanField(default=False)

    class Meta:
        ordering = ["-version", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["trajectory", "version"], name="trajectory_revision_unique_version")
        ]

    def __str__(self) -> str:
        return f"#{self.trajectory_id} v{self.version} {self.kind}"


class FrozenError(Exception):
    """A frozen dataset version was asked to change."""


class DatasetVersion(models.Model):
    """A named, immutable set of approved trajectories, each frozen as it was; training reads its export."""

    name = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    filter = models.JSONField(default=dict, help_text="The list filter whose approved items were frozen.")
    item_count = models.PositiveIntegerField(default=0)
    checksum = models.CharField(max_length=64, help_text="sha256 of the frozen items, in id order.")
    datasheet = models.JSONField(default=dict, help_text="Providers, junctions, lengths, tools, agreement.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    export_job = models.ForeignKey("kopa_site.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    export_path = models.CharField(max_length=500, blank=True, help_text="The exported folder (OpenAI + HF).")
    exported_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("freeze_datasetversion", "Freeze dataset versions")]

    def __str__(self) -> str:
        return f"{self.name} ({self.item_count} items)"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise FrozenError(f"dataset version {self.name!r} is frozen; make a new version instead")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise FrozenError(f"dataset version {self.name!r} is frozen and cannot be deleted")


class DatasetVersionItem(models.Model):
    """One trajectory as it was frozen into a version (the export reads `item`, never the live row)."""

    version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="items")
    trajectory = models.ForeignKey(Trajectory, null=True, on_delete=models.SET_NULL, related_name="version_items")
    trajectory_version = models.PositiveIntegerField()
    item = models.JSONField(help_text="The trajectory as the exporters read it, at freezing time.")

    class Meta:
        ordering = ["version_id", "id"]

    def __str__(self) -> str:
        return f"{self.version_id}:{self.trajectory_id}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise FrozenError("a frozen dataset item cannot change")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise FrozenError("a frozen dataset item cannot be deleted")
