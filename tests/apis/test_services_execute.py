"""tool_execute against the standalone sandbox over a real socket: every mode, faults, limits, logging, drift."""

from __future__ import annotations

import gzip
import json
import time

import pytest

from apis.engine import errors
from apis.models import ApiCall, ApiService, Tool
from apis.sandbox.config import DEMO_KEY
from apis.services import (
    CallLog,
    CallOptions,
    MissingCredential,
    ToolExecutionError,
    credential_set,
    drift_check,
    service_set_base_url,
    tool_execute,
    tool_execute_async,
    tool_execute_many,
)
from tests.apis.conftest import APT_TRADE_PARAMS, in_thread
from tests.support.fixture_server import FixtureServer

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def live_at_sandbox(tool, sandbox_url: str) -> None:
    """Point the tool's service at the sandbox as if it were the live host, with the demo key stored."""
    service_set_base_url(
        service=tool.service, base_url=f"{sandbox_url}/sandbox/apis.data.go.kr/1613000/RTMSDataSvcAptTrade"
    )
    credential_set(provider=tool.service.provider, service_key=DEMO_KEY)


# --- Modes ----------------------------------------------------------------------------------------------


@pytest.mark.smoke
def test_sandbox_mode_returns_records_and_logs_one_call(apt_trade, executor_settings, reviewer):
    execution = tool_execute(
        tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(user=reviewer, source_kind="job", source_id=7)
    )

    result, call = execution.result, execution.call
    assert result.ok and result.error_class is None
    assert len(result.records) == 10 and result.total_count > 10
    assert {"aptNm", "dealAmount"} <= set(result.records[0])
    assert ApiCall.objects.get() == call
    assert (call.mode, call.target, call.ok, call.http_status) == ("sandbox", "sandbox", True, 200)
    assert call.request == {
        "method": "GET",
        "url": "https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade",
        "params": [["DEAL_YMD", "202407"], ["LAWD_CD", "11680"]],
        "body": None,
    }
    assert call.params == APT_TRADE_PARAMS
    assert (call.record_count, call.total_count) == (10, result.total_count)
    assert call.latency_ms > 0 and call.bytes == len(result.raw.encode())
    assert call.body_text == result.raw and len(call.body_sha256) == 64
    assert (call.source_kind, call.source_id, call.created_by) == ("job", "7", reviewer)
    assert call.result_code in ApiService.objects.get(pk=apt_trade.service_id).success_codes


def test_live_mode_uses_the_providers_stored_key(apt_trade, executor_settings, catalog_sandbox):
    live_at_sandbox(apt_trade, catalog_sandbox)

    execution = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="live"))

    assert execution.result.ok and len(execution.result.records) == 10
    assert (execution.call.mode, execution.call.target) == ("live", "live")
    assert execution.call.request["url"].startswith(catalog_sandbox)


def test_live_mode_without_a_key_is_a_clear_error_before_any_call(apt_trade, executor_settings):
    with pytest.raises(
        MissingCredential, match=r"live mode needs a service key for 국토교통부 \(apis.data.go.kr/1613000\)"
    ):
        tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="live"))
    assert ApiCall.objects.count() == 0


def test_a_recording_answers_replay_and_a_miss_says_so(apt_trade, executor_settings):
    missed = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="replay"))
    assert (missed.result.ok, missed.result.error_class) == (False, errors.REPLAY_MISS)
    assert "no recorded call" in missed.call.result_msg and missed.call.mode == "replay"

    recorded = tool_execute(
        tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="record", record_target="sandbox")
    )
    assert recorded.result.ok and recorded.call.is_recording and recorded.call.target == "sandbox"
    assert recorded.call.content_type.startswith("application/xml")

    replayed = tool_execute(
        tool=apt_trade, params={"DEAL_YMD": "202407", "LAWD_CD": "11680"}, options=CallOptions(mode="replay")
    )
    assert replayed.result.ok and replayed.result.records == recorded.result.records
    assert replayed.call.request_hash == recorded.call.request_hash == missed.call.request_hash
    assert not replayed.call.is_recording

    other = tool_execute(tool=apt_trade, params={**APT_TRADE_PARAMS, "pageNo": 2}, options=CallOptions(mode="replay"))
    assert other.result.error_class == errors.REPLAY_MISS


def test_record_mode_can_record_live(apt_trade, executor_settings, catalog_sandbox):
    live_at_sandbox(apt_trade, catalog_sandbox)
    recorded = tool_execute(
        tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="record", record_target="live")
    )
    assert recorded.call.target == "live" and recorded.call.is_recording

    assert tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="replay")).result.ok


def test_an_unknown_mode_or_bad_params_are_refused(apt_trade, executor_settings):
    with pytest.raises(ToolExecutionError, match="unknown mode 'test'"):
        tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="test"))
    with pytest.raises(ToolExecutionError, match="JSON object"):
        tool_execute(tool=apt_trade, params=["LAWD_CD"])
    assert ApiCall.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_async_entry_point_logs_the_same_way(apt_trade, executor_settings):
    execution = in_thread(
        lambda: tool_execute_async(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(source_kind="mcp"))
    )

    assert execution.result.ok
    assert ApiCall.objects.get().source_kind == "mcp"


@pytest.mark.django_db(transaction=True)
def test_a_call_log_keeps_the_rows_of_async_calls_until_it_stores_them_together(apt_trade, executor_settings):
    log = CallLog()

    async def two_calls():
        return [await tool_execute_async(tool=apt_trade, params=APT_TRADE_PARAMS, log=log) for _ in range(2)]

    executions = in_thread(two_calls)
    assert all(e.result.ok and e.call.pk is None for e in executions) and not ApiCall.objects.exists()
    log.flush()
    log.flush()  # nothing left to store
    rows = {row.pk: row for row in ApiCall.objects.all()}
    assert set(rows) == {e.call.pk for e in executions} and len(rows) == 2
    first = rows[executions[0].call.pk]
    assert first.params == APT_TRADE_PARAMS and first.body_text == executions[0].result.raw
    assert first.finished_at <= rows[executions[1].call.pk].finished_at


@pytest.mark.django_db(transaction=True)
def test_a_call_log_stores_every_row_when_one_holds_values_the_log_cannot_store(
    apt_trade, executor_settings, monkeypatch
):
    monkeypatch.setattr("apis.services.execution.check_value", lambda value, **kwargs: None)  # one slips by
    log = CallLog()

    async def calls():
        return [
            await tool_execute_async(tool=apt_trade, params=params, log=log)
            for params in (APT_TRADE_PARAMS, {**APT_TRADE_PARAMS, "x": float("inf")})
        ]

    good, odd = in_thread(calls)
    log.flush()
    assert ApiCall.objects.count() == 2
    assert ApiCall.objects.get(pk=good.call.pk).params == APT_TRADE_PARAMS
    assert "inf" in ApiCall.objects.get(pk=odd.call.pk).params["unstorable"]


# --- Failures: environmental ones are retried, structural ones are not ---------------------------------


@pytest.mark.parametrize(
    ("fault", "error_classes"),
    [
        ("503", {errors.ENV_HTTP_5XX, errors.ENV_HTML_ERROR}),
        ("reset", {errors.ENV_CONNECTION}),
        ("timeout", {errors.ENV_TIMEOUT}),
        ("quota", {errors.ENV_QUOTA}),
    ],
)
def test_injected_environmental_faults_are_retried_to_the_limit(apt_trade, executor_settings, fault, error_classes):
    executor_settings.KOPA_EXECUTOR = {
        **executor_settings.KOPA_EXECUTOR,
        "sandbox_headers": {"X-Sandbox-Fault-Rate": "1", "X-Sandbox-Faults": fault},
    }

    execution = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS)

    assert (execution.result.ok, execution.result.attempts) == (False, 3)
    assert execution.result.error_class in error_classes
    assert (execution.call.attempts, execution.call.error_class) == (3, execution.result.error_class)


@pytest.mark.parametrize(
    ("params", "service_key", "error_class"),
    [
        ({"LAWD_CD": "11680"}, None, errors.STRUCT_MISSING_PARAM),
        ({"LAWD_CD": "11680", "DEAL_YMD": "2024-07"}, None, errors.STRUCT_INVALID_PARAM),
        (APT_TRADE_PARAMS, "not-a-key-the-sandbox-knows", errors.STRUCT_AUTH),
    ],
)
def test_structural_failures_are_not_retried(apt_trade, executor_settings, params, service_key, error_class):
    execution = tool_execute(tool=apt_trade, params=params, options=CallOptions(service_key=service_key))

    assert (execution.result.ok, execution.result.error_class, execution.result.attempts) == (False, error_class, 1)
    assert execution.call.error_class == error_class and execution.call.http_status is not None


def test_a_transient_failure_is_retried_until_it_succeeds(apt_trade, executor_settings):
    path = "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
    with FixtureServer(timeout_hold_s=1.0) as live:
        service_set_base_url(service=apt_trade.service, base_url=f"{live.url}/1613000/RTMSDataSvcAptTrade")
        credential_set(provider=apt_trade.service.provider, service_key="live-key-1234")
        live.fail_next(path, "503", "reset")

        execution = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="live"))

        assert (execution.result.ok, execution.result.attempts, live.hits(path)) == (True, 3, 3)
        assert live.requests[-1].query["serviceKey"] == "live-key-1234"


def test_provider_rate_limits_are_honoured(apt_trade, executor_settings):
    provider = apt_trade.service.provider
    calls = [(apt_trade, {**APT_TRADE_PARAMS, "pageNo": page}) for page in range(1, 9)]
    started = time.perf_counter()
    tool_execute_many(calls=calls)
    unlimited = time.perf_counter() - started

    provider.rate_limit_per_s = 4  # four at once, then one every 0.25 s
    provider.save()
    apt_trade.service.provider = provider
    started = time.perf_counter()
    executions = tool_execute_many(calls=calls, options=CallOptions(source_kind="edge_trial", source_id="42"))
    limited = time.perf_counter() - started

    assert all(e.result.ok for e in executions)
    assert [e.call.params["pageNo"] for e in executions] == list(range(1, 9))
    assert limited >= 0.9 > unlimited
    assert ApiCall.objects.filter(source_kind="edge_trial", source_id="42").count() == 8


# --- Storage ---------------------------------------------------------------------------------------------


def test_bodies_over_the_cap_keep_only_their_hash_unless_recorded(apt_trade, executor_settings):
    executor_settings.KOPA_EXECUTOR = {**executor_settings.KOPA_EXECUTOR, "body_cap_bytes": 100}

    plain = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS).call
    recorded = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="record")).call

    assert plain.body_gz is None and len(plain.body_sha256) == 64 and plain.bytes > 100
    assert recorded.has_body and recorded.body_sha256 == plain.body_sha256


# --- Drift ------------------------------------------------------------------------------------------------


def test_a_drift_check_of_an_unchanged_answer_finds_none(apt_trade, executor_settings):
    recorded = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="record")).call

    outcome = drift_check(call=recorded)

    assert outcome.report.recorded and not outcome.report.changed
    assert outcome.to_dict()["summary"] == "no drift"
    assert (outcome.rerun.source_kind, outcome.rerun.source_id, outcome.rerun.mode) == (
        "drift_check",
        str(recorded.pk),
        "sandbox",
    )


def test_a_drift_check_reports_fields_and_counts_that_changed(catalog, executor_settings):
    register = Tool.objects.select_related("service__provider").get(function_name="get_br_title_info")
    assert register.json_switch  # answers JSON, which is easy to doctor below
    params = {"sigunguCd": "11680", "bjdongCd": "10300", "numOfRows": 5}
    call = tool_execute(tool=register, params=params, options=CallOptions(mode="record")).call
    body = json.loads(call.body_text)
    items = body["response"]["body"]["items"]["item"]
    assert len(items) == 5
    for item in items:
        item["bldNm"] = 1  # a number where the service now sends text
        del item["platPlc"]
    body["response"]["body"]["items"]["item"] = items[:3]
    call.body_gz = gzip.compress(json.dumps(body, ensure_ascii=False).encode())
    call.save()

    outcome = drift_check(call=call)

    changes = {(c["kind"], c["field"]) for c in outcome.to_dict()["changes"]}
    assert ("field_added", "platPlc") in changes
    assert ("field_type", "bldNm") in changes
    assert ("count", "records") in changes
    assert outcome.report.severity == "schema"
