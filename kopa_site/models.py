"""Cross-cutting models: `Job`, one row per piece of background work, read by pages and the API."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Job(models.Model):
    """A long piece of work run by a queue worker; the queue only carries this row's id."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")

    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    kind = models.CharField(max_length=100, help_text="Registered job kind, e.g. site.diagnostics.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    params = models.JSONField(default=dict, blank=True)
    cluster = models.CharField(max_length=40, default="default", help_text="Queue cluster that runs it.")
    task_id = models.CharField(max_length=64, blank=True, help_text="django-q task id, for operators.")
    attempts = models.PositiveIntegerField(default=0)

    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(null=True, blank=True)
    progress_message = models.CharField(max_length=300, blank=True)
    log = models.JSONField(default=list, blank=True, help_text="Last lines as {t, level, msg}.")
    cancel_requested = models.BooleanField(default=False)
    cancelled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    result = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True, help_text="One line; the traceback holds the rest.")
    traceback = models.TextField(blank=True)

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "kind"], name="job_status_kind"),
            models.Index(fields=["-created_at"], name="job_created"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=["pending", "running", "succeeded", "failed", "cancelled"]),
                name="job_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def percent(self) -> int | None:
        """Whole percent done, or None while the total is unknown."""
        if self.status == self.Status.SUCCEEDED:
            return 100
        if not self.progress_total:
            return None
        return max(0, min(100, int(100 * self.progress_done / self.progress_total)))

    @property
    def duration_seconds(self) -> float | None:
        if not self.started_at:
            return None
        end = self.finished_at or timezone.now()
        return round((end - self.started_at).total_seconds(), 1)


class RunStatus(models.TextChoices):
    """The one status set of every run model (synthesis, verification, evaluation, training)."""

    PENDING = "pending", _("pending")  # created or queued, its job not yet started
    RUNNING = "running", _("running")
    STOPPED = "stopped", _("stopped")  # cancelled or interrupted; the stored work stays
    FAILED = "failed", _("failed")  # ended on an error; `error` says why
    FINISHED = "finished", _("finished")


class Run(models.Model):
    """What every run shares: one status set, the latest job, parameters, counters, who and when.

    A subclass names itself in `noun` (messages and `__str__`) and lists in `TERMINAL` the statuses a new job
    may not continue from. Transitions are kopa_site.runs services, not direct updates.
    """

    Status = RunStatus
    noun = "run"
    TERMINAL: tuple[str, ...] = (RunStatus.FINISHED,)

    job = models.ForeignKey(
        "kopa_site.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The latest job."
    )
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.PENDING, db_index=True)
    params = models.JSONField(default=dict, blank=True)
    counters = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True, help_text="When its first job started.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values), name="%(app_label)s_%(class)s_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.noun[:1].upper()}{self.noun[1:]} #{self.pk} ({self.status})"

    def get_absolute_url(self) -> str:
        """The run's page: every app that has runs names its detail page `<app>:run`."""
        return reverse(f"{self._meta.app_label}:run", args=[self.pk])
