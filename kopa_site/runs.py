"""The transitions every run goes through (kopa_site.models.Run): start a job for it, mark it running, stopped,
failed or finished. Each app's services call these with their own run model and error class."""

from __future__ import annotations

from typing import Any

from django.db.models import Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from kopa_site.models import Job, Run, RunStatus

ERROR_LIMIT = 2000  # characters kept of an error in a TextField; a CharField keeps its max_length


def run_check_startable(*, run: Run, error: type[Exception]) -> None:
    """Refuse (with `error`) a run in a terminal status, or one whose latest job is still queued or running."""
    if run.status in run.TERMINAL:
        verb = "is" if run.status in (RunStatus.PENDING, RunStatus.RUNNING) else "has"
        raise error(f"{run.noun} #{run.pk} {verb} {run.status}; start a new run")
    if run.job_id and not Job.objects.get(pk=run.job_id).is_finished:
        raise error(f"{run.noun} #{run.pk} already has job #{run.job_id} in progress")


def run_start(*, run: Run, kind: str, error: type[Exception], user=None, reset: bool = False) -> Job:
    """Queue a job of `kind` for the run (its first, or the continuation of a stopped one) and link it.

    `reset` puts the run back to pending with its error cleared first, for runs whose page reads the queued
    status before the job marks it running.
    """
    from kopa_site.jobs import job_start

    run_check_startable(run=run, error=error)
    model = type(run)
    if reset:
        model.objects.filter(pk=run.pk).update(status=RunStatus.PENDING, error="")
    job = job_start(kind=kind, params={"run_id": run.pk}, user=user)  # a sync queue runs it right here
    model.objects.filter(pk=run.pk).update(job=job)
    run.job = job
    return job


def run_mark_running(*, run: Run, only_from: tuple[str, ...] | None = None, **fields: Any) -> bool:
    """Mark the run running (keeping the time its first job started); with `only_from`, only a run in one of
    those statuses, and False when the run was in none of them (another worker took it)."""
    rows = type(run).objects.filter(pk=run.pk)
    if only_from is not None:
        rows = rows.filter(status__in=only_from)
    return bool(
        rows.update(status=RunStatus.RUNNING, started_at=Coalesce("started_at", Value(timezone.now())), **fields)
    )


def run_mark_stopped(*, run: Run, error: str = "", only_running: bool = False, **fields: Any) -> None:
    """Stopped: cancelled or interrupted with its work stored, so a new job may continue it."""
    rows = type(run).objects.filter(pk=run.pk)
    if only_running:
        rows = rows.filter(status=RunStatus.RUNNING)
    rows.update(status=RunStatus.STOPPED, error=_fit(run, error), **fields)


def run_mark_failed(*, run: Run, error: str, **fields: Any) -> None:
    """Failed: ended on an error, which the run keeps (cut to what its field holds)."""
    type(run).objects.filter(pk=run.pk).update(
        status=RunStatus.FAILED, error=_fit(run, error), finished_at=timezone.now(), **fields
    )


def run_mark_finished(*, run: Run, **fields: Any) -> None:
    type(run).objects.filter(pk=run.pk).update(status=RunStatus.FINISHED, finished_at=timezone.now(), **fields)


def _fit(run: Run, error: str) -> str:
    return error[: type(run)._meta.get_field("error").max_length or ERROR_LIMIT]
