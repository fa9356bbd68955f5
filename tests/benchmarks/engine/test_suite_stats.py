"""Suite figures: shapes, parallel groups, paging, prerequisite lookups and no-tool tasks."""

from benchmarks.engine.suite import (
    NO_TOOL_SHAPE,
    call_graph_shape,
    is_parallel,
    needs_every_page,
    needs_no_tool,
    needs_prerequisite_lookup,
    suite_stats,
)
from benchmarks.engine.task import parse_tasks

CATALOG = ["lookup", "trades", "weather", "air"]


def _tasks(*tasks):
    return parse_tasks(
        {"format": "kopa-bench/tasks", "version": 1, "data_version": "t", "tasks": list(tasks)}, catalog=CATALOG
    )


def _task(task_id, calls, answer=None):
    return {
        "id": task_id,
        "request": f"요청 {task_id}",
        "tools": "*",
        "categories": ["domain:test"],
        "difficulty": "easy",
        "gold": {"calls": calls, "answer": answer or {"checker": "contains", "value": "답", "text": "답"}},
    }


CHAIN = [
    {"id": "c1", "tool": "lookup", "args": {"q": "종로구"}, "answer_bearing": False},
    {
        "id": "c2",
        "tool": "trades",
        "args": {"code": "11110", "numOfRows": 10},
        "pages": 3,
        "bindings": [{"arg": "code", "from": "c1", "field": "region_cd", "transform": "slice:0:5"}],
    },
]
PARALLEL = [
    {"id": "a", "tool": "weather", "args": {"nx": 60, "ny": 127}},
    {"id": "b", "tool": "air", "args": {"stationName": "종로구"}},
]


def test_it_tells_apart_a_paged_chain_from_two_parallel_calls():
    chain, parallel, no_tool = _tasks(_task("t1", CHAIN), _task("t2", PARALLEL), _task("t3", []))
    assert needs_prerequisite_lookup(chain) and needs_every_page(chain) and not is_parallel(chain)
    assert is_parallel(parallel) and not needs_prerequisite_lookup(parallel) and not needs_every_page(parallel)
    assert needs_no_tool(no_tool) and call_graph_shape(no_tool) == NO_TOOL_SHAPE
    assert len({call_graph_shape(chain), call_graph_shape(parallel), call_graph_shape(no_tool)}) == 3


def test_the_same_plan_over_other_tools_is_the_same_shape():
    renamed = [{**PARALLEL[0], "tool": "air"}, {**PARALLEL[1], "tool": "weather"}]
    first, second = _tasks(_task("t1", PARALLEL), _task("t2", renamed))
    assert call_graph_shape(first) == call_graph_shape(second)


def test_suite_stats_counts_each_figure():
    tasks = _tasks(_task("t1", CHAIN), _task("t2", PARALLEL), _task("t3", []))
    stats = suite_stats(tasks, provider_of={"lookup": "mois", "trades": "molit", "weather": "kma", "air": "airkorea"})
    assert stats.tasks == 3 and stats.shapes == 3
    assert stats.providers == ["airkorea", "kma", "mois", "molit"] and stats.domains == ["test"]
    assert (stats.parallel, stats.every_page, stats.prerequisite_lookup, stats.no_tool) == (1, 1, 1, 1)
    assert stats.max_calls == 4 and stats.mean_calls == round((4 + 2 + 0) / 3, 2)
