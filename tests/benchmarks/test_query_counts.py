"""KOPA-Bench's lists cost the same number of queries for one model's run as for four (pages and API)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from benchmarks.models import EvalRun, ModelEntry, TaskResult
from tests.conftest import token_client
from tests.support.queries import assert_queries_do_not_grow

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def _copy_runs(run: EvalRun, copies: int) -> None:
    """More models, each with a finished copy of `run` and its results: what a busier leaderboard lists."""
    results = list(run.results.all())
    for _ in range(copies):
        model = ModelEntry.objects.get(pk=run.model_id)
        model.pk, model.name = None, f"{model.name}-copy-{ModelEntry.objects.count()}"
        model.save()
        clone = EvalRun.objects.get(pk=run.pk)
        clone.pk, clone.model, clone.job = None, model, None
        clone.save()
        TaskResult.objects.bulk_create(
            TaskResult(
                **{
                    **{f.attname: getattr(r, f.attname) for f in TaskResult._meta.concrete_fields},
                    "id": None,
                    "run_id": clone.pk,
                }
            )
            for r in results
        )


def test_bench_pages_and_lists_do_not_query_per_row(oracle_run, client_as, admin):
    browser, api = client_as(admin), token_client(admin)
    pages = [
        reverse("benchmarks:index"),
        reverse("benchmarks:models"),
        reverse("benchmarks:runs"),
        reverse("benchmarks:leaderboard"),
    ]
    endpoints = ["/api/v1/bench-tasks/", "/api/v1/bench-models/", "/api/v1/bench-runs/", "/api/v1/bench-results/"]
    assert_queries_do_not_grow(lambda url: browser.get(url).status_code, pages, lambda: _copy_runs(oracle_run, 1))
    assert_queries_do_not_grow(lambda url: api.get(url).status_code, endpoints, lambda: _copy_runs(oracle_run, 1))
    assert EvalRun.objects.filter(status=oracle_run.status).count() == 3
