"""One way to refuse a request: a DomainError is a 400 (or its own status) with its message in the API, and an
error message with a redirect on pages (kopa_site.errors)."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from apis.services import ExecutorFault, SpecImportError
from benchmarks.services import BenchError
from datasets.review import LeaseError
from datasets.services import SynthesisError
from graphs.models import VerificationRun
from graphs.services import EdgeError
from kopa_site.errors import DomainError, api_exception_handler
from kopa_site.jobs import JobError, JobNotCancellable
from kopa_site.models import RunStatus
from training.services import TrainingError

pytestmark = pytest.mark.django_db


def test_every_app_refuses_with_a_domain_error():
    for error in (JobError, EdgeError, SynthesisError, BenchError, TrainingError, SpecImportError, LeaseError):
        assert issubclass(error, DomainError), error


def test_the_handler_answers_with_the_class_status_and_the_message_only():
    refused = api_exception_handler(EdgeError("run #3 has finished; start a new run"), {})
    assert refused.status_code == 400 and refused.data == {"detail": "run #3 has finished; start a new run"}
    assert api_exception_handler(JobNotCancellable("job #2 has finished"), {}).status_code == 409
    assert api_exception_handler(ExecutorFault("the engine failed"), {}).status_code == 502
    assert api_exception_handler(ValueError("not ours"), {}) is None  # a bug stays a 500 with its traceback logged


def test_an_api_request_refused_by_a_service_is_a_400_with_its_reason_and_no_traceback(reviewer_api):
    run = VerificationRun.objects.create(status=RunStatus.FINISHED)
    response = reviewer_api.post(reverse("verificationrun-resume", args=[run.pk]))
    assert response.status_code == 400
    assert response.json() == {"detail": f"run #{run.pk} has finished; there is nothing to resume"}
    assert "Traceback" not in response.content.decode()


def test_a_page_refused_by_a_service_shows_the_reason_and_goes_back(client_as, reviewer):
    run = VerificationRun.objects.create(status=RunStatus.FINISHED)
    client = client_as(reviewer)
    response = client.post(reverse("graphs:run_resume", args=[run.pk]))
    assert response.status_code == 302 and response.url == reverse("graphs:run", args=[run.pk])
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        f"run #{run.pk} has finished; there is nothing to resume"
    ]


def test_a_page_without_url_arguments_goes_back_to_its_index(client_as, reviewer):
    client = client_as(reviewer)
    response = client.post(reverse("graphs:run_start"), {"rounds": "0"})
    assert response.status_code == 302 and response.url == reverse("graphs:index")
    [message] = get_messages(response.wsgi_request)
    assert message.level_tag == "error" and "rounds" in str(message)
    assert not VerificationRun.objects.exists()


def test_text_a_view_parses_is_refused_like_a_service_refusal():
    import json

    from kopa_site.concurrency import version_from_token
    from kopa_site.errors import parsed

    assert parsed(int, "42", refusal="never shown") == 42
    with pytest.raises(DomainError, match=r"^Which version\? Nothing was restored\.$"):
        parsed(int, "one", refusal="Which version? Nothing was restored.")
    with pytest.raises(
        DomainError, match=r"^call 0 is not JSON \(Expecting property name enclosed in double quotes\)$"
    ):
        parsed(json.loads, "{not json", refusal="call 0 is not JSON (%(error)s)")
    with pytest.raises(DomainError, match=r"^the version carries its UTC offset"):  # the parser's own words
        parsed(version_from_token, "2026-01-31T09:00:00")
