"""Job kinds of the API catalog: importing the bundled catalog in the background."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from apis.services import catalog_import_bundled
from kopa_site.jobs import JobContext, job_kind
from kopa_site.models import Job
from kopa_site.roles import REVIEWER


@job_kind("catalog.import_bundled", title="Import bundled catalog", startable_by=REVIEWER)
def import_bundled(ctx: JobContext) -> dict:
    """Import the sandbox's own Swagger specs (apis/sandbox/specs/) as services and tools; re-runs update in place."""
    ctx.progress(0, 1, "reading the bundled specs")
    user_id = Job.objects.filter(pk=ctx.job_id).values_list("created_by_id", flat=True).first()
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    report = catalog_import_bundled(user=user)
    for service in report.services:
        touched = ", ".join(f"{t.tool.function_name} {t.status}" for t in service.touched_tools) or "no tool changes"
        ctx.log(f"{service.service.title or service.service.spec_base_url}: {service.status}; {touched}")
    for error in report.refused:
        ctx.log(error.report(), level="error")
    ctx.progress(1, 1, report.summary())
    return report.to_dict()
