"""The trajectory list in a real browser: choosing a junction swaps the table in place (htmx) and keeps the filter
in the address, and a trajectory's calls open to show their arguments and bindings."""

import pytest
from django.urls import reverse

from datasets.models import Trajectory
from datasets.services import synthesis_run_create, synthesis_run_execute
from kopa_site.roles import ANNOTATOR
from tests.support.browser import log_in
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def kept(snapshot):
    """Synthesized before the browser starts: Playwright's event loop would refuse the executor's async_to_sync."""
    run = synthesis_run_create(params={"count": 4, "seed": 2, "min_length": 2, "max_length": 3}, snapshot=snapshot)
    synthesis_run_execute(run=run)
    return list(Trajectory.objects.filter(run=run).order_by("id"))


def test_filtering_by_junction_and_opening_a_trajectory(kept, live_server, page):
    junction = kept[0].junctions[0]
    make_user("anna", ANNOTATOR)
    log_in(page, live_server.url, "anna", "pw-anna")

    page.goto(f"{live_server.url}{reverse('datasets:trajectories')}")
    assert page.locator("#trajectory-table tbody tr").count() == len(kept)
    page.select_option("select[name=junction]", junction)
    page.wait_for_url(f"**junction={junction}*")
    matching = [t for t in kept if junction in t.junctions]
    page.wait_for_function(f"document.querySelectorAll('#trajectory-table tbody tr').length === {len(matching)}")

    page.click(f"#trajectory-table a[href='{reverse('datasets:trajectory', args=[matching[0].pk])}']")
    page.wait_for_url(f"**{reverse('datasets:trajectory', args=[matching[0].pk])}")
    details = page.locator("details.call").last
    details.locator("summary").click()
    assert "Argument" in details.inner_text() and "edge" in details.inner_text()
