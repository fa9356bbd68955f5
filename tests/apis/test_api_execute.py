"""POST /api/v1/tools/{id}/execute/, POST /api/v1/specs/import/ and POST /api/v1/calls/{id}/drift/."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from rest_framework.throttling import ScopedRateThrottle

from apis.models import ApiCall, ApiService, Tool
from tests.apis.conftest import APT_TRADE_PARAMS
from tests.apis.test_services_import import broken_spec, parking_spec
from tests.support.api import assert_role_matrix, expect_min_role

pytestmark = pytest.mark.django_db

IMPORT = "/api/v1/specs/import/"


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    cache.clear()
    yield
    cache.clear()


def execute_url(tool) -> str:
    return f"/api/v1/tools/{tool.pk}/execute/"


@pytest.mark.slow
def test_reviewers_and_admins_execute_tools(api_clients, apt_trade, executor_settings):
    responses = assert_role_matrix(
        api_clients,
        execute_url(apt_trade),
        expect_min_role("reviewer"),
        method="post",
        data={"params": APT_TRADE_PARAMS},
    )
    assert ApiCall.objects.filter(source_kind="api").count() == 2
    assert {c.created_by.username for c in ApiCall.objects.all()} == {"reviewer", "admin"}
    assert responses["admin"].json()["ok"] is True


@pytest.mark.slow
@pytest.mark.smoke
def test_execute_returns_the_normalized_result_and_the_call(reviewer_api, apt_trade, executor_settings):
    response = reviewer_api.post(execute_url(apt_trade), {"params": APT_TRADE_PARAMS, "mode": "sandbox"}, format="json")

    body = response.json()
    assert response.status_code == 200
    assert set(body) == {
        "call",
        "ok",
        "http_status",
        "result_code",
        "result_msg",
        "records",
        "total_count",
        "page",
        "error_class",
        "raw",
        "latency_ms",
        "bytes",
        "attempts",
    }
    assert body["ok"] and len(body["records"]) == 10 and body["total_count"] > 10
    assert body["page"] == {"page_no": 1, "num_of_rows": 10, "has_more": True}
    assert body["raw"].lstrip().startswith("<")
    assert ApiCall.objects.get().pk == body["call"]


@pytest.mark.slow
def test_api_failures_come_back_as_results_not_http_errors(reviewer_api, apt_trade, executor_settings):
    response = reviewer_api.post(
        execute_url(apt_trade), {"params": {"LAWD_CD": "11680", "DEAL_YMD": "202499"}}, format="json"
    )

    assert response.status_code == 200
    assert (response.json()["ok"], response.json()["error_class"]) == (False, "struct.invalid_param")


@pytest.mark.slow
def test_replay_without_a_recording_is_an_explicit_miss(reviewer_api, apt_trade, executor_settings):
    body = reviewer_api.post(
        execute_url(apt_trade), {"params": APT_TRADE_PARAMS, "mode": "replay"}, format="json"
    ).json()
    assert (body["ok"], body["error_class"]) == (False, "replay.miss")


@pytest.mark.parametrize(
    ("payload", "status", "message"),
    [
        ({"params": APT_TRADE_PARAMS, "mode": "live"}, 400, "live mode needs a service key"),
        ({"params": APT_TRADE_PARAMS, "mode": "turbo"}, 400, '{"mode":'),
        ({"params": ["LAWD_CD"]}, 400, '{"params":'),
    ],
)
def test_execute_refuses_what_it_cannot_do_with_a_reason(
    reviewer_api, apt_trade, executor_settings, payload, status, message
):
    response = reviewer_api.post(execute_url(apt_trade), payload, format="json")

    assert response.status_code == status
    assert message in response.content.decode()
    assert not ApiCall.objects.exists()


# --- Spec import ----------------------------------------------------------------------------------------


def test_reviewers_import_specs(api_clients):
    assert_role_matrix(api_clients, IMPORT, expect_min_role("reviewer"), method="post", data={"spec": parking_spec()})
    assert ApiService.objects.count() == 1


@pytest.mark.smoke
def test_an_import_returns_what_it_created_with_parameter_names(reviewer_api):
    response = reviewer_api.post(IMPORT, {"spec": json.dumps(parking_spec(), ensure_ascii=False)}, format="json")

    assert response.status_code == 200
    (service,) = response.json()["services"]
    assert service["status"] == "created" and service["unchanged_tools"] == 0
    tools = {t["function_name"]: t for t in service["tools"]}
    assert tools["get_parking_list"]["required"] == ["sido"]
    assert tools["get_parking_list"]["optional"] == ["kind"]
    assert tools["get_parking_list"]["id"] == Tool.objects.get(function_name="get_parking_list").pk

    again = reviewer_api.post(IMPORT, {"spec": parking_spec()}, format="json").json()
    assert again["services"][0]["status"] == "unchanged" and again["services"][0]["tools"] == []


def test_an_import_can_override_the_live_base_url(reviewer_api):
    response = reviewer_api.post(
        IMPORT,
        {"spec": parking_spec(), "base_url": "http://127.0.0.1:9/sandbox/apis.data.go.kr/B552584/ParkingTest"},
        format="json",
    )
    assert (
        response.json()["services"][0]["base_url"] == "http://127.0.0.1:9/sandbox/apis.data.go.kr/B552584/ParkingTest"
    )


def test_a_broken_spec_gets_every_problem_with_its_pointer_and_nothing_is_imported(reviewer_api):
    response = reviewer_api.post(IMPORT, {"spec": broken_spec()}, format="json")

    assert response.status_code == 400
    body = response.json()
    assert body["detail"].startswith("Import refused: 3 problem(s); nothing was imported.")
    assert [p["pointer"] for p in body["problems"]] == [
        "/paths/~1getParkingList/get/parameters/2",
        "/paths/~1getParkingList/get/parameters/3/type",
        "/paths/~1getParkingList/get/responses/200/schema/$ref",
    ]
    assert not ApiService.objects.exists() and not Tool.objects.exists()


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({}, "exactly one of spec or url"),
        ({"spec": parking_spec(), "url": "https://x.example/s.json"}, "exactly one of spec or url"),
        ({"spec": [1, 2]}, "as text or as a JSON object"),
        ({"url": "not a url"}, '{"url":'),
    ],
)
def test_an_import_request_in_the_wrong_shape_is_refused(reviewer_api, payload, message):
    response = reviewer_api.post(IMPORT, payload, format="json")
    assert response.status_code == 400 and message in response.content.decode()


def test_imports_are_throttled_with_the_jobs_scope(reviewer_api, monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"jobs": "2/minute"})

    codes = [reviewer_api.post(IMPORT, {"spec": parking_spec()}, format="json").status_code for _ in range(3)]

    assert codes == [200, 200, 429]
    assert reviewer_api.get("/api/v1/tools/").status_code == 200


# --- Drift --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_reviewers_check_a_recorded_call_for_drift(api_clients, apt_trade, executor_settings):
    recorded = (
        api_clients["reviewer"]
        .post(
            execute_url(apt_trade),
            {"params": APT_TRADE_PARAMS, "mode": "record", "record_target": "sandbox"},
            format="json",
        )
        .json()
    )
    url = f"/api/v1/calls/{recorded['call']}/drift/"

    responses = assert_role_matrix(api_clients, url, expect_min_role("reviewer"), method="post", data={})

    body = responses["reviewer"].json()
    assert (body["changed"], body["severity"], body["summary"]) == (False, "none", "no drift")
    assert ApiCall.objects.get(pk=body["rerun_call"]).source_id == str(recorded["call"])


def test_a_call_without_a_body_cannot_be_checked(reviewer_api, apt_trade):
    call = ApiCall.objects.create(tool=apt_trade, mode="sandbox", body_sha256="ab" * 32)
    response = reviewer_api.post(f"/api/v1/calls/{call.pk}/drift/", {}, format="json")
    assert response.status_code == 400 and "over the size cap" in response.json()["detail"]
