"""Admin for the trajectories app: synthesis runs, and trajectories with their steps and calls (read-only)."""

from django.contrib import admin, messages

from datasets.models import SynthesisRun, Trajectory, TrajectoryCall, TrajectoryStep
from datasets.services import trajectory_refilter


class TrajectoryStepInline(admin.TabularInline):
    model = TrajectoryStep
    extra = 0
    can_delete = False
    fields = ["index", "parent", "tool_name", "junction", "branch", "executed", "links", "picks"]
    readonly_fields = fields
    max_num = 0


class TrajectoryCallInline(admin.TabularInline):
    model = TrajectoryCall
    extra = 0
    can_delete = False
    fields = ["seq", "round", "page", "tool_name", "arguments", "ok", "api_call"]
    readonly_fields = fields
    max_num = 0


@admin.register(SynthesisRun)
class SynthesisRunAdmin(admin.ModelAdmin):
    list_display = ["id", "status", "snapshot", "job", "created_by", "created_at", "finished_at"]
    list_filter = ["status"]
    raw_id_fields = ["job", "snapshot", "created_by"]
    readonly_fields = ["created_at", "started_at", "finished_at"]


@admin.register(Trajectory)
class TrajectoryAdmin(admin.ModelAdmin):
    list_display = ["id", "status", "length", "junction_tags", "generator", "failed_stage", "run", "created_at"]
    list_filter = ["status", "generator", "failed_stage", "length"]
    search_fields = ["request", "answer", "tool_tags", "template_id"]
    raw_id_fields = ["run", "snapshot", "edges"]
    readonly_fields = ["created_at", "updated_at", "dedupe_key", "template_id", "template"]
    inlines = [TrajectoryStepInline, TrajectoryCallInline]
    actions = ["refilter"]

    @admin.action(description="Run the quality filters again (rules)")
    def refilter(self, request, queryset):
        for trajectory in queryset.prefetch_related("calls__step"):
            trajectory_refilter(trajectory=trajectory)
        messages.success(
            request, f"Filters ran again on {queryset.count()} trajector{'y' if queryset.count() == 1 else 'ies'}."
        )
