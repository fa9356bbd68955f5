"""The leaderboard and a run's drill-down in a real browser: plotly draws the chart from the locally served
plotly.js, a click on a model's point opens its run, and an episode opens beside its gold trajectory with a
link to each API call it made."""

import threading

import pytest
from django.urls import reverse

from benchmarks.models import TaskResult
from kopa_site.roles import ANNOTATOR
from tests.support.browser import log_in
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def click_point(page, trace_index: int) -> None:
    """Click a marker where plotly drew it (plotly listens on its drag layer, not on the marker itself)."""
    point = page.locator(".scatterlayer .trace").nth(trace_index).locator("path.point").first
    box = point.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_the_leaderboard_chart_opens_a_run_and_the_run_drills_down_to_api_calls(oracle_run, live_server, page):
    make_user("anna", ANNOTATOR)
    log_in(page, live_server.url, "anna", "pw-anna")

    page.goto(f"{live_server.url}{reverse('benchmarks:leaderboard')}")
    page.wait_for_selector("#chart-scores[data-drawn=true]")
    row = page.locator("#leaderboard-table tbody tr").first
    assert row.get_attribute("data-model") == "oracle" and "100.0 %" in row.inner_text()
    assert page.locator("figure figcaption").first.is_visible()

    click_point(page, 0)
    page.wait_for_url(f"**{reverse('benchmarks:run', args=[oracle_run.pk])}")
    assert page.locator("[data-axis=success] .value").inner_text() == "100.0 %"
    assert page.get_by_role("heading", name="By category").is_visible()

    page.get_by_role("combobox", name="Category").select_option("pagination")
    page.get_by_role("button", name="Filter").last.click()
    page.wait_for_url("**category=pagination**")
    links = page.locator("#results tbody a")
    assert links.count() == 2  # the paginated task, two seeds
    links.first.click()

    result = TaskResult.objects.get(run=oracle_run, task__code="demo-apt-max-jongno", seed=0)
    page.wait_for_url(f"**{reverse('benchmarks:result', args=[result.pk])}")
    gold = page.locator("#gold")
    assert gold.get_by_text("✓ retrieved").count() == 1 and "by turn 2 (3 calls)" in gold.inner_text()
    calls = page.locator("#transcript .call")
    assert calls.count() == 4
    observation = calls.nth(1).locator("details")
    observation.locator("summary").click()
    assert '"total_count": 57' in observation.locator("pre").inner_text()

    calls.nth(1).get_by_role("link", name=f"API call #{result.api_call_ids[1]}").click()
    page.wait_for_url(f"**{reverse('apis:call', args=[result.api_call_ids[1]])}")
    assert f"bench_step #{result.pk}/1" in page.locator("main").inner_text()


def test_a_phone_filters_the_board_opens_a_row_and_drills_down_to_a_transcript(
    oracle_run, live_server, page, executor_settings
):
    from benchmarks.engine.backends.scripted import ScriptedBackend, answer
    from benchmarks.services import eval_run_create, eval_run_execute, model_entry_create

    guesser = model_entry_create(name="guesser", backend="openai", base_url="http://gpu:8000/v1", family="G")
    run = eval_run_create(model=guesser, seeds=[0])
    # Playwright's event loop owns this thread; the run drives its own loop in another one.
    worker = threading.Thread(target=eval_run_execute, kwargs={"run": run, "backend": ScriptedBackend([answer("예")])})
    worker.start()
    worker.join()
    make_user("anna", ANNOTATOR)
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, live_server.url, "anna", "pw-anna")
    page.goto(f"{live_server.url}{reverse('benchmarks:leaderboard')}")
    page.wait_for_selector("#chart-scores[data-drawn=true]")
    rows = page.locator("#leaderboard-table tbody tr")
    assert [rows.nth(i).get_attribute("data-model") for i in range(rows.count())] == ["oracle", "guesser"]
    # readable at 390 px: the page itself never scrolls sideways (a wide table scrolls inside its box)
    wide = page.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391)"
        ".map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right))"
        ".slice(0, 12)"
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, wide

    page.get_by_role("combobox", name="Backend").select_option("oracle")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url("**backend=oracle**")
    assert page.locator("#leaderboard-table tbody tr").count() == 1
    page.locator("#leaderboard-table tbody tr").first.get_by_role("link", name="oracle").click()
    page.wait_for_url(f"**{reverse('benchmarks:run', args=[oracle_run.pk])}")
    page.locator("#results tbody a").first.click()
    page.wait_for_url("**/bench/results/**")
    assert page.locator("#transcript .step").count() >= 2 and page.locator("#gold").is_visible()
