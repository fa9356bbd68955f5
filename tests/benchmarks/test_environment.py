"""The Django tool environment: the task's sandbox clock reaches the sandbox, replay and live modes answer
without crashing, and malformed calls from a scripted model are stored as errors in the transcript."""

from __future__ import annotations

import dataclasses
import json

import pytest
from asgiref.sync import async_to_sync

from apis.models import ApiCall
from benchmarks.engine.backends.scripted import ScriptedBackend, answer, call, turn
from benchmarks.engine.runner import CallRecord, EpisodeResult, StepRecord
from benchmarks.environment import (
    CallLedger,
    DjangoToolEnvironment,
    LedgerEntry,
    Turn,
    catalog_load,
)
from benchmarks.models import EvalRun, ModelEntry, Task, TaskResult
from benchmarks.services import eval_run_create, eval_run_execute, model_entry_create

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

STATION = "get_msrstn_accto_rltm_mesure_dnsty"


def _observe(task, mode: str, name: str, args: dict) -> dict:
    ledger = CallLedger()
    env = DjangoToolEnvironment(catalog_load(), task, mode=mode, ledger=ledger, source_prefix="test")
    observation = async_to_sync(env.execute)(name, args)
    return json.loads(observation.content) | {"_ok": observation.ok}


def test_the_sandbox_answers_at_the_tasks_clock(demo_tasks, executor_settings):
    task = Task.objects.get(code="demo-pm25-compare").to_engine()
    args = {"stationName": "중구", "dataTerm": "DAILY"}
    at_default = _observe(task, "sandbox", STATION, args)
    at_night = _observe(dataclasses.replace(task, clock="2026-11-19T03:10:00+09:00"), "sandbox", STATION, args)
    assert at_default["records"][0]["dataTime"] == "2026-11-18 14:00"
    assert at_night["records"][0]["dataTime"].startswith("2026-11-19 0")  # the night's latest published hour
    assert ApiCall.objects.filter(source_kind="bench_step", source_id="test", tool__function_name=STATION).count() == 2


def test_replay_without_a_recording_and_live_without_a_key_come_back_as_errors(demo_tasks, executor_settings):
    task = Task.objects.get(code="demo-pm25-compare").to_engine()
    args = {"stationName": "중구", "dataTerm": "DAILY"}
    replayed = _observe(task, "replay", STATION, args)
    assert (replayed["_ok"], replayed["error_class"]) == (False, "replay.miss")
    assert ApiCall.objects.get(mode="replay", source_kind="bench_step").error_class == "replay.miss"
    live = _observe(task, "live", STATION, args)
    assert (live["_ok"], live["error_class"]) == (False, "call.execution_exception")
    assert "live mode needs a service key" in live["error"]


def test_the_ledger_names_each_executed_call_and_skips_invalid_ones():
    ledger = CallLedger()
    ledger.add(Turn("t", 0, 0), LedgerEntry(0, "a", {"x": 1}, api_call_id=11))
    ledger.add(Turn("t", 0, 0), LedgerEntry(0, "a", {"x": 1}, api_call_id=12))
    ledger.add(Turn("t", 1, 0), LedgerEntry(0, "a", {"x": 1}, api_call_id=99))
    calls = [
        CallRecord("1", 0, "a", {"x": 1}, "", "ok"),
        CallRecord("2", 0, "zzz", None, "{", "invalid"),
        CallRecord("3", 0, "a", {"x": 1}, "", "error"),
    ]
    episode = EpisodeResult("t", 0, "scripted", "m", "answer", "", steps=[StepRecord(0, "", calls)])
    assert ledger.api_call_ids(episode) == [11, None, 12]
    assert ledger.pop("t", 0) == [] and [e.api_call_id for e in ledger.pop("t", 1)] == [99]


def test_malformed_calls_are_answered_as_errors_and_stored_in_the_transcript(demo_tasks, executor_settings):
    model = model_entry_create(name="clumsy", backend=ModelEntry.Backend.OPENAI, base_url="http://127.0.0.1:9/v1")
    run = eval_run_create(model=model, task_codes=["demo-holiday-oct"], seeds=[0], max_steps=4)
    script = [
        turn(
            call("get_rest_de_info", '{"solYear": "2026", '),  # JSON cut short
            call("get_weather_now", {"city": "서울"}),  # no such tool
            call("get_rest_de_info", {"solYear": ["2026"], "solMonth": "10"}),  # a list where text is due
            call("get_rest_de_info", {"solMonth": "10", "colour": "red"}),  # unknown parameter
        ),
        turn(call("get_rest_de_info", {"solYear": "2026", "solMonth": "10"})),
        answer("정답: 10월 3일, 10월 5일, 10월 9일"),
    ]
    eval_run_execute(run=run, backend=ScriptedBackend(script))
    run.refresh_from_db()
    assert run.status == EvalRun.Status.FINISHED
    result = TaskResult.objects.get(run=run)
    first, second, _ = result.transcript["steps"]
    assert [c["error_class"] for c in first["calls"]] == [
        "call.bad_json",
        "call.unknown_tool",
        "call.invalid_arguments",
        "call.invalid_arguments",
    ]
    assert all(c["status"] == "invalid" and '"ok": false' in c["observation"] for c in first["calls"])
    assert "colour" in first["calls"][3]["error"] and "solYear" in first["calls"][3]["error"]
    assert second["calls"][0]["status"] == "ok"
    assert result.api_call_ids[:4] == [None] * 4 and result.api_call_ids[4] is not None
    assert result.invalid_calls == 4 and result.calls == 5
    assert result.response_ok and result.environment_ok and not result.action_ok  # 4 invalid calls cost precision
    errors = result.scores["errors"]
    assert errors["invalid_by_kind"] == {"call.bad_json": 1, "call.unknown_tool": 1, "call.invalid_arguments": 2}
    assert run.summary["overall"]["errors"]["invalid_call_rate"] == pytest.approx(4 / 5)
