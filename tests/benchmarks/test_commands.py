"""`manage.py bench_run`: registers the model, runs here with a progress bar and prints the scores, queues a job
with --async, and continues an existing run with --run; a checkpoint without an endpoint gets vLLM for the run."""

from __future__ import annotations

import io
import sys

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmarks.models import EvalRun, ModelEntry, TaskResult
from benchmarks.services import eval_run_create, eval_run_execute, eval_run_start, model_entry_create
from kopa_site.models import Job

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_it_registers_the_model_runs_with_a_progress_bar_and_prints_the_scores(demo_tasks, executor_settings):
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "bench_run",
        "--model",
        "oracle",
        "--backend",
        "oracle",
        "--seeds",
        "0",
        "1",
        "--tasks",
        "demo-holiday-oct",
        "demo-jeheonjeol",
        stdout=out,
        stderr=err,
    )
    run = EvalRun.objects.get()
    assert run.status == EvalRun.Status.FINISHED and run.results.count() == 4 and run.model.backend == "oracle"
    text = out.getvalue()
    assert "registered model oracle (oracle)" in text and f"run #{run.pk}: 4 episode(s), 2 task(s)" in text
    assert "success      1.000" in text and "pass^2 1.000" in text
    assert "4/4" in err.getvalue()  # the bar reached the end


def test_async_queues_a_job_and_run_continues_an_existing_run(demo_tasks, oracle_model, executor_settings):
    out = io.StringIO()
    call_command("bench_run", "--model", "oracle", "--tasks", "demo-holiday-oct", "--async", stdout=out)
    run = EvalRun.objects.get()
    job = Job.objects.get(kind="bench.evaluate")
    assert f"run #{run.pk} queued as job #{job.pk}" in out.getvalue() and run.status == EvalRun.Status.PENDING

    call_command("bench_run", "--run", str(run.pk), "--progress-lines", stdout=(lines := io.StringIO()))
    assert "bench-progress 1/1 demo-holiday-oct seed 0: success (answer)" in lines.getvalue()
    assert TaskResult.objects.filter(run=run).count() == 1
    with pytest.raises(CommandError, match="has finished"):
        call_command("bench_run", "--run", str(run.pk), stdout=io.StringIO())


def test_it_says_what_is_missing(demo_tasks):
    with pytest.raises(CommandError, match="give --backend"):
        call_command("bench_run", "--model", "new-model", stdout=io.StringIO())
    with pytest.raises(CommandError, match="needs a base_url"):
        call_command("bench_run", "--model", "new-model", "--backend", "openai", stdout=io.StringIO())
    with pytest.raises(CommandError, match="no evaluation run #99"):
        call_command("bench_run", "--run", "99", stdout=io.StringIO())
    assert not ModelEntry.objects.exists()


def test_a_checkpoint_without_an_endpoint_is_served_by_vllm_for_the_run(
    demo_tasks, executor_settings, monkeypatch, django_capture_on_commit_callbacks, tmp_path
):
    monkeypatch.setenv("KOPA_VLLM_EXECUTABLE", f"{sys.executable} -m tests.support.fake_vllm")
    executor_settings.VAR_DIR = tmp_path  # the vLLM log goes under VAR_DIR/bench/
    model = model_entry_create(name="kor tool 9b", backend="openai", checkpoint="/models/kor-tool-9b")
    run = eval_run_create(model=model, task_codes=["demo-holiday-oct"], max_steps=3)
    with django_capture_on_commit_callbacks(execute=True):
        job = eval_run_start(run=run)
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.kind == "bench.evaluate.gpu" and job.status == Job.Status.SUCCEEDED, job.error
    assert any("starting vLLM for /models/kor-tool-9b" in line["msg"] for line in job.log)
    result = TaskResult.objects.get(run=run)
    assert result.transcript["model"] == "kor-tool-9b" and result.transcript["answer"] == "정답: 모름"
    assert (
        "fake vllm: serving /models/kor-tool-9b as kor-tool-9b"
        in (tmp_path / "bench" / f"run-{run.pk}.vllm.log").read_text()
    )


def test_a_backend_error_is_stored_as_an_episode_and_the_run_finishes(demo_tasks, oracle_model, executor_settings):
    run = eval_run_create(model=oracle_model, task_codes=["demo-holiday-oct", "demo-jeheonjeol"])
    eval_run_execute(run=run, backend=_FailingOn("demo-jeheonjeol"))
    run.refresh_from_db()
    assert run.status == EvalRun.Status.FINISHED  # a backend error is a stored episode, not a stop
    assert TaskResult.objects.get(run=run, task__code="demo-jeheonjeol").stop_reason == "backend_error"


class _FailingOn:
    """A backend that fails on one task (the runner stores that as a backend_error episode) and is the
    oracle elsewhere."""

    name = "flaky"
    model = "flaky"

    def __init__(self, task_id: str):
        from benchmarks.engine.backends.oracle import OracleBackend

        self.task_id = task_id
        self.oracle = OracleBackend()

    async def complete(self, request):
        from benchmarks.engine.backends.base import BackendError

        if request.task.id == self.task_id:
            raise BackendError("503 from the endpoint after 4 attempts")
        return await self.oracle.complete(request)

    async def aclose(self):
        return None
