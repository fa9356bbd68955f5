"""admin_apply_each: a service applied to every selected row; refusals are reported and the others go through."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.contrib import messages
from django.core.exceptions import PermissionDenied

from kopa_site.admin_actions import admin_apply_each
from kopa_site.errors import DomainError


class _Admin:
    def __init__(self):
        self.sent: list[tuple[str, int]] = []

    def message_user(self, request, message, level):
        self.sent.append((message, level))


def _resume(row):
    if row.pk == 2:
        raise DomainError("run #2 is still running")
    if row.pk == 3:
        raise PermissionDenied("only reviewers resume runs")
    row.resumed = True
    return f"run #{row.pk} as job #{row.pk + 10}"


def test_a_refused_row_is_reported_and_the_others_still_go_through():
    rows = [SimpleNamespace(pk=pk, resumed=False) for pk in (1, 2, 3, 4)]
    modeladmin = _Admin()

    admin_apply_each(modeladmin, None, rows, service=_resume, done="Resumed", refused="Not resumed")

    assert [row.resumed for row in rows] == [True, False, False, True]
    assert modeladmin.sent == [
        ("Resumed: run #1 as job #11; run #4 as job #14.", messages.SUCCESS),
        ("Not resumed: #2: run #2 is still running; #3: only reviewers resume runs", messages.WARNING),
    ]


def test_only_the_messages_that_apply_are_sent():
    modeladmin = _Admin()

    admin_apply_each(modeladmin, None, [SimpleNamespace(pk=2)], service=_resume, done="Resumed", refused="Not resumed")

    assert modeladmin.sent == [("Not resumed: #2: run #2 is still running", messages.WARNING)]


def test_an_error_that_is_not_a_refusal_propagates():
    def broken(row):
        raise RuntimeError("a bug, not a refusal")

    with pytest.raises(RuntimeError, match="a bug"):
        admin_apply_each(_Admin(), None, [SimpleNamespace(pk=1)], service=broken, done="Resumed", refused="Not resumed")
