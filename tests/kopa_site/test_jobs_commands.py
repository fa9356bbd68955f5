"""The sweeper and schedule commands, the sweep task, and the built-in site.diagnostics kind."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from django_q.models import Schedule

from kopa_site.jobs import SWEEP_SCHEDULE, job_start
from kopa_site.models import Job
from kopa_site.tasks import sweep_stale_jobs

pytestmark = pytest.mark.django_db


def _running_since(seconds: int) -> Job:
    then = timezone.now() - timedelta(seconds=seconds)
    return Job.objects.create(kind="test.steps", status=Job.Status.RUNNING, started_at=then, heartbeat_at=then)


def call(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.smoke
def test_it_installs_the_sweeper_schedule_once(settings):
    assert f"created schedule: {SWEEP_SCHEDULE}\n" in call("setup_schedules")
    assert f"updated schedule: {SWEEP_SCHEDULE}\n" in call("setup_schedules")

    schedule = Schedule.objects.get(name=SWEEP_SCHEDULE)
    assert (schedule.name, schedule.func) == (SWEEP_SCHEDULE, "kopa_site.tasks.sweep_stale_jobs")
    assert (schedule.schedule_type, schedule.minutes, schedule.repeats) == (Schedule.MINUTES, 1, -1)
    # No cluster: the default cluster's scheduler runs it.
    assert schedule.cluster is None


def test_it_sweeps_stale_jobs_from_the_command_and_names_them(settings):
    settings.JOB_HEARTBEAT_TIMEOUT = 60
    stale = _running_since(600)
    fresh = _running_since(5)

    assert call("sweep_jobs") == f"marked 1 stale job(s) failed: #{stale.pk}\n"
    assert call("sweep_jobs") == "no stale jobs\n"
    assert call("sweep_jobs", "--timeout", "1") == f"marked 1 stale job(s) failed: #{fresh.pk}\n"
    stale.refresh_from_db()
    assert stale.error.endswith("(timeout 60 s)")


def test_it_refuses_a_timeout_below_one_second():
    with pytest.raises(CommandError, match="--timeout must be at least 1 second; got 0"):
        call("sweep_jobs", "--timeout", "0")


def test_the_scheduled_task_reports_what_it_swept(settings):
    settings.JOB_HEARTBEAT_TIMEOUT = 60
    stale = _running_since(600)

    assert sweep_stale_jobs() == f"marked 1 stale job(s) failed: [{stale.pk}]"
    assert sweep_stale_jobs() == "no stale jobs"


@pytest.mark.smoke
def test_diagnostics_pass_with_the_sweeper_scheduled(django_capture_on_commit_callbacks):
    call("setup_schedules")

    with django_capture_on_commit_callbacks(execute=True):
        job = job_start(kind="site.diagnostics")
    job.refresh_from_db()

    assert job.status == Job.Status.SUCCEEDED, job.traceback
    checks = {check["name"]: check for check in job.result["checks"]}
    assert list(checks) == ["database", "cache", "queues", "disk", "sweeper"]
    assert all(check["ok"] for check in checks.values()), checks
    assert job.result["ok"] is True
    assert (job.progress_done, job.progress_total) == (5, 5)
    assert job.progress_message == "5 of 5 checks passed"
    assert "write and read back" in checks["database"]["detail"]
    assert "default: " in checks["queues"]["detail"] and "gpu: " in checks["queues"]["detail"]


def test_diagnostics_say_what_to_run_when_something_is_missing(django_capture_on_commit_callbacks):
    stuck = Job.objects.create(kind="test.gpu_echo", cluster="gpu")
    Job.objects.filter(pk=stuck.pk).update(created_at=timezone.now() - timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        job = job_start(kind="site.diagnostics")
    job.refresh_from_db()

    checks = {check["name"]: check for check in job.result["checks"]}
    assert job.result["ok"] is False
    assert job.progress_message == "3 of 5 checks passed"
    assert "run: python manage.py setup_schedules" in checks["sweeper"]["detail"]
    assert "Q_CLUSTER_NAME=gpu python manage.py qcluster" in checks["queues"]["detail"]
    assert [line["level"] for line in job.log if line["msg"].startswith(("sweeper", "queues"))] == ["error", "error"]
