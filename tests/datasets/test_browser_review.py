"""The review console in a real browser (Debian's chromium): an annotator works the queue with the keyboard only
(edits, re-executes a call, approves, goes back, undoes, approves again); a second annotator disagrees; a reviewer
adjudicates, freezes the approved items as a version and exports it. Screenshots are kept under
var/artifacts/review-console/ for people to look at."""

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.urls import reverse

from datasets import review
from datasets.models import DatasetVersion, Trajectory
from datasets.services import synthesis_run_create, synthesis_run_execute
from kopa_site.roles import ADMIN, ANNOTATOR, REVIEWER
from tests.support.browser import log_in
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(django_settings.VAR_DIR) / "artifacts" / "review-console"


@pytest.fixture
def kept(snapshot):
    """Synthesized before the browser starts: Playwright's event loop would refuse the executor's async_to_sync."""
    run = synthesis_run_create(params={"count": 3, "seed": 4, "min_length": 2, "max_length": 3}, snapshot=snapshot)
    synthesis_run_execute(run=run)
    pending = list(Trajectory.objects.filter(run=run, status=Trajectory.Status.PENDING_REVIEW).order_by("id"))
    assert len(pending) >= 2
    return pending


def _shot(page, name: str, *, full_page: bool = True) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)


def _item_url(base: str, pk: int) -> str:
    return f"{base}{reverse('datasets:review_item', args=[pk])}"


def _press_and_wait(page, key: str) -> None:
    with page.expect_navigation():
        page.keyboard.press(key)


def test_the_review_console_end_to_end(kept, live_server, page, chromium, settings, tmp_path):
    settings.VAR_DIR = tmp_path  # the export folder; screenshots go to the real var/ (ARTIFACTS)
    review.review_policy_update(user=make_user("boss", ADMIN), overlap=2)
    make_user("anna", ANNOTATOR)
    make_user("otto", ANNOTATOR)
    make_user("rita", REVIEWER)
    first, second = kept[0], kept[1]
    base = live_server.url

    # Anna: keyboard only from the queue on.
    log_in(page, base, "anna", "pw-anna")
    page.goto(f"{base}{reverse('datasets:review')}")
    _press_and_wait(page, "j")
    assert page.url.startswith(_item_url(base, first.pk))
    assert "You hold this item" in page.inner_text("#lease")

    page.keyboard.press("?")
    assert page.locator("#help-dialog").is_visible()
    _shot(page, "01-help-overlay")
    page.keyboard.press("Escape")
    assert not page.locator("#help-dialog").is_visible()

    page.keyboard.press("e")
    assert page.evaluate("document.activeElement.id") == "edit-request"
    page.keyboard.press("Control+End")
    page.keyboard.type(" 부탁합니다")
    _press_and_wait(page, "Control+Enter")
    assert "Saved as version 2" in page.inner_text(".messages")
    assert page.inner_text("#request-text").rstrip().endswith("부탁합니다")

    page.keyboard.press("x")
    assert page.evaluate("document.activeElement.name") == "arguments"
    _press_and_wait(page, "Control+Enter")
    assert "re-executed" in page.inner_text("#diff-title")
    _shot(page, "02-re-executed-diff")
    _shot(page, "02-first-screenful", full_page=False)

    _press_and_wait(page, "a")
    assert page.url.startswith(_item_url(base, second.pk))
    _press_and_wait(page, "k")  # back to the item just approved
    assert page.url.startswith(_item_url(base, first.pk)) and "You decided" in page.inner_text("#lease")
    _press_and_wait(page, "u")
    assert "undone" in page.inner_text(".messages")
    _press_and_wait(page, "a")
    assert page.url.startswith(_item_url(base, second.pk))
    first.refresh_from_db()
    assert first.version == 3 and first.decision_count == 1

    # Otto disagrees, from a phone-sized screen, keyboard only.
    phone = chromium.new_context(viewport={"width": 390, "height": 844}, locale="ko-KR")
    otto = phone.new_page()
    otto.set_default_timeout(15_000)
    log_in(otto, base, "otto", "pw-otto")
    otto.goto(f"{base}{reverse('datasets:review')}")
    _press_and_wait(otto, "j")
    assert otto.url.startswith(_item_url(base, first.pk))
    assert otto.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    _shot(otto, "03-phone-review-screen")
    _shot(otto, "03-phone-first-screenful", full_page=False)
    otto.keyboard.press("r")
    assert otto.locator("#reject-dialog").is_visible()
    otto.keyboard.press("3")
    assert otto.locator("input[value=wrong_binding]").is_checked()
    _shot(otto, "04-reject-reasons")
    _press_and_wait(otto, "Enter")
    first.refresh_from_db()
    assert first.status == Trajectory.Status.DISPUTED
    phone.close()

    # Rita adjudicates, freezes and exports.
    desk = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    rita = desk.new_page()
    rita.set_default_timeout(15_000)
    log_in(rita, base, "rita", "pw-rita")
    rita.goto(_item_url(base, first.pk))
    assert "disagreed" in rita.inner_text("#lease")
    _shot(rita, "05-adjudicate")
    _press_and_wait(rita, "a")
    assert "adjudicated" in rita.inner_text(".messages")
    first.refresh_from_db()
    assert first.status == Trajectory.Status.APPROVED
    decisions = first.decisions.order_by("id").values_list("kind", "decision", "retracted_at")
    assert [(kind, decision, retracted is not None) for kind, decision, retracted in decisions] == [
        ("annotation", "approve", True),  # undone by anna
        ("annotation", "approve", False),
        ("annotation", "reject", False),
        ("adjudication", "approve", False),
    ]

    rita.goto(f"{base}{reverse('datasets:versions')}?status=approved")
    assert rita.inner_text("#approved-count") == "1"
    rita.fill("#version-name", "browser-v1")
    with rita.expect_navigation():
        rita.click("#freeze")
    version = DatasetVersion.objects.get(name="browser-v1")
    assert rita.url.endswith(reverse("datasets:version", args=[version.pk]))
    with rita.expect_navigation():
        rita.click("#export")
    version.refresh_from_db()
    assert version.export_path and "browser-v1" in rita.inner_text("#export-state")
    assert (Path(version.export_path) / "openai").is_dir()
    download = rita.request.get(f"{base}{reverse('datasets:version_download', args=[version.pk])}")
    assert download.ok and len(download.text().splitlines()) == 1
    _shot(rita, "06-frozen-version")

    rita.goto(f"{base}{reverse('datasets:dashboard')}")
    rita.wait_for_selector("[data-figure='status-data'][data-drawn='true']")
    assert "1 item decided by two or more annotators" in rita.inner_text("#agreement")
    _shot(rita, "07-dashboard")
    desk.close()
