"""Values every page template can use: the navigation and the signed-in user's role."""

from django.conf import settings
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext_lazy as _

from kopa_site.navigation import nav_links
from kopa_site.roles import ADMIN, ANNOTATOR, REVIEWER, has_role, role_of

ROLE_LABELS = {ANNOTATOR: _("annotator"), REVIEWER: _("reviewer"), ADMIN: _("admin")}


def site(request):
    user = getattr(request, "user", None)
    signed_in = user is not None and user.is_authenticated
    return {
        "KOPA_DEBUG": settings.DEBUG,
        # Lazy: pages that never show the header (error pages, partials) pay nothing.
        "nav": SimpleLazyObject(lambda: nav_links(user=user, path=request.path) if signed_in else []),
        "user_role": SimpleLazyObject(lambda: role_of(user) if signed_in else None),
        "user_role_label": SimpleLazyObject(lambda: ROLE_LABELS.get(role_of(user), "") if signed_in else ""),
        # Empty states name the action only to a role that has it, and tell others who does (issue 18).
        "user_is_reviewer": signed_in and has_role(user, REVIEWER),
    }
