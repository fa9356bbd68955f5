"""The graph page in a real browser: plotly draws the network from the locally served plotly.js, and clicking
an edge opens its trials, clicking a tool its edges."""

import pytest
from django.urls import reverse

from kopa_site.roles import ANNOTATOR
from tests.support.browser import log_in
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def click_point(page, trace_index: int, point_index: int = 0) -> None:
    """Click a marker where plotly drew it (plotly listens on its drag layer, not on the marker itself)."""
    point = page.locator(".scatterlayer .trace").nth(trace_index).locator("path.point").nth(point_index)
    box = point.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_clicking_an_edge_opens_its_trials_and_a_tool_its_edges(live_server, page, graph_data):
    make_user("anna", ANNOTATOR)
    log_in(page, live_server.url, "anna", "pw-anna")

    page.goto(f"{live_server.url}{reverse('graphs:index')}?status=verified")
    page.wait_for_selector("#network[data-drawn=true]")
    traces = page.locator(".scatterlayer .trace")
    assert traces.count() == 3  # the verified edges' lines, their diamonds, the tools

    click_point(page, 1)
    page.wait_for_url(f"**{reverse('graphs:edge', args=[graph_data.verified.pk])}")
    assert "slice:0:5" in page.locator("main").inner_text()
    page.wait_for_selector("[data-figure=posterior-data][data-drawn=true]")

    page.go_back()
    page.wait_for_selector("#network[data-drawn=true]")
    click_point(page, 2)
    page.wait_for_url("**/graph/edges/?tool=*")
    assert "get_stan_regin_cd_list.region_cd" in page.locator("#edge-table").inner_text()


def test_a_running_run_page_updates_by_itself_and_offers_resume_once_its_job_stopped(live_server, page, graph_data):
    from graphs.models import VerificationRun
    from kopa_site.models import Job
    from kopa_site.roles import REVIEWER

    run = graph_data.run
    job = Job.objects.create(kind="edge.verify", params={"run_id": run.pk}, status="running")
    VerificationRun.objects.filter(pk=run.pk).update(status="running", job=job, finished_at=None, state={"round": 1})
    make_user("rita", REVIEWER)
    log_in(page, live_server.url, "rita", "pw-rita")

    page.goto(f"{live_server.url}{reverse('graphs:run', args=[run.pk])}")
    live = page.locator("#run-live")
    assert "1 of at most" in live.inner_text() and page.locator("text=Resume").count() == 0
    # The job moves on and then dies: without a reload the page shows the new round, then offers Resume.
    VerificationRun.objects.filter(pk=run.pk).update(state={"round": 3})
    page.wait_for_function("document.querySelector('#run-live').innerText.includes('3 of at most')", timeout=10_000)
    Job.objects.filter(pk=job.pk).update(status="failed")
    VerificationRun.objects.filter(pk=run.pk).update(status="stopped")
    page.wait_for_selector("#run-live button:has-text('Resume')", timeout=10_000)
    assert page.locator("#run-live").get_attribute("hx-trigger") is None
