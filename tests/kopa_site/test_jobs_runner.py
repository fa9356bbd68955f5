"""The job services and runner, with django-q in sync mode: start, progress, fail, cancel, sweep."""

from __future__ import annotations

import os
from datetime import timedelta
from unittest import mock

import pytest
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from kopa_site import jobs
from kopa_site.jobs import (
    LOG_LIMIT,
    JobContext,
    JobNotCancellable,
    JobParamsError,
    UnknownJobKind,
    job_cancel,
    job_kind,
    job_run,
    job_start,
    jobs_sweep_stale,
    redact,
)
from kopa_site.models import Job
from tests.support.users import make_role_users

pytestmark = pytest.mark.django_db


@pytest.fixture
def users():
    return make_role_users()


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    """Start a job and let the (sync) queue run it when the transaction commits."""

    def start_and_run(kind, user=None, **params):
        with django_capture_on_commit_callbacks(execute=True):
            job = job_start(kind=kind, params=params, user=user)
        job.refresh_from_db()
        return job

    return start_and_run


def _pending(kind="test.steps", user=None, **params):
    # Created through the service without leaving the test transaction, so nothing is enqueued.
    return job_start(kind=kind, params=params, user=user)


@pytest.mark.smoke
def test_it_runs_a_job_to_success_with_progress_log_and_result(run, users):
    job = run("test.steps", user=users.reviewer, steps=4)

    assert job.status == Job.Status.SUCCEEDED
    assert job.result == {"steps": 4}
    assert (job.progress_done, job.progress_total, job.percent) == (4, 4, 100)
    assert job.progress_message == "step 4"
    assert [line["msg"] for line in job.log] == [f"step {n} of 4" for n in range(1, 5)]
    assert job.created_by == users.reviewer
    assert job.started_at <= job.finished_at
    assert job.attempts == 1
    assert job.task_id
    assert job.error == "" and job.traceback == ""


def test_it_leaves_the_job_pending_until_the_transaction_commits(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = job_start(kind="test.steps")
    assert job.status == Job.Status.PENDING
    assert len(callbacks) == 1


@pytest.mark.smoke
def test_it_stores_a_one_line_error_and_the_full_traceback_when_a_job_fails(run):
    job = run("test.fail", message="the sandbox\nwent away")

    assert job.status == Job.Status.FAILED
    assert job.error == "RuntimeError: the sandbox went away"
    assert "Traceback (most recent call last)" in job.traceback
    assert "raise RuntimeError(message)" in job.traceback
    assert "tests/support/jobs.py" in job.traceback
    assert job.progress_message == "about to fail"
    assert job.log[-1] == {"t": job.log[-1]["t"], "level": "error", "msg": job.error}
    assert job.finished_at is not None
    assert job.result is None


def test_it_fails_with_a_clear_error_when_the_result_is_not_json(run):
    job = run("test.bad_result")

    assert job.status == Job.Status.FAILED
    assert job.error.startswith("JobResultError: the job returned a result that is not JSON")


def test_it_records_a_worker_exit_and_lets_it_stop_the_worker():
    job = _pending("test.exit")

    with pytest.raises(SystemExit):
        job_run(job_id=job.pk)

    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error == "SystemExit: Task exceeded maximum timeout value (1 seconds)"


def test_it_claims_a_job_only_once():
    job = _pending("test.steps", steps=1)

    assert job_run(job_id=job.pk) == Job.Status.SUCCEEDED
    assert job_run(job_id=job.pk) == "skipped"

    job.refresh_from_db()
    assert job.attempts == 1


def test_it_fails_a_job_whose_kind_is_no_longer_registered():
    job = Job.objects.create(kind="gone.away")

    assert job_run(job_id=job.pk) == Job.Status.FAILED

    job.refresh_from_db()
    assert job.error.startswith("unknown job kind 'gone.away'; registered kinds:")


def test_it_rejects_an_unknown_kind_naming_the_registered_ones():
    with pytest.raises(UnknownJobKind, match=r"unknown job kind 'edge\.nope'; registered kinds: .*site\.diagnostics"):
        job_start(kind="edge.nope")
    assert not Job.objects.exists()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"stepz": 3}, r"test\.steps: got an unexpected keyword argument 'stepz'; accepts steps, delay"),
        ({"steps": object()}, r"test\.steps: params must be JSON values"),
        (["steps"], r"test\.steps: params must be a JSON object"),
    ],
)
def test_it_rejects_params_the_kind_cannot_take(params, message):
    with pytest.raises(JobParamsError, match=message):
        job_start(kind="test.steps", params=params)
    assert not Job.objects.exists()


def test_it_marks_the_job_failed_when_the_queue_cannot_be_reached(django_capture_on_commit_callbacks):
    refused = ConnectionError("redis://:hunter2@queue:6379 refused")
    with (
        mock.patch("django_q.tasks.async_task", side_effect=refused),
        django_capture_on_commit_callbacks(execute=True),
    ):
        job = job_start(kind="test.steps")
    job.refresh_from_db()

    assert job.status == Job.Status.FAILED
    assert job.error == "could not reach the queue: ConnectionError: redis://:***@queue:6379 refused"


def test_it_sends_gpu_kinds_to_the_gpu_cluster_and_others_to_the_default_one(django_capture_on_commit_callbacks):
    with (
        mock.patch("django_q.tasks.async_task", return_value="task-1") as async_task,
        django_capture_on_commit_callbacks(execute=True),
    ):
        gpu_job = job_start(kind="test.gpu_echo")
        default_job = job_start(kind="test.steps")

    calls = {call.args[1]: call.kwargs for call in async_task.call_args_list}
    assert calls[gpu_job.pk]["cluster"] == "gpu"
    assert calls[default_job.pk]["cluster"] == "default"
    assert calls[gpu_job.pk]["task_name"] == f"job-{gpu_job.pk}-test.gpu_echo"
    assert async_task.call_args_list[0].args[0] == "kopa_site.tasks.run_job"
    gpu_job.refresh_from_db()
    assert (gpu_job.cluster, gpu_job.task_id) == ("gpu", "task-1")


# --- cancel --------------------------------------------------------------------------------------


@pytest.mark.smoke
def test_it_cancels_a_pending_job_at_once_and_the_worker_then_skips_it(users):
    job = _pending("test.steps", user=users.annotator)

    job = job_cancel(job=job, user=users.annotator)

    assert job.status == Job.Status.CANCELLED
    assert job.cancelled_by == users.annotator
    assert job.finished_at is not None
    assert job.log[-1]["msg"] == "cancelled by anna before it started"
    assert job_run(job_id=job.pk) == "skipped"


def test_it_asks_a_running_job_to_stop_and_keeps_it_running_until_it_checks(users):
    job = _pending("test.steps", user=users.annotator)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING)
    job.refresh_from_db()

    job = job_cancel(job=job, user=users.reviewer)

    assert (job.status, job.cancel_requested, job.cancelled_by) == (Job.Status.RUNNING, True, users.reviewer)


def test_it_stops_a_running_job_at_its_next_check(run):
    job = run("test.cancel_self")

    assert job.status == Job.Status.CANCELLED
    assert job.result is None
    assert job.log[-1]["msg"] == "stopped: cancel requested"


def test_it_stops_a_job_even_when_the_kind_catches_exception(run):
    job = run("test.swallow_errors")

    assert job.status == Job.Status.CANCELLED


def test_it_refuses_to_cancel_a_finished_job(run, users):
    job = run("test.steps", user=users.annotator, steps=1)

    with pytest.raises(JobNotCancellable, match=rf"job #{job.pk} has already succeeded"):
        job_cancel(job=job, user=users.annotator)


def test_it_lets_only_the_owner_or_a_reviewer_cancel(users):
    job = _pending("test.steps", user=users.annotator)

    for user in (users.other_annotator, users.outsider):
        with pytest.raises(PermissionDenied):
            job_cancel(job=job, user=user)
    job.refresh_from_db()
    assert job.status == Job.Status.PENDING

    assert job_cancel(job=job, user=users.admin).status == Job.Status.CANCELLED


# --- stale heartbeats ----------------------------------------------------------------------------


def _running(heartbeat_age: timedelta | None, **fields):
    now = timezone.now()
    job = Job.objects.create(
        kind="test.steps", status=Job.Status.RUNNING, started_at=now - timedelta(hours=1), **fields
    )
    heartbeat = None if heartbeat_age is None else now - heartbeat_age
    Job.objects.filter(pk=job.pk).update(heartbeat_at=heartbeat)
    job.refresh_from_db()
    return job


@pytest.mark.smoke
def test_it_fails_running_jobs_whose_heartbeat_stopped_and_says_why(settings):
    settings.JOB_HEARTBEAT_TIMEOUT = 120
    stale = _running(timedelta(seconds=300))
    fresh = _running(timedelta(seconds=10))
    never_beat = _running(None)
    old_pending = Job.objects.create(kind="test.steps")
    Job.objects.filter(pk=old_pending.pk).update(created_at=timezone.now() - timedelta(days=2))

    swept = jobs_sweep_stale()

    assert sorted(swept) == sorted([stale.pk, never_beat.pk])
    stale.refresh_from_db()
    since = timezone.localtime(stale.heartbeat_at).isoformat(timespec="seconds")
    assert stale.status == Job.Status.FAILED
    assert stale.error == f"worker stopped: no heartbeat since {since} (timeout 120 s)"
    assert stale.log[-1]["level"] == "error" and stale.log[-1]["msg"] == stale.error
    assert stale.finished_at is not None
    never_beat.refresh_from_db()
    assert "no heartbeat since" in never_beat.error
    fresh.refresh_from_db()
    assert fresh.status == Job.Status.RUNNING
    old_pending.refresh_from_db()
    assert old_pending.status == Job.Status.PENDING


def test_it_keeps_a_swept_job_failed_when_its_worker_finishes_late():
    job = _pending("test.swept_meanwhile")

    assert job_run(job_id=job.pk) == Job.Status.FAILED

    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("worker stopped: no heartbeat since")
    assert job.result is None


@pytest.mark.django_db(transaction=True)
def test_it_beats_from_a_thread_while_the_kind_is_silent(settings):
    settings.KOPA_JOB_HEARTBEAT_INTERVAL = 0.1
    job = Job.objects.create(kind="test.watch_heartbeat", params={"seconds": 0.6})

    assert job_run(job_id=job.pk) == Job.Status.SUCCEEDED

    job.refresh_from_db()
    # The claim writes the first heartbeat; the thread must have added at least two more.
    assert job.result["beats"] >= 3


# --- the context -------------------------------------------------------------------------------


def test_it_coalesces_progress_writes_in_a_tight_loop():
    job = _pending("test.steps", steps=2000)

    with CaptureQueriesContext(connection) as queries:
        assert job_run(job_id=job.pk) == Job.Status.SUCCEEDED

    writes = [q for q in queries.captured_queries if q["sql"].startswith("UPDATE") and "kopa_site_job" in q["sql"]]
    # Claim, a handful of throttled writes, the forced write at 2000/2000 and the final state.
    assert len(writes) <= 10, len(writes)
    job.refresh_from_db()
    assert (job.progress_done, len(job.log)) == (2000, LOG_LIMIT)
    assert job.log[-1]["msg"] == "step 2000 of 2000"
    assert job.log[0]["msg"] == f"step {2000 - LOG_LIMIT + 1} of 2000"


def test_it_rejects_a_bad_log_level_and_negative_progress():
    job = _pending("test.steps")
    ctx = JobContext(job)
    with pytest.raises(ValueError, match="log level must be one of"):
        ctx.log("x", level="loud")
    with pytest.raises(ValueError, match="must not be negative"):
        ctx.progress(-1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GET /x?serviceKey=abc%2Bdef==&pageNo=1", "GET /x?serviceKey=***&pageNo=1"),
        (
            "https://opendart.fss.or.kr/api/list.json?crtfc_key=0123abcd",
            "https://opendart.fss.or.kr/api/list.json?crtfc_key=***",
        ),
        ('{"api_key": "sk-12345", "q": "서울"}', '{"api_key": "***", "q": "서울"}'),
        ("Authorization: Bearer eyJhbGciOi.x.y", "Authorization: Bearer ***"),
        ("postgres://kopa:s3cret@db:5432/kopa", "postgres://kopa:***@db:5432/kopa"),
        ("password=hunter2 user=kopa", "password=*** user=kopa"),
        ("primary key 12 of 40 rows", "primary key 12 of 40 rows"),
    ],
)
def test_it_redacts_credentials_from_text_shown_to_users(text, expected):
    assert redact(text) == expected


def test_it_keeps_service_keys_out_of_the_log_error_and_traceback(run):
    job = run("test.leak_secret")

    stored = str([job.log, job.error, job.traceback])
    assert "SEKRET123" not in stored
    assert "serviceKey=***" in job.error


# --- run_process ---------------------------------------------------------------------------------


def test_it_streams_a_child_process_output_into_the_log(run):
    job = run("test.process", lines=3)

    assert job.status == Job.Status.SUCCEEDED
    assert job.result["returncode"] == 0
    assert job.result["seen"][1:] == ["line 0", "line 1", "line 2"]
    assert [line["msg"] for line in job.log[-3:]] == ["line 0", "line 1", "line 2"]


def test_it_fails_when_a_checked_child_process_exits_non_zero(run):
    job = run("test.process", lines=1, exit_code=3, check=True)

    assert job.status == Job.Status.FAILED
    assert job.error.endswith("exited with code 3")


def test_it_stops_a_child_process_that_outlives_its_timeout(run):
    job = run("test.process", lines=1, sleep=30, timeout=0.5)

    assert job.status == Job.Status.FAILED
    assert job.error.endswith("did not finish within 0.5 s")
    assert job.duration_seconds < 15


def test_it_kills_the_child_process_when_the_job_is_cancelled(run):
    job = run("test.process", lines=1, sleep=30, request_cancel=True)

    assert job.status == Job.Status.CANCELLED
    pid = int(next(line["msg"] for line in job.log if line["msg"].startswith("pid "))[4:])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


# --- registry ------------------------------------------------------------------------------------


def test_it_refuses_two_functions_under_one_kind_name():
    def impostor(ctx):
        return None

    with pytest.raises(ImproperlyConfigured, match="job kind 'test.steps' is registered twice"):
        job_kind("test.steps")(impostor)


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("Bad Name", {}, "use dotted lower-case names"),
        ("test.nowhere", {"cluster": "tpu"}, "unknown cluster 'tpu'"),
        ("test.nobody", {"startable_by": "intern"}, "startable_by must be one of"),
    ],
)
def test_it_rejects_malformed_kind_registrations(name, options, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        job_kind(name, **options)


def test_it_names_a_job_module_that_cannot_be_imported(settings, monkeypatch):
    settings.KOPA_JOB_MODULES = ["tests.support.no_such_module"]
    monkeypatch.setattr(jobs, "_discovered", False)

    with pytest.raises(ImproperlyConfigured, match="KOPA_JOB_MODULES: cannot import 'tests.support.no_such_module'"):
        jobs.job_kinds()


def test_it_reports_percent_only_when_the_total_is_known():
    assert Job(progress_done=3).percent is None
    assert Job(progress_done=1, progress_total=3).percent == 33
    assert Job(progress_done=9, progress_total=3).percent == 100
    assert Job(status=Job.Status.SUCCEEDED).percent == 100
