"""Training runs: create (config checked and written to disk), start/resume/cancel as a `training.run` job on the
gpu cluster, execute (the training process in its own process group, its metrics streamed into the run), and after
success register the checkpoint as a benchmarks.ModelEntry and queue KOPA-Bench evaluations of base and tuned.
"""

from __future__ import annotations

import json
import os
import sys
from collections import deque
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from benchmarks.models import EvalRun, ModelEntry
from datasets.models import DatasetVersion
from kopa_site.errors import DomainError
from kopa_site.jobs import JobCancelled, JobError
from kopa_site.models import Job
from kopa_site.runs import run_mark_failed, run_mark_finished, run_mark_running, run_mark_stopped, run_start
from training.engine.presets import ConfigError, build_config
from training.engine.train import METRIC_PREFIX, PROGRESS_PREFIX
from training.models import TrainingMetric, TrainingRun

LAUNCHER = Path(__file__).resolve().parent / "engine" / "launch.py"
VERSION_DATA = "data/version.jsonl"  # in the run's folder: the frozen version's items, written by the job
JOB_KIND = "training.run"
LOG_TAIL_LINES = 60
# Progress-bar redraws of tqdm: kept in train.log, not in the job log.
_NOISE = ("it/s]", "s/it]", "%|")


class TrainingError(DomainError):
    """A training request that cannot be carried out; the message says why."""


def runs_folder() -> Path:
    return Path(settings.VAR_DIR) / "training"


def _tools(mode: str) -> dict[str, Any]:
    if mode not in TrainingRun.ToolMode.values:
        raise TrainingError(f"tool_mode must be one of {', '.join(TrainingRun.ToolMode.values)}")
    return {"mode": mode, "sandbox_url": settings.KOPA_SANDBOX_ORIGIN if mode == "sandbox" else ""}


def config_path(run: TrainingRun) -> Path:
    return run.folder / "config.json"


def _write_config(run: TrainingRun) -> Path:
    path = config_path(run)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(run.config, ensure_ascii=False, indent=2), encoding="utf-8")
    partial.replace(path)
    return path


def training_run_create(
    *,
    preset: str,
    dataset_version: DatasetVersion | None = None,
    dataset_path: str = "",
    base_model_path: str = "",
    overrides: dict[str, Any] | None = None,
    tool_mode: str = TrainingRun.ToolMode.SANDBOX,
    name: str = "",
    user=None,
) -> TrainingRun:
    """A pending run whose config is complete and on disk; a bad preset, override, dataset or base model raises
    TrainingError and leaves nothing behind.

    The data is a frozen dataset version (what the pages and the API offer): the job writes its items into the
    run's folder before training, so the run reads exactly what was frozen. `dataset_path` (an export file already
    on disk) is for code that has no version, such as the CPU research check; give one or the other."""
    if overrides is not None and not isinstance(overrides, dict):
        raise TrainingError('overrides is an object of dotted keys, e.g. {"grpo.steps": 50}')
    if (dataset_version is None) == (not str(dataset_path).strip()):
        raise TrainingError("train on a frozen dataset version (freeze one on the review console's Versions page)")
    tools = _tools(tool_mode)
    with transaction.atomic():
        run = TrainingRun.objects.create(
            name=name,
            preset=preset,
            base_model_path=base_model_path.strip(),
            dataset_path=str(dataset_path).strip(),
            dataset_version=dataset_version,
            tool_mode=tool_mode,
            overrides=overrides or {},
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        output = runs_folder() / f"run-{run.pk}"
        if dataset_version is not None:
            run.dataset_path = str(output / VERSION_DATA)
        try:
            config = build_config(
                preset=preset,
                dataset=run.dataset_path,
                output_dir=output,
                base_model=run.base_model_path,
                overrides=overrides,
                tools=tools,
                run_id=run.pk,
                dataset_written_later=dataset_version is not None,
            )
        except ConfigError as error:
            transaction.set_rollback(True)
            raise TrainingError(str(error)) from None
        run.config = config
        run.output_dir = str(output)
        run.total_steps = config["grpo"]["steps"]
        run.save(update_fields=["dataset_path", "config", "output_dir", "total_steps"])
    _write_config(run)
    return run


def training_run_resumable(run: TrainingRun) -> bool:
    if run.status in run.TERMINAL:
        return False
    return run.job is None or run.job.is_finished


def training_run_start(*, run: TrainingRun, user=None) -> Job:
    """Queue the run (or the rest of a stopped or failed one: it resumes from its last checkpoint)."""
    run.refresh_from_db()
    job = run_start(run=run, kind=JOB_KIND, error=TrainingError, user=user, reset=True)
    run.refresh_from_db()
    return job


training_run_resume = training_run_start


def training_run_cancel(*, run: TrainingRun, user) -> Job:
    """Cancel the run's job: a running training process is stopped with its whole process group."""
    from kopa_site.jobs import job_cancel

    if run.job is None or run.job.is_finished:
        raise TrainingError(f"training run #{run.pk} has no job in progress")
    job = job_cancel(job=run.job, user=user)
    if job.status == Job.Status.CANCELLED:  # it never started
        run_mark_stopped(run=run, error="cancelled before it started")
    return job


# --- Execution (inside the job) ------------------------------------------------------------------


def _child_environment() -> dict[str, str]:
    """The worker's environment without what would put Django or the repository first on the child's path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE", "PYTHONSTARTUP")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


class _Stream:
    """Reads the training process's lines: metrics into TrainingMetric rows, progress into the job."""

    def __init__(self, run: TrainingRun, reporter):
        self.run = run
        self.reporter = reporter
        self.log = run.folder / "train.log"
        self.sft_steps = int(run.config.get("sft", {}).get("steps") or 0)
        self.total = self.sft_steps + run.total_steps

    def __call__(self, line: str) -> None:
        with self.log.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        at = line.find(METRIC_PREFIX)  # a library may have left text without a newline before it
        if at >= 0:
            try:
                values = json.loads(line[at + len(METRIC_PREFIX) :])
            except json.JSONDecodeError:
                return
            self.metric(values)
        elif line.startswith(PROGRESS_PREFIX) or any(mark in line for mark in _NOISE):
            return
        elif line.strip():
            self.reporter.log(line, "error" if line.startswith("FAILED ") else "info")

    def metric(self, values: dict[str, Any]) -> None:
        phase, step = str(values.get("phase", "grpo")), int(values.get("step", 0))
        TrainingMetric.objects.update_or_create(run=self.run, phase=phase, step=step, defaults={"values": values})
        TrainingRun.objects.filter(pk=self.run.pk).update(phase=phase, step=step, last_metrics=values)
        done = step if phase == "sft" else self.sft_steps + step
        self.reporter.progress(min(done, self.total), self.total, f"{phase} step {step}")


def log_tail(run: TrainingRun, lines: int = LOG_TAIL_LINES) -> str:
    path = run.folder / "train.log"
    if not path.is_file():
        return ""
    with path.open(encoding="utf-8", errors="replace") as handle:
        return "".join(deque(handle, maxlen=lines))


def _failure_reason(run: TrainingRun, fallback: str) -> str:
    try:
        return json.loads((run.folder / "failure.json").read_text(encoding="utf-8"))["reason"][:600]
    except (OSError, ValueError, KeyError, TypeError):
        return fallback[:600]


def training_data_write(*, run: TrainingRun, reporter) -> Path:
    """Write the run's frozen dataset version as the OpenAI JSONL the training process reads (once: a resumed
    run keeps the file it started with). A version whose items no longer match its checksum is refused."""
    from datasets.review import dataset_version_verify
    from datasets.selectors import version_jsonl_lines

    target = Path(run.dataset_path)
    if target.is_file():
        return target
    version = run.dataset_version
    if not dataset_version_verify(version):
        raise TrainingError(f"dataset version {version.name!r} does not match its checksum; it was not trained on")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".jsonl.partial")
    with partial.open("w", encoding="utf-8") as handle:
        handle.writelines(version_jsonl_lines(version))
    partial.replace(target)
    reporter.log(f"wrote the {version.item_count} trajectories of dataset version {version.name} to {target}")
    return target


def training_run_execute(*, run: TrainingRun, reporter) -> dict[str, Any]:
    """Run the training process for this run (resuming from its outputs) and finish the run from its result."""
    if run.status == TrainingRun.Status.FINISHED:
        return {"run": run.pk, "checkpoint": run.checkpoint}
    run.config["tools"] = _tools(run.tool_mode)  # the sandbox this site uses now
    run_mark_running(run=run, error="", config=run.config)
    path = _write_config(run)
    (run.folder / "failure.json").unlink(missing_ok=True)
    stream = _Stream(run, reporter)
    try:
        if run.dataset_version_id is not None:
            training_data_write(run=run, reporter=reporter)
        reporter.run_process(
            [sys.executable, "-P", str(LAUNCHER), str(path)],
            cwd=settings.BASE_DIR,
            env=_child_environment(),
            on_line=stream,
            log_output=False,
        )
    except JobCancelled:
        run_mark_stopped(run=run, error="cancelled; resume continues from the last checkpoint")
        raise
    except BaseException as exc:
        reason = _failure_reason(run, f"{type(exc).__name__}: {exc}")
        run_mark_failed(run=run, error=reason, log_tail=log_tail(run))
        raise JobError(f"training run #{run.pk} failed: {reason}") from None
    result = json.loads((run.folder / "result.json").read_text(encoding="utf-8"))
    run.refresh_from_db()
    training_run_finish(run=run, result=result)
    return {"run": run.pk, "checkpoint": run.checkpoint, "model": run.model_entry_id}


# --- After training --------------------------------------------------------------------------------


def _unique_name(name: str) -> str:
    candidate, number = name[:200], 2
    while ModelEntry.objects.filter(name=candidate).exists():
        candidate = f"{name[:190]} ({number})"
        number += 1
    return candidate


def _base_entry(run: TrainingRun, base: str, family: str) -> ModelEntry:
    from benchmarks.services import model_entry_create

    existing = ModelEntry.objects.filter(checkpoint=base).order_by("id").first()
    if existing:
        return existing
    label = Path(base).name if run.base_model_path else f"{family} base (run #{run.pk})"
    return model_entry_create(
        name=_unique_name(label),
        backend=ModelEntry.Backend.TRANSFORMERS,
        checkpoint=base,
        chat_template="qwen3",
        family=family,
        notes="Registered as the base of a training run.",
        user=run.created_by,
    )


def training_run_finish(*, run: TrainingRun, result: dict[str, Any]) -> TrainingRun:
    """Register the checkpoint (base and tuned entries) and queue KOPA-Bench evaluations of both."""
    from benchmarks.services import BenchError, model_entry_create

    family = run.config.get("model", {}).get("family", "")
    base = _base_entry(run, result["base"], family)
    tuned = model_entry_create(
        name=_unique_name(f"{run.label} · GRPO run #{run.pk}"),
        backend=ModelEntry.Backend.TRANSFORMERS,
        checkpoint=result["checkpoint"],
        chat_template="qwen3",
        family=family,
        base_model=base,
        tuned_from_run=run.pk,
        notes=f"GRPO ({run.config['reward']['preset']} rewards) on {run.data_label}.",
        user=run.created_by,
    )
    run_mark_finished(run=run, checkpoint=result["checkpoint"], model_entry=tuned, base_entry=base, error="")
    run.refresh_from_db()
    try:
        queued = _queue_evaluations(run, base, tuned)
    except (BenchError, JobError) as exc:
        queued = {"eval_note": f"evaluation not queued: {exc}"[:600]}
    TrainingRun.objects.filter(pk=run.pk).update(**queued)
    run.refresh_from_db()
    return run


def _queue_evaluations(run: TrainingRun, base: ModelEntry, tuned: ModelEntry) -> dict[str, Any]:
    from benchmarks.services import eval_run_create, eval_run_start

    user = run.created_by
    base_eval = EvalRun.objects.filter(model=base).exclude(status=EvalRun.Status.STOPPED).first()
    if base_eval is None:
        base_eval = eval_run_create(model=base, user=user)
        eval_run_start(run=base_eval, user=user)
    tuned_eval = eval_run_create(model=tuned, user=user)
    eval_run_start(run=tuned_eval, user=user)
    return {"base_eval": base_eval, "tuned_eval": tuned_eval, "eval_note": ""}
