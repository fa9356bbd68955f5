"""The trajectory pages: the overview with its start form, runs with discards and diversity, the read-only list
(filters, htmx) and a trajectory with its steps, calls, bindings, filters and provenance."""

from __future__ import annotations

import pytest
from django.urls import reverse

from datasets.models import SynthesisRun, Trajectory
from datasets.services import synthesis_run_create, synthesis_run_execute

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def synthesized(snapshot):
    run = synthesis_run_create(
        params={"count": 3, "seed": 5, "max_length": 3, "strategy": "coverage"}, snapshot=snapshot
    )
    synthesis_run_execute(run=run)
    return SynthesisRun.objects.get(pk=run.pk)


def test_pages_need_a_role(client_as, outsider, client, db):
    assert client_as(outsider).get(reverse("datasets:trajectories")).status_code == 403
    assert client.get(reverse("datasets:index")).status_code == 302


def test_an_empty_overview_says_what_to_do(client_as, annotator, reviewer, db):
    assert "No trajectories to review yet" in client_as(annotator).get(reverse("datasets:index")).content.decode()
    assert "No graph snapshot yet" in client_as(reviewer).get(reverse("datasets:index")).content.decode()


def test_the_overview_counts_and_lists_runs_and_trajectories(client_as, annotator, synthesized):
    html = client_as(annotator).get(reverse("datasets:index")).content.decode()
    assert reverse("datasets:run", args=[synthesized.pk]) in html
    trajectory = Trajectory.objects.filter(run=synthesized).first()
    assert reverse("datasets:trajectory", args=[trajectory.pk]) in html
    assert "Start a synthesis run" not in html  # annotators cannot start runs


def test_reviewers_start_runs_from_the_overview(client_as, annotator, reviewer, snapshot):
    form = {
        "count": "2",
        "max_length": "3",
        "strategy": "random",
        "junctions": ["SEQ", "FAN"],
        "snapshot": str(snapshot.pk),
    }
    assert client_as(annotator).post(reverse("datasets:run_start"), form).status_code == 403
    response = client_as(reviewer).post(reverse("datasets:run_start"), form)
    run = SynthesisRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("datasets:run", args=[run.pk])
    assert run.params["count"] == 2 and run.params["junctions"] == ["SEQ", "FAN"] and run.job.kind == "edge.synthesize"
    bad = client_as(reviewer).post(reverse("datasets:run_start"), {"count": "lots"}, follow=True)
    assert "count must be a whole number" in bad.content.decode()
    refused = client_as(reviewer).post(
        reverse("datasets:run_start"), {"min_length": "5", "max_length": "2"}, follow=True
    )
    assert "min_length must not exceed max_length" in refused.content.decode()
    assert SynthesisRun.objects.count() == 1


def test_a_run_page_shows_outcomes_discards_and_diversity(client_as, annotator, synthesized):
    browser = client_as(annotator)
    html = browser.get(reverse("datasets:run", args=[synthesized.pk])).content.decode()
    assert "Discarded walks, by reason" in html and "Diversity of the kept trajectories" in html
    for reason in synthesized.counters["discarded"]:
        assert reason in html
    assert "Junction types" in html and "hx-trigger" not in html  # finished: no polling
    partial = browser.get(reverse("datasets:run", args=[synthesized.pk]), HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and 'id="run-live"' in partial
    assert f"#{synthesized.pk}" in browser.get(reverse("datasets:runs")).content.decode()


def test_the_list_filters_and_swaps_its_table_with_htmx(client_as, annotator, synthesized):
    browser = client_as(annotator)
    trajectory = Trajectory.objects.filter(run=synthesized).order_by("id").first()
    link = reverse("datasets:trajectory", args=[trajectory.pk])
    assert link in browser.get(reverse("datasets:trajectories")).content.decode()
    assert link not in browser.get(reverse("datasets:trajectories"), {"status": "approved"}).content.decode()
    partial = browser.get(
        reverse("datasets:trajectories"), {"tool": trajectory.tool_names[0]}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "<html" not in partial and link in partial


def test_a_trajectory_page_shows_the_chain_with_its_values_and_provenance(client_as, annotator, synthesized):
    trajectory = Trajectory.objects.filter(run=synthesized, status="pending_review").order_by("-length").first()
    html = client_as(annotator).get(reverse("datasets:trajectory", args=[trajectory.pk])).content.decode()
    assert trajectory.request.replace("'", "&#x27;") in html
    for call in trajectory.calls.all():
        assert reverse("apis:call", args=[call.api_call_id]) in html
    for edge in trajectory.edges.all():
        assert reverse("graphs:edge", args=[edge.pk]) in html
    assert "Quality filters" in html and "passed" in html and trajectory.template_id in html
    assert reverse("trajectory-messages", args=[trajectory.pk]) in html


def test_the_naturalness_stage_shows_on_the_page_with_its_reasons_and_filters_the_list(
    client_as, annotator, synthesized
):
    trajectory = Trajectory.objects.filter(run=synthesized).order_by("id").first()
    filters = dict(trajectory.filters)
    filters["natural"] = {
        "passed": False,
        "problems": ["procedure: the request narrates the calls ('조회해서')"],
        "by": "rules",
    }
    Trajectory.objects.filter(pk=trajectory.pk).update(filters=filters, failed_stage="natural", status="filtered")
    browser = client_as(annotator)
    html = browser.get(reverse("datasets:trajectory", args=[trajectory.pk])).content.decode()
    assert '<th scope="row">natural</th>' in html and "the request narrates the calls" in html
    link = reverse("datasets:trajectory", args=[trajectory.pk])
    listed = browser.get(reverse("datasets:trajectories"), {"natural_problem": "procedure"}).content.decode()
    assert link in listed and 'value="procedure" selected' in listed
    assert link not in browser.get(reverse("datasets:trajectories"), {"natural_problem": "raw_code"}).content.decode()
    assert link in browser.get(reverse("datasets:trajectories"), {"failed_stage": "natural"}).content.decode()


def test_pages_use_a_fixed_number_of_queries(client_as, annotator, synthesized, django_assert_max_num_queries):
    browser = client_as(annotator)
    trajectory = Trajectory.objects.filter(run=synthesized).first()
    for url, most in (
        (reverse("datasets:index"), 14),
        (reverse("datasets:trajectories"), 10),
        (reverse("datasets:runs"), 10),
        (reverse("datasets:run", args=[synthesized.pk]), 10),
        (reverse("datasets:trajectory", args=[trajectory.pk]), 14),
    ):
        with django_assert_max_num_queries(most):
            assert browser.get(url).status_code == 200


def test_a_run_on_a_snapshot_that_does_not_exist_is_refused(client_as, reviewer):
    from django.contrib.messages import get_messages

    response = client_as(reviewer).post(reverse("datasets:run_start"), {"count": "2", "snapshot": "999"})
    assert response.status_code == 302 and response.url == reverse("datasets:index")
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "That graph snapshot does not exist; nothing was started."
    ]
    assert not SynthesisRun.objects.exists()
