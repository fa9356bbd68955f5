"""The executor against the standalone sandbox server over a real socket: every mode, injected faults, limits.

Tools come from the sandbox's own Swagger specs through the importer, so this is the whole path:
spec -> ToolSpec -> executor -> socket -> sandbox -> normalizer.
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import parse_qsl, quote

import pytest

from apis.engine import errors
from apis.engine.drift import check_drift
from apis.engine.executor import Executor, InMemoryCallStore, ProviderLimits, RetryPolicy, ToolCall
from apis.engine.model import ToolSpec
from apis.engine.spec_import import import_spec
from apis.sandbox.config import DEMO_KEY, DEMO_KEY_LEGACY, SandboxConfig
from apis.sandbox.registry import load_families
from apis.sandbox.server import start_sandbox_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SPEC_DIR = Path(__file__).resolve().parents[3] / "apis" / "sandbox" / "specs"
FAST_RETRY = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.02)


@pytest.fixture(scope="module")
def sandbox():
    url, stop = start_sandbox_server(port=0, config=SandboxConfig(timeout_hold_s=1.0))
    yield url
    stop()


def _tool_for(op) -> ToolSpec:
    result = import_spec(SPEC_DIR / op.service.spec_file)
    assert result.ok, result.report()
    for tool in result.tools:
        path, _, query = tool.path.partition("?")
        if path == op.path and dict(parse_qsl(query)) == op.match_query and tool.method == op.method:
            return tool
    raise AssertionError(f"{op.id}: no tool for {op.method} {op.path} in {op.service.spec_file}")


OPERATIONS = sorted(load_families().live_operations(), key=lambda o: o.id)


def _example_call(op, **overrides) -> ToolCall:
    params = dict(op.example)
    if isinstance(op.example_body, dict):
        params.update(op.example_body)
    return ToolCall(_tool_for(op), {**params, **overrides}, expect_records=True)


def rtms():
    return next(o for o in OPERATIONS if o.path == "/getRTMSDataSvcAptTrade")


@pytest.mark.parametrize("op", OPERATIONS, ids=[o.id for o in OPERATIONS])
async def test_it_runs_every_sandbox_operation_from_its_imported_spec(sandbox, op):
    async with Executor("sandbox", sandbox_origin=sandbox, sandbox_key=DEMO_KEY, retry=FAST_RETRY) as ex:
        result = await ex.execute(_example_call(op))
    assert result.ok, (result.error_class, result.result_code, result.result_msg, result.raw[:300])
    assert result.records and result.attempts == 1
    tool = _tool_for(op)
    if tool.record_fields:  # the importer's field paths are the normalizer's record keys
        declared = {f["path"] for f in tool.record_fields}
        assert declared & set(result.records[0])


@pytest.mark.parametrize("pasted", [DEMO_KEY_LEGACY, quote(DEMO_KEY_LEGACY, safe="")], ids=["decoding", "encoding"])
async def test_it_calls_live_urls_with_a_pasted_key_in_either_form(sandbox, pasted):
    """Live mode, with the sandbox standing in for the live origin; the sandbox answers 30 to a double-encoded key."""
    op = rtms()
    tool = _tool_for(op)
    live = ToolSpec(**{**tool.__dict__, "base_url": f"{sandbox}/sandbox/{tool.base_url.split('://', 1)[1]}"})
    async with Executor("live", retry=FAST_RETRY) as ex:
        result = await ex.execute(ToolCall(live, op.example, service_key=pasted, expect_records=True))
    assert result.ok, (result.error_class, result.result_msg)
    assert "+" not in result.raw or DEMO_KEY_LEGACY not in result.raw


async def test_it_reports_a_wrong_key_as_auth_and_does_not_retry(sandbox):
    op = rtms()
    async with Executor("sandbox", sandbox_origin=sandbox, retry=FAST_RETRY) as ex:
        result = await ex.execute(ToolCall(_tool_for(op), op.example, service_key="not-a-registered-key-0000"))
    assert (result.ok, result.error_class, result.result_code, result.attempts) == (False, errors.STRUCT_AUTH, "30", 1)
    assert "not-a-registered-key" not in result.raw + (result.result_msg or "")


async def test_it_reports_missing_and_invalid_parameters_as_structural(sandbox):
    op = rtms()
    tool = _tool_for(op)
    async with Executor("sandbox", sandbox_origin=sandbox, sandbox_key=DEMO_KEY, retry=FAST_RETRY) as ex:
        missing = await ex.execute(ToolCall(tool, {"LAWD_CD": "11110"}))
        invalid = await ex.execute(ToolCall(tool, {"LAWD_CD": "종로구", "DEAL_YMD": "202407"}))
    assert (missing.error_class, missing.attempts) == (errors.STRUCT_MISSING_PARAM, 1)
    assert (invalid.error_class, invalid.attempts) == (errors.STRUCT_INVALID_PARAM, 1)


async def test_it_records_against_the_sandbox_and_replays_without_it(sandbox):
    op = rtms()
    store = InMemoryCallStore()
    call = _example_call(op)
    async with Executor(
        "record", record_target="sandbox", sandbox_origin=sandbox, sandbox_key=DEMO_KEY, store=store
    ) as ex:
        recorded = await ex.execute(call)
    async with Executor("replay", store=store) as ex:
        replayed = await ex.execute(call)
        miss = await ex.execute(_example_call(op, DEAL_YMD="200001"))
    assert recorded.ok and replayed.records == recorded.records
    assert (miss.ok, miss.error_class) == (False, errors.REPLAY_MISS)
    assert DEMO_KEY not in store.records()[0].body


async def test_it_finds_no_drift_in_the_deterministic_sandbox(sandbox):
    op = rtms()
    store = InMemoryCallStore()
    call = _example_call(op)
    async with Executor(
        "record", record_target="sandbox", sandbox_origin=sandbox, sandbox_key=DEMO_KEY, store=store
    ) as ex:
        await ex.execute(call)
    async with Executor("sandbox", sandbox_origin=sandbox, sandbox_key=DEMO_KEY) as ex:
        report = await check_drift(ex, call, store)
    assert report.recorded and not report.changed, report.summary()


@pytest.mark.parametrize(
    ("fault", "error_class"),
    [
        ("500", errors.ENV_HTTP_5XX),
        ("503", errors.ENV_HTTP_5XX),
        ("reset", errors.ENV_CONNECTION),
        ("timeout", errors.ENV_TIMEOUT),
        ("quota", errors.ENV_QUOTA),
        ("malformed", errors.ENV_TRUNCATED),
    ],
)
async def test_it_retries_every_injected_sandbox_fault_until_attempts_run_out(sandbox, fault, error_class):
    knobs = {"X-Sandbox-Faults": fault, "X-Sandbox-Fault-Rate": "1", "X-Sandbox-Timeout-Hold-S": "0.5"}
    op = rtms()
    async with Executor(
        "sandbox", sandbox_origin=sandbox, sandbox_key=DEMO_KEY, retry=FAST_RETRY, timeout=0.3, headers=knobs
    ) as ex:
        result = await ex.execute(_example_call(op))
    assert (result.ok, result.error_class, result.attempts) == (False, error_class, 3)


async def test_it_gets_through_flaky_faults_by_retrying(sandbox):
    knobs = {"X-Sandbox-Faults": "503,reset,malformed,quota", "X-Sandbox-Fault-Rate": "0.3"}
    op = rtms()
    retry = RetryPolicy(max_attempts=10, base_delay=0.005, max_delay=0.01)
    async with Executor("sandbox", sandbox_origin=sandbox, sandbox_key=DEMO_KEY, retry=retry, headers=knobs) as ex:
        results = await ex.execute_many(_example_call(op, pageNo=str(page)) for page in range(1, 21))
    assert all(r.ok for r in results), [(r.error_class, r.attempts) for r in results if not r.ok]
    assert sum(r.attempts for r in results) > len(results)  # some calls really were retried


async def test_it_honours_the_rate_limit_against_the_sandbox(sandbox):
    op = rtms()
    tool = _tool_for(op)
    limits = {tool.provider: ProviderLimits(concurrency=8, rate_per_s=20, burst=1)}
    async with Executor("sandbox", sandbox_origin=sandbox, sandbox_key=DEMO_KEY, provider_limits=limits) as ex:
        started = time.perf_counter()
        results = await ex.execute_many(_example_call(op, pageNo=str(p)) for p in range(1, 10))
        elapsed = time.perf_counter() - started
    assert all(r.ok for r in results)
    assert elapsed >= 8 / 20 * 0.9
