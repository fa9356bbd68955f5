"""The executor over a real socket (the engine's fixture server on 127.0.0.1) with injected faults."""

from __future__ import annotations

import time

import pytest

from apis.engine import errors
from apis.engine.executor import Executor, InMemoryCallStore, ProviderLimits, RetryPolicy, ToolCall
from apis.engine.model import KeySlot, ToolSpec
from tests.support.fixture_server import Canned

from .conftest import fixture_bytes

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.02)
PATH = "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"


def tool_at(origin: str) -> ToolSpec:
    """The MOLIT tool with the fixture server standing in for its live origin."""
    return ToolSpec(
        method="GET",
        path="/getRTMSDataSvcAptTrade",
        base_url=f"{origin}/1613000/RTMSDataSvcAptTrade",
        operation_id="getRTMSDataSvcAptTrade",
        key_param=KeySlot("serviceKey"),
        provider="apis.data.go.kr/1613000",
    )


def call(origin: str, key: str = "kOpA%2Bsandbox%2Fkey%3D%3D", **params) -> ToolCall:
    return ToolCall(tool_at(origin), {"LAWD_CD": "11110", "DEAL_YMD": "202407", **params}, service_key=key)


async def test_it_sends_the_key_encoded_once_over_the_wire(fixture_server):
    async with Executor("live", retry=FAST_RETRY) as ex:
        result = await ex.execute(call(fixture_server.url))
    assert result.ok and result.attempts == 1
    (seen,) = fixture_server.requests
    assert seen.raw_query.startswith("serviceKey=kOpA%2Bsandbox%2Fkey%3D%3D&")
    assert seen.query["serviceKey"] == "kOpA+sandbox/key=="
    assert "kOpA" not in result.raw and "kOpA" not in str(result.records)  # the echo is redacted
    assert result.latency_ms > 0 and result.bytes > 0


@pytest.mark.parametrize(
    ("fault", "error_class"),
    [
        ("503", errors.ENV_HTTP_5XX),
        ("reset", errors.ENV_CONNECTION),
        ("timeout", errors.ENV_TIMEOUT),
        ("truncate", errors.ENV_TRUNCATED),
        ("quota", errors.ENV_QUOTA),
        ("429", errors.ENV_QUOTA),
    ],
)
async def test_it_retries_injected_environmental_faults(fixture_server, fault, error_class):
    fixture_server.fail_next(PATH, fault)
    async with Executor("live", retry=FAST_RETRY, timeout=0.5) as ex:
        result = await ex.execute(call(fixture_server.url))
    assert (result.ok, result.attempts) == (True, 2)
    assert fixture_server.hits(PATH) == 2

    fixture_server.fail_next(PATH, fault, fault)
    async with Executor("live", retry=RetryPolicy(max_attempts=2, base_delay=0.01), timeout=0.5) as ex:
        result = await ex.execute(call(fixture_server.url))
    assert (result.ok, result.error_class, result.attempts) == (False, error_class, 2)


@pytest.mark.parametrize(
    ("fixture", "status", "error_class"),
    [
        ("gateway_variant_b.json", 403, errors.STRUCT_AUTH),
        ("gateway_variant_a.xml", 200, errors.STRUCT_AUTH),
        ("gateway_retired_no_root.json", 400, errors.STRUCT_RETIRED),
        ("juso_e0005.json", 200, errors.STRUCT_MISSING_PARAM),
    ],
)
async def test_it_does_not_retry_structural_errors(fixture_server, fixture, status, error_class):
    fixture_server.routes[PATH] = Canned(fixture_bytes(fixture), status)
    async with Executor("live", retry=FAST_RETRY) as ex:
        result = await ex.execute(call(fixture_server.url))
    assert (result.error_class, result.attempts, result.http_status) == (error_class, 1, status)
    assert fixture_server.hits(PATH) == 1


async def test_it_honours_concurrency_and_rate_limits_against_a_server(fixture_server):
    fixture_server.latency_s = 0.05
    limits = ProviderLimits(concurrency=4)
    async with Executor("live", limits=limits) as ex:
        results = await ex.execute_many(call(fixture_server.url, n=i) for i in range(16))
    assert all(r.ok for r in results)
    assert fixture_server.max_in_flight == 4

    fixture_server.latency_s = 0.0
    rated = ProviderLimits(concurrency=16, rate_per_s=25, burst=1)
    async with Executor("live", limits=rated) as ex:
        started = time.perf_counter()
        await ex.execute_many(call(fixture_server.url, m=i) for i in range(11))
        elapsed = time.perf_counter() - started
    assert elapsed >= 10 / 25 * 0.9


async def test_it_records_from_a_server_and_replays_without_one(fixture_server):
    store = InMemoryCallStore()
    async with Executor("record", store=store, retry=FAST_RETRY) as ex:
        live = await ex.execute(call(fixture_server.url))
    origin = fixture_server.url
    fixture_server.stop()
    async with Executor("replay", store=store) as ex:
        replayed = await ex.execute(call(origin, key="some-other-key"))
        miss = await ex.execute(call(origin, DEAL_YMD="202408"))
    assert replayed.ok and replayed.records == live.records
    assert miss.error_class == errors.REPLAY_MISS
    (record,) = store.records()
    assert "kOpA" not in record.body
