"""Admin actions that apply a service to each selected row: a row the service refuses is reported with its reason,
and the others still go through."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied

from kopa_site.errors import DomainError


def admin_apply_each(
    *, modeladmin, request, queryset: Iterable[Any], service: Callable[[Any], str], done: str, refused: str
) -> None:
    """Call `service(row)` for every selected row and report the lot as two admin messages.

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
