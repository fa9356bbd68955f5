"""Jobs pages: the list with filters, a job's live detail (htmx polls a partial), cancel and start."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from kopa_site.errors import refused_with, refuses_to
from kopa_site.filtersets import JobFilterSet
from kopa_site.jobs import JobError, get_kind, job_can_cancel, job_cancel, job_kinds, job_start, kinds_startable_by
from kopa_site.models import Job
from kopa_site.roles import ANNOTATOR, has_role

PAGE_SIZE = 50


def _require_role(request) -> None:
    if not has_role(request.user, ANNOTATOR):
        raise PermissionDenied("Viewing jobs needs the annotator role or higher; ask an admin for a role.")


def _pretty(value) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _live_context(request, job: Job) -> dict:
    return {
        "job": job,
        "can_cancel": job_can_cancel(job=job, user=request.user),
        "result_json": _pretty(job.result) if job.result is not None else "",
    }


@login_required
@require_GET
def job_list(request):
    _require_role(request)
    filterset = JobFilterSet(request.GET, queryset=Job.objects.select_related("created_by"))
    jobs = filterset.qs if filterset.is_valid() else Job.objects.none()
    page = Paginator(jobs, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    kinds = sorted(set(job_kinds()) | set(Job.objects.order_by().values_list("kind", flat=True).distinct()))
    startable = [kind for kind in kinds_startable_by(request.user) if not kind.required_params()]
    return render(
        request,
        "jobs/list.html",
        {
            "page": page,
            "filterset": filterset,
            "kinds": kinds,
            "statuses": Job.Status.choices,
            "selected_kind": request.GET.get("kind", ""),
            "selected_statuses": request.GET.getlist("status"),
            "query": query.urlencode(),
            "startable": startable,
        },
    )


@login_required
@require_GET
def job_detail(request, pk: int):
    _require_role(request)
    job = get_object_or_404(Job.objects.select_related("created_by", "cancelled_by"), pk=pk)
    try:
        kind = get_kind(job.kind)
    except JobError:
        kind = None
    context = _live_context(request, job)
    context.update({"kind": kind, "params_json": _pretty(job.params)})
    return render(request, "jobs/detail.html", context)


@login_required
@require_GET
def job_live(request, pk: int):
    """The part of the detail page that changes while a job runs; htmx swaps it every two seconds."""
    _require_role(request)
    job = get_object_or_404(Job.objects.select_related("created_by", "cancelled_by"), pk=pk)
    return render(request, "jobs/_live.html", _live_context(request, job))


def _cancelled(request, job: Job, notice: str, level: int):
    """The outcome of a cancel: htmx swaps in the live part with the notice, a plain POST goes back to the page."""
    if request.headers.get("HX-Request"):
        job.refresh_from_db()
        return render(request, "jobs/_live.html", {**_live_context(request, job), "notice": notice})
    messages.add_message(request, level, notice)
    return redirect("jobs:detail", pk=job.pk)


def _cancel_refused(request, exc: Exception, pk: int):
    return _cancelled(request, get_object_or_404(Job, pk=pk), str(exc), messages.ERROR)


@login_required
@require_POST
@refused_with(_cancel_refused)
def job_cancel_view(request, pk: int):
    _require_role(request)
    job = job_cancel(job=get_object_or_404(Job, pk=pk), user=request.user)
    if job.status == Job.Status.CANCELLED:
        return _cancelled(request, job, f"Job #{job.pk} cancelled.", messages.SUCCESS)
    return _cancelled(request, job, f"Job #{job.pk} was asked to stop; it stops at its next check.", messages.INFO)


@login_required
@require_POST
@refuses_to("jobs:list")
def job_start_view(request):
    _require_role(request)
    name = request.POST.get("kind", "")
    allowed = {kind.name: kind for kind in kinds_startable_by(request.user)}
    if name not in allowed:
        raise PermissionDenied(f"You cannot start {name or 'that job'!r} from this page.")
    job = job_start(kind=name, params={}, user=request.user)
    messages.success(
        request, gettext("Started %(title)s as job #%(job)s.") % {"title": allowed[name].title, "job": job.pk}
    )
    return redirect("jobs:detail", pk=job.pk)


urlpatterns = [
    path("", job_list, name="list"),
    path("start/", job_start_view, name="start"),
    path("<int:pk>/", job_detail, name="detail"),
    path("<int:pk>/live/", job_live, name="live"),
    path("<int:pk>/cancel/", job_cancel_view, name="cancel"),
]
