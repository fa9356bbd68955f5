"""The main job of `./kopa up` on a small setting: every step runs once, a second run skips them all,
and a run with nothing answering starts its own sandbox or says what to start."""

from __future__ import annotations

import socket

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmarks.models import EvalRun
from datasets.models import Trajectory
from graphs.models import CandidateEdge, GraphSnapshot, VerificationRun
from kopa_site.jobs import job_start, kinds_startable_by
from kopa_site.models import Job
from kopa_site.pipeline import TINY_MODEL_NAME, PipelineError, PipelineOptions, pipeline_run, steps_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TASKS = ["wx-001", "hl-001", "x-001"]


@pytest.fixture(autouse=True)
def _no_tiny_model(monkeypatch, tmp_path):
    """The job evaluates a tiny model found in var/models/; these tests never see a developer's copy."""
    monkeypatch.setenv("KOPA_PIPELINE_TINY_MODEL", str(tmp_path / "tiny-qwen3"))


def _closed_origin() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _small(**extra) -> PipelineOptions:
    return PipelineOptions(**{"trajectories": 4, "verify_rounds": 3, "synth_concurrency": 4, "tasks": TASKS, **extra})


def _run(options: PipelineOptions):
    lines: list[str] = []
    report = pipeline_run(options=options, progress=lambda *a: None, log=lines.append)
    return report, lines


def test_the_main_job_runs_every_step_once_then_skips_them(settings, sandbox_server_url):
    settings.KOPA_SANDBOX_ORIGIN = _closed_origin()  # nothing answers there: the job starts its own sandbox
    report, lines = _run(_small())
    assert [(s.name, s.status) for s in report.steps] == [
        ("setup", "done"),
        ("propose", "done"),
        ("verify", "done"),
        ("snapshot", "done"),
        ("synthesize", "done"),
        ("oracle", "done"),
    ]
    assert any("starting one for this job" in line for line in lines)
    assert report.sandbox_origin.startswith("http://127.0.0.1:")
    assert CandidateEdge.objects.filter(status="verified").exists()
    assert GraphSnapshot.objects.count() == 1
    assert Trajectory.objects.count() >= 4
    oracle = EvalRun.objects.get(model__name="oracle")
    assert oracle.status == "finished"
    assert report.counts["trajectories"] == Trajectory.objects.count()
    calls_before = report.counts["api calls"]

    again, _ = _run(_small(sandbox_origin=sandbox_server_url))
    assert [(s.name, s.status) for s in again.steps] == [
        ("setup", "done"),
        ("propose", "skipped"),
        ("verify", "skipped"),
        ("snapshot", "skipped"),
        ("synthesize", "skipped"),
        ("oracle", "skipped"),
    ]
    assert again.counts["api calls"] == calls_before, "a second run makes no API call"
    assert (VerificationRun.objects.count(), GraphSnapshot.objects.count(), EvalRun.objects.count()) == (1, 1, 1)

    # Asking for more trajectories tops up to the target instead of starting over.
    more, _ = _run(_small(trajectories=Trajectory.objects.count() + 2))
    assert [s.name for s in more.steps if s.status == "done"] == ["setup", "synthesize"]


def test_a_given_origin_that_does_not_answer_stops_the_job_with_what_to_start():
    origin = _closed_origin()
    with pytest.raises(PipelineError, match=rf"the sandbox at {origin} does not answer.*sandbox_serve"):
        _run(_small(sandbox_origin=origin))
    assert not VerificationRun.objects.exists(), "nothing ran against a closed port"


def test_the_command_refuses_a_model_without_endpoint_or_checkpoint():
    with pytest.raises(CommandError, match="--model needs --model-url"):
        call_command("pipeline", "--model", "mine")


def test_admins_start_it_as_a_job_whose_failure_names_what_to_start(reviewer, admin):
    assert "pipeline.run" not in {kind.name for kind in kinds_startable_by(reviewer)}
    assert "pipeline.run" in {kind.name for kind in kinds_startable_by(admin)}
    origin = _closed_origin()
    job = job_start(kind="pipeline.run", params={"trajectories": 0, "sandbox_origin": origin}, user=admin)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert f"the sandbox at {origin} does not answer" in job.error


def test_the_tiny_model_is_built_when_asked_then_evaluated_where_present(settings, sandbox_server_url, tmp_path):
    settings.KOPA_SANDBOX_ORIGIN = sandbox_server_url
    assert "tiny" not in [step.name for step in steps_for(_small())], "no tiny model, no step"
    step = next(step for step in steps_for(_small(tiny=True)) if step.name == "tiny")
    call_command("bootstrap")
    assert step.done(_small()) == ""

    step.run(_small(tasks=["hl-001"]), lambda name, *args: call_command(name, *args))

    assert (tmp_path / "tiny-qwen3" / "config.json").is_file()
    run = EvalRun.objects.get(model__name=TINY_MODEL_NAME)
    assert run.status == "finished" and run.model.backend == "transformers"
    assert "tiny" in [step.name for step in steps_for(_small())], "a built tiny model is evaluated without --tiny"
    assert step.done(_small()) == f"{TINY_MODEL_NAME} already evaluated (run #{run.pk})"
