"""The EDGE graph API: role permissions, filters and ordering, adding edges, starting runs, snapshots and exports."""

from __future__ import annotations

import networkx as nx
import pytest

from graphs.models import CandidateEdge, GraphSnapshot, VerificationRun
from kopa_site.models import Job
from tests.support.api import assert_role_matrix, expect_min_role
from tests.support.queries import assert_queries_do_not_grow

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url", ["/api/v1/edges/", "/api/v1/edge-trials/", "/api/v1/edge-runs/", "/api/v1/graph-snapshots/"]
)
def test_lists_need_the_annotator_role(api_clients, graph_data, url):
    assert_role_matrix(api_clients, url, expect_min_role("annotator"))


def test_edges_filter_by_status_and_provider_and_order_by_posterior(annotator_api, graph_data):
    body = annotator_api.get("/api/v1/edges/", {"ordering": "-posterior_mean"}).json()
    assert [row["id"] for row in body["results"]][0] == graph_data.verified.pk
    assert body["results"][0]["source_tool"]["function_name"] == "get_stan_regin_cd_list"

    pruned = annotator_api.get("/api/v1/edges/", {"status": "pruned"}).json()
    assert [row["id"] for row in pruned["results"]] == [graph_data.pruned.pk]
    by_provider = annotator_api.get("/api/v1/edges/", {"provider": "apis.data.go.kr/1741000"}).json()
    assert by_provider["count"] == 3
    assert annotator_api.get("/api/v1/edges/", {"provider": "kosis.kr"}).json()["count"] == 0


def test_the_edge_list_costs_a_fixed_number_of_queries(annotator_api, graph_data, catalog):
    from graphs.services import edge_create

    def more_edges():
        for name in ("get_rtms_data_svc_apt_rent", "get_rtms_data_svc_offi_trade", "get_rtms_data_svc_rh_trade"):
            edge_create(
                source_tool=catalog["get_stan_regin_cd_list"],
                source_field="region_cd",
                target_tool=catalog[name],
                target_param="LAWD_CD",
                transform="slice:0:5",
            )

    assert_queries_do_not_grow(lambda url: annotator_api.get(url).status_code, ["/api/v1/edges/"], more_edges)


def test_an_edges_trials_come_with_calls_values_and_outcomes(annotator_api, graph_data):
    body = annotator_api.get(f"/api/v1/edges/{graph_data.verified.pk}/trials/").json()
    rows = {row["kind"]: row for row in body["results"]}
    assert rows["main"]["outcome"] == "success" and rows["main"]["source_call"] == graph_data.source.pk
    assert rows["main"]["values"]["bound"] == {"LAWD_CD": "11110"}
    assert rows["control"]["values"]["bound"] == {"LAWD_CD": "16665"}


def test_reviewers_add_edges_by_hand_and_bad_ones_are_refused(api_clients, catalog):
    regions, trade = catalog["get_stan_regin_cd_list"], catalog["get_rtms_data_svc_apt_trade"]
    fields = {"reviewer": "region_cd", "admin": "sgg_cd"}

    def payload(who):
        return {
            "source_tool": regions.pk,
            "source_field": fields.get(who, "umd_cd"),
            "target_tool": trade.pk,
            "target_param": "LAWD_CD",
            "transform": "identity",
        }

    responses = assert_role_matrix(
        api_clients, "/api/v1/edges/", expect_min_role("reviewer", allowed=201), method="post", data=payload
    )
    assert responses["reviewer"].json()["proposer"] == "manual"
    assert CandidateEdge.objects.count() == 2

    client = api_clients["reviewer"]
    unknown = client.post("/api/v1/edges/", {**payload("reviewer"), "source_field": "nope"}, format="json")
    assert unknown.status_code == 400 and "no field nope" in unknown.json()["detail"]
    bad = client.post("/api/v1/edges/", {**payload("reviewer"), "transform": "slice:9"}, format="json")
    assert bad.status_code == 400 and "needs 2 argument" in str(bad.json())
    twice = client.post("/api/v1/edges/", payload("reviewer"), format="json")
    assert twice.status_code == 400 and "already exists" in twice.json()["detail"]
    pair = client.post("/api/v1/edges/", {**payload("reviewer"), "transform": "project:utmk:kma"}, format="json")
    assert pair.status_code == 400 and "binds 2 field(s)" in pair.json()["detail"]
    assert CandidateEdge.objects.count() == 2


def test_starting_a_run_creates_the_run_and_its_job(api_clients, reviewer_api, graph_data):
    assert_role_matrix(
        api_clients,
        "/api/v1/edge-runs/",
        {"anonymous": 401, "outsider": 403, "annotator": 403, "reviewer": 201, "admin": 201},
        method="post",
        data={"params": {"rounds": 2, "edge_ids": [graph_data.proposed.pk]}},
    )
    run = VerificationRun.objects.exclude(pk=graph_data.run.pk).order_by("id").first()
    assert run.params["rounds"] == 2 and run.params["batch_size"] == 256 and run.params["seed"] == run.pk
    assert run.job.kind == "edge.verify" and run.job.params == {"run_id": run.pk}

    bad = reviewer_api.post("/api/v1/edge-runs/", {"params": {"rounds": 0}}, format="json")
    assert bad.status_code == 400 and "rounds must be" in bad.json()["detail"]
    unknown = reviewer_api.post("/api/v1/edge-runs/", {"params": {"speed": "max"}}, format="json")
    assert unknown.status_code == 400 and "unknown run parameter(s) speed" in unknown.json()["detail"]
    missing = reviewer_api.post("/api/v1/edge-runs/", {"params": {"edge_ids": [987654]}}, format="json")
    assert missing.status_code == 400 and "do not exist" in missing.json()["detail"]


def test_resume_is_refused_for_a_finished_run_and_while_its_job_runs(reviewer_api, annotator_api, graph_data):
    finished = reviewer_api.post(f"/api/v1/edge-runs/{graph_data.run.pk}/resume/")
    assert finished.status_code == 400 and "has finished" in finished.json()["detail"]
    stopped = VerificationRun.objects.create(params=graph_data.run.params, status="stopped")
    assert annotator_api.post(f"/api/v1/edge-runs/{stopped.pk}/resume/").status_code == 403
    first = reviewer_api.post(f"/api/v1/edge-runs/{stopped.pk}/resume/")
    assert first.status_code == 200 and first.json()["job"] is not None
    again = reviewer_api.post(f"/api/v1/edge-runs/{stopped.pk}/resume/")
    assert again.status_code == 400 and "in progress" in again.json()["detail"]


def test_propose_starts_a_job(reviewer_api, annotator_api, catalog):
    assert annotator_api.post("/api/v1/edges/propose/", {}, format="json").status_code == 403
    response = reviewer_api.post("/api/v1/edges/propose/", {"probe": False}, format="json")
    assert response.status_code == 201
    job = Job.objects.get(pk=response.json()["id"])
    assert job.kind == "edge.propose" and job.params == {"probe": False}


def test_snapshots_are_versioned_and_export_as_node_link_json_and_graphml(reviewer_api, annotator_api, graph_data):
    assert annotator_api.post("/api/v1/graph-snapshots/", {}, format="json").status_code == 403
    first = reviewer_api.post("/api/v1/graph-snapshots/", {"note": "first"}, format="json").json()
    second = reviewer_api.post("/api/v1/graph-snapshots/", {"run": graph_data.run.pk}, format="json").json()
    assert (first["version"], second["version"]) == (1, 2)
    assert first["stats"]["nodes"] == 2 and first["stats"]["edges"] == 1 and first["stats"]["bindings"] == 1
    assert first["refinement"]["before"]["trials"] == 10 and first["refinement"]["after"]["success_rate"] == 1.0

    node_link = annotator_api.get(f"/api/v1/graph-snapshots/{first['id']}/node-link/")
    assert node_link.status_code == 200 and node_link["Content-Type"].startswith("application/json")
    data = node_link.json()
    assert len(data["nodes"]) == 2 and data["edges"][0]["bindings"][0]["transform"] == "slice:0:5"

    graphml = annotator_api.get(f"/api/v1/graph-snapshots/{first['id']}/graphml/")
    assert graphml.status_code == 200 and 'filename="edge-graph-v1.graphml"' in graphml["Content-Disposition"]
    graph = nx.parse_graphml(graphml.content.decode())
    assert graph.number_of_nodes() == 2 and graph.number_of_edges() == 1
    assert GraphSnapshot.objects.count() == 2


def test_reset_puts_an_edge_back_to_its_prior(reviewer_api, graph_data):
    response = reviewer_api.post(f"/api/v1/edges/{graph_data.verified.pk}/reset/")
    assert response.status_code == 200
    edge = CandidateEdge.objects.get(pk=graph_data.verified.pk)
    assert edge.status == "proposed" and (edge.alpha, edge.beta) == (edge.prior_alpha, edge.prior_beta)
    assert edge.trials_success == 0 and edge.trials.count() == 2


def test_edges_filter_by_the_domain_of_either_end(annotator_api, graph_data):
    rows = annotator_api.get("/api/v1/edges/", {"domain": "sgg5"}).json()["results"]
    assert {row["id"] for row in rows} == {graph_data.verified.pk, graph_data.pruned.pk}
    assert all(row["domains"] == {"source": ["bjd10"], "target": ["sgg5"]} for row in rows)
    assert annotator_api.get("/api/v1/edges/", {"domain": "tour.area"}).json()["results"] == []
