"""Re-executing a call of a synthesized trajectory through the catalog's executor (the session sandbox, over a real
socket): the new observation is stored as a revision, diffed against the stored one, and undo brings it back."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from apis.models import ApiCall
from datasets import review
from datasets.models import Trajectory, TrajectoryCall
from datasets.services import synthesis_run_create, synthesis_run_execute
from tests.support.users import make_user

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def trajectory(snapshot):
    run = synthesis_run_create(params={"count": 2, "seed": 3, "min_length": 2, "max_length": 3}, snapshot=snapshot)
    synthesis_run_execute(run=run)
    return Trajectory.objects.filter(run=run, status=Trajectory.Status.PENDING_REVIEW).order_by("id").first()


def _paged_call(trajectory: Trajectory) -> TrajectoryCall:
    """A call whose arguments include a page size, so asking for fewer rows changes the observation."""
    for call in trajectory.calls.order_by("seq"):
        if "numOfRows" in (call.arguments or {}):
            return call
    return trajectory.calls.order_by("seq").first()


def stored_after(revision, seq: int) -> dict:
    return next(c["observation"] for c in revision.after["calls"] if c["seq"] == seq)


def test_re_executing_a_call_stores_the_new_observation_with_a_diff(trajectory):
    anna = make_user("anna", "annotator")
    call = _paged_call(trajectory)
    before = call.observation
    same, changes = review.trajectory_call_reexecute(trajectory=trajectory, user=anna, seq=call.seq, expected_version=1)
    assert same.kind == "reexecute" and same.version == 2
    assert ApiCall.objects.filter(source_kind="review", source_id=f"{trajectory.pk}/{call.seq}").count() == 1
    # The sandbox is deterministic: the same arguments bring the same records back.
    assert not [c for c in changes if c.path.startswith("records")]

    arguments = dict(call.arguments)
    first_key = next(k for k in arguments if k not in ("pageNo", "numOfRows"))
    arguments[first_key] = "없는값-" + str(arguments[first_key])
    revision, changes = review.trajectory_call_reexecute(
        trajectory=trajectory, user=anna, seq=call.seq, expected_version=2, arguments=arguments
    )
    stored = TrajectoryCall.objects.get(pk=call.pk)
    assert stored.arguments == arguments and revision.version == 3
    assert changes, "a different argument must change the observation"
    assert stored.observation != before

    review.trajectory_undo(trajectory=trajectory, user=anna)
    assert (
        TrajectoryCall.objects.get(pk=call.pk).arguments
        == same.after["calls"][[c["seq"] for c in same.after["calls"]].index(call.seq)]["arguments"]
    )

    with pytest.raises(review.EditConflict):
        review.trajectory_call_reexecute(trajectory=trajectory, user=anna, seq=call.seq, expected_version=1)
    with pytest.raises(review.ReviewError, match="no call"):
        review.trajectory_call_reexecute(trajectory=trajectory, user=anna, seq=99, expected_version=4)


def test_the_screen_shows_the_re_executed_observation_diffed(trajectory, client_as):
    anna = make_user("anna", "annotator")
    client = client_as(anna)
    call = _paged_call(trajectory)
    arguments = dict(call.arguments)
    key = next(k for k in arguments if k not in ("pageNo", "numOfRows"))
    arguments[key] = "없는값"
    response = client.post(
        reverse("datasets:review_reexecute", args=[trajectory.pk, call.seq]),
        {"expected_version": "1", "arguments": json.dumps(arguments, ensure_ascii=False), "filters": ""},
    )
    assert response.status_code == 302 and "diff=" in response["Location"]
    page = client.get(response["Location"]).content.decode()
    assert f"Call {call.seq} re-executed" in page and "change" in page
    bad = client.post(
        reverse("datasets:review_reexecute", args=[trajectory.pk, call.seq]),
        {"expected_version": "2", "arguments": "{not json", "filters": ""},
    )
    assert bad.status_code == 302
    assert "not valid JSON" in client.get(bad["Location"]).content.decode()


def _fed_pair(trajectory: Trajectory) -> tuple[TrajectoryCall, TrajectoryCall]:
    """A call and a later one with an argument fed from the first call's step through an edge."""
    calls = list(trajectory.calls.select_related("step").order_by("seq"))
    for later in calls:
        for binding in later.bindings or []:
            if binding.get("source") == "edge":
                source = next(c for c in calls if c.step.index == binding["from_step"])
                return source, later
    raise AssertionError("the synthesized trajectory has no call fed by an edge")


def test_re_executing_the_rest_of_the_chain_runs_every_later_call_as_one_revision(trajectory):
    anna = make_user("anna", "annotator")
    source, later = _fed_pair(trajectory)
    rest = [c.seq for c in trajectory.calls.order_by("seq") if c.seq >= source.seq]
    revision, changes = review.trajectory_call_reexecute(
        trajectory=trajectory, user=anna, seq=source.seq, expected_version=1, rest=True
    )
    assert revision.version == 2 and revision.kind == "reexecute" and f"calls {source.seq}-{rest[-1]}" in revision.note
    for seq in rest:
        assert ApiCall.objects.filter(source_kind="review", source_id=f"{trajectory.pk}/{seq}").count() == 1
    assert all(change.path.startswith("call ") for change in changes)
    # The sandbox is deterministic: the fed record is still there, so nothing about the records changed.
    assert not [c for c in changes if ": records" in c.path]

    # Change the first call so that the record the later call was fed from is gone: the chain stops, nothing stored.
    arguments = {k: ("없는값" if k not in ("pageNo", "numOfRows") else v) for k, v in source.arguments.items()}
    made = ApiCall.objects.count()
    with pytest.raises(review.ReviewError, match=rf"call {later.seq}'s .* no longer has; edit call {later.seq}"):
        review.trajectory_call_reexecute(
            trajectory=trajectory, user=anna, seq=source.seq, expected_version=2, arguments=arguments, rest=True
        )
    trajectory.refresh_from_db()
    assert trajectory.version == 2 and TrajectoryCall.objects.get(pk=source.pk).arguments == source.arguments
    assert ApiCall.objects.count() == made + 1  # the first call ran (and is logged); the later one never went out


def test_the_screen_re_executes_the_rest_of_the_chain(trajectory, client_as):
    anna = make_user("anna", "annotator")
    client = client_as(anna)
    source, _later = _fed_pair(trajectory)
    page = client.get(reverse("datasets:review_item", args=[trajectory.pk])).content.decode()
    assert f'id="rerun-rest-{source.seq}"' in page
    response = client.post(
        reverse("datasets:review_reexecute", args=[trajectory.pk, source.seq]),
        {"expected_version": "1", "arguments": json.dumps(source.arguments, ensure_ascii=False), "rest": "1"},
    )
    assert response.status_code == 302 and "diff=" in response["Location"]
    page = client.get(response["Location"]).content.decode()
    assert f"Call {source.seq} and the calls after it ran again; saved as version 2." in page
    assert "re-executed" in page


def test_the_api_re_executes_the_rest_of_the_chain(trajectory):
    from tests.conftest import token_client

    anna = make_user("anna", "annotator")
    source, later = _fed_pair(trajectory)
    url = f"/api/v1/review/{trajectory.pk}/reexecute/"
    api = token_client(anna)
    done = api.post(url, {"seq": source.seq, "expected_version": 1, "rest": True}, format="json")
    assert done.status_code == 201, done.content
    assert ApiCall.objects.filter(source_kind="review", source_id=f"{trajectory.pk}/{later.seq}").exists()
    gone = {k: ("없는값" if k not in ("pageNo", "numOfRows") else v) for k, v in source.arguments.items()}
    refused = api.post(url, {"seq": source.seq, "expected_version": 2, "arguments": gone, "rest": True}, format="json")
    assert refused.status_code == 400 and "no longer has" in refused.json()["detail"]
