"""Users with a role, for tests."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from kopa_site.roles import ADMIN, ANNOTATOR, REVIEWER, user_set_role


def make_user(username: str, role: str | None = None, **fields):
    """An active user holding `role` (annotator, reviewer, admin) or none."""
    user = get_user_model().objects.create_user(username=username, password="pw-" + username, **fields)
    user_set_role(user=user, role=role)
    return user


@dataclass
class RoleUsers:
    annotator: object
    other_annotator: object
    reviewer: object
    admin: object
    outsider: object


def make_role_users() -> RoleUsers:
    """One user per role, a second annotator, and an outsider with no role."""
    return RoleUsers(
        annotator=make_user("anna", ANNOTATOR),
        other_annotator=make_user("otto", ANNOTATOR),
        reviewer=make_user("rita", REVIEWER),
        admin=make_user("ada", ADMIN),
        outsider=make_user("oscar", None),
    )
