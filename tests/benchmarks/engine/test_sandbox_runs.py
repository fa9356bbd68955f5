"""The demo tasks against the standalone sandbox over a real socket: the oracle scores 100 % on all three axes,
and the executor-backed environment caps observations and sends each task's sandbox clock."""

from __future__ import annotations

import json

import pytest

from apis.sandbox.config import DEMO_KEY
from benchmarks.engine.backends.oracle import OracleBackend
from benchmarks.engine.backends.scripted import ScriptedBackend, answer, call, turn
from benchmarks.engine.metrics import gold_binding_problems, score_run
from benchmarks.engine.runner import (
    ClockedExecutors,
    ExecutorToolEnvironment,
    RunConfig,
    catalog_environment_factory,
    run_tasks,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
async def executors(sandbox_server_url):
    pool = ClockedExecutors("sandbox", sandbox_origin=sandbox_server_url, sandbox_key=DEMO_KEY)
    yield pool
    await pool.aclose()


async def test_the_oracle_scores_full_marks_on_every_axis(demo_tasks, catalog, executors):
    tasks = list(demo_tasks)
    episodes = await run_tasks(
        tasks,
        OracleBackend(),
        catalog_environment_factory(catalog, executors),
        seeds=[0, 1],
        config=RunConfig(max_steps=4, concurrency=4),
    )
    assert [(e.task_id, e.seed) for e in episodes] == [(t.id, s) for t in tasks for s in (0, 1)]
    for result in episodes:
        assert result.stop_reason == "answer", (result.task_id, result.error)
        assert all(c.status == "ok" for c in result.calls), [(c.name, c.error) for c in result.calls]
        assert gold_binding_problems(demo_tasks.get(result.task_id), result) == []
    scores, report = score_run(tasks, episodes, ks=(1, 2))
    for score in scores:
        assert (score.response, score.environment.passed, score.action.passed, score.success) == (True,) * 4, score
        assert score.action.argument_accuracy in (1.0, None) and score.efficiency.call_ratio == 1.0
    overall = report.overall
    assert overall.pass_at[1].value == overall.pass_at[2].value == overall.pass_hat[2].value == 1.0
    assert overall.response.value == overall.environment.value == overall.action.value == 1.0
    assert overall.action_detail["binding_accuracy"] == 1.0
    assert overall.errors["invalid_call_rate"] == overall.errors["execution_error_rate"] == 0.0
    # the paginated task really needed its three pages
    apartment = next(e for e in episodes if e.task_id == "demo-apt-max-jongno")
    trades = [c for c in apartment.calls if c.name == "get_rtms_data_svc_apt_trade"]
    assert [c.records_delivered for c in trades] == [20, 20, 17] and trades[0].total_count == 57


async def test_a_model_that_reads_page_one_fails_environment_but_not_action(demo_tasks, catalog, executors):
    task = demo_tasks.get("demo-apt-max-jongno")
    script = [
        turn(call("get_stan_regin_cd_list", {"locatadd_nm": "서울특별시 종로구"})),
        turn(call("get_rtms_data_svc_apt_trade", {"LAWD_CD": "11110", "DEAL_YMD": "202610"})),
        answer("정답: 208,440만원"),  # the dearest deal on page 1 only
    ]
    episodes = await run_tasks([task], ScriptedBackend(script), catalog_environment_factory(catalog, executors))
    [score], _ = score_run([task], episodes)
    assert not score.response and not score.environment.passed and score.action.passed
    assert score.errors.first_page_only == 1
    assert score.environment.calls == {"c2": "incomplete_pages"}


async def test_api_errors_come_back_as_observations(demo_tasks, catalog, executors):
    task = demo_tasks.get("demo-apt-max-jongno")
    script = [turn(call("get_rtms_data_svc_apt_trade", {"LAWD_CD": "종로구", "DEAL_YMD": "202610"})), answer("모름")]
    [episode] = await run_tasks([task], ScriptedBackend(script), catalog_environment_factory(catalog, executors))
    [record] = episode.calls
    assert (record.status, record.error_class) == ("error", "struct.invalid_param")
    observation = json.loads(record.observation)
    assert observation["ok"] is False and observation["result_code"] == "10"
    assert DEMO_KEY not in record.observation


async def test_observations_are_capped_by_records_and_size(catalog, executors):
    executor = executors.for_clock(None)
    args = {"LAWD_CD": "11110", "DEAL_YMD": "202610", "numOfRows": 100}
    few = ExecutorToolEnvironment(catalog, executor, names=["get_rtms_data_svc_apt_trade"], max_records=5)
    result = await few.execute("get_rtms_data_svc_apt_trade", args)
    body = json.loads(result.content)
    assert (result.records_returned, result.records_delivered, body["records_omitted"]) == (57, 5, 52)
    small = ExecutorToolEnvironment(catalog, executor, names=["get_rtms_data_svc_apt_trade"], max_chars=3000)
    result = await small.execute("get_rtms_data_svc_apt_trade", args)
    assert len(result.content) <= 3000 and 0 < result.records_delivered < 57
    assert json.loads(result.content)["records_omitted"] == 57 - result.records_delivered
    assert [s["function"]["name"] for s in small.schemas] == ["get_rtms_data_svc_apt_trade"]
    unknown = await small.execute("get_rest_de_info", {"solYear": "2026"})
    assert unknown.error_class == "call.unknown_tool"
    with pytest.raises(KeyError, match="no tool named nope"):
        ExecutorToolEnvironment(catalog, executor, names=["nope"])


async def test_each_task_gets_its_sandbox_clock(catalog, executors):
    """주민등록 publishes a month once it is over: November 2026 exists on 5 December, not on 18 November."""
    args = {"stdgCd": "1168010100", "srchFrYm": "202611", "srchToYm": "202611", "lv": "3", "regSeCd": "1"}
    names = ["select_stdg_ppltn_hh_stus"]
    today = ExecutorToolEnvironment(catalog, executors.for_clock("2026-11-18T14:20:00+09:00"), names=names)
    later = ExecutorToolEnvironment(catalog, executors.for_clock("2026-12-05T09:00:00+09:00"), names=names)
    before = await today.execute("select_stdg_ppltn_hh_stus", args)
    after = await later.execute("select_stdg_ppltn_hh_stus", args)
    assert before.records_returned == 0 and after.records_returned == 1
    assert executors.for_clock("2026-12-05T09:00:00+09:00") is later.executor
