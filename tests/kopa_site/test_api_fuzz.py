"""Every API operation, fuzzed from its own OpenAPI schema: no 5xx and schema-conformant answers (issue 17,
point 11).

Schemathesis draws a few requests per operation from the schema the site serves (positive and negative
data), sends them to the site in process (its WSGI application, the real middleware and parsers), as an
annotator and as an admin, and checks each answer: never a server error, and a body that matches what the
schema says that status returns. Bounded (KOPA_FUZZ_EXAMPLES per operation, 3 by default) so it stays a test;
a longer fuzz is the same test with a larger number.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from hypothesis import HealthCheck, Phase, given, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from apis.models import Tool
from apis.services import CallOptions, catalog_import_bundled, tool_execute
from kopa_site.models import Job
from tests.apis.conftest import FAST_EXECUTOR

# transaction=True: some operations run queue tasks inline, which close the connection as workers do.
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

EXAMPLES = int(os.environ.get("KOPA_FUZZ_EXAMPLES", "3"))
# Revoking the token the fuzz signs in with would turn every later answer into a 401 (tested on its own in
# test_security_auth.py).
SKIPS = {"DELETE /api/v1/auth/token/"}


@pytest.fixture
def wsgi_app(settings, tmp_path):
    """The site's WSGI application on the test database."""
    settings.KOPA_EXECUTOR = {**FAST_EXECUTOR, "timeout_s": 0.2, "max_attempts": 1}
    settings.KOPA_SANDBOX_ORIGIN = "http://127.0.0.1:9"  # nothing listens: a sandbox call fails at once
    settings.KOPA_OUTBOUND = {"allow": [], "max_bytes": 100_000, "total_timeout_s": 0.5, "max_redirects": 1}
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}  # no throttling
    return WSGIHandler()


def _fuzz(schema_dict: dict, app, token: str, label: str, existing: dict[str, int], statuses: list[int]) -> list[str]:
    schema = schemathesis.openapi.from_dict(schema_dict)
    schema.app = app
    headers = {"Authorization": f"Token {token}"}
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        name = f"{operation.method.upper()} {operation.path}"
        if name in SKIPS:
            continue
        if name in existing:  # a stored object too, not only the random ids that mostly find nothing
            case = operation.Case(path_parameters={"id": existing[name]})
            try:
                case.validate_response(
                    case.call(headers=headers), checks=[not_a_server_error, response_schema_conformance]
                )
            except Exception as error:
                failures.append(f"[{label}] {name} #{existing[name]}: {str(error)[:1500]}")
        strategy = operation.as_strategy(generation_mode=GenerationMode.POSITIVE) | operation.as_strategy(
            generation_mode=GenerationMode.NEGATIVE
        )

        @given(case=strategy)
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def check(case):
            response = case.call(headers=headers)
            statuses.append(response.status_code)
            case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])

        try:
            check()
        except Exception as error:  # every failing operation is reported, not just the first
            failures.append(f"[{label}] {name}: {str(error)[:1500]}")
    return failures


def test_no_operation_answers_a_5xx_or_off_schema(annotator, admin, annotator_api, wsgi_app):
    catalog_import_bundled()
    # Rows whose optional references are empty: the schema must say those fields may be null.
    call = tool_execute(
        tool=Tool.objects.filter(is_active=True).first(), params={}, options=CallOptions(mode="replay")
    ).call
    job = Job.objects.create(kind="site.diagnostics")
    existing = {"GET /api/v1/calls/{id}/": call.pk, "GET /api/v1/jobs/{id}/": job.pk}
    schema = annotator_api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    failures, statuses = [], []
    for user in (annotator, admin):
        token, _ = Token.objects.get_or_create(user=user)
        failures += _fuzz(schema, wsgi_app, token.key, user.username, existing, statuses)
    assert not failures, "\n\n".join(failures)
    # The fuzz got answers, not only refusals: it signed in and reached the views.
    assert sum(200 <= status < 300 for status in statuses) > len(statuses) // 4, sorted(set(statuses))
    assert 401 not in statuses
