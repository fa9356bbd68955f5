"""Serializers of the trajectories API."""

from __future__ import annotations

from rest_framework import serializers

from datasets.models import SynthesisRun, Trajectory, TrajectoryCall, TrajectoryStep
from datasets.services import RUN_DEFAULTS, SynthesisError, check_run_params
from graphs.models import GraphSnapshot


class SynthesisRunSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="synthesisrun-detail")
    snapshot_version = serializers.IntegerField(source="snapshot.version", read_only=True, allow_null=True)
    trajectory_count = serializers.IntegerField(read_only=True, help_text="Stored trajectories (kept and filtered).")
    kept_count = serializers.IntegerField(read_only=True, help_text="Trajectories pending review.")
    created_by = serializers.CharField(source="created_by.username", read_only=True, allow_null=True)

    class Meta:
        model = SynthesisRun
        fields = [
            "id",
            "url",
            "status",
            "snapshot",
            "snapshot_version",
            "params",
            "counters",
            "diversity",
            "error",
            "job",
            "trajectory_count",
            "kept_count",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class SynthesisRunCreateSerializer(serializers.Serializer):
    snapshot = serializers.PrimaryKeyRelatedField(
        queryset=GraphSnapshot.objects.defer("node_link"),
        required=False,
        allow_null=True,
        default=None,
        help_text="The graph snapshot to walk; default: the latest.",
    )
    params = serializers.JSONField(default=dict, help_text=f"Overrides of {sorted(RUN_DEFAULTS)}.")

    def validate_params(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("params must be a JSON object")
        try:
            check_run_params(value)
        except SynthesisError as exc:
            raise serializers.ValidationError(str(exc)) from None
        return value


class TrajectorySerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="trajectory-detail")

    class Meta:
        model = Trajectory
        fields = [
            "id",
            "url",
            "status",
            "request",
            "answer",
            "short_answer",
            "junctions",
            "length",
            "tool_names",
            "providers",
            "template_id",
            "generator",
            "failed_stage",
            "run",
            "snapshot",
            "created_at",
        ]
        read_only_fields = fields


class TrajectoryStepSerializer(serializers.ModelSerializer):
    class Meta:
        model = TrajectoryStep
        fields = [
            "index",
            "parent",
            "tool",
            "tool_name",
            "junction",
            "branch",
            "executed",
            "links",
            "picks",
            "condition",
            "comparison",
            "answer",
        ]
        read_only_fields = fields


class TrajectoryCallSerializer(serializers.ModelSerializer):
    step = serializers.IntegerField(source="step.index", read_only=True)

    class Meta:
        model = TrajectoryCall
        fields = [
            "seq",
            "step",
            "round",
            "page",
            "branch",
            "tool_name",
            "arguments",
            "bindings",
            "observation",
            "ok",
            "latency_ms",
            "api_call",
        ]
        read_only_fields = fields


class TrajectoryDetailSerializer(TrajectorySerializer):
    steps = TrajectoryStepSerializer(many=True, read_only=True)
    calls = TrajectoryCallSerializer(many=True, read_only=True)
    edges = serializers.PrimaryKeyRelatedField(many=True, read_only=True, help_text="Verified edges used.")

    class Meta(TrajectorySerializer.Meta):
        fields = TrajectorySerializer.Meta.fields + [
            "template",
            "plan",
            "facts",
            "named",
            "filters",
            "schemas",
            "aliases",
            "clock",
            "mode",
            "generator_model",
            "generator_note",
            "dedupe_key",
            "attempt",
            "steps",
            "calls",
            "edges",
        ]
        read_only_fields = fields
