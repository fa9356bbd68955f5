"""Spec import is no SSRF or file-read primitive, and no amplifier (issue 17, points 3 and 4).

Real sockets throughout: small servers on 127.0.0.1 (and 127.0.0.2) stand in for an internal service, an open
non-HTTP port, a redirecting host, a huge document and a server that trickles one byte at a time.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from django.core.cache import cache

from apis.engine.outbound import OutboundPolicy, OutboundRefused, address_allowed, check_url
from apis.models import ApiService
from tests.support.listener import Listener, http_answer

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

SPEC = {
    "swagger": "2.0",
    "info": {"title": "Internal spec", "version": "1"},
    "host": "apis.example.org",
    "basePath": "/svc",
    "paths": {"/items": {"get": {"operationId": "getItems", "responses": {"200": {"description": "ok"}}}}},
}


@pytest.fixture
def servers():
    started = []

    def start(handler, host="127.0.0.1"):
        server = Listener(handler, host)
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()


@pytest.fixture(autouse=True)
def _outbound(settings):
    cache.clear()  # the import throttle counts per user
    settings.KOPA_OUTBOUND = {"allow": [], "max_bytes": 200_000, "total_timeout_s": 1.5, "max_redirects": 3}
    return settings


def _import(client, **body):
    return client.post("/api/v1/specs/import/", body, format="json")


def test_a_spec_given_as_a_server_path_is_text_not_a_file(reviewer_api, tmp_path):
    secret_file = tmp_path / "secrets.json"
    secret_file.write_text(json.dumps({"swagger": "2.0", "db_password_field": 1}), encoding="utf-8")
    existing = _import(reviewer_api, spec=str(secret_file))
    missing = _import(reviewer_api, spec=str(tmp_path / "gone.json"))
    assert existing.status_code == missing.status_code == 400
    assert "db_password_field" not in existing.content.decode()
    # An existing path and a missing one read the same: nothing tells the caller which files exist.
    assert existing.json()["detail"].replace(str(secret_file), "P") == missing.json()["detail"].replace(
        str(tmp_path / "gone.json"), "P"
    )


def test_a_url_to_loopback_is_refused_before_any_connection(reviewer_api, servers):
    internal = servers(http_answer(json.dumps(SPEC).encode()))
    response = _import(reviewer_api, url=f"{internal.url}/spec.json")
    assert response.status_code == 400
    assert "not a public internet address" in response.json()["detail"]
    assert internal.hits == 0
    assert not ApiService.objects.filter(title="Internal spec").exists()


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:9/",
        "http://10.0.0.1/",
        "http://0.0.0.0:8000/",
        "http://[::ffff:127.0.0.1]/",
        "file:///etc/passwd",
        "http://user:pw@example.org/",
    ],
)
def test_private_metadata_and_odd_urls_are_refused(url):
    with pytest.raises(OutboundRefused):
        check_url(url, OutboundPolicy())


def test_public_addresses_pass_and_the_allow_list_opens_named_networks():
    assert address_allowed("example.org", "93.184.215.14", OutboundPolicy())
    assert not address_allowed("gpu", "10.1.2.3", OutboundPolicy())
    assert address_allowed("gpu", "10.1.2.3", OutboundPolicy(allow=("10.0.0.0/8",)))
    assert address_allowed("gpu", "10.1.2.3", OutboundPolicy(allow=("gpu",)))


def test_the_allow_list_lets_an_admin_import_from_a_local_server(reviewer_api, servers, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["127.0.0.1"]}
    internal = servers(http_answer(json.dumps(SPEC).encode()))
    response = _import(reviewer_api, url=f"{internal.url}/spec.json")
    assert response.status_code == 200, response.content
    assert ApiService.objects.filter(title="Internal spec").exists()


def test_every_redirect_is_checked_like_the_first_url(reviewer_api, servers, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["127.0.0.1"]}
    hidden = servers(http_answer(json.dumps(SPEC).encode()), host="127.0.0.2")
    redirect = servers(http_answer(b"", "302 Found", f"Location: {hidden.url}/spec.json\r\n"))
    response = _import(reviewer_api, url=f"{redirect.url}/go")
    assert response.status_code == 400
    assert "not a public internet address" in response.json()["detail"]
    assert redirect.hits == 1 and hidden.hits == 0


def test_errors_do_not_tell_an_open_port_from_a_closed_one(reviewer_api, servers, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["127.0.0.1"]}
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    closed_port = probe.getsockname()[1]
    probe.close()
    ssh_like = servers(lambda conn, _: conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n"))
    not_found = servers(http_answer(b"<h1>admin console</h1>", "404 Not Found", "Content-Type: text/html\r\n"))
    details = [
        _import(reviewer_api, url=url).json()["detail"].replace(url, "URL")
        for url in (f"http://127.0.0.1:{closed_port}/", f"{ssh_like.url}/", f"{not_found.url}/")
    ]
    assert len(set(details)) == 1, details
    assert "SSH" not in details[0] and "404" not in details[0] and "admin console" not in details[0]


def test_a_trickling_server_is_cut_off_by_the_total_time_cap(reviewer_api, servers, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["127.0.0.1"], "total_timeout_s": 1.0}

    def trickle(conn, _):
        conn.recv(65536)
        for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + b" " * 1000:
            conn.sendall(bytes([byte]))
            time.sleep(0.2)  # each read succeeds; only the total deadline ends the fetch

    slow = servers(trickle)
    started = time.monotonic()
    response = _import(reviewer_api, url=f"{slow.url}/spec.json")
    assert response.status_code == 400
    assert time.monotonic() - started < 3.0


def test_a_one_byte_every_ten_seconds_server_is_cut_off(reviewer_api, servers, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["127.0.0.1"], "total_timeout_s": 0.5}
    stop = threading.Event()

    def glacial(conn, _):
        conn.recv(65536)
        while not stop.wait(10):
            conn.sendall(b"H")

    slow = servers(glacial)
    started = time.monotonic()
    try:
        assert _import(reviewer_api, url=f"{slow.url}/spec.json").status_code == 400
    finally:
        stop.set()
    assert time.monotonic() - started < 2.0


def test_a_document_over_the_size_cap_is_refused_while_streaming(reviewer_api, servers, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["127.0.0.1"]}
    big = json.dumps({**SPEC, "x-padding": "x" * 500_000}).encode()

    def no_length(conn, _):  # no Content-Length: the cap must hold while reading
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" + big)

    for handler in (http_answer(big), no_length):
        server = servers(handler)
        response = _import(reviewer_api, url=f"{server.url}/big.json")
        assert response.status_code == 400
        assert "200,000-byte limit" in response.json()["detail"]


def test_a_page_given_as_text_does_not_fetch_its_swagger_url(reviewer_api, servers, settings):
    settings.KOPA_OUTBOUND = {**settings.KOPA_OUTBOUND, "allow": ["127.0.0.1"]}
    target = servers(http_answer(json.dumps(SPEC).encode()))
    page = f"<html><script>var swaggerUrl = '{target.url}/spec.json';</script></html>"
    response = _import(reviewer_api, spec=page)
    assert response.status_code == 400
    assert target.hits == 0
