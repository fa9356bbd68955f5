"""Training pages and API: who may read, start, cancel and resume; the start form's refusals; the run page's curves
with their tables, config, log and checkpoints. Jobs stay pending here (no transaction commits)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.urls import reverse

from kopa_site.models import Job
from tests.support.api import assert_role_matrix, expect_min_role
from tests.support.versions import freeze_lines
from training.engine.synthetic import holiday_lines, write_holiday_export
from training.models import TrainingMetric, TrainingRun
from training.services import training_run_create


@pytest.fixture
def export_file(tmp_path, sandbox_server_url):
    return write_holiday_export(tmp_path / "train.jsonl", sandbox_server_url, [(2026, 5)], templates=("none",))


@pytest.fixture
def version(sandbox_server_url, reviewer):
    return freeze_lines(holiday_lines(sandbox_server_url, [(2026, 5)], templates=("none",)), name="holidays-v1")


@pytest.fixture
def run(settings, tmp_path, export_file, reviewer):
    settings.VAR_DIR = tmp_path / "var"
    made = training_run_create(preset="tiny-cpu", dataset_path=str(export_file), name="demo run", user=reviewer)
    for step in (1, 2):
        values = {"phase": "grpo", "step": step, "loss": 0.1 * step, "reward": 0.5 + step / 10, "kl": 0.01 * step}
        values |= {"rewards/format/mean": 0.25 * step, "tools/call_frequency": 0.5, "completions/mean_length": 30.0}
        TrainingMetric.objects.create(run=made, phase="grpo", step=step, values=values)
    TrainingMetric.objects.create(run=made, phase="sft", step=1, values={"phase": "sft", "step": 1, "loss": 7.5})
    folder = Path(made.output_dir)
    (folder / "grpo" / "checkpoint-2").mkdir(parents=True)
    (folder / "grpo" / "checkpoint-2" / "config.json").write_text("{}", encoding="utf-8")
    (folder / "train.log").write_text("4 trajectories from train.jsonl\nPROGRESS 2/2 grpo\n", encoding="utf-8")
    return made


def test_api_reads_are_open_to_annotators(api_clients, run):
    assert_role_matrix(api_clients, "/api/v1/training-runs/", expect_min_role("annotator"))
    responses = assert_role_matrix(api_clients, f"/api/v1/training-runs/{run.pk}/", expect_min_role("annotator"))
    body = responses["annotator"].json()
    assert body["label"] == "demo run" and body["config"]["preset"] == "tiny-cpu"
    metrics = assert_role_matrix(api_clients, f"/api/v1/training-runs/{run.pk}/metrics/", expect_min_role("annotator"))
    assert [(m["phase"], m["step"]) for m in metrics["admin"].json()["results"]] == [
        ("grpo", 1),
        ("grpo", 2),
        ("sft", 1),
    ]


def test_api_starts_runs_for_reviewers_and_refuses_bad_ones(api_clients, run, version, export_file, tmp_path):
    def body(who):
        return {
            "preset": "tiny-cpu",
            "dataset_version": version.name,
            "name": f"by {who}",
            "overrides": {"grpo.steps": 2},
        }

    responses = assert_role_matrix(
        api_clients, "/api/v1/training-runs/", expect_min_role("reviewer", allowed=201), method="post", data=body
    )
    made = TrainingRun.objects.get(pk=responses["reviewer"].json()["id"])
    assert made.job.kind == "training.run" and made.job.cluster == "gpu" and made.total_steps == 2
    assert made.dataset_version == version and responses["reviewer"].json()["dataset_version"] == "holidays-v1"
    assert made.dataset_path == str(Path(made.output_dir) / "data" / "version.jsonl")
    bad = api_clients["reviewer"].post(
        "/api/v1/training-runs/",
        {"preset": "qwen-9b-lora", "dataset_version": version.name, "base_model_path": str(tmp_path / "missing")},
        format="json",
    )
    assert bad.status_code == 400 and "does not exist" in bad.json()["detail"]
    for wrong in ({}, {"dataset_version": "no-such-version"}):
        refused = api_clients["reviewer"].post("/api/v1/training-runs/", {"preset": "tiny-cpu", **wrong}, format="json")
        assert refused.status_code == 400 and "dataset_version" in refused.json()
    # A server path is not a way in: the API takes a version, never a file to read.
    path_only = api_clients["reviewer"].post(
        "/api/v1/training-runs/", {"preset": "tiny-cpu", "dataset_path": str(export_file)}, format="json"
    )
    assert path_only.status_code == 400 and "dataset_version" in path_only.json()
    assert TrainingRun.objects.filter(dataset_path=str(export_file)).count() == 1  # the fixture's run only


def test_api_cancel_and_resume(api_clients, run):
    from training.services import training_run_start

    training_run_start(run=run)
    assert api_clients["annotator"].post(f"/api/v1/training-runs/{run.pk}/cancel/").status_code == 403
    response = api_clients["reviewer"].post(f"/api/v1/training-runs/{run.pk}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "stopped"
    assert Job.objects.get(pk=run.job_id).status == Job.Status.CANCELLED
    again = api_clients["reviewer"].post(f"/api/v1/training-runs/{run.pk}/cancel/")
    assert again.status_code == 400 and "no job in progress" in again.json()["detail"]
    resumed = api_clients["admin"].post(f"/api/v1/training-runs/{run.pk}/resume/")
    assert resumed.status_code == 200 and resumed.json()["status"] == "pending"
    assert resumed.json()["job"] != run.job_id


def test_index_lists_runs_and_shows_the_form_to_reviewers_only(client_as, annotator, reviewer, run):
    page = client_as(annotator).get(reverse("training:index"))
    assert (
        page.status_code == 200
        and "demo run" in page.content.decode()
        and "training-start" not in page.content.decode()
    )
    page = client_as(reviewer).get(reverse("training:index"))
    assert 'id="training-start"' in page.content.decode()


def test_start_form_queues_a_run_or_says_why_not(client_as, reviewer, annotator, version, tmp_path):
    page = client_as(reviewer).get(reverse("training:index")).content.decode()
    assert f'<option value="{version.pk}"' in page and "holidays-v1 · 1 trajectories" in page
    assert 'name="dataset_path"' not in page
    form = {
        "preset": "tiny-cpu",
        "dataset_version": str(version.pk),
        "overrides": '{"grpo.steps": 4}',
        "tool_mode": "replay",
    }
    assert client_as(annotator).post(reverse("training:run_start"), form).status_code == 403
    response = client_as(reviewer).post(reverse("training:run_start"), form)
    made = TrainingRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("training:run", args=[made.pk])
    assert made.tool_mode == "replay" and made.total_steps == 4 and made.job.status == Job.Status.PENDING
    assert made.dataset_version == version
    detail = client_as(reviewer).get(response["Location"]).content.decode()
    assert "holidays-v1" in detail and reverse("datasets:version", args=[version.pk]) in detail
    for missing in ("", "99999", "holidays-v1"):
        refused = client_as(reviewer).post(reverse("training:run_start"), {**form, "dataset_version": missing})
        assert refused.status_code == 400 and "pick a frozen dataset version" in refused.content.decode()
    bad = client_as(reviewer).post(
        reverse("training:run_start"), {**form, "preset": "qwen-4b-full", "base_model_path": str(tmp_path)}
    )
    assert bad.status_code == 400 and "has no config.json" in bad.content.decode()
    assert str(tmp_path) in bad.content.decode()  # the form keeps what was typed
    broken = client_as(reviewer).post(reverse("training:run_start"), {**form, "overrides": "{grpo"})
    assert broken.status_code == 400 and "overrides are a JSON object" in broken.content.decode()
    assert TrainingRun.objects.count() == 1


def test_run_page_has_curves_with_tables_config_log_and_checkpoints(client_as, annotator, run):
    page = client_as(annotator).get(reverse("training:run", args=[run.pk])).content.decode()
    for chart in ("grpo-loss", "grpo-rewards", "grpo-kl", "grpo-tools", "grpo-speed", "sft-loss"):
        assert f'data-figure="{chart}-data"' in page and f'id="{chart}-data"' in page
        assert f'data-chart="{chart}"' in page
    figure = json.loads(page.split('id="grpo-rewards-data" type="application/json">')[1].split("</script>")[0])
    assert [t["name"] for t in figure["data"]] == ["weighted total", "format"]
    assert figure["data"][1]["y"] == [0.25, 0.5]
    assert "vendor/plotly.min.js" in page and "grpo/checkpoint-2" in page
    assert "4 trajectories from train.jsonl" in page and "&quot;preset&quot;: &quot;tiny-cpu&quot;" in page
