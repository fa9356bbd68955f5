"""Serializers of the training API."""

from __future__ import annotations

from rest_framework import serializers

from datasets.models import DatasetVersion
from training.engine.presets import PRESETS
from training.models import TrainingMetric, TrainingRun


class TrainingRunSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="trainingrun-detail")
    label = serializers.CharField(read_only=True)
    dataset_version = serializers.SlugRelatedField(slug_field="name", read_only=True, allow_null=True)

    class Meta:
        model = TrainingRun
        fields = [
            "id",
            "url",
            "label",
            "name",
            "preset",
            "base_model_path",
            "dataset_path",
            "dataset_version",
            "tool_mode",
            "overrides",
            "config",
            "output_dir",
            "status",
            "phase",
            "step",
            "total_steps",
            "last_metrics",
            "error",
            "log_tail",
            "checkpoint",
            "model_entry",
            "base_entry",
            "base_eval",
            "tuned_eval",
            "eval_note",
            "job",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class TrainingRunCreateSerializer(serializers.Serializer):
    preset = serializers.ChoiceField(choices=list(PRESETS))
    dataset_version = serializers.SlugRelatedField(
        slug_field="name",
        queryset=DatasetVersion.objects.all(),
        help_text="The name of the frozen dataset version to train on; the job writes its items for the run.",
    )
    base_model_path = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    overrides = serializers.DictField(required=False, default=dict)
    tool_mode = serializers.ChoiceField(choices=TrainingRun.ToolMode.choices, required=False, default="sandbox")
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class TrainingMetricSerializer(serializers.ModelSerializer):
    class Meta:
        model = TrainingMetric
        fields = ["phase", "step", "values", "created_at"]
