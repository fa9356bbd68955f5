"""The jobs API: who may read, start and cancel jobs, filters, and the schema."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from kopa_site.jobs import job_start
from kopa_site.models import Job
from tests.support.users import make_role_users

pytestmark = pytest.mark.django_db

LIST = "/api/v1/jobs/"


@pytest.fixture
def users():
    return make_role_users()


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    cache.clear()
    yield
    cache.clear()


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def detail(job) -> str:
    return f"{LIST}{job.pk}/"


def test_it_answers_anonymous_requests_with_401(users):
    job = job_start(kind="test.steps")

    assert client_for().get(LIST).status_code == 401
    assert client_for().get(detail(job)).status_code == 401
    assert client_for().post(f"{detail(job)}cancel/").status_code == 401


def test_it_refuses_users_without_a_role(users):
    job = job_start(kind="test.steps", user=users.outsider)

    assert client_for(users.outsider).get(LIST).status_code == 403
    assert client_for(users.outsider).post(f"{detail(job)}cancel/").status_code == 403


@pytest.mark.smoke
def test_it_lists_everyones_jobs_to_an_annotator_newest_first(users):
    older = job_start(kind="test.steps", user=users.reviewer)
    newer = job_start(kind="test.fail", user=users.annotator)

    response = client_for(users.annotator).get(LIST)

    assert response.status_code == 200
    rows = response.json()["results"]
    assert [row["id"] for row in rows] == [newer.pk, older.pk]
    assert rows[1]["created_by"] == "rita"
    assert rows[0]["status"] == "pending"
    assert "log" not in rows[0] and "traceback" not in rows[0]


def test_it_filters_by_kind_status_and_owner(users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        failed = job_start(kind="test.fail", user=users.annotator)
    steps = job_start(kind="test.steps", user=users.reviewer)
    client = client_for(users.annotator)

    def ids(query):
        return [row["id"] for row in client.get(LIST, query).json()["results"]]

    assert ids({"kind": "test.steps"}) == [steps.pk]
    assert ids({"status": "failed"}) == [failed.pk]
    assert ids({"status": ["failed", "pending"]}) == [steps.pk, failed.pk]
    assert ids({"created_by": users.annotator.pk}) == [failed.pk]
    assert ids({"ordering": "created_at"}) == [failed.pk, steps.pk]
    assert client.get(LIST, {"status": "exploded"}).status_code == 400


def test_it_lists_in_a_fixed_number_of_queries(users, django_assert_num_queries):
    for user in (users.annotator, users.reviewer, users.admin, None):
        job_start(kind="test.steps", user=user)
    client = client_for(users.annotator)
    client.get(LIST)  # reads the role, which stays cached on the forced user object

    with django_assert_num_queries(2):  # count and page, owners joined in
        response = client.get(LIST)
    assert len(response.json()["results"]) == 4


def test_it_shows_log_error_traceback_and_whether_you_may_cancel(users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        failed = job_start(kind="test.fail", user=users.annotator)
    pending = job_start(kind="test.steps", user=users.annotator)

    body = client_for(users.annotator).get(detail(failed)).json()
    assert body["status"] == "failed"
    assert body["error"] == "RuntimeError: boom"
    assert "Traceback" in body["traceback"]
    assert body["log"][-1]["level"] == "error"
    assert body["can_cancel"] is False

    assert client_for(users.annotator).get(detail(pending)).json()["can_cancel"] is True
    assert client_for(users.other_annotator).get(detail(pending)).json()["can_cancel"] is False
    assert client_for(users.reviewer).get(detail(pending)).json()["can_cancel"] is True


def test_it_lets_an_annotator_cancel_their_own_job(users):
    job = job_start(kind="test.steps", user=users.annotator)

    response = client_for(users.annotator).post(f"{detail(job)}cancel/")

    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    assert response.json()["cancelled_by"] == "anna"


def test_it_refuses_an_annotator_cancelling_someone_elses_job(users):
    job = job_start(kind="test.steps", user=users.annotator)

    response = client_for(users.other_annotator).post(f"{detail(job)}cancel/")

    assert response.status_code == 403
    assert "owner" in response.json()["detail"]
    job.refresh_from_db()
    assert job.status == Job.Status.PENDING


@pytest.mark.parametrize("role", ["reviewer", "admin"])
def test_it_lets_reviewers_and_admins_cancel_any_running_job(users, role):
    job = job_start(kind="test.steps", user=users.annotator)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING)

    response = client_for(getattr(users, role)).post(f"{detail(job)}cancel/")

    assert response.status_code == 200
    assert (response.json()["status"], response.json()["cancel_requested"]) == ("running", True)


def test_it_answers_409_when_cancelling_a_finished_job(users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = job_start(kind="test.steps", user=users.annotator, params={"steps": 1})

    response = client_for(users.annotator).post(f"{detail(job)}cancel/")

    assert response.status_code == 409
    assert response.json()["detail"] == f"job #{job.pk} has already succeeded; there is nothing to cancel"


@pytest.mark.smoke
def test_it_lets_a_reviewer_start_a_kind_by_name(users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(users.reviewer).post(LIST, {"kind": "test.steps", "params": {"steps": 2}}, format="json")

    assert response.status_code == 201, response.json()
    job = Job.objects.get(pk=response.json()["id"])
    assert (job.kind, job.params, job.created_by) == ("test.steps", {"steps": 2}, users.reviewer)
    assert job.status == Job.Status.SUCCEEDED


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"kind": "nope.never"}, "kind", "unknown job kind 'nope.never'"),
        ({"kind": "test.fail"}, "kind", "test.fail is started by its own page or service, not by name."),
        ({"kind": "test.steps", "params": {"stepz": 1}}, "params", "unexpected keyword argument 'stepz'"),
        ({"kind": "test.steps", "params": "steps=1"}, "params", '"str"'),  # DRF's message, in Korean
    ],
)
def test_it_rejects_a_start_request_it_cannot_run_and_creates_nothing(users, payload, field, message):
    response = client_for(users.reviewer).post(LIST, payload, format="json")

    assert response.status_code == 400
    assert message in str(response.json()[field])
    assert not Job.objects.exists()


def test_it_refuses_starts_below_the_reviewer_role(users):
    response = client_for(users.annotator).post(LIST, {"kind": "site.diagnostics"}, format="json")

    assert response.status_code == 403
    assert not Job.objects.exists()


def test_it_throttles_job_starts_but_not_reads(users, monkeypatch):
    # DRF copies the rates onto the class at import, so the class attribute is what to change.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"jobs": "2/minute"})
    client = client_for(users.reviewer)

    codes = [client.post(LIST, {"kind": "test.steps"}, format="json").status_code for _ in range(3)]

    assert codes == [201, 201, 429]
    assert client.get(LIST).status_code == 200
    assert Job.objects.count() == 2


def test_it_documents_the_cancel_action_in_the_schema():
    schema = SchemaGenerator().get_schema(request=None, public=True)

    cancel = schema["paths"]["/api/v1/jobs/{id}/cancel/"]["post"]
    assert cancel["summary"] == "Cancel a job"
    assert set(cancel["responses"]) >= {"200", "403", "409"}
    assert "post" in schema["paths"]["/api/v1/jobs/"]
