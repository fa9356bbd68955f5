"""The standalone server over real sockets: layout, keep-alive, non-blocking latency, resets and hangs."""

from __future__ import annotations

import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from apis.sandbox.config import DEMO_KEY

pytestmark = pytest.mark.slow

TRADE = "apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
PARAMS = {"serviceKey": DEMO_KEY, "LAWD_CD": "11110", "DEAL_YMD": "202609", "numOfRows": "10"}


def test_it_serves_the_index_with_working_examples(sandbox_server):
    with httpx.Client(timeout=10) as client:
        index = client.get(f"{sandbox_server.url}/sandbox/").json()
        assert index["count"] >= 10
        for op in index["operations"]:
            assert op["sandbox_url"].startswith(f"{sandbox_server.url}/sandbox/")
            example = client.request(op["example"]["method"], op["example"]["url"], json=op["example"].get("body"))
            assert example.status_code == 200, op["id"]
            spec = client.get(op["spec_url"])
            assert spec.json()["swagger"] == "2.0"


def test_it_answers_like_the_engine(sandbox_server, sandbox_get):
    over_socket = httpx.get(sandbox_server.live(TRADE), params=PARAMS, timeout=10)
    direct = sandbox_get(TRADE, {k: v for k, v in PARAMS.items() if k != "serviceKey"})
    assert over_socket.content == direct.body
    assert over_socket.headers["content-type"] == direct.headers["Content-Type"]


def test_it_keeps_the_connection_alive_between_requests(sandbox_server):
    host, port = sandbox_server.url.removeprefix("http://").split(":")
    query = "&".join(f"{k}={v}" for k, v in PARAMS.items())
    request = f"GET /sandbox/{TRADE}?{query} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        answers = []
        for _ in range(2):
            sock.sendall(request)
            data = b""
            while b"</response>" not in data:
                chunk = sock.recv(65536)
                assert chunk, "the server closed a keep-alive connection"
                data += chunk
            answers.append(data)
    assert all(a.startswith(b"HTTP/1.1 200") for a in answers)


def test_it_sleeps_latency_without_blocking_other_requests(sandbox_server):
    headers = {"X-Sandbox-Latency-Ms": "600"}

    def one(_):
        return httpx.get(sandbox_server.live(TRADE), params=PARAMS, headers=headers, timeout=10).status_code

    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(one, range(8)))
    elapsed = time.monotonic() - started
    assert statuses == [200] * 8
    # served one after another, eight requests would take 4.8 s
    assert 0.6 <= elapsed < 3.0


def test_it_resets_the_connection(sandbox_server):
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        httpx.get(
            sandbox_server.live(TRADE),
            params=PARAMS,
            headers={"X-Sandbox-Fault-Rate": "1", "X-Sandbox-Faults": "reset"},
        )


def test_it_holds_the_connection_past_the_clients_timeout(sandbox_server):
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(
            sandbox_server.live(TRADE),
            params=PARAMS,
            headers={"X-Sandbox-Fault-Rate": "1", "X-Sandbox-Faults": "timeout", "X-Sandbox-Timeout-Hold-S": "3"},
            timeout=0.5,
        )
    assert time.monotonic() - started < 2


def test_it_sends_html_error_pages(sandbox_server):
    response = httpx.get(
        sandbox_server.live(TRADE), params=PARAMS, headers={"X-Sandbox-Fault-Rate": "1", "X-Sandbox-Faults": "502"}
    )
    assert response.status_code == 502 and "Bad Gateway" in response.text


def test_it_answers_404_outside_the_sandbox_and_for_unknown_specs(sandbox_server):
    assert httpx.get(f"{sandbox_server.url}/admin/").status_code == 404
    assert httpx.get(f"{sandbox_server.url}/sandbox/specs/nothing.json").status_code == 404


def test_it_decodes_korean_path_and_query_text(sandbox_server):
    response = httpx.get(
        sandbox_server.live("apis.data.go.kr/1741000/StanReginCd/getStanReginCdList"),
        params={"serviceKey": DEMO_KEY, "locatadd_nm": "부산광역시 해운대구", "type": "json"},
    )
    rows = json.loads(response.text)["StanReginCd"][1]["row"]
    assert rows[0]["locatadd_nm"] == "부산광역시 해운대구"
