"""Executing plans over a fake API world: values flow from observations, every page is read where a reduction
needs it, each junction runs as it should, and every failure discards the walk with its reason."""

from __future__ import annotations

import asyncio

import pytest

from datasets.engine.synthesis import execute_plan, nice_threshold
from graphs.engine.walk import Answer, Link, Plan, Reduction, Step, WalkConfig, Walker
from tests.datasets import world

IDS = world.IDS
DONG = Step(0, IDS["dong_list"], "dong_list", args={"sido": "서울특별시"})
TRADES = Step(0, IDS["trades"], "trades", args={"lawd": "11110", "ym": "202610"})
TO_POPULATION = Link(("code",), ("code",), "identity", 101)
TO_TRADES = Link(("code",), ("lawd",), "slice:0:5", 102)
TO_BUILDING = Link(("aptSeq",), ("aptSeq",), "identity", 103)


def population(index=1, parent=0, junction="SEQ", **extra):
    return Step(
        index,
        IDS["population"],
        "population",
        parent,
        junction,
        (TO_POPULATION,),
        {"ym": "202610"},
        ("sido",),
        answer=extra.pop("answer", Answer("fields", ("total", "households"))),
        **extra,
    )


def run(plan: Plan, api=None, **options):
    api = api or world.FakeApi()
    return asyncio.run(execute_plan(plan, world.tools(), api, seed=1, **options)), api


def test_seq_binds_a_parent_value_and_fills_context_and_constants():
    execution, api = run(Plan((DONG, population())))
    assert execution.ok, execution.reason
    first, second = execution.calls
    assert (first.seq, first.round, second.round) == (1, 0, 1)
    code = second.arguments["code"]
    assert code in {d["code"] for d in world.DONGS}
    sources = {b["param"]: b for b in second.bindings}
    assert (
        sources["code"]["source"] == "edge"
        and sources["code"]["source_values"] == [code]
        and sources["code"]["edge_id"] == 101
    )
    assert (
        sources["sido"]["source"] == "context"
        and sources["sido"]["value"] == "서울특별시"
        and sources["sido"]["origin"] == "entry"
    )
    assert sources["ym"]["source"] == "constant"
    # The parent record is named by its 법정동명 (unique among the results), and that name is a selector.
    pick = execution.steps[1].picks[0]
    assert pick["kind"] == "label" and pick["field"] == "dongName"
    facts = execution.facts
    assert {"param": "sido", "value": "서울특별시", "step": 0} in facts["entry"]
    assert {"param": "ym", "value": "202610", "step": 1} in facts["entry"]
    assert code in facts["intermediate"] and "서울특별시" not in facts["intermediate"]
    assert any(f["value"] == pick["value"] for f in facts["selectors"])
    values = {f["value"] for f in facts["answer"]}
    record = api.calls[1][1]
    assert str(1000 + 37 * next(d["rank"] for d in world.DONGS if d["code"] == record["code"])) in values


def test_drv_reads_every_page_and_feeds_the_record_with_the_largest_value():
    drv = Step(
        1,
        IDS["building"],
        "building",
        0,
        "DRV",
        (TO_BUILDING,),
        pick=Reduction("max", "amount"),
        answer=Answer("fields", ("bldNm",)),
    )
    execution, api = run(Plan((TRADES, drv)), page_size=10)
    assert execution.ok, execution.reason
    pages = [c for c in execution.calls if c.name == "trades"]
    assert [c.page for c in pages] == [1, 2, 3] and [c.round for c in pages] == [0, 1, 1]
    assert all(c.arguments["numOfRows"] == 10 for c in pages)
    best = max(world.TRADES, key=lambda t: int(t["amount"].replace(",", "")))
    building_call = execution.calls[-1]
    assert building_call.round == 2 and building_call.arguments["aptSeq"] == best["aptSeq"]
    assert execution.steps[1].picks[0] == {
        "kind": "reduce",
        "op": "max",
        "field": "amount",
        "value": best["amount"],
        "record": world.TRADES.index(best),
        "over": 23,
    }


def test_a_leaf_that_counts_reads_every_page_and_the_count_is_derived():
    count = Step(0, IDS["trades"], "trades", args={"lawd": "11110", "ym": "202610"}, answer=Answer("count"))
    execution, _ = run(Plan((count,)), page_size=10)
    assert execution.ok and execution.junctions == ["DRV"]
    assert execution.steps[0].answer["value"] == 23
    assert {"value": "23", "kind": "derived", "step": 0, "op": "count", "calls": [1, 2, 3]} in execution.facts["answer"]


def test_fan_makes_separate_calls_with_distinct_values_in_one_round():
    execution, _ = run(Plan((DONG, population(junction="FAN", fan=3))))
    assert execution.ok
    calls = [c for c in execution.calls if c.name == "population"]
    assert len(calls) == 3 and len({c.arguments["code"] for c in calls}) == 3
    assert {c.round for c in calls} == {1} and [c.branch for c in calls] == ["1", "2", "3"]
    assert len(execution.steps[1].answer["items"]) == 3


def test_cmp_compares_two_parallel_results():
    execution, _ = run(Plan((DONG, population(junction="CMP", fan=2, compare="total"))))
    assert execution.ok
    comparison = execution.steps[1].comparison
    a, b = (int(v) for v in comparison["values"])
    assert comparison["winner"] == (None if a == b else (0 if a > b else 1))
    assert [p["kind"] for p in comparison["picks"]] == ["label", "label"]


def test_sem_runs_two_tools_on_one_shared_value_in_parallel():
    trades = Step(
        2, IDS["trades"], "trades", 0, "SEM", (TO_TRADES,), {"ym": "202610"}, answer=Answer("fields", ("aptNm",))
    )
    execution, _ = run(Plan((DONG, population(junction="SEM"), trades)))
    assert execution.ok
    pop, trade = execution.calls[1], execution.calls[2]
    assert pop.round == trade.round == 1
    assert trade.arguments["lawd"] == pop.arguments["code"][:5]


@pytest.mark.parametrize("seed", range(6))
def test_cond_tests_the_parent_record_and_runs_only_the_chosen_branch(seed):
    then = population(junction="COND", condition="rank", branch="then")
    other = Step(
        2,
        IDS["trades"],
        "trades",
        0,
        "COND",
        (TO_TRADES,),
        {"ym": "202610"},
        condition="rank",
        branch="else",
        answer=Answer("fields", ("aptNm",)),
    )
    execution = asyncio.run(execute_plan(Plan((DONG, then, other)), world.tools(), world.FakeApi(), seed=seed))
    assert execution.ok
    condition = execution.steps[0].condition
    observed, threshold = float(condition["observed"]), float(condition["value"])
    assert condition["outcome"] == ("then" if observed >= threshold else "else")
    ran = {s.index for s in execution.steps if s.executed}
    assert ran == ({0, 1} if condition["outcome"] == "then" else {0, 2})
    assert execution.length == 2 and execution.junctions == ["COND"]


def test_failures_discard_the_walk_with_their_reason():
    broken = Step(
        1, IDS["broken"], "broken", 0, "SEQ", (Link(("code",), ("code",)),), answer=Answer("fields", ("value",))
    )
    assert run(Plan((DONG, broken)))[0].reason == "call.struct.invalid_param"

    nowhere = Step(
        0, IDS["dong_list"], "dong_list", args={"sido": "부산광역시"}, answer=Answer("fields", ("dongName",))
    )
    assert run(Plan((nowhere,)))[0].reason == "entry.no_records"

    missing = Step(
        1, IDS["population"], "population", 0, "SEQ", (Link(("nope",), ("code",)),), {"ym": "202610", "sido": "x"}
    )
    assert run(Plan((DONG, missing)))[0].reason == "binding.missing_field"

    too_short = Step(
        1, IDS["trades"], "trades", 0, "SEQ", (Link(("code",), ("lawd",), "slice:0:40"),), {"ym": "202610"}
    )
    assert run(Plan((DONG, too_short)))[0].reason == "binding.transform"

    counting = Step(0, IDS["trades"], "trades", args={"lawd": "11110", "ym": "202610"}, answer=Answer("count"))
    execution, _ = run(Plan((counting,)), page_size=10, max_pages=2)
    assert execution.reason == "paging.too_many_pages" and "23 records need 3 pages" in execution.detail

    no_context = Step(1, IDS["building"], "building", 0, "SEQ", (TO_BUILDING,), context=("sido",))
    assert run(Plan((TRADES, no_context)))[0].reason == "context.missing"

    async def refusing(tool, args):
        raise RuntimeError("no service key for this provider")

    execution = asyncio.run(execute_plan(Plan((DONG,)), world.tools(), refusing))
    assert execution.reason == "executor.refused" and "no service key" in execution.detail


def test_walker_plans_execute_on_the_fake_world():
    walker = Walker(world.graph(), world.tools(), WalkConfig(min_length=1, max_length=4, strategy="coverage"), seed=11)
    reasons = {}
    for plan in walker.plans(40):
        execution, _ = run(plan, page_size=10)
        reasons[execution.reason] = reasons.get(execution.reason, 0) + 1
    assert reasons.get("", 0) >= 25
    assert set(reasons) <= {
        "",
        "call.struct.invalid_param",
        "fan.too_few_values",
        "cmp.too_few_values",
        "reduce.no_values",
        "call.no_records",
    }


def test_nice_thresholds_bracket_the_value():
    assert (nice_threshold(45, above=False), nice_threshold(45, above=True)) == (40, 50)
    assert (nice_threshold(1.3, above=False), nice_threshold(1.3, above=True)) == (1, 2)
    assert nice_threshold(0.023, above=True) == 0.03 and nice_threshold(0, above=True) == 1
