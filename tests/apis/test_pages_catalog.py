"""Catalog pages: browse and search tools, a tool's schema and try-it form, a service and its key, the import button."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from apis.crypto import decrypt
from apis.models import ApiCall, Credential, Tool
from apis.services import credential_set
from kopa_site.models import Job
from tests.apis.conftest import APT_TRADE, APT_TRADE_PARAMS

pytestmark = pytest.mark.django_db


def html_of(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_anonymous_visitors_go_to_login_and_role_less_users_are_refused(client, client_as, outsider, catalog):
    assert client.get(reverse("apis:index"))["Location"].startswith(reverse("login"))
    assert client_as(outsider).get(reverse("apis:index")).status_code == 403
    tool = Tool.objects.first()
    assert client_as(outsider).get(reverse("apis:tool", args=[tool.pk])).status_code == 403


def test_an_empty_catalog_says_how_to_fill_it(client_as, annotator, admin):
    # Each role is told what it can do: an admin gets the button and commands, an annotator who has neither is
    # told who imports (issue 18: empty states pointed at actions the role does not have).
    html = html_of(client_as(admin).get(reverse("apis:index")))
    assert "No tools imported yet" in html and "catalog_import" in html and "Import bundled catalog" in html
    html = html_of(client_as(annotator).get(reverse("apis:index")))
    assert "No tools imported yet" in html and "An admin imports tools" in html
    assert "catalog_import" not in html and "button above" not in html


@pytest.mark.smoke
def test_the_catalog_lists_providers_and_tools(client_as, annotator, catalog):
    response = client_as(annotator).get(reverse("apis:index"))

    html = html_of(response)
    assert "국토교통부" in html and "apis.data.go.kr/1613000" in html
    assert APT_TRADE in html and "아파트 매매 실거래가 자료 조회" in html
    assert response.context["page"].paginator.count == Tool.objects.filter(is_active=True).count()


def test_the_catalog_searches_words_and_filters_by_provider_and_family(client_as, annotator, catalog):
    client = client_as(annotator)

    searched = client.get(reverse("apis:index"), {"q": "아파트 매매"}).context["page"].object_list
    by_provider = client.get(reverse("apis:index"), {"provider": "apis.data.go.kr/1741000"}).context["page"]
    by_family = client.get(reverse("apis:index"), {"family": "datagokr_nonstandard"}).context["page"]

    assert APT_TRADE in {t.function_name for t in searched}
    assert all("아파트" in t.name_ko + t.description_ko for t in searched)
    assert {t.service.provider.code for t in by_provider.object_list} == {"apis.data.go.kr/1741000"}
    assert by_family.paginator.count and all(t.service.family == "datagokr_nonstandard" for t in by_family.object_list)


def test_the_catalog_page_takes_a_fixed_number_of_queries(client_as, annotator, catalog, django_assert_num_queries):
    client = client_as(annotator)
    client.get(reverse("apis:index"))

    # session, user, role; providers (with counts and key status), families, count, the page of tools
    with django_assert_num_queries(7):
        response = client.get(reverse("apis:index"))
    assert len(response.context["page"].object_list) > 20


def test_only_reviewers_see_and_use_the_import_button(
    client_as, annotator, reviewer, django_capture_on_commit_callbacks
):
    assert "Import bundled catalog" not in html_of(client_as(annotator).get(reverse("apis:index")))
    assert client_as(annotator).post(reverse("apis:import_bundled")).status_code == 403
    client = client_as(reviewer)
    assert "Import bundled catalog" in html_of(client.get(reverse("apis:index")))

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("apis:import_bundled"))

    job = Job.objects.get()
    assert response["Location"] == reverse("jobs:detail", args=[job.pk])
    job.refresh_from_db()
    assert (job.kind, job.status, job.created_by) == ("catalog.import_bundled", "succeeded", reviewer)
    assert Tool.objects.count() == job.result["counts"]["added"] > 0


# --- A tool -------------------------------------------------------------------------------------------


def test_a_tool_page_shows_its_schema_fields_examples_and_function(client_as, annotator, apt_trade):
    ApiCall.objects.create(tool=apt_trade, mode="sandbox", ok=True, record_count=10, source_kind="page")

    html = html_of(client_as(annotator).get(reverse("apis:tool", args=[apt_trade.pk])))

    assert "https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade" in html
    assert "지역코드 (법정동코드 앞 5자리, 시군구)" in html and "<code>11680</code>" in html
    assert "dealAmount" in html  # record fields
    assert "&quot;type&quot;: &quot;function&quot;" in html  # the function schema
    assert "Recent calls" in html and ">page<" in html


def test_the_try_it_form_puts_required_first_enums_in_selects_and_examples_as_placeholders(
    client_as, annotator, catalog
):
    tool = Tool.objects.select_related("service__provider").get(function_name="get_br_title_info")
    html = html_of(client_as(annotator).get(reverse("apis:tool", args=[tool.pk])))
    form = html[html.index('id="try-form"') :]

    names = re.findall(r'name="param__([^"]+)"', form)
    assert names[: len(tool.required_params)] == tool.required_params
    assert set(names) == set(tool.parameters["properties"])
    assert re.search(
        r'<select name="param__platGbCd"[^>]*>\s*<option value="" selected>—</option>\s*<option value="0">', form
    )
    assert 'placeholder="11680"' in form
    modes = re.findall(r'<option value="(sandbox|replay|live|record)"', form)
    assert modes == ["sandbox", "replay"]  # annotators cannot spend a real key


@pytest.mark.slow
def test_trying_a_tool_with_htmx_returns_the_records_beside_the_raw_body(
    client_as, annotator, apt_trade, executor_settings
):
    data = {f"param__{k}": v for k, v in APT_TRADE_PARAMS.items()} | {"mode": "sandbox"}

    response = client_as(annotator).post(reverse("apis:tool_try", args=[apt_trade.pk]), data, HTTP_HX_REQUEST="true")

    html = html_of(response)
    assert "<html" not in html  # a fragment for htmx to swap in
    assert 'data-record-count="10"' in html
    assert '<th scope="col">aptNm</th>' in html
    assert "&lt;resultCode&gt;000&lt;/resultCode&gt;" in html  # the raw XML body, escaped
    call = ApiCall.objects.get()
    assert (call.source_kind, call.created_by, call.mode) == ("page", annotator, "sandbox")
    assert f'href="{reverse("apis:call", args=[call.pk])}"' in html


@pytest.mark.slow
def test_trying_a_tool_without_htmx_renders_the_whole_page(client_as, annotator, apt_trade, executor_settings):
    data = {f"param__{k}": v for k, v in APT_TRADE_PARAMS.items()} | {"mode": "sandbox"}
    html = html_of(client_as(annotator).post(reverse("apis:tool_try", args=[apt_trade.pk]), data))
    assert "<html" in html and 'data-record-count="10"' in html


def test_the_try_form_reports_missing_fields_and_modes_beyond_the_role(
    client_as, annotator, apt_trade, executor_settings
):
    client = client_as(annotator)
    url = reverse("apis:tool_try", args=[apt_trade.pk])

    missing = html_of(client.post(url, {"param__LAWD_CD": "11680", "mode": "sandbox"}, HTTP_HX_REQUEST="true"))
    live = html_of(
        client.post(
            url, {**{f"param__{k}": v for k, v in APT_TRADE_PARAMS.items()}, "mode": "live"}, HTTP_HX_REQUEST="true"
        )
    )

    assert "DEAL_YMD" in missing and 'class="errorlist"' in missing
    assert "mode" in live and 'class="errorlist"' in live
    assert not ApiCall.objects.exists()


def test_live_mode_without_a_key_shows_the_reason(client_as, reviewer, apt_trade, executor_settings):
    data = {f"param__{k}": v for k, v in APT_TRADE_PARAMS.items()} | {"mode": "live"}
    html = html_of(
        client_as(reviewer).post(reverse("apis:tool_try", args=[apt_trade.pk]), data, HTTP_HX_REQUEST="true")
    )
    assert "live mode needs a service key for 국토교통부" in html


# --- A service ------------------------------------------------------------------------------------------


def test_a_service_page_lists_its_tools_and_whether_a_key_is_set(client_as, annotator, apt_trade):
    url = reverse("apis:service", args=[apt_trade.service_id])
    html = html_of(client_as(annotator).get(url))
    assert APT_TRADE in html and "LAWD_CD" in html and "not set" in html
    assert "Set key" not in html  # only admins manage keys

    credential_set(provider=apt_trade.service.provider, service_key="Zq9+SecretKey/ForPage==")
    html = html_of(client_as(annotator).get(url))
    assert "set • hidden" in html and "SecretKey" not in html


def test_admins_set_replace_and_remove_the_key_which_never_shows(client_as, admin, annotator, apt_trade):
    client = client_as(admin)
    service_url = reverse("apis:service", args=[apt_trade.service_id])
    key_url = reverse("apis:service_credential", args=[apt_trade.service_id])
    assert client_as(annotator).post(key_url, {"service_key": "Zq9+SecretKey/X=="}).status_code == 403

    response = client.post(key_url, {"service_key": "Zq9+SecretKey/X==", "action": "set"}, follow=True)

    html = html_of(response)
    assert "Service key for 국토교통부 set." in html and "SecretKey" not in html
    assert "Replace key" in html and Credential.objects.count() == 1
    short = html_of(client.post(key_url, {"service_key": "ab", "action": "set"}, follow=True))
    assert '<li class="error">' in short and Credential.objects.count() == 1
    client.post(key_url, {"action": "clear"})
    assert not Credential.objects.exists()
    assert "not set" in html_of(client.get(service_url))


def test_admins_change_the_live_base_url(client_as, admin, reviewer, apt_trade):
    url = reverse("apis:service_base_url", args=[apt_trade.service_id])
    assert client_as(reviewer).post(url, {"base_url": "https://mirror.example.org/x"}).status_code == 403

    client_as(admin).post(url, {"base_url": "https://mirror.example.org/x"})

    apt_trade.service.refresh_from_db()
    assert apt_trade.service.base_url == "https://mirror.example.org/x"


# --- Django admin -----------------------------------------------------------------------------------------


def test_the_admin_takes_a_key_write_only(client_as, admin, apt_trade):
    client = client_as(admin)
    provider = apt_trade.service.provider

    response = client.post(
        "/admin/apis/credential/add/", {"provider": provider.pk, "service_key": "Zq9+AdminKey/Only=="}, follow=True
    )

    assert response.status_code == 200
    credential = Credential.objects.get()
    assert credential.updated_by == admin
    assert decrypt(credential.ciphertext) == "Zq9+AdminKey/Only=="
    change = client.get(f"/admin/apis/credential/{credential.pk}/change/").content.decode()
    assert "set • hidden" in change and "AdminKey" not in change and credential.ciphertext not in change


def test_the_admin_lists_every_catalog_model_and_imports_the_bundled_catalog(client_as, admin, apt_trade):
    client = client_as(admin)
    ApiCall.objects.create(tool=apt_trade, mode="sandbox", ok=True)
    for model in ("provider", "apiservice", "tool", "apicall", "credential"):
        assert client.get(f"/admin/apis/{model}/").status_code == 200, model

    response = client.post(
        "/admin/apis/apiservice/",
        {"action": "import_bundled", "_selected_action": [apt_trade.service_id]},
        follow=True,
    )
    assert "Bundled catalog:" in response.content.decode()
