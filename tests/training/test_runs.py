"""Training runs as jobs: a real SFT + GRPO run of the tiny model in its own process on CPU (metrics into the run,
weights changed, checkpoint registered), cancel and resume from the last checkpoint, failure with its reason, and
the refusals that happen before any job starts."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from benchmarks.models import EvalRun, ModelEntry
from kopa_site.models import Job
from tests.support.versions import freeze_lines
from training.engine.synthetic import holiday_lines, write_holiday_export
from training.models import TrainingMetric, TrainingRun
from training.services import TrainingError, training_run_create, training_run_finish, training_run_start

ROOT = Path(__file__).resolve().parents[2]
DEMO_TASKS = ROOT / "tests" / "fixtures" / "bench" / "demo_tasks.yaml"
# Small enough for a couple of CPU cores: a short, steep warm start (enough that some replies end and some are
# cut off, so generations of one prompt earn different rewards), then GRPO on 2 prompts x 2 generations a step.
QUICK = {
    "sft.steps": 12,
    "sft.batch_size": 2,
    "sft.learning_rate": 1e-2,
    "grpo.steps": 2,
    "grpo.batch_size": 4,
    "grpo.num_generations": 2,
    "grpo.max_completion_length": 32,
    "grpo.max_turns": 2,
    "grpo.save_steps": 1,
}


@pytest.fixture
def training_settings(settings, tmp_path, sandbox_server_url):
    settings.VAR_DIR = tmp_path / "var"
    settings.KOPA_SANDBOX_ORIGIN = sandbox_server_url
    return settings


@pytest.fixture
def export_file(tmp_path, sandbox_server_url):
    """Two months of the no-call template and one of a call template: the no-call prompts (where a reply that ends
    earns format credit and one cut off does not) are drawn in QUICK's first GRPO step."""
    path = tmp_path / "export" / "train.jsonl"
    return write_holiday_export(
        path, sandbox_server_url, [(2026, 5), (2026, 10)], templates=("count", "none"), brief=True
    )


@pytest.fixture
def version(sandbox_server_url, reviewer):
    """The same trajectories as export_file, frozen as a dataset version (what the pages and the API train on)."""
    lines = holiday_lines(sandbox_server_url, [(2026, 5), (2026, 10)], templates=("count", "none"), brief=True)
    return freeze_lines(lines, name="holidays-v1", user=reviewer)


def digest(path: Path) -> str:
    return hashlib.sha256((path / "model.safetensors").read_bytes()).hexdigest()


@pytest.mark.django_db(transaction=True)
def test_a_version_whose_items_no_longer_match_its_checksum_is_not_trained_on(training_settings, version, reviewer):
    from datasets.models import DatasetVersionItem

    run = training_run_create(preset="tiny-cpu", dataset_version=version, overrides=QUICK, user=reviewer)
    first = DatasetVersionItem.objects.filter(version=version).order_by("id").first()
    DatasetVersionItem.objects.filter(pk=first.pk).update(item={**first.item, "answer": "tampered"})
    job = training_run_start(run=run, user=reviewer)
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.status == Job.Status.FAILED and run.status == TrainingRun.Status.FAILED
    assert "does not match its checksum" in run.error and not Path(run.dataset_path).exists()


def test_a_run_needs_a_dataset_version_or_an_export_file_not_both(db, training_settings, version, export_file):
    for data in ({}, {"dataset_version": version, "dataset_path": str(export_file)}):
        with pytest.raises(TrainingError, match="frozen dataset version"):
            training_run_create(preset="tiny-cpu", **data)
    assert not TrainingRun.objects.exists()


def test_bad_requests_are_refused_before_any_job(db, training_settings, export_file, tmp_path):
    with pytest.raises(TrainingError, match="base model folder .* does not exist"):
        training_run_create(preset="qwen-9b-lora", dataset_path=str(export_file), base_model_path=str(tmp_path / "x"))
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text('{"model_type": "qwen3"}', encoding="utf-8")
    with pytest.raises(TrainingError, match="has no weights"):
        training_run_create(
            preset="qwen-4b-full", dataset_path=str(export_file), base_model_path=str(tmp_path / "ckpt")
        )
    with pytest.raises(TrainingError, match="unknown override"):
        training_run_create(preset="tiny-cpu", dataset_path=str(export_file), overrides={"lr": 1})
    with pytest.raises(TrainingError, match="tool_mode"):
        training_run_create(preset="tiny-cpu", dataset_path=str(export_file), tool_mode="live")
    assert not TrainingRun.objects.exists() and not Job.objects.exists()
    run = training_run_create(preset="tiny-cpu", dataset_path=str(export_file), overrides={"grpo.steps": 3})
    written = json.loads((Path(run.output_dir) / "config.json").read_text(encoding="utf-8"))
    assert written == run.config and written["grpo"]["steps"] == 3 == run.total_steps
    assert written["tools"] == {"mode": "sandbox", "sandbox_url": training_settings.KOPA_SANDBOX_ORIGIN}


def test_finishing_registers_base_and_tuned_and_queues_both_evaluations(db, training_settings, export_file, reviewer):
    from apis.services import catalog_import_bundled
    from benchmarks.services import tasks_sync
    from tests.support.tiny_model import cached_tiny_model

    catalog_import_bundled()
    tasks_sync(paths=[DEMO_TASKS])
    run = training_run_create(preset="tiny-cpu", dataset_path=str(export_file), user=reviewer)
    model = str(cached_tiny_model())
    run = training_run_finish(run=run, result={"checkpoint": model, "base": model + "-base"})
    tuned, base = run.model_entry, run.base_entry
    assert run.status == TrainingRun.Status.FINISHED and run.checkpoint == model
    assert tuned.backend == ModelEntry.Backend.TRANSFORMERS and tuned.checkpoint == model
    assert tuned.base_model == base and tuned.tuned_from_run == run.pk and tuned.family == "tiny-qwen3"
    assert base.checkpoint == model + "-base" and base.tuned_from_run is None and base.family == "tiny-qwen3"
    assert run.eval_note == ""
    assert run.base_eval.model == base and run.tuned_eval.model == tuned
    assert {r.job.kind for r in (run.base_eval, run.tuned_eval)} == {"bench.evaluate.gpu"}
    assert EvalRun.objects.count() == 2


def test_without_tasks_evaluation_is_not_queued_and_the_run_says_why(db, training_settings, export_file):
    from tests.support.tiny_model import cached_tiny_model

    run = training_run_create(preset="tiny-cpu", dataset_path=str(export_file))
    model = str(cached_tiny_model())
    run = training_run_finish(run=run, result={"checkpoint": model, "base": model})
    assert run.model_entry.base_model == run.base_entry and run.base_entry.checkpoint == model
    assert run.eval_note.startswith("evaluation not queued: there are no active tasks")
    assert run.tuned_eval is None


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_grpo_run_trains_streams_metrics_and_registers_its_checkpoint(training_settings, version, reviewer):
    run = training_run_create(preset="tiny-cpu", dataset_version=version, overrides=QUICK, user=reviewer)
    assert not Path(run.dataset_path).exists()  # the job writes the version's items
    job = training_run_start(run=run, user=reviewer)  # the sync queue runs it now
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.kind == "training.run" and job.cluster == "gpu"
    assert job.status == Job.Status.SUCCEEDED, (job.error, run.error, run.log_tail[-3000:])
    trained_on = Path(run.dataset_path).read_text(encoding="utf-8").splitlines()
    assert len(trained_on) == version.item_count == 4 and "holidays-v1" in run.model_entry.notes
    assert "4 trajectories from" in (Path(run.output_dir) / "train.log").read_text(encoding="utf-8")
    assert run.status == TrainingRun.Status.FINISHED and (run.phase, run.step) == ("grpo", 2)
    steps = list(TrainingMetric.objects.filter(run=run).values_list("phase", "step"))
    assert steps == [("grpo", 1), ("grpo", 2)] + [("sft", n) for n in range(1, 13)]
    grpo = TrainingMetric.objects.get(run=run, phase="grpo", step=2).values
    for key in ("loss", "reward", "kl", "rewards/format/mean", "rewards/answer/mean", "tools/call_frequency"):
        assert key in grpo, key
    assert "completions/mean_length" in grpo and grpo["tokens_per_s"] > 0
    folder = Path(run.output_dir)
    assert digest(folder / "final") != digest(folder / "sft") != digest(folder / "base")  # GRPO changed weights
    assert (folder / "grpo" / "checkpoint-2").is_dir() and (folder / "train.log").stat().st_size > 0
    assert run.model_entry.checkpoint == str(folder / "final") and run.model_entry.tuned_from_run == run.pk
    assert run.model_entry.base_model == run.base_entry and run.base_entry.checkpoint == str(folder / "base")
    assert "no active tasks" in run.eval_note
    assert (job.progress_done, job.progress_total) == (14, 14)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_cancel_stops_the_process_and_resume_continues_from_the_checkpoint(
    training_settings, version, reviewer, monkeypatch
):
    from training import services

    original = services._Stream.metric

    def cancel_after_second_grpo_step(self, values):  # step 1's checkpoint is written by then
        original(self, values)
        if values.get("phase") == "grpo" and values.get("step") == 2:
            Job.objects.filter(pk=self.reporter.job_id).update(cancel_requested=True)

    monkeypatch.setattr(services._Stream, "metric", cancel_after_second_grpo_step)
    # Weights need not change here; enough steps remain after the cancel that it lands (polled each second) first.
    overrides = {**QUICK, "sft.steps": 1, "grpo.steps": 8}
    run = training_run_create(preset="tiny-cpu", dataset_version=version, overrides=overrides, user=reviewer)
    job = training_run_start(run=run, user=reviewer)
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.status == Job.Status.CANCELLED, job.error
    assert run.status == TrainingRun.Status.STOPPED and "resume" in run.error
    folder = Path(run.output_dir)
    assert (folder / "sft" / "DONE").exists() and not (folder / "final").exists()
    assert (folder / "grpo" / "checkpoint-1").is_dir() and not (folder / "grpo" / "checkpoint-8").exists()
    sft_digest = digest(folder / "sft")

    monkeypatch.setattr(services._Stream, "metric", original)
    job = training_run_start(run=run, user=reviewer)
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, (job.error, run.log_tail[-3000:])
    assert run.status == TrainingRun.Status.FINISHED and run.step == 8
    log = (folder / "train.log").read_text(encoding="utf-8")
    assert "SFT already finished" in log and "resuming GRPO from" in log and "checkpoint-" in log
    assert digest(folder / "sft") == sft_digest  # the warm start was not redone
    assert sorted(TrainingMetric.objects.filter(run=run, phase="grpo").values_list("step", flat=True)) == list(
        range(1, 9)
    )


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_failing_process_fails_the_run_with_its_reason_and_log_tail(training_settings, export_file, reviewer):
    run = training_run_create(preset="tiny-cpu", dataset_path=str(export_file), overrides=QUICK, user=reviewer)
    with export_file.open("a", encoding="utf-8") as handle:  # the file went bad after the run was created
        handle.write("{not json\n")
    job = training_run_start(run=run, user=reviewer)
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert run.status == TrainingRun.Status.FAILED
    assert run.error.startswith("DataError: ") and re.search(r"train.jsonl:\d+: JSONDecodeError", run.error)
    assert "Traceback" in run.log_tail and "FAILED DataError" in run.log_tail
    assert run.error in job.error
    assert not TrainingMetric.objects.filter(run=run).exists()
