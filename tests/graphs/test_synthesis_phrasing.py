"""Korean requests and answers: templates for every junction type pass the three filters by construction; the
optional LLM writer and judge speak JSON through an OpenAI-compatible endpoint, and fail clearly."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from datasets.engine.filters import check_semantic_rules, passed, run_filters
from datasets.engine.items import build_item
from datasets.engine.phrasing import compose, enum_labels, josa, llm_judge, llm_write, render_value
from datasets.engine.synthesis import execute_plan
from graphs.engine.llm import LLMClient, LLMError
from graphs.engine.walk import Answer, Plan, Reduction, Step, WalkConfig, Walker
from tests.datasets import world
from tests.graphs.test_synthesis import DONG, TO_BUILDING, TO_TRADES, TRADES, population

TOOLS = world.tools()


def _plans() -> dict[str, Plan]:
    trades_sem = Step(
        2, world.IDS["trades"], "trades", 0, "SEM", (TO_TRADES,), {"ym": "202610"}, answer=Answer("fields", ("aptNm",))
    )
    else_branch = Step(
        2,
        world.IDS["trades"],
        "trades",
        0,
        "COND",
        (TO_TRADES,),
        {"ym": "202610"},
        condition="rank",
        branch="else",
        answer=Answer("fields", ("aptNm", "amount")),
    )
    drv = Step(
        1,
        world.IDS["building"],
        "building",
        0,
        "DRV",
        (TO_BUILDING,),
        pick=Reduction("latest", "dealDate"),
        answer=Answer("fields", ("bldNm", "floors")),
    )
    return {
        "SEQ": Plan((DONG, population())),
        "FAN": Plan((DONG, population(junction="FAN", fan=3))),
        "CMP": Plan((DONG, population(junction="CMP", fan=2, compare="total"))),
        "SEM": Plan((DONG, population(junction="SEM"), trades_sem)),
        "COND": Plan((DONG, population(junction="COND", condition="rank", branch="then"), else_branch)),
        "DRV": Plan((TRADES, drv)),
        "DRV-count": Plan(
            (Step(0, world.IDS["trades"], "trades", args={"lawd": "11110", "ym": "202610"}, answer=Answer("count")),)
        ),
        "DRV-max": Plan(
            (
                Step(
                    0,
                    world.IDS["trades"],
                    "trades",
                    args={"lawd": "11110", "ym": "202610"},
                    answer=Answer("max", ("amount",)),
                ),
            )
        ),
    }


def _executed(plan: Plan, seed=1):
    execution = asyncio.run(execute_plan(plan, TOOLS, world.FakeApi(), seed=seed, page_size=10))
    assert execution.ok, execution.reason
    return execution


@pytest.mark.parametrize("name", list(_plans()))
def test_template_items_pass_all_three_filters(name):
    plan = _plans()[name]
    for seed in range(3):
        execution = _executed(plan, seed)
        text = compose(plan, execution, TOOLS)
        item = build_item(plan, execution, text, TOOLS)
        results = run_filters(item)
        assert passed(results), (name, text.request, text.answer, results)
        assert text.generator == "template" and text.short


def test_a_seq_request_names_its_values_and_hides_the_code_passed_on():
    plan = _plans()["SEQ"]
    execution = _executed(plan)
    text = compose(plan, execution, TOOLS)
    code = execution.calls[1].arguments["code"]
    name = execution.steps[1].picks[0]["value"]
    assert "서울특별시" in text.request and "2026년 10월" in text.request and f"'{name}'" in text.request
    assert code not in text.request and text.request.endswith("알려줘.")
    total = json.dumps(execution.calls[1].records[0]["total"])
    assert total in text.answer


def test_random_walk_items_on_the_fake_world_pass_the_rules():
    walker = Walker(world.graph(), TOOLS, WalkConfig(min_length=1, max_length=4, strategy="random"), seed=21)
    checked = 0
    for plan in walker.plans(30):
        execution = asyncio.run(execute_plan(plan, TOOLS, world.FakeApi(), seed=3, page_size=10))
        if not execution.ok:
            continue
        item = build_item(plan, execution, compose(plan, execution, TOOLS), TOOLS)
        result = check_semantic_rules(item)
        assert result.passed, (item["request"], result.problems)
        checked += 1
    assert checked >= 15


def test_korean_particles_follow_the_last_sound():
    assert josa("청운동", "을/를") == "청운동을" and josa("정류소", "을/를") == "정류소를"
    assert (
        josa("서울", "으로/로") == "서울로"
        and josa("종로구", "으로/로") == "종로구로"
        and josa("청운동", "으로/로") == "청운동으로"
    )
    assert josa("'613'", "이/가") == "'613'이" and josa("25", "과/와") == "25와"
    assert josa("ABC", "을/를") == "ABC을(를)"


def test_values_render_as_a_person_would_write_them():
    tool = TOOLS[world.IDS["population"]]
    assert render_value(tool, "ym", "202610") == ["2026년 10월", "202610"]
    assert enum_labels("조회레벨 (1 시도, 2 시군구, 3 읍면동, 4 리)") == {
        "1": "시도",
        "2": "시군구",
        "3": "읍면동",
        "4": "리",
    }
    assert enum_labels("요청 데이터기간 (DAILY 1일, MONTH 1개월, 3MONTH 3개월)")["DAILY"] == "1일"
    assert enum_labels("페이지번호") == {}


def _client(answer, seen=None) -> LLMClient:
    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if seen is not None:
            seen.append(body)
        content = answer(body) if callable(answer) else answer
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": content}}]})

    return LLMClient("http://llm.test/v1", "writer-model", transport=httpx.MockTransport(handle))


def test_the_llm_writer_rewrites_the_draft_under_the_rules():
    plan = _plans()["SEQ"]
    execution = _executed(plan)
    seen = []
    draft = compose(plan, execution, TOOLS)
    reply = json.dumps({"request": "서울특별시 " + draft.request, "answer": draft.answer}, ensure_ascii=False)
    text = llm_write(_client(f"```json\n{reply}\n```", seen), plan, execution, TOOLS)
    assert text.generator == "llm" and text.model == "writer-model" and text.short == draft.short
    brief = json.loads(seen[0]["messages"][1]["content"])
    assert brief["draft_request"] == draft.request
    assert "서울특별시" in brief["must_mention"] and execution.calls[1].arguments["code"] in brief["must_not_mention"]


def test_an_llm_answer_that_is_not_json_is_a_clear_error():
    plan = _plans()["SEQ"]
    execution = _executed(plan)
    with pytest.raises(LLMError, match="no JSON object"):
        llm_write(_client("죄송합니다"), plan, execution, TOOLS)
    with pytest.raises(LLMError, match="lacks a request"):
        llm_write(_client('{"request": ""}'), plan, execution, TOOLS)


def test_the_llm_judge_returns_its_verdict():
    plan = _plans()["SEQ"]
    execution = _executed(plan)
    item = build_item(plan, execution, compose(plan, execution, TOOLS), TOOLS)
    assert llm_judge(_client('{"pass": false, "reason": "요청이 부자연스럽다"}'), item) == (
        False,
        "요청이 부자연스럽다",
    )
    with pytest.raises(LLMError, match="boolean"):
        llm_judge(_client('{"pass": "yes"}'), item)
