"""Synthesis on the sandbox over a real socket: every junction type yields executed trajectories whose values come
from the observations and whose calls are logged ApiCalls; discarded walks carry their reasons; walks reach six
steps; and an end-to-end run starts from a graph that a real verification run proved."""

from __future__ import annotations

import pytest

from apis.models import ApiCall
from datasets.engine.filters import passed
from datasets.models import SynthesisRun, Trajectory
from datasets.services import synthesis_run_create, synthesis_run_execute
from graphs.engine.walk import JUNCTIONS, SEM
from graphs.models import CandidateEdge
from graphs.services import edge_create, graph_snapshot_create, verification_run_create, verification_run_execute
from tests.datasets.sandbox import use_sandbox, verified_snapshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def sandbox(settings, sandbox_server_url):
    use_sandbox(settings, sandbox_server_url)


def _run(snapshot, **params) -> SynthesisRun:
    run = synthesis_run_create(params={"seed": 3, "strategy": "coverage", **params}, snapshot=snapshot)
    synthesis_run_execute(run=run)
    run.refresh_from_db()
    return run


def _bound_values_come_from_observations(trajectory: Trajectory) -> None:
    calls = list(trajectory.calls.select_related("step"))
    by_step = {}
    for call in calls:
        by_step.setdefault(call.step.index, []).append(call)
    for call in calls:
        for binding in call.bindings:
            if binding["source"] != "edge":
                continue
            parent_values = {
                str(v)
                for parent in by_step[binding["from_step"]]
                for r in parent.observation["records"]
                for v in r.values()
            }
            assert set(binding["source_values"]) <= parent_values, (call.tool_name, binding)


@pytest.mark.parametrize("junction", JUNCTIONS)
def test_each_junction_type_yields_executed_trajectories(catalog, sandbox, junction):
    snapshot = verified_snapshot(catalog)
    low = 3 if junction == SEM else 2
    run = _run(snapshot, count=1, junctions=[junction], min_length=low, max_length=3, max_attempts=12)
    assert run.status == "finished", run.error
    kept = list(Trajectory.objects.filter(run=run, status="pending_review"))
    assert kept, run.counters
    trajectory = kept[0]
    assert junction in trajectory.junctions and trajectory.length >= 2
    assert trajectory.generator == "template" and passed(trajectory.filters)
    calls = list(trajectory.calls.all())
    assert all(c.ok and c.api_call_id for c in calls)
    logged = ApiCall.objects.filter(pk__in=[c.api_call_id for c in calls])
    assert {(a.source_kind, a.source_id) for a in logged} == {("synthesis", f"{run.pk}/{trajectory.attempt}")}
    assert logged.count() == len(calls) and all(a.ok for a in logged)
    _bound_values_come_from_observations(trajectory)
    used = set(trajectory.edges.values_list("pk", flat=True))
    assert used and used <= set(CandidateEdge.objects.filter(status="verified").values_list("pk", flat=True))


def test_walks_reach_six_steps_on_the_bus_network(catalog, sandbox):
    run = _run(
        verified_snapshot(catalog), count=1, min_length=6, max_length=6, junctions=["SEQ", "DRV"], max_attempts=8
    )
    trajectory = Trajectory.objects.get(run=run, status="pending_review")
    assert trajectory.length == 6 and trajectory.calls.count() >= 6


def test_discarded_walks_carry_their_reasons(catalog, sandbox):
    # A 10-digit 법정동 code where MOLIT wants five digits, and a stop name where a stop id is wanted.
    false_links = [
        ("get_stan_regin_cd_list", "region_cd", "get_rtms_data_svc_apt_trade", "LAWD_CD", "identity"),
        ("get_sttn_no_list", "nodenm", "get_sttn_accto_arvl_prearnge_info_list", "nodeId", "identity"),
    ]
    run = _run(
        verified_snapshot(catalog, false_links), count=2, min_length=2, max_length=2, junctions=["SEQ"], max_attempts=6
    )
    discarded = run.counters["discarded"]
    assert sum(discarded.values()) == run.counters["attempts"] == 6
    assert set(discarded) <= {"call.struct.no_data", "call.no_records", "call.struct.invalid_param"}, discarded
    assert all(run.counters["samples"][reason] for reason in discarded)
    assert not Trajectory.objects.filter(run=run).exists()
    assert (
        ApiCall.objects.filter(source_kind="synthesis", source_id__startswith=f"{run.pk}/").count()
        == run.counters["calls"]
        > 0
    )


def test_end_to_end_from_a_graph_a_verification_run_proved(catalog, sandbox):
    chain = [
        ("area_code2", "code", "area_based_list2", "areaCode", "identity"),
        ("area_based_list2", "contentid", "detail_common2", "contentId", "identity"),
        ("get_tm_stdr_crdnt", "tmX,tmY", "get_nearby_msrstn_list", "tmX,tmY", "pair"),  # a pair binds together
        ("get_nearby_msrstn_list", "stationName", "get_msrstn_accto_rltm_mesure_dnsty", "stationName", "identity"),
        ("get_stan_regin_cd_list", "region_cd", "get_rtms_data_svc_apt_trade", "LAWD_CD", "identity"),  # false
    ]
    ids = [
        edge_create(
            source_tool=catalog[a], source_field=f, target_tool=catalog[b], target_param=p, transform=t, score=0.7
        ).pk
        for a, f, b, p, t in chain
    ]
    verification_run_execute(
        run=verification_run_create(params={"rounds": 5, "batch_size": 20, "n_max": 5, "seed": 1, "edge_ids": ids})
    )
    statuses = dict(CandidateEdge.objects.filter(pk__in=ids).values_list("pk", "status"))
    assert [statuses[i] for i in ids] == ["verified"] * 4 + ["pruned"]
    snapshot = graph_snapshot_create(note="proved by trials")

    run = _run(snapshot, count=3, max_length=3)
    kept = Trajectory.objects.filter(run=run, status="pending_review")
    assert kept.count() == 3 and run.diversity["items"] == 3
    used = set(CandidateEdge.objects.filter(trajectories__run=run).values_list("pk", flat=True))
    assert used <= set(ids[:4])
    assert all(t.snapshot_id == snapshot.pk for t in kept)
