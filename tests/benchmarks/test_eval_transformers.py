"""The transformers backend runs in a fresh process (`manage.py bench_run --run ID`), never in the worker: the
tiny local model answers one demo task through the Django tool environment, and the job stores the result."""

from __future__ import annotations

import sys

import pytest

from benchmarks.models import EvalRun, ModelEntry, TaskResult
from benchmarks.services import eval_run_create, eval_run_start, model_entry_create
from kopa_site.models import Job

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def tiny_model(monkeypatch):
    pytest.importorskip("transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("KOPA_BENCH_DEVICE", "cpu")
    from tests.support.tiny_model import cached_tiny_model

    return cached_tiny_model()


def test_the_transformers_backend_runs_in_its_own_process_and_its_results_are_stored(
    demo_tasks, executor_settings, tiny_model, reviewer
):
    modules_before = set(sys.modules)
    model = model_entry_create(name="tiny-qwen3", backend=ModelEntry.Backend.TRANSFORMERS, checkpoint=str(tiny_model))
    run = eval_run_create(
        model=model,
        task_codes=["demo-holiday-oct"],
        seeds=[0],
        max_steps=2,
        sampling={"temperature": 0.7, "max_tokens": 24},
    )
    job = eval_run_start(run=run, user=reviewer)  # autocommit: the sync queue runs it right away
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.kind == "bench.evaluate.gpu" and job.cluster == "gpu"
    assert job.status == Job.Status.SUCCEEDED, (job.error, job.log[-5:])
    assert any("manage.py bench_run --run" in line["msg"] for line in job.log)
    assert (job.progress_done, job.progress_total) == (1, 1)
    assert run.status == EvalRun.Status.FINISHED and run.summary["episodes"] == 1
    result = TaskResult.objects.get(run=run)
    assert result.stop_reason in ("answer", "max_steps") and 1 <= len(result.transcript["steps"]) <= 2
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert result.transcript["backend"] == "transformers" and tiny_model.name in result.transcript["model"]
    assert "torch" not in set(sys.modules) - modules_before  # the worker never loaded it for this run


def test_bfcl_runs_through_the_transformers_backend_in_its_own_process(tiny_model, reviewer):
    from benchmarks.services import bfcl_run_create

    model = model_entry_create(name="tiny-bfcl", backend=ModelEntry.Backend.TRANSFORMERS, checkpoint=str(tiny_model))
    run = bfcl_run_create(
        model=model, categories=["simple_python", "irrelevance"], limit=1, sampling={"max_tokens": 16}
    )
    job = eval_run_start(run=run, user=reviewer)
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, (job.error, job.log[-5:])
    assert run.status == EvalRun.Status.FINISHED and run.summary["episodes"] == 2
    assert sorted(run.summary["categories"]) == ["irrelevance", "simple_python"]
    for result in TaskResult.objects.filter(run=run):
        assert result.stop_reason == "answer" and result.prompt_tokens > 0
        assert result.success == result.transcript["verdict"]["valid"]  # the tiny model's output, as scored
