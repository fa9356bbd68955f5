"""End to end on the sandbox over a real socket: proposals over the bundled catalog, then verification runs
that verify the documented chains (research/korean_apis.md §5), prune planted false candidates, and reach
the same verdicts with 20% injected environmental faults."""

from __future__ import annotations

import pytest

from apis.models import ApiCall
from graphs.models import CandidateEdge, EdgeTrial, VerificationRun
from graphs.services import edge_reset, edges_propose, verification_run_create, verification_run_execute
from tests.graphs.conftest import find_edge, plant

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# (source tool, field, target tool, parameter, transform): the research's chains that the sandbox serves.
DOCUMENTED = [
    ("get_stan_regin_cd_list", "region_cd", "get_rtms_data_svc_apt_trade", "LAWD_CD", "slice:0:5"),  # 1
    ("get_stan_regin_cd_list", "region_cd", "select_stdg_ppltn_hh_stus", "stdgCd", "identity"),  # 13
    ("get_rtms_data_svc_apt_trade_dev", "sggCd", "get_br_title_info", "sigunguCd", "identity"),  # 3
    ("addr_link_api", "admCd", "addr_coord_api", "admCd", "identity"),  # 2, 4: Juso address -> coordinates
    ("addr_coord_api", "entX,entY", "get_vilage_fcst", "nx,ny", "project:utmk:kma"),  # 4
    ("get_tm_stdr_crdnt", "tmX", "get_nearby_msrstn_list", "tmX", "identity"),  # 5
    ("get_nearby_msrstn_list", "stationName", "get_msrstn_accto_rltm_mesure_dnsty", "stationName", "identity"),  # 5
    ("get_sttn_no_list", "nodeid", "get_sttn_accto_arvl_prearnge_info_list", "nodeId", "identity"),  # 6
    ("get_crdnt_prxmt_sttn_list", "nodeid", "get_sttn_accto_arvl_prearnge_info_list", "nodeId", "identity"),  # 6
    ("get_station_by_name", "arsId", "get_station_by_uid", "arsId", "identity"),  # 7
    ("area_code2", "code", "area_based_list2", "areaCode", "identity"),  # 8
    ("area_based_list2", "contentid", "detail_common2", "contentId", "identity"),  # 8
    ("area_based_list2", "contentid", "detail_intro2", "contentId", "identity"),  # 8
    ("get_hosp_basis_list", "ykiho", "get_dtl_info2_7", "ykiho", "identity"),  # 10
    (
        "get_apt_lttot_pblanc_detail",
        "HOUSE_MANAGE_NO",
        "get_apt_lttot_pblanc_mdl",
        "cond[HOUSE_MANAGE_NO::EQ]",
        "identity",
    ),  # 14
]

# Plausible-looking links that do not work: a city name as a stop id, a 10-digit code where MOLIT wants five,
# an address as a station name, a holiday date as a forecast base date, a title as a content id.
PLANTED = [
    ("get_cty_code_list", "cityname", "get_sttn_accto_arvl_prearnge_info_list", "nodeId", "identity"),
    ("get_stan_regin_cd_list", "region_cd", "get_rtms_data_svc_apt_trade", "LAWD_CD", "identity"),
    ("get_msrstn_list", "addr", "get_msrstn_accto_rltm_mesure_dnsty", "stationName", "identity"),
    ("get_rest_de_info", "locdate", "get_vilage_fcst", "base_date", "identity"),
    ("area_based_list2", "title", "detail_common2", "contentId", "identity"),
]

RUN = {"rounds": 16, "batch_size": 100, "n_max": 16, "concurrency": 8, "seed": 11}


def _verdicts(edges: list[CandidateEdge]) -> dict[int, str]:
    return dict(CandidateEdge.objects.filter(pk__in=[e.pk for e in edges]).values_list("pk", "status"))


def _run(edges: list[CandidateEdge], **extra) -> VerificationRun:
    run = verification_run_create(params={**RUN, "edge_ids": [e.pk for e in edges], **extra})
    verification_run_execute(run=run)
    run.refresh_from_db()
    return run


def _wipe() -> None:
    """Back to the state before any run: no trials, no calls, every edge proposed with its prior."""
    EdgeTrial.objects.all().delete()
    VerificationRun.objects.all().delete()
    ApiCall.objects.all().delete()
    for edge in CandidateEdge.objects.all():
        edge_reset(edge=edge)


def test_a_run_verifies_the_documented_chains_and_prunes_planted_false_candidates(catalog, executor_settings):
    report = edges_propose()
    assert report.created > 100
    documented = [find_edge(*key) for key in DOCUMENTED]
    planted = [plant(catalog, *key) for key in PLANTED]

    run = _run(documented + planted)

    verdicts = _verdicts(documented + planted)
    failed = {str(e): verdicts[e.pk] for e in documented if verdicts[e.pk] != "verified"}
    assert not failed, f"documented chains not verified: {failed}"
    wrongly_kept = {str(e): verdicts[e.pk] for e in planted if verdicts[e.pk] != "pruned"}
    assert not wrongly_kept, f"planted false candidates not pruned: {wrongly_kept}"

    # Every trial left its calls in the log under source_kind edge_trial, tagged with the run.
    assert run.status == "finished" and run.counters["trials"] == EdgeTrial.objects.filter(run=run).count()
    calls = ApiCall.objects.filter(source_kind="edge_trial", source_id=str(run.pk))
    assert calls.count() == run.counters["calls"] > 0
    trial = EdgeTrial.objects.filter(edge=documented[0], kind="main", outcome="success").first()
    assert trial.source_call.tool_id == documented[0].source_tool_id
    assert trial.target_call.tool_id == documented[0].target_tool_id
    assert trial.values["bound"]["LAWD_CD"] == trial.values["source_values"]["region_cd"][:5]
    # A verified edge passed a control: a mismatched value changed what the target returned.
    assert all(e.controls_passed >= 1 for e in CandidateEdge.objects.filter(pk__in=[d.pk for d in documented]))
    # The posterior is the prior plus the trials' recorded deltas, each counted once.
    edge = CandidateEdge.objects.get(pk=documented[0].pk)
    trials = EdgeTrial.objects.filter(edge=edge)
    assert edge.alpha == pytest.approx(edge.prior_alpha + sum(t.alpha_delta for t in trials))
    assert edge.beta == pytest.approx(edge.prior_beta + sum(t.beta_delta for t in trials))


FAULT_SET = [DOCUMENTED[i] for i in (0, 5, 6, 7, 9, 10)] + [PLANTED[i] for i in (0, 2, 3)]


def test_injected_environmental_faults_leave_the_verified_set_unchanged(catalog, executor_settings, settings):
    edges_propose()
    edges = [find_edge(*key) for key in FAULT_SET[:6]] + [plant(catalog, *key) for key in FAULT_SET[6:]]

    _run(edges)
    clean = _verdicts(edges)
    assert sorted(clean.values()).count("verified") == 6 and sorted(clean.values()).count("pruned") == 3

    _wipe()
    settings.KOPA_EXECUTOR = {
        **settings.KOPA_EXECUTOR,
        "sandbox_headers": {"X-Sandbox-Fault-Rate": "0.2", "X-Sandbox-Faults": "500,502,503,quota,malformed,reset"},
    }
    faulty_run = _run(edges)

    assert _verdicts(edges) == clean
    retried = ApiCall.objects.filter(source_kind="edge_trial", attempts__gt=1).count()
    total = ApiCall.objects.filter(source_kind="edge_trial").count()
    assert retried / total > 0.1, "the faults did reach the executor"
    # Residual environmental failures (after retries) moved beta by w_e only and pruned nothing good.
    env = EdgeTrial.objects.filter(run=faulty_run, outcome="environmental")
    assert all(t.beta_delta == pytest.approx(0.1) for t in env.filter(kind="main"))
