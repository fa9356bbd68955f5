"""The jobs pages: list with filters, live detail, cancel and start buttons."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from kopa_site.jobs import job_start
from kopa_site.models import Job
from tests.support.users import make_role_users

pytestmark = pytest.mark.django_db


@pytest.fixture
def users():
    return make_role_users()


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_it_sends_anonymous_visitors_to_the_login_page():
    response = Client().get(reverse("jobs:list"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_refuses_users_without_a_role(users):
    assert client_for(users.outsider).get(reverse("jobs:list")).status_code == 403


@pytest.mark.smoke
def test_it_lists_jobs_with_status_progress_and_owner(users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job_start(kind="test.fail", user=users.annotator)
    job_start(kind="test.steps", user=users.reviewer)

    response = client_for(users.annotator).get(reverse("jobs:list"))

    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="badge status-failed"' in html
    assert 'class="badge status-pending"' in html
    assert "RuntimeError: boom" in html
    assert "rita" in html
    assert '<progress class="progress" value="50" max="100">' in html


def test_it_filters_the_list_by_kind_and_status(users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        failed = job_start(kind="test.fail", user=users.annotator)
    pending = job_start(kind="test.steps", user=users.annotator)
    client = client_for(users.annotator)

    by_status = client.get(reverse("jobs:list"), {"status": "failed"})
    by_kind = client.get(reverse("jobs:list"), {"kind": "test.steps"})

    assert list(by_status.context["page"].object_list) == [failed]
    assert list(by_kind.context["page"].object_list) == [pending]
    assert 'value="failed" checked' in by_status.content.decode()


def test_it_renders_the_list_in_a_fixed_number_of_queries(users, django_assert_num_queries):
    for user in (users.annotator, users.reviewer, users.admin, None):
        job_start(kind="test.steps", user=user)
    client = client_for(users.reviewer)

    # session, user, role; count, the kinds seen, the page (owners joined in)
    with django_assert_num_queries(6):
        response = client.get(reverse("jobs:list"))
    assert len(response.context["page"].object_list) == 4


def test_it_shows_a_failed_jobs_error_traceback_and_log(users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = job_start(kind="test.fail", user=users.annotator, params={"message": "no <script> here"})

    html = client_for(users.annotator).get(reverse("jobs:detail", args=[job.pk])).content.decode()

    assert "RuntimeError: no &lt;script&gt; here" in html
    assert "Traceback (most recent call last)" in html
    assert "about to fail" in html
    assert 'hx-trigger="every 2s"' not in html
    assert "Cancel job" not in html


def test_it_polls_a_running_job_and_offers_cancel_to_its_owner(users):
    job = job_start(kind="test.steps", user=users.annotator)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, progress_done=1, progress_total=4)

    owner_html = client_for(users.annotator).get(reverse("jobs:detail", args=[job.pk])).content.decode()
    other_html = client_for(users.other_annotator).get(reverse("jobs:detail", args=[job.pk])).content.decode()

    assert f'hx-get="{reverse("jobs:live", args=[job.pk])}" hx-trigger="every 2s"' in owner_html
    assert '<progress class="progress" value="25" max="100">' in owner_html
    assert "Cancel job" in owner_html
    assert "Cancel job" not in other_html


def test_it_serves_the_live_partial_without_the_page_around_it(users):
    job = job_start(kind="test.steps", user=users.annotator)

    response = client_for(users.annotator).get(reverse("jobs:live", args=[job.pk]))

    html = response.content.decode()
    assert html.lstrip().startswith("<section")
    assert "<html" not in html
    assert 'id="job-live"' in html


def test_it_cancels_from_the_page_and_redirects_back(users):
    job = job_start(kind="test.steps", user=users.annotator)

    response = client_for(users.annotator).post(reverse("jobs:cancel", args=[job.pk]))

    assert response.status_code == 302
    assert response["Location"] == reverse("jobs:detail", args=[job.pk])
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED


def test_it_answers_an_htmx_cancel_with_the_partial(users):
    job = job_start(kind="test.steps", user=users.annotator)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING)

    response = client_for(users.reviewer).post(reverse("jobs:cancel", args=[job.pk]), headers={"HX-Request": "true"})

    html = response.content.decode()
    assert response.status_code == 200
    assert "was asked to stop" in html
    assert "Stopping…" in html


def test_it_refuses_a_cancel_by_another_annotator(users):
    job = job_start(kind="test.steps", user=users.annotator)

    response = client_for(users.other_annotator).post(reverse("jobs:cancel", args=[job.pk]))

    assert response.status_code == 403
    job.refresh_from_db()
    assert job.status == Job.Status.PENDING


def test_a_cancel_of_a_finished_job_says_why_in_the_partial_or_on_the_page(users):
    from django.contrib.messages import get_messages

    job = job_start(kind="test.steps", user=users.annotator)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.SUCCEEDED)
    reason = f"job #{job.pk} has already succeeded; there is nothing to cancel"
    client = client_for(users.annotator)

    partial = client.post(reverse("jobs:cancel", args=[job.pk]), headers={"HX-Request": "true"})
    assert partial.status_code == 200 and reason in partial.content.decode()
    page = client.post(reverse("jobs:cancel", args=[job.pk]))
    assert page.status_code == 302 and page["Location"] == reverse("jobs:detail", args=[job.pk])
    assert [(m.level_tag, str(m)) for m in get_messages(page.wsgi_request)] == [("error", reason)]


def test_a_start_the_jobs_refuse_goes_back_to_the_list_with_the_reason(users, monkeypatch):
    from django.contrib.messages import get_messages

    from kopa_site.jobs import JobError

    def refuse(**kwargs):
        raise JobError("site.diagnostics is already running; wait for it to finish")

    monkeypatch.setattr("kopa_site.job_pages.job_start", refuse)
    response = client_for(users.reviewer).post(reverse("jobs:start"), {"kind": "site.diagnostics"})
    assert response.status_code == 302 and response["Location"] == reverse("jobs:list")
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "site.diagnostics is already running; wait for it to finish"
    ]
    assert not Job.objects.exists()


def test_it_refuses_a_cancel_by_get(users):
    job = job_start(kind="test.steps", user=users.annotator)

    assert client_for(users.annotator).get(reverse("jobs:cancel", args=[job.pk])).status_code == 405


def test_it_offers_and_starts_diagnostics_for_reviewers(users, django_capture_on_commit_callbacks):
    client = client_for(users.reviewer)
    assert 'name="kind" value="site.diagnostics"' in client.get(reverse("jobs:list")).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("jobs:start"), {"kind": "site.diagnostics"})

    job = Job.objects.get()
    assert response["Location"] == reverse("jobs:detail", args=[job.pk])
    assert (job.kind, job.created_by, job.status) == ("site.diagnostics", users.reviewer, Job.Status.SUCCEEDED)


def test_it_does_not_let_annotators_start_jobs(users):
    client = client_for(users.annotator)

    assert 'name="kind" value="site.diagnostics"' not in client.get(reverse("jobs:list")).content.decode()
    assert client.post(reverse("jobs:start"), {"kind": "site.diagnostics"}).status_code == 403
    assert client_for(users.reviewer).post(reverse("jobs:start"), {"kind": "test.fail"}).status_code == 403
    assert not Job.objects.exists()


def test_the_admin_shows_jobs_read_only_and_cancels_through_the_service(users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        failed = job_start(kind="test.fail", user=users.annotator)
    pending = job_start(kind="test.steps", user=users.annotator)
    client = client_for(users.admin)

    changelist = client.get(reverse("admin:kopa_site_job_changelist"))
    change = client.get(reverse("admin:kopa_site_job_change", args=[failed.pk]))
    response = client.post(
        reverse("admin:kopa_site_job_changelist"),
        {"action": "cancel_jobs", "_selected_action": [failed.pk, pending.pk]},
        follow=True,
    )

    assert changelist.status_code == 200 and "test.steps" in changelist.content.decode()
    html = change.content.decode()
    assert change.status_code == 200
    assert "Traceback (most recent call last)" in html
    assert 'name="_save"' not in html
    messages = [str(message) for message in response.context["messages"]]
    assert f"Cancelled or asked to stop: job #{pending.pk}." in messages
    assert any(f"#{failed.pk}: job #{failed.pk} has already failed" in message for message in messages)
    pending.refresh_from_db()
    assert (pending.status, pending.cancelled_by) == (Job.Status.CANCELLED, users.admin)
