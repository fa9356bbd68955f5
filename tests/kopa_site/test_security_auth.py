"""Sign-ins are throttled per user name and per address; tokens expire and can be revoked (issue 17, point 10)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from tests.support.api import assert_role_matrix

pytestmark = pytest.mark.django_db

TOKEN_URL = "/api/v1/auth/token/"
STATS = "/api/v1/stats/"


@pytest.fixture(autouse=True)
def _limits(settings):
    cache.clear()
    settings.KOPA_LOGIN_FAILURES = 3
    settings.KOPA_LOGIN_FAILURES_PER_ADDRESS = 5
    settings.KOPA_LOGIN_WINDOW_S = 60
    yield
    cache.clear()


def _token(client, username, password, address="10.0.0.1"):
    return client.post(TOKEN_URL, {"username": username, "password": password}, format="json", REMOTE_ADDR=address)


def test_failed_token_requests_lock_the_user_name_even_for_the_right_password(annotator, reviewer):
    client = APIClient()
    for _ in range(3):
        assert _token(client, "annotator", "wrong").status_code == 400
    locked = _token(client, "annotator", "pw-annotator")
    assert locked.status_code == 429
    assert "token" not in locked.json() and int(locked["Retry-After"]) > 0
    # Another user from another address is not affected; the locked one stays locked from anywhere.
    assert _token(client, "reviewer", "pw-reviewer", address="10.0.0.2").status_code == 200
    assert _token(client, "annotator", "pw-annotator", address="10.0.0.3").status_code == 429


def test_failures_from_one_address_lock_it_for_every_user_name(annotator):
    client = APIClient()
    for n in range(5):
        _token(client, f"guess-{n}", "wrong", address="10.9.9.9")
    assert _token(client, "annotator", "pw-annotator", address="10.9.9.9").status_code == 429
    assert _token(client, "annotator", "pw-annotator", address="10.9.9.8").status_code == 200


def test_the_lock_ends_with_its_window(annotator, settings):
    settings.KOPA_LOGIN_WINDOW_S = 1
    client = APIClient()
    for _ in range(3):
        _token(client, "annotator", "wrong")
    assert _token(client, "annotator", "pw-annotator").status_code == 429
    time.sleep(1.2)
    assert _token(client, "annotator", "pw-annotator").status_code == 200


def test_the_login_page_and_the_admin_share_the_same_limit(admin):
    browser = Client(REMOTE_ADDR="10.0.0.7")
    for _ in range(3):
        page = browser.post("/accounts/login/", {"username": "admin", "password": "wrong"})
        assert page.status_code == 200
    page = browser.post("/accounts/login/", {"username": "admin", "password": "pw-admin"})
    assert page.status_code == 429
    assert "Too many failed sign-ins" in page.content.decode()
    assert "_auth_user_id" not in browser.session
    admin_login = browser.post("/admin/login/", {"username": "admin", "password": "pw-admin"})
    assert "_auth_user_id" not in browser.session, admin_login.status_code


def test_token_requests_are_rate_limited_per_address(annotator, monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"auth": "2/minute", "jobs": "120/hour"})
    client = APIClient()
    assert _token(client, "annotator", "pw-annotator").status_code == 200
    assert _token(client, "annotator", "pw-annotator").status_code == 200
    assert _token(client, "annotator", "pw-annotator").status_code == 429


def test_tokens_expire_and_a_new_one_is_issued(annotator, settings):
    settings.KOPA_TOKEN_TTL_DAYS = 30
    client = APIClient()
    first = _token(client, "annotator", "pw-annotator").json()
    assert first["expires_at"]
    Token.objects.filter(key=first["token"]).update(created=Token.objects.get().created - timedelta(days=31))
    client.credentials(HTTP_AUTHORIZATION=f"Token {first['token']}")
    expired = client.get(STATS)
    assert expired.status_code == 401 and "expired" in expired.json()["detail"]
    client.credentials()
    second = _token(client, "annotator", "pw-annotator").json()
    assert second["token"] != first["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {second['token']}")
    assert client.get(STATS).status_code == 200


def test_the_owner_revokes_the_token(annotator):
    client = APIClient()
    key = _token(client, "annotator", "pw-annotator").json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.delete(TOKEN_URL).status_code == 204
    assert client.get(STATS).status_code == 401
    assert APIClient().delete(TOKEN_URL).status_code == 401


def test_every_identity_may_revoke_only_its_own_token(api_clients):
    """The role matrix of DELETE /api/v1/auth/token/: any signed-in user (role or not), never anonymous."""
    matrix = {"anonymous": 401, "outsider": 204, "annotator": 204, "reviewer": 204, "admin": 204}
    assert_role_matrix(api_clients, TOKEN_URL, matrix, method="delete")
    assert not Token.objects.exists()  # each revoked its own; anonymous revoked nothing it did not have
