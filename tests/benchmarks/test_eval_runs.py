"""Evaluation runs as jobs: an OpenAI-compatible endpoint (the stand-in server on 127.0.0.1) runs in the
worker, a stopped run resumes without running a stored episode twice, and the job kind follows the model."""

from __future__ import annotations

import pytest

from benchmarks.models import EvalRun, ModelEntry, TaskResult
from benchmarks.services import (
    BenchError,
    eval_run_create,
    eval_run_execute,
    eval_run_kind,
    eval_run_resume,
    eval_run_start,
    model_entry_create,
)
from kopa_site.jobs import JobCancelled
from kopa_site.models import Job
from tests.support.openai_stub_server import StubServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_an_openai_endpoint_run_as_a_job_completes_and_stores_every_episode(
    demo_tasks, executor_settings, reviewer, django_capture_on_commit_callbacks
):
    with StubServer(model_name="stub-9b") as server:
        model = model_entry_create(
            name="Stub 9B", backend=ModelEntry.Backend.OPENAI, base_url=server.url, served_name="stub-9b"
        )
        run = eval_run_create(
            model=model, task_codes=["demo-holiday-oct", "demo-population-yeoksam"], seeds=[0, 1], max_steps=3
        )
        with django_capture_on_commit_callbacks(execute=True):
            job = eval_run_start(run=run, user=reviewer)
        assert job.kind == "bench.evaluate" and job.cluster == "default"
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result == {"run": run.pk, "episodes": 4, "success": 0.0}
    assert (job.progress_done, job.progress_total) == (4, 4)
    assert run.status == EvalRun.Status.FINISHED and run.job_id == job.pk
    assert len(server.requests) == 8  # two turns per episode: a call, then an answer
    for result in TaskResult.objects.filter(run=run):
        assert result.stop_reason == "answer" and result.transcript["answer"] == "정답: 모름"
        assert not result.success and result.transcript["model"] == "stub-9b"
    assert run.summary["overall"]["success"]["value"] == 0.0
    assert run.summary["overall"]["pass_at"]["2"]["value"] == 0.0


class _CancelAfter:
    """A job's reporter that is cancelled once `n` episodes are stored."""

    def __init__(self, n: int):
        self.n = n
        self.stored = 0

    def progress(self, done, total=None, message=""):
        if message and "seed" in message:
            self.stored += 1

    def log(self, msg, level="info"):
        return None

    def check_cancelled(self):
        if self.stored >= self.n:
            raise JobCancelled("cancel requested")


def test_a_cancelled_run_stops_and_resumes_without_running_a_stored_episode_again(
    demo_tasks, oracle_model, executor_settings
):
    run = eval_run_create(model=oracle_model, seeds=[0, 1], concurrency=2, max_steps=4)
    with pytest.raises(JobCancelled):
        eval_run_execute(run=run, reporter=_CancelAfter(3))
    run.refresh_from_db()
    stored = set(TaskResult.objects.filter(run=run).values_list("task__code", "seed", "pk"))
    assert run.status == EvalRun.Status.STOPPED and "cancel requested" in run.error
    assert 3 <= len(stored) < run.episodes_planned
    assert run.summary["complete"] is False and run.summary["episodes"] == len(stored)

    summary = eval_run_execute(run=run)
    run.refresh_from_db()
    assert run.status == EvalRun.Status.FINISHED and summary["complete"] is True
    results = TaskResult.objects.filter(run=run)
    assert results.count() == run.episodes_planned == 10
    assert stored <= set(results.values_list("task__code", "seed", "pk"))  # the first ones kept, not redone
    assert summary["overall"]["success"]["value"] == 1.0
    with pytest.raises(BenchError, match="has finished; start a new run"):
        eval_run_resume(run=run)


def test_a_run_with_a_job_in_progress_is_not_started_twice(demo_tasks, oracle_model, executor_settings):
    run = eval_run_create(model=oracle_model, task_codes=["demo-holiday-oct"])
    eval_run_start(run=run)  # the queue is not run: the job stays pending
    with pytest.raises(BenchError, match="already has job"):
        eval_run_start(run=run)


def test_local_checkpoints_go_to_the_gpu_cluster(demo_tasks):
    cases = [
        ({"backend": "oracle"}, "bench.evaluate"),
        ({"backend": "openai", "base_url": "http://gpu:8000/v1"}, "bench.evaluate"),
        ({"backend": "openai", "checkpoint": "/models/kor-tool-9b"}, "bench.evaluate.gpu"),
        ({"backend": "transformers", "checkpoint": "/models/kor-tool-4b"}, "bench.evaluate.gpu"),
    ]
    for index, (fields, kind) in enumerate(cases):
        model = model_entry_create(name=f"m{index}", **fields)
        assert eval_run_kind(eval_run_create(model=model, task_codes=["demo-holiday-oct"])) == kind


def test_bad_run_options_are_refused_with_the_reason(demo_tasks, oracle_model):
    for options, message in [
        ({"seeds": []}, "seeds is a non-empty list"),
        ({"seeds": [0, 0]}, "distinct"),
        ({"concurrency": 0}, "concurrency is a whole number"),
        ({"max_steps": 500}, "max_steps is a whole number"),
        ({"tool_mode": "record"}, "tool_mode must be one of"),
        ({"sampling": {"temperature": 5}}, "temperature from 0 to 2"),
        ({"sampling": {"beam": 4}}, "unknown sampling option"),
        ({"colour": "red"}, "unknown run option"),
    ]:
        with pytest.raises(BenchError, match=message):
            eval_run_create(model=oracle_model, **options)
    assert not EvalRun.objects.exists()


def test_models_need_their_endpoint_and_never_hold_a_key(db):
    with pytest.raises(BenchError, match="needs a base_url"):
        model_entry_create(name="a", backend="openai")
    with pytest.raises(BenchError, match="needs a checkpoint"):
        model_entry_create(name="b", backend="transformers")
    with pytest.raises(BenchError, match="name of an environment variable"):
        model_entry_create(name="c", backend="openai", base_url="http://x:1/v1", api_key_env="sk-live-123")
    with pytest.raises(BenchError, match="unknown model field"):
        model_entry_create(name="d", backend="oracle", api_key="sk-live-123")


def test_a_run_whose_worker_died_resumes_in_a_new_job(demo_tasks, oracle_model, executor_settings):
    run = eval_run_create(model=oracle_model, task_codes=["demo-holiday-oct"])
    first = eval_run_start(run=run)
    # The worker died mid-run: the sweeper failed its job, and the run still says "running".
    Job.objects.filter(pk=first.pk).update(status=Job.Status.FAILED)
    EvalRun.objects.filter(pk=run.pk).update(status=EvalRun.Status.RUNNING)
    run.refresh_from_db()
    second = eval_run_resume(run=run)
    assert second.pk != first.pk and EvalRun.objects.get(pk=run.pk).job_id == second.pk
