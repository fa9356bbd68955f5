"""BFCL runs through our runner: the oracle end to end, an OpenAI-compatible endpoint over a real socket, and
the results in the same EvalRun / TaskResult tables marked as BFCL with its version."""

from __future__ import annotations

import pytest

from benchmarks.engine import bfcl
from benchmarks.models import EvalRun, ModelEntry, Task, TaskResult
from benchmarks.services import BenchError, bfcl_run_create, eval_run_execute, model_entry_create
from tests.support.openai_stub_server import StubServer

pytestmark = [pytest.mark.django_db]


def test_the_oracle_on_bfcl_finishes_with_every_entry_valid_and_marked_as_bfcl(oracle_model):
    run = bfcl_run_create(
        model=oracle_model, categories=["simple_python", "parallel", "irrelevance"], limit=5, seeds=[0, 1]
    )
    assert (
        run.benchmark == "bfcl"
        and run.benchmark_version == bfcl.label()
        and "bfcl-eval 2026.3.23" in run.benchmark_version
    )
    eval_run_execute(run=run)
    run.refresh_from_db()
    assert run.status == EvalRun.Status.FINISHED
    assert TaskResult.objects.filter(run=run).count() == 30
    overall = run.summary["overall"]
    assert overall["success"]["value"] == 1.0 and overall["pass_at"]["2"]["value"] == 1.0
    assert sorted(run.summary["categories"]) == ["irrelevance", "parallel", "simple_python"]
    result = TaskResult.objects.get(run=run, task__code="bfcl:parallel_0", seed=1)
    assert result.transcript["verdict"]["valid"] and result.calls == len(result.task.gold) == 2
    assert Task.objects.get(code="bfcl:parallel_0").benchmark == "bfcl"
    # KOPA-Bench task lists stay KOPA-Bench only
    assert not Task.objects.filter(benchmark="kopa").exists()


@pytest.mark.slow
def test_an_endpoint_run_on_bfcl_sends_openai_tools_and_scores_like_bfcl_eval(db):
    with StubServer(model_name="stub-9b") as server:
        model = model_entry_create(
            name="Stub 9B", backend=ModelEntry.Backend.OPENAI, base_url=server.url, served_name="stub-9b"
        )
        run = bfcl_run_create(model=model, categories=["simple_python", "irrelevance"], limit=4, concurrency=4)
        eval_run_execute(run=run)
    run.refresh_from_db()
    assert run.status == EvalRun.Status.FINISHED and len(server.requests) == 8
    assert all("." not in tool["function"]["name"] for body in server.requests for tool in body["tools"])
    # The stand-in calls the first tool with no arguments: every AST entry misses its required arguments and
    # every irrelevance entry made a call where none applies.
    assert run.summary["overall"]["success"]["value"] == 0.0
    kinds = set(TaskResult.objects.filter(run=run).values_list("scores__bfcl__error_type", flat=True))
    assert kinds == {"simple_function_checker:missing_required", "irrelevance_error:decoder_success"}
    for result in TaskResult.objects.filter(run=run).select_related("task"):
        entry = bfcl.Entry.from_spec(
            result.task.code[5:], result.task.categories[0], result.task.spec, result.task.gold
        )
        assert bfcl.score(entry, result.transcript["result"]).valid == result.success


def test_bad_bfcl_requests_are_refused_clearly(oracle_model):
    with pytest.raises(BenchError, match="unknown BFCL category 'web_search'"):
        bfcl_run_create(model=oracle_model, categories=["web_search"])
    with pytest.raises(BenchError, match="at least one BFCL category"):
        bfcl_run_create(model=oracle_model, categories=[])
    with pytest.raises(BenchError, match="limit is a whole number"):
        bfcl_run_create(model=oracle_model, categories=["parallel"], limit=0)
    assert not EvalRun.objects.exists()


def test_a_bfcl_run_page_and_entry_page_show_accuracy_categories_and_the_checkers_verdict(
    oracle_model, client_as, annotator
):
    run = bfcl_run_create(model=oracle_model, categories=["parallel", "live_relevance"], limit=3)
    eval_run_execute(run=run)
    browser = client_as(annotator)
    html = browser.get(f"/bench/runs/{run.pk}/").content.decode()
    assert "BFCL accuracy" in html and "100.0 %" in html and "live_relevance" in html and bfcl.label() in html
    result = TaskResult.objects.get(run=run, task__code="bfcl:parallel_1")
    response = browser.get(f"/bench/results/{result.pk}/")
    page = response.content.decode()
    assert response.status_code == 200, page[-3000:]
    assert "Accepted answers" in page and "bfcl-eval's checker accepts" in page
    assert "Model output" in page and result.task.request[:30] in page


def test_reviewers_start_a_bfcl_run_from_the_runs_page(client_as, reviewer, oracle_model):
    from django.urls import reverse

    form = {"benchmark": "bfcl", "model": oracle_model.pk, "seeds": "0 1", "concurrency": "4", "max_steps": "8"}
    page = client_as(reviewer).get(reverse("benchmarks:runs")).content.decode()
    assert 'name="categories"' in page and "simple_python" in page
    response = client_as(reviewer).post(
        reverse("benchmarks:run_start"), {**form, "categories": "parallel", "limit": "2"}
    )
    run = EvalRun.objects.get()
    assert response.status_code == 302 and run.benchmark == "bfcl" and run.episodes_planned == 4
    assert run.task_codes == ["bfcl:parallel_0", "bfcl:parallel_1"] and run.job.kind == "bench.evaluate"
    bad = client_as(reviewer).post(reverse("benchmarks:run_start"), {**form, "categories": "memory"}, follow=True)
    assert "unknown BFCL category &#x27;memory&#x27;" in bad.content.decode() and EvalRun.objects.count() == 1
    listing = client_as(reviewer).get(reverse("benchmarks:runs")).content.decode()
    assert bfcl.label() in listing


def test_multi_turn_runs_land_in_the_same_tables_and_pages(oracle_model, client_as, annotator):
    run = bfcl_run_create(
        model=oracle_model, categories=["multi_turn_base", "multi_turn_miss_func"], limit=2, seeds=[0, 1]
    )
    assert run.max_steps == bfcl.steps_per_turn() == 21 and run.episodes_planned == 8
    eval_run_execute(run=run)
    run.refresh_from_db()
    assert run.status == EvalRun.Status.FINISHED and run.score == 1.0
    assert sorted(run.summary["categories"]) == ["multi_turn_base", "multi_turn_miss_func"]
    assert run.board["categories"]["multi_turn_miss_func"]["value"] == 1.0
    result = TaskResult.objects.get(run=run, task__code="bfcl:multi_turn_miss_func_0", seed=0)
    assert result.success and result.stop_reason == "answer" and result.calls > 3
    assert len(result.transcript["result"]) == len(result.task.gold) == len(result.task.spec["turns"])
    # what was stored scores again to the same verdict
    entry = bfcl.Entry.from_spec(result.task.code[5:], result.task.categories[0], result.task.spec, result.task.gold)
    assert bfcl.score(entry, result.transcript["result"]).valid
    page = client_as(annotator).get(f"/bench/results/{result.pk}/").content.decode()
    assert "I have updated some more functions you can choose from" in page and "tool" in page
    board = client_as(annotator).get("/bench/leaderboard/", {"cols": "all"}).content.decode()
    assert "multi_turn_miss_func" in board


@pytest.mark.slow
def test_a_multi_turn_endpoint_run_goes_over_http_and_is_scored_by_bfcl_evals_checker(db):
    with StubServer(model_name="stub-9b") as server:
        model = model_entry_create(
            name="Stub 9B", backend=ModelEntry.Backend.OPENAI, base_url=server.url, served_name="stub-9b"
        )
        run = bfcl_run_create(model=model, categories=["multi_turn_base"], limit=3, concurrency=3)
        eval_run_execute(run=run)
    run.refresh_from_db()
    # The stand-in calls the first tool without arguments once, then only answers: the model was reached, and
    # bfcl-eval's checker fails every entry (a turn left without calls, or the wrong state).
    assert run.status == EvalRun.Status.FINISHED and run.summary["overall"]["success"]["value"] == 0.0
    turns = sum(len(row.spec["turns"]) for row in Task.objects.filter(code__in=run.task_codes))
    assert len(server.requests) >= turns
    assert all(body["tools"] and body["messages"][0]["role"] == "user" for body in server.requests)
    for result in TaskResult.objects.filter(run=run).select_related("task"):
        entry = bfcl.Entry.from_spec(
            result.task.code[5:], result.task.categories[0], result.task.spec, result.task.gold
        )
        verdict = bfcl.score(entry, result.transcript["result"])
        assert verdict.valid == result.success and verdict.error_type == result.scores["bfcl"]["error_type"]
        assert result.scores["bfcl"]["error_type"].startswith("multi_turn:")
