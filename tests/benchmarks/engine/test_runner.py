"""The agent loop driven by the scripted fake model: every failure path is recorded and answered, never raised."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from benchmarks.engine.accounting import Usage, episode_account, percentile, run_account
from benchmarks.engine.backends.base import BackendError, ModelTurn
from benchmarks.engine.backends.scripted import ScriptedBackend, answer, call, turn
from benchmarks.engine.runner import (
    EXECUTION_EXCEPTION,
    INVALID_ARGUMENTS,
    TOO_MANY_CALLS,
    UNKNOWN_TOOL,
    EpisodeResult,
    Observation,
    RunConfig,
    StaticToolEnvironment,
    check_arguments,
    read_results_jsonl,
    run_episode,
    run_tasks,
    write_results_jsonl,
)
from benchmarks.engine.task import parse_tasks

pytestmark = pytest.mark.anyio

SCHEMAS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_region",
            "description": "지역 코드 조회",
            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "list_deals",
            "description": "거래 목록",
            "parameters": {
                "type": "object",
                "properties": {
                    "code": {"type": "string"},
                    "pageNo": {"type": "integer"},
                    "numOfRows": {"type": "integer"},
                    "kind": {"type": "string", "enum": ["apt", "offi"]},
                },
                "required": ["code"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "broken",
            "description": "always raises",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]


def handlers(delay: float = 0.0):
    async def list_deals(args):
        await asyncio.sleep(delay)
        if args["code"] == "00000":
            return Observation.error("struct.invalid_param", "no such region")
        return [{"amount": 100 + i} for i in range(3)]

    def broken(args):
        raise RuntimeError("the environment fell over")

    return {"lookup_region": lambda args: [{"code": "11110"}], "list_deals": list_deals, "broken": broken}


def environment(delay: float = 0.0) -> StaticToolEnvironment:
    return StaticToolEnvironment(SCHEMAS, handlers(delay))


TASKS = parse_tasks(
    {
        "format": "kopa-bench/tasks",
        "version": 1,
        "data_version": "runner-test",
        "tasks": [
            {
                "id": f"t{i}",
                "request": f"요청 {i}",
                "tools": "*",
                "categories": ["test"],
                "difficulty": "easy",
                "gold": {"calls": [], "answer": {"checker": "contains", "value": "100", "text": "100"}},
            }
            for i in range(4)
        ],
    }
)
TASK = TASKS.tasks[0]


async def run(script, *, env=None, **config):
    backend = ScriptedBackend(script)
    result = await run_episode(TASK, backend, env or environment(), seed=3, config=RunConfig(**config))
    return result, backend


async def test_it_runs_calls_feeds_results_back_and_stops_at_the_answer():
    result, backend = await run(
        [
            turn(call("lookup_region", {"name": "종로구"})),
            turn(call("list_deals", {"code": "11110", "pageNo": 1})),
            answer("정답: 100"),
        ]
    )
    assert (result.stop_reason, result.answer, len(result.steps)) == ("answer", "정답: 100", 3)
    assert [c.status for c in result.calls] == ["ok", "ok"]
    assert result.calls[1].total_count == 3 and result.calls[1].records_delivered == 3
    last = backend.requests[-1].messages
    assert last[0]["role"] == "system" and "2026-11-18 14:20" in last[0]["content"]
    assert [m["role"] for m in last[1:]] == ["user", "assistant", "tool", "assistant", "tool"]
    assert last[2]["tool_calls"][0]["function"] == {"name": "lookup_region", "arguments": '{"name": "종로구"}'}
    assert last[3]["tool_call_id"] == last[2]["tool_calls"][0]["id"]
    assert json.loads(last[3]["content"])["records"] == [{"code": "11110"}]
    assert backend.requests[0].seed == 3 and [r.step for r in backend.requests] == [0, 1, 2]
    assert len(backend.requests[0].tools) == 3


async def test_parallel_calls_in_one_turn_run_concurrently():
    calls = [call("list_deals", {"code": str(11110 + i)}) for i in range(4)]
    started = time.perf_counter()
    result, backend = await run([turn(*calls), answer("끝")], env=environment(delay=0.2))
    elapsed = time.perf_counter() - started
    assert [c.status for c in result.calls] == ["ok"] * 4
    # one after another they would take 0.8 s at least
    assert elapsed < 0.75, f"four 0.2 s calls took {elapsed:.2f} s: they did not overlap"
    tool_messages = [m for m in backend.requests[-1].messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [c.id for c in result.calls]  # results in call order


async def test_malformed_calls_are_recorded_and_returned_as_errors():
    result, backend = await run(
        [
            turn(
                call("list_deals", '{"code": "11110", '),  # unreadable JSON
                call("teleport", {"to": "부산"}),  # unknown tool
                call("list_deals", {"code": {"nested": 1}}),  # wrong type
                call("list_deals", {"pageNo": "two"}),  # missing required, wrong type
                call("list_deals", {"code": "11110", "kind": "villa", "serviceKey": "x"}),  # enum, unknown param
                call(None, "<garbage>"),  # no name at all
                call("list_deals", '"{\\"code\\": \\"11110\\"}"'),  # double-encoded, still readable
            ),
            answer("포기"),
        ]
    )
    statuses = [(c.status, c.error_class) for c in result.calls]
    assert statuses == [
        ("invalid", "call.bad_json"),
        ("invalid", UNKNOWN_TOOL),
        ("invalid", INVALID_ARGUMENTS),
        ("invalid", INVALID_ARGUMENTS),
        ("invalid", INVALID_ARGUMENTS),
        ("invalid", "call.bad_json"),
        ("ok", None),
    ]
    errors = [c.error for c in result.calls]
    assert "teleport" in errors[1] and "list_deals" in errors[1]  # names the tools that exist
    assert "code: expected string, got dict" in errors[2]
    assert "missing required parameter 'code'" in errors[3] and "pageNo: expected integer" in errors[3]
    assert "'villa' is not one of apt, offi" in errors[4] and "unknown parameter 'serviceKey'" in errors[4]
    tool_messages = [m for m in backend.requests[-1].messages if m["role"] == "tool"]
    assert len(tool_messages) == 7
    assert json.loads(tool_messages[1]["content"])["error_class"] == UNKNOWN_TOOL
    sent_back = backend.requests[-1].messages[-8]["tool_calls"]
    assert sent_back[0]["function"]["arguments"] == "{}"  # unreadable arguments are not replayed to the server
    assert result.stop_reason == "answer"


async def test_api_errors_and_broken_environments_are_call_errors():
    result, _ = await run([turn(call("list_deals", {"code": "00000"}), call("broken")), answer("x")])
    assert [(c.status, c.error_class) for c in result.calls] == [
        ("error", "struct.invalid_param"),
        ("error", EXECUTION_EXCEPTION),
    ]
    assert result.calls[0].error == "no such region"
    assert "RuntimeError: the environment fell over" in result.calls[1].error


async def test_it_caps_calls_per_turn():
    result, _ = await run(
        [turn(*[call("lookup_region", {"name": str(i)}) for i in range(5)]), answer("x")], max_calls_per_turn=3
    )
    assert [c.status for c in result.calls] == ["ok", "ok", "ok", "invalid", "invalid"]
    assert result.calls[-1].error_class == TOO_MANY_CALLS


async def test_it_stops_at_max_steps_without_an_answer():
    result, backend = await run(lambda request: turn(call("lookup_region", {"name": "x"})), max_steps=3)
    assert (result.stop_reason, result.answer, len(result.steps), len(backend.requests)) == ("max_steps", None, 3, 3)


@pytest.mark.parametrize(
    ("failure", "message"),
    [(BackendError("HTTP 500 from the server"), "HTTP 500 from the server"), (KeyError("boom"), "KeyError: 'boom'")],
)
async def test_backend_failures_end_the_episode_not_the_run(failure, message):
    result, _ = await run([turn(call("lookup_region", {"name": "x"})), failure])
    assert (result.stop_reason, result.error, result.answer) == ("backend_error", message, None)
    assert len(result.steps) == 1 and result.calls[0].status == "ok"


async def test_a_tool_call_left_in_the_text_is_an_unparsed_call():
    text = '<tool_call>\n{"name": "lookup_region", "arguments": {"name": "x"\n</tool_call>'
    result, backend = await run([ModelTurn(content=text), answer("x")])
    [record] = result.calls
    assert (record.status, record.error_class, record.name) == ("invalid", "call.unparsed", "lookup_region")
    messages = backend.requests[-1].messages
    assert messages[-2] == {"role": "assistant", "content": text}
    assert messages[-1]["role"] == "user" and "call.unparsed" in messages[-1]["content"]


async def test_an_episode_timeout_is_recorded():
    async def slow(args):
        await asyncio.sleep(5)
        return []

    env = StaticToolEnvironment(SCHEMAS, {**handlers(), "lookup_region": slow})
    result, _ = await run([turn(call("lookup_region", {"name": "x"}))], env=env, episode_timeout_s=0.2)
    assert result.stop_reason == "timeout" and "0.2 s" in result.error


async def test_an_empty_reply_is_an_empty_answer():
    result, _ = await run([])
    assert (result.stop_reason, result.answer) == ("answer", "")


async def test_run_tasks_runs_episodes_concurrently_in_a_stable_order():
    async def slow_turn(request):
        await asyncio.sleep(0.1)
        return ModelTurn(content=f"{request.task.id}/{request.seed}")

    class SlowBackend(ScriptedBackend):
        async def complete(self, request):
            return await slow_turn(request)

    seen = []
    started = time.perf_counter()
    results = await run_tasks(
        TASKS.tasks,
        SlowBackend([]),
        lambda task: environment(),
        seeds=[0, 1],
        config=RunConfig(concurrency=8),
        on_result=lambda result, done, total: seen.append((done, total)),
    )
    elapsed = time.perf_counter() - started
    assert [r.answer for r in results] == [f"t{i}/{s}" for i in range(4) for s in (0, 1)]
    assert sorted(seen) == [(i, 8) for i in range(1, 9)]
    # one after another they would take 0.8 s at least
    assert elapsed < 0.75, f"8 episodes of 0.1 s at concurrency 8 took {elapsed:.2f} s"


async def test_results_round_trip_through_jsonl(tmp_path):
    result, _ = await run([turn(call("lookup_region", {"name": "종로구"}), call("teleport")), answer("정답: 100")])
    path = write_results_jsonl(tmp_path / "run" / "results.jsonl", [result, result])
    assert not (tmp_path / "run" / "results.jsonl.partial").exists()
    loaded = read_results_jsonl(path)
    assert loaded == [result, result]
    assert "종로구" in path.read_text(encoding="utf-8")  # stored as UTF-8, not \u escapes


def test_run_config_rejects_nonsense():
    with pytest.raises(ValueError, match="max_steps"):
        RunConfig(max_steps=0)
    with pytest.raises(ValueError, match="concurrency"):
        RunConfig(concurrency=0)


@pytest.mark.parametrize(
    ("args", "problems"),
    [
        ({"code": "11110"}, []),
        ({"code": 11110, "pageNo": "2", "numOfRows": 10.0}, []),  # numbers for text, numeric text for numbers
        ({"code": "1", "pageNo": 1.5}, ["pageNo: expected integer, got float 1.5"]),
        ({"code": True}, ["code: expected string, got bool true"]),
        ({"code": ""}, ["missing required parameter 'code'"]),
        ({"code": "1", "kind": None}, []),
    ],
)
def test_check_arguments(args, problems):
    assert check_arguments(SCHEMAS[1]["function"]["parameters"], args) == problems


async def test_accounting_adds_up_turns_tokens_and_calls():
    result, _ = await run([turn(call("lookup_region", {"name": "x"}), call("teleport")), answer("x")])
    result.steps[0].usage = Usage(100, 20)
    result.steps[1].usage = Usage(150, 5)
    account = episode_account(result)
    assert (account.model_turns, account.usage.total_tokens) == (2, 275)
    assert (account.tool_calls, account.valid_calls, account.invalid_calls, account.ok_calls) == (2, 1, 1, 1)
    assert dict(account.invalid_by_kind) == {UNKNOWN_TOOL: 1}
    totals = run_account([result, result], wall_s=2.0)
    assert (totals.episodes, totals.prompt_tokens, totals.episodes_per_s, totals.tokens_per_episode) == (
        2,
        500,
        1.0,
        275,
    )
    assert isinstance(EpisodeResult.from_dict(result.to_dict()).steps[0].usage, Usage)


def test_percentile():
    assert percentile([], 50) == 0.0
    assert percentile([3.0], 95) == 3.0
    assert percentile([1, 2, 3, 4, 5], 50) == 3
    assert percentile(range(1, 101), 95) == pytest.approx(95.05)
