"""One way to refuse a request: services raise a `DomainError` whose message says why, for the person who asked;
the API answers it as 400 (or the class's status, e.g. 409) with that message, and pages show it as an error
message and redirect (`refuses_to`, and the one resume view every run has, `run_resume_view`) or, where the page
shows the refusal itself (a form again, an htmx fragment, a conflict screen), answer it with `refused_with`.
Input a view parses itself is refused the same way (`parsed`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext
from django.views.decorators.http import require_POST
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from kopa_site.page_helpers import require_role, run_started
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


def refused_with(respond: Callable[..., HttpResponse], *, also: tuple[type[Exception], ...] = ()) -> Callable:
    """For a page view that shows a refusal itself: a DomainError it raises (or one of `also`) is answered by
    `respond(request, error, *args, **kwargs)`, called with the view's own URL arguments (e.g. the form shown again
    with the reason on it, an htmx fragment, the conflict screen with both versions).

    The view keeps only its success path; `respond` keeps what the person sees when it is refused.
    """
    refused = (DomainError, *also)

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            try:
                return view(request, *args, **kwargs)
            except refused as exc:
                return respond(request, exc, *args, **kwargs)

        return wrapper

    return decorate


def refuses_to(to: str | Callable[..., str], *, also: tuple[type[Exception], ...] = ()) -> Callable:
    """For a page view that starts or changes work: a DomainError it raises (or one of `also`) becomes an error
    message and a redirect to `to`: a URL name, filled with the view's own URL arguments (a run's pk) when it has
    any, or a function `(request, *args, **kwargs) -> URL` for a page that keeps a query (the queue's filters).

    The view keeps only its success path: call the services, add the success message, redirect.
    """

    def back(request, exc: Exception, *args, **kwargs) -> HttpResponse:
        messages.error(request, str(exc))
        if callable(to):
            return redirect(to(request, *args, **kwargs))
        return redirect(to, *args, **kwargs)

    return refused_with(back, also=also)


Parsed = TypeVar("Parsed")


def parsed(parse: Callable[[str], Parsed], text: str, *, refusal: str | None = None) -> Parsed:
    """`parse(text)` (int, json.loads, a version token's reader), or a DomainError when the text does not parse.

    refusal: the message; `%(error)s` in it stands for the parser's own words (JSON's "Expecting value"), and
    without one the parser's words are the message (for parsers whose ValueError a person can act on).
    """
    try:
        return parse(text)
    except ValueError as exc:  # json.JSONDecodeError is one
        words = getattr(exc, "msg", None) or str(exc)
        raise DomainError(words if refusal is None else refusal.replace("%(error)s", words)) from None


def posted_whole_numbers(request, names: Iterable[str]) -> dict[str, int]:
    """The whole numbers a start form posted under `names`, blank ones left out (the service's defaults apply);
    one that is not a whole number is refused by name, and nothing is started."""
    numbers = {}
    for name in names:
        value = request.POST.get(name, "").strip()
        if value:
            refusal = gettext("%(name)s must be a whole number; nothing was started.") % {"name": name}
            numbers[name] = parsed(int, value, refusal=refusal)
    return numbers


def run_resume_view(*, model, resume: Callable, message: str) -> Callable[..., HttpResponse]:
    """The page view that continues a stopped run in a new job (reviewers and up), then shows the run's page
    (its get_absolute_url, where a refusal is shown too).

    `resume(run=, user=)` is the app's service; `message` is a translatable text (marked with gettext_noop at
    the call site) filled with the run's and the job's numbers, e.g.
    "Run #%(run)s continues as job #%(job)s; its stored trials are kept."
    """

    @login_required
    @require_POST
    @refuses_to(lambda request, pk: model(pk=pk).get_absolute_url())
    def run_resume(request, pk: int):
        require_role(request, REVIEWER)
        run = get_object_or_404(model, pk=pk)
        job = resume(run=run, user=request.user)
        return run_started(request, run=run, job=job, message=gettext(message))

    return run_resume
