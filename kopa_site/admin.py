"""Admin for jobs: read-only rows with pretty JSON, filters, and a cancel action that calls the service."""

import json

from django.contrib import admin
from django.utils.html import format_html

from kopa_site.admin_actions import admin_apply_each
from kopa_site.jobs import job_cancel
from kopa_site.models import Job


def _pretty(value) -> str:
    return format_html('<pre style="white-space: pre-wrap">{}</pre>', json.dumps(value, indent=2, ensure_ascii=False))


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "status", "percent", "progress_message", "created_by", "created_at", "finished_at"]
    list_filter = ["status", "kind", "cluster", "created_at"]
    search_fields = ["kind", "progress_message", "error", "task_id"]
    date_hierarchy = "created_at"
    list_select_related = ["created_by"]
    actions = ["cancel_jobs"]
    fieldsets = [
        (None, {"fields": ["kind", "status", "cluster", "created_by", "attempts", "task_id"]}),
        (
            "Progress",
            {"fields": ["progress_done", "progress_total", "progress_message", "cancel_requested", "cancelled_by"]},
        ),
        ("Times", {"fields": ["created_at", "started_at", "heartbeat_at", "finished_at"]}),
        ("Data", {"fields": ["params_pretty", "result_pretty", "log_pretty"]}),
        ("Failure", {"fields": ["error", "traceback_pre"]}),
    ]

    def get_readonly_fields(self, request, obj=None):
        return [field for fieldset in self.fieldsets for field in fieldset[1]["fields"]]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        # Rows are written by the runner and the job services only; the admin shows them read-only.
        return False

    @admin.display(description="params")
    def params_pretty(self, job):
        return _pretty(job.params)

    @admin.display(description="result")
    def result_pretty(self, job):
        return _pretty(job.result)

    @admin.display(description="log")
    def log_pretty(self, job):
        lines = "\n".join(f"{line['t']} {line['level']:7} {line['msg']}" for line in job.log)
        return format_html('<pre style="white-space: pre-wrap">{}</pre>', lines)

    @admin.display(description="traceback")
    def traceback_pre(self, job):
        return format_html("<pre>{}</pre>", job.traceback) if job.traceback else "-"

    @admin.display(description="%")
    def percent(self, job):
        return job.percent

    @admin.action(description="Cancel selected jobs")
    def cancel_jobs(self, request, queryset):
        def cancel(job):
            job_cancel(job=job, user=request.user)
            return f"job #{job.pk}"

        admin_apply_each(
            self, request, queryset, service=cancel, done="Cancelled or asked to stop", refused="Not cancelled"
        )
