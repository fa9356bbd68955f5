"""Serializers of the KOPA-Bench API."""

from __future__ import annotations

from rest_framework import serializers

from benchmarks.models import Benchmark, EvalRun, ModelEntry, Task, TaskResult
from benchmarks.services import RUN_DEFAULTS
from kopa_site.concurrency import version_from_token, version_token


class TaskSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="benchtask-detail")

    class Meta:
        model = Task
        fields = [
            "id",
            "url",
            "code",
            "request",
            "tools",
            "toolset",
            "categories",
            "domain",
            "difficulty",
            "clock",
            "gold",
            "answer",
            "ignore_args",
            "gold_calls",
            "notes",
            "data_version",
            "file",
            "source",
            "checksum",
            "is_active",
            "retired_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class ModelEntrySerializer(serializers.ModelSerializer):
    """A model; `api_key_env` names the variable that holds the endpoint's key, never the key itself."""

    url = serializers.HyperlinkedIdentityField(view_name="modelentry-detail")
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    is_tuned = serializers.BooleanField(read_only=True)
    version = serializers.SerializerMethodField(help_text="Send it back as expected_version with a change.")
    expected_version = serializers.CharField(
        write_only=True,
        required=False,
        help_text="The version you read (the `version` field); a change made since is refused with 409.",
    )

    class Meta:
        model = ModelEntry
        fields = [
            "id",
            "url",
            "name",
            "org",
            "params_b",
            "license",
            "family",
            "base_model",
            "tuned_from_run",
            "is_tuned",
            "price_in_per_mtok",
            "price_out_per_mtok",
            "backend",
            "call_mode",
            "base_url",
            "served_name",
            "api_key_env",
            "checkpoint",
            "tool_call_parser",
            "chat_template",
            "extra_body",
            "notes",
            "created_by",
            "created_at",
            "updated_at",
            "version",
            "expected_version",
        ]
        read_only_fields = ["id", "url", "is_tuned", "created_by", "created_at", "updated_at"]

    def get_version(self, entry: ModelEntry) -> str:
        return version_token(entry)

    def validate_expected_version(self, value: str):
        try:
            return version_from_token(value)
        except ValueError as error:
            raise serializers.ValidationError(str(error)) from None


class ModelRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = ModelEntry
        fields = ["id", "name", "org", "family", "params_b", "backend", "call_mode"]
        read_only_fields = fields


class EvalRunSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="evalrun-detail")
    model = ModelRefSerializer(read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    job_status = serializers.CharField(source="job.status", read_only=True, default=None)
    episodes_planned = serializers.IntegerField(read_only=True)

    class Meta:
        model = EvalRun
        fields = [
            "id",
            "url",
            "model",
            "model_snapshot",
            "benchmark",
            "benchmark_version",
            "backend",
            "endpoint",
            "status",
            "sampling",
            "seeds",
            "tool_mode",
            "concurrency",
            "max_steps",
            "episode_timeout_s",
            "task_codes",
            "task_checksum",
            "data_versions",
            "git_commit",
            "episodes_planned",
            "summary",
            "error",
            "job",
            "job_status",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class EvalRunCreateSerializer(serializers.Serializer):
    model = serializers.PrimaryKeyRelatedField(queryset=ModelEntry.objects.all())
    benchmark = serializers.ChoiceField(choices=Benchmark.choices, default=Benchmark.KOPA)
    categories = serializers.ListField(
        child=serializers.CharField(max_length=60),
        required=False,
        default=list,
        help_text="BFCL: its categories (empty: the default offline set).",
    )
    limit = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="BFCL: the first N entries of each category."
    )
    tasks = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, default=list, help_text="Task ids; empty: all."
    )
    seeds = serializers.ListField(child=serializers.IntegerField(), required=False, default=RUN_DEFAULTS["seeds"])
    concurrency = serializers.IntegerField(required=False, default=RUN_DEFAULTS["concurrency"])
    max_steps = serializers.IntegerField(required=False, default=RUN_DEFAULTS["max_steps"])
    tool_mode = serializers.ChoiceField(choices=EvalRun.ToolMode.choices, default=RUN_DEFAULTS["tool_mode"])
    sampling = serializers.DictField(required=False, default=dict, help_text="temperature, top_p, max_tokens.")
    episode_timeout_s = serializers.FloatField(required=False, allow_null=True, default=None)


class TaskResultSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="taskresult-detail")
    task = serializers.SlugRelatedField(slug_field="code", read_only=True)

    class Meta:
        model = TaskResult
        fields = [
            "id",
            "url",
            "run",
            "task",
            "seed",
            "success",
            "response_ok",
            "environment_ok",
            "action_ok",
            "stop_reason",
            "calls",
            "invalid_calls",
            "prompt_tokens",
            "completion_tokens",
            "wall_s",
            "model_latency_s",
            "created_at",
        ]
        read_only_fields = fields


class TaskResultDetailSerializer(TaskResultSerializer):
    class Meta(TaskResultSerializer.Meta):
        fields = [*TaskResultSerializer.Meta.fields, "transcript", "api_call_ids", "scores"]
        read_only_fields = fields


class LeaderboardRowSerializer(serializers.Serializer):
    """One model on a board (its best or latest finished run); categories come as "cat:<name>" keys."""

    rank = serializers.IntegerField()
    rank_ub = serializers.IntegerField(help_text="1 + the models whose 95 % interval lies wholly above.")
    model = serializers.CharField()
    family = serializers.CharField()
    params_b = serializers.FloatField(allow_null=True)
    tuned = serializers.BooleanField()
    base_model = serializers.CharField()
    tuned_from_run = serializers.IntegerField(allow_null=True)
    backend = serializers.CharField()
    call_mode = serializers.CharField()
    success = serializers.FloatField()
    success_low = serializers.FloatField()
    success_high = serializers.FloatField()
    pass1 = serializers.FloatField(allow_null=True)
    pass4 = serializers.FloatField(allow_null=True)
    pass_hat_k = serializers.IntegerField(allow_null=True)
    pass_hat = serializers.FloatField(allow_null=True)
    calls_per_task = serializers.FloatField(allow_null=True)
    tokens_per_task = serializers.FloatField()
    latency_mean_s = serializers.FloatField(allow_null=True)
    latency_p95_s = serializers.FloatField(allow_null=True)
    cost_usd_per_task = serializers.FloatField(allow_null=True)
    tasks = serializers.IntegerField()
    episodes = serializers.IntegerField()
    seeds = serializers.CharField()
    benchmark_version = serializers.CharField()
    task_checksum = serializers.CharField()
    git_commit = serializers.CharField()
    finished_at = serializers.CharField()
    ran_by = serializers.CharField()
    run_id = serializers.IntegerField()


class LeaderboardSerializer(serializers.Serializer):
    board = serializers.DictField(help_text="The board: benchmark, version, task checksum, tasks, runs.")
    boards = serializers.ListField(child=serializers.DictField(), help_text="Every board with finished runs.")
    categories = serializers.ListField(child=serializers.CharField())
    rows = LeaderboardRowSerializer(many=True)
