"""Admin for training runs: read-mostly (runs are created through the start form or the API, which check the
config and the base model), with resume as an action, and the logged metrics inline."""

from __future__ import annotations

from django.contrib import admin

from kopa_site.admin_actions import run_resume_action
from training.models import TrainingMetric, TrainingRun
from training.services import training_run_resume


class TrainingMetricInline(admin.TabularInline):
    model = TrainingMetric
    fields = ["phase", "step", "values"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(TrainingRun)
class TrainingRunAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "name",
        "preset",
        "dataset_version",
        "status",
        "phase",
        "step",
        "total_steps",
        "model_entry",
        "created_at",
    ]
    list_filter = ["status", "preset", "tool_mode"]
    search_fields = ["name", "base_model_path", "dataset_path", "dataset_version__name", "error"]
    # Everything but the label: runs change only through their jobs (config, progress, results).
    readonly_fields = [f.name for f in TrainingRun._meta.concrete_fields if f.name not in ("id", "name")]
    inlines = [TrainingMetricInline]
    actions = ["resume_runs"]

    def has_add_permission(self, request):
        return False  # the start form and the API check the config and the base model first

    resume_runs = run_resume_action(
        resume=training_run_resume, description="Resume the selected runs from their last checkpoint"
    )
