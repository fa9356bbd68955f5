"""Admin for the EDGE graph: candidate edges (reset), their trials, verification runs and snapshots."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from graphs.models import CandidateEdge, EdgeTrial, GraphSnapshot, VerificationRun
from graphs.services import edge_reset


class EdgeTrialInline(admin.TabularInline):
    model = EdgeTrial
    extra = 0
    can_delete = False
    fields = [
        "run",
        "seq",
        "kind",
        "outcome",
        "failure_class",
        "source_call",
        "target_call",
        "alpha_delta",
        "beta_delta",
    ]
    readonly_fields = fields
    show_change_link = True
    max_num = 0


def _provider_filter(end: str):
    """A provider filter titled by the edge's end: both ends' filters were headed "provider" (issue 18)."""

    class ProviderFilter(admin.RelatedFieldListFilter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.title = _("source provider") if end == "source" else _("target provider")

    return ProviderFilter


@admin.register(CandidateEdge)
class CandidateEdgeAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "source_tool",
        "source_field",
        "transform",
        "target_tool",
        "target_param",
        "status",
        "score",
        "posterior_mean",
        "trials_success",
        "trials_structural",
        "proposer",
    ]
    list_filter = [
        "status",
        "proposer",
        ("source_tool__service__provider", _provider_filter("source")),
        ("target_tool__service__provider", _provider_filter("target")),
    ]
    search_fields = ["source_tool__function_name", "target_tool__function_name", "source_field", "target_param"]
    list_select_related = ["source_tool", "target_tool"]
    raw_id_fields = ["source_tool", "target_tool"]
    readonly_fields = ["created_at", "updated_at", "decided_at"]
    inlines = [EdgeTrialInline]
    actions = ["reset_edges"]

    @admin.action(description="Reset to proposed (keep trials on record)")
    def reset_edges(self, request, queryset):
        for edge in queryset:
            edge_reset(edge=edge)
        self.message_user(request, f"{queryset.count()} edge(s) reset.", messages.SUCCESS)


@admin.register(EdgeTrial)
class EdgeTrialAdmin(admin.ModelAdmin):
    list_display = ["id", "edge", "run", "seq", "kind", "outcome", "failure_class", "created_at"]
    list_filter = ["kind", "outcome"]
    search_fields = ["failure_class", "edge__source_tool__function_name", "edge__target_tool__function_name"]
    raw_id_fields = ["edge", "run", "source_call", "target_call"]
    readonly_fields = ["created_at"]
    list_select_related = ["edge__source_tool", "edge__target_tool", "run"]


@admin.register(VerificationRun)
class VerificationRunAdmin(admin.ModelAdmin):
    list_display = ["id", "status", "job", "created_by", "created_at", "started_at", "finished_at"]
    list_filter = ["status"]
    raw_id_fields = ["job", "created_by"]
    readonly_fields = ["created_at"]


@admin.register(GraphSnapshot)
class GraphSnapshotAdmin(admin.ModelAdmin):
    list_display = ["version", "run", "note", "created_by", "created_at"]
    raw_id_fields = ["run", "created_by"]
    readonly_fields = ["created_at"]
