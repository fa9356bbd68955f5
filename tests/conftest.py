"""Fixtures every test can use: one user per role plus a role-less outsider, and clients for each."""

from __future__ import annotations

import os

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from kopa_site.roles import ADMIN, ANNOTATOR, REVIEWER
from tests.support.users import make_user


@pytest.fixture
def annotator(db):
    return make_user("annotator", ANNOTATOR)


@pytest.fixture
def reviewer(db):
    return make_user("reviewer", REVIEWER)


@pytest.fixture
def admin(db):
    """Holds the admin role (and so is staff) without being a superuser."""
    return make_user("admin", ADMIN)


@pytest.fixture
def outsider(db):
    """Signed in, but holds no role."""
    return make_user("outsider")


def token_client(user) -> APIClient:
    """An API client that authenticates as `user` with a token, as scripts do."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture
def anonymous_api(db):
    return APIClient()


@pytest.fixture
def outsider_api(outsider):
    return token_client(outsider)


@pytest.fixture
def annotator_api(annotator):
    return token_client(annotator)


@pytest.fixture
def reviewer_api(reviewer):
    return token_client(reviewer)


@pytest.fixture
def admin_api(admin):
    return token_client(admin)


@pytest.fixture
def api_clients(anonymous_api, outsider_api, annotator_api, reviewer_api, admin_api):
    """One API client per identity, keyed as tests/support/api.py expects."""
    return {
        "anonymous": anonymous_api,
        "outsider": outsider_api,
        "annotator": annotator_api,
        "reviewer": reviewer_api,
        "admin": admin_api,
    }


@pytest.fixture
def client_as(db):
    """A browser-like client signed in (by session) as the given user."""

    def make(user) -> Client:
        client = Client()
        client.force_login(user)
        return client

    return make


@pytest.fixture(scope="session")
def sandbox_server_url():
    """Base URL (http://127.0.0.1:PORT, append /sandbox/…) of a standalone sandbox server for the session.

    Its per-key daily quota is off: the whole suite shares this server and the demo key, so a live-like
    quota of 10,000 calls would start answering 22 to whichever test runs late (quota tests use their own).
    """
    from apis.sandbox.config import SandboxConfig
    from apis.sandbox.server import start_sandbox_server

    url, stop = start_sandbox_server(port=0, config=SandboxConfig(daily_quota=0))
    yield url
    stop()


@pytest.fixture
def chromium():
    """A headless chromium for one test.

    Playwright's sync API runs an event loop in this thread for as long as it is open, which would
    break every later test that calls asyncio.run(); so it lives only as long as the test.
    """
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.support.browser import launch_chromium

    # With that loop running, Django refuses ORM calls made by the test itself, which are
    # synchronous and safe here.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_api.sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()
