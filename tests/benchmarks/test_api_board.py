"""KOPA-Bench API for the registry and the leaderboard: who reads and writes, BFCL runs started through the
API, model filters, validation, and the leaderboard with the page's filters."""

from __future__ import annotations

import pytest
from django.urls import reverse

from benchmarks.models import EvalRun, ModelEntry
from kopa_site.models import Job
from tests.benchmarks.test_leaderboard import boards  # noqa: F401  (the fixture)
from tests.support.api import assert_role_matrix, expect_min_role

pytestmark = [pytest.mark.django_db]


def test_the_leaderboard_endpoint_needs_the_annotator_role_and_filters_like_the_page(api_clients, boards):  # noqa: F811
    url = reverse("evalrun-leaderboard")
    responses = assert_role_matrix(api_clients, url, expect_min_role("annotator"))
    data = responses["annotator"].json()
    assert data["board"]["canonical"] and data["board"]["tasks"] == 6
    assert [row["model"] for row in data["rows"]] == ["Qwen3.5-27B", "Qwen3.5-9B-EDGE", "Qwen3.5-9B"]
    assert {b["benchmark"] for b in data["boards"]} == {"kopa", "bfcl"}
    client = api_clients["annotator"]
    tuned = client.get(url, {"tuned": "tuned", "family": "Qwen3.5"}).json()["rows"]
    assert [(row["model"], row["rank"], row["base_model"]) for row in tuned] == [("Qwen3.5-9B-EDGE", 2, "Qwen3.5-9B")]
    bfcl = client.get(url, {"board": "b" * 12, "sort": "model"}).json()
    assert bfcl["board"]["benchmark"] == "bfcl" and [r["model"] for r in bfcl["rows"]] == [
        "Qwen3.5-9B",
        "Qwen3.5-9B-EDGE",
    ]


def test_model_filters_and_the_registrys_validation_in_the_api(annotator_api, reviewer_api, boards):  # noqa: F811
    listed = annotator_api.get(reverse("modelentry-list"), {"tuned": "tuned"}).json()["results"]
    assert [m["name"] for m in listed] == ["Qwen3.5-9B-EDGE"] and listed[0]["is_tuned"] and listed[0]["base_model"]
    big = annotator_api.get(reverse("modelentry-list"), {"min_b": 20}).json()["results"]
    assert [m["name"] for m in big] == ["Qwen3.5-27B"]
    negative = reviewer_api.post(
        reverse("modelentry-list"), {"name": "neg", "backend": "oracle", "params_b": -9}, format="json"
    )
    assert negative.status_code == 400 and "params_b" in negative.json()
    entry = ModelEntry.objects.get(name="Qwen3.5-27B")
    bad = reviewer_api.patch(reverse("modelentry-detail", args=[entry.pk]), {"params_b": -1}, format="json")
    assert bad.status_code == 400 and ModelEntry.objects.get(pk=entry.pk).params_b == 27
    runs = annotator_api.get(reverse("evalrun-list"), {"benchmark": "bfcl"}).json()["results"]
    assert len(runs) == 2 and all(r["benchmark_version"].startswith("BFCL v4") for r in runs)
    assert runs[0]["model_snapshot"]["family"] == "Qwen3.5"


def test_reviewers_start_bfcl_runs_through_the_api(api_clients, oracle_model):
    body = {"model": oracle_model.pk, "benchmark": "bfcl", "categories": ["parallel"], "limit": 3, "seeds": [0, 1]}
    responses = assert_role_matrix(
        api_clients, reverse("evalrun-list"), expect_min_role("reviewer", allowed=201), method="post", data=body
    )
    data = responses["reviewer"].json()
    assert data["benchmark"] == "bfcl" and data["episodes_planned"] == 6
    assert data["task_codes"] == ["bfcl:parallel_0", "bfcl:parallel_1", "bfcl:parallel_2"]
    assert Job.objects.filter(kind="bench.evaluate").count() == 2
    unknown = api_clients["reviewer"].post(
        reverse("evalrun-list"), {**body, "categories": ["web_search"]}, format="json"
    )
    assert unknown.status_code == 400 and "unknown BFCL category 'web_search'" in unknown.json()["detail"]
    assert EvalRun.objects.count() == 2
