"""Review services: the queue's leases, decisions with overlap and adjudication, edits under optimistic concurrency,
restore and undo, bulk decisions, permissions, and frozen dataset versions."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from datasets import review
from datasets.models import DatasetVersion, FrozenError, ReviewDecision, Trajectory, TrajectoryCall
from datasets.review import EditConflict, LeaseError, ReviewError, ReviewPermissionError
from kopa_site.roles import ANNOTATOR
from tests.datasets.review_world import make_trajectories
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


def _overlap(n: int) -> None:
    policy = review.review_policy()
    policy.overlap = n
    policy.save()


def test_two_annotators_never_get_the_same_item(people, items):
    first = review.trajectory_claim(user=people.annotator)
    second = review.trajectory_claim(user=people.other_annotator)
    assert first.pk != second.pk
    assert first.held_by_id == people.annotator.pk and first.held_until > timezone.now()
    # Asking again hands back the item already held, and holding one returns the previous one on a new claim.
    assert review.trajectory_claim(user=people.annotator).pk == first.pk
    with pytest.raises(LeaseError):
        review.trajectory_claim(user=people.annotator, trajectory=second)


def test_an_expired_lease_returns_the_item_and_cannot_be_decided(people, items):
    held = review.trajectory_claim(user=people.annotator)
    Trajectory.objects.filter(pk=held.pk).update(held_until=timezone.now() - timedelta(seconds=1))
    with pytest.raises(LeaseError, match="expired"):
        review.trajectory_approve(trajectory=held, user=people.annotator)
    assert review.trajectory_claim(user=people.other_annotator).pk == held.pk
    assert review.leases_expire() == 0  # the new lease is fresh
    with pytest.raises(LeaseError, match="do not hold"):
        review.trajectory_approve(trajectory=held, user=people.annotator)


def test_deciding_without_a_claim_is_refused(people, items):
    with pytest.raises(LeaseError):
        review.trajectory_reject(trajectory=items[0], user=people.annotator, reason="duplicate")


def test_approve_and_reject_with_a_reason_from_the_taxonomy(people, items):
    held = review.trajectory_claim(user=people.annotator)
    review.trajectory_approve(trajectory=held, user=people.annotator)
    assert held.status == Trajectory.Status.APPROVED and held.held_by_id is None

    held = review.trajectory_claim(user=people.annotator)
    with pytest.raises(ReviewError, match="reason"):
        review.trajectory_reject(trajectory=held, user=people.annotator, reason="ugly")
    with pytest.raises(ReviewError, match="note"):
        review.trajectory_reject(trajectory=held, user=people.annotator, reason="other")
    decision = review.trajectory_reject(trajectory=held, user=people.annotator, reason="wrong_binding", note="ym")
    assert held.status == Trajectory.Status.REJECTED
    assert (decision.reason, decision.note, decision.kind) == ("wrong_binding", "ym", "annotation")
    assert decision.seconds is not None and decision.seconds >= 0


def test_overlap_sends_disagreement_to_a_reviewer(people, items):
    _overlap(2)
    first = review.trajectory_claim(user=people.annotator)
    review.trajectory_approve(trajectory=first, user=people.annotator)
    assert first.status == Trajectory.Status.PENDING_REVIEW and first.decision_count == 1
    # The same annotator never gets it again; the other one does.
    assert review.trajectory_claim(user=people.annotator).pk != first.pk
    again = review.trajectory_claim(user=people.other_annotator)
    assert again.pk == first.pk
    review.trajectory_reject(trajectory=again, user=people.other_annotator, reason="unsupported_answer")
    assert again.status == Trajectory.Status.DISPUTED

    with pytest.raises(ReviewPermissionError):
        review.trajectory_adjudicate(trajectory=again, user=people.annotator, decision="approve")
    review.trajectory_adjudicate(trajectory=again, user=people.reviewer, decision="reject", reason="unsupported_answer")
    assert again.status == Trajectory.Status.REJECTED
    with pytest.raises(ReviewError, match="only disputed"):
        review.trajectory_adjudicate(trajectory=again, user=people.reviewer, decision="approve")


def test_overlap_with_agreement_settles_without_a_reviewer(people, items):
    _overlap(2)
    first = review.trajectory_claim(user=people.annotator)
    review.trajectory_approve(trajectory=first, user=people.annotator)
    second = review.trajectory_claim(user=people.other_annotator)
    review.trajectory_approve(trajectory=second, user=people.other_annotator)
    first.refresh_from_db()
    assert first.status == Trajectory.Status.APPROVED and first.decision_count == 2


def test_an_edit_is_a_revision_and_a_stale_edit_conflicts_with_both_versions(people, items):
    item = items[0]
    revision = review.trajectory_edit(
        trajectory=item, user=people.annotator, expected_version=1, request="고친 요청", arguments={1: {"code": "11"}}
    )
    assert item.version == 2 and item.request == "고친 요청"
    assert revision.before["request"].startswith("서울") and revision.after["request"] == "고친 요청"
    assert TrajectoryCall.objects.get(trajectory=item, seq=1).arguments == {"code": "11"}
    assert revision.user == people.annotator and revision.version == 2

    with pytest.raises(EditConflict) as conflict:
        review.trajectory_edit(trajectory=item, user=people.other_annotator, expected_version=1, answer="다른 답")
    error = conflict.value
    assert (error.expected_version, error.current_version) == (1, 2)
    assert error.mine["answer"] == "다른 답" and error.theirs["request"] == "고친 요청"
    item.refresh_from_db()
    assert item.answer != "다른 답" and item.version == 2  # nothing written

    with pytest.raises(ReviewError, match="empty"):
        review.trajectory_edit(trajectory=item, user=people.annotator, expected_version=2, request="  ")
    with pytest.raises(ReviewError, match="no call"):
        review.trajectory_edit(trajectory=item, user=people.annotator, expected_version=2, arguments={9: {}})


def test_restore_and_undo_an_edit(people, items):
    item = items[0]
    original = item.request
    review.trajectory_edit(trajectory=item, user=people.annotator, expected_version=1, request="둘째")
    review.trajectory_edit(trajectory=item, user=people.annotator, expected_version=2, request="셋째")
    review.trajectory_restore(trajectory=item, user=people.annotator, version=1, expected_version=3)
    assert item.request == original and item.version == 4
    assert review.trajectory_content_at(item, 2)["request"] == "둘째"

    review.trajectory_undo(trajectory=item, user=people.annotator)  # undoes the restore
    assert item.request == "셋째" and item.version == 5
    with pytest.raises(ReviewError, match="restore version"):
        review.trajectory_undo(trajectory=item, user=people.annotator)  # the edit to 셋째 is no longer the latest
    kinds = list(item.revisions.order_by("version").values_list("kind", "undone"))
    assert kinds == [("edit", False), ("edit", False), ("restore", True), ("undo", False)]


def test_undo_a_decision_puts_the_item_back_with_its_lease(people, items):
    held = review.trajectory_claim(user=people.annotator)
    review.trajectory_reject(trajectory=held, user=people.annotator, reason="duplicate")
    message = review.trajectory_undo(trajectory=held, user=people.annotator)
    assert "undone" in message
    assert held.status == Trajectory.Status.PENDING_REVIEW and held.decision_count == 0
    assert held.held_by_id == people.annotator.pk
    assert ReviewDecision.objects.get(trajectory=held).retracted_at is not None
    review.trajectory_approve(trajectory=held, user=people.annotator)
    assert held.status == Trajectory.Status.APPROVED
    with pytest.raises(ReviewError, match="nothing to undo"):
        review.trajectory_undo(trajectory=items[3], user=people.annotator)


def test_an_annotator_cannot_undo_after_a_reviewer_settled(people, items):
    _overlap(2)
    held = review.trajectory_claim(user=people.annotator)
    review.trajectory_approve(trajectory=held, user=people.annotator)
    held = review.trajectory_claim(user=people.other_annotator)
    review.trajectory_reject(trajectory=held, user=people.other_annotator, reason="duplicate")
    review.trajectory_adjudicate(trajectory=held, user=people.reviewer, decision="approve")
    with pytest.raises(ReviewError, match="settled"):
        review.trajectory_undo(trajectory=held, user=people.annotator)
    review.trajectory_undo(trajectory=held, user=people.reviewer)
    held.refresh_from_db()
    assert held.status == Trajectory.Status.DISPUTED


def test_bulk_decisions_need_a_reviewer_and_the_confirmed_count(people, items):
    queryset = Trajectory.objects.filter(pk__in=[t.pk for t in items[:3]])
    with pytest.raises(ReviewPermissionError):
        review.trajectory_bulk_decide(queryset=queryset, user=people.annotator, decision="approve", expected_count=3)
    with pytest.raises(ReviewError, match="now matches 3"):
        review.trajectory_bulk_decide(queryset=queryset, user=people.reviewer, decision="approve", expected_count=2)
    assert not ReviewDecision.objects.exists()
    done = review.trajectory_bulk_decide(
        queryset=queryset, user=people.reviewer, decision="reject", reason="duplicate", expected_count=3
    )
    assert done == 3
    assert set(queryset.values_list("status", flat=True)) == {Trajectory.Status.REJECTED}
    assert ReviewDecision.objects.filter(kind="bulk").count() == 3


def test_freezing_a_version_copies_the_approved_items_and_never_changes(people, items, tmp_path):
    queryset = Trajectory.objects.filter(pk__in=[t.pk for t in items])
    review.trajectory_bulk_decide(
        queryset=queryset.filter(pk__in=[items[0].pk, items[1].pk]),
        user=people.reviewer,
        decision="approve",
        expected_count=2,
    )
    with pytest.raises(ReviewPermissionError):
        review.dataset_version_freeze(name="v1", queryset=queryset, user=people.annotator)
    with pytest.raises(ReviewError, match="name"):
        review.dataset_version_freeze(name="Not a slug!", queryset=queryset, user=people.reviewer)
    version = review.dataset_version_freeze(
        name="seoul-v1", queryset=queryset, user=people.reviewer, filter_params={"provider": "molit"}
    )
    assert version.item_count == 2 and len(version.checksum) == 64 and version.created_by == people.reviewer
    assert version.datasheet["trajectories"] == 2 and sum(version.datasheet["lengths"].values()) == 2
    assert review.dataset_version_verify(version)
    with pytest.raises(ReviewError, match="already exists"):
        review.dataset_version_freeze(name="seoul-v1", queryset=queryset, user=people.reviewer)

    # Editing the live trajectory later does not touch the frozen copy.
    review.trajectory_edit(trajectory=items[0], user=people.reviewer, expected_version=1, request="나중 요청")
    assert review.dataset_version_verify(version)
    assert version.items.get(trajectory=items[0]).item["request"] != "나중 요청"
    version.name = "renamed"
    with pytest.raises(FrozenError):
        version.save()
    with pytest.raises(FrozenError):
        version.delete()
    with pytest.raises(FrozenError):
        version.items.first().save()

    report = review.dataset_version_write_export(version=DatasetVersion.objects.get(pk=version.pk), folder=tmp_path)
    assert sum(report.counts.values()) == 2
    provenance = json.loads((tmp_path / "version.json").read_text())
    assert provenance["checksum"] == version.checksum and provenance["filter"] == {"provider": "molit"}
    assert provenance["frozen_by"] == people.reviewer.username
    lines = [
        json.loads(line) for path in (tmp_path / "openai").glob("*.jsonl") for line in path.read_text().splitlines()
    ]
    assert len(lines) == 2 and all(line["messages"][-1]["role"] == "assistant" for line in lines)


def test_freezing_needs_an_approved_item(people, items):
    with pytest.raises(ReviewError, match="no approved"):
        review.dataset_version_freeze(name="empty", queryset=Trajectory.objects.all(), user=people.reviewer)


@pytest.mark.django_db(transaction=True)
def test_concurrent_claimers_never_share_an_item():
    make_trajectories(20)
    users = [make_user(f"claimer{i}", ANNOTATOR) for i in range(16)]
    won: dict[str, int | None] = {}
    barrier = threading.Barrier(len(users))

    def claim(user):
        try:
            barrier.wait()
            got = review.trajectory_claim(user=user)
            won[user.username] = got.pk if got else None
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=claim, args=(u,)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    claimed = [pk for pk in won.values() if pk is not None]
    assert len(won) == len(users) and len(claimed) == len(users)
    assert len(set(claimed)) == len(claimed)
    holders = dict(Trajectory.objects.filter(held_by__isnull=False).values_list("pk", "held_by__username"))
    assert {holders[pk] for pk in claimed} == set(won)


def test_the_sweeper_command_clears_expired_leases(people, items):
    from io import StringIO

    from django.core.management import call_command

    held = review.trajectory_claim(user=people.annotator)
    fresh = review.trajectory_claim(user=people.other_annotator)
    Trajectory.objects.filter(pk=held.pk).update(held_until=timezone.now() - timedelta(minutes=1))
    out = StringIO()
    call_command("review_expire_leases", stdout=out)
    assert "1 expired lease(s) cleared" in out.getvalue()
    assert Trajectory.objects.get(pk=held.pk).held_by_id is None
    assert Trajectory.objects.get(pk=fresh.pk).held_by_id == people.other_annotator.pk


def test_expired_leases_are_cleared_every_minute_by_an_installed_schedule(people, items):
    from io import StringIO

    from django.core.management import call_command
    from django_q.models import Schedule

    from datasets.apps import LEASE_SCHEDULE
    from datasets.tasks import expire_review_leases

    call_command("setup_schedules", stdout=StringIO())
    out = StringIO()
    call_command("setup_schedules", stdout=out)  # again, as every deploy does: one schedule, updated
    assert f"updated schedule: {LEASE_SCHEDULE}" in out.getvalue()
    schedule = Schedule.objects.get(name=LEASE_SCHEDULE)
    assert (schedule.func, schedule.schedule_type, schedule.minutes) == (
        "datasets.tasks.expire_review_leases",
        Schedule.MINUTES,
        1,
    )
    assert schedule.repeats == -1 and Schedule.objects.filter(name=LEASE_SCHEDULE).count() == 1

    held = review.trajectory_claim(user=people.annotator)
    Trajectory.objects.filter(pk=held.pk).update(held_until=timezone.now() - timedelta(minutes=1))
    assert expire_review_leases() == "1 expired review lease(s) cleared"  # what the schedule runs
    assert Trajectory.objects.get(pk=held.pk).held_by_id is None
