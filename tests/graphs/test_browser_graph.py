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
