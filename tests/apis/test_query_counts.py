"""The catalog's lists cost the same number of queries for 5 calls as for 45 (pages and API)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apis.models import ApiCall, ApiService, Tool
from tests.conftest import token_client
from tests.support.queries import assert_queries_do_not_grow

pytestmark = pytest.mark.django_db


def _add_calls(count: int) -> None:
    tools = list(Tool.objects.order_by("pk")[:count])
    ApiCall.objects.bulk_create(
        ApiCall(
            tool=tools[i % len(tools)],
            mode="sandbox",
            request_hash=f"{i:064x}",
            request={"method": "GET", "url": "http://sandbox.invalid/x", "params": {"i": i}},
            ok=i % 3 != 0,
            http_status=200,
            result_code="00" if i % 3 else "03",
            error_class="" if i % 3 else "no_data",
            record_count=i % 7,
        )
        for i in range(count)
    )


def test_catalog_pages_and_lists_do_not_query_per_row(catalog, client_as, admin):
    _add_calls(5)
    browser, api = client_as(admin), token_client(admin)
    service = ApiService.objects.order_by("pk").first()
    tool = Tool.objects.filter(calls__isnull=False).order_by("pk").first()
    pages = [
        reverse("apis:index"),
        reverse("apis:calls"),
        reverse("apis:service", args=[service.pk]),
        reverse("apis:tool", args=[tool.pk]),
    ]
    endpoints = ["/api/v1/providers/", "/api/v1/services/", "/api/v1/tools/", "/api/v1/calls/"]
    assert_queries_do_not_grow(lambda url: browser.get(url).status_code, pages, lambda: _add_calls(40))
    assert_queries_do_not_grow(lambda url: api.get(url).status_code, endpoints, lambda: _add_calls(40))


def test_the_check_catches_a_list_that_queries_per_row(catalog):
    def per_row(url: str) -> int:
        for call in ApiCall.objects.all():
            call.tool  # noqa: B018  (one query per call: what the check exists to catch)
        return 200

    _add_calls(2)
    with pytest.raises(AssertionError, match="queries grew with the rows listed"):
        assert_queries_do_not_grow(per_row, ["/calls/"], lambda: _add_calls(3))
