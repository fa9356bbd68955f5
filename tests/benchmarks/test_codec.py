"""Engine objects through JSON and back: a stored task is the task its file gave (same checksum), and a stored
episode score is the score that was computed."""

from __future__ import annotations

import json

from benchmarks.engine.codec import episode_score_from_dict, task_from_dict
from benchmarks.engine.metrics import aggregate, score_episode
from benchmarks.engine.runner import CallRecord, EpisodeResult, StepRecord
from benchmarks.engine.task import load_tasks, tasks_checksum
from tests.benchmarks.conftest import DEMO_TASKS


def _through_json(data: dict) -> dict:
    return json.loads(json.dumps(data, ensure_ascii=False))


def test_every_demo_task_survives_json_with_its_checksum():
    taskset = load_tasks(DEMO_TASKS)
    rebuilt = [task_from_dict(_through_json(task.to_dict())) for task in taskset]
    assert rebuilt == list(taskset)
    assert tasks_checksum(rebuilt) == taskset.checksum


def test_an_episode_score_survives_json_and_aggregates_the_same():
    task = load_tasks(DEMO_TASKS).get("demo-holiday-oct")
    calls = [
        CallRecord("a", 0, "get_rest_de_info", {"solYear": "2026", "solMonth": "10"}, "", "ok", ok=True),
        CallRecord("b", 0, "nope", None, "{", "invalid", error_class="call.bad_json"),
    ]
    episode = EpisodeResult(
        task.id,
        3,
        "scripted",
        "m",
        "answer",
        "정답: 10월 3일, 10월 5일, 10월 9일",
        [StepRecord(0, "", calls)],
        wall_s=1.5,
    )
    score = score_episode(task, episode)
    stored = episode_score_from_dict(_through_json(score.to_dict()))
    assert stored == score
    assert aggregate([task], [stored]).to_dict() == aggregate([task], [score]).to_dict()
