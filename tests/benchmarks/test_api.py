"""KOPA-Bench API: who may read and write what, starting and resuming runs, results with transcripts, and
list endpoints in a fixed number of queries."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.throttling import ScopedRateThrottle

from benchmarks.models import EvalRun, ModelEntry
from kopa_site.models import Job
from tests.support.api import assert_role_matrix, expect_min_role

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_reads_need_the_annotator_role(api_clients, oracle_run):
    result = oracle_run.results.first()
    for url in (
        reverse("benchtask-list"),
        reverse("benchtask-detail", args=[result.task_id]),
        reverse("modelentry-list"),
        reverse("evalrun-list"),
        reverse("evalrun-detail", args=[oracle_run.pk]),
        reverse("evalrun-results", args=[oracle_run.pk]),
        reverse("taskresult-list"),
        reverse("taskresult-detail", args=[result.pk]),
    ):
        assert_role_matrix(api_clients, url, expect_min_role("annotator"))


def test_reviewers_register_and_change_models(api_clients, db):
    responses = assert_role_matrix(
        api_clients,
        reverse("modelentry-list"),
        expect_min_role("reviewer", allowed=201),
        method="post",
        data=lambda who: {"name": f"kor-tool-9b-{who}", "backend": "openai", "base_url": "http://gpu:8000/v1"},
    )
    made = ModelEntry.objects.get(name="kor-tool-9b-reviewer")
    assert responses["reviewer"].json()["created_by"] == "reviewer" and made.created_by.username == "reviewer"
    url = reverse("modelentry-detail", args=[made.pk])
    assert_role_matrix(api_clients, url, expect_min_role("reviewer"), method="patch", data={"org": "KOPA"})
    assert ModelEntry.objects.get(pk=made.pk).org == "KOPA"


def test_a_model_without_its_endpoint_or_with_a_key_for_a_name_is_refused(reviewer_api, db):
    missing = reviewer_api.post(reverse("modelentry-list"), {"name": "m", "backend": "transformers"}, format="json")
    assert missing.status_code == 400 and "needs a checkpoint" in missing.json()["detail"]
    keyed = reviewer_api.post(
        reverse("modelentry-list"),
        {"name": "k", "backend": "openai", "base_url": "http://gpu:8000/v1", "api_key_env": "sk-proj-abc123"},
        format="json",
    )
    assert keyed.status_code == 400 and "sk-proj-abc123" not in keyed.content.decode()
    assert not ModelEntry.objects.exists()


def test_reviewers_start_runs_as_jobs(api_clients, demo_tasks, oracle_model):
    body = {"model": oracle_model.pk, "tasks": ["demo-holiday-oct"], "seeds": [0, 1, 2, 3], "max_steps": 4}
    responses = assert_role_matrix(
        api_clients, reverse("evalrun-list"), expect_min_role("reviewer", allowed=201), method="post", data=body
    )
    data = responses["reviewer"].json()
    assert data["status"] == "pending" and data["seeds"] == [0, 1, 2, 3] and data["episodes_planned"] == 4
    assert data["task_checksum"] and data["job_status"] == "pending"
    assert Job.objects.filter(kind="bench.evaluate").count() == 2  # the reviewer's and the admin's


def test_bad_run_requests_say_why(reviewer_api, demo_tasks, oracle_model):
    unknown = reviewer_api.post(reverse("evalrun-list"), {"model": oracle_model.pk, "tasks": ["x-1"]}, format="json")
    assert unknown.status_code == 400 and "no active task named x-1" in unknown.json()["detail"]
    seeds = reviewer_api.post(reverse("evalrun-list"), {"model": oracle_model.pk, "seeds": [1, 1]}, format="json")
    assert seeds.status_code == 400 and "distinct" in seeds.json()["detail"]
    assert not EvalRun.objects.exists() and not Job.objects.exists()


def test_starting_runs_is_throttled_as_a_job_but_reading_is_not(reviewer_api, demo_tasks, oracle_model, monkeypatch):
    # DRF copies the rates onto the class at import, so the class attribute is what to change.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"jobs": "1/minute"})
    cache.clear()
    body = {"model": oracle_model.pk, "tasks": ["demo-holiday-oct"]}
    codes = [reviewer_api.post(reverse("evalrun-list"), body, format="json").status_code for _ in range(2)]
    assert codes == [201, 429]
    assert reviewer_api.get(reverse("evalrun-list")).status_code == 200
    cache.clear()


def test_a_finished_run_is_not_resumed(reviewer_api, oracle_run):
    response = reviewer_api.post(reverse("evalrun-resume", args=[oracle_run.pk]))
    assert response.status_code == 400 and "has finished; start a new run" in response.json()["detail"]


def test_results_list_without_transcripts_and_detail_with_them(annotator_api, oracle_run):
    listed = annotator_api.get(reverse("evalrun-results", args=[oracle_run.pk]), {"task": "demo-apt-max-jongno"})
    rows = listed.json()["results"]
    assert [(row["task"], row["seed"], row["success"]) for row in rows] == [
        ("demo-apt-max-jongno", 0, True),
        ("demo-apt-max-jongno", 1, True),
    ]
    assert "transcript" not in rows[0]
    detail = annotator_api.get(rows[0]["url"]).json()
    assert detail["transcript"]["stop_reason"] == "answer" and len(detail["api_call_ids"]) == 4
    assert detail["scores"]["action"]["f1"] == 1.0
    run = annotator_api.get(reverse("evalrun-detail", args=[oracle_run.pk])).json()
    assert run["summary"]["overall"]["pass_hat"]["2"]["value"] == 1.0 and run["model"]["name"] == "oracle"
    tasks = annotator_api.get(reverse("benchtask-list"), {"category": "chain", "difficulty": "medium"}).json()
    assert sorted(t["code"] for t in tasks["results"]) == ["demo-apt-max-jongno", "demo-population-yeoksam"]
    by_tool = annotator_api.get(reverse("benchtask-list"), {"tool": "get_holi_de_info"}).json()
    assert [t["code"] for t in by_tool["results"]] == ["demo-jeheonjeol"]


@pytest.mark.parametrize("name, queries", [("benchtask", 4), ("modelentry", 4), ("evalrun", 4), ("taskresult", 4)])
def test_lists_take_a_fixed_number_of_queries(annotator_api, oracle_run, django_assert_num_queries, name, queries):
    annotator_api.get(reverse(f"{name}-list"))
    with django_assert_num_queries(queries):  # token + role, then count and page
        assert annotator_api.get(reverse(f"{name}-list")).status_code == 200
