"""The MCP server with the mcp package's own clients: stdio and streamable HTTP subprocesses, and in-process.

Each test lists the tools, calls one in sandbox mode against the standalone sandbox, and finds the ApiCall the
call left. Async client code runs in a thread of its own: Playwright's sync API may hold an event loop in the
main thread of this test process.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager

import pytest
from django.conf import settings
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from apis.mcp_server import build_server, result_payload
from apis.models import ApiCall, Tool
from apis.services import catalog_import_bundled
from tests.apis.conftest import APT_TRADE, APT_TRADE_PARAMS, in_thread
from tests.support.db import child_database_url

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TOOLS = f"{APT_TRADE},get_stan_regin_cd_list"


def server_env(sandbox_url: str) -> dict[str, str]:
    """The subprocess reads this test's database and sends sandbox calls to the test sandbox."""
    return {
        "DJANGO_SETTINGS_MODULE": "kopa_site.settings_test",
        "DATABASE_URL": child_database_url(),
        "KOPA_SANDBOX_ORIGIN": sandbox_url,
        "PYTHONUNBUFFERED": "1",
    }


@pytest.fixture
def imported(db):
    catalog_import_bundled()


async def list_and_call(session: ClientSession):
    await session.initialize()
    listed = await session.list_tools()
    result = await session.call_tool(APT_TRADE, APT_TRADE_PARAMS)
    return listed, result


def check_exchange(listed, result) -> None:
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == set(TOOLS.split(","))
    apt = tools[APT_TRADE]
    assert apt.input_schema["required"] == ["LAWD_CD", "DEAL_YMD"]
    assert "아파트" in apt.description
    assert result.is_error is False
    payload = result.structured_content
    assert payload["ok"] and payload["record_count"] == 10 and len(payload["records"]) == 10
    assert json.loads(result.content[0].text)["call"] == payload["call"]
    call = ApiCall.objects.get(pk=payload["call"])
    assert (call.source_kind, call.mode, call.ok, call.tool.function_name) == ("mcp", "sandbox", True, APT_TRADE)


def test_stdio_lists_the_chosen_tools_and_calls_one(imported, catalog_sandbox):
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_serve", "--transport", "stdio", "--mode", "sandbox", "--tools", TOOLS],
        env=server_env(catalog_sandbox),
        cwd=str(settings.BASE_DIR),
    )

    async def exchange():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await list_and_call(session)

    check_exchange(*in_thread(exchange))


@contextmanager
def http_server(sandbox_url: str):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # `timeout` is a backstop: the server ends even if this test process dies before `finally`.
    proc = subprocess.Popen(
        [
            "timeout",
            "-k",
            "5",
            "120",
            sys.executable,
            "manage.py",
            "mcp_serve",
            "--transport",
            "http",
            "--port",
            str(port),
            "--tools",
            TOOLS,
        ],
        cwd=settings.BASE_DIR,
        env={**os.environ, **server_env(sandbox_url)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the MCP HTTP server did not start: {proc.stderr.read().decode()[-2000:]}")
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stderr.close()


def test_streamable_http_lists_the_chosen_tools_and_calls_one(imported, catalog_sandbox):
    with http_server(catalog_sandbox) as url:

        async def exchange():
            async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
                return await list_and_call(session)

        check_exchange(*in_thread(exchange))


def test_an_unknown_tool_is_a_protocol_error_and_an_api_failure_a_tool_error(imported, settings, catalog_sandbox):
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    settings.KOPA_SANDBOX_ORIGIN = catalog_sandbox
    tools = list(Tool.objects.select_related("service__provider").filter(function_name=APT_TRADE))
    server = build_server(tools, mode="sandbox")

    async def exchange():
        async with Client(server) as client:
            failed = await client.call_tool(APT_TRADE, {"LAWD_CD": "11680"})
            try:
                await client.call_tool("no_such_tool", {})
            except MCPError as exc:
                return failed, exc
            return failed, None

    failed, error = in_thread(exchange)

    assert failed.is_error and failed.structured_content["error_class"] == "struct.missing_param"
    assert error is not None and "Unknown tool: no_such_tool" in str(error)
    assert ApiCall.objects.get().source_kind == "mcp"


def test_replay_mode_is_served_too_and_a_miss_is_reported(imported, settings):
    tools = list(Tool.objects.select_related("service__provider").filter(function_name=APT_TRADE))
    server = build_server(tools, mode="replay")

    async def exchange():
        from mcp import Client

        async with Client(server) as client:
            return await client.call_tool(APT_TRADE, APT_TRADE_PARAMS)

    result = in_thread(exchange)
    assert result.is_error and result.structured_content["error_class"] == "replay.miss"
    assert ApiCall.objects.get().mode == "replay"


def test_the_payload_caps_records(apt_trade):
    from apis.engine.normalize import NormalizedResult
    from apis.services import Execution

    result = NormalizedResult(True, 200, "00", "ok", [{"n": i} for i in range(5)], 5, {}, None, "")
    payload = result_payload(Execution(ApiCall(pk=1, tool=apt_trade), result), max_records=2)
    assert (payload["record_count"], len(payload["records"]), payload["records_omitted"]) == (5, 2, 3)


def test_an_unknown_mode_is_refused(imported):
    with pytest.raises(ValueError, match="mode must be one of sandbox, live, replay"):
        build_server([], mode="record")
