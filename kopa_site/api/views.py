"""Site-wide API endpoints: counts of everything the console holds, and API tokens."""

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.response import Response
from rest_framework.settings import api_settings

from kopa_site.api.serializers import SiteStatsSerializer
from kopa_site.selectors import site_stats


class StatsViewSet(viewsets.ViewSet):
    """The number of objects of every kind, and of users per role (the home page shows the same)."""

    read_role = "annotator"

    @extend_schema(responses=SiteStatsSerializer, summary="Count every kind of object the site holds")
    def list(self, request):
        return Response(site_stats())


class ObtainTokenView(ObtainAuthToken):
    """Exchange a username and password for the user's API token (created on first use).

    Send it as `Authorization: Token <key>`; `manage.py drf_create_token USERNAME` prints it too.
    """

    parser_classes = api_settings.DEFAULT_PARSER_CLASSES  # ObtainAuthToken names DRF's own JSON parser

    @extend_schema(auth=[], summary="Get your API token", tags=["auth"])
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)
