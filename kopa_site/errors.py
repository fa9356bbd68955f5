"""One way to refuse a request: services raise a `DomainError` whose message says why, for the person who asked;
the API answers it as 400 (or the class's status, e.g. 409) with that message, and pages show it as an error
message and redirect (`refuses_to`, and the one resume view every run has, `run_resume_view`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext
from django.views.decorators.http import require_POST
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from kopa_site.page_helpers import require_role
from kopa_site.roles import REVIEWER


class DomainError(Exception):
    """A request that cannot be carried out as asked (bad input, a run in the wrong state, a job in progress).

    Its message is shown as is, so it names what was wrong and never carries a secret. `status_code` is the
    HTTP answer: 400, or 409 for a conflict with the current state that retrying later may resolve.
    """

    status_code = 400

    def as_dict(self) -> dict[str, Any]:
        return {"detail": str(self)}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus a DomainError as its status code with its message (and no traceback)."""
    if isinstance(exc, DomainError):
        return Response(exc.as_dict(), status=exc.status_code)
    return drf_exception_handler(exc, context)


def refuses_to(url_name: str, *, also: tuple[type[Exception], ...] = ()) -> Callable:
    """For a page view that starts or changes work: a DomainError it raises (or one of `also`) becomes an error
    message and a redirect to `url_name`, filled with the view's own URL arguments (a run's pk) when it has any.

    The view keeps only its success path: call the services, add the success message, redirect.
    """
    refused = (DomainError, *also)

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            try:
                return view(request, *args, **kwargs)
            except refused as exc:
                messages.error(request, str(exc))
                return redirect(url_name, *args, **kwargs)

        return wrapper

    return decorate


def run_resume_view(*, model, resume: Callable, url_name: str, message: str) -> Callable[..., HttpResponse]:
    """The page view that continues a stopped run in a new job (reviewers and up), then shows the run's page.

    `resume(run=, user=)` is the app's service; `message` is a translatable text (marked with gettext_noop at
    the call site) filled with the run's and the job's numbers, e.g.
    "Run #%(run)s continues as job #%(job)s; its stored trials are kept."
    """

    @login_required
    @require_POST
    @refuses_to(url_name)
    def run_resume(request, pk: int):
        require_role(request, REVIEWER)
        run = get_object_or_404(model, pk=pk)
        job = resume(run=run, user=request.user)
        messages.success(request, gettext(message) % {"run": run.pk, "job": job.pk})
        return redirect(url_name, pk=run.pk)

    return run_resume
