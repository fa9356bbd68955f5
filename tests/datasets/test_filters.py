"""The three quality stages catch planted bad items (and pass the good one they were planted from); dedupe keys
and the diversity report."""

from __future__ import annotations

import asyncio
import copy

import pytest

from datasets.engine.dedupe import Deduper, dedupe_key
from datasets.engine.diversity import diversity_report, evenness
from datasets.engine.filters import check_execution, check_format, check_semantic, first_failure, passed, run_filters
from datasets.engine.items import build_item
from datasets.engine.phrasing import compose
from datasets.engine.synthesis import execute_plan
from graphs.engine.walk import Answer, Plan, Step
from tests.datasets import world
from tests.graphs.test_synthesis import DONG, population

TOOLS = world.tools()


def _item(plan: Plan) -> dict:
    execution = asyncio.run(execute_plan(plan, TOOLS, world.FakeApi(), seed=1, page_size=10))
    assert execution.ok
    return build_item(plan, execution, compose(plan, execution, TOOLS), TOOLS)


@pytest.fixture(scope="module")
def good():
    return _item(Plan((DONG, population())))


@pytest.fixture(scope="module")
def counted():
    count = Step(0, world.IDS["trades"], "trades", args={"lawd": "11110", "ym": "202610"}, answer=Answer("count"))
    return _item(Plan((count,)))


def planted(item, change):
    bad = copy.deepcopy(item)
    change(bad)
    return bad


def test_the_good_item_passes_every_stage(good, counted):
    for item in (good, counted):
        results = run_filters(item)
        assert passed(results) and first_failure(results) is None, results


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda i: i["calls"][1]["arguments"].update(color="blue"), "unknown argument color"),
        (lambda i: i["calls"][1]["arguments"].pop("code"), "missing required argument code"),
        (lambda i: i["calls"][1]["arguments"].update(code=1111010100), "code should be string"),
        (lambda i: i["calls"][0].update(name="no_such_tool"), "no_such_tool is not among the item's tools"),
        (lambda i: i.update(answer="   "), "answer is empty"),
    ],
)
def test_format_catches_calls_that_do_not_fit_their_schemas(good, change, problem):
    result = check_format(planted(good, change))
    assert not result.passed and any(problem in p for p in result.problems), result.problems


def test_format_applies_parameter_aliases(good):
    bad = planted(
        good,
        lambda i: i["schemas"][1]["function"]["parameters"]["properties"].update(
            {"cond_code": i["schemas"][1]["function"]["parameters"]["properties"].pop("code")}
        ),
    )
    bad["schemas"][1]["function"]["parameters"]["required"] = ["cond_code", "ym", "sido"]
    assert not check_format(bad).passed
    bad["aliases"] = {"population": {"cond_code": "code"}}
    assert check_format(bad).passed


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda i: i["calls"][1]["observation"].update(ok=False, error_class="env.timeout"), "failed: env.timeout"),
        (lambda i: i["calls"][1]["observation"].update(records=[], record_count=0), "returned no records"),
        (
            lambda i: i["facts"]["answer"].append({"value": "987654", "kind": "observed", "step": 1, "field": "total"}),
            "'987654' is not in any result",
        ),
        (lambda i: i.update(answer="인구 현황을 확인했습니다."), "the answer states no value of step 1"),
    ],
)
def test_execution_catches_failed_calls_and_ungrounded_answers(good, change, problem):
    result = check_execution(planted(good, change))
    assert not result.passed and any(problem in p for p in result.problems), result.problems


def test_execution_recomputes_derived_values(counted):
    def wrong_count(item):
        fact = next(f for f in item["facts"]["answer"] if f["kind"] == "derived")
        fact["value"] = "24"
        item["answer"] = item["answer"].replace("23", "24")

    result = check_execution(planted(counted, wrong_count))
    assert not result.passed and "does not recompute" in " ".join(result.problems)

    def lost_page(item):
        item["calls"] = item["calls"][:2]

    assert not check_execution(planted(counted, lost_page)).passed


def test_execution_reads_numbers_in_units(good):
    total = next(f for f in good["facts"]["answer"] if f.get("field") == "total")["value"]
    money = planted(good, lambda i: i.update(answer=f"총인구수는 {int(total):,}명입니다."))
    assert check_execution(money).passed


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda i: i.update(request=i["request"] + f" (코드 {i['calls'][1]['arguments']['code']})"), "leaks"),
        (lambda i: i.update(request=i["request"].replace("서울특별시", "그 시도")), "does not name '서울특별시'"),
        (lambda i: i.update(request=i["request"].replace("2026년 10월", "이번 달")), "does not name '2026년 10월'"),
        (lambda i: i.update(request=i["request"] + f" 답은 {i['facts']['answer'][1]['value']}이지?"), "gives away"),
        (lambda i: i.update(request="Tell me the population."), "not Korean"),
    ],
)
def test_semantic_rules_catch_leaks_and_unnamed_values(good, change, problem):
    result = check_semantic(planted(good, change))
    assert not result.passed and any(problem in p for p in result.problems), result.problems
    assert result.by == "rules"


def test_a_judge_replaces_the_rules_when_given(good):
    seen = []

    def judge(item):
        seen.append(item["request"])
        return False, "unnatural"

    result = check_semantic(good, judge, "llm:tiny")
    assert not result.passed and result.problems == ["unnatural"] and result.by == "llm:tiny" and seen


def test_every_stage_runs_so_a_reviewer_sees_every_problem(good):
    bad = planted(good, lambda i: (i["calls"][1]["arguments"].update(color="x"), i.update(request="hello")))
    results = run_filters(bad)
    assert not results["format"]["passed"] and not results["semantic"]["passed"] and results["execution"]["passed"]
    assert first_failure(results) == "format"


def test_dedupe_keys_follow_template_and_arguments():
    calls = [{"name": "a", "arguments": {"x": 1, "y": "2"}}]
    same = [{"name": "a", "arguments": {"y": "2", "x": "1"}}]
    assert dedupe_key("t1", calls) == dedupe_key("t1", same)
    assert dedupe_key("t1", calls) != dedupe_key("t2", calls)
    assert dedupe_key("t1", calls) != dedupe_key("t1", [{"name": "a", "arguments": {"x": 2, "y": "2"}}])
    deduper = Deduper(["k1"])
    assert not deduper.is_new("k1") and deduper.is_new("k2") and not deduper.is_new("k2")


def test_the_diversity_report_counts_and_measures_evenness():
    items = [
        {
            "tools": ["a", "b"],
            "providers": ["p"],
            "junctions": ["SEQ"],
            "length": 2,
            "template_id": "t1",
            "generator": "template",
            "calls": 2,
            "edges": ["a>b"],
        },
        {
            "tools": ["a", "c"],
            "providers": ["p", "q"],
            "junctions": ["FAN"],
            "length": 2,
            "template_id": "t2",
            "generator": "llm",
            "calls": 4,
            "edges": ["a>c"],
        },
        {
            "tools": ["a"],
            "providers": ["p"],
            "junctions": [],
            "length": 1,
            "template_id": "t3",
            "generator": "template",
            "calls": 1,
        },
    ]
    report = diversity_report(items, graph_tools=4, graph_edges=4)
    assert report["items"] == 3 and report["tools"] == {"a": 3, "b": 1, "c": 1}
    assert report["junctions"] == {"(none)": 1, "FAN": 1, "SEQ": 1} and report["lengths"] == {"1": 1, "2": 2}
    assert report["templates"] == 3 and report["mean_calls"] == pytest.approx(2.33)
    assert report["tool_coverage"] == 0.75 and report["edge_coverage"] == 0.5
    assert report["evenness"]["junctions"] == 1.0
    assert evenness({"x": 5}) is None and evenness({"x": 9, "y": 1}) < 0.5
