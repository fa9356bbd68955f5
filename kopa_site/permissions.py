"""API permissions by role: reads need any role; writes need the role the view asks for."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission

from kopa_site.roles import ADMIN, ANNOTATOR, has_role


class RolePermission(BasePermission):
    """Grants by role instead of per-model permission rows.

    A view may set `read_role` (default annotator) and `write_role` (default admin), or
    `action_roles = {"cancel": "reviewer", ...}` for individual actions.
    """

    message = "Your role does not allow this."

    def required_role(self, request, view) -> str:
        action = getattr(view, "action", None)
        action_roles = getattr(view, "action_roles", {}) or {}
        if action in action_roles:
            return action_roles[action]
        if request.method in SAFE_METHODS:
            return getattr(view, "read_role", ANNOTATOR)
        return getattr(view, "write_role", ADMIN)

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not user or not user.is_authenticated:
            return False
        return has_role(user, self.required_role(request, view))
