"""The try-it form against what the sandbox can answer, and "Recent calls" after a try (issue 18)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from apis.models import ApiCall, Tool
from apis.services import catalog_import
from tests.apis.conftest import APT_TRADE_PARAMS
from tests.apis.test_services_import import parking_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def foreign_tool(db) -> Tool:
    """A tool imported for a host the bundled sandbox has no emulation for."""
    catalog_import(spec=json.dumps(parking_spec(), ensure_ascii=False), base_url="https://open.example.org/parking")
    return Tool.objects.filter(service__base_url="https://open.example.org/parking").first()


def test_a_tool_on_a_host_the_sandbox_does_not_emulate_says_so_and_which_modes_work(
    client_as, annotator, foreign_tool, settings
):
    settings.KOPA_SANDBOX_ORIGIN = "http://127.0.0.1:9"  # never reached: the call is refused before it is sent
    client = client_as(annotator)
    page = client.get(reverse("apis:tool", args=[foreign_tool.pk])).content.decode()
    assert "The sandbox has no emulation for <code>open.example.org</code>" in page
    data = {f"param__{name}": "1" for name in foreign_tool.required_params} | {"mode": "sandbox"}
    html = client.post(reverse("apis:tool_try", args=[foreign_tool.pk]), data, HTTP_HX_REQUEST="true").content.decode()
    assert "The sandbox has no emulation for open.example.org" in html
    assert "replay mode answers calls recorded before" in html and "Live and record mode" in html
    assert "struct.not_found" not in html and "Not Found" not in html
    assert not ApiCall.objects.exists()


def test_a_bundled_tool_has_no_such_notice(client_as, annotator, apt_trade):
    page = client_as(annotator).get(reverse("apis:tool", args=[apt_trade.pk])).content.decode()
    assert "no emulation" not in page


@pytest.mark.slow
def test_recent_calls_list_the_call_just_made_in_the_same_swap(client_as, annotator, apt_trade, executor_settings):
    data = {f"param__{k}": v for k, v in APT_TRADE_PARAMS.items()} | {"mode": "sandbox"}
    client = client_as(annotator)
    assert "No calls yet" in client.get(reverse("apis:tool", args=[apt_trade.pk])).content.decode()

    html = client.post(reverse("apis:tool_try", args=[apt_trade.pk]), data, HTTP_HX_REQUEST="true").content.decode()

    call = ApiCall.objects.get()
    # htmx swaps the result into #try-result and, out of band, the refreshed list into #recent-calls.
    assert '<section id="recent-calls" aria-labelledby="calls-heading" hx-swap-oob="true">' in html
    recent = html.split('id="recent-calls"', 1)[1]
    assert f'href="{reverse("apis:call", args=[call.pk])}">{call.pk}</a>' in recent


def test_a_refused_try_without_htmx_shows_the_whole_tool_page_with_the_reason(
    client_as, annotator, foreign_tool, settings
):
    settings.KOPA_SANDBOX_ORIGIN = "http://127.0.0.1:9"
    data = {f"param__{name}": "1" for name in foreign_tool.required_params} | {"mode": "sandbox"}
    response = client_as(annotator).post(reverse("apis:tool_try", args=[foreign_tool.pk]), data)
    html = response.content.decode()
    assert response.status_code == 200 and response.context["tried"] is True
    assert '<p class="notice error" role="alert">The sandbox has no emulation for open.example.org' in html
    assert f'action="{reverse("apis:tool_try", args=[foreign_tool.pk])}"' in html  # the form, to try again
    assert not ApiCall.objects.exists()
