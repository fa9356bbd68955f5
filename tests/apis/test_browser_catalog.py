"""The catalog in a real browser: an annotator searches a tool, opens it, tries it in sandbox mode, sees records.

The site serves its own sandbox (/sandbox/…), so the try-it call goes browser → site → executor → site's
sandbox over real sockets.
"""

import pytest

from apis.models import ApiCall
from apis.sandbox.registry import load_families
from apis.services import catalog_import_bundled
from kopa_site.roles import ANNOTATOR
from tests.apis.conftest import APT_TRADE
from tests.support.browser import log_in
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_an_annotator_finds_a_tool_and_tries_it_in_the_sandbox(live_server, page, settings):
    settings.KOPA_SANDBOX_ORIGIN = live_server.url
    # The live server runs in this process: load the sandbox's families now, not during the timed click.
    load_families()
    catalog_import_bundled()
    make_user("anna", ANNOTATOR)
    log_in(page, live_server.url, "anna", "pw-anna")

    page.get_by_role("link", name="Catalog").first.click()
    page.wait_for_url("**/catalog/")
    page.keyboard.press("/")  # the search shortcut
    page.keyboard.type("아파트 매매")
    page.keyboard.press("Enter")
    page.wait_for_url("**/catalog/?q=*")
    page.get_by_role("link", name="아파트 매매 실거래가 자료 조회").click()

    page.wait_for_url("**/catalog/tools/*/")
    assert APT_TRADE in page.locator("h1").inner_text()
    assert page.locator("#id_param__LAWD_CD").get_attribute("placeholder") == "11680"
    page.get_by_role("button", name="Fill examples").click()
    assert page.locator("#id_param__LAWD_CD").input_value() == "11680"
    page.locator("#id_param__DEAL_YMD").fill("202407")
    page.select_option("#id_mode", "sandbox")
    page.evaluate("window.beforeRun = true")
    page.get_by_role("button", name="Run").click()

    summary = page.locator("[data-record-count]")
    summary.wait_for(timeout=30_000)
    assert int(summary.get_attribute("data-record-count")) > 0
    assert page.locator("#try-result table th", has_text="aptNm").is_visible()
    assert "<resultCode>000</resultCode>" in page.locator("#try-result pre.json").inner_text()
    assert page.evaluate("window.beforeRun") is True  # htmx swapped the result in; the page did not reload
    call = ApiCall.objects.get()
    assert (call.mode, call.ok, call.source_kind, call.created_by.username) == ("sandbox", True, "page", "anna")
