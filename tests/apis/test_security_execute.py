"""Execution and API bodies under attack (issue 17, points 2, 4, 7 and 9).

The live base URL of the apartment-trade tool is a listener on 127.0.0.1 that counts connections and keeps
what it received, so "nothing was sent" and "the key slot never went out" are checked on the wire.
"""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

import pytest
from django.core.cache import cache

from apis.models import ApiCall, ApiService, Tool
from apis.services import CallOptions, credential_set, tool_execute
from tests.apis.conftest import APT_TRADE, APT_TRADE_PARAMS
from tests.support.listener import Listener, http_answer

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

KEY = "StoredKey+Secret/Value9=="
ONE_OFF = "OneOffKey+Secret/Value7=="
ANSWER = (
    b"<response><header><resultCode>000</resultCode><resultMsg>OK</resultMsg></header>"
    b"<body><items></items><totalCount>0</totalCount></body></response>"
)


def _forms(secret: str) -> list[str]:
    return [secret, quote(secret, safe=""), quote_plus(secret)]


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    cache.clear()


@pytest.fixture
def live(catalog, executor_settings):
    """The tool, live at a listener, with KEY stored for its provider."""
    listener = Listener(http_answer(ANSWER, headers="Content-Type: application/xml\r\n"))
    tool = Tool.objects.select_related("service__provider").get(function_name=APT_TRADE)
    ApiService.objects.filter(pk=tool.service_id).update(base_url=f"{listener.url}/RTMSDataSvcAptTrade")
    credential_set(provider=tool.service.provider, service_key=KEY)
    tool.refresh_from_db()
    yield tool, listener
    listener.close()


def _execute(client, tool, raw: str):
    return client.post(f"/api/v1/tools/{tool.pk}/execute/", raw, content_type="application/json")


@pytest.mark.parametrize(
    "value", ["1e400", "-1e400", "NaN", "Infinity", '"\\ud800"', '{"a": "\\udfff"}'], ids=str.strip
)
def test_non_finite_numbers_and_lone_surrogates_are_a_400_before_any_call(reviewer_api, live, value):
    tool, listener = live
    raw = f'{{"mode": "live", "params": {{"LAWD_CD": {value}, "DEAL_YMD": "202407"}}}}'
    response = _execute(reviewer_api, tool, raw)
    assert response.status_code == 400
    assert listener.hits == 0 and not ApiCall.objects.exists()


def test_a_500_page_shows_no_key_even_with_debug_on(reviewer_api, live, settings, monkeypatch):
    """A crash after the call went out (the log write failing): the technical page lists locals of every
    frame; neither the stored key nor a one-off key may be among them."""
    tool, listener = live
    settings.DEBUG = True

    def broken_log(plan, result):
        raise RuntimeError("the log table is gone")

    monkeypatch.setattr("apis.services.execution._log", broken_log)
    reviewer_api.raise_request_exception = False
    pages = []
    for body in ({"mode": "live", "params": APT_TRADE_PARAMS}, {**{"service_key": ONE_OFF}, "mode": "live"}):
        body.setdefault("params", APT_TRADE_PARAMS)
        response = _execute(reviewer_api, tool, json.dumps(body))
        assert response.status_code == 500
        pages.append(response.content.decode("utf-8", "replace"))
    assert listener.hits == 2  # both calls went out: the crash came after
    for page in pages:
        assert "RuntimeError" in page and "Local vars" in page  # the technical page, with its locals
        for form in _forms(KEY) + _forms(ONE_OFF):
            assert form not in page


def test_a_call_that_went_out_is_logged_even_with_values_the_log_cannot_store(live, monkeypatch):
    tool, listener = live
    # An unforeseen value slips by the check.
    monkeypatch.setattr("apis.services.execution.check_value", lambda value, **kwargs: None)
    execution = tool_execute(
        tool=tool, params={**APT_TRADE_PARAMS, "x": float("inf")}, options=CallOptions(mode="live")
    )
    assert listener.hits == 1
    row = ApiCall.objects.get(pk=execution.call.pk)
    assert "inf" in row.params["unstorable"]


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"LAWD_CD": "11680"}, "DEAL_YMD: required"),
        ({"LAWD_CD": {"x": 1}, "DEAL_YMD": "202407"}, "LAWD_CD: expected"),
        ({**APT_TRADE_PARAMS, "numOfRows": "many"}, "numOfRows: expected integer"),
        ({**APT_TRADE_PARAMS, "numOfRows": 10**9}, "numOfRows"),
        ({**APT_TRADE_PARAMS, "pageNo": 0}, "pageNo"),
        ({**APT_TRADE_PARAMS, "pageNo": 2**70}, "out of range"),
    ],
)
def test_params_are_checked_against_the_schema_before_any_call(reviewer_api, live, params, problem):
    tool, listener = live
    response = _execute(reviewer_api, tool, json.dumps({"mode": "live", "params": params}))
    assert response.status_code == 400
    assert problem in response.json()["detail"]
    assert listener.hits == 0 and not ApiCall.objects.exists()


def test_a_case_variant_of_the_key_slot_never_goes_out(reviewer_api, live):
    tool, listener = live
    slot = tool.key_slot["name"]
    params = {**APT_TRADE_PARAMS, slot.upper(): "smuggled-value-123", slot.lower(): "smuggled-value-456"}
    response = _execute(reviewer_api, tool, json.dumps({"mode": "live", "params": params}))
    assert response.status_code == 200, response.content
    sent = b"".join(listener.received).decode("latin-1")
    assert "smuggled" not in sent
    assert quote(KEY, safe="") in sent or KEY in sent  # the stored key went, in its slot


@pytest.mark.parametrize("key", ["a b c d e", "abc", "tab\tkey1", "x" * 1001])
def test_one_off_keys_follow_the_stored_keys_rules(reviewer_api, live, key):
    tool, listener = live
    response = _execute(
        reviewer_api, tool, json.dumps({"mode": "live", "params": APT_TRADE_PARAMS, "service_key": key})
    )
    assert response.status_code == 400
    assert listener.hits == 0


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_deep_nesting_is_a_400_everywhere_including_the_anonymous_token_endpoint(api_clients, reviewer_api):
    body = '{"username": ' + _deep(100_000) + ', "password": "x"}'
    anonymous = api_clients["anonymous"].post("/api/v1/auth/token/", body, content_type="application/json")
    assert anonymous.status_code == 400
    imported = reviewer_api.post(
        "/api/v1/specs/import/", '{"spec": ' + _deep(100_000) + "}", content_type="application/json"
    )
    assert imported.status_code == 400
    # Inside the spec's text, as JSON and as YAML: the importer's parsers recurse too.
    for text in (_deep(100_000), "a:\n" + "- " * 50_000 + "x", "[" * 100_000):
        response = reviewer_api.post("/api/v1/specs/import/", {"spec": text}, format="json")
        assert response.status_code == 400, text[:20]


def test_a_ref_bomb_is_refused_quickly(reviewer_api, settings):
    levels = {
        f"d{i}": {"type": "object", "properties": {k: {"$ref": f"#/definitions/d{i + 1}"} for k in "abc"}}
        for i in range(15)
    }
    levels["d15"] = {"type": "string"}
    spec = {
        "swagger": "2.0",
        "info": {"title": "bomb", "version": "1"},
        "host": "bomb.example.org",
        "paths": {"/x": {"get": {"responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/d0"}}}}}},
        "definitions": levels,
    }
    assert len(json.dumps(spec)) < 3000
    response = reviewer_api.post("/api/v1/specs/import/", {"spec": json.dumps(spec)}, format="json")
    assert response.status_code == 400
    assert "$refs yields more than" in response.json()["detail"]
    assert not ApiService.objects.filter(title="bomb").exists()


def test_a_yaml_alias_bomb_is_refused_not_stored(reviewer_api):
    lines = ['a0: &a0 ["' + "x" * 50 + '"]']
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 6) + "]")
    text = 'swagger: "2.0"\ninfo: {title: laughs, version: "1"}\nhost: laughs.example.org\npaths: {}\n' + "\n".join(
        lines
    )
    assert len(text) < 1000
    response = reviewer_api.post("/api/v1/specs/import/", {"spec": text}, format="json")
    assert response.status_code == 400
    assert "YAML aliases" in response.json()["detail"]
    assert not ApiService.objects.filter(title="laughs").exists()


def test_an_enum_that_is_not_a_list_is_refused_at_import(reviewer_api):
    spec = {
        "swagger": "2.0",
        "info": {"title": "enum five", "version": "1"},
        "host": "enum.example.org",
        "paths": {
            "/x": {
                "get": {
                    "parameters": [{"name": "kind", "in": "query", "type": "string", "enum": 5}],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    response = reviewer_api.post("/api/v1/specs/import/", {"spec": spec}, format="json")
    assert response.status_code == 400
    assert "/paths/~1x/get/parameters/0/enum" in response.content.decode()
