"""A service key never appears in stored rows, logs, pages, API output, MCP results or error text.

One recognizable key goes into a Credential and through every path that touches it: live calls (the sandbox
standing in for the live host, an echoing server that repeats the key back, failing hosts), a key pasted into
the wrong parameter, a key given per call, the try-it page, the MCP server, a drift check and an executor
fault. Then everything is searched for it, raw and percent-encoded, including the database file itself.
"""

from __future__ import annotations

import gzip
import json
import logging
import subprocess
import traceback
from urllib.parse import quote, quote_plus

import httpx
import pytest
from django.db import connection
from django.forms.models import model_to_dict
from django.urls import reverse

from apis.engine.errors import secret_forms
from apis.mcp_server import build_server
from apis.models import ApiCall, ApiService, Credential, Tool
from apis.services import CallOptions, ExecutorFault, drift_check, tool_execute
from tests.apis.conftest import APT_TRADE, APT_TRADE_PARAMS, SECRET_KEY, in_thread
from tests.support.fixture_server import FixtureServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Every spelling of the key, and two fragments that survive any encoding of it.
FORMS = sorted(secret_forms(SECRET_KEY) | {quote(SECRET_KEY, safe=""), quote_plus(SECRET_KEY)}, key=len)
FRAGMENTS = ("KopaTestSecret", "Zx9Q")


def leaks(text: str) -> list[str]:
    lowered = text.lower()
    return [form for form in (*FORMS, *FRAGMENTS) if form.lower() in lowered]


def assert_clean(what: str, text: str) -> None:
    found = leaks(text)
    assert not found, f"the service key leaked into {what}: {found}"


@pytest.fixture
def keyed_tool(catalog, admin_api, catalog_sandbox, settings):
    """The apartment-trade tool, live at the test sandbox (which accepts SECRET_KEY), with the key stored by API."""
    settings.KOPA_SANDBOX_ORIGIN = catalog_sandbox
    settings.KOPA_EXECUTOR = {**settings.KOPA_EXECUTOR, "timeout_s": 0.5, "base_delay_s": 0.01, "max_delay_s": 0.02}
    tool = Tool.objects.select_related("service__provider").get(function_name=APT_TRADE)
    ApiService.objects.filter(pk=tool.service_id).update(
        base_url=f"{catalog_sandbox}/sandbox/apis.data.go.kr/1613000/RTMSDataSvcAptTrade"
    )
    response = admin_api.post(
        f"/api/v1/providers/{tool.service.provider_id}/credential/", {"service_key": SECRET_KEY}, format="json"
    )
    assert response.status_code == 200
    assert_clean("the credential API's answer", response.content.decode())
    return Tool.objects.select_related("service__provider").get(pk=tool.pk)


def test_the_key_is_nowhere_after_every_kind_of_call(keyed_tool, admin, admin_api, client_as, caplog):
    caplog.set_level(logging.DEBUG)
    sandbox_base_url = keyed_tool.service.base_url
    outputs: list[tuple[str, str]] = []
    errors: list[BaseException] = []
    execute = f"/api/v1/tools/{keyed_tool.pk}/execute/"

    def api(payload):
        response = admin_api.post(execute, payload, format="json")
        outputs.append((f"POST execute {payload}", response.content.decode()))
        return response

    # Live at the sandbox with the stored key, with a key given per call, and a key pasted into a parameter.
    assert api({"params": APT_TRADE_PARAMS, "mode": "live"}).json()["ok"] is True
    assert api({"params": APT_TRADE_PARAMS, "mode": "live", "service_key": SECRET_KEY}).json()["ok"] is True
    assert api({"params": {**APT_TRADE_PARAMS, "serviceKey": SECRET_KEY}, "mode": "live"}).json()["ok"] is True
    pasted = api({"params": {"LAWD_CD": "11680", "DEAL_YMD": SECRET_KEY}, "mode": "live"}).json()
    assert pasted["ok"] is False
    recorded = api({"params": APT_TRADE_PARAMS, "mode": "record", "record_target": "live"}).json()
    outputs.append(("drift", json.dumps(drift_check(call=ApiCall.objects.get(pk=recorded["call"])).to_dict())))

    # A host that echoes the request (key included) back in its body, then the same host failing.
    path = "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
    with FixtureServer(timeout_hold_s=1.0) as echo:
        ApiService.objects.filter(pk=keyed_tool.service_id).update(base_url=f"{echo.url}/1613000/RTMSDataSvcAptTrade")
        echoed = api({"params": APT_TRADE_PARAMS, "mode": "live"}).json()
        assert echoed["ok"] and echoed["records"][0]["serviceKey"] == "***"
        assert any(r.query.get("serviceKey") == SECRET_KEY for r in echo.requests)  # it did go out
        echo.fail_next(path, "truncate", "truncate", "truncate")
        assert api({"params": APT_TRADE_PARAMS, "mode": "live"}).json()["error_class"] == "env.truncated"
        echo.fail_next(path, "timeout", "reset", "503")
        assert api({"params": APT_TRADE_PARAMS, "mode": "live"}).json()["ok"] is False

        # The try-it page, live, with the key typed in.
        page = client_as(admin).post(
            reverse("apis:tool_try", args=[keyed_tool.pk]),
            {**{f"param__{k}": v for k, v in APT_TRADE_PARAMS.items()}, "mode": "live", "service_key": SECRET_KEY},
            HTTP_HX_REQUEST="true",
        )
        outputs.append(("the try-it result", page.content.decode()))
        assert 'data-record-count="1"' in page.content.decode()

    # A host that cannot be reached, and one with a scheme httpx refuses.
    ApiService.objects.filter(pk=keyed_tool.service_id).update(base_url="http://127.0.0.1:9/1613000/X")
    assert api({"params": APT_TRADE_PARAMS, "mode": "live"}).json()["error_class"] == "env.connection"
    ApiService.objects.filter(pk=keyed_tool.service_id).update(base_url="ftp://127.0.0.1/1613000/X")
    assert api({"params": APT_TRADE_PARAMS, "mode": "live"}).json()["ok"] is False

    # An exception inside the executor whose text carries the full URL, key and all.
    async def explode(self, method, url, **kwargs):
        raise RuntimeError(f"exploded sending {url}?serviceKey={quote(SECRET_KEY, safe='')} ({kwargs['params']})")

    tool = Tool.objects.select_related("service__provider").get(pk=keyed_tool.pk)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(httpx.AsyncClient, "request", explode)
        fault = api({"params": APT_TRADE_PARAMS, "mode": "live"})
        assert fault.status_code == 502
        try:
            tool_execute(tool=tool, params=APT_TRADE_PARAMS, options=CallOptions(mode="live"))
        except ExecutorFault as exc:
            errors.append(exc)
    assert len(errors) == 1

    # The MCP server, live at the sandbox again, with the stored key.
    ApiService.objects.filter(pk=keyed_tool.service_id).update(base_url=sandbox_base_url)
    server = build_server([Tool.objects.select_related("service__provider").get(pk=keyed_tool.pk)], mode="live")

    async def mcp_exchange():
        from mcp import Client

        async with Client(server) as client:
            return await client.call_tool(APT_TRADE, APT_TRADE_PARAMS)

    mcp_result = in_thread(mcp_exchange)
    assert mcp_result.structured_content["ok"] is True
    outputs.append(("the MCP result", mcp_result.model_dump_json()))

    # --- Search everything -----------------------------------------------------------------------------
    calls = list(ApiCall.objects.all())
    assert len(calls) >= 15
    for call in calls:
        assert_clean(f"ApiCall #{call.pk}", json.dumps(model_to_dict(call, exclude=["body_gz"]), default=str))
        if call.body_gz is not None:
            assert_clean(f"ApiCall #{call.pk}'s body", gzip.decompress(bytes(call.body_gz)).decode())
    assert_clean("the stored credential", Credential.objects.get().ciphertext)

    for label, text in outputs:
        assert_clean(label, text)
    for url in [
        "/api/v1/calls/?limit=500",
        *[f"/api/v1/calls/{c.pk}/" for c in calls],
        "/api/v1/providers/",
        "/api/v1/services/",
        f"/api/v1/tools/{keyed_tool.pk}/",
    ]:
        assert_clean(f"GET {url}", admin_api.get(url).content.decode())
    pages = client_as(admin)
    for url in [
        reverse("apis:index"),
        reverse("apis:calls"),
        reverse("apis:tool", args=[keyed_tool.pk]),
        reverse("apis:service", args=[keyed_tool.service_id]),
        *[reverse("apis:call", args=[c.pk]) for c in calls],
        f"/admin/apis/credential/{Credential.objects.get().pk}/change/",
        "/admin/apis/apicall/",
        f"/admin/apis/apicall/{calls[0].pk}/change/",
    ]:
        response = pages.get(url)
        assert response.status_code == 200, url
        assert_clean(f"the page {url}", response.content.decode())

    for exc in errors:
        assert_clean("an exception", "".join(traceback.format_exception(exc)) + repr(exc))
    assert_clean("the logs", "\n".join(record.getMessage() for record in caplog.records) + caplog.text)

    # The database file itself, main file and write-ahead log, byte by byte. Read by a child process: closing
    # a descriptor of the file here would drop this process's SQLite locks on it.
    for suffix in ("", "-wal"):
        path = connection.settings_dict["NAME"] + suffix
        raw = subprocess.run(["cat", path], capture_output=True, check=False).stdout.decode("latin-1")
        assert_clean(f"the database file{suffix}", raw)
