"""The training pages in a real browser: a reviewer starts a run on a frozen dataset version from the form (refused
first, with the reason, for a base-model folder that is not a checkpoint), and the run page draws its curves with the local plotly.js,
each beside a table of the same numbers."""

import pytest
from django.urls import reverse

from kopa_site.roles import REVIEWER
from tests.support.browser import log_in
from tests.support.users import make_user
from tests.support.versions import freeze_lines
from training.engine.synthetic import holiday_lines
from training.models import TrainingMetric, TrainingRun

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def version(sandbox_server_url):
    """Frozen before the browser opens: Playwright runs an event loop in this thread while it is open."""
    return freeze_lines(holiday_lines(sandbox_server_url, [(2026, 5)], templates=("none",)), name="holidays-may")


def test_a_reviewer_starts_a_run_and_reads_its_curves(version, live_server, page, settings, tmp_path, monkeypatch):
    settings.VAR_DIR = tmp_path / "var"
    monkeypatch.setattr("training.views.training_run_start", _queue_only)  # the sync queue would train right away
    make_user("rita", REVIEWER)
    log_in(page, live_server.url, "rita", "pw-rita")

    page.goto(f"{live_server.url}{reverse('training:index')}")
    form = page.locator("#training-start")
    form.get_by_label("Preset").select_option("qwen-4b-lora")
    form.get_by_label("Dataset version", exact=False).select_option(str(version.pk))
    form.get_by_label("Base model", exact=False).fill(str(tmp_path))
    form.get_by_role("button", name="Start training").click()
    assert "has no config.json" in page.locator("body").inner_text()
    assert not TrainingRun.objects.exists()

    form = page.locator("#training-start")
    form.get_by_label("Preset").select_option("tiny-cpu")
    form.get_by_label("Base model", exact=False).fill("")
    form.get_by_label("Overrides", exact=False).fill('{"grpo.steps": 2}')
    form.get_by_role("button", name="Start training").click()
    run = TrainingRun.objects.get()
    page.wait_for_url(f"**{reverse('training:run', args=[run.pk])}")
    assert run.total_steps == 2 and "queued as job" in page.locator("body").inner_text()
    assert run.dataset_version == version and "holidays-may" in page.locator("body").inner_text()

    for step in (1, 2):
        values = {"loss": 0.5 / step, "reward": step / 4, "rewards/format/mean": step / 2, "kl": 0.001 * step}
        TrainingMetric.objects.create(
            run=run, phase="grpo", step=step, values={"phase": "grpo", "step": step, **values}
        )
    page.reload()
    page.wait_for_selector("#grpo-rewards-chart[data-drawn=true]")
    page.wait_for_selector("#grpo-loss-chart[data-drawn=true]")
    assert page.locator("#grpo-rewards-chart .scatterlayer .trace").count() == 2
    table = page.locator("table[data-chart=grpo-rewards]")
    table.locator("xpath=ancestor::details").locator("summary").click()
    assert table.locator("tbody tr").nth(1).inner_text().split() == ["2", "0.5000", "1.0000"]


def _queue_only(*, run, user=None):
    """Create the job without running it (as a real queue would, later)."""
    from kopa_site.jobs import get_kind
    from kopa_site.models import Job

    kind = get_kind("training.run")
    job = Job.objects.create(kind=kind.name, params={"run_id": run.pk}, cluster=kind.cluster, created_by=user)
    TrainingRun.objects.filter(pk=run.pk).update(job=job)
    return job
