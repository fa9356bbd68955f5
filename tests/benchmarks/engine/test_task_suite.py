"""The 145 KOPA-Bench tasks in benchmarks/tasks/: the suite keeps the shape the benchmark promises, every gold
trajectory runs against the sandbox over a real socket and passes its own checker, and a wrong answer fails it."""

from __future__ import annotations

from pathlib import Path

import pytest

from apis.sandbox.config import DEMO_KEY
from benchmarks.engine.backends.oracle import OracleBackend
from benchmarks.engine.checkers import check_answer
from benchmarks.engine.cli import catalog_arguments
from benchmarks.engine.metrics import gold_binding_problems, score_run
from benchmarks.engine.runner import ClockedExecutors, RunConfig, catalog_environment_factory, run_tasks
from benchmarks.engine.suite import suite_stats
from benchmarks.engine.task import AnswerSpec, TaskSet, load_tasks

TASKS = Path(__file__).resolve().parents[3] / "benchmarks" / "tasks"


@pytest.fixture(scope="module")
def suite(catalog) -> TaskSet:
    return load_tasks(TASKS, catalog=catalog_arguments(catalog))


def test_the_suite_has_the_promised_shape(suite, catalog):
    provider_of = {name: tool.provider or tool.base_url for name, tool in catalog.tools.items()}
    stats = suite_stats(suite, provider_of=provider_of)
    assert stats.tasks == 145
    assert len(stats.providers) >= 10 and len(stats.domains) >= 6
    assert stats.mean_calls >= 4 and stats.tasks_with_10_plus_calls >= 1
    assert stats.parallel >= 145 / 2
    assert stats.every_page >= 20 and stats.prerequisite_lookup >= 20 and stats.no_tool >= 10
    assert stats.shapes >= 60


def test_no_two_requests_read_alike(suite):
    requests = [" ".join(task.request.split()) for task in suite]
    assert len(set(requests)) == len(requests)
    # nor do two share their first twelve characters, which is where a stamped template shows
    openings = [request[:12] for request in requests]
    assert len(set(openings)) >= 0.95 * len(openings)


def _wrong_answers(spec: AnswerSpec) -> list[str]:
    if spec.checker == "numeric":
        return [f"{spec.value * 2 + 13:g}{spec.unit or ''}"]
    if spec.checker == "boolean":
        return ["아니오" if spec.value else "예"]
    if spec.checker == "set":
        items = [item if isinstance(item, list) else [item] for item in spec.value]
        all_but_first = ", ".join(str(spellings[0]) for spellings in items[1:])
        wrong = [all_but_first or "확인된 항목이 없습니다.", "확인된 항목이 없습니다."]
        if spec.forbid:
            wrong.append(f"{spec.text}, {spec.forbid[0]}")
        return wrong
    return ["확인 결과 42입니다."]


def test_a_wrong_answer_fails_each_checker(suite):
    for task in suite:
        assert check_answer(task.answer, task.answer.text).passed, task.id
        for wrong in _wrong_answers(task.answer):
            assert not check_answer(task.answer, wrong).passed, (task.id, wrong)


@pytest.mark.slow
@pytest.mark.anyio
async def test_every_gold_trajectory_runs_on_the_sandbox_and_passes_its_checker(suite, catalog, sandbox_server_url):
    executors = ClockedExecutors("sandbox", sandbox_origin=sandbox_server_url, sandbox_key=DEMO_KEY)
    try:
        tasks = list(suite)
        episodes = await run_tasks(
            tasks,
            OracleBackend(),
            catalog_environment_factory(catalog, executors),
            config=RunConfig(max_steps=16, concurrency=8),
        )
    finally:
        await executors.aclose()
    failures = []
    for task, episode in zip(tasks, episodes, strict=True):
        bad_calls = [(c.name, c.error_class, c.error) for c in episode.calls if c.status != "ok"]
        problems = gold_binding_problems(task, episode)
        if episode.stop_reason != "answer" or bad_calls or problems:
            failures.append((task.id, episode.stop_reason, bad_calls[:2], problems[:2]))
    assert not failures, failures
    scores, report = score_run(tasks, episodes, ks=(1,))
    assert [s.task_id for s in scores if not s.success] == []
    overall = report.overall
    assert overall.response.value == overall.environment.value == overall.action.value == 1.0
