"""API permissions by role: reads need the annotator role, writes the role the view asks for.

A view (or viewset) declares what it needs with three attributes, all optional:

    read_role = "annotator"                # GET, HEAD, OPTIONS
    write_role = "admin"                   # POST, PUT, PATCH, DELETE
    action_roles = {"approve": "reviewer"}  # a viewset action, whatever its method

A system check walks the URL map at start-up and rejects a view that names an unknown role.
"""

from __future__ import annotations

from django.core import checks
from rest_framework.permissions import SAFE_METHODS, BasePermission

from kopa_site.roles import ADMIN, ANNOTATOR, ROLES, has_role

DEFAULT_READ_ROLE = ANNOTATOR
DEFAULT_WRITE_ROLE = ADMIN


class RolePermission(BasePermission):
    """Grants by role (annotator < reviewer < admin) instead of per-model permission rows."""

    message = "Your role does not allow this."

    def required_role(self, request, view) -> str:
        action = getattr(view, "action", None)
        action_roles = getattr(view, "action_roles", None) or {}
        if action in action_roles:
            return action_roles[action]
        if request.method in SAFE_METHODS:
            return getattr(view, "read_role", DEFAULT_READ_ROLE)
        return getattr(view, "write_role", DEFAULT_WRITE_ROLE)

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not user or not user.is_authenticated:
            return False
        role = self.required_role(request, view)
        if has_role(user, role):
            return True
        # DRF reads `message` from the instance, and permission instances live for one request.
        self.message = f"This needs the {role} role or higher."
        return False


def _declared_roles(view_class) -> list[tuple[str, object]]:
    declared = [(name, getattr(view_class, name)) for name in ("read_role", "write_role") if hasattr(view_class, name)]
    for action, role in (getattr(view_class, "action_roles", None) or {}).items():
        declared.append((f"action_roles[{action!r}]", role))
    return declared


def _walk(patterns):
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            yield from _walk(pattern.url_patterns)
        else:
            yield pattern


def check_view_roles(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """kopa_site.E001: every role a DRF view declares is one of annotator, reviewer, admin."""
    from django.urls import get_resolver

    errors = []
    seen = set()
    for pattern in _walk(get_resolver().url_patterns):
        view_class = getattr(pattern.callback, "cls", None)
        if view_class is None or view_class in seen:
            continue
        seen.add(view_class)
        for attribute, role in _declared_roles(view_class):
            if role not in ROLES:
                errors.append(
                    checks.Error(
                        f"{view_class.__module__}.{view_class.__qualname__}.{attribute} is {role!r}, not a role.",
                        hint=f"Use one of {', '.join(ROLES)}.",
                        obj=view_class,
                        id="kopa_site.E001",
                    )
                )
    return errors
