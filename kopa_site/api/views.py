"""Site-wide API endpoints: counts of everything the console holds, and API tokens."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import NotAuthenticated
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle

from kopa_site.api.serializers import SiteStatsSerializer, TokenSerializer
from kopa_site.auth import client_address, retry_after, token_expires_at, token_issue, token_revoke
from kopa_site.selectors import site_stats


class StatsViewSet(viewsets.ViewSet):
    """The number of objects of every kind, and of users per role (the home page shows the same)."""

    read_role = "annotator"

    @extend_schema(responses=SiteStatsSerializer, summary="Count every kind of object the site holds")
    def list(self, request):
        return Response(site_stats())


class ObtainTokenView(ObtainAuthToken):
    """Exchange a username and password for the user's API token (created on first use, renewed once expired).

    Send it as `Authorization: Token <key>`; `manage.py drf_create_token USERNAME` prints it too. Tokens expire
    after KOPA_TOKEN_TTL_DAYS; DELETE revokes your own token. Failed sign-ins are throttled per user name and
    per address (429 with Retry-After), here and on the login page alike.
    """

    parser_classes = api_settings.DEFAULT_PARSER_CLASSES  # ObtainAuthToken names DRF's own JSON parser
    authentication_classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth"

    @extend_schema(
        auth=[],
        summary="Get your API token",
        tags=["auth"],
        responses={
            200: TokenSerializer,
            400: OpenApiResponse(description="Wrong username or password"),
            429: OpenApiResponse(description="Too many failed sign-ins or token requests; see Retry-After"),
        },
    )
    def post(self, request, *args, **kwargs):
        username = request.data.get("username", "") if hasattr(request.data, "get") else ""
        username = username if isinstance(username, str) else ""
        if wait := retry_after(username, client_address(request)):
            return Response(
                {"detail": f"Too many failed sign-ins; try again in {wait} s."},
                status=status.HTTP_429_TOO_MANY_REQUESTS,
                headers={"Retry-After": str(wait)},
            )
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = token_issue(user=serializer.validated_data["user"])
        return Response(TokenSerializer({"token": token.key, "expires_at": token_expires_at(token)}).data)

    @extend_schema(
        summary="Revoke your API token",
        tags=["auth"],
        request=None,
        responses={204: None, 401: OpenApiResponse(description="Not signed in")},
    )
    def delete(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
