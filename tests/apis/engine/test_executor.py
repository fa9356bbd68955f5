"""Executor unit tests over httpx.MockTransport: URLs, keys, modes, retries, limits, cache, record/replay."""

from __future__ import annotations

import asyncio
import json
import random
import time
from urllib.parse import quote

import httpx
import pytest

from apis.engine import errors
from apis.engine.executor import (
    EngineError,
    Executor,
    ExecutorConfigError,
    InMemoryCallStore,
    MemoryCache,
    Mode,
    ProviderLimits,
    RetryPolicy,
    ToolCall,
)
from apis.engine.model import KeySlot, ToolSpec

from .conftest import fixture_bytes

pytestmark = pytest.mark.anyio

ENCODED_KEY = "kOpA%2Bsandbox%2Fkey%3D%3D"
DECODED_KEY = "kOpA+sandbox/key=="
NO_WAIT = RetryPolicy(max_attempts=3, base_delay=0.0, max_delay=0.0)

RTMS = ToolSpec(
    method="GET",
    path="/getRTMSDataSvcAptTrade",
    base_url="https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade",
    operation_id="getRTMSDataSvcAptTrade",
    param_locations={"LAWD_CD": "query", "DEAL_YMD": "query"},
    key_param=KeySlot("serviceKey"),
    provider="apis.data.go.kr/1613000",
)
KMA = ToolSpec(
    method="GET",
    path="/getUltraSrtNcst",
    base_url="https://apis.data.go.kr/1360000/VilageFcstInfoService_2.0",
    operation_id="getUltraSrtNcst",
    key_param=KeySlot("ServiceKey"),
    json_switch={"dataType": "JSON"},
    provider="apis.data.go.kr/1360000",
)
CITYDATA = ToolSpec(
    method="GET",
    path="/{KEY}/{TYPE}/citydata/{START_INDEX}/{END_INDEX}/{AREA_NM}",
    base_url="http://openapi.seoul.go.kr:8088",
    operation_id="citydata",
    param_locations={"START_INDEX": "path", "END_INDEX": "path", "AREA_NM": "path"},
    key_param=KeySlot("KEY", "path"),
    json_switch={"TYPE": "json"},
    provider="openapi.seoul.go.kr:8088",
)
NTS = ToolSpec(
    method="POST",
    path="/status",
    base_url="https://api.odcloud.kr/api/nts-businessman/v1",
    operation_id="status",
    param_locations={"b_no": "body"},
    key_param=KeySlot("Authorization", "header", "Infuser "),
    json_switch={"returnType": "JSON"},
    provider="api.odcloud.kr",
)


class Recorder:
    """A MockTransport handler that answers from a queue and keeps every request it saw."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return answer(request)
        status, body = answer
        return httpx.Response(status, content=body if isinstance(body, bytes) else body.encode())

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


OK = (200, fixture_bytes("datagokr_kma_list.json"))
NO_DATA = (200, fixture_bytes("kma_nodata.json"))
HTML_503 = (503, fixture_bytes("html_502.html"))
KEY_ERROR = (403, fixture_bytes("gateway_variant_b.json"))


def executor(recorder: Recorder, mode: str = "live", **options) -> Executor:
    options.setdefault("retry", NO_WAIT)
    return Executor(mode, transport=recorder.transport, **options)


async def test_it_sends_the_key_encoded_exactly_once_whichever_form_was_pasted():
    for pasted in (ENCODED_KEY, DECODED_KEY):
        recorder = Recorder(OK)
        async with executor(recorder) as ex:
            result = await ex.execute(ToolCall(RTMS, {"LAWD_CD": "11110", "DEAL_YMD": "202407"}, service_key=pasted))
        assert result.ok
        (request,) = recorder.requests
        assert request.url.raw_path.decode() == (
            "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
            "?serviceKey=kOpA%2Bsandbox%2Fkey%3D%3D&DEAL_YMD=202407&LAWD_CD=11110"
        )
        assert request.url.host == "apis.data.go.kr"


async def test_it_asks_for_json_through_the_service_switch_unless_the_caller_chose():
    recorder = Recorder(OK)
    async with executor(recorder) as ex:
        await ex.execute(ToolCall(KMA, {"nx": 60, "ny": 127}, service_key="k" * 64))
        await ex.execute(ToolCall(KMA, {"nx": 60, "ny": 127, "dataType": "XML"}, service_key="k" * 64))
    assert recorder.requests[0].url.params["dataType"] == "JSON"
    assert recorder.requests[1].url.params.get_list("dataType") == ["XML"]
    assert recorder.requests[0].url.params["nx"] == "60"


async def test_it_swaps_the_origin_in_sandbox_mode_and_uses_the_demo_key():
    recorder = Recorder(OK)
    async with executor(recorder, "sandbox", sandbox_origin="http://127.0.0.1:9/", sandbox_key="demo-key-0001") as ex:
        await ex.execute(ToolCall(RTMS, {"LAWD_CD": "11110", "DEAL_YMD": "202407"}))
        await ex.execute(ToolCall(CITYDATA, {"START_INDEX": 1, "END_INDEX": 5, "AREA_NM": "광화문·덕수궁"}))
    first, second = (str(r.url) for r in recorder.requests)
    assert first.startswith(
        "http://127.0.0.1:9/sandbox/apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade?"
    )
    assert "serviceKey=demo-key-0001" in first
    assert second == (
        "http://127.0.0.1:9/sandbox/openapi.seoul.go.kr:8088/demo-key-0001/json/citydata/1/5/"
        + quote("광화문·덕수궁", safe="")
    )


async def test_it_puts_keys_in_headers_with_their_prefix_and_sends_json_bodies():
    recorder = Recorder((200, fixture_bytes("nts_status.json")))
    async with executor(recorder) as ex:
        result = await ex.execute(ToolCall(NTS, {"b_no": ["2208657343"]}, service_key=ENCODED_KEY))
    (request,) = recorder.requests
    assert request.headers["Authorization"] == f"Infuser {DECODED_KEY}"
    assert json.loads(request.content) == {"b_no": ["2208657343"]}
    assert request.url.params["returnType"] == "JSON"
    assert result.ok and result.records[0]["b_stt_cd"] == "01"


async def test_it_reports_a_missing_path_parameter_without_calling():
    recorder = Recorder(OK)
    async with executor(recorder) as ex:
        result = await ex.execute(ToolCall(CITYDATA, {"START_INDEX": 1, "END_INDEX": 5}, service_key="sample"))
    assert (result.ok, result.error_class) == (False, errors.STRUCT_MISSING_PARAM)
    assert "AREA_NM" in result.result_msg
    assert recorder.requests == []


async def test_it_retries_environmental_errors_and_counts_attempts():
    recorder = Recorder(HTML_503, HTML_503, OK)
    async with executor(recorder) as ex:
        result = await ex.execute(ToolCall(RTMS, {"LAWD_CD": "11110"}, service_key="k" * 64))
    assert (result.ok, result.attempts, len(recorder.requests)) == (True, 3, 3)


async def test_it_gives_up_after_max_attempts_with_the_environmental_class():
    recorder = Recorder(httpx.ConnectError("Connection reset by peer"))
    async with executor(recorder) as ex:
        result = await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))
    assert (result.ok, result.error_class, result.attempts) == (False, errors.ENV_CONNECTION, 3)
    assert result.http_status is None


@pytest.mark.parametrize("answer", [KEY_ERROR, (200, fixture_bytes("gateway_retired_no_root.json"))])
async def test_it_never_retries_structural_errors(answer):
    recorder = Recorder(answer)
    async with executor(recorder) as ex:
        result = await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))
    assert errors.is_structural(result.error_class)
    assert (result.attempts, len(recorder.requests)) == (1, 1)


async def test_it_classifies_timeouts():
    recorder = Recorder(httpx.ReadTimeout("timed out"), OK)
    async with executor(recorder) as ex:
        result = await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))
    assert result.ok and result.attempts == 2
    recorder = Recorder(httpx.ReadTimeout("timed out"))
    async with executor(recorder, retry=RetryPolicy(max_attempts=1)) as ex:
        result = await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))
    assert result.error_class == errors.ENV_TIMEOUT


async def test_it_backs_off_exponentially_with_full_jitter():
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    recorder = Recorder(HTML_503)
    policy = RetryPolicy(max_attempts=5, base_delay=0.1, max_delay=0.5, jitter=True)
    async with executor(recorder, retry=policy, sleep=fake_sleep, rng=random.Random(7)) as ex:
        result = await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))
    assert result.attempts == 5 and len(waits) == 4
    caps = [0.1, 0.2, 0.4, 0.5]
    assert all(0 <= w <= cap for w, cap in zip(waits, caps, strict=True))
    assert len(set(waits)) == 4  # jittered, not a fixed ladder
    assert RetryPolicy(base_delay=0.1, max_delay=0.5, jitter=False).delay(3, random.Random()) == pytest.approx(0.4)


async def test_it_honours_retry_after_on_429():
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    def too_many(request):
        return httpx.Response(429, headers={"Retry-After": "1.5"}, text="Too Many Requests")

    recorder = Recorder(too_many, OK)
    policy = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=3.0)
    async with executor(recorder, retry=policy, sleep=fake_sleep) as ex:
        result = await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))
    assert result.ok and waits == [1.5]


async def test_it_caches_by_the_keyless_request_and_renormalizes_hits():
    recorder = Recorder(NO_DATA)
    cache = MemoryCache()
    async with executor(recorder, cache=cache) as ex:
        first = await ex.execute(ToolCall(KMA, {"nx": 60}, service_key="a" * 64))
        second = await ex.execute(ToolCall(KMA, {"nx": 60}, service_key="b" * 64))
        strict = await ex.execute(ToolCall(KMA, {"nx": 60}, service_key="b" * 64, expect_records=True))
        bypass = await ex.execute(ToolCall(KMA, {"nx": 60}, service_key="b" * 64), use_cache=False)
    assert len(recorder.requests) == 2
    assert (first.attempts, second.attempts, bypass.attempts) == (1, 0, 1)
    assert second.ok and second.result_code == "03"
    assert strict.error_class == errors.STRUCT_NO_DATA
    assert cache.hits == 2


async def test_it_does_not_cache_failures():
    recorder = Recorder(KEY_ERROR, OK)
    async with executor(recorder, cache=MemoryCache()) as ex:
        assert not (await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))).ok
        assert (await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))).ok
    assert len(recorder.requests) == 2


async def test_it_expires_cache_entries():
    now = [0.0]
    cache = MemoryCache(ttl_s=10, clock=lambda: now[0])
    recorder = Recorder(OK)
    async with executor(recorder, cache=cache) as ex:
        await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))
        now[0] = 11
        await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))
    assert len(recorder.requests) == 2


async def test_it_records_then_replays_and_calls_a_miss_a_miss():
    store = InMemoryCallStore()
    recorder = Recorder(OK)
    call = ToolCall(RTMS, {"LAWD_CD": "11110", "DEAL_YMD": "202407"}, service_key=ENCODED_KEY)
    async with executor(recorder, "record", store=store) as ex:
        recorded = await ex.execute(call)
    (entry,) = store.records()
    assert entry.request == {
        "method": "GET",
        "url": "https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade",
        "params": [["DEAL_YMD", "202407"], ["LAWD_CD", "11110"]],
        "body": None,
    }
    async with Executor("replay", store=store) as replay:
        again = await replay.execute(call)
        other_key = await replay.execute(ToolCall(RTMS, call.params, service_key="other-key-000"))
        miss = await replay.execute(ToolCall(RTMS, {"LAWD_CD": "11680", "DEAL_YMD": "202407"}))
    assert again.records == recorded.records and again.attempts == 0
    assert other_key.ok  # the key is not part of the request's identity
    assert (miss.ok, miss.error_class) == (False, errors.REPLAY_MISS)
    assert "LAWD_CD" not in miss.result_msg and "getRTMSDataSvcAptTrade" in miss.result_msg
    assert not errors.is_environmental(miss.error_class)


async def test_it_does_not_record_environmental_failures():
    store = InMemoryCallStore()
    recorder = Recorder(HTML_503)
    async with executor(recorder, "record", store=store) as ex:
        await ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))
    assert len(store) == 0


async def test_it_limits_concurrency_per_provider():
    in_flight = {"apis.data.go.kr": 0, "peak": 0}

    class SlowTransport(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request):
            in_flight["apis.data.go.kr"] += 1
            in_flight["peak"] = max(in_flight["peak"], in_flight["apis.data.go.kr"])
            await asyncio.sleep(0.02)
            in_flight["apis.data.go.kr"] -= 1
            return httpx.Response(200, content=OK[1])

    ex = Executor("live", transport=SlowTransport(), limits=ProviderLimits(concurrency=3))
    async with ex:
        results = await ex.execute_many(ToolCall(RTMS, {"n": i}, service_key="k" * 64) for i in range(12))
    assert all(r.ok for r in results)
    assert in_flight["peak"] == 3


async def test_it_honours_the_rate_limit():
    recorder = Recorder(OK)
    limits = {"apis.data.go.kr/1613000": ProviderLimits(concurrency=8, rate_per_s=40, burst=1)}
    async with executor(recorder, provider_limits=limits) as ex:
        started = time.perf_counter()
        await ex.execute_many(ToolCall(RTMS, {"n": i}, service_key="k" * 64) for i in range(9))
        elapsed = time.perf_counter() - started
        started = time.perf_counter()
        await ex.execute_many(ToolCall(KMA, {"n": i}, service_key="k" * 64) for i in range(9))
        unlimited = time.perf_counter() - started
    assert elapsed >= 8 / 40 * 0.9  # nine calls, one token at a time, 40 per second
    assert unlimited < elapsed


async def test_execute_many_keeps_the_order_of_calls():
    def echo(request):
        n = request.url.params["n"]
        body = {"response": {"header": {"resultCode": "00"}, "body": {"items": {"item": {"n": n}}}}}
        return httpx.Response(200, json=body)

    recorder = Recorder(echo)
    async with executor(recorder) as ex:
        results = await ex.execute_many(
            (ToolCall(RTMS, {"n": i}, service_key="k" * 64) for i in range(20)), concurrency=4
        )
    assert [r.records[0]["n"] for r in results] == [str(i) for i in range(20)]


def test_it_survives_being_used_from_two_event_loops():
    recorder = Recorder(OK)
    ex = Executor("live", transport=recorder.transport, retry=NO_WAIT)
    for _ in range(2):
        assert asyncio.run(ex.execute(ToolCall(RTMS, {}, service_key="k" * 64))).ok


def test_it_refuses_inconsistent_setups():
    with pytest.raises(ExecutorConfigError):
        Executor("sandbox")
    with pytest.raises(ExecutorConfigError):
        Executor("replay")
    with pytest.raises(ExecutorConfigError):
        Executor("record", record_target="replay", store=InMemoryCallStore())
    with pytest.raises(ValueError):
        Executor("sideways")
    assert (
        Executor("record", store=InMemoryCallStore(), record_target=Mode.SANDBOX, sandbox_origin="http://x").target
        is Mode.SANDBOX
    )


def _forms(key: str) -> list[str]:
    return [key, quote(key, safe=""), quote(quote(key, safe=""), safe=""), key.replace("+", " ")]


def _strings(value) -> list[str]:
    """Every string inside a result, store record or exception, for the leak search."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    if hasattr(value, "__dataclass_fields__"):
        return [s for name in value.__dataclass_fields__ for s in _strings(getattr(value, name))] + [repr(value)]
    return [repr(value)]


async def test_the_key_never_appears_in_results_records_store_or_exceptions():
    key = "Leak+Test/Key+Value=="
    forms = _forms(key)

    def echo_everything(request):
        # A hostile service: echoes the URL and headers into the body, the message and a record.
        url = str(request.url)
        body = {
            "response": {
                "header": {"resultCode": "30", "resultMsg": f"bad key in {url}"},
                "body": {"items": {"item": {"url": url, "auth": request.headers.get("Authorization", "")}}},
            }
        }
        return httpx.Response(200, json=body)

    failures = [
        echo_everything,
        lambda request: (_ for _ in ()).throw(httpx.ConnectError(f"cannot reach {request.url}")),
        lambda request: (_ for _ in ()).throw(httpx.ReadTimeout(f"timeout on {request.url}")),
    ]
    store = InMemoryCallStore()
    for answer in failures:
        for tool in (RTMS, NTS, CITYDATA):
            recorder = Recorder(answer)
            params = {"START_INDEX": 1, "END_INDEX": 5, "AREA_NM": "x"} if tool is CITYDATA else {}
            call = ToolCall(tool, params, service_key=quote(key, safe=""))
            async with executor(recorder, "record", store=store) as ex:
                result = await ex.execute(call)
                prepared = ex.prepare(call)
            haystack = _strings(result) + _strings(prepared) + [repr(call), str(call)] + _strings(store.records())
            assert recorder.requests, "the call went out"
            for form in forms:
                assert not [s for s in haystack if form in s], f"{form!r} leaked via {tool.operation_id}"

    def explode(request):
        raise RuntimeError(f"unexpected failure for {request.url}")

    async with executor(Recorder(explode)) as ex:
        with pytest.raises(EngineError) as caught:
            await ex.execute(ToolCall(RTMS, {}, service_key=key))
    error = caught.value
    texts = [str(error), repr(error), *map(str, error.args)]
    assert error.__cause__ is None and error.__suppress_context__
    for form in forms:
        assert not [t for t in texts if form in t]
    assert "***" in str(error)


async def test_it_sends_form_parameters_form_encoded_and_keeps_them_in_the_request_identity():
    juso = ToolSpec(
        method="POST",
        path="/addrLinkApi.do",
        base_url="https://business.juso.go.kr/addrlink",
        operation_id="addrLinkApi",
        param_locations={"keyword": "form", "form": "query"},
        key_param=KeySlot("confmKey"),
    )
    recorder = Recorder((200, fixture_bytes("juso.json")))
    async with executor(recorder) as ex:
        result = await ex.execute(
            ToolCall(juso, {"keyword": "세종대로 209", "form": "x"}, service_key="devU01TX0FVVEgyMDI2")
        )
        prepared = ex.prepare(ToolCall(juso, {"keyword": "세종대로 209", "form": "x"}))
    (request,) = recorder.requests
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert request.content.decode() == "keyword=%EC%84%B8%EC%A2%85%EB%8C%80%EB%A1%9C+209"
    assert request.url.params["form"] == "x"
    assert prepared.normalized()["form"] == {"keyword": "세종대로 209"}
    assert result.ok and len(result.records) == 2
