"""Every refused review action says why: on the screen as an error message back where the action was asked (a
stale edit as the conflict screen, 409; an edit the service refused as the edit panel again, 400), in the API as
the refusal's status with {"detail": reason} (kopa_site.errors)."""

from __future__ import annotations

import json

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from datasets import review
from datasets.models import REJECT_REASONS, Trajectory
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

FILTERS = "provider=molit"


def _said(response) -> list[str]:
    """The messages the response leaves for the next page; each test client's are dropped once read."""
    response.client.cookies.pop("messages", None)
    return [str(message) for message in get_messages(response.wsgi_request)]


def _screen(pk: int) -> str:
    return reverse("datasets:review_item", args=[pk]) + f"?{FILTERS}"


@pytest.fixture
def held(people, items) -> Trajectory:
    """The first item, held by the annotator."""
    review.trajectory_claim(user=people.annotator, trajectory=items[0])
    return items[0]


def test_a_refused_action_on_the_screen_goes_back_to_it_with_the_reason(client_as, people, items, held):
    anna = client_as(people.annotator)
    reasons = ", ".join(code for code, _label in REJECT_REASONS)
    refused = [
        (
            "review_reject",
            [held.pk],
            {"reason": ""},
            f"a rejection needs a reason: one of {reasons}",
        ),
        (
            "review_approve",
            [items[1].pk],
            {},
            f"you do not hold trajectory #{items[1].pk}; claim it from the queue first",
        ),
        ("review_undo", [held.pk], {}, f"you have nothing to undo on trajectory #{held.pk}"),
        ("review_restore", [held.pk], {"version": "one"}, "Which version? Nothing was restored."),
        (
            "review_restore",
            [held.pk],
            {"version": "9", "expected_version": "1"},
            f"trajectory #{held.pk} has no version 9",
        ),
        (
            "review_reexecute",
            [held.pk, 0],
            {"expected_version": "1", "arguments": "{not json"},
            "The arguments are not valid JSON (or the version is missing); nothing ran.",
        ),
        (
            "review_reexecute",
            [held.pk, 99],
            {"expected_version": "1", "arguments": "{}"},
            f"trajectory #{held.pk} has no call 99",
        ),
        (
            "review_edit",
            [held.pk],
            {"request": "고친 요청"},
            "The form lost its version number; reload the item. Nothing was saved.",
        ),
    ]
    for name, args, form, reason in refused:
        response = anna.post(reverse(f"datasets:{name}", args=args), {**form, "filters": FILTERS})
        assert (response.status_code, response["Location"], _said(response)) == (302, _screen(args[0]), [reason]), name

    review.trajectory_claim(user=people.other_annotator, trajectory=items[1])
    claimed = anna.post(reverse("datasets:review_claim", args=[items[1].pk]), {"filters": FILTERS})
    assert claimed["Location"] == _screen(items[1].pk)
    assert _said(claimed)[0].startswith(f"trajectory #{items[1].pk} cannot be claimed: it is held by someone else")
    assert Trajectory.objects.get(pk=held.pk).version == 1


def test_an_edit_the_service_refuses_shows_the_edit_panel_again_with_what_was_typed(client_as, people, held):
    anna = client_as(people.annotator)
    url = reverse("datasets:review_edit", args=[held.pk])

    broken = anna.post(
        url, {"expected_version": "1", "request": "고친 요청", "arguments_0": '{"sido": 서울', "filters": FILTERS}
    )
    assert broken.status_code == 400
    [said] = _said(broken)
    assert said.startswith("The arguments of call 0 are not valid JSON (") and said.endswith("); nothing was saved.")
    assert "고친 요청</textarea>" in broken.content.decode()

    empty = anna.post(url, {"expected_version": "1", "request": " ", "filters": FILTERS})
    assert empty.status_code == 400 and _said(empty) == ["the request cannot be empty; nothing was saved."]
    assert Trajectory.objects.get(pk=held.pk).version == 1


def test_a_stale_restore_or_edit_gets_the_conflict_screen_with_both_versions(client_as, people, held):
    review.trajectory_edit(trajectory=held, user=people.annotator, expected_version=1, request="먼저 고친 요청")
    anna = client_as(people.annotator)
    restore = anna.post(reverse("datasets:review_restore", args=[held.pk]), {"version": "1", "expected_version": "1"})
    assert restore.status_code == 409 and "Save mine over version 2" in restore.content.decode()
    edit = anna.post(
        reverse("datasets:review_edit", args=[held.pk]), {"expected_version": "1", "request": "늦게 고친 요청"}
    )
    text = edit.content.decode()
    assert edit.status_code == 409 and "먼저 고친 요청" in text and "늦게 고친 요청" in text
    assert Trajectory.objects.get(pk=held.pk).version == 2


def test_refused_bulk_decisions_and_freezes_go_back_with_their_filters(client_as, people, items):
    rita = client_as(people.reviewer)
    queue = reverse("datasets:review") + f"?{FILTERS}"
    for count, reason in (
        ("", "Confirm the number of items first; nothing was changed."),
        (
            "7",
            "the filter now matches 2 item(s) awaiting a decision, not 7; nothing was changed, confirm the new count",
        ),
    ):
        response = rita.post(
            reverse("datasets:review_bulk"), {"decision": "approve", "expected_count": count, "filters": FILTERS}
        )
        assert (response["Location"], _said(response)) == (queue, [reason])
    freeze = rita.post(reverse("datasets:version_freeze"), {"name": "Not A Name", "filters": FILTERS})
    assert freeze["Location"] == reverse("datasets:versions") + f"?{FILTERS}"
    assert _said(freeze) == ["a version name is 1-100 lowercase letters, digits, dots, dashes or underscores"]
    assert not Trajectory.objects.filter(status=Trajectory.Status.APPROVED).exists()


def test_refused_guidelines_go_back_to_the_page_saying_nothing_was_saved(client_as, people, db):
    ada = client_as(people.admin)
    url = reverse("datasets:guidelines")
    version = ada.get(url).context["version"]
    for form, reason in (
        ({"overlap": "20"}, "Not saved: overlap must be between 1 and 10 annotators"),
        ({"lease_minutes": "0"}, "Not saved: the lease must be between 1 minute and 24 hours"),
        (
            {"version": "yesterday"},
            "Not saved: the version is the value read with the object (e.g. 2026-01-31T09:00:00.123456+00:00)",
        ),
    ):
        response = ada.post(url, {"guidelines": "# 새 기준", "version": version, **form})
        assert (response.status_code, response["Location"], _said(response)) == (302, url, [reason])
    assert review.review_policy().guidelines != "# 새 기준"


# --- The API --------------------------------------------------------------------------------------------


def test_each_refused_api_action_answers_its_status_with_the_reason(annotator_api, reviewer_api, annotator, items):
    other = make_user("otto", "annotator")
    review.trajectory_claim(user=other, trajectory=items[1])
    review.trajectory_claim(user=annotator, trajectory=items[0])
    pk, taken = items[0].pk, items[1].pk
    refused = [
        (
            annotator_api,
            f"{taken}/claim/",
            {},
            409,
            f"trajectory #{taken} cannot be claimed: it is held by someone else, not awaiting review, already decided "
            "by you or has its decisions",
        ),
        (
            annotator_api,
            f"{taken}/approve/",
            {},
            409,
            f"you do not hold trajectory #{taken}; claim it from the queue first",
        ),
        (
            annotator_api,
            f"{pk}/reject/",
            {"reason": "other"},
            400,
            'the reason "other" needs a note saying what is wrong',
        ),
        (annotator_api, f"{pk}/undo/", {}, 400, f"you have nothing to undo on trajectory #{pk}"),
        (
            annotator_api,
            f"{pk}/restore/",
            {"version": 9, "expected_version": 1},
            400,
            f"trajectory #{pk} has no version 9",
        ),
        (
            reviewer_api,
            f"{pk}/adjudicate/",
            {"decision": "approve"},
            400,
            f"trajectory #{pk} is pending review; only disputed items are adjudicated",
        ),
        (
            reviewer_api,
            "bulk/",
            {"decision": "approve", "expected_count": 9},
            400,
            "the filter now matches 4 item(s) awaiting a decision, not 9; nothing was changed, confirm the new count",
        ),
    ]
    for client, path, body, status, reason in refused:
        response = client.post(f"/api/v1/review/{path}", body, format="json")
        assert (response.status_code, response.json()) == (status, {"detail": reason}), path
    frozen = reviewer_api.post("/api/v1/dataset-versions/", {"name": "Not A Name", "filter": {}}, format="json")
    assert frozen.status_code == 400
    assert frozen.json() == {"detail": "a version name is 1-100 lowercase letters, digits, dots, dashes or underscores"}


def test_a_stale_api_edit_is_409_with_the_reason_and_both_versions(annotator_api, annotator, items):
    review.trajectory_edit(trajectory=items[0], user=annotator, expected_version=1, request="먼저 고친 요청")
    stale = annotator_api.post(
        f"/api/v1/review/{items[0].pk}/edit/", {"expected_version": 1, "answer": "늦은 답"}, format="json"
    )
    assert stale.status_code == 409
    body = stale.json()
    assert body["detail"] == (
        f"trajectory #{items[0].pk} changed since you opened it (you edited version 1, it is now version 2); "
        "nothing was saved"
    )
    assert (body["expected_version"], body["current_version"]) == (1, 2)
    assert (body["theirs"]["request"], body["mine"]["answer"]) == ("먼저 고친 요청", "늦은 답")
    assert json.dumps(body, ensure_ascii=False).count("Traceback") == 0
