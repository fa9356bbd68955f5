"""Writes of KOPA-Bench: load task files into rows, register models, create, run and resume evaluation runs.

An evaluation runs the engine's agent loop (benchmarks.engine.runner.run_tasks) over the run's (task, seed)
episodes with the Django tool environment, so every call leaves an ApiCall. Each finished episode is scored
and stored as a TaskResult at once; a run stopped half-way (cancel, crash) resumes by running only the
episodes it has no TaskResult for, and the unique (run, task, seed) constraint keeps a result from being
stored twice. The transformers backend runs in a fresh process (`manage.py bench_run --run ID`) so the queue
worker never imports torch.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shlex
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from apis.models import ApiCall, Tool
from apis.services import CatalogError, outbound_check_url
from benchmarks.engine import bfcl
from benchmarks.engine.accounting import percentile
from benchmarks.engine.backends.base import Backend, SamplingParams
from benchmarks.engine.codec import episode_score_from_dict
from benchmarks.engine.leaderboard import digest as board_digest
from benchmarks.engine.leaderboard import score_of
from benchmarks.engine.metrics import aggregate, score_episode
from benchmarks.engine.runner import STOP_BACKEND_ERROR, EpisodeResult, RunConfig, run_tasks
from benchmarks.engine.task import TaskFileError, load_tasks, tasks_checksum
from benchmarks.environment import (
    CallLedger,
    TurnTaggingBackend,
    catalog_load,
    django_environment_factory,
    missing_tools,
)
from benchmarks.models import DOMAIN_PREFIX, Benchmark, EvalRun, ModelEntry, Task, TaskResult
from kopa_site.concurrency import StaleEdit, save_changed
from kopa_site.env import env_str
from kopa_site.errors import DomainError
from kopa_site.models import Job
from kopa_site.progress import QuietReporter, Reporter
from kopa_site.runs import (
    run_check_startable,
    run_mark_failed,
    run_mark_finished,
    run_mark_running,
    run_mark_stopped,
    run_start,
)

logger = logging.getLogger(__name__)

TASK_DIR = Path(settings.BASE_DIR) / "benchmarks" / "tasks"
MAX_SEEDS = 16
MAX_CONCURRENCY = 64
MAX_STEPS = 50
PASS_KS = (1, 2, 4, 8)
PROGRESS_PREFIX = "bench-progress "  # a progress line of `bench_run --progress-lines`, read by the job
RUN_DEFAULTS: dict[str, Any] = {
    "seeds": [0],
    "concurrency": 8,
    "max_steps": 8,
    "tool_mode": EvalRun.ToolMode.SANDBOX,
    "sampling": {"temperature": 0.0, "top_p": 1.0, "max_tokens": 1024},
    "episode_timeout_s": None,
}


class BenchError(DomainError):
    """A benchmark request that cannot be carried out; the message says why and what to do."""


class BenchConflict(BenchError):
    """An edit made on a version that someone else has since changed; nothing was saved (pages and the API answer
    409)."""

    status_code = 409


# --- Tasks ---------------------------------------------------------------------------------------------


@dataclass
class TaskSyncReport:
    """What a sync changed, by task code; `checksum` and `data_versions` describe the files as loaded."""

    files: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    checksum: str = ""
    data_versions: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated or self.restored or self.retired)

    def summary(self) -> str:
        return (
            f"{len(self.files)} file(s): {len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.restored)} restored, {len(self.retired)} retired, {len(self.unchanged)} unchanged"
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _display_path(path: Path | str) -> str:
    """A path relative to the project when inside it (what rows store), else absolute."""
    resolved = Path(path).resolve()
    try:
        return str(resolved.relative_to(Path(settings.BASE_DIR).resolve()))
    except ValueError:
        return str(resolved)


def _task_fields(task, *, file: str, data_version: str) -> dict[str, Any]:
    data = task.to_dict()
    domains = [c[len(DOMAIN_PREFIX) :] for c in task.categories if c.startswith(DOMAIN_PREFIX)]
    return {
        "request": task.request,
        "tools": data["tools"],
        "toolset": task.toolset,
        "gold": data["calls"],
        "answer": data["answer"],
        "categories": list(task.categories),
        "category_index": "|" + "|".join(task.categories) + "|",
        "domain": domains[0] if domains else "",
        "difficulty": task.difficulty,
        "clock": task.clock,
        "ignore_args": list(task.ignore_args),
        "notes": task.notes,
        "gold_calls": task.gold_call_count,
        "data_version": data_version,
        "file": file,
        "source": f"{file}#{task.source.partition('#')[2]}",
        "checksum": tasks_checksum([task]),
    }


def tasks_sync(*, paths: str | Path | Iterable[str | Path], check_catalog: bool = True) -> TaskSyncReport:
    """Create, update, restore and retire Task rows so they match the task files under `paths`.

    Every file is validated first (against the active catalog's function names when check_catalog); any
    problem raises BenchError listing all of them and nothing is written. Tasks whose file lies under
    `paths` but that no file holds any more are retired (kept, with their results, but not run again).
    Running it twice on the same files changes nothing the second time.
    """
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    catalog = None
    if check_catalog:
        catalog = set(Tool.objects.filter(is_active=True).values_list("function_name", flat=True))
        if not catalog:
            raise BenchError("the tool catalog is empty; import it first (manage.py catalog_import --bundled)")
    try:
        taskset = load_tasks(items, catalog=catalog)
    except TaskFileError as error:
        raise BenchError(str(error)) from None

    report = TaskSyncReport(checksum=taskset.checksum)
    report.data_versions = {_display_path(f): v for f, v in taskset.data_versions.items()}
    report.files = sorted(report.data_versions)
    scopes = [_display_path(p) for p in items]
    now = timezone.now()
    with transaction.atomic():
        existing = {row.code: row for row in Task.objects.filter(benchmark=Benchmark.KOPA).select_for_update()}
        for task in taskset:
            file = _display_path(task.source.partition("#")[0])
            fields = _task_fields(task, file=file, data_version=taskset.data_versions[task.source.partition("#")[0]])
            row = existing.get(task.id)
            if row is None:
                Task.objects.create(code=task.id, **fields)
                report.created.append(task.id)
                continue
            changes = {name: value for name, value in fields.items() if getattr(row, name) != value}
            if not row.is_active:
                changes.update(is_active=True, retired_at=None)
                report.restored.append(task.id)
            elif changes:
                report.updated.append(task.id)
            else:
                report.unchanged.append(task.id)
                continue
            for name, value in changes.items():
                setattr(row, name, value)
            row.save(update_fields=[*changes, "updated_at"])
        loaded = {task.id for task in taskset}
        for code, row in existing.items():
            inside = any(row.file == scope or row.file.startswith(scope.rstrip("/") + "/") for scope in scopes)
            if row.is_active and code not in loaded and inside:
                Task.objects.filter(pk=row.pk).update(is_active=False, retired_at=now, updated_at=now)
                report.retired.append(code)
    logger.info("tasks_sync %s: %s", ", ".join(scopes), report.summary())
    return report


def task_files(path: Path = TASK_DIR) -> list[Path]:
    if not path.is_dir():
        return []
    return sorted(p for p in path.rglob("*") if p.suffix in (".json", ".yaml", ".yml"))


# --- Models --------------------------------------------------------------------------------------------

_MODEL_FIELDS = {f.name for f in ModelEntry._meta.get_fields() if f.concrete} - {
    "id",
    "created_at",
    "updated_at",
    "created_by",
}


def model_runnable_check(entry: ModelEntry) -> None:
    """Refuse a model the runner cannot reach: every backend but the oracle needs an endpoint or a checkpoint."""
    if entry.backend == ModelEntry.Backend.ORACLE:
        return
    if not (entry.base_url or entry.checkpoint):
        raise BenchError(
            f"model {entry.name!r} has neither an endpoint (base_url) nor a checkpoint, so no run can reach it; "
            "give it one on its page (/bench/models/) first"
        )
    if entry.backend == ModelEntry.Backend.TRANSFORMERS and not entry.checkpoint:
        raise BenchError(f"model {entry.name!r} uses the transformers backend, which needs a checkpoint folder")


def model_entry_check(entry: ModelEntry) -> None:
    if entry.backend not in ModelEntry.Backend.values:
        raise BenchError(f"backend must be one of {', '.join(ModelEntry.Backend.values)}")
    if entry.backend == ModelEntry.Backend.OPENAI and not (entry.base_url or entry.checkpoint):
        raise BenchError("an openai model needs a base_url (an endpoint ending in /v1) or a checkpoint for vLLM")
    if entry.backend == ModelEntry.Backend.TRANSFORMERS and not entry.checkpoint:
        raise BenchError("a transformers model needs a checkpoint folder")
    if not (entry.name or "").strip():
        raise BenchError("name: a model needs a name")
    if entry.base_model_id is not None and entry.pk is not None:
        seen, current = {entry.pk}, entry.base_model
        while current is not None:
            if current.pk in seen:
                raise BenchError("base_model: a model cannot be (a base of) its own base model")
            seen.add(current.pk)
            current = current.base_model
    model_endpoint_check(entry.base_url, entry.api_key_env)
    try:
        entry.full_clean()
    except ValidationError as error:
        problems = "; ".join(f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items())
        raise BenchError(problems) from None


MODEL_KEY_PREFIX = "KOPA_MODEL_KEY_"


def model_endpoint_check(base_url: str, api_key_env: str) -> None:
    """An endpoint's key comes only from a KOPA_MODEL_KEY_* variable (never HOME, SECRET_KEY or any other
    variable the runner would send as a bearer token), and its URL follows the outbound rules of spec
    imports: http(s) to a public address or one the operator allowed (KOPA_OUTBOUND_ALLOW)."""
    if api_key_env and not re.fullmatch(rf"{MODEL_KEY_PREFIX}[A-Z0-9_]+", api_key_env):
        raise BenchError(
            f"api_key_env is the name of an environment variable starting with {MODEL_KEY_PREFIX} "
            f"(e.g. {MODEL_KEY_PREFIX}OPENAI), not the key; no other variable is ever read"
        )
    if base_url:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise BenchError("base_url is an http(s) endpoint such as http://gpu:8000/v1")
        try:
            outbound_check_url(base_url)
        except CatalogError as error:
            raise BenchError(f"base_url: {error}") from None


def model_entry_create(*, name: str, user=None, **fields) -> ModelEntry:
    """Register a model; unknown fields and a backend without its endpoint are refused."""
    unknown = set(fields) - _MODEL_FIELDS
    if unknown:
        raise BenchError(f"unknown model field(s): {', '.join(sorted(unknown))}")
    if ModelEntry.objects.filter(name=name).exists():
        raise BenchError(f"a model named {name!r} already exists")
    entry = ModelEntry(name=name, created_by=user if getattr(user, "is_authenticated", False) else None, **fields)
    model_entry_check(entry)
    entry.save()
    return entry


def model_entry_update(*, entry: ModelEntry, expected_version=None, **fields) -> ModelEntry:
    """Change the given fields only, so two people editing different fields at once both keep their change;
    with expected_version (the `updated_at` the editor read) an edit made on stale data is refused."""
    unknown = set(fields) - _MODEL_FIELDS
    if unknown:
        raise BenchError(f"unknown model field(s): {', '.join(sorted(unknown))}")
    for name, value in fields.items():
        setattr(entry, name, value)
    model_entry_check(entry)
    try:
        return save_changed(entry, fields, expected_version=expected_version)
    except StaleEdit as error:
        raise BenchConflict(f"{error}; reload it to see their change, then make yours again") from None


# --- Runs ----------------------------------------------------------------------------------------------


def git_commit() -> str:
    """The code's commit (`git rev-parse HEAD`), "-dirty" when tracked files changed since; "" without git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=10
        )
        if head.returncode != 0:
            return ""
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    dirty = "-dirty" if status.returncode == 0 and status.stdout.strip() else ""
    return head.stdout.strip()[:40] + dirty


def _check_run_options(options: dict[str, Any]) -> dict[str, Any]:
    seeds = options["seeds"]
    if not isinstance(seeds, list | tuple) or not seeds or not all(isinstance(s, int) for s in seeds):
        raise BenchError("seeds is a non-empty list of whole numbers, e.g. [0, 1, 2, 3]")
    if len(set(seeds)) != len(seeds) or len(seeds) > MAX_SEEDS:
        raise BenchError(f"seeds must be distinct, at most {MAX_SEEDS}")
    for name, high in (("concurrency", MAX_CONCURRENCY), ("max_steps", MAX_STEPS)):
        value = options[name]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= high:
            raise BenchError(f"{name} is a whole number from 1 to {high}")
    if options["tool_mode"] not in EvalRun.ToolMode.values:
        raise BenchError(f"tool_mode must be one of {', '.join(EvalRun.ToolMode.values)}")
    given = options.get("sampling") or {}
    if not isinstance(given, dict):
        raise BenchError("sampling is an object: temperature, top_p, max_tokens")
    unknown = set(given) - set(RUN_DEFAULTS["sampling"])
    if unknown:
        raise BenchError(f"unknown sampling option(s): {', '.join(sorted(unknown))}")
    merged = {**RUN_DEFAULTS["sampling"], **given}
    try:
        sampling = {
            "temperature": float(merged["temperature"]),
            "top_p": float(merged["top_p"]),
            "max_tokens": int(merged["max_tokens"]),
        }
    except (TypeError, ValueError):
        sampling = None
    if sampling is None or not (
        0 <= sampling["temperature"] <= 2 and 0 < sampling["top_p"] <= 1 and sampling["max_tokens"] >= 1
    ):
        raise BenchError("sampling: temperature from 0 to 2, top_p in (0, 1], max_tokens at least 1")
    timeout = options.get("episode_timeout_s")
    if timeout is not None and (not isinstance(timeout, int | float) or timeout <= 0):
        raise BenchError("episode_timeout_s is a positive number of seconds, or empty")
    return {**options, "seeds": list(seeds), "sampling": sampling}


def eval_run_create(*, model: ModelEntry, task_codes: Sequence[str] | None = None, user=None, **options) -> EvalRun:
    """A pending run of `model` over the given (default: every active) task, pinned by their checksum."""
    unknown = set(options) - set(RUN_DEFAULTS)
    if unknown:
        raise BenchError(f"unknown run option(s): {', '.join(sorted(unknown))}")
    checked = _check_run_options({**RUN_DEFAULTS, **{k: v for k, v in options.items() if v is not None}})
    model_runnable_check(model)
    model_entry_check(model)
    rows = list(Task.objects.filter(is_active=True, benchmark=Benchmark.KOPA))
    if task_codes:
        wanted = list(dict.fromkeys(task_codes))
        by_code = {row.code: row for row in rows}
        missing = [code for code in wanted if code not in by_code]
        if missing:
            raise BenchError(f"no active task named {', '.join(missing)}")
        rows = [by_code[code] for code in wanted]
    if not rows:
        raise BenchError("there are no active tasks; load the task files first (manage.py bench_load_tasks)")
    tasks = [row.to_engine() for row in rows]
    lacking = missing_tools(catalog_load(), tasks)
    if lacking:
        listed = "; ".join(f"{code}: {', '.join(names)}" for code, names in sorted(lacking.items())[:10])
        raise BenchError(f"the catalog lacks tools these tasks need ({listed}); import the catalog first")
    versions = sorted({row.data_version for row in rows})
    return EvalRun.objects.create(
        model=model,
        model_snapshot=model.snapshot(),
        benchmark=Benchmark.KOPA,
        benchmark_version="KOPA-Bench " + ", ".join(versions),
        backend=model.backend,
        endpoint=model.endpoint,
        task_codes=[row.code for row in rows],
        task_count=len(rows),
        task_checksum=tasks_checksum(tasks),
        data_versions={row.file: row.data_version for row in rows},
        created_by=user if getattr(user, "is_authenticated", False) else None,
        **checked,
    )


def eval_run_kind(run: EvalRun) -> str:
    """The job kind: the gpu cluster for a local checkpoint (transformers, or vLLM started for the run)."""
    model = run.model
    local = run.backend == ModelEntry.Backend.TRANSFORMERS or (
        run.backend == ModelEntry.Backend.OPENAI and not model.base_url and model.checkpoint
    )
    return "bench.evaluate.gpu" if local else "bench.evaluate"


def eval_run_start(*, run: EvalRun, user=None) -> Job:
    """Queue the run (or the rest of a stopped one) as a job; refused while a job of it still runs."""
    run.refresh_from_db()
    run_check_startable(run=run, error=BenchError)
    model_runnable_check(run.model)
    return run_start(run=run, kind=eval_run_kind(run), error=BenchError, user=user)


def _run_rows(run: EvalRun) -> list[Task]:
    rows = {row.code: row for row in Task.objects.filter(code__in=run.task_codes)}
    missing = [code for code in run.task_codes if code not in rows]
    if missing:
        raise BenchError(f"run #{run.pk}: its tasks {', '.join(missing)} no longer exist")
    ordered = [rows[code] for code in run.task_codes]
    checksum = tasks_checksum([row.to_engine() for row in ordered])
    if checksum != run.task_checksum:
        raise BenchError(
            f"run #{run.pk}: its tasks changed since it was created (checksum {run.task_checksum[:12]} is now "
            f"{checksum[:12]}); its results would mix two versions, so start a new run"
        )
    return ordered


def _engine_backend(
    run: EvalRun, *, base_url: str | None = None, served: str | None = None, device: str | None = None
) -> Backend:
    model = run.model
    if run.backend == ModelEntry.Backend.ORACLE and run.benchmark == Benchmark.BFCL:
        return bfcl.OracleBackend()
    if run.backend == ModelEntry.Backend.ORACLE:
        from benchmarks.engine.backends.oracle import OracleBackend

        return OracleBackend()
    if run.backend == ModelEntry.Backend.OPENAI:
        from benchmarks.engine.backends.openai_http import OpenAIChatBackend, OpenAIConfig

        model_endpoint_check("" if base_url else model.base_url, model.api_key_env)  # rows may predate the rules
        api_key = os.environ.get(model.api_key_env) if model.api_key_env else None
        if model.api_key_env and not api_key:
            raise BenchError(f"the environment variable {model.api_key_env} (the endpoint's key) is not set")
        config = OpenAIConfig(
            base_url or model.base_url,
            served or model.served_name or model.name,
            api_key=api_key,
            extra_body=model.extra_body,
        )
        return OpenAIChatBackend(config)
    from benchmarks.engine.backends.transformers_local import CHAT_TEMPLATES, TransformersBackend, chat_template

    # A shipped template by family name (e.g. "qwen3"); otherwise the checkpoint's own.
    shipped = model.chat_template and (CHAT_TEMPLATES / f"{model.chat_template}.jinja").is_file()
    template = chat_template(model.chat_template) if shipped else None
    return TransformersBackend(model.checkpoint, device=device or _device(), chat_template=template)


def _device() -> str:
    configured = env_str("KOPA_BENCH_DEVICE", "") or "auto"
    if configured != "auto":
        return configured
    import torch  # only ever in the process that runs the transformers backend

    return "cuda" if torch.cuda.is_available() else "cpu"


@dataclass
class _Progress:
    done: int
    total: int


def _store_episode(
    run: EvalRun, rows: dict[str, Task], episode: EpisodeResult, ledger: CallLedger
) -> TaskResult | None:
    """Score the episode and store it with its ApiCalls relabelled "<result id>/<step>"; None if stored before."""
    row = rows[episode.task_id]
    score = score_episode(row.to_engine(), episode)
    api_call_ids = ledger.api_call_ids(episode)
    account = score.account
    try:
        with transaction.atomic():
            result = TaskResult.objects.create(
                run=run,
                task=row,
                seed=episode.seed,
                transcript=episode.to_dict(),
                api_call_ids=api_call_ids,
                scores=score.to_dict(),
                success=score.success,
                response_ok=score.response,
                environment_ok=score.environment.passed,
                action_ok=score.action.passed,
                stop_reason=episode.stop_reason,
                calls=account.tool_calls,
                invalid_calls=account.invalid_calls,
                prompt_tokens=account.usage.prompt_tokens,
                completion_tokens=account.usage.completion_tokens,
                wall_s=round(episode.wall_s, 4),
                model_latency_s=round(account.model_latency_s, 4),
            )
            steps: dict[int, list[int]] = {}
            for call, api_call_id in zip(episode.calls, api_call_ids, strict=True):
                if api_call_id is not None:
                    steps.setdefault(call.step, []).append(api_call_id)
            for step, ids in steps.items():
                ApiCall.objects.filter(pk__in=ids).update(source_id=result.api_call_source(step))
    except IntegrityError:
        logger.warning("run %s: %s seed %s was stored meanwhile; kept the first", run.pk, row.code, episode.seed)
        return None
    return result


async def _drive(
    run: EvalRun,
    rows: list[Task],
    pending: list[tuple[Task, int]],
    backend: Backend,
    reporter: Reporter,
    progress: _Progress,
) -> None:
    """Run the pending episodes; store each as it finishes; stop starting new ones once a cancel comes."""
    catalog = await sync_to_async(catalog_load)()
    ledger = CallLedger()
    by_code = {row.code: row for row in rows}
    engine_tasks = {row.code: row.to_engine() for row in rows}
    factory = django_environment_factory(
        catalog,
        mode=run.tool_mode,
        ledger=ledger,
        source_prefix_of={row.code: f"run{run.pk}/{row.pk}" for row in rows},
    )
    config = RunConfig(
        max_steps=run.max_steps,
        concurrency=run.concurrency,
        sampling=SamplingParams(**run.sampling),
        episode_timeout_s=run.episode_timeout_s,
    )
    tagged = TurnTaggingBackend(backend)
    failure: list[BaseException] = []

    def store(episode: EpisodeResult) -> None:
        result = _store_episode(run, by_code, episode, ledger)
        if result is not None:
            progress.done += 1
            verdict = "success" if result.success else "fail"
            message = f"{episode.task_id} seed {episode.seed}: {verdict} ({episode.stop_reason})"
            reporter.progress(progress.done, progress.total, message)
        reporter.check_cancelled()

    async def run_group(codes: list[str], seeds: list[int]) -> None:
        writes: list[asyncio.Future] = []
        runner: asyncio.Future | None = None

        async def save(episode: EpisodeResult) -> None:
            try:
                await sync_to_async(store)(episode)
            except BaseException as exc:  # JobCancelled is a BaseException; stop the run, keep what is stored
                if not failure:
                    failure.append(exc)
                runner.cancel()

        def on_result(episode: EpisodeResult, done: int, total: int) -> None:
            writes.append(asyncio.ensure_future(save(episode)))

        episodes = run_tasks(
            [engine_tasks[code] for code in codes], tagged, factory, seeds=seeds, config=config, on_result=on_result
        )
        runner = asyncio.ensure_future(episodes)
        try:
            await runner
        except asyncio.CancelledError:
            if not failure:
                raise
        await asyncio.gather(*writes, return_exceptions=True)
        if failure:
            raise failure[0]

    # Episodes grouped by their pending seeds: a fresh run is one group (one run_tasks over tasks x seeds),
    # a resumed one runs only what is missing.
    groups: dict[tuple[int, ...], list[str]] = {}
    for code in dict.fromkeys(row.code for row, _ in pending):
        seeds = tuple(seed for row, seed in pending if row.code == code)
        groups.setdefault(seeds, []).append(code)
    try:
        for seeds, codes in groups.items():
            await run_group(codes, list(seeds))
    finally:
        await tagged.aclose()


def eval_run_execute(
    *, run: EvalRun, reporter: Reporter | None = None, backend: Backend | None = None, device: str | None = None
) -> dict[str, Any]:
    """Run the run's missing episodes in this process, then aggregate its summary; returns the summary.

    `backend` replaces the one the model entry describes (tests drive scripted models through it). Runs
    with a checkpoint and no endpoint start vLLM for their duration. Any stop (cancel, error) leaves the run
    "stopped" with its stored episodes, ready to resume.
    """
    reporter = reporter or QuietReporter()
    run = EvalRun.objects.select_related("model").get(pk=run.pk)
    if run.status in run.TERMINAL:
        raise BenchError(f"run #{run.pk} has {run.status}")
    rows = _bfcl_rows(run) if run.benchmark == Benchmark.BFCL else _run_rows(run)
    stored = set(TaskResult.objects.filter(run=run).values_list("task__code", "seed"))
    pending = [(row, seed) for row in rows for seed in run.seeds if (row.code, seed) not in stored]
    commit = git_commit()
    if run.git_commit and commit and commit != run.git_commit:
        reporter.log(f"this run started at commit {run.git_commit}; it continues at {commit}", "warning")
    run_mark_running(run=run, git_commit=run.git_commit or commit, error="")
    progress = _Progress(done=len(stored), total=run.episodes_planned)
    reporter.log(
        f"run #{run.pk}: {run.model.name} on {len(rows)} task(s) × {len(run.seeds)} seed(s); "
        f"{len(stored)} episode(s) stored, {len(pending)} to run ({run.tool_mode} tools)"
    )
    reporter.progress(progress.done, progress.total, f"{len(pending)} episode(s) to run")
    try:
        if pending:
            _execute_pending(run, rows, pending, backend, reporter, progress, device=device)
    except BaseException as exc:
        run_mark_stopped(run=run, error=f"{type(exc).__name__}: {exc}")
        try:
            eval_run_summarize(run=run)  # the partial summary of what is stored
        except Exception:
            logger.exception("run %s: summary of the stored episodes failed", run.pk)
        raise
    summary = eval_run_summarize(run=run)
    return _finish(run, summary, reporter)


def unreachable_reason(run: EvalRun) -> str:
    """Why the run never reached its model ("" when it did): every stored episode ended on a backend error
    (connection refused, timeouts after the backend's retries) before the model produced any turn."""
    results = TaskResult.objects.filter(run=run)
    if not results.exists() or results.exclude(stop_reason=STOP_BACKEND_ERROR).exists():
        return ""
    errors = Counter(
        (transcript or {}).get("error", "") or "backend error"
        for transcript in results.values_list("transcript", flat=True)
    )
    reason, count = errors.most_common(1)[0]
    total = sum(errors.values())
    return f"the model was never reached: all {total} episode(s) ended on a backend error, e.g. ({count}×) {reason}"[
        :2000
    ]


def _finish(run: EvalRun, summary: dict[str, Any], reporter: Reporter) -> dict[str, Any]:
    """Mark the run finished, or failed (with the reason on the run) when its model was never reached: such a
    run scored nothing about the model and must never reach the leaderboard."""
    reason = unreachable_reason(run)
    if reason:
        run_mark_failed(run=run, error=reason)
        reporter.log(f"run #{run.pk} failed: {reason}", "error")
        return summary
    run_mark_finished(run=run)
    reporter.log(f"run #{run.pk} finished: success {summary['overall']['success']['value']:.3f}")
    return summary


def _execute_pending(run, rows, pending, backend, reporter, progress, *, device=None) -> None:
    model = run.model
    drive = _drive_bfcl if run.benchmark == Benchmark.BFCL else _drive
    if backend is not None or run.backend != ModelEntry.Backend.OPENAI or model.base_url:
        engine_backend = backend or _engine_backend(run, device=device)
        async_to_sync(drive)(run, rows, pending, engine_backend, reporter, progress)
        return
    from benchmarks.engine.vllm_launcher import endpoint

    config = _vllm_config(model)
    log_path = Path(settings.VAR_DIR) / "bench" / f"run-{run.pk}.vllm.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    reporter.log(f"starting vLLM for {model.checkpoint} on port {config.port} (log {log_path})")
    with endpoint(vllm=config, log_path=log_path, cwd=settings.BASE_DIR) as (base_url, served):
        engine_backend = _engine_backend(run, base_url=base_url, served=served)
        async_to_sync(drive)(run, rows, pending, engine_backend, reporter, progress)


def _vllm_config(model: ModelEntry):
    """vLLM for a checkpoint without an endpoint: KOPA_VLLM_EXECUTABLE (default "vllm") on KOPA_VLLM_PORT (default:
    a free port), with the model's tool-call parser and, when it names a shipped one, its chat template."""
    from benchmarks.engine.backends.transformers_local import CHAT_TEMPLATES
    from benchmarks.engine.vllm_launcher import VllmConfig

    port = int(env_str("KOPA_VLLM_PORT", "") or 0) or _free_port()
    template = CHAT_TEMPLATES / f"{model.chat_template}.jinja" if model.chat_template else None
    return VllmConfig(
        checkpoint=model.checkpoint,
        served_model_name=re.sub(r"\s+", "-", model.served_name or model.name),
        tool_call_parser=model.tool_call_parser or "hermes",
        port=port,
        chat_template=str(template) if template and template.is_file() else None,
        executable=tuple(shlex.split(env_str("KOPA_VLLM_EXECUTABLE", "") or "vllm")),
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def eval_run_summarize(*, run: EvalRun) -> dict[str, Any]:
    """Aggregate the stored episode scores (overall, per category and difficulty, pass@k / pass^k with their
    intervals), add latency figures, and save it as the run's summary."""
    run = EvalRun.objects.get(pk=run.pk)
    if run.benchmark == Benchmark.BFCL:
        return _bfcl_summarize(run)
    results = list(TaskResult.objects.filter(run=run).select_related("task").order_by("task__code", "seed"))
    if not results:
        EvalRun.objects.filter(pk=run.pk).update(summary={}, board={}, score=None)
        return {}
    tasks = {r.task.code: r.task.to_engine() for r in results}
    scores = [episode_score_from_dict(r.scores) for r in results]
    seeds_per_task = min(Counter(r.task_id for r in results).values())
    ks = sorted({k for k in PASS_KS if k <= seeds_per_task} | {seeds_per_task})
    summary = _json_keys(aggregate(list(tasks.values()), scores, ks=ks).to_dict())
    walls = [r.wall_s for r in results]
    turns = [step["latency_s"] for r in results for step in r.transcript.get("steps", [])]
    return _save_summary(run, summary, walls, turns)


def _save_summary(run: EvalRun, summary: dict[str, Any], walls: list[float], turns: list[float]) -> dict[str, Any]:
    summary["latency"] = {
        "episode_mean_s": sum(walls) / len(walls),
        "episode_p95_s": percentile(walls, 95),
        "turn_mean_s": sum(turns) / len(turns) if turns else 0.0,
        "turn_p95_s": percentile(turns, 95),
    }
    summary["episodes"] = len(walls)
    summary["complete"] = len(walls) == run.episodes_planned
    board = board_digest(summary)
    EvalRun.objects.filter(pk=run.pk).update(summary=summary, board=board, score=score_of(board))
    return summary


def _json_keys(value: Any) -> Any:
    """The report with dict keys as text, as JSON stores them (pass_at {1: ...} becomes {"1": ...})."""
    if isinstance(value, dict):
        return {str(k): _json_keys(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_keys(v) for v in value]
    return value


# --- BFCL ----------------------------------------------------------------------------------------------


def _bfcl_entries(categories: Sequence[str], limit: int | None) -> list[bfcl.Entry]:
    if not categories:
        raise BenchError(f"choose at least one BFCL category: {', '.join(bfcl.CATEGORIES)}")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise BenchError("limit is a whole number of entries per category, at least 1 (or empty: all)")
    try:
        return [entry for category in dict.fromkeys(categories) for entry in bfcl.load_category(category, limit=limit)]
    except bfcl.BfclError as error:
        raise BenchError(str(error)) from None


def bfcl_tasks_sync(*, categories: Sequence[str], limit: int | None = None) -> list[Task]:
    """Task rows (benchmark "bfcl", code "bfcl:<id>") for the entries of these categories as the installed
    bfcl-eval ships them, created or updated when their content changed; returned in entry order."""
    entries = _bfcl_entries(categories, limit)
    label = bfcl.label()
    fields_of = {}
    for entry in entries:
        fields_of["bfcl:" + entry.id] = {
            "benchmark": Benchmark.BFCL,
            "spec": entry.to_spec(),
            "request": entry.request_text,
            "tools": [function["name"] for function in entry.functions],
            "gold": entry.ground_truth or [],
            "answer": {},
            "categories": [entry.category],
            "category_index": f"|{entry.category}|",
            "domain": "",
            "difficulty": "",
            "clock": "",
            "data_version": label,
            "file": entry.file,
            "source": f"{entry.file}#{entry.id}",
            "checksum": entry.checksum(),
            "is_active": True,
        }
    with transaction.atomic():
        existing = {row.code: row for row in Task.objects.filter(code__in=list(fields_of))}
        clash = [code for code, row in existing.items() if row.benchmark != Benchmark.BFCL]
        if clash:
            raise BenchError(f"task code(s) {', '.join(clash[:5])} already belong to KOPA-Bench")
        new = [Task(code=code, **fields) for code, fields in fields_of.items() if code not in existing]
        Task.objects.bulk_create(new, batch_size=500)
        changed = []
        for code, row in existing.items():
            fields = fields_of[code]
            if row.checksum != fields["checksum"] or row.data_version != fields["data_version"]:
                for name, value in fields.items():
                    setattr(row, name, value)
                changed.append(row)
        if changed:
            Task.objects.bulk_update(changed, list(fields_of[changed[0].code]), batch_size=500)
    rows = {row.code: row for row in Task.objects.filter(code__in=list(fields_of))}
    return [rows[code] for code in fields_of]


def bfcl_run_create(
    *,
    model: ModelEntry,
    categories: Sequence[str] = bfcl.DEFAULT_CATEGORIES,
    limit: int | None = None,
    user=None,
    **options,
) -> EvalRun:
    """A pending BFCL run of `model` over these categories (the first `limit` entries of each), pinned by the
    entries' checksum and bfcl-eval's version. Options: seeds, concurrency, sampling. Its max_steps is the model
    steps one entry may take: 1, or bfcl-eval's limit per turn when a multi-turn category is in."""
    unknown = set(options) - {"seeds", "concurrency", "sampling"}
    if unknown:
        raise BenchError(f"unknown BFCL run option(s): {', '.join(sorted(unknown))}")
    checked = _check_run_options({**RUN_DEFAULTS, **{k: v for k, v in options.items() if v is not None}})
    model_runnable_check(model)
    model_entry_check(model)
    rows = bfcl_tasks_sync(categories=categories, limit=limit)
    if not rows:
        raise BenchError("these BFCL categories hold no entries")
    label = bfcl.label()
    multi_turn = any(category in bfcl.MULTI_TURN_CATEGORIES for category in categories)
    return EvalRun.objects.create(
        model=model,
        model_snapshot=model.snapshot(),
        benchmark=Benchmark.BFCL,
        benchmark_version=label,
        backend=model.backend,
        endpoint=model.endpoint,
        task_codes=[row.code for row in rows],
        task_count=len(rows),
        task_checksum=bfcl.entries_checksum(_bfcl_entry(row) for row in rows),
        data_versions={row.file: label for row in rows},
        created_by=user if getattr(user, "is_authenticated", False) else None,
        **{**checked, "max_steps": bfcl.steps_per_turn() if multi_turn else 1},
    )


def _bfcl_entry(row: Task) -> bfcl.Entry:
    return bfcl.Entry.from_spec(row.code.removeprefix("bfcl:"), row.categories[0], row.spec, row.gold)


def _bfcl_rows(run: EvalRun) -> list[Task]:
    rows = {row.code: row for row in Task.objects.filter(code__in=run.task_codes)}
    missing = [code for code in run.task_codes if code not in rows]
    if missing:
        raise BenchError(f"run #{run.pk}: its BFCL entries {', '.join(missing[:5])} no longer exist")
    ordered = [rows[code] for code in run.task_codes]
    if bfcl.entries_checksum(_bfcl_entry(row) for row in ordered) != run.task_checksum:
        raise BenchError(f"run #{run.pk}: its BFCL entries changed since it was created; start a new run")
    return ordered


def _store_bfcl(run: EvalRun, row: Task, outcome: bfcl.Outcome) -> TaskResult | None:
    valid = outcome.verdict.valid
    try:
        return TaskResult.objects.create(
            run=run,
            task=row,
            seed=outcome.seed,
            transcript=outcome.transcript(),
            api_call_ids=[],
            scores={"bfcl": outcome.verdict.to_dict()},
            success=valid,
            response_ok=valid,
            environment_ok=valid,
            action_ok=valid,
            stop_reason=outcome.stop_reason,
            calls=outcome.calls,
            invalid_calls=int(outcome.verdict.error_type.startswith("ast_decoder")),
            prompt_tokens=outcome.prompt_tokens,
            completion_tokens=outcome.completion_tokens,
            wall_s=round(outcome.wall_s, 4),
            model_latency_s=round(outcome.latency_s, 4),
        )
    except IntegrityError:
        logger.warning("run %s: %s seed %s was stored meanwhile; kept the first", run.pk, row.code, outcome.seed)
        return None


async def _drive_bfcl(
    run: EvalRun, rows: list[Task], pending: list[tuple[Task, int]], backend: Backend, reporter: Reporter, progress
) -> None:
    """One model turn per pending (entry, seed), `concurrency` at a time, each stored as it is scored."""
    entries = {row.code: _bfcl_entry(row) for row in rows}
    fc = run.identity.get("call_mode", ModelEntry.CallMode.FC) == ModelEntry.CallMode.FC
    sampling = SamplingParams(**run.sampling)
    limiter = asyncio.Semaphore(run.concurrency)

    def store(row: Task, outcome: bfcl.Outcome) -> None:
        if _store_bfcl(run, row, outcome) is not None:
            progress.done += 1
            verdict = "valid" if outcome.verdict.valid else outcome.verdict.error_type or "invalid"
            reporter.progress(progress.done, progress.total, f"{row.code} seed {outcome.seed}: {verdict}")
        reporter.check_cancelled()

    async def one(row: Task, seed: int) -> None:
        async with limiter:
            outcome = await bfcl.run_entry(entries[row.code], backend, seed=seed, fc=fc, sampling=sampling)
        await sync_to_async(store)(row, outcome)

    futures = [asyncio.ensure_future(one(row, seed)) for row, seed in pending]
    try:
        await asyncio.gather(*futures)
    except BaseException:
        for future in futures:
            future.cancel()
        await asyncio.gather(*futures, return_exceptions=True)
        raise
    finally:
        await backend.aclose()


def _bfcl_summarize(run: EvalRun) -> dict[str, Any]:
    fields = ("task__code", "task__categories", "seed", "success", "calls", "prompt_tokens", "completion_tokens")
    results = list(
        TaskResult.objects.filter(run=run)
        .order_by("task__code", "seed")
        .values_list(*fields, "wall_s", "model_latency_s", "scores")
    )
    if not results:
        EvalRun.objects.filter(pk=run.pk).update(summary={}, board={}, score=None)
        return {}
    rows = [
        {
            "id": code,
            "category": categories[0],
            "seed": seed,
            "valid": success,
            "calls": calls,
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "error_type": (scores.get("bfcl") or {}).get("error_type", ""),
        }
        for code, categories, seed, success, calls, prompt, completion, _, _, scores in results
    ]
    seeds_per_task = min(Counter(row["id"] for row in rows).values())
    ks = sorted({k for k in PASS_KS if k <= seeds_per_task} | {seeds_per_task})
    summary = bfcl.summarize(rows, ks=ks)
    return _save_summary(run, summary, [r[7] for r in results], [r[8] for r in results])


def eval_run_job(*, run: EvalRun, reporter) -> dict[str, Any]:
    """What the bench.evaluate job does: run in this worker, or in a fresh process for the transformers
    backend (so torch is never imported here); returns a short result for the Job row."""
    run = EvalRun.objects.select_related("model").get(pk=run.pk)
    EvalRun.objects.filter(pk=run.pk).update(job_id=reporter.job_id)
    if run.backend != ModelEntry.Backend.TRANSFORMERS:
        summary = eval_run_execute(run=run, reporter=reporter)
    else:
        _execute_in_subprocess(run, reporter)
        run.refresh_from_db()
        summary = run.summary
    run.refresh_from_db()
    if run.status == EvalRun.Status.FAILED:
        raise BenchError(f"run #{run.pk} failed: {run.error}")
    overall = summary.get("overall", {})
    return {
        "run": run.pk,
        "episodes": summary.get("episodes", 0),
        "success": overall.get("success", {}).get("value"),
    }


def _execute_in_subprocess(run: EvalRun, reporter) -> None:
    """`manage.py bench_run --run ID --progress-lines` in its own process; its progress lines move the job's bar."""

    def on_line(line: str) -> None:
        if line.startswith(PROGRESS_PREFIX):
            counts, _, message = line[len(PROGRESS_PREFIX) :].partition(" ")
            done, _, total = counts.partition("/")
            if done.isdigit() and total.isdigit():
                reporter.progress(int(done), int(total), message)
                return
        reporter.log(line)

    args = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "bench_run", "--run", str(run.pk)]
    try:
        reporter.run_process(
            [*args, "--progress-lines"],
            cwd=settings.BASE_DIR,
            env=child_environment(),
            on_line=on_line,
            log_output=False,
        )
    except BaseException as exc:
        # A killed child (cancel) cannot mark its run; stored episodes stay and the run can resume.
        run_mark_stopped(run=run, error=f"{type(exc).__name__}: {exc}", only_running=True)
        raise


def child_environment() -> dict[str, str]:
    """This process's environment, pointed at the database and sandbox this process uses (a test's, in tests)."""
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", settings.SETTINGS_MODULE)
    if getattr(settings, "KOPA_SANDBOX_ORIGIN", ""):
        env["KOPA_SANDBOX_ORIGIN"] = settings.KOPA_SANDBOX_ORIGIN
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        env["DATABASE_URL"] = f"sqlite:///{name}"
    elif env.get("DATABASE_URL"):
        env["DATABASE_URL"] = urlunsplit(urlsplit(env["DATABASE_URL"])._replace(path=f"/{name}"))
    return env


def eval_run_resume(*, run: EvalRun, user=None) -> Job:
    """Continue a stopped run, or one whose worker died (still "running" with a finished job), in a new job;
    the episodes it stored are kept and skipped."""
    return eval_run_start(run=run, user=user)


def eval_run_resumable(run: EvalRun) -> bool:
    return run.status not in run.TERMINAL and (run.job is None or run.job.is_finished)
