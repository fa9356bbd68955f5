"""Serializers of the EDGE graph API."""

from __future__ import annotations

from rest_framework import serializers

from apis.models import Tool
from graphs.engine import transforms
from graphs.models import CandidateEdge, EdgeTrial, GraphSnapshot, VerificationRun
from graphs.services import RUN_DEFAULTS


class ToolRefSerializer(serializers.ModelSerializer):
    provider = serializers.CharField(source="service.provider.code", read_only=True)

    class Meta:
        model = Tool
        fields = ["id", "function_name", "name_ko", "provider"]
        read_only_fields = fields


class CandidateEdgeSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="candidateedge-detail")
    source_tool = ToolRefSerializer(read_only=True)
    target_tool = ToolRefSerializer(read_only=True)
    prob_viable = serializers.FloatField(read_only=True, help_text="P(theta > theta_verify).")

    class Meta:
        model = CandidateEdge
        fields = [
            "id",
            "url",
            "source_tool",
            "source_field",
            "target_tool",
            "target_param",
            "transform",
            "status",
            "score",
            "signals",
            "proposer",
            "alpha",
            "beta",
            "posterior_mean",
            "prob_viable",
            "trials_success",
            "trials_structural",
            "trials_environmental",
            "trials_skipped",
            "controls_passed",
            "controls_failed",
            "confusions_held",
            "confusions_failed",
            "domains",
            "reason",
            "decided_at",
            "note",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class CandidateEdgeCreateSerializer(serializers.Serializer):
    source_tool = serializers.PrimaryKeyRelatedField(queryset=Tool.objects.all())
    source_field = serializers.CharField(max_length=300, help_text='A record field, or two: "entX,entY".')
    target_tool = serializers.PrimaryKeyRelatedField(queryset=Tool.objects.all())
    target_param = serializers.CharField(max_length=300, help_text='A parameter, or two: "nx,ny".')
    transform = serializers.CharField(max_length=100, default="identity")
    score = serializers.FloatField(default=0.5, min_value=0.0, max_value=1.0)
    note = serializers.CharField(default="", allow_blank=True)

    def validate_transform(self, value: str) -> str:
        try:
            transforms.parse(value)
        except transforms.TransformError as exc:
            raise serializers.ValidationError(str(exc)) from None
        return value


class ProposeSerializer(serializers.Serializer):
    probe = serializers.BooleanField(default=False, help_text="Execute every tool with its examples first.")
    tool_ids = serializers.ListField(child=serializers.IntegerField(), required=False, allow_null=True, default=None)
    use_llm = serializers.BooleanField(required=False, allow_null=True, default=None)


class EdgeTrialSerializer(serializers.ModelSerializer):
    class Meta:
        model = EdgeTrial
        fields = [
            "id",
            "edge",
            "run",
            "seq",
            "round",
            "kind",
            "outcome",
            "failure_class",
            "detail",
            "values",
            "source_call",
            "target_call",
            "alpha_delta",
            "beta_delta",
            "created_at",
        ]
        read_only_fields = fields


class VerificationRunSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="verificationrun-detail")
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    job_status = serializers.CharField(source="job.status", read_only=True, allow_null=True, default=None)

    class Meta:
        model = VerificationRun
        fields = [
            "id",
            "url",
            "status",
            "params",
            "state",
            "counters",
            "job",
            "job_status",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class VerificationRunCreateSerializer(serializers.Serializer):
    params = serializers.DictField(required=False, default=dict, help_text=f"Run parameters; defaults: {RUN_DEFAULTS}.")


class GraphSnapshotSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="graphsnapshot-detail")

    class Meta:
        model = GraphSnapshot
        fields = ["id", "url", "version", "run", "stats", "refinement", "note", "created_at"]
        read_only_fields = fields


class GraphSnapshotCreateSerializer(serializers.Serializer):
    run = serializers.PrimaryKeyRelatedField(queryset=VerificationRun.objects.all(), required=False, allow_null=True)
    note = serializers.CharField(default="", allow_blank=True, max_length=300)
