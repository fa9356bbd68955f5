"""Small helpers every app's pages share."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect

from kopa_site.roles import ANNOTATOR, has_role


def require_role(request, role: str = ANNOTATOR) -> None:
    """Refuse the page (403) unless the user holds `role` or a higher one."""
    if not has_role(request.user, role):
        raise PermissionDenied(f"This page needs the {role} role or higher; ask an admin for a role.")


def query_without_page(request) -> str:
    """The current query string without `page`, for pagination links that keep the filters."""
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


def run_started(request, *, run, job, message: str, **fields: Any) -> HttpResponse:
    """The answer to a page that started or resumed a run: `message` (already translated; `%(run)s`, `%(job)s` and
    any `fields` filled in) as a success message, then the run's own page."""
    messages.success(request, message % {"run": run.pk, "job": job.pk, **fields})
    return redirect(run)
