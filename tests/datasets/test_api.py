"""The trajectories API: who may read and start runs, bad requests, a trajectory in full and as OpenAI messages,
the JSONL export, filters shared with the pages, and pinned query counts."""

from __future__ import annotations

import json

import pytest

from datasets.models import SynthesisRun, Trajectory
from datasets.services import synthesis_run_create, synthesis_run_execute
from tests.support.api import assert_role_matrix, expect_min_role

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def synthesized(snapshot):
    run = synthesis_run_create(
        params={"count": 3, "seed": 5, "max_length": 3, "strategy": "coverage"}, snapshot=snapshot
    )
    synthesis_run_execute(run=run)
    return run


def test_reads_need_the_annotator_role(api_clients, synthesized):
    trajectory = Trajectory.objects.filter(run=synthesized).first()
    for url in (
        "/api/v1/synthesis-runs/",
        f"/api/v1/synthesis-runs/{synthesized.pk}/",
        "/api/v1/trajectories/",
        f"/api/v1/trajectories/{trajectory.pk}/",
        f"/api/v1/trajectories/{trajectory.pk}/messages/",
    ):
        assert_role_matrix(api_clients, url, expect_min_role("annotator"))


def test_starting_a_run_needs_the_reviewer_role(api_clients, snapshot):
    responses = assert_role_matrix(
        api_clients,
        "/api/v1/synthesis-runs/",
        expect_min_role("reviewer", allowed=201),
        method="post",
        data={"params": {"count": 2, "junctions": ["SEQ", "FAN"]}},
    )
    body = responses["reviewer"].json()
    assert body["status"] == "pending" and body["job"] and body["snapshot"] == snapshot.pk
    assert body["params"]["junctions"] == ["SEQ", "FAN"] and body["params"]["seed"] == body["id"]
    assert SynthesisRun.objects.count() == 2


def test_bad_run_requests_are_400_with_the_reason(reviewer_api, snapshot):
    response = reviewer_api.post("/api/v1/synthesis-runs/", {"params": {"junctions": ["LOOP"]}}, format="json")
    assert response.status_code == 400 and "junctions must be" in json.dumps(response.json())
    response = reviewer_api.post("/api/v1/synthesis-runs/", {"params": ["count"]}, format="json")
    assert response.status_code == 400
    response = reviewer_api.post("/api/v1/synthesis-runs/", {"snapshot": 9999}, format="json")
    assert response.status_code == 400
    assert not SynthesisRun.objects.exists()


def test_a_trajectory_reads_in_full_and_as_openai_messages(annotator_api, synthesized):
    trajectory = Trajectory.objects.filter(run=synthesized, status="pending_review").first()
    body = annotator_api.get(f"/api/v1/trajectories/{trajectory.pk}/").json()
    assert body["request"] == trajectory.request and body["filters"]["format"]["passed"]
    assert [c["seq"] for c in body["calls"]] == sorted(c["seq"] for c in body["calls"])
    assert all(c["api_call"] for c in body["calls"]) and body["steps"][0]["junction"] == ""
    assert set(body["edges"]) == set(trajectory.edges.values_list("pk", flat=True))
    record = annotator_api.get(f"/api/v1/trajectories/{trajectory.pk}/messages/").json()
    assert record["messages"][1] == {"role": "user", "content": trajectory.request}
    names = [tc["function"]["name"] for m in record["messages"] if m.get("tool_calls") for tc in m["tool_calls"]]
    assert names == [c["tool_name"] for c in body["calls"]]


def test_the_list_filters_like_the_pages(annotator_api, synthesized):
    first = Trajectory.objects.filter(run=synthesized).order_by("id").first()
    junction = (first.junctions or ["SEQ"])[0]
    rows = annotator_api.get("/api/v1/trajectories/", {"junction": junction}).json()["results"]
    assert rows and all(junction in r["junctions"] for r in rows)
    tool = first.tool_names[0]
    rows = annotator_api.get("/api/v1/trajectories/", {"tool": tool, "status": "pending_review"}).json()["results"]
    assert rows and all(tool in r["tool_names"] for r in rows)
    assert annotator_api.get("/api/v1/trajectories/", {"run": synthesized.pk + 100}).json()["count"] == 0


def test_the_jsonl_export_streams_openai_records(annotator_api, synthesized):
    Trajectory.objects.filter(pk=Trajectory.objects.filter(run=synthesized).first().pk).update(status="filtered")
    response = annotator_api.get("/api/v1/trajectories/export/")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/x-ndjson")
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert len(lines) == Trajectory.objects.exclude(status="filtered").count()
    assert all(set(json.loads(line)) == {"messages", "tools"} for line in lines)


def test_list_endpoints_use_a_fixed_number_of_queries(
    annotator_api, synthesized, snapshot, django_assert_max_num_queries
):
    run = synthesis_run_create(
        params={"count": 3, "seed": 6, "max_length": 3, "strategy": "coverage"}, snapshot=snapshot
    )
    synthesis_run_execute(run=run)
    with django_assert_max_num_queries(6):
        assert annotator_api.get("/api/v1/trajectories/").status_code == 200
    with django_assert_max_num_queries(6):
        assert annotator_api.get("/api/v1/synthesis-runs/").status_code == 200
    trajectory = Trajectory.objects.filter(run=run).first()
    with django_assert_max_num_queries(10):
        assert annotator_api.get(f"/api/v1/trajectories/{trajectory.pk}/").status_code == 200
