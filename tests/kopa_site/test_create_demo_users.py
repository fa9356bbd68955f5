"""create_demo_users: one user per role, logins printed, safe to run again."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.authtoken.models import Token

from kopa_site.roles import ADMIN, ANNOTATOR, REVIEWER, role_of

pytestmark = pytest.mark.django_db


def _run(*args) -> str:
    out = io.StringIO()
    call_command("create_demo_users", *args, stdout=out)
    return out.getvalue()


def _table(output: str) -> dict[str, list[str]]:
    """username -> the other cells of its row."""
    rows = [
        line.split() for line in output.splitlines() if line.split() and line.split()[0] in (ANNOTATOR, REVIEWER, ADMIN)
    ]
    return {cells[1]: cells for cells in rows}


@pytest.mark.smoke
def test_it_creates_one_user_per_role_and_prints_their_logins():
    output = _run("--password", "kopa-demo", "--base-url", "http://kopa.test:8000")
    lines = output.splitlines()
    assert re.match(r"^role\s+username\s+password$", lines[0])
    assert _table(output) == {
        "annotator": ["annotator", "annotator", "kopa-demo"],
        "reviewer": ["reviewer", "reviewer", "kopa-demo"],
        "admin": ["admin", "admin", "kopa-demo"],
    }
    assert "Log in at http://kopa.test:8000/accounts/login/" in lines
    for role in (ANNOTATOR, REVIEWER, ADMIN):
        user = authenticate(username=role, password="kopa-demo")
        assert user is not None and role_of(user) == role


def test_the_admin_is_a_superuser_and_staff_and_the_others_are_neither():
    _run("--password", "kopa-demo")
    users = {u.username: u for u in get_user_model().objects.all()}
    assert users["admin"].is_superuser and users["admin"].is_staff
    for name in ("annotator", "reviewer"):
        assert not users[name].is_superuser and not users[name].is_staff


def test_without_a_password_it_generates_and_prints_one_per_user():
    table = _table(_run())
    passwords = {name: cells[2] for name, cells in table.items()}
    assert len(set(passwords.values())) == 3
    for name, password in passwords.items():
        assert len(password) >= 12
        assert authenticate(username=name, password=password) is not None


def test_running_again_keeps_the_passwords_and_the_users():
    first = {name: cells[2] for name, cells in _table(_run()).items()}
    again = _run()
    assert {cells[2] for cells in _table(again).values()} == {"(unchanged)"}
    assert "pass --password to reset them" in again
    assert get_user_model().objects.count() == 3
    for name, password in first.items():
        assert authenticate(username=name, password=password) is not None


def test_a_given_password_resets_existing_users_and_restores_their_roles():
    _run()
    reviewer = get_user_model().objects.get(username="reviewer")
    reviewer.groups.clear()
    _run("--password", "another-pass")
    assert role_of(authenticate(username="reviewer", password="another-pass")) == REVIEWER


def test_tokens_are_printed_and_work(client):
    from rest_framework.test import APIClient

    table = _table(_run("--password", "kopa-demo", "--tokens"))
    token = table["reviewer"][3]
    assert Token.objects.get(user__username="reviewer").key == token
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/v1/stats/").status_code == 200


def test_a_too_short_password_is_refused_and_creates_nobody():
    with pytest.raises(CommandError, match="^--password: "):
        _run("--password", "short")
    assert get_user_model().objects.count() == 0
