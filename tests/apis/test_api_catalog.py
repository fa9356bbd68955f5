"""Catalog API reads: providers, services, tools with function schemas, calls; who may read and write what."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from drf_spectacular.generators import SchemaGenerator

from apis.models import ApiCall, Credential
from apis.services import credential_set
from tests.apis.conftest import APT_TRADE
from tests.support.api import assert_role_matrix, expect_min_role

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    cache.clear()
    yield
    cache.clear()


@pytest.mark.parametrize(
    "url",
    ["/api/v1/providers/", "/api/v1/services/", "/api/v1/tools/", "/api/v1/tools/functions/", "/api/v1/calls/"],
)
def test_every_catalog_list_is_open_to_annotators_and_up(api_clients, catalog, url):
    assert_role_matrix(api_clients, url, expect_min_role("annotator"))


@pytest.mark.smoke
def test_a_tool_comes_with_its_schema_required_names_and_function(annotator_api, apt_trade):
    body = annotator_api.get(f"/api/v1/tools/{apt_trade.pk}/").json()

    assert body["function_name"] == APT_TRADE
    assert body["required"] == ["LAWD_CD", "DEAL_YMD"] and body["optional"] == ["pageNo", "numOfRows"]
    assert body["live_url"] == "https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
    assert body["provider"] == "apis.data.go.kr/1613000"
    function = body["function_schema"]["function"]
    assert body["function_schema"]["type"] == "function" and function["name"] == APT_TRADE
    assert function["parameters"]["required"] == ["LAWD_CD", "DEAL_YMD"]
    assert "아파트" in function["description"]
    assert any(f["path"] == "dealAmount" for f in body["record_fields"])


def test_tools_are_searched_and_filtered_like_the_catalog_page(annotator_api, catalog):
    found = annotator_api.get("/api/v1/tools/", {"q": "아파트 매매"}).json()["results"]
    assert APT_TRADE in {t["function_name"] for t in found}
    assert all("아파트" in t["name_ko"] + t["description_ko"] for t in found)

    by_provider = annotator_api.get("/api/v1/tools/", {"provider": "apis.data.go.kr/1741000"}).json()["results"]
    assert by_provider and {t["provider"] for t in by_provider} == {"apis.data.go.kr/1741000"}


def test_the_functions_list_is_a_ready_made_tools_array(annotator_api, catalog):
    functions = annotator_api.get("/api/v1/tools/functions/", {"q": "실거래"}).json()

    assert functions and all(f["type"] == "function" for f in functions)
    assert APT_TRADE in {f["function"]["name"] for f in functions}


def test_a_provider_shows_whether_a_key_is_set_and_never_the_key(admin_api, annotator_api, apt_trade):
    provider = apt_trade.service.provider
    url = f"/api/v1/providers/{provider.pk}/"
    assert annotator_api.get(url).json()["credential"]["set"] is False

    response = admin_api.post(f"{url}credential/", {"service_key": "Zq9+SecretKey/ForApi=="}, format="json")

    assert response.status_code == 200 and response.json()["set"] is True
    assert "SecretKey" not in response.content.decode()
    body = annotator_api.get(url).content.decode()
    assert '"set":true' in body and "SecretKey" not in body and "ciphertext" not in body
    assert admin_api.delete(f"{url}credential/").json()["set"] is False
    assert not Credential.objects.exists()


def test_only_admins_set_keys(api_clients, apt_trade):
    url = f"/api/v1/providers/{apt_trade.service.provider_id}/credential/"
    assert_role_matrix(
        api_clients, url, expect_min_role("admin"), method="post", data={"service_key": "Zq9+SecretKey/ForApi=="}
    )
    short = api_clients["admin"].post(url, {"service_key": "ab"}, format="json")
    assert short.status_code == 400


def test_only_admins_change_a_services_base_url(api_clients, apt_trade):
    url = f"/api/v1/services/{apt_trade.service_id}/"
    responses = assert_role_matrix(
        api_clients,
        url,
        expect_min_role("admin"),
        method="patch",
        data={"base_url": "https://mirror.example.org/1613000/RTMSDataSvcAptTrade"},
    )
    assert responses["admin"].json()["base_url"] == "https://mirror.example.org/1613000/RTMSDataSvcAptTrade"
    assert responses["admin"].json()["spec_base_url"].startswith("https://apis.data.go.kr/")
    bad = api_clients["admin"].patch(url, {"base_url": "not a url"}, format="json")
    assert bad.status_code == 400
    assert api_clients["admin"].put(url, {"base_url": "https://x.example"}, format="json").status_code == 405
    assert api_clients["admin"].delete(url).status_code == 405


def test_calls_are_read_only_with_their_body_and_no_key(annotator_api, admin_api, apt_trade):
    credential_set(provider=apt_trade.service.provider, service_key="Zq9+SecretKey/ForApi==")
    call = ApiCall.objects.create(
        tool=apt_trade, mode="sandbox", request={"url": "https://x"}, params={"LAWD_CD": "11680"}, ok=True
    )

    listed = annotator_api.get("/api/v1/calls/").json()["results"]
    detail = annotator_api.get(f"/api/v1/calls/{call.pk}/").json()

    assert listed[0]["id"] == call.pk and "request" not in listed[0]
    assert detail["params"] == {"LAWD_CD": "11680"} and detail["body"] is None
    assert admin_api.post("/api/v1/calls/", {}, format="json").status_code == 405
    assert admin_api.delete(f"/api/v1/calls/{call.pk}/").status_code == 405


def test_calls_are_filtered_by_tool_mode_outcome_and_failure_kind(annotator_api, apt_trade):
    ApiCall.objects.create(tool=apt_trade, mode="sandbox", ok=True)
    ApiCall.objects.create(tool=apt_trade, mode="live", error_class="env.timeout")
    ApiCall.objects.create(tool=apt_trade, mode="replay", error_class="struct.auth")

    def ids(**query):
        return [c["mode"] for c in annotator_api.get("/api/v1/calls/", query).json()["results"]]

    assert ids(mode="live") == ["live"]
    assert ids(ok="true") == ["sandbox"]
    assert ids(error_kind="environmental") == ["live"]
    assert ids(error_kind="structural") == ["replay"]
    assert len(ids(function_name=APT_TRADE)) == 3


@pytest.mark.parametrize(
    ("url", "queries"),
    [
        ("/api/v1/providers/", 4),  # token, role; count, page (key status joined)
        ("/api/v1/services/", 4),
        ("/api/v1/tools/", 4),
        ("/api/v1/calls/", 4),
    ],
)
def test_list_endpoints_take_a_fixed_number_of_queries(
    annotator_api, apt_trade, django_assert_num_queries, url, queries
):
    credential_set(provider=apt_trade.service.provider, service_key="Zq9+SecretKey/ForApi==")
    for mode in ("sandbox", "live", "replay"):
        ApiCall.objects.create(tool=apt_trade, mode=mode)
    annotator_api.get(url)  # the first request also loads the role

    with django_assert_num_queries(queries):
        response = annotator_api.get(url)
    assert response.status_code == 200 and response.json()["count"] > 0


def test_the_schema_documents_the_custom_actions():
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]

    assert "Execute the tool" in paths["/api/v1/tools/{id}/execute/"]["post"]["summary"]
    assert "/api/v1/specs/import/" in paths
    assert "/api/v1/calls/{id}/drift/" in paths
    assert "/api/v1/providers/{id}/credential/" in paths
