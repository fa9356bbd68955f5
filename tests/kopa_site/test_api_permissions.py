"""The API base: who may call what (by role), how clients authenticate, pagination and the stats."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings
from django.urls import path
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.test import APIClient, APIRequestFactory

from kopa_site.pagination import CappedLimitOffsetPagination
from kopa_site.permissions import RolePermission, check_view_roles
from kopa_site.roles import REVIEWER, SITE_APPS
from kopa_site.selectors import _row_counts, site_models
from tests.support.api import IDENTITIES, assert_role_matrix, expect_min_role

pytestmark = pytest.mark.django_db

STATS = "/api/v1/stats/"


# --- the role matrix on the site-wide endpoints ------------------------------------------------------


@pytest.mark.smoke
def test_stats_are_open_to_every_role_and_closed_to_the_rest(api_clients):
    assert_role_matrix(api_clients, STATS, expect_min_role("annotator"))


def test_stats_cannot_be_written_and_writes_need_the_admin_role(api_clients):
    expected = {**expect_min_role("admin"), "admin": 405}
    assert_role_matrix(api_clients, STATS, expected, method="post", data={})


def test_the_api_root_needs_a_role(api_clients):
    responses = assert_role_matrix(api_clients, "/api/v1/", expect_min_role("annotator"))
    assert "stats" in responses["annotator"].json()


def test_the_schema_needs_a_role(api_clients):
    assert_role_matrix(api_clients, "/api/v1/schema/", expect_min_role("annotator"))


def test_anonymous_callers_are_told_to_send_a_token(anonymous_api):
    response = anonymous_api.get(STATS)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_a_refusal_names_the_role_needed(outsider_api):
    assert outsider_api.get(STATS).json() == {"detail": "This needs the annotator role or higher."}


def test_the_matrix_helper_insists_on_every_identity(api_clients):
    with pytest.raises(ValueError, match="missing"):
        assert_role_matrix(api_clients, STATS, {"annotator": 200})


def test_the_matrix_helper_reports_every_mismatch(api_clients):
    wrong = dict.fromkeys(IDENTITIES, 200)
    with pytest.raises(AssertionError) as caught:
        assert_role_matrix(api_clients, STATS, wrong)
    assert "anonymous: expected 200, got 401" in str(caught.value)
    assert "outsider: expected 200, got 403" in str(caught.value)


# --- authentication ------------------------------------------------------------------------------------


def test_a_token_is_obtained_with_username_and_password_and_then_works(annotator):
    client = APIClient()
    response = client.post("/api/v1/auth/token/", {"username": "annotator", "password": "pw-annotator"}, format="json")
    assert response.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get(STATS).status_code == 200


def test_a_wrong_password_gets_no_token(annotator):
    response = APIClient().post("/api/v1/auth/token/", {"username": "annotator", "password": "nope"}, format="json")
    assert response.status_code == 400
    assert "token" not in response.json()


def test_an_unknown_token_is_refused(db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert client.get(STATS).status_code == 401


def test_a_browser_session_works_and_its_writes_need_the_csrf_token(admin):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(admin)
    assert client.get(STATS).status_code == 200
    response = client.post(STATS, {}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


# --- RolePermission on any view --------------------------------------------------------------------------


class _Curation(viewsets.ViewSet):
    write_role = REVIEWER
    action_roles = {"approve": "admin", "peek": "annotator"}

    def list(self, request):
        return Response([])

    def create(self, request):
        return Response({}, status=201)

    @action(detail=False, methods=["post"])
    def approve(self, request):
        return Response({"approved": True})

    @action(detail=False, methods=["post"])
    def peek(self, request):
        return Response({"peeked": True})


_router = SimpleRouter()
_router.register("c", _Curation, basename="curation")
urlpatterns = _router.urls


@override_settings(ROOT_URLCONF=__name__)
def test_views_declare_read_write_and_per_action_roles(api_clients):
    assert_role_matrix(api_clients, "/c/", expect_min_role("annotator"))
    assert_role_matrix(api_clients, "/c/", expect_min_role("reviewer", allowed=201), method="post", data={})
    assert_role_matrix(api_clients, "/c/approve/", expect_min_role("admin"), method="post", data={})
    assert_role_matrix(api_clients, "/c/peek/", expect_min_role("annotator"), method="post", data={})


def test_a_superuser_passes_as_an_admin(django_user_model):
    boss = django_user_model.objects.create_superuser("boss", password="pw-boss")
    request = APIRequestFactory().delete("/x/")
    request.user = boss
    view = type("View", (), {"write_role": "admin"})()
    assert RolePermission().has_permission(request, view)


class _Typo(viewsets.ViewSet):
    read_role = "reviwer"
    action_roles = {"approve": "boss"}

    def list(self, request):
        return Response([])


typo_urlpatterns = [path("t/", _Typo.as_view({"get": "list"}))]


@override_settings(ROOT_URLCONF=__name__ + "_typo")
def test_a_view_naming_an_unknown_role_fails_the_system_check(monkeypatch):
    import sys
    import types

    module = types.ModuleType(__name__ + "_typo")
    module.urlpatterns = typo_urlpatterns
    monkeypatch.setitem(sys.modules, module.__name__, module)

    errors = check_view_roles()
    assert [error.id for error in errors] == ["kopa_site.E001", "kopa_site.E001"]
    assert "_Typo.read_role is 'reviwer'" in errors[0].msg
    assert "_Typo.action_roles['approve'] is 'boss'" in errors[1].msg
    with pytest.raises(SystemCheckError):
        call_command("check")


def test_the_real_url_map_declares_only_known_roles():
    assert check_view_roles() == []


# --- pagination -------------------------------------------------------------------------------------------


def _page(query: str) -> list:
    request = APIRequestFactory().get("/x/" + query)
    from rest_framework.request import Request

    return CappedLimitOffsetPagination().paginate_queryset(list(range(2000)), Request(request))


def test_pages_default_to_fifty_items():
    assert len(_page("")) == 50


def test_a_large_limit_is_capped_at_five_hundred():
    assert len(_page("?limit=100000")) == 500


def test_limit_and_offset_select_the_window():
    assert _page("?limit=3&offset=10") == [10, 11, 12]


def test_a_malformed_limit_falls_back_to_the_default():
    assert len(_page("?limit=lots")) == 50


# --- the stats body ---------------------------------------------------------------------------------------


def test_stats_count_every_site_model_and_the_users_by_role(annotator_api, reviewer, admin, outsider):
    body = annotator_api.get(STATS).json()

    expected_keys = {
        model._meta.label_lower
        for label in SITE_APPS
        for model in apps.get_app_config(label).get_models()
        if model._meta.managed and not model._meta.proxy
    }
    assert set(body["models"]) == expected_keys
    assert "kopa_site.job" in body["models"]
    job = body["models"]["kopa_site.job"]
    assert job["app"] == "kopa_site" and job["verbose_name"] == "job" and job["count"] >= 0
    assert body["users_by_role"] == {"annotator": 1, "reviewer": 1, "admin": 1, "none": 1}
    assert body["users"] == 4


def test_users_are_counted_under_their_highest_role_and_inactive_ones_not_at_all(annotator_api, annotator, outsider):
    outsider.groups.add(Group.objects.get(name="annotator"), Group.objects.get(name="reviewer"))
    outsider.is_active = True
    outsider.save()
    inactive = type(outsider).objects.create_user("gone", is_active=False)
    inactive.groups.add(Group.objects.get(name="admin"))

    body = annotator_api.get(STATS).json()
    assert body["users_by_role"] == {"annotator": 1, "reviewer": 1, "admin": 0, "none": 0}


def test_rows_are_counted_in_one_query_whatever_the_number_of_tables(django_assert_num_queries, annotator):
    from django.contrib.auth.models import Permission

    models = [Group, Permission, type(annotator)]
    with django_assert_num_queries(1):
        counts = _row_counts(models, using="default")
    assert counts == {
        "auth.group": Group.objects.count(),
        "auth.permission": Permission.objects.count(),
        "auth.user": 1,
    }


def test_site_models_skip_proxies_and_unmanaged_models():
    for model in site_models():
        assert model._meta.managed and not model._meta.proxy
