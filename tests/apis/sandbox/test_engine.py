"""The engine's shared behaviour: keys, gateway error forms, quota, routing, clock and the fault/latency knobs."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from apis.sandbox.config import DEMO_KEY, DEMO_KEY_LEGACY, SandboxConfig, env_values
from apis.sandbox.state import SandboxState

from .conftest import call, parse

TRADE = "apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
TITLE = "apis.data.go.kr/1613000/BldRgstHubService/getBrTitleInfo"
Q = {"LAWD_CD": "11110", "DEAL_YMD": "202609", "numOfRows": 1}
TITLE_Q = {"sigunguCd": "11680", "bjdongCd": "10100", "bun": "0023", "ji": "0000"}


def gateway(response) -> dict:
    body = parse(response)
    header = body.get("OpenAPI_ServiceResponse", body)["cmmMsgHeader"]
    return {k: v for k, v in header.items() if not k.startswith("#")}  # drop the indentation text


def test_it_accepts_the_key_under_either_name_and_the_legacy_key_encoded_once():
    assert call(TRADE, {**Q, "ServiceKey": DEMO_KEY}, service_key=None).status == 200
    raw = f"serviceKey={quote(DEMO_KEY_LEGACY, safe='')}&LAWD_CD=11110&DEAL_YMD=202609"
    assert "<resultCode>000</resultCode>" in call(TRADE, raw_query=raw).text()


def test_it_rejects_a_legacy_key_pasted_unencoded_because_plus_becomes_space():
    raw = f"serviceKey={DEMO_KEY_LEGACY}&LAWD_CD=11110&DEAL_YMD=202609"
    assert gateway(call(TRADE, raw_query=raw))["returnReasonCode"] == "30"


def test_it_answers_an_unknown_key_with_variant_b_xml_and_200_by_default():
    response = call(TRADE, Q, service_key="wrong")
    assert response.status == 200 and response.headers["Content-Type"].startswith("text/xml")
    assert gateway(response) == {
        "errMsg": "SERVICE_KEY_IS_NOT_REGISTERED_ERROR",
        "returnAuthMsg": "등록되지 않은 서비스키",
        "returnReasonCode": "30",
    }


def test_it_answers_json_requests_with_the_json_gateway_error_and_403():
    response = call(TITLE, {**TITLE_Q, "_type": "json"}, service_key="wrong")
    assert response.status == 403
    assert json.loads(response.text())["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"


def test_it_uses_variant_a_and_the_configured_statuses_when_asked():
    config = SandboxConfig(gateway_variant="A", gateway_xml_status=401, gateway_json_errors=False)
    response = call(TITLE, {**TITLE_Q, "_type": "json"}, service_key="wrong", config=config)
    assert response.status == 401 and response.text().startswith("<OpenAPI_ServiceResponse>")
    assert gateway(response)["errMsg"] == "SERVICE ERROR"
    assert gateway(response)["returnAuthMsg"] == "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"


def test_it_accepts_keys_added_in_settings():
    config = SandboxConfig.from_mapping({"extra_service_keys": ["my-team-key"]})
    assert call(TRADE, Q, service_key="my-team-key", config=config).status == 200
    assert DEMO_KEY in config.service_keys


def test_it_answers_22_once_the_daily_quota_is_spent_and_resets_at_midnight_kst():
    state, config = SandboxState(), SandboxConfig(daily_quota=3)
    answers = [call(TRADE, Q, config=config, state=state) for _ in range(4)]
    assert [("<resultCode>000" in a.text()) for a in answers] == [True, True, True, False]
    assert gateway(answers[-1])["returnReasonCode"] == "22"
    next_day = call(TRADE, Q, config=config, state=state, headers={"X-Sandbox-Now": "2026-11-19T00:00:01+09:00"})
    assert "<resultCode>000" in next_day.text()


def test_it_answers_404_for_an_unknown_host_and_12_for_an_unknown_gateway_path():
    assert call("example.com/x", Q).status == 404
    response = call("apis.data.go.kr/1613000/NoSuchService/getNothing", Q)
    assert gateway(response)["returnReasonCode"] == "12"


def test_it_answers_405_to_the_wrong_method():
    assert call(TRADE, Q, method="POST").status == 405


def test_it_reads_the_clock_from_config_and_header():
    november = int(parse(call(TRADE, {**Q, "DEAL_YMD": "202611"}))["response"]["body"]["totalCount"])
    config = SandboxConfig.from_mapping({"now": "2026-12-20T12:00"})
    later = int(parse(call(TRADE, {**Q, "DEAL_YMD": "202611"}, config=config))["response"]["body"]["totalCount"])
    assert november < later
    assert call(TRADE, Q, headers={"X-Sandbox-Now": "yesterday"}).status == 400


def test_it_rejects_bad_settings_with_a_clear_message():
    with pytest.raises(ValueError, match="fault_rate"):
        SandboxConfig.from_mapping({"fault_rate": 2})
    with pytest.raises(ValueError, match="unknown fault"):
        SandboxConfig.from_mapping({"faults": ["explode"]})
    with pytest.raises(ValueError, match="unknown sandbox settings"):
        SandboxConfig.from_mapping({"latency": 5})
    with pytest.raises(ValueError, match="KOPA_SANDBOX_LATENCY_MS"):
        env_values({"KOPA_SANDBOX_LATENCY_MS": "fast"})


def test_it_reads_settings_from_the_environment():
    config = SandboxConfig.from_env(
        {"KOPA_SANDBOX_NOW": "202601011200", "KOPA_SANDBOX_FAULT_RATE": "0.1", "KOPA_SANDBOX_FAULTS": "503,reset"}
    )
    assert config.now.isoformat() == "2026-01-01T12:00:00+09:00"
    assert config.fault_rate == 0.1 and config.faults == ("503", "reset")


def fault_headers(rate: float, kinds: str, seed: int | None = None) -> dict[str, str]:
    headers = {"X-Sandbox-Fault-Rate": str(rate), "X-Sandbox-Faults": kinds}
    if seed is not None:
        headers["X-Sandbox-Seed"] = str(seed)
    return headers


def test_it_injects_faults_at_the_set_rate():
    state = SandboxState()
    config = SandboxConfig(fault_rate=0.2, faults=("500", "502", "503"))
    statuses = [call(TRADE, Q, config=config, state=state).status for _ in range(1000)]
    failed = sum(s != 200 for s in statuses) / len(statuses)
    assert 0.15 <= failed <= 0.25
    assert {s for s in statuses if s != 200} == {500, 502, 503}


@pytest.mark.parametrize(
    ("kind", "check"),
    [
        ("500", lambda r: r.status == 500 and "<h1>500 Internal Server Error</h1>" in r.text()),
        ("502", lambda r: r.status == 502 and r.headers["Content-Type"].startswith("text/html")),
        ("503", lambda r: r.status == 503),
        ("quota", lambda r: gateway(r)["returnReasonCode"] == "22"),
        ("timeout", lambda r: r.fault == "timeout" and r.delay_s >= 30),
        ("reset", lambda r: r.fault == "reset"),
    ],
)
def test_it_acts_out_each_fault_kind(kind, check):
    assert check(call(TRADE, Q, headers=fault_headers(1, kind)))


def test_it_cuts_a_malformed_body_short():
    whole = call(TRADE, Q)
    broken = call(TRADE, Q, headers=fault_headers(1, "malformed"))
    assert broken.status == 200 and whole.body.startswith(broken.body) and len(broken.body) < len(whole.body)
    with pytest.raises(Exception):  # noqa: B017 - any parser error is the point
        parse(broken)


def test_it_repeats_a_fault_decision_for_the_same_seeded_request():
    decisions = {call(TRADE, Q, headers=fault_headers(0.5, "503", seed=7)).status for _ in range(20)}
    assert len(decisions) == 1
    varied = {call(TRADE, {**Q, "pageNo": n}, headers=fault_headers(0.5, "503", seed=7)).status for n in range(1, 40)}
    assert varied == {200, 503}


def test_it_adds_latency_within_the_jitter():
    state = SandboxState()
    headers = {"X-Sandbox-Latency-Ms": "200", "X-Sandbox-Jitter-Ms": "50"}
    delays = [call(TRADE, Q, headers=headers, state=state).delay_s for _ in range(200)]
    assert all(0.15 <= d <= 0.25 for d in delays)
    assert 0.19 <= sum(delays) / len(delays) <= 0.21


def test_it_ignores_override_headers_when_they_are_switched_off():
    config = SandboxConfig(header_overrides=False)
    assert call(TRADE, Q, config=config, headers=fault_headers(1, "503")).status == 200
