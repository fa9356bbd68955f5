"""Admin for KOPA-Bench: tasks (read-only: files are the source), models, runs (start, resume) and results."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from benchmarks.forms import MODEL_FORM_FIELDS
from benchmarks.models import EvalRun, LeaderboardSettings, ModelEntry, Task, TaskResult
from benchmarks.services import BenchError, eval_run_resume, model_entry_check
from kopa_site.admin_actions import run_resume_action


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ["code", "difficulty", "domain", "gold_calls", "data_version", "file", "is_active", "updated_at"]
    list_filter = ["is_active", "difficulty", "domain", "data_version"]
    search_fields = ["code", "request", "notes"]

    def has_add_permission(self, request):
        return False  # tasks come from the versioned task files (bench_load_tasks)

    def has_change_permission(self, request, obj=None):
        return False


class ModelEntryAdminForm(forms.ModelForm):
    class Meta:
        model = ModelEntry
        fields = MODEL_FORM_FIELDS

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        candidate = ModelEntry(pk=self.instance.pk, **{name: cleaned.get(name) for name in self.Meta.fields})
        try:
            model_entry_check(candidate)  # the same checks as the API and bench_run
        except BenchError as exc:
            raise forms.ValidationError(str(exc)) from None
        return cleaned


@admin.register(ModelEntry)
class ModelEntryAdmin(admin.ModelAdmin):
    form = ModelEntryAdminForm
    list_display = ["name", "family", "params_b", "base_model", "backend", "call_mode", "endpoint", "created_at"]
    list_filter = ["backend", "call_mode", "family", "org"]
    search_fields = ["name", "org", "notes"]
    readonly_fields = ["created_by", "created_at", "updated_at"]

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


class TaskResultInline(admin.TabularInline):
    model = TaskResult
    extra = 0
    can_delete = False
    max_num = 0
    fields = ["task", "seed", "success", "response_ok", "environment_ok", "action_ok", "stop_reason", "calls"]
    readonly_fields = fields
    show_change_link = True


@admin.register(EvalRun)
class EvalRunAdmin(admin.ModelAdmin):
    list_display = ["id", "model", "benchmark", "status", "backend", "git_commit", "created_at", "finished_at"]
    list_filter = ["benchmark", "status", "tool_mode", "backend"]
    search_fields = ["model__name", "git_commit", "task_checksum"]
    list_select_related = ["model"]
    raw_id_fields = ["job"]
    readonly_fields = [
        "model_snapshot",
        "benchmark",
        "benchmark_version",
        "board",
        "task_codes",
        "task_checksum",
        "data_versions",
        "git_commit",
        "summary",
        "error",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
    ]
    inlines = [TaskResultInline]
    actions = ["resume_runs"]

    def has_add_permission(self, request):
        return False  # a run is created with its task set pinned: the runs page, the API or bench_run

    resume_runs = run_resume_action(resume=eval_run_resume, description="Resume (stopped runs continue in a new job)")


@admin.register(TaskResult)
class TaskResultAdmin(admin.ModelAdmin):
    list_display = ["id", "run", "task", "seed", "success", "stop_reason", "calls", "wall_s"]
    list_filter = ["success", "stop_reason"]
    search_fields = ["task__code"]
    list_select_related = ["run__model", "task"]
    raw_id_fields = ["run", "task"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(LeaderboardSettings)
class LeaderboardSettingsAdmin(admin.ModelAdmin):
    """One row: whether the leaderboard is readable without signing in."""

    list_display = ["__str__", "public", "updated_at"]

    def has_add_permission(self, request):
        return not LeaderboardSettings.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        obj.pk = 1
        super().save_model(request, obj, form, change)
