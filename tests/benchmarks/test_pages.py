"""KOPA-Bench pages: tasks with facets and suite figures, a task's gold graph, runs (start, report), an episode
beside its gold, and the leaderboard; each page renders in a pinned number of queries."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from benchmarks.models import EvalRun, ModelEntry, TaskResult
from benchmarks.services import model_entry_create
from kopa_site.models import Job

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def _figure(response, name: str) -> dict:
    html = response.content.decode()
    start = html.index(f'id="{name}"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


def test_the_task_list_filters_by_category_difficulty_and_domain(client_as, annotator, demo_tasks):
    browser = client_as(annotator)
    html = browser.get(reverse("benchmarks:index")).content.decode()
    assert "5 tasks" in html and "demo-apt-max-jongno" in html
    assert "Call-graph shapes" in html and "With a prerequisite lookup" in html
    assert "chain (2)" in html and "easy (3)" in html
    chain = browser.get(reverse("benchmarks:index"), {"category": "chain"}).content.decode()
    assert "2 tasks" in chain and "demo-holiday-oct" not in chain.split("tasks-heading")[1]
    medium = browser.get(reverse("benchmarks:index"), {"difficulty": "medium"}).content.decode()
    assert "2 tasks" in medium
    nothing = browser.get(reverse("benchmarks:index"), {"domain": "traffic"}).content.decode()
    assert "No task matches these filters" in nothing


def test_the_task_page_shows_the_gold_graph_and_answer(client_as, annotator, demo_tasks):
    html = client_as(annotator).get(reverse("benchmarks:task", args=["demo-apt-max-jongno"])).content.decode()
    assert "2 calls in 2 parallel groups, 4 requests with pages" in html
    assert "region_cd" in html and "slice:0:5" in html and "3 (all)" in html
    assert "259,280만원" in html and "numeric" in html


def test_an_empty_benchmark_says_what_to_do(client_as, annotator):
    html = client_as(annotator).get(reverse("benchmarks:index")).content.decode()
    assert "No benchmark tasks loaded yet" in html and "bench_load_tasks" in html
    assert "No finished runs yet" in client_as(annotator).get(reverse("benchmarks:leaderboard")).content.decode()


def test_the_run_page_shows_three_axes_pass_at_k_categories_and_episodes(client_as, annotator, oracle_run):
    response = client_as(annotator).get(reverse("benchmarks:run", args=[oracle_run.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    for label in ("Response", "Environment", "Action", "Success"):
        assert f"<h3>{label}</h3>" in html
    assert "100.0 %" in html and "95 % CI [" in html
    assert "pass@2" in html and "pass^k (all of k)" in html
    assert "pagination" in html and "parallel" in html  # category rows
    assert html.count('class="mark-yes">✓ yes') == 10 * 4  # every episode passes every axis
    failed = client_as(annotator).get(reverse("benchmarks:run", args=[oracle_run.pk]), {"success": "false"})
    assert "No episode matches" in failed.content.decode()


def test_an_episode_sits_beside_its_gold_with_links_to_its_api_calls(client_as, annotator, oracle_run):
    result = TaskResult.objects.get(run=oracle_run, task__code="demo-apt-max-jongno", seed=0)
    html = client_as(annotator).get(reverse("benchmarks:result", args=[result.pk])).content.decode()
    for api_call_id in result.api_call_ids:
        assert reverse("apis:call", args=[api_call_id]) in html
    assert "matches gold c2" in html and "✓ retrieved" in html and "by turn 2 (3 calls)" in html
    assert "현재 시각은 2026-11-18 14:20 (KST)" in html  # the system prompt the model read
    assert "Final answer" in html and "259,280만원" in html


def test_reviewers_start_runs_from_the_page_and_others_cannot(client_as, annotator, reviewer, demo_tasks, oracle_model):
    form = {"model": oracle_model.pk, "seeds": "0 1", "concurrency": "2", "max_steps": "4", "tool_mode": "sandbox"}
    assert client_as(annotator).post(reverse("benchmarks:run_start"), form).status_code == 403
    response = client_as(reviewer).post(reverse("benchmarks:run_start"), {**form, "tasks": "demo-holiday-oct"})
    run = EvalRun.objects.get()
    assert response.status_code == 302 and response.url == reverse("benchmarks:run", args=[run.pk])
    assert run.seeds == [0, 1] and run.task_codes == ["demo-holiday-oct"] and run.job.kind == "bench.evaluate"
    bad = client_as(reviewer).post(reverse("benchmarks:run_start"), {**form, "seeds": "0 zero"}, follow=True)
    assert "whole numbers; nothing was started" in bad.content.decode() and EvalRun.objects.count() == 1


def test_the_leaderboard_ranks_models_with_the_chart_and_the_same_numbers_in_a_table(
    client_as, annotator, oracle_run, executor_settings
):
    from benchmarks.engine.backends.scripted import ScriptedBackend, answer
    from benchmarks.services import eval_run_create, eval_run_execute

    guesser = model_entry_create(name="guesser", backend=ModelEntry.Backend.OPENAI, base_url="http://gpu:8000/v1")
    run = eval_run_create(model=guesser, seeds=[0, 1])
    eval_run_execute(run=run, backend=ScriptedBackend([answer("정답: 예")]))

    response = client_as(annotator).get(reverse("benchmarks:leaderboard"))
    html = response.content.decode()
    assert html.index('data-model="oracle"') < html.index('data-model="guesser"')
    figure = _figure(response, "fig-scores")
    points = dict(zip(figure["data"][0]["y"], figure["data"][0]["x"], strict=True))
    urls = dict(zip(figure["data"][0]["y"], figure["data"][0]["customdata"], strict=True))
    assert points["oracle"] == 100.0 and urls["oracle"] == reverse("benchmarks:run", args=[oracle_run.pk])
    # It answers 예 to everything without a call: right on the 제헌절 task (response 2 of 10 episodes), but it
    # retrieved nothing, so no episode succeeds.
    assert points["guesser"] == 0.0
    assert "<figure" in html and "<figcaption" in html and 'src="/static/vendor/plotly.min.js"' in html
    assert '<a href="/bench/leaderboard/" aria-current="page">Leaderboard</a>' in html  # the top navigation
    assert "pass@4" in html and '<th scope="col">calendar</th>' not in html  # compact: categories on demand
    full = client_as(annotator).get(reverse("benchmarks:leaderboard"), {"cols": "all"}).content.decode()
    assert "pass^2" in full and '<th scope="col">calendar</th>' in full and oracle_run.git_commit[:12] in full


@pytest.mark.parametrize(
    "name, queries",
    # session, user and role (3), then the page's own: no query per row
    [("index", 8), ("leaderboard", 6), ("runs", 5), ("run", 7), ("result", 5), ("task", 5), ("models", 4)],
)
def test_pages_render_in_a_fixed_number_of_queries(
    client_as, annotator, oracle_run, django_assert_num_queries, name, queries
):
    result = TaskResult.objects.filter(run=oracle_run).first()
    urls = {
        "index": reverse("benchmarks:index"),
        "leaderboard": reverse("benchmarks:leaderboard"),
        "runs": reverse("benchmarks:runs"),
        "run": reverse("benchmarks:run", args=[oracle_run.pk]),
        "result": reverse("benchmarks:result", args=[result.pk]),
        "task": reverse("benchmarks:task", args=["demo-apt-max-jongno"]),
        "models": reverse("benchmarks:models"),
    }
    browser = client_as(annotator)
    browser.get(urls[name])  # warm the session and the caches of the first request
    with django_assert_num_queries(queries):
        assert browser.get(urls[name]).status_code == 200


def test_pages_need_a_role(client_as, outsider, client, oracle_run):
    assert client_as(outsider).get(reverse("benchmarks:leaderboard")).status_code == 403
    assert client_as(outsider).get(reverse("benchmarks:run", args=[oracle_run.pk])).status_code == 403
    assert client.get(reverse("benchmarks:index")).status_code == 302
    assert Job.objects.count() == 0


def test_reviewers_resume_a_stopped_run_from_its_page(client_as, annotator, reviewer, demo_tasks, oracle_model):
    from benchmarks.services import eval_run_create

    run = eval_run_create(model=oracle_model, task_codes=["demo-holiday-oct"])
    EvalRun.objects.filter(pk=run.pk).update(status=EvalRun.Status.STOPPED, error="JobCancelled: cancel requested")
    page = client_as(reviewer).get(reverse("benchmarks:run", args=[run.pk])).content.decode()
    assert "Resume</button>" in page and "JobCancelled: cancel requested" in page
    assert "Resume</button>" not in client_as(annotator).get(reverse("benchmarks:run", args=[run.pk])).content.decode()
    assert client_as(annotator).post(reverse("benchmarks:run_resume", args=[run.pk])).status_code == 403
    response = client_as(reviewer).post(reverse("benchmarks:run_resume", args=[run.pk]), follow=True)
    assert "continues as job" in response.content.decode()
    assert Job.objects.get().kind == "bench.evaluate"


def test_the_admin_resumes_the_stopped_runs_and_reports_the_others(client_as, admin, oracle_run, oracle_model):
    from benchmarks.services import eval_run_create

    stopped = eval_run_create(model=oracle_model, task_codes=["demo-holiday-oct"])
    EvalRun.objects.filter(pk=stopped.pk).update(status=EvalRun.Status.STOPPED)
    response = client_as(admin).post(
        reverse("admin:benchmarks_evalrun_changelist"),
        {"action": "resume_runs", "_selected_action": [oracle_run.pk, stopped.pk]},
        follow=True,
    )

    job = Job.objects.get()
    sent = [str(message) for message in response.context["messages"]]
    assert f"Resumed: run #{stopped.pk} as job #{job.pk}." in sent
    assert any(m.startswith(f"Not resumed: #{oracle_run.pk}: ") and "has finished" in m for m in sent), sent


def test_the_admin_lists_and_opens_every_benchmark_model(client_as, admin, oracle_run):
    browser = client_as(admin)
    result = TaskResult.objects.filter(run=oracle_run).first()
    for name, pk in (
        ("task", result.task_id),
        ("modelentry", oracle_run.model_id),
        ("evalrun", oracle_run.pk),
        ("taskresult", result.pk),
    ):
        assert browser.get(reverse(f"admin:benchmarks_{name}_changelist")).status_code == 200
        assert browser.get(reverse(f"admin:benchmarks_{name}_change", args=[pk])).status_code == 200


def test_the_admin_refuses_a_model_without_its_endpoint(client_as, admin, db):
    form = {
        "name": "no-endpoint",
        "backend": "openai",
        "call_mode": "fc",
        "tool_call_parser": "hermes",
        "extra_body": "{}",
    }
    refused = client_as(admin).post(reverse("admin:benchmarks_modelentry_add"), form)
    assert refused.status_code == 200 and "needs a base_url" in refused.content.decode()
    added = client_as(admin).post(
        reverse("admin:benchmarks_modelentry_add"), {**form, "base_url": "http://gpu:8000/v1"}
    )
    assert added.status_code == 302
    assert ModelEntry.objects.get(name="no-endpoint").created_by == admin
