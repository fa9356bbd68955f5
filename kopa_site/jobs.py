"""Background jobs: the registry of job kinds, the runner a queue worker calls, and the job services.

A kind is a function `fn(ctx, **params) -> JSON result`, registered in an app's `jobs.py` (found
automatically) or in a module listed in KOPA_JOB_MODULES:

    @job_kind("edge.verify", startable_by=REVIEWER)
    def verify_edges(ctx: JobContext, edge_ids: list[int]) -> dict:
        for done, edge_id in enumerate(edge_ids, 1):
            ctx.check_cancelled()
            ...
            ctx.progress(done, len(edge_ids), f"edge {edge_id}")
        return {"verified": len(edge_ids)}

    job = job_start(kind="edge.verify", params={"edge_ids": [1, 2]}, user=request.user)

Every kind reports progress, logs, failure and cancellation through its `JobContext`, so pages and
the API show all background work the same way. django-q only carries the job id (kopa_site/tasks.py).
"""

from __future__ import annotations

import ctypes
import inspect
import json
import logging
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import traceback as traceback_module
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import import_module

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.db import DatabaseError, connections, transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.module_loading import autodiscover_modules

from kopa_site.errors import DomainError
from kopa_site.models import Job
from kopa_site.roles import REVIEWER, ROLES, has_role

logger = logging.getLogger(__name__)

DEFAULT_CLUSTER = "default"
LOG_LIMIT = 500
LOG_LINE_LIMIT = 2000
ERROR_LIMIT = 500
TRACEBACK_LIMIT = 20_000
# Progress and log writes are coalesced so a tight loop costs at most a couple of UPDATEs a second.
WRITE_INTERVAL = 0.5
CANCEL_POLL_INTERVAL = 1.0
LOG_LEVELS = ("debug", "info", "warning", "error")
BUILTIN_MODULES = ("kopa_site.diagnostics", "kopa_site.pipeline")
_KIND_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")


class JobError(DomainError):
    """A job request that cannot be carried out; the message says why, for the person who asked."""


class UnknownJobKind(JobError):
    pass


class JobParamsError(JobError):
    pass


class JobNotCancellable(JobError):
    status_code = 409


class JobResultError(JobError):
    pass


class JobCancelled(BaseException):
    """Raised inside a job to stop it.

    A BaseException, like asyncio.CancelledError, so a kind's `except Exception` cannot swallow it.
    """


# --- Redaction -----------------------------------------------------------------------------------

_SECRET_PAIR = re.compile(
    r"""(?ix)
    (?P<name>["']?\b[\w-]*(?:key|token|secret|password|passwd)\b["']?)   # serviceKey, crtfc_key, api_token
    (?P<sep>\s*[=:]\s*["']?)
    (?P<value>[^\s&"',;}<>]+)
    """
)
_AUTH_HEADER = re.compile(r"(?i)\b(authorization\s*[:=]\s*[\"']?)(bearer\s+|basic\s+|token\s+)?[^\s\"',;}]+")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]*:)[^\s@/]+@")


def redact(text: str) -> str:
    """The text with credential-looking values masked: job logs, errors and tracebacks are shown to users."""
    text = _URL_CREDENTIALS.sub(r"\1***@", text)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2) or ''}***", text)
    return _SECRET_PAIR.sub(lambda m: f"{m.group('name')}{m.group('sep')}***", text)


# --- Registry ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JobKind:
    name: str
    func: Callable
    cluster: str
    title: str
    description: str
    startable_by: str | None

    def param_names(self) -> list[str]:
        return list(inspect.signature(self.func).parameters)[1:]

    def required_params(self) -> list[str]:
        parameters = list(inspect.signature(self.func).parameters.values())[1:]
        return [p.name for p in parameters if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD]

    def check_params(self, params) -> dict:
        """The params as stored, or JobParamsError naming what is wrong."""
        if params is None:
            params = {}
        if not isinstance(params, dict) or not all(isinstance(key, str) for key in params):
            raise JobParamsError(f"{self.name}: params must be a JSON object with string keys")
        try:
            inspect.signature(self.func).bind(None, **params)
        except TypeError as exc:
            accepted = ", ".join(self.param_names()) or "no parameters"
            raise JobParamsError(f"{self.name}: {exc}; accepts {accepted}") from None
        try:
            return json.loads(json.dumps(params))
        except (TypeError, ValueError) as exc:
            raise JobParamsError(f"{self.name}: params must be JSON values ({exc})") from None


_registry: dict[str, JobKind] = {}
_discovered = False
_discover_lock = threading.Lock()


def cluster_names() -> list[str]:
    return [DEFAULT_CLUSTER, *settings.Q_CLUSTER.get("ALT_CLUSTERS", {})]


def job_kind(name: str, *, cluster: str = DEFAULT_CLUSTER, title: str = "", startable_by: str | None = None):
    """Register `fn(ctx, **params)` as a job kind.

    `cluster` picks the queue ("gpu" for the one-worker GPU cluster); `startable_by` is the least role
    that may start it by name from the jobs page or API (None: only code starts it).
    """
    if not _KIND_NAME.match(name):
        raise ImproperlyConfigured(f"job kind {name!r}: use dotted lower-case names such as 'edge.verify'")
    if cluster not in cluster_names():
        raise ImproperlyConfigured(f"job kind {name!r}: unknown cluster {cluster!r}; known: {cluster_names()}")
    if startable_by is not None and startable_by not in ROLES:
        raise ImproperlyConfigured(f"job kind {name!r}: startable_by must be one of {ROLES} or None")

    def register(func: Callable) -> Callable:
        existing = _registry.get(name)
        if existing and (existing.func.__module__, existing.func.__qualname__) != (func.__module__, func.__qualname__):
            raise ImproperlyConfigured(
                f"job kind {name!r} is registered twice: {existing.func.__module__}.{existing.func.__qualname__} "
                f"and {func.__module__}.{func.__qualname__}"
            )
        doc = inspect.getdoc(func) or ""
        first_line, _, rest = doc.partition("\n")
        _registry[name] = JobKind(
            name=name,
            func=func,
            cluster=cluster,
            title=title or first_line or name,
            # A docstring's first line that became the title is not repeated as the description.
            description=doc if title else rest.strip(),
            startable_by=startable_by,
        )
        return func

    return register


def _discover() -> None:
    """Import the modules that register kinds: built-ins, KOPA_JOB_MODULES and every app's jobs.py."""
    global _discovered
    if _discovered:
        return
    with _discover_lock:
        if _discovered:
            return
        for module in (*BUILTIN_MODULES, *getattr(settings, "KOPA_JOB_MODULES", [])):
            try:
                import_module(module)
            except ImportError as exc:
                raise ImproperlyConfigured(f"KOPA_JOB_MODULES: cannot import {module!r}: {exc}") from exc
        autodiscover_modules("jobs")
        _discovered = True


def job_kinds() -> dict[str, JobKind]:
    _discover()
    return dict(sorted(_registry.items()))


def get_kind(name: str) -> JobKind:
    _discover()
    try:
        return _registry[name]
    except KeyError:
        known = ", ".join(sorted(_registry)) or "none"
        raise UnknownJobKind(f"unknown job kind {name!r}; registered kinds: {known}") from None


def kinds_startable_by(user) -> list[JobKind]:
    return [kind for kind in job_kinds().values() if kind.startable_by and has_role(user, kind.startable_by)]


# --- The context a running job reports through -----------------------------------------------------


def _now_iso() -> str:
    return timezone.localtime().isoformat(timespec="seconds")


def _one_line(text: str, limit: int = ERROR_LIMIT) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class JobContext:
    """What a job kind sees: its params, and calls to report progress, log lines and check for cancel.

    `progress`, `log` and `check_cancelled` raise JobCancelled once the job was cancelled or is no
    longer running (the sweeper failed it); let it propagate.
    """

    def __init__(self, job: Job):
        self.job_id = job.pk
        self.kind = job.kind
        self.params = dict(job.params)
        self._done = job.progress_done
        self._total = job.progress_total
        self._message = job.progress_message
        self._log = list(job.log)
        self._dirty = False
        self._closed = False
        self._last_write = float("-inf")
        self._last_cancel_poll = float("-inf")  # the first check always asks the database

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        """Report `done` of `total` units; the total may stay unknown. Written at most twice a second."""
        if done < 0 or (total is not None and total < 0):
            raise ValueError(f"progress must not be negative (done={done}, total={total})")
        self._done = int(done)
        if total is not None:
            self._total = int(total)
        if message:
            self._message = _one_line(redact(message), 300)
        self._dirty = True
        self._write_if_due(force=total is not None and done >= total)

    def log(self, msg: str, level: str = "info") -> None:
        """Append a line to the job's log (the last LOG_LIMIT lines are kept). Warnings are written at once."""
        if level not in LOG_LEVELS:
            raise ValueError(f"log level must be one of {LOG_LEVELS}; got {level!r}")
        text = redact(str(msg))
        if len(text) > LOG_LINE_LIMIT:
            text = text[: LOG_LINE_LIMIT - 1] + "…"
        self._log.append({"t": _now_iso(), "level": level, "msg": text})
        del self._log[:-LOG_LIMIT]
        logger.log(logging.getLevelName(level.upper()), "job %s %s: %s", self.job_id, self.kind, text)
        self._dirty = True
        self._write_if_due(force=level in ("warning", "error"))

    def check_cancelled(self) -> None:
        """Raise JobCancelled when someone asked to cancel this job. Cheap enough to call in a loop."""
        self._write_if_due()
        if time.monotonic() - self._last_cancel_poll < CANCEL_POLL_INTERVAL:
            return
        self._last_cancel_poll = time.monotonic()
        row = Job.objects.filter(pk=self.job_id).values("status", "cancel_requested").first()
        if row is None or row["status"] != Job.Status.RUNNING:
            raise JobCancelled(f"the job is no longer running ({row['status'] if row else 'deleted'})")
        if row["cancel_requested"]:
            raise JobCancelled("cancel requested")

    def flush(self) -> None:
        """Write pending progress and log lines now."""
        if self._dirty and not self._closed:
            self._write()

    def close(self) -> None:
        """Stop writing: from here the runner stores the final state in one conditional UPDATE."""
        self._closed = True

    def state(self) -> dict:
        return {
            "progress_done": self._done,
            "progress_total": self._total,
            "progress_message": self._message,
            "log": self._log,
        }

    def _write_if_due(self, force: bool = False) -> None:
        if self._closed or not self._dirty:
            return
        if force or time.monotonic() - self._last_write >= WRITE_INTERVAL:
            self._write()

    def _write(self) -> None:
        updated = Job.objects.filter(pk=self.job_id, status=Job.Status.RUNNING).update(
            **self.state(), heartbeat_at=timezone.now()
        )
        self._dirty = False
        self._last_write = time.monotonic()
        if not updated:
            raise JobCancelled("the job is no longer running")

    def run_process(
        self,
        args: Sequence[str],
        *,
        cwd: str | os.PathLike | None = None,
        env: dict[str, str] | None = None,
        timeout: float | None = None,
        on_line: Callable[[str], None] | None = None,
        log_output: bool = True,
        check: bool = True,
    ) -> int:
        """Run a program in a fresh process, streaming its output into the log (and `on_line`).

        Cancelling the job or passing `timeout` seconds stops the process and everything it started.
        GPU kinds use this so the queue worker itself never imports torch or vllm.
        """
        args = [str(arg) for arg in args]
        self.log(f"$ {shlex.join(args)}")
        proc = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            bufsize=1,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        lines: queue.Queue[str | None] = queue.Queue()

        def read_output() -> None:
            for line in proc.stdout:
                lines.put(line.rstrip("\n"))
            lines.put(None)

        reader = threading.Thread(target=read_output, daemon=True, name=f"job-{self.job_id}-output")
        reader.start()
        deadline = time.monotonic() + timeout if timeout else None
        try:
            while True:
                try:
                    line = lines.get(timeout=0.2)
                except queue.Empty:
                    line = ""
                else:
                    if line is None:
                        break
                    if on_line:
                        on_line(line)
                    if log_output:
                        self.log(line)
                self.check_cancelled()
                if deadline and time.monotonic() > deadline:
                    raise JobError(f"{os.path.basename(args[0])} did not finish within {timeout:g} s")
            returncode = proc.wait()
        except BaseException:
            _stop_process_group(proc)
            raise
        finally:
            reader.join(timeout=5)
            proc.stdout.close()
        if check and returncode != 0:
            raise JobError(f"{os.path.basename(args[0])} exited with code {returncode}")
        return returncode


def _die_with_parent() -> None:
    """In the child: ask Linux to SIGTERM it when the worker dies, so a killed worker leaves no GPU process."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def _stop_process_group(proc: subprocess.Popen, grace: float = 10.0) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass


# --- The runner ----------------------------------------------------------------------------------


class _Heartbeat(threading.Thread):
    """Writes `heartbeat_at` every few seconds while the job's function runs, on its own connection."""

    def __init__(self, job_id: int, interval: float):
        super().__init__(daemon=True, name=f"job-{job_id}-heartbeat")
        self.job_id = job_id
        self.interval = interval
        self._halt = threading.Event()

    def run(self) -> None:
        try:
            while not self._halt.wait(self.interval):
                try:
                    Job.objects.filter(pk=self.job_id, status=Job.Status.RUNNING).update(heartbeat_at=timezone.now())
                except DatabaseError as exc:
                    logger.warning("job %s: heartbeat write failed: %s", self.job_id, redact(str(exc)))
        finally:
            connections.close_all()

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=self.interval + 5)


def _finish(job_id: int, ctx: JobContext | None, status: str, **fields) -> str:
    """Store the final state and return the job's status: a job the sweeper failed meanwhile stays failed."""
    now = timezone.now()
    state = ctx.state() if ctx else {}
    if Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        **state, **fields, status=status, finished_at=now, heartbeat_at=now
    ):
        return status
    return Job.objects.filter(pk=job_id).values_list("status", flat=True).first() or "deleted"


def job_run(*, job_id: int) -> str:
    """Run a pending job in this process and return its final status (or "skipped")."""
    now = timezone.now()
    claimed = Job.objects.filter(pk=job_id, status=Job.Status.PENDING).update(
        status=Job.Status.RUNNING, started_at=now, heartbeat_at=now, attempts=F("attempts") + 1
    )
    if not claimed:
        logger.info("job %s: not pending (already claimed, cancelled or deleted); skipping", job_id)
        return "skipped"
    job = Job.objects.get(pk=job_id)
    try:
        kind = get_kind(job.kind)
    except UnknownJobKind as exc:
        return _finish(job_id, None, Job.Status.FAILED, error=_one_line(str(exc)))

    ctx = JobContext(job)
    # Another connection cannot see rows of an open transaction (a test's, or a caller's atomic block);
    # there the job's own writes refresh the heartbeat instead.
    heartbeat = None
    if transaction.get_autocommit():
        heartbeat = _Heartbeat(job_id, settings.KOPA_JOB_HEARTBEAT_INTERVAL)
        heartbeat.start()
    try:
        try:
            result = kind.func(ctx, **job.params)
            _check_result(result)
        finally:
            if heartbeat:
                heartbeat.stop()
            ctx.close()
    except JobCancelled as exc:
        ctx.log(f"stopped: {exc}", "warning")
        return _finish(job_id, ctx, Job.Status.CANCELLED)
    except BaseException as exc:
        error = _one_line(redact(f"{type(exc).__name__}: {exc}"))
        trace = redact(traceback_module.format_exc())[-TRACEBACK_LIMIT:]
        ctx.log(error, "error")
        status = _finish(job_id, ctx, Job.Status.FAILED, error=error, traceback=trace)
        if not isinstance(exc, Exception):
            # SystemExit (django-q's timeout) and KeyboardInterrupt must still stop the worker.
            raise
        return status
    return _finish(job_id, ctx, Job.Status.SUCCEEDED, result=result)


def _check_result(result) -> None:
    try:
        json.dumps(result)
    except (TypeError, ValueError) as exc:
        raise JobResultError(f"the job returned a result that is not JSON: {exc}") from None


# --- Services ------------------------------------------------------------------------------------


def _enqueue(job_id: int, kind: JobKind) -> None:
    from django_q.tasks import async_task

    queue_name = settings.Q_CLUSTER.get("name", DEFAULT_CLUSTER) if kind.cluster == DEFAULT_CLUSTER else kind.cluster
    try:
        task_id = async_task(
            "kopa_site.tasks.run_job", job_id, cluster=queue_name, task_name=f"job-{job_id}-{kind.name}"[:100]
        )
    except Exception as exc:
        error = _one_line(redact(f"could not reach the queue: {type(exc).__name__}: {exc}"))
        logger.error("job %s: %s", job_id, error)
        Job.objects.filter(pk=job_id, status=Job.Status.PENDING).update(
            status=Job.Status.FAILED, error=error, finished_at=timezone.now()
        )
        return
    Job.objects.filter(pk=job_id).update(task_id=task_id or "")


def job_start(*, kind: str, params: dict | None = None, user=None) -> Job:
    """Create a pending job and queue it once the surrounding transaction commits."""
    job_kind_ = get_kind(kind)
    stored_params = job_kind_.check_params(params)
    job = Job.objects.create(
        kind=job_kind_.name,
        params=stored_params,
        cluster=job_kind_.cluster,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    transaction.on_commit(lambda: _enqueue(job.pk, job_kind_))
    job.refresh_from_db()
    return job


def _may_cancel(job: Job, user) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return has_role(user, REVIEWER) or (job.created_by_id is not None and job.created_by_id == user.pk)


def job_can_cancel(*, job: Job, user) -> bool:
    """Whether to offer a cancel button: reviewers and admins cancel any job, anyone their own."""
    return not job.is_finished and _may_cancel(job, user)


def job_cancel(*, job: Job, user) -> Job:
    """Cancel a pending job now, or ask a running one to stop at its next check."""
    if not _may_cancel(job, user):
        raise PermissionDenied("Only the job's owner, a reviewer or an admin can cancel it.")
    now = timezone.now()
    by = user.get_username()
    pending_line = {"t": _now_iso(), "level": "warning", "msg": f"cancelled by {by} before it started"}
    if Job.objects.filter(pk=job.pk, status=Job.Status.PENDING).update(
        status=Job.Status.CANCELLED,
        cancel_requested=True,
        cancelled_by=user,
        finished_at=now,
        log=[*job.log, pending_line][-LOG_LIMIT:],
    ):
        logger.info("job %s cancelled by %s before it started", job.pk, by)
    elif Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING, cancel_requested=False).update(
        cancel_requested=True, cancelled_by=user
    ):
        logger.info("job %s: cancel requested by %s", job.pk, by)
    job.refresh_from_db()
    if job.status in (Job.Status.SUCCEEDED, Job.Status.FAILED):
        raise JobNotCancellable(f"job #{job.pk} has already {job.status}; there is nothing to cancel")
    return job


def jobs_sweep_stale(*, now: datetime | None = None, timeout: int | None = None) -> list[int]:
    """Fail running jobs whose worker stopped beating; return their ids. Pending jobs are left alone."""
    now = now or timezone.now()
    timeout = settings.JOB_HEARTBEAT_TIMEOUT if timeout is None else timeout
    cutoff = now - timedelta(seconds=timeout)
    stale = (
        Job.objects.filter(status=Job.Status.RUNNING)
        .annotate(last_seen=Coalesce("heartbeat_at", "started_at", "created_at"))
        .filter(last_seen__lt=cutoff)
        .only("id", "log", "heartbeat_at", "started_at", "created_at")
    )
    swept = []
    for job in stale:
        since = timezone.localtime(job.last_seen).isoformat(timespec="seconds")
        error = f"worker stopped: no heartbeat since {since} (timeout {timeout} s)"
        line = {"t": _now_iso(), "level": "error", "msg": error}
        # The heartbeat in the filter makes a job that beat meanwhile lose this race, not its status.
        if Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING, heartbeat_at=job.heartbeat_at).update(
            status=Job.Status.FAILED, error=error, finished_at=now, log=[*job.log, line][-LOG_LIMIT:]
        ):
            logger.warning("job %s: %s", job.pk, error)
            swept.append(job.pk)
    return swept


# --- Periodic schedules --------------------------------------------------------------------------

SWEEP_SCHEDULE = "kopa: sweep stale jobs"
SCHEDULES = [{"name": SWEEP_SCHEDULE, "func": "kopa_site.tasks.sweep_stale_jobs", "schedule_type": "I", "minutes": 1}]


def schedule_register(*, name: str, func: str, minutes: int) -> None:
    """Add an app's periodic task (from its AppConfig.ready, so this app never imports the others);
    `setup_schedules` installs every registered one. Registering a name twice keeps the first."""
    if not any(spec["name"] == name for spec in SCHEDULES):
        SCHEDULES.append({"name": name, "func": func, "schedule_type": "I", "minutes": minutes})


def schedules_install() -> list[tuple[str, bool]]:
    """Create or update the site's django-q schedules by name; returns (name, created) pairs."""
    from django_q.models import Schedule

    installed = []
    for spec in SCHEDULES:
        defaults = {key: value for key, value in spec.items() if key != "name"}
        _, created = Schedule.objects.update_or_create(
            name=spec["name"], defaults={**defaults, "repeats": -1, "cluster": None}
        )
        installed.append((spec["name"], created))
    return installed
