"""Django admin for the review console's models: every changelist and change page opens, and the actions call the
console's services (bulk decisions, freezing a version, its export job)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from datasets import review
from datasets.models import DatasetVersion, ReviewDecision, Trajectory

pytestmark = pytest.mark.django_db

MODELS = ("trajectory", "reviewpolicy", "reviewdecision", "trajectoryrevision", "datasetversion", "datasetversionitem")


def test_every_review_model_has_a_working_admin(client_as, people, items):
    client = client_as(people.admin)
    review.review_policy()
    review.trajectory_edit(trajectory=items[0], user=people.admin, expected_version=1, request="관리자 고침")
    held = review.trajectory_claim(user=people.annotator)
    review.trajectory_approve(trajectory=held, user=people.annotator)
    review.dataset_version_freeze(name="admin-test", queryset=Trajectory.objects.all(), user=people.admin)
    for model in MODELS:
        changelist = client.get(reverse(f"admin:datasets_{model}_changelist"))
        assert changelist.status_code == 200, model
        first = changelist.context["cl"].result_list[0]
        assert client.get(reverse(f"admin:datasets_{model}_change", args=[first.pk])).status_code == 200, model
    page = client.get(reverse("admin:datasets_trajectoryrevision_change", args=[items[0].revisions.first().pk]))
    assert "관리자 고침" in page.content.decode()
    assert client.get(reverse("admin:datasets_reviewdecision_changelist"), {"q": "annotator"}).status_code == 200


def test_admin_actions_call_the_review_services(
    client_as, people, items, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.VAR_DIR = tmp_path
    client = client_as(people.admin)
    url = reverse("admin:datasets_trajectory_changelist")
    ids = [str(t.pk) for t in items[:3]]
    client.post(url, {"action": "bulk_approve", "_selected_action": ids})
    assert Trajectory.objects.filter(status=Trajectory.Status.APPROVED).count() == 3
    assert ReviewDecision.objects.filter(kind="bulk", user=people.admin).count() == 3
    client.post(url, {"action": "freeze_version", "_selected_action": [str(t.pk) for t in items]})
    version = DatasetVersion.objects.get()
    assert version.item_count == 3 and version.created_by == people.admin
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("admin:datasets_datasetversion_changelist"),
            {"action": "export", "_selected_action": [str(version.pk)]},
        )
    version.refresh_from_db()
    assert version.export_path.startswith(str(tmp_path))
