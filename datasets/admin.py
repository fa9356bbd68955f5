"""Admin for the trajectories app: synthesis runs, trajectories with their steps and calls (read-only), and the
review console's rows (policy, decisions, revisions, frozen versions). Actions call the console's services."""

import json

from django.contrib import admin, messages
from django.utils import timezone
from django.utils.html import format_html

from datasets import review
from datasets.models import (
    DatasetVersion,
    DatasetVersionItem,
    ReviewDecision,
    ReviewPolicy,
    SynthesisRun,
    Trajectory,
    TrajectoryCall,
    TrajectoryRevision,
    TrajectoryStep,
)
from datasets.services import trajectory_refilter


def _pretty_json(value) -> str:
    return format_html('<pre style="white-space: pre-wrap">{}</pre>', json.dumps(value, indent=2, ensure_ascii=False))


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


class ReviewDecisionInline(admin.TabularInline):
    model = ReviewDecision
    extra = 0
    can_delete = False
    fields = ["created_at", "user", "kind", "decision", "reason", "note", "version", "retracted_at"]
    readonly_fields = fields
    max_num = 0


@admin.register(Trajectory)
class TrajectoryAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "status",
        "length",
        "junction_tags",
        "generator",
        "failed_stage",
        "version",
        "decision_count",
        "held_by",
        "run",
        "created_at",
    ]
    list_filter = ["status", "generator", "failed_stage", "length", "decision_count"]
    search_fields = ["request", "answer", "tool_tags", "template_id"]
    raw_id_fields = ["run", "snapshot", "edges", "held_by"]
    readonly_fields = [
        "created_at",
        "updated_at",
        "dedupe_key",
        "template_id",
        "template",
        "version",
        "decision_count",
        "held_by",
        "held_since",
        "held_until",
    ]
    inlines = [TrajectoryStepInline, TrajectoryCallInline, ReviewDecisionInline]
    actions = ["refilter", "bulk_approve", "bulk_reject_duplicate", "release_leases", "freeze_version"]

    def _bulk(self, request, queryset, decision: str, reason: str = ""):
        actionable = queryset.filter(status__in=[Trajectory.Status.PENDING_REVIEW, Trajectory.Status.DISPUTED])
        try:
            done = review.trajectory_bulk_decide(
                queryset=queryset,
                user=request.user,
                decision=decision,
                reason=reason,
                note="admin action",
                expected_count=actionable.count(),
            )
        except review.ReviewError as exc:
            messages.error(request, str(exc))
            return
        messages.success(request, f"{done} pending or disputed trajector{'y' if done == 1 else 'ies'}: {decision}.")

    @admin.action(description="Approve (bulk decision on the pending or disputed ones)")
    def bulk_approve(self, request, queryset):
        self._bulk(request, queryset, "approve")

    @admin.action(description="Reject as duplicate (bulk decision on the pending or disputed ones)")
    def bulk_reject_duplicate(self, request, queryset):
        self._bulk(request, queryset, "reject", "duplicate")

    @admin.action(description="Return to the queue (release leases)")
    def release_leases(self, request, queryset):
        released = queryset.filter(held_by__isnull=False).update(held_by=None, held_since=None, held_until=None)
        messages.success(request, f"{released} lease(s) released.")

    @admin.action(description="Freeze the approved ones as a new dataset version")
    def freeze_version(self, request, queryset):
        try:
            version = review.dataset_version_freeze(
                name=f"admin-{timezone.now():%Y%m%d-%H%M%S}",
                queryset=queryset,
                user=request.user,
                filter_params={"ids": sorted(queryset.values_list("pk", flat=True))[:1000]},
            )
        except review.ReviewError as exc:
            messages.error(request, str(exc))
            return
        messages.success(request, f"Froze {version.item_count} approved trajectories as {version.name}.")

    @admin.action(description="Run the quality filters again (rules)")
    def refilter(self, request, queryset):
        for trajectory in queryset.prefetch_related("calls__step"):
            trajectory_refilter(trajectory=trajectory)
        messages.success(
            request, f"Filters ran again on {queryset.count()} trajector{'y' if queryset.count() == 1 else 'ies'}."
        )


@admin.register(ReviewPolicy)
class ReviewPolicyAdmin(admin.ModelAdmin):
    list_display = ["id", "overlap", "lease_minutes", "updated_by", "updated_at"]
    readonly_fields = ["updated_by", "updated_at"]

    def has_add_permission(self, request):
        return not ReviewPolicy.objects.exists()

    def save_model(self, request, obj, form, change):
        obj.updated_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(ReviewDecision)
class ReviewDecisionAdmin(admin.ModelAdmin):
    list_display = ["id", "trajectory", "user", "kind", "decision", "reason", "version", "seconds", "created_at"]
    list_filter = ["kind", "decision", "reason", "created_at", ("retracted_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "note", "=trajectory__id"]
    list_select_related = ["user", "trajectory"]
    raw_id_fields = ["trajectory", "user"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(TrajectoryRevision)
class TrajectoryRevisionAdmin(admin.ModelAdmin):
    list_display = ["id", "trajectory", "version", "kind", "user", "note", "undone", "created_at"]
    list_filter = ["kind", "undone", "created_at"]
    search_fields = ["user__username", "note", "=trajectory__id"]
    list_select_related = ["user", "trajectory"]
    fields = ["trajectory", "version", "kind", "user", "created_at", "note", "undone", "before_json", "after_json"]
    readonly_fields = fields

    @admin.display(description="before")
    def before_json(self, obj):
        return _pretty_json(obj.before)

    @admin.display(description="after")
    def after_json(self, obj):
        return _pretty_json(obj.after)

    def has_add_permission(self, request):
        return False


class FrozenAdmin(admin.ModelAdmin):
    """Frozen rows: shown, never added, changed or deleted here."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(DatasetVersion)
class DatasetVersionAdmin(FrozenAdmin):
    """Frozen: nothing here changes a version; the export action starts the same job as the console."""

    list_display = ["name", "item_count", "short_checksum", "created_by", "created_at", "export_path"]
    list_filter = ["created_at"]
    search_fields = ["name", "description", "checksum"]
    list_select_related = ["created_by"]
    fields = [
        "name",
        "description",
        "item_count",
        "checksum",
        "filter_json",
        "datasheet_json",
        "created_by",
        "created_at",
        "export_job",
        "export_path",
        "exported_at",
    ]
    readonly_fields = fields
    actions = ["export"]

    @admin.display(description="checksum")
    def short_checksum(self, obj):
        return obj.checksum[:12]

    @admin.display(description="filter")
    def filter_json(self, obj):
        return _pretty_json(obj.filter)

    @admin.display(description="datasheet")
    def datasheet_json(self, obj):
        return _pretty_json(obj.datasheet)

    @admin.action(description="Export (OpenAI JSONL + Hugging Face folder) as a job")
    def export(self, request, queryset):
        for version in queryset:
            job = review.dataset_version_export_start(version=version, user=request.user)
            messages.success(request, f"{version.name}: export job #{job.pk} started.")


@admin.register(DatasetVersionItem)
class DatasetVersionItemAdmin(FrozenAdmin):
    list_display = ["id", "version", "trajectory", "trajectory_version"]
    list_filter = ["version"]
    search_fields = ["=trajectory__id", "version__name"]
    list_select_related = ["version"]
    fields = ["version", "trajectory", "trajectory_version", "item_json"]
    readonly_fields = fields

    @admin.display(description="item")
    def item_json(self, obj):
        return _pretty_json(obj.item)
