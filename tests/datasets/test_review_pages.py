"""Review console pages: the queue, the review screen and its actions, conflicts (409 with both versions), bulk
decisions, versions, guidelines and the dashboard; and query counts that do not grow with the page size."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from datasets import review
from datasets.models import DatasetVersion, ReviewDecision, Trajectory
from kopa_site.concurrency import version_token
from tests.datasets.review_world import make_trajectories

pytestmark = pytest.mark.django_db


def test_review_pages_need_a_role(client_as, people, items):
    outsider = client_as(people.outsider)
    for name, args in (("review", []), ("review_item", [items[0].pk]), ("versions", []), ("dashboard", [])):
        assert outsider.get(reverse(f"datasets:{name}", args=args)).status_code == 403


def test_an_annotator_works_the_queue(client_as, people, items):
    client = client_as(people.annotator)
    page = client.get(reverse("datasets:review"))
    assert page.status_code == 200 and b'id="waiting-count">4<' in page.content

    response = client.post(reverse("datasets:review_next"), {"filters": "provider=molit"})
    molit = [t for t in items if "molit" in t.providers]
    assert response.status_code == 302 and response["Location"].startswith(
        reverse("datasets:review_item", args=[molit[0].pk])
    )
    screen = client.get(response["Location"])
    text = screen.content.decode()
    assert "You hold this item" in text and 'data-key="a"' in text and "정답:" in text
    assert "청운동" in text and "Raw JSON" in text and "Fed by" in text

    response = client.post(reverse("datasets:review_approve", args=[molit[0].pk]), {"filters": "provider=molit"})
    # The only molit item is decided: back to the queue, which says so.
    assert response.status_code == 302 and response["Location"].startswith(reverse("datasets:review"))
    assert Trajectory.objects.get(pk=molit[0].pk).status == Trajectory.Status.APPROVED

    other = client.post(reverse("datasets:review_next"), {"filters": ""})
    nxt = other["Location"]
    pk = int(nxt.split("/review/")[1].split("/")[0])
    response = client.post(reverse("datasets:review_reject", args=[pk]), {"reason": "", "filters": ""})
    assert response.status_code == 302
    follow = client.get(response["Location"])
    assert "a rejection needs a reason" in follow.content.decode()
    done = client.post(reverse("datasets:review_reject", args=[pk]), {"reason": "incoherent_chain", "filters": ""})
    assert f"Trajectory #{pk}: rejected." in client.get(done["Location"]).content.decode()
    assert ReviewDecision.objects.get(trajectory_id=pk).reason == "incoherent_chain"
    client.post(reverse("datasets:review_undo", args=[pk]), {"filters": ""})
    assert Trajectory.objects.get(pk=pk).status == Trajectory.Status.PENDING_REVIEW


def test_editing_on_the_screen_and_a_stale_edit_gets_the_conflict_screen(client_as, people, items):
    item = items[0]
    anna, otto = client_as(people.annotator), client_as(people.other_annotator)
    form = {
        "expected_version": "1",
        "request": "고친 요청입니다",
        "answer": item.answer,
        "short_answer": item.short_answer,
        "arguments_0": json.dumps({"sido": "부산광역시"}),
        "arguments_1": json.dumps({"code": "1111010100", "ym": "202610"}),
        "filters": "",
    }
    assert anna.post(reverse("datasets:review_edit", args=[item.pk]), form).status_code == 302
    item.refresh_from_db()
    assert item.version == 2 and item.request == "고친 요청입니다"
    assert item.calls.get(seq=0).arguments == {"sido": "부산광역시"}

    stale = otto.post(reverse("datasets:review_edit", args=[item.pk]), {**form, "request": "오토의 요청"})
    text = stale.content.decode()
    assert stale.status_code == 409
    assert "오토의 요청" in text and "고친 요청입니다" in text and "Save mine over version 2" in text
    item.refresh_from_db()
    assert item.request == "고친 요청입니다"

    bad = anna.post(
        reverse("datasets:review_edit", args=[item.pk]), {**form, "expected_version": "2", "arguments_0": "{"}
    )
    assert bad.status_code == 400 and "not valid JSON" in bad.content.decode()

    screen = anna.get(reverse("datasets:review_item", args=[item.pk])).content.decode()
    assert "version 2" in screen and "restore the version before (1)" in screen
    anna.post(reverse("datasets:review_restore", args=[item.pk]), {"version": "1", "expected_version": "2"})
    item.refresh_from_db()
    assert item.version == 3 and item.request == items[0].request


def test_reviewers_adjudicate_bulk_decide_and_freeze(client_as, people, items):
    review.review_policy_update(user=people.admin, overlap=2)
    anna, otto, rita = client_as(people.annotator), client_as(people.other_annotator), client_as(people.reviewer)
    item = review.trajectory_claim(user=people.annotator)
    review.trajectory_approve(trajectory=item, user=people.annotator)
    review.trajectory_claim(user=people.other_annotator, trajectory=item)
    review.trajectory_reject(trajectory=item, user=people.other_annotator, reason="duplicate")

    assert 'data-key="a"' not in anna.get(reverse("datasets:review_item", args=[item.pk])).content.decode()
    screen = rita.get(reverse("datasets:review_item", args=[item.pk])).content.decode()
    assert "Adjudicate: approve" in screen
    rita.post(reverse("datasets:review_approve", args=[item.pk]), {"filters": ""})
    assert Trajectory.objects.get(pk=item.pk).status == Trajectory.Status.APPROVED

    # Bulk needs the reviewer role and the confirmed count.
    assert otto.post(reverse("datasets:review_bulk"), {"decision": "approve", "expected_count": "2"}).status_code == 403
    assert otto.get(reverse("datasets:review_bulk")).status_code == 403
    confirm = rita.get(reverse("datasets:review_bulk"), {"length": "2"}).content.decode()
    assert 'id="actionable-count">3<' in confirm and 'name="filters" value="length=2"' in confirm
    rita.post(reverse("datasets:review_bulk"), {"decision": "approve", "expected_count": "5", "filters": ""})
    assert Trajectory.objects.filter(status=Trajectory.Status.APPROVED).count() == 1
    rita.post(reverse("datasets:review_bulk"), {"decision": "approve", "expected_count": "3", "filters": ""})
    assert Trajectory.objects.filter(status=Trajectory.Status.APPROVED).count() == 4

    assert anna.post(reverse("datasets:version_freeze"), {"name": "x"}).status_code == 403
    response = rita.post(reverse("datasets:version_freeze"), {"name": "all-v1", "filters": "length=2"})
    version = DatasetVersion.objects.get(name="all-v1")
    assert response["Location"] == reverse("datasets:version", args=[version.pk])
    assert version.item_count == 4 and version.filter == {"length": "2"}
    page = rita.get(reverse("datasets:version", args=[version.pk])).content.decode()
    assert version.checksum in page and "Agreement on these items" in page and "1 item had two or more" in page
    lines = b"".join(rita.get(reverse("datasets:version_download", args=[version.pk])).streaming_content).splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["messages"][1]["role"] == "user"


def test_guidelines_are_markdown_that_admins_edit_and_html_stays_text(client_as, people, db):
    admin, anna = client_as(people.admin), client_as(people.annotator)
    text = "# 기준\n\n- **자연스러운** 요청\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))"
    assert anna.post(reverse("datasets:guidelines"), {"guidelines": "nope"}).status_code == 403
    read = version_token(review.review_policy())
    saved = admin.post(
        reverse("datasets:guidelines"), {"guidelines": text, "overlap": "2", "lease_minutes": "15", "version": read}
    )
    assert saved.status_code == 302
    page = anna.get(reverse("datasets:guidelines")).content.decode()
    assert "<h1>기준</h1>" in page and "<strong>자연스러운</strong>" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert 'href="javascript:' not in page
    assert review.review_policy().overlap == 2 and review.review_policy().lease_minutes == 15


def test_the_dashboard_shows_progress_throughput_agreement_and_reasons(client_as, people, items):
    review.review_policy_update(user=people.admin, overlap=2)
    for user, verdict in ((people.annotator, "approve"), (people.other_annotator, "reject")):
        held = review.trajectory_claim(user=user, trajectory=items[0])
        if verdict == "approve":
            review.trajectory_approve(trajectory=held, user=user)
        else:
            review.trajectory_reject(trajectory=held, user=user, reason="wrong_binding")
    page = client_as(people.annotator).get(reverse("datasets:dashboard")).content.decode()
    assert 'id="status-data"' in page and "needs adjudication" in page
    assert "1 item decided by two or more annotators; 0 agreed" in page
    assert "wrong binding" in page and "vendor/plotly.min.js" in page


@pytest.mark.parametrize("name", ["review", "dashboard", "versions"])
def test_console_pages_use_a_fixed_number_of_queries(client_as, people, name, django_assert_max_num_queries):
    review.review_policy()
    client = client_as(people.reviewer)
    make_trajectories(3)
    client.get(reverse(f"datasets:{name}"))  # warm the session and the policy row
    with django_assert_max_num_queries(14) as small:
        client.get(reverse(f"datasets:{name}"))
    make_trajectories(40)
    for t in Trajectory.objects.all()[:30]:
        Trajectory.objects.filter(pk=t.pk).update(held_by=people.annotator)
    with django_assert_max_num_queries(len(small.captured_queries)):
        client.get(reverse(f"datasets:{name}"))


def test_the_screen_shows_each_calls_response_as_the_api_sent_it(client_as, people, items):
    """Issue 14, point 2: beside the readable table, the raw JSON the model sees and the raw XML the API answered."""
    import gzip

    from apis.models import ApiCall

    xml = "<response><header><resultCode>00</resultCode></header><body><items><item><법정동명>청운동</법정동명></item></items></body></response>"
    api_call = ApiCall.objects.create(
        mode=ApiCall.Mode.SANDBOX,
        request_hash="0" * 64,
        ok=True,
        content_type="application/xml; charset=utf-8",
        body_gz=gzip.compress(xml.encode("utf-8")),
    )
    call = items[0].calls.order_by("seq").first()
    type(call).objects.filter(pk=call.pk).update(api_call=api_call)

    text = client_as(people.annotator).get(reverse("datasets:review_item", args=[items[0].pk])).content.decode()
    assert f'id="response-{call.seq}"' in text and "Raw XML response, as the API sent it" in text
    assert "&lt;resultCode&gt;00&lt;/resultCode&gt;\n&lt;/header&gt;" in text  # one element a line, escaped
    assert reverse("apis:call", args=[api_call.pk]) in text and "application/xml" in text


def test_two_admins_editing_the_guidelines_the_second_gets_both_versions_and_loses_nothing(client_as, people, db):
    """Issue 17, point 8 (the review console needs the same): the page carries the version it was read at."""
    admin = client_as(people.admin)
    page = admin.get(reverse("datasets:guidelines")).content.decode()
    read = version_token(review.review_policy())
    assert f'name="version" value="{read}"' in page
    review.review_policy_update(user=people.admin, guidelines="# 먼저 저장한 기준", expected_version=None)

    stale = admin.post(
        reverse("datasets:guidelines"),
        {"guidelines": "# 나중에 쓴 기준", "overlap": "1", "lease_minutes": "30", "version": read},
    )
    body = stale.content.decode()
    assert stale.status_code == 409 and "nothing was saved" in body
    assert "<h1>먼저 저장한 기준</h1>" in body and "# 나중에 쓴 기준</textarea>" in body  # stored, and theirs
    assert review.review_policy().guidelines == "# 먼저 저장한 기준"

    merged = admin.post(
        reverse("datasets:guidelines"),
        {
            "guidelines": "# 합친 기준",
            "overlap": "1",
            "lease_minutes": "30",
            "version": version_token(review.review_policy()),
        },
    )
    assert merged.status_code == 302 and review.review_policy().guidelines == "# 합친 기준"
    damaged = admin.post(reverse("datasets:guidelines"), {"guidelines": "x", "overlap": "1", "version": "yesterday"})
    assert damaged.status_code == 302 and review.review_policy().guidelines == "# 합친 기준"
