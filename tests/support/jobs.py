"""Job kinds that exist only for tests; settings_test lists this module in KOPA_JOB_MODULES."""

from __future__ import annotations

import contextlib
import sys
import time

from kopa_site.jobs import JobContext, job_kind
from kopa_site.models import Job
from kopa_site.roles import REVIEWER


@job_kind("test.steps", startable_by=REVIEWER)
def steps(ctx: JobContext, steps: int = 3, delay: float = 0.0) -> dict:
    """Count to `steps`, reporting progress after each one."""
    for done in range(steps):
        ctx.check_cancelled()
        ctx.log(f"step {done + 1} of {steps}")
        time.sleep(delay)
        ctx.progress(done + 1, steps, f"step {done + 1}")
    return {"steps": steps}


@job_kind("test.fail")
def fail(ctx: JobContext, message: str = "boom") -> None:
    """Report a step, then raise."""
    ctx.progress(1, 2, "about to fail")
    raise RuntimeError(message)


@job_kind("test.wait_for_cancel")
def wait_for_cancel(ctx: JobContext, seconds: float = 30.0) -> dict:
    """Poll for a cancel request for up to `seconds`."""
    started = time.monotonic()
    ticks = 0
    while time.monotonic() - started < seconds:
        ctx.check_cancelled()
        ticks += 1
        ctx.progress(ticks, message="waiting for cancel")
        time.sleep(0.05)
    return {"ticks": ticks}


@job_kind("test.cancel_self")
def cancel_self(ctx: JobContext) -> dict:
    """Ask for its own cancellation, as another request would, then keep checking."""
    Job.objects.filter(pk=ctx.job_id).update(cancel_requested=True)
    for _ in range(200):
        ctx.check_cancelled()
        time.sleep(0.01)
    return {"ignored": "cancel"}


@job_kind("test.swallow_errors")
def swallow_errors(ctx: JobContext) -> dict:
    """A careless kind that catches Exception around its cancel checks."""
    Job.objects.filter(pk=ctx.job_id).update(cancel_requested=True)
    for _ in range(200):
        with contextlib.suppress(Exception):
            ctx.check_cancelled()
        time.sleep(0.01)
    return {"ignored": "cancel"}


@job_kind("test.hang")
def hang(ctx: JobContext, seconds: float = 60.0) -> dict:
    """Run silently (only the heartbeat thread shows it is alive)."""
    ctx.progress(0, 1, "hanging")
    ctx.flush()
    time.sleep(seconds)
    return {"slept": seconds}


@job_kind("test.leak_secret")
def leak_secret(ctx: JobContext) -> None:
    """Fail with a service key in the log and the error, as a careless HTTP client would."""
    ctx.log("GET https://apis.data.go.kr/x?serviceKey=SEKRET123&pageNo=1")
    raise ValueError("401 for https://apis.data.go.kr/x?serviceKey=SEKRET123&pageNo=1")


@job_kind("test.bad_result")
def bad_result(ctx: JobContext) -> object:
    """Return something that cannot be stored as JSON."""
    return {"when": object()}


@job_kind("test.exit")
def exit_worker(ctx: JobContext) -> None:
    """Raise SystemExit, as django-q's timeout does inside a worker."""
    raise SystemExit("Task exceeded maximum timeout value (1 seconds)")


@job_kind("test.process")
def process(
    ctx: JobContext,
    lines: int = 3,
    exit_code: int = 0,
    sleep: float = 0.0,
    timeout: float | None = None,
    check: bool = False,
    request_cancel: bool = False,
) -> dict:
    """Run a child Python that prints its pid and `lines` lines, sleeps, and exits with `exit_code`."""
    seen = []

    def on_line(line: str) -> None:
        seen.append(line)
        if request_cancel:
            Job.objects.filter(pk=ctx.job_id).update(cancel_requested=True)

    code = (
        "import os, sys, time\n"
        "print(f'pid {os.getpid()}', flush=True)\n"
        f"for i in range({lines}):\n"
        "    print(f'line {i}', flush=True)\n"
        f"time.sleep({sleep})\n"
        f"sys.exit({exit_code})\n"
    )
    returncode = ctx.run_process([sys.executable, "-c", code], on_line=on_line, timeout=timeout, check=check)
    return {"returncode": returncode, "seen": seen}


@job_kind("test.gpu_echo", cluster="gpu")
def gpu_echo(ctx: JobContext) -> dict:
    """A kind routed to the one-worker gpu cluster; says which cluster ran it."""
    from django_q.conf import Conf

    return {"cluster": Conf.CLUSTER_NAME}


@job_kind("test.watch_heartbeat")
def watch_heartbeat(ctx: JobContext, seconds: float = 1.0) -> dict:
    """Stay silent for `seconds` and report the distinct heartbeats the database showed meanwhile."""
    seen = set()
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        seen.add(Job.objects.filter(pk=ctx.job_id).values_list("heartbeat_at", flat=True).get())
        time.sleep(0.02)
    return {"beats": len(seen)}


@job_kind("test.swept_meanwhile")
def swept_meanwhile(ctx: JobContext) -> dict:
    """Get swept as stale while running (a long stall), then finish as if nothing happened."""
    from datetime import timedelta

    from django.utils import timezone

    from kopa_site.jobs import jobs_sweep_stale

    jobs_sweep_stale(now=timezone.now() + timedelta(hours=1))
    return {"finished": True}
