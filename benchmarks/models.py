"""KOPA-Bench rows: tasks loaded from the versioned task files, the models evaluated, evaluation runs and one
TaskResult per (run, task, seed) episode with its transcript and scores.

A TaskResult's calls are ApiCall rows (source_kind "bench_step", source_id "<result id>/<step>"), so every
number on the leaderboard traces back to the requests behind it.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models

from benchmarks.engine.codec import task_from_dict
from benchmarks.engine.task import DIFFICULTIES

DOMAIN_PREFIX = "domain:"


class Benchmark(models.TextChoices):
    """Which benchmark a task (and a run over such tasks) belongs to."""

    KOPA = "kopa", "KOPA-Bench"
    BFCL = "bfcl", "BFCL"


class Task(models.Model):
    """One benchmark task as its file states it. Rows are written only by tasks_sync (benchmarks/services.py)."""

    class Difficulty(models.TextChoices):
        EASY = DIFFICULTIES[0], "easy"
        MEDIUM = DIFFICULTIES[1], "medium"
        HARD = DIFFICULTIES[2], "hard"

    code = models.CharField(
        max_length=100, unique=True, help_text='The task id in its file, e.g. "re-001"; "bfcl:<id>" for BFCL entries.'
    )
    benchmark = models.CharField(max_length=10, choices=Benchmark.choices, default=Benchmark.KOPA, db_index=True)
    spec = models.JSONField(
        default=dict, blank=True, help_text="BFCL: the entry's question and function docs as bfcl-eval ships them."
    )
    request = models.TextField(help_text="The user's request, as the model reads it.")
    tools = models.JSONField(default=list, help_text='Function names offered, or "*" for the whole catalog.')
    toolset = models.CharField(max_length=100, blank=True, help_text="The named toolset the file used, if any.")
    gold = models.JSONField(default=list, help_text="The gold calls: tool, args, alternatives, bindings, paging.")
    answer = models.JSONField(default=dict, help_text="The answer spec: checker, value, text, aliases, unit...")
    categories = models.JSONField(default=list)
    category_index = models.CharField(
        max_length=1000, blank=True, editable=False, help_text="|a|b|: the categories, filterable on any database."
    )
    domain = models.CharField(max_length=100, blank=True, db_index=True, help_text='From a "domain:" category.')
    difficulty = models.CharField(
        max_length=10, choices=Difficulty.choices, blank=True, db_index=True, help_text="Empty for BFCL entries."
    )
    clock = models.CharField(max_length=40, help_text="The sandbox clock (X-Sandbox-Now) during the task, ISO 8601.")
    ignore_args = models.JSONField(default=list, blank=True)
    notes = models.TextField(blank=True)
    gold_calls = models.PositiveIntegerField(default=0, help_text="Requests the gold trajectory makes, pages counted.")
    data_version = models.CharField(max_length=60, help_text="The data_version of the task's file.")
    file = models.CharField(max_length=500, help_text="The task file, relative to the project when inside it.")
    source = models.CharField(max_length=600, blank=True, help_text="file#/tasks/N")
    checksum = models.CharField(max_length=64, help_text="sha256 of the task's canonical JSON.")
    is_active = models.BooleanField(default=True, help_text="False once its file no longer holds it.")
    retired_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return self.code

    def to_engine(self):
        """The engine's Task (benchmarks.engine.task.Task), identical to the one its file gave."""
        return task_from_dict(
            {
                "id": self.code,
                "request": self.request,
                "tools": self.tools,
                "calls": self.gold,
                "answer": self.answer,
                "categories": self.categories,
                "difficulty": self.difficulty,
                "clock": self.clock,
                "toolset": self.toolset,
                "notes": self.notes,
                "ignore_args": self.ignore_args,
                "source": self.source,
            }
        )

    @property
    def uses_all_tools(self) -> bool:
        return self.tools == "*"

    @property
    def tags(self) -> list[str]:
        return [c for c in self.categories if not c.startswith(DOMAIN_PREFIX)]


class ModelEntry(models.Model):
    """A model that can be evaluated: how to reach it (an endpoint, a checkpoint) and what it is."""

    class Backend(models.TextChoices):
        OPENAI = "openai", "OpenAI-compatible endpoint"
        TRANSFORMERS = "transformers", "transformers (local checkpoint)"
        ORACLE = "oracle", "oracle (gold replay)"

    class CallMode(models.TextChoices):
        FC = "fc", "FC (native function calling)"
        PROMPT = "prompt", "prompt (tools in the prompt, calls parsed from text)"

    name = models.CharField(max_length=200, unique=True, help_text="As the leaderboard shows it.")
    org = models.CharField(max_length=200, blank=True, help_text="Who made the model.")
    params_b = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.001, "the parameter count is a positive number of billions")],
        help_text="Parameters, in billions.",
    )
    license = models.CharField(max_length=100, blank=True)
    backend = models.CharField(max_length=20, choices=Backend.choices, default=Backend.OPENAI)
    call_mode = models.CharField(max_length=10, choices=CallMode.choices, default=CallMode.FC)
    # Not a URLField: endpoints on an internal network ("http://gpu:8000/v1") have no domain suffix.
    base_url = models.CharField(
        max_length=500, blank=True, help_text="OpenAI-compatible endpoint ending in /v1 (openai backend)."
    )
    served_name = models.CharField(
        max_length=200, blank=True, help_text="The model name the endpoint serves; defaults to the entry's name."
    )
    api_key_env = models.CharField(
        max_length=100, blank=True, help_text="Environment variable that holds the endpoint's key (never the key)."
    )
    checkpoint = models.CharField(
        max_length=500, blank=True, help_text="Local checkpoint folder (transformers, or vLLM when no base URL)."
    )
    tool_call_parser = models.CharField(
        max_length=40, blank=True, default="hermes", help_text="vLLM parser: hermes (Qwen2.5/3), qwen3_coder (3.5)."
    )
    chat_template = models.CharField(max_length=60, blank=True, help_text='Chat template family, e.g. "qwen3".')
    family = models.CharField(
        max_length=100, blank=True, help_text='Model family, e.g. "Qwen3.5"; groups base and tuned.'
    )
    base_model = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tuned_models",
        help_text="The entry this model was fine-tuned from; empty for a base model.",
    )
    # An id, not a foreign key: training depends on benchmarks, never the other way round.
    tuned_from_run = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1, "a training run id is a positive whole number")],
        help_text="Id of the training run (training.TrainingRun) that produced this checkpoint.",
    )
    price_in_per_mtok = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0, "a price is not negative")],
        help_text="USD per million prompt tokens, when known (the leaderboard's cost column).",
    )
    price_out_per_mtok = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0, "a price is not negative")],
        help_text="USD per million completion tokens, when known.",
    )
    extra_body = models.JSONField(
        default=dict, blank=True, help_text='Merged into each request, e.g. {"chat_template_kwargs": {...}}.'
    )
    notes = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "model entry"
        verbose_name_plural = "model entries"

    def __str__(self) -> str:
        return self.name

    @property
    def endpoint(self) -> str:
        return self.base_url or self.checkpoint

    @property
    def is_tuned(self) -> bool:
        return self.base_model_id is not None or self.tuned_from_run is not None

    def snapshot(self) -> dict:
        """The model's identity as a run records it when it starts, so later edits of the entry move no row."""
        base = self.base_model
        return {
            "id": self.pk,
            "name": self.name,
            "org": self.org,
            "family": self.family,
            "params_b": self.params_b,
            "license": self.license,
            "backend": self.backend,
            "call_mode": self.call_mode,
            "served_name": self.served_name,
            "chat_template": self.chat_template,
            "tool_call_parser": self.tool_call_parser,
            "base_model": {"id": base.pk, "name": base.name} if base else None,
            "tuned_from_run": self.tuned_from_run,
            "tuned": self.is_tuned,
            "price_in_per_mtok": self.price_in_per_mtok,
            "price_out_per_mtok": self.price_out_per_mtok,
        }


class EvalRun(models.Model):
    """One evaluation of a model on a set of tasks and seeds, with everything needed to reproduce it."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        STOPPED = "stopped", "stopped (resumable)"
        FINISHED = "finished", "finished"
        FAILED = "failed", "failed (the model could not be reached)"

    class ToolMode(models.TextChoices):
        SANDBOX = "sandbox", "sandbox"
        REPLAY = "replay", "replay"
        LIVE = "live", "live"

    model = models.ForeignKey(ModelEntry, on_delete=models.PROTECT, related_name="runs")
    model_snapshot = models.JSONField(
        default=dict, blank=True, help_text="The model's identity when the run was created (ModelEntry.snapshot)."
    )
    benchmark = models.CharField(max_length=10, choices=Benchmark.choices, default=Benchmark.KOPA, db_index=True)
    benchmark_version = models.CharField(
        max_length=100, blank=True, help_text='e.g. "KOPA-Bench 2026-11" or "BFCL v4 (bfcl-eval 2026.3.23)".'
    )
    backend = models.CharField(max_length=20, choices=ModelEntry.Backend.choices)
    endpoint = models.CharField(max_length=500, blank=True, help_text="The base URL or checkpoint used.")
    sampling = models.JSONField(default=dict, help_text="temperature, top_p, max_tokens.")
    seeds = models.JSONField(default=list)
    tool_mode = models.CharField(max_length=10, choices=ToolMode.choices, default=ToolMode.SANDBOX)
    concurrency = models.PositiveIntegerField(default=8)
    max_steps = models.PositiveIntegerField(default=8)
    episode_timeout_s = models.FloatField(null=True, blank=True)
    task_codes = models.JSONField(default=list, help_text="The tasks of the run, in order.")
    task_checksum = models.CharField(max_length=64, help_text="sha256 of the run's tasks: what exactly it used.")
    data_versions = models.JSONField(default=dict, help_text="Task file -> its data_version.")
    git_commit = models.CharField(max_length=64, blank=True, help_text="The code's commit when the run started.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    summary = models.JSONField(default=dict, blank=True, help_text="metrics.aggregate: overall and per category.")
    board = models.JSONField(
        default=dict, blank=True, help_text="What the leaderboard shows of the summary (engine.leaderboard.digest)."
    )
    score = models.FloatField(
        null=True,
        blank=True,
        help_text="Overall success; empty before any episode or when the model was never reached.",
    )
    task_count = models.PositiveIntegerField(default=0, help_text="How many tasks (or BFCL entries) the run covers.")
    error = models.TextField(blank=True)
    job = models.ForeignKey(
        "kopa_site.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The latest job."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "evaluation run"
        indexes = [
            # Covers the leaderboard's two narrow queries (its boards, and which run per model), so neither reads
            # a row's large summary.
            models.Index(
                fields=[
                    "status",
                    "task_checksum",
                    "benchmark",
                    "score",
                    "model",
                    "finished_at",
                    "task_count",
                    "benchmark_version",
                ],
                name="evalrun_board_idx",
            )
        ]

    def __str__(self) -> str:
        return f"Run #{self.pk} of {self.model} ({self.status})"

    @property
    def episodes_planned(self) -> int:
        return len(self.task_codes) * len(self.seeds)

    @property
    def overall(self) -> dict:
        return (self.summary or {}).get("overall") or {}

    @property
    def identity(self) -> dict:
        """The model as it was when the run was created (the leaderboard shows and filters by this)."""
        return self.model_snapshot or {"id": self.model_id, "name": str(self.model_id)}


class TaskResult(models.Model):
    """One episode: a task under one seed, its transcript (messages, calls, observations) and its scores."""

    run = models.ForeignKey(EvalRun, on_delete=models.CASCADE, related_name="results")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="results")
    seed = models.IntegerField()
    transcript = models.JSONField(help_text="The engine's EpisodeResult: steps, calls, observations, answer.")
    api_call_ids = models.JSONField(default=list, help_text="ApiCall id of each call in transcript order (or null).")
    scores = models.JSONField(help_text="response, environment, action, efficiency, errors, account.")
    success = models.BooleanField(default=False, db_index=True)
    response_ok = models.BooleanField(default=False)
    environment_ok = models.BooleanField(default=False)
    action_ok = models.BooleanField(default=False)
    stop_reason = models.CharField(max_length=20)
    calls = models.PositiveIntegerField(default=0, help_text="Tool calls the model made, invalid ones included.")
    invalid_calls = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    wall_s = models.FloatField(default=0.0, help_text="Episode wall time.")
    model_latency_s = models.FloatField(default=0.0, help_text="Time spent waiting for the model.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "task__code", "seed"]
        constraints = [models.UniqueConstraint(fields=["run", "task", "seed"], name="task_result_unique_episode")]

    def __str__(self) -> str:
        return f"{self.task} seed {self.seed} in run #{self.run_id}"

    def api_call_source(self, step: int) -> str:
        """The ApiCall.source_id of the calls made in this episode's model turn `step`."""
        return f"{self.pk}/{step}"


class LeaderboardSettings(models.Model):
    """One row (pk 1) of leaderboard switches that admins change in the admin site."""

    public = models.BooleanField(
        default=False,
        help_text="Anyone may read the leaderboard page and its CSV / JSON export without signing in (read-only).",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "leaderboard settings"
        verbose_name_plural = "leaderboard settings"

    def __str__(self) -> str:
        return "Leaderboard: " + ("public" if self.public else "signed-in users only")

    @classmethod
    def current(cls) -> LeaderboardSettings:
        return cls.objects.filter(pk=1).first() or cls(pk=1)
