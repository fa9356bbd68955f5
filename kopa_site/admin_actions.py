"""Admin actions that apply a service to each selected row: a row the service refuses is reported with its reason,
and the others still go through."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied

from kopa_site.errors import DomainError


def admin_apply_each(
    modeladmin, request, queryset: Iterable[Any], *, service: Callable[[Any], str], done: str, refused: str
) -> None:
    """Call `service(row)` for every selected row and report the lot as two admin messages. The first three
    arguments are the admin action's own.

    `service` calls the app's service and returns what it did to that row ("run #3 as job #9"); a DomainError
    or PermissionDenied refuses that row alone. The success message is `done` and the rows' lines ("Resumed:
    run #3 as job #9; run #4 as job #10."); the warning is `refused` and each refused row's number and reason
    ("Not resumed: #5: run #5 is still running").
    """
    succeeded, refusals = [], []
    for row in queryset:
        try:
            succeeded.append(service(row))
        except (DomainError, PermissionDenied) as exc:
            refusals.append(f"#{row.pk}: {exc}")
    if succeeded:
        modeladmin.message_user(request, f"{done}: {'; '.join(succeeded)}.", messages.SUCCESS)
    if refusals:
        modeladmin.message_user(request, f"{refused}: {'; '.join(refusals)}", messages.WARNING)


def run_resume_action(*, resume: Callable[..., Any], description: str) -> Callable[..., None]:
    """The admin action that continues each selected stopped run in a new job (the admin's twin of
    kopa_site.errors.run_resume_view): `resume(run=, user=)` is the app's service, and a run it refuses is
    reported while the others still resume. Set it on the ModelAdmin as `resume_runs` and list that in `actions`."""

    @admin.action(description=description)
    def resume_runs(modeladmin, request, queryset) -> None:
        def resume_one(run) -> str:
            return f"run #{run.pk} as job #{resume(run=run, user=request.user).pk}"

        admin_apply_each(modeladmin, request, queryset, service=resume_one, done="Resumed", refused="Not resumed")

    return resume_runs
