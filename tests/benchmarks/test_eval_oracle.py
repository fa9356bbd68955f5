"""An oracle EvalRun over the demo tasks against the sandbox, through the Django tool environment: it scores
100 % on all three axes, and every call it made is an ApiCall labelled with its TaskResult and model turn."""

from __future__ import annotations

import pytest

from apis.models import ApiCall
from benchmarks.models import EvalRun, TaskResult
from benchmarks.services import BenchError, eval_run_create, eval_run_execute

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_the_oracle_scores_full_marks_on_every_axis(oracle_run):
    assert oracle_run.status == EvalRun.Status.FINISHED and oracle_run.finished_at
    results = list(oracle_run.results.select_related("task"))
    assert len(results) == 5 * 2 == oracle_run.episodes_planned
    for result in results:
        assert (result.response_ok, result.environment_ok, result.action_ok, result.success) == (True,) * 4, (
            result.task.code,
            result.scores["response_detail"],
        )
        assert result.stop_reason == "answer"
    overall = oracle_run.summary["overall"]
    for axis in ("response", "environment", "action", "success"):
        assert overall[axis]["value"] == 1.0
        assert overall[axis]["method"] == "wilson" and overall[axis]["low"] < 1.0  # 10 episodes: a real interval
    assert overall["pass_at"]["1"]["value"] == overall["pass_at"]["2"]["value"] == 1.0
    assert overall["pass_hat"]["2"]["value"] == 1.0
    assert set(oracle_run.summary["categories"]) >= {"calendar", "chain", "pagination", "parallel"}
    assert oracle_run.summary["complete"] is True and oracle_run.summary["latency"]["episode_p95_s"] > 0
    assert oracle_run.task_checksum and oracle_run.data_versions == {
        "tests/fixtures/bench/demo_tasks.yaml": "2026.11-demo.1"
    }


def test_every_call_leaves_an_api_call_labelled_with_its_result_and_turn(oracle_run):
    apartment = TaskResult.objects.get(run=oracle_run, task__code="demo-apt-max-jongno", seed=1)
    calls = [c for step in apartment.transcript["steps"] for c in step["calls"]]
    assert len(calls) == len(apartment.api_call_ids) == 4  # the region lookup, then three pages of trades
    rows = {row.pk: row for row in ApiCall.objects.filter(pk__in=apartment.api_call_ids)}
    for call, api_call_id in zip(calls, apartment.api_call_ids, strict=True):
        row = rows[api_call_id]
        assert row.source_kind == "bench_step" and row.source_id == f"{apartment.pk}/{call['step']}"
        assert row.tool.function_name == call["name"] and row.ok and row.mode == "sandbox"
    total = sum(len(r.api_call_ids) for r in oracle_run.results.all())
    assert ApiCall.objects.filter(source_kind="bench_step").count() == total == 2 * (1 + 4 + 2 + 2 + 1)
    assert not ApiCall.objects.filter(source_kind="bench_step", source_id__startswith="run").exists()


def test_a_finished_run_does_not_run_again_and_a_changed_task_set_is_refused(oracle_run, oracle_model):
    with pytest.raises(BenchError, match="has finished"):
        eval_run_execute(run=oracle_run)
    with pytest.raises(BenchError, match="no active task named nope"):
        eval_run_create(model=oracle_model, task_codes=["nope"])
