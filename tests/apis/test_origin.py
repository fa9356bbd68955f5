"""The origin checks stop a run at once, with one line naming what to start, when nothing answers."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from apis.origin import OriginUnreachable, live_hosts_check, origin_check, sandbox_origin_check


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_running_sandbox_passes(sandbox_server_url):
    assert sandbox_origin_check(sandbox_server_url) == sandbox_server_url


def test_a_closed_port_names_what_to_start():
    origin = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(OriginUnreachable) as caught:
        sandbox_origin_check(origin)
    message = str(caught.value)
    assert origin in message and "sandbox_serve" in message and "./kopa up" in message
    assert "\n" not in message


def test_a_server_that_is_not_the_sandbox_is_refused():
    class NotFound(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(404)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<h1>Not Found</h1>")

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(OriginUnreachable, match="answered HTTP 404, not the sandbox's index"):
            sandbox_origin_check(f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        server.server_close()


def test_an_origin_that_is_no_url_is_refused():
    with pytest.raises(OriginUnreachable, match="no sandbox origin is set"):
        sandbox_origin_check("localhost:8000")


def test_live_mode_checks_each_host_and_replay_checks_nothing():
    closed = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(OriginUnreachable, match=r"live API host 127\.0\.0\.1:\d+ cannot be reached.*--mode sandbox"):
        live_hosts_check([closed])
    with pytest.raises(OriginUnreachable):
        origin_check(mode="live", live_base_urls=[closed])
    origin_check(mode="replay", sandbox=closed, live_base_urls=[closed])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "command",
    [
        ["edges_verify"],
        ["synthesize", "--count", "1", "--snapshot", "1"],
    ],
)
def test_commands_that_make_calls_stop_at_once_when_their_sandbox_is_closed(settings, command):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    settings.KOPA_SANDBOX_ORIGIN = f"http://127.0.0.1:{_closed_port()}"
    from graphs.models import GraphSnapshot, VerificationRun

    if command[0] == "synthesize":
        GraphSnapshot.objects.create(version=1, node_link={"nodes": [], "links": []}, stats={})
    with pytest.raises(CommandError, match="does not answer.*sandbox_serve"):
        call_command(*command)
    assert not VerificationRun.objects.exists()


@pytest.mark.django_db
def test_synthesize_without_a_snapshot_says_what_to_run_first():
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no verified edges yet: run edges_propose and edges_verify"):
        call_command("synthesize", "--count", "1")
