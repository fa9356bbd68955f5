"""Production mode is safe by default, stored keys survive key rotation, and bad input is a 4xx (issue 17,
points 5, 6 and 7). Production settings are loaded for real, in subprocesses, as `./kopa serve` loads them."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import httpx
import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.urls import reverse

from apis.crypto import CredentialDecryptError, decrypt
from apis.models import Credential, Provider
from apis.services import credential_set
from tests.kopa_site.test_settings import ROOT, _clean_env, _run

STRONG_SECRET = "p6Yq1-pp0oK2u7mJX4_ZbT0y9gGQvH3sLwE8aR5cNdUeFkIiOjMlBnChSrtVxWzA"
PRODUCTION = {
    "KOPA_ENV": "production",
    "SECRET_KEY": STRONG_SECRET,
    "KOPA_CREDENTIAL_KEY": Fernet.generate_key().decode(),
}


def _settings_of(tmp_path, names: list[str], **env) -> dict:
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n, None) for n in {names!r}}}, default=str))"
    )
    result = _run(["-c", code], _clean_env(tmp_path, **env))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.slow
def test_production_mode_turns_debug_off_and_secures_cookies_and_transport(tmp_path):
    values = _settings_of(
        tmp_path,
        ["DEBUG", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS"],
        **PRODUCTION,
    )
    assert values == {
        "DEBUG": False,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31_536_000,
    }
    development = _settings_of(tmp_path, ["DEBUG", "SESSION_COOKIE_SECURE"])
    assert development == {"DEBUG": True, "SESSION_COOKIE_SECURE": False}


@pytest.mark.slow
def test_check_deploy_is_clean_in_production_mode(tmp_path):
    result = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], _clean_env(tmp_path, **PRODUCTION))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("overrides", "variable"),
    [
        pytest.param({"SECRET_KEY": "kopa-dev-only-insecure-key-do-not-use-in-production"}, "SECRET_KEY", id="dev-key"),
        pytest.param({"SECRET_KEY": "short-but-not-the-dev-key"}, "SECRET_KEY", id="short-key"),
        pytest.param({"SECRET_KEY": "a" * 60}, "SECRET_KEY", id="low-entropy-key"),
        pytest.param({"SECRET_KEY": ""}, "SECRET_KEY", id="no-key"),
        pytest.param({"KOPA_CREDENTIAL_KEY": ""}, "KOPA_CREDENTIAL_KEY", id="no-credential-key"),
        pytest.param({"KOPA_CREDENTIAL_KEY": "too-short"}, "KOPA_CREDENTIAL_KEY", id="short-credential-key"),
        pytest.param({"DEBUG": "1"}, "DEBUG", id="debug-on"),
    ],
)
def test_production_refuses_to_start_with_a_public_or_weak_key(tmp_path, overrides, variable):
    result = _run(["manage.py", "check"], _clean_env(tmp_path, **{**PRODUCTION, **overrides}))
    assert result.returncode != 0
    assert result.stderr.splitlines()[0].startswith(f"configuration error: {variable}: "), result.stderr


def test_the_public_dev_key_is_refused_whenever_debug_is_off(tmp_path):
    dev_key = "kopa-dev-only-insecure-key-do-not-use-in-production"
    result = _run(["manage.py", "check"], _clean_env(tmp_path, DEBUG="0", SECRET_KEY=dev_key))
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr


def test_development_binds_to_loopback_by_default():
    script = (ROOT / "kopa").read_text(encoding="utf-8")
    assert 'HOST="${KOPA_HOST:-127.0.0.1}"' in script
    assert 'runserver --noreload "$HOST:$PORT"' in script


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_the_production_server_is_uvicorn_and_redirects_plain_http(tmp_path):
    port = _free_port()
    env = _clean_env(tmp_path, **PRODUCTION)
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "kopa_site.asgi:application", "--port", str(port), "--no-server-header"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/accounts/login/", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read().decode()
                assert time.monotonic() < deadline, "uvicorn did not come up"
                time.sleep(0.3)
        assert response.status_code == 301
        assert response.headers["location"] == f"https://127.0.0.1:{port}/accounts/login/"
        assert "server" not in response.headers
    finally:
        server.terminate()
        server.wait(timeout=30)


# --- credential keys (point 6) -----------------------------------------------------------------------


@pytest.mark.django_db
def test_keys_rotate_onto_a_new_credential_key_while_old_ones_still_read(settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.KOPA_CREDENTIAL_KEY, settings.KOPA_CREDENTIAL_OLD_KEYS = old, []
    provider = Provider.objects.create(code="rot", name="Rotation")
    credential_set(provider=provider, service_key="rotating-key-123")
    stored = Credential.objects.get(provider=provider).ciphertext

    settings.KOPA_CREDENTIAL_KEY, settings.KOPA_CREDENTIAL_OLD_KEYS = new, [old]
    assert decrypt(stored) == "rotating-key-123"  # the old key still reads
    call_command("credential_rotate", stdout=open("/dev/null", "w"))  # noqa: SIM115
    rotated = Credential.objects.get(provider=provider).ciphertext
    assert rotated != stored

    settings.KOPA_CREDENTIAL_OLD_KEYS = []
    assert decrypt(rotated) == "rotating-key-123"  # the new key alone reads it
    with pytest.raises(CredentialDecryptError):
        decrypt(stored)  # and the old ciphertext is no longer readable without the old key


@pytest.mark.django_db
def test_keys_stored_under_the_secret_key_move_onto_a_dedicated_key(settings):
    settings.KOPA_CREDENTIAL_KEY = ""
    provider = Provider.objects.create(code="mig", name="Migration")
    credential_set(provider=provider, service_key="derived-key-456")
    settings.KOPA_CREDENTIAL_KEY = Fernet.generate_key().decode()
    call_command("credential_rotate", stdout=open("/dev/null", "w"))  # noqa: SIM115
    settings.SECRET_KEY = STRONG_SECRET  # SECRET_KEY changes: the stored key does not care any more
    assert decrypt(Credential.objects.get(provider=provider).ciphertext) == "derived-key-456"


# --- input that used to be a 500 (point 7) ------------------------------------------------------------


BIG = str(2**64)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        f"/api/v1/calls/?tool={BIG}",
        f"/api/v1/calls/?service={BIG}",
        f"/api/v1/tools/?service={BIG}",
        f"/api/v1/jobs/?created_by={BIG}",
        f"/api/v1/tools/{BIG}/",
        f"/catalog/calls/?tool={BIG}",
    ],
)
def test_ids_above_two_to_the_sixty_three_are_not_a_500(client_as, admin, admin_api, url):
    client = admin_api if url.startswith("/api/") else client_as(admin)
    response = client.get(url)
    assert response.status_code in (400, 404), response.content[:300]


@pytest.mark.django_db
def test_extra_body_null_form_encoded_is_a_400(reviewer_api):
    response = reviewer_api.post(
        reverse("modelentry-list"),
        {"name": "nulls", "backend": "oracle", "extra_body": "null"},
        format="multipart",
    )
    assert response.status_code == 400, response.content[:300]
    assert "required value is missing" in response.json()["detail"]


@pytest.mark.django_db
def test_a_missing_static_file_is_a_404_for_anyone(client):
    assert client.get("/static/vendor/no-such-file.js").status_code == 404
    assert client.get("/static/nope.css").status_code == 404
