"""The sandbox inside the Django site: no login, no CSRF, index, specs and emulation under /sandbox/."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apis.sandbox.config import DEMO_KEY
from apis.sandbox.registry import load_families

TRADE = "/sandbox/apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"


@pytest.fixture
def anonymous():
    return Client(enforce_csrf_checks=True)


def test_it_lists_every_operation_in_the_index(anonymous):
    response = anonymous.get("/sandbox/")
    assert response.status_code == 200
    index = response.json()
    ids = {op["id"] for op in index["operations"]}
    assert ids == {op.id for op in load_families().live_operations()}
    for op in index["operations"]:
        assert set(op) >= {"id", "provider", "method", "live_url", "sandbox_url", "spec_url", "example"}
        assert op["sandbox_url"] == "http://testserver/sandbox/" + op["live_url"].split("://", 1)[1]
        assert set(op["example"]) >= {"method", "url"}
    assert any(url.startswith("http://openapi.molit.go.kr") for url in index["retired"])


def test_it_runs_each_example_without_login(anonymous):
    for op in anonymous.get("/sandbox/").json()["operations"]:
        body = json.dumps(op["example"]["body"]) if "body" in op["example"] else ""
        response = anonymous.generic(
            op["example"]["method"], op["example"]["url"].removeprefix("http://testserver"), body, "application/json"
        )
        assert response.status_code == 200, op["id"]
        assert b"OpenAPI_ServiceResponse" not in response.content


def test_it_serves_specs(anonymous):
    response = anonymous.get("/sandbox/specs/RTMSDataSvcAptTrade.json")
    assert response.status_code == 200 and response.json()["basePath"] == "/1613000/RTMSDataSvcAptTrade"


def test_it_is_exempt_from_csrf(anonymous):
    # A POST without a CSRF token reaches the emulation (which answers as the live API would: wrong method).
    assert anonymous.post(TRADE, {"serviceKey": DEMO_KEY}).status_code == 405


def test_it_applies_settings_and_override_headers(anonymous, settings):
    settings.SANDBOX = {**settings.SANDBOX, "fault_rate": 1.0, "faults": ["503"]}
    assert anonymous.get(TRADE, {"serviceKey": DEMO_KEY, "LAWD_CD": "11110", "DEAL_YMD": "202609"}).status_code == 503
    settings.SANDBOX = {**settings.SANDBOX, "fault_rate": 0.0}
    ok = anonymous.get(TRADE, {"serviceKey": DEMO_KEY, "LAWD_CD": "11110", "DEAL_YMD": "202609"})
    assert ok.status_code == 200 and ok["Content-Type"].startswith("application/xml")


def test_it_answers_a_timeout_fault_with_504_after_the_hold(anonymous):
    response = anonymous.get(
        TRADE,
        {"serviceKey": DEMO_KEY, "LAWD_CD": "11110", "DEAL_YMD": "202609"},
        headers={"X-Sandbox-Fault-Rate": "1", "X-Sandbox-Faults": "timeout", "X-Sandbox-Timeout-Hold-S": "0.05"},
    )
    assert response.status_code == 504
