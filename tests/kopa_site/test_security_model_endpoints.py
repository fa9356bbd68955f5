"""Model entries cannot exfiltrate the server's environment (issue 17, point 1).

A reviewer could set api_key_env to any variable (HOME, SECRET_KEY) and base_url to a listener; the evaluation
worker then sent `Authorization: Bearer <that variable>` there. Keys now come only from KOPA_MODEL_KEY_*
variables and endpoints follow the outbound rules of spec imports, at creation and again when a run starts.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from benchmarks.models import EvalRun, ModelEntry
from benchmarks.services import BenchError, _engine_backend, model_entry_create
from tests.support.listener import Listener, http_answer

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def listener():
    server = Listener(http_answer(b"{}"))
    yield server
    server.close()


@pytest.mark.parametrize("variable", ["HOME", "SECRET_KEY", "DATABASE_URL", "kopa_model_key_x", "KOPA_MODEL_KEYX"])
def test_api_key_env_outside_the_allow_list_is_refused(reviewer_api, listener, variable, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["127.0.0.1"]}
    response = reviewer_api.post(
        reverse("modelentry-list"),
        {"name": "exfil", "backend": "openai", "base_url": f"{listener.url}/v1", "api_key_env": variable},
        format="json",
    )
    assert response.status_code == 400
    assert "KOPA_MODEL_KEY_" in response.json()["detail"]
    assert not ModelEntry.objects.exists()


@pytest.mark.parametrize(
    "base_url", ["http://169.254.169.254/v1", "http://10.0.0.5:8000/v1", "http://127.0.0.1:9/v1", "file:///etc/v1"]
)
def test_endpoints_follow_the_outbound_rules(reviewer_api, base_url, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": []}
    response = reviewer_api.post(
        reverse("modelentry-list"), {"name": "inside", "backend": "openai", "base_url": base_url}, format="json"
    )
    assert response.status_code == 400, response.content
    assert not ModelEntry.objects.exists()


def test_an_allowed_key_variable_and_an_allowed_endpoint_are_accepted(settings, monkeypatch):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["10.0.0.0/8"]}
    monkeypatch.setenv("KOPA_MODEL_KEY_GPU", "sk-test")
    entry = model_entry_create(
        name="ok", backend="openai", base_url="http://10.1.2.3:8000/v1", api_key_env="KOPA_MODEL_KEY_GPU"
    )
    backend = _engine_backend(EvalRun(model=entry, backend="openai"))
    assert backend.config.api_key == "sk-test"


def test_a_row_that_predates_the_rules_is_refused_when_the_run_starts(listener, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["127.0.0.1"]}
    legacy = ModelEntry.objects.create(
        name="legacy", backend="openai", base_url=f"{listener.url}/v1", api_key_env="HOME"
    )
    with pytest.raises(BenchError, match="KOPA_MODEL_KEY_"):
        _engine_backend(EvalRun(model=legacy, backend="openai"))
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": []}
    ModelEntry.objects.filter(pk=legacy.pk).update(api_key_env="")
    legacy.refresh_from_db()
    with pytest.raises(BenchError, match="public internet address"):
        _engine_backend(EvalRun(model=legacy, backend="openai"))
    assert listener.hits == 0
