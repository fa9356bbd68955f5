"""Values every page template can use."""

from django.conf import settings


def site(request):
    return {"KOPA_DEBUG": settings.DEBUG}
