"""The three roles (annotator < reviewer < admin) as auth groups, and how a user's role is read."""

from __future__ import annotations

ANNOTATOR = "annotator"
REVIEWER = "reviewer"
ADMIN = "admin"
ROLES = (ANNOTATOR, REVIEWER, ADMIN)
_RANK = {name: rank for rank, name in enumerate(ROLES, start=1)}


def role_of(user) -> str | None:
    """The highest role the user holds; superusers are admins. None for anonymous or role-less users."""
    if user is None or not user.is_authenticated:
        return None
    if user.is_superuser:
        return ADMIN
    names = getattr(user, "_kopa_group_names", None)
    if names is None:
        names = set(user.groups.values_list("name", flat=True))
        user._kopa_group_names = names
    held = [name for name in ROLES if name in names]
    return max(held, key=_RANK.__getitem__) if held else None


def has_role(user, minimum: str) -> bool:
    """True when the user's role is at least `minimum`."""
    role = role_of(user)
    return role is not None and _RANK[role] >= _RANK[minimum]
