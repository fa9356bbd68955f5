"""The run transitions every app's runs share (kopa_site.runs): start, running, stopped, failed, finished."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from benchmarks.models import EvalRun
from datasets.models import SynthesisRun
from graphs.models import VerificationRun
from kopa_site.models import Job, RunStatus
from kopa_site.runs import (
    run_check_startable,
    run_mark_failed,
    run_mark_finished,
    run_mark_running,
    run_mark_stopped,
    run_start,
)
from training.models import TrainingRun

pytestmark = pytest.mark.django_db


class Refused(Exception):
    pass


def test_every_run_model_has_the_one_status_set():
    for model in (SynthesisRun, VerificationRun, EvalRun, TrainingRun):
        assert model._meta.get_field("status").choices == RunStatus.choices, model
        assert model._meta.ordering == ["-created_at", "-id"], model


def test_the_database_refuses_a_status_outside_the_set():
    run = VerificationRun.objects.create()
    with pytest.raises(IntegrityError), transaction.atomic():
        VerificationRun.objects.filter(pk=run.pk).update(status="done")


def test_it_names_the_run_in_its_str_and_its_refusals():
    run = VerificationRun.objects.create(status=RunStatus.FINISHED)
    assert str(run) == f"Verification run #{run.pk} (finished)"
    with pytest.raises(Refused, match=rf"^verification run #{run.pk} has finished; start a new run$"):
        run_check_startable(run=run, error=Refused)


def test_a_run_that_cannot_be_continued_is_refused_in_each_terminal_status():
    synthesis = SynthesisRun.objects.create(status=RunStatus.RUNNING)
    with pytest.raises(Refused, match="is running; start a new run"):
        run_check_startable(run=synthesis, error=Refused)
    for status in (RunStatus.STOPPED, RunStatus.FAILED):
        synthesis.status = status
        with pytest.raises(Refused, match=f"has {status}"):
            run_check_startable(run=synthesis, error=Refused)
    # A training run resumes after a failure; an evaluation that failed never reached its model.
    run_check_startable(run=TrainingRun(pk=1, preset="tiny-cpu", status=RunStatus.FAILED), error=Refused)
    with pytest.raises(Refused, match="has failed"):
        run_check_startable(run=EvalRun(pk=1, status=RunStatus.FAILED), error=Refused)


def test_start_queues_a_job_links_it_and_refuses_a_second_while_it_is_in_progress():
    run = VerificationRun.objects.create(status=RunStatus.STOPPED)
    job = run_start(run=run, kind="edge.verify", error=Refused)
    run.refresh_from_db()
    assert run.job_id == job.pk and job.kind == "edge.verify" and job.params == {"run_id": run.pk}
    assert run.status == RunStatus.STOPPED  # the job marks it running when it starts
    with pytest.raises(Refused, match=f"already has job #{job.pk} in progress"):
        run_start(run=run, kind="edge.verify", error=Refused)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.FAILED)
    assert run_start(run=run, kind="edge.verify", error=Refused).pk != job.pk


def test_start_with_reset_puts_the_run_back_in_the_queue_without_its_error():
    run = TrainingRun.objects.create(preset="tiny-cpu", dataset_path="x.jsonl", status=RunStatus.FAILED, error="oom")
    run_start(run=run, kind="edge.verify", error=Refused, reset=True)  # any kind taking run_id
    run.refresh_from_db()
    assert run.status == RunStatus.PENDING and run.error == "" and run.job_id


def test_running_keeps_the_first_start_time_and_can_require_a_status():
    first = timezone.now() - timedelta(hours=1)
    run = VerificationRun.objects.create(status=RunStatus.STOPPED, started_at=first)
    assert run_mark_running(run=run, counters={"trials": 1})
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and run.started_at == first and run.counters == {"trials": 1}

    fresh = SynthesisRun.objects.create()
    assert run_mark_running(run=fresh, only_from=(RunStatus.PENDING,))
    fresh.refresh_from_db()
    assert fresh.started_at is not None
    assert not run_mark_running(run=fresh, only_from=(RunStatus.PENDING,))  # another worker took it


def test_stopped_failed_and_finished_record_their_reason_and_time():
    run = VerificationRun.objects.create(status=RunStatus.PENDING)
    run_mark_stopped(run=run, error="cancelled", only_running=True)
    run.refresh_from_db()
    assert run.status == RunStatus.PENDING  # only a running run is stopped when asked so
    run_mark_running(run=run)
    run_mark_stopped(run=run, error="cancelled", only_running=True)
    run.refresh_from_db()
    assert run.status == RunStatus.STOPPED and run.error == "cancelled" and run.finished_at is None

    run_mark_failed(run=run, error="x" * 5000)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and len(run.error) == 2000 and run.finished_at

    training = TrainingRun.objects.create(preset="tiny-cpu", dataset_path="x.jsonl")
    run_mark_failed(run=training, error="y" * 5000, log_tail="last lines")
    training.refresh_from_db()
    assert len(training.error) == 600 and training.log_tail == "last lines"  # what its CharField holds

    run_mark_finished(run=training, error="")
    training.refresh_from_db()
    assert training.status == RunStatus.FINISHED and training.error == "" and training.finished_at


@pytest.mark.django_db(transaction=True)
def test_the_migration_maps_a_status_outside_the_set_before_checking_it():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("graphs", "0002_edge_domains_echo_confusion")], [("graphs", "0003_run_shape")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps.get_model("graphs", "VerificationRun")
        drifted = old.objects.create(status="done")
        kept = old.objects.create(status="finished")
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        assert dict(VerificationRun.objects.values_list("pk", "status")) == {
            drifted.pk: RunStatus.STOPPED,
            kept.pk: RunStatus.FINISHED,
        }
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
