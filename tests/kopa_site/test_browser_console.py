"""The console in a real browser: sign in, read the counts, run a job and watch it finish, sign out."""

import pytest

from kopa_site.models import Job
from kopa_site.roles import REVIEWER
from tests.support.browser import log_in
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reviewer_signs_in_runs_diagnostics_and_signs_out(live_server, page):
    make_user("rita", REVIEWER)
    log_in(page, live_server.url, "rita", "pw-rita")

    assert page.title().startswith("Home")
    assert page.locator("header").get_by_text("rita").is_visible()
    assert page.get_by_role("link", name="Jobs").first.is_visible()

    page.get_by_role("link", name="Jobs").first.click()
    page.get_by_role("button", name="Site diagnostics").click()
    page.wait_for_url("**/jobs/*/")

    job = Job.objects.get()
    assert job.kind == "site.diagnostics" and job.created_by.username == "rita"
    page.get_by_text("succeeded").first.wait_for()
    assert "database" in page.content().lower()

    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/accounts/login/**")


def test_an_anonymous_visitor_is_sent_to_the_login_page(live_server, page):
    page.goto(f"{live_server.url}/jobs/")
    assert "/accounts/login/" in page.url
    assert page.locator("input[name=username]").is_visible()
