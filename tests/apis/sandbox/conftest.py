"""Sandbox fixtures: call the engine directly (sandbox_get) or a live standalone server (sandbox_server)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import quote, urlencode

import pytest
import xmltodict

from apis.sandbox.config import DEMO_KEY, SandboxConfig
from apis.sandbox.engine import handle
from apis.sandbox.server import start_sandbox_server
from apis.sandbox.state import SandboxState
from apis.sandbox.wire import SandboxRequest, SandboxResponse

_KEEP = object()


def build_query(params: dict[str, object]) -> str:
    """Encode once, as a well-behaved client does (spaces as %20, Korean as UTF-8)."""
    return urlencode({k: v for k, v in params.items() if v is not None}, quote_via=quote)


def call(
    host_path: str,
    params: dict[str, object] | None = None,
    *,
    headers: dict[str, str] | None = None,
    config: SandboxConfig | None = None,
    state: SandboxState | None = None,
    method: str = "GET",
    body: bytes = b"",
    raw_query: str | None = None,
    service_key: object = _KEEP,
) -> SandboxResponse:
    """One engine call. host_path is "apis.data.go.kr/1613000/…"; the demo serviceKey is added unless
    service_key=None (no key) or another value is given; raw_query bypasses encoding entirely."""
    host, _, path = host_path.partition("/")
    query = dict(params or {})
    if service_key is _KEEP:
        query = {"serviceKey": DEMO_KEY, **query}
    elif service_key is not None:
        query = {"serviceKey": service_key, **query}
    text = raw_query if raw_query is not None else build_query(query)
    request = SandboxRequest.build(method, host, "/" + path, text, headers or {}, body)
    return handle(request, config=config or SandboxConfig(), state=state or SandboxState())


def parse(response: SandboxResponse) -> dict:
    """The body as a dict: JSON as is, XML through xmltodict (keeping whitespace, which the quirks live in)."""
    text = response.body.decode("utf-8")
    if text.lstrip().startswith(("{", "[")):
        return json.loads(text)
    return xmltodict.parse(text, strip_whitespace=False)


@pytest.fixture
def sandbox_get():
    """sandbox_get("apis.data.go.kr/…/getX", {"LAWD_CD": "11680"}, headers=…, config=…) -> SandboxResponse."""
    state = SandboxState()

    def get(host_path: str, params: dict[str, object] | None = None, **kwargs) -> SandboxResponse:
        kwargs.setdefault("state", state)
        return call(host_path, params, **kwargs)

    return get


@dataclass
class RunningSandbox:
    url: str  # http://127.0.0.1:PORT (append /sandbox/…)
    stop: object

    def live(self, host_path: str) -> str:
        return f"{self.url}/sandbox/{host_path}"


@pytest.fixture(scope="session")
def sandbox_server():
    """A standalone sandbox server on a free port for the whole session (default config)."""
    url, stop = start_sandbox_server(port=0, config=SandboxConfig(timeout_hold_s=5.0))
    yield RunningSandbox(url, stop)
    stop()
