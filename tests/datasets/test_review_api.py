"""The review API: who may do what (declarative role matrices), the queue's claims, decisions, a stale edit's 409
with both versions, revisions, undo and restore, bulk decisions, frozen versions and their export job, and the
OpenAPI schema listing every endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from datasets import review
from datasets.models import DatasetVersion, Trajectory
from datasets.selectors import version_export_path
from tests.datasets.review_world import make_trajectories
from tests.support.api import assert_role_matrix, expect_min_role
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def stock(db):
    return make_trajectories(5)


def _disputed(item: Trajectory) -> Trajectory:
    review.review_policy_update(user=make_user("boss", "admin"), overlap=2)
    for name, verdict in (("ann1", "approve"), ("ann2", "reject")):
        user = make_user(name, "annotator")
        review.trajectory_claim(user=user, trajectory=item)
        if verdict == "approve":
            review.trajectory_approve(trajectory=item, user=user)
        else:
            review.trajectory_reject(trajectory=item, user=user, reason="duplicate")
    item.refresh_from_db()
    assert item.status == Trajectory.Status.DISPUTED
    return item


def test_reads_need_the_annotator_role(api_clients, stock):
    for url in (
        "/api/v1/review/",
        f"/api/v1/review/{stock[0].pk}/",
        f"/api/v1/review/{stock[0].pk}/decisions/",
        f"/api/v1/review/{stock[0].pk}/revisions/",
        "/api/v1/dataset-versions/",
    ):
        assert_role_matrix(api_clients, url, expect_min_role("annotator"))


def test_claiming_needs_a_role_and_gives_each_annotator_their_own_item(api_clients, stock):
    responses = assert_role_matrix(api_clients, "/api/v1/review/claim/", expect_min_role("annotator"), method="post")
    claimed = [responses[who].data["id"] for who in ("annotator", "reviewer", "admin")]
    assert len(set(claimed)) == 3
    assert responses["annotator"].data["held_by"] == "annotator"


def test_adjudicating_and_bulk_need_the_reviewer_role(api_clients, stock):
    item = _disputed(stock[0])
    assert_role_matrix(
        api_clients,
        f"/api/v1/review/{item.pk}/adjudicate/",
        {"anonymous": 401, "outsider": 403, "annotator": 403, "reviewer": 201, "admin": 400},
        method="post",
        data={"decision": "approve"},
    )
    assert Trajectory.objects.get(pk=item.pk).status == Trajectory.Status.APPROVED
    assert_role_matrix(
        api_clients,
        "/api/v1/review/bulk/?q=nothing-matches-this",
        expect_min_role("reviewer"),
        method="post",
        data={"decision": "approve", "expected_count": 0},
    )


def test_freezing_needs_the_reviewer_role(api_clients, stock):
    reviewer = make_user("rev", "reviewer")
    review.trajectory_bulk_decide(
        queryset=Trajectory.objects.all(), user=reviewer, decision="approve", expected_count=len(stock)
    )
    responses = assert_role_matrix(
        api_clients,
        "/api/v1/dataset-versions/",
        expect_min_role("reviewer", allowed=201),
        method="post",
        data=lambda who: {"name": f"v-{who}", "filter": {"provider": "molit"}},
    )
    molit = sum("molit" in t.providers for t in stock)
    assert responses["reviewer"].data["item_count"] == molit
    assert responses["reviewer"].data["filter"] == {"provider": "molit"}
    assert DatasetVersion.objects.count() == 2


def test_an_annotator_reviews_through_the_api(annotator_api, annotator, stock):
    held = annotator_api.post("/api/v1/review/claim/?provider=kosis")
    assert held.status_code == 200 and "kosis" in held.data["providers"]
    pk = held.data["id"]
    missing = annotator_api.post(f"/api/v1/review/{pk}/reject/", {"reason": "nonsense"}, format="json")
    assert missing.status_code == 400 and "reason" in missing.data
    done = annotator_api.post(f"/api/v1/review/{pk}/reject/", {"reason": "wrong_binding", "note": "ym"}, format="json")
    assert done.status_code == 201 and done.data["reason"] == "wrong_binding"
    again = annotator_api.post(f"/api/v1/review/{pk}/approve/", {}, format="json")
    assert again.status_code == 409  # no lease any more
    undo = annotator_api.post(f"/api/v1/review/{pk}/undo/")
    assert undo.status_code == 200 and "undone" in undo.data["detail"]
    assert annotator_api.post(f"/api/v1/review/{pk}/approve/", {}, format="json").status_code == 201
    decisions = annotator_api.get(f"/api/v1/review/{pk}/decisions/").data
    assert [(d["decision"], d["retracted_at"] is not None) for d in decisions] == [("reject", True), ("approve", False)]


def test_a_stale_edit_is_409_with_both_versions_and_nothing_is_lost(annotator_api, reviewer_api, stock):
    pk = stock[0].pk
    first = annotator_api.post(
        f"/api/v1/review/{pk}/edit/",
        {"expected_version": 1, "request": "첫 고침", "arguments": {"1": {"code": "42"}}},
        format="json",
    )
    assert first.status_code == 201 and first.data["version"] == 2 and first.data["after"]["request"] == "첫 고침"
    stale = reviewer_api.post(f"/api/v1/review/{pk}/edit/", {"expected_version": 1, "answer": "늦은 답"}, format="json")
    assert stale.status_code == 409
    body = stale.json()
    assert (
        body["current_version"] == 2 and body["theirs"]["request"] == "첫 고침" and body["mine"]["answer"] == "늦은 답"
    )
    revisions = annotator_api.get(f"/api/v1/review/{pk}/revisions/").data
    assert [r["version"] for r in revisions] == [2]
    restored = reviewer_api.post(f"/api/v1/review/{pk}/restore/", {"version": 1, "expected_version": 2}, format="json")
    assert restored.status_code == 201 and restored.data["after"]["request"] == stock[0].request
    bad = reviewer_api.post(
        f"/api/v1/review/{pk}/edit/", {"expected_version": 3, "arguments": {"x": {}}}, format="json"
    )
    assert bad.status_code == 400


def test_a_version_exports_as_a_job_and_downloads(
    reviewer_api, reviewer, stock, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.VAR_DIR = tmp_path
    review.trajectory_bulk_decide(
        queryset=Trajectory.objects.all(), user=reviewer, decision="approve", expected_count=len(stock)
    )
    made = reviewer_api.post("/api/v1/dataset-versions/", {"name": "api-v1"}, format="json")
    assert made.status_code == 201 and made.data["item_count"] == len(stock)
    again = reviewer_api.post("/api/v1/dataset-versions/", {"name": "api-v1"}, format="json")
    assert again.status_code == 400 and "already exists" in again.data["detail"]
    with django_capture_on_commit_callbacks(execute=True):
        started = reviewer_api.post(f"/api/v1/dataset-versions/{made.data['id']}/export/")
    assert started.status_code == 202
    version = DatasetVersion.objects.get(pk=made.data["id"])
    assert version.export_path and Path(version.export_path).is_relative_to(tmp_path)
    assert json.loads((Path(version.export_path) / "version.json").read_text())["checksum"] == version.checksum
    assert version_export_path(name="api-v1") == Path(version.export_path)
    with pytest.raises(LookupError):
        version_export_path(name="nope")
    lines = b"".join(reviewer_api.get(f"/api/v1/dataset-versions/{version.pk}/download/").streaming_content)
    assert len(lines.splitlines()) == len(stock)


def test_the_schema_lists_the_review_endpoints():
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    for path in (
        "/api/v1/review/",
        "/api/v1/review/claim/",
        "/api/v1/review/bulk/",
        "/api/v1/review/{id}/claim/",
        "/api/v1/review/{id}/release/",
        "/api/v1/review/{id}/approve/",
        "/api/v1/review/{id}/reject/",
        "/api/v1/review/{id}/adjudicate/",
        "/api/v1/review/{id}/edit/",
        "/api/v1/review/{id}/undo/",
        "/api/v1/review/{id}/restore/",
        "/api/v1/review/{id}/reexecute/",
        "/api/v1/review/{id}/revisions/",
        "/api/v1/review/{id}/decisions/",
        "/api/v1/dataset-versions/",
        "/api/v1/dataset-versions/{id}/export/",
        "/api/v1/dataset-versions/{id}/download/",
    ):
        assert path in paths, path


@pytest.mark.parametrize("url", ["/api/v1/review/", "/api/v1/dataset-versions/"])
def test_review_lists_use_a_fixed_number_of_queries(url, reviewer_api, reviewer, django_assert_max_num_queries):
    make_trajectories(3)
    review.trajectory_bulk_decide(
        queryset=Trajectory.objects.filter(pk__lte=Trajectory.objects.order_by("id")[1].pk),
        user=reviewer,
        decision="approve",
        expected_count=2,
    )
    review.dataset_version_freeze(name="q-one", queryset=Trajectory.objects.all(), user=reviewer)
    reviewer_api.get(url)
    with django_assert_max_num_queries(12) as small:
        assert reviewer_api.get(url).status_code == 200
    make_trajectories(30)
    for number in range(3):
        review.dataset_version_freeze(name=f"q-{number}", queryset=Trajectory.objects.all(), user=reviewer)
    with django_assert_max_num_queries(len(small.captured_queries)):
        assert reviewer_api.get(url).status_code == 200


def test_the_review_screen_does_not_query_per_call(client_as, annotator, django_assert_max_num_queries):
    from django.urls import reverse

    short, long = make_trajectories(1, calls=1)[0], make_trajectories(1, calls=4)[0]
    client = client_as(annotator)
    client.get(reverse("datasets:review_item", args=[short.pk]))
    with django_assert_max_num_queries(30) as small:
        client.get(reverse("datasets:review_item", args=[short.pk]))
    with django_assert_max_num_queries(len(small.captured_queries)):
        client.get(reverse("datasets:review_item", args=[long.pk]))
