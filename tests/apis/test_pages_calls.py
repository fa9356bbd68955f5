"""The call log pages: filters, a call's request, records and raw body, and the drift check button."""

from __future__ import annotations

import gzip

import pytest
from django.urls import reverse

from apis.models import ApiCall
from apis.services import CallOptions, tool_execute
from tests.apis.conftest import APT_TRADE, APT_TRADE_PARAMS

pytestmark = pytest.mark.django_db


@pytest.fixture
def calls(apt_trade):
    return [
        ApiCall.objects.create(tool=apt_trade, mode="sandbox", ok=True, record_count=10, total_count=428),
        ApiCall.objects.create(tool=apt_trade, mode="live", error_class="env.timeout", attempts=3),
        ApiCall.objects.create(tool=apt_trade, mode="replay", error_class="replay.miss", source_kind="mcp"),
        ApiCall.objects.create(tool=None, mode="sandbox", error_class="struct.auth"),
    ]


def test_the_call_log_lists_calls_newest_first(client_as, annotator, calls):
    response = client_as(annotator).get(reverse("apis:calls"))

    assert list(response.context["page"].object_list) == calls[::-1]
    html = response.content.decode()
    assert "env.timeout" in html and "deleted tool" in html and APT_TRADE in html and "10 / 428" in html


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"mode": ["live", "replay"]}, [2, 1]),
        ({"ok": "true"}, [0]),
        ({"error_kind": "environmental"}, [1]),
        ({"error_kind": "structural"}, [3]),
        ({"source_kind": "mcp"}, [2]),
        ({"function_name": APT_TRADE}, [2, 1, 0]),
    ],
)
def test_the_call_log_filters(client_as, annotator, calls, query, expected):
    page = client_as(annotator).get(reverse("apis:calls"), query).context["page"]
    assert list(page.object_list) == [calls[i] for i in expected]


def test_the_call_log_takes_a_fixed_number_of_queries(client_as, annotator, calls, django_assert_num_queries):
    client = client_as(annotator)
    client.get(reverse("apis:calls"))

    # session, user, role; count, the page (tool, service, provider and user joined)
    with django_assert_num_queries(5):
        response = client.get(reverse("apis:calls"))
    assert len(response.context["page"].object_list) == 4


def test_a_call_page_shows_the_request_records_and_raw_body(client_as, annotator, apt_trade):
    body = (
        '{"response":{"header":{"resultCode":"00","resultMsg":"NORMAL SERVICE."},"body":{"items":{"item":'
        '[{"aptNm":"래미안","dealAmount":"82,000"}]},"numOfRows":10,"pageNo":1,"totalCount":1}}}'
    )
    call = ApiCall.objects.create(
        tool=apt_trade,
        mode="sandbox",
        ok=True,
        request={"method": "GET", "url": "https://apis.data.go.kr/x", "params": [["LAWD_CD", "11680"]]},
        params={"LAWD_CD": "11680"},
        body_gz=gzip.compress(body.encode()),
        content_type="application/json",
    )

    html = client_as(annotator).get(reverse("apis:call", args=[call.pk])).content.decode()

    assert "https://apis.data.go.kr/x" in html
    assert '<th scope="col">aptNm</th>' in html and "<td>래미안</td>" in html
    assert "&quot;dealAmount&quot;: &quot;82,000&quot;" in html  # the raw body, indented
    assert "Check for drift" not in html  # annotators read; reviewers re-run


@pytest.mark.slow
def test_reviewers_check_drift_from_the_call_page(client_as, reviewer, apt_trade, executor_settings):
    call = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=CallOptions(mode="record")).call
    client = client_as(reviewer)
    assert "Check for drift" in client.get(reverse("apis:call", args=[call.pk])).content.decode()

    response = client.post(reverse("apis:call_drift", args=[call.pk]), {"mode": "sandbox"}, HTTP_HX_REQUEST="true")

    html = response.content.decode()
    assert "no drift" in html and "re-run call #" in html
    assert ApiCall.objects.filter(source_kind="drift_check", source_id=str(call.pk)).count() == 1


def test_annotators_cannot_run_drift_checks(client_as, annotator, calls):
    assert client_as(annotator).post(reverse("apis:call_drift", args=[calls[0].pk])).status_code == 403


def test_a_refused_drift_check_says_why_in_the_fragment_or_on_the_call_page(client_as, reviewer, calls):
    from django.contrib.messages import get_messages

    orphan = calls[3]  # its tool was deleted: nothing to re-run
    client = client_as(reviewer)
    url = reverse("apis:call_drift", args=[orphan.pk])
    reason = f"call #{orphan.pk} has no tool any more; it cannot be re-run"
    fragment = client.post(url, {"mode": "sandbox"}, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200
    assert f'<p class="notice error" role="alert">{reason}</p>' in fragment.content.decode()
    page = client.post(url, {"mode": "sandbox"})
    assert page.status_code == 302 and page.url == reverse("apis:call", args=[orphan.pk])
    assert [str(m) for m in get_messages(page.wsgi_request)] == [reason]
    assert not ApiCall.objects.filter(source_kind="drift_check").exists()
