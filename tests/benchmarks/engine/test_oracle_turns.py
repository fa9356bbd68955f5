"""The oracle spreads a large parallel group over turns, and list arguments bind element by element."""

import asyncio
import json

from benchmarks.engine.backends.base import ModelRequest
from benchmarks.engine.backends.oracle import OracleBackend
from benchmarks.engine.metrics import gold_binding_problems
from benchmarks.engine.runner import CallRecord, EpisodeResult, StepRecord
from benchmarks.engine.task import parse_tasks

TASKS = parse_tasks(
    {
        "format": "kopa-bench/tasks",
        "version": 1,
        "data_version": "t",
        "tasks": [
            {
                "id": "paged",
                "request": "모든 약 목록의 개수는?",
                "tools": "*",
                "categories": ["domain:health"],
                "difficulty": "hard",
                "gold": {
                    "calls": [{"id": "c1", "tool": "drugs", "args": {"numOfRows": 20}, "pages": 20}],
                    "answer": {"checker": "numeric", "value": 400, "text": "400개"},
                },
            },
            {
                "id": "listed",
                "request": "약 제조사들의 사업자 상태는?",
                "tools": "*",
                "categories": ["domain:business"],
                "difficulty": "medium",
                "gold": {
                    "calls": [
                        {"id": "c1", "tool": "drugs", "args": {"itemName": "타이레놀"}, "answer_bearing": False},
                        {
                            "id": "c2",
                            "tool": "status",
                            "args": {"b_no": ["1234567891", "2208657343"]},
                            "bindings": [{"arg": "b_no", "from": "c1", "field": "bizrno"}],
                        },
                    ],
                    "answer": {"checker": "contains", "value": "계속사업자", "text": "모두 계속사업자"},
                },
            },
        ],
    },
    catalog=["drugs", "status"],
)
PAGED, LISTED = TASKS.tasks


def _request(task, step):
    return ModelRequest(task=task, messages=[], tools=[], step=step, seed=0)


def test_a_group_larger_than_the_turn_limit_spreads_over_turns():
    oracle = OracleBackend(max_calls_per_turn=16)
    first = asyncio.run(oracle.complete(_request(PAGED, 0)))
    second = asyncio.run(oracle.complete(_request(PAGED, 1)))
    last = asyncio.run(oracle.complete(_request(PAGED, 2)))
    assert [len(first.tool_calls), len(second.tool_calls)] == [16, 4]
    pages = [call.arguments["pageNo"] for call in [*first.tool_calls, *second.tool_calls]]
    assert pages == list(range(1, 21))
    assert not last.tool_calls and "400개" in last.content


def _episode(records):
    lookup = CallRecord(
        id="x",
        step=0,
        name="drugs",
        arguments={"itemName": "타이레놀"},
        raw_arguments="",
        status="ok",
        ok=True,
        observation=json.dumps({"records": records}, ensure_ascii=False),
    )
    return EpisodeResult("listed", 0, "oracle", "oracle", "answer", "", [StepRecord(0, "", [lookup])])


def test_each_element_of_a_bound_list_must_come_from_a_record():
    both = _episode([{"bizrno": "1234567891"}, {"bizrno": "2208657343"}])
    assert gold_binding_problems(LISTED, both) == []
    one = _episode([{"bizrno": "1234567891"}])
    assert len(gold_binding_problems(LISTED, one)) == 1
