"""Drift check: a recorded call re-run, and what changed reported by kind and severity."""

from __future__ import annotations

import json

import httpx
import pytest

from apis.engine import errors
from apis.engine.drift import check_drift, compare_results
from apis.engine.executor import Executor, InMemoryCallStore, RetryPolicy, ToolCall
from apis.engine.model import KeySlot, ToolSpec
from apis.engine.normalize import normalize

from .conftest import fixture_bytes

TOOL = ToolSpec(
    method="GET",
    path="/getRestDeInfo",
    base_url="https://apis.data.go.kr/B090041/openapi/service/SpcdeInfoService",
    operation_id="getRestDeInfo",
    key_param=KeySlot("serviceKey"),
    json_switch={"_type": "json"},
)


def body(items, code="00") -> bytes:
    return json.dumps(
        {
            "response": {
                "header": {"resultCode": code, "resultMsg": "X"},
                "body": {"items": {"item": items}, "totalCount": len(items)},
            }
        }
    ).encode()


HOLIDAYS = [
    {"dateName": "추석", "locdate": 20260924, "isHoliday": "Y"},
    {"dateName": "개천절", "locdate": 20261003, "isHoliday": "Y"},
]


def test_it_finds_no_drift_in_the_same_answer():
    assert compare_results(normalize(body(HOLIDAYS)), normalize(body(HOLIDAYS))) == []


def test_it_reports_schema_changes_and_ranks_them_above_data_changes():
    renamed = [{"dateName": h["dateName"], "locdate": str(h["locdate"]), "holidayYn": h["isHoliday"]} for h in HOLIDAYS]
    changes = compare_results(normalize(body(HOLIDAYS)), normalize(body(renamed[:1])))
    kinds = {(c.kind, c.field) for c in changes}
    assert {
        ("field_added", "holidayYn"),
        ("field_removed", "isHoliday"),
        ("field_type", "locdate"),
        ("count", "records"),
    } <= kinds
    assert {c.severity for c in changes} == {"schema", "data"}


def test_it_reports_status_changes():
    changes = compare_results(
        normalize(body(HOLIDAYS)), normalize(fixture_bytes("gateway_retired_no_root.json"), http_status=400)
    )
    fields = {c.field: (c.old, c.new) for c in changes}
    assert fields["ok"] == (True, False)
    assert fields["error_class"] == (None, errors.STRUCT_RETIRED)
    assert fields["result_code"] == ("00", "12")


@pytest.mark.anyio
async def test_it_reruns_a_recorded_call_and_compares():
    answers = [body(HOLIDAYS), body([{**HOLIDAYS[0], "isHoliday": "N"}, HOLIDAYS[1]])]
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=answers.pop(0)))
    store = InMemoryCallStore()
    call = ToolCall(TOOL, {"solYear": "2026"}, service_key="k" * 64)
    async with Executor("record", store=store, transport=transport, retry=RetryPolicy(max_attempts=1)) as recorder:
        await recorder.execute(call)
    async with Executor("live", transport=transport) as live:
        report = await check_drift(live, call, store)
        unknown = await check_drift(live, ToolCall(TOOL, {"solYear": "2027"}), store)
    assert report.recorded and report.changed
    assert report.severity == "data"
    assert [(c.kind, c.field, c.old, c.new) for c in report.changes] == [("value", "records.0.isHoliday", "Y", "N")]
    assert "data drift" in report.summary()
    assert (unknown.recorded, unknown.changed, unknown.summary()) == (False, False, "no recorded call to compare with")


@pytest.mark.anyio
async def test_it_refuses_to_check_drift_with_a_replaying_executor():
    store = InMemoryCallStore()
    async with Executor("replay", store=store) as replay:
        with pytest.raises(ValueError):
            await check_drift(replay, ToolCall(TOOL, {}), store)
