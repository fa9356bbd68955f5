"""The `site.diagnostics` job: checks the database, cache, queues, disk and the sweeper schedule."""

from __future__ import annotations

import secrets
import shutil
import tempfile
import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import caches
from django.db import connection, transaction
from django.utils import timezone

from kopa_site.jobs import DEFAULT_CLUSTER, SWEEP_SCHEDULE, JobContext, cluster_names, job_kind, redact
from kopa_site.models import Job
from kopa_site.roles import REVIEWER

MIN_FREE_BYTES = 1024**3
# A job still pending after this long means no worker is taking work from its queue.
QUEUE_STALL = timedelta(minutes=5)
SCHEDULE_LATE = timedelta(minutes=5)


class CheckFailed(Exception):
    pass


def check_database(ctx: JobContext) -> str:
    probe = f"diagnostics probe {secrets.token_hex(4)}"
    with transaction.atomic():
        Job.objects.filter(pk=ctx.job_id).update(progress_message=probe)
        read = Job.objects.filter(pk=ctx.job_id).values_list("progress_message", flat=True).first()
        transaction.set_rollback(True)
    if read != probe:
        raise CheckFailed(f"wrote {probe!r} but read back {read!r}")
    return f"{connection.vendor} {connection.settings_dict['NAME']}: write and read back in one transaction"


def check_cache(ctx: JobContext) -> str:
    cache = caches["default"]
    key, value = f"kopa:diagnostics:{ctx.job_id}", secrets.token_hex(8)
    cache.set(key, value, timeout=30)
    read = cache.get(key)
    cache.delete(key)
    if read != value:
        raise CheckFailed(f"set {value!r} but got {read!r}")
    backend = type(cache).__name__
    if backend == "LocMemCache":
        ctx.log("the cache is local to each process: the site and the workers do not share it", "warning")
        return f"{backend} (per process; set REDIS_URL to share it)"
    return f"{backend}: set, get and delete"


def check_queues(ctx: JobContext) -> str:
    from django_q.brokers import get_broker

    now = timezone.now()
    notes, stalled = [], []
    for name in cluster_names():
        queue_name = settings.Q_CLUSTER.get("name", DEFAULT_CLUSTER) if name == DEFAULT_CLUSTER else name
        size = get_broker(queue_name).queue_size()
        oldest = Job.objects.filter(cluster=name, status=Job.Status.PENDING).order_by("created_at").first()
        note = f"{name}: {size} queued"
        if oldest:
            waited = now - oldest.created_at
            note += f", oldest pending job #{oldest.pk} waiting {int(waited.total_seconds())} s"
            if waited > QUEUE_STALL:
                stalled.append(f"{name} (start it with: Q_CLUSTER_NAME={name} python manage.py qcluster)")
        notes.append(note)
    if stalled:
        raise CheckFailed("no worker is taking jobs from " + ", ".join(stalled) + "; " + "; ".join(notes))
    return f"broker {settings.QUEUE_BROKER}; " + "; ".join(notes)


def check_disk(ctx: JobContext) -> str:
    var_dir = settings.VAR_DIR
    with tempfile.NamedTemporaryFile(dir=var_dir, prefix=".diagnostics-") as handle:
        handle.write(b"ok")
        handle.flush()
    usage = shutil.disk_usage(var_dir)
    detail = f"{var_dir}: {usage.free / 1024**3:.1f} GiB free of {usage.total / 1024**3:.1f} GiB, writable"
    if usage.free < MIN_FREE_BYTES:
        raise CheckFailed(f"less than 1 GiB free: {detail}")
    return detail


def check_sweeper(ctx: JobContext) -> str:
    from django_q.models import Schedule

    schedule = Schedule.objects.filter(name=SWEEP_SCHEDULE).first()
    if schedule is None:
        raise CheckFailed("the stale-job sweeper is not scheduled; run: python manage.py setup_schedules")
    if schedule.next_run and schedule.next_run < timezone.now() - SCHEDULE_LATE:
        late = int((timezone.now() - schedule.next_run).total_seconds())
        raise CheckFailed(f"the sweeper is {late} s overdue: the default cluster's scheduler is not running")
    return f"scheduled every {schedule.minutes or 1} min; next run {timezone.localtime(schedule.next_run):%H:%M:%S}"


CHECKS = (
    ("database", check_database),
    ("cache", check_cache),
    ("queues", check_queues),
    ("disk", check_disk),
    ("sweeper", check_sweeper),
)


@job_kind("site.diagnostics", title="Site diagnostics", startable_by=REVIEWER)
def site_diagnostics(ctx: JobContext) -> dict:
    """Site diagnostics: database write/read, cache, queue backlog per cluster, disk under var/, sweeper."""
    results = []
    for done, (name, check) in enumerate(CHECKS):
        ctx.progress(done, len(CHECKS), f"checking {name}")
        ctx.check_cancelled()
        started = time.monotonic()
        try:
            detail, ok = check(ctx), True
        except CheckFailed as exc:
            detail, ok = str(exc), False
        except Exception as exc:
            detail, ok = f"{type(exc).__name__}: {exc}", False
        detail = redact(detail)
        elapsed_ms = round((time.monotonic() - started) * 1000, 1)
        ctx.log(f"{name}: {'ok' if ok else 'FAILED'} - {detail}", "info" if ok else "error")
        results.append({"name": name, "ok": ok, "detail": detail, "ms": elapsed_ms})
    passed = sum(item["ok"] for item in results)
    ctx.progress(len(CHECKS), len(CHECKS), f"{passed} of {len(CHECKS)} checks passed")
    return {"ok": passed == len(CHECKS), "checks": results}
