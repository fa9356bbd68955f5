"""The job lifecycle through real `manage.py qcluster` processes on the test database and broker.

Runs on whatever the settings use: SQLite + the ORM broker by default, or PostgreSQL + Redis when
DATABASE_URL and REDIS_URL are set.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django_q.brokers import get_broker
from django_q.conf import Conf

from kopa_site.jobs import job_cancel, job_start, jobs_sweep_stale
from kopa_site.models import Job
from tests.support.db import child_database_url
from tests.support.users import make_user

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HEARTBEAT_INTERVAL = 0.2
WAIT = 45.0


@contextmanager
def qcluster(name: str | None = None):
    """A `manage.py qcluster` subprocess (its own process group) on the test database."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kopa_site.settings_test",
        "KOPA_Q_SYNC": "0",
        "DATABASE_URL": child_database_url(),
        "KOPA_WORKERS": "1",
        "KOPA_JOB_HEARTBEAT_INTERVAL": str(HEARTBEAT_INTERVAL),
        "KOPA_JOB_MODULES": "tests.support.jobs",
    }
    env.pop("Q_CLUSTER_NAME", None)
    if name:
        env["Q_CLUSTER_NAME"] = name
    log = tempfile.NamedTemporaryFile("w+", prefix="qcluster-", suffix=".log", delete=False)  # noqa: SIM115
    # `timeout` is a backstop: the cluster ends even if this test process is killed before `finally`.
    proc = subprocess.Popen(
        ["timeout", "-k", "5", "300", sys.executable, "manage.py", "qcluster"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    proc.log_path = Path(log.name)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()
        proc.log_path.unlink(missing_ok=True)


def wait_for(job: Job, condition: Callable[[Job], bool], what: str, cluster, timeout: float = WAIT) -> Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if condition(job):
            return job
        time.sleep(0.05)
    output = cluster.log_path.read_text()[-3000:]
    pytest.fail(f"job #{job.pk} never became {what}: status={job.status} error={job.error!r}\ncluster:\n{output}")


@pytest.fixture
def real_queue(monkeypatch):
    """Enqueue to the broker for real (the test settings otherwise run tasks inline), on an empty queue."""
    monkeypatch.setattr(Conf, "SYNC", False)
    for name in ("default", "gpu"):
        get_broker(name).purge_queue()
    yield
    for name in ("default", "gpu"):
        get_broker(name).purge_queue()


def test_the_job_lifecycle_through_a_real_cluster(real_queue):
    reviewer = make_user("rita", "reviewer")
    with qcluster() as cluster:
        # start -> running with progress and a beating heart -> succeeded with the result
        started = time.monotonic()
        job = job_start(kind="test.steps", params={"steps": 6, "delay": 0.3}, user=reviewer)
        job = wait_for(job, lambda j: j.status == "running" and j.progress_done >= 1, "running with progress", cluster)
        pickup_seconds = time.monotonic() - started
        first_beat = job.heartbeat_at
        job = wait_for(job, lambda j: j.heartbeat_at > first_beat, "a later heartbeat", cluster, timeout=5)
        assert job.status == Job.Status.RUNNING and job.progress_total == 6
        job = wait_for(job, lambda j: j.is_finished, "finished", cluster)
        assert job.status == Job.Status.SUCCEEDED, job.error
        assert job.result == {"steps": 6}
        assert (job.progress_done, job.percent, job.attempts) == (6, 100, 1)

        # a failing kind stores the one-line error and the traceback from the worker process
        failing = job_start(kind="test.fail", params={"message": "sandbox down"})
        failing = wait_for(failing, lambda j: j.is_finished, "finished", cluster)
        assert failing.status == Job.Status.FAILED
        assert failing.error == "RuntimeError: sandbox down"
        assert "tests/support/jobs.py" in failing.traceback and "raise RuntimeError(message)" in failing.traceback

        # cancel a running job from here (another process): the worker stops it at its next check
        waiting = job_start(kind="test.wait_for_cancel", params={"seconds": 30})
        waiting = wait_for(waiting, lambda j: j.status == "running", "running", cluster)
        requested = time.monotonic()
        job_cancel(job=waiting, user=reviewer)
        waiting = wait_for(waiting, lambda j: j.is_finished, "finished", cluster, timeout=10)
        assert waiting.status == Job.Status.CANCELLED
        assert time.monotonic() - requested < 5
        assert waiting.cancelled_by == reviewer

        # the worker dies mid-job: the heartbeat stops and the sweeper fails the job, saying why
        hanging = job_start(kind="test.hang", params={"seconds": 60})
        hanging = wait_for(hanging, lambda j: j.status == "running", "running", cluster)
        beat = hanging.heartbeat_at
        hanging = wait_for(hanging, lambda j: j.heartbeat_at > beat, "a later heartbeat", cluster, timeout=5)
        assert jobs_sweep_stale(timeout=5) == []
        os.killpg(cluster.pid, signal.SIGKILL)
        cluster.wait()
        time.sleep(1.5)
        assert jobs_sweep_stale(timeout=1) == [hanging.pk]
        hanging.refresh_from_db()
        assert hanging.status == Job.Status.FAILED
        assert hanging.error.startswith("worker stopped: no heartbeat since ")
        assert hanging.error.endswith("(timeout 1 s)")
    print(f"\nqueue pickup: {pickup_seconds:.2f} s from job_start to running with progress")


def test_gpu_kinds_run_only_on_the_gpu_cluster(real_queue):
    with qcluster("gpu") as cluster:
        gpu_job = job_start(kind="test.gpu_echo")
        default_job = job_start(kind="test.steps", params={"steps": 1})
        gpu_job = wait_for(gpu_job, lambda j: j.is_finished, "finished", cluster)
        assert gpu_job.status == Job.Status.SUCCEEDED, gpu_job.error
        assert gpu_job.result == {"cluster": "gpu"}
        time.sleep(1.0)
        default_job.refresh_from_db()
        assert default_job.status == Job.Status.PENDING
