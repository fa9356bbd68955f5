"""A verified graph over the bundled catalog, for synthesis tests on the sandbox.

The edges are links the sandbox serves (research/korean_apis.md §5 and the graph tests' documented chains):
법정동 -> MOLIT and population, TAGO stops -> routes -> stops -> nearby stops -> arrivals (a cycle long enough for
walks of six steps and more), TourAPI areas -> places -> details, AirKorea coordinates -> stations -> readings,
HIRA hospitals -> details. They are stored as verified candidate edges and frozen by the graph app's own
snapshot service.
"""

from __future__ import annotations

from graphs.models import CandidateEdge, GraphSnapshot
from graphs.services import edge_create, graph_snapshot_create

SANDBOX_EDGES = [
    ("get_stan_regin_cd_list", "region_cd", "get_rtms_data_svc_apt_trade", "LAWD_CD", "slice:0:5"),
    ("get_stan_regin_cd_list", "region_cd", "select_stdg_ppltn_hh_stus", "stdgCd", "identity"),
    ("get_sttn_no_list", "nodeid", "get_sttn_thrgh_route_list", "nodeid", "identity"),
    ("get_sttn_no_list", "nodeid", "get_sttn_accto_arvl_prearnge_info_list", "nodeId", "identity"),
    ("get_sttn_thrgh_route_list", "routeid", "get_route_accto_thrgh_sttn_list", "routeId", "identity"),
    ("get_route_accto_thrgh_sttn_list", "gpslati,gpslong", "get_crdnt_prxmt_sttn_list", "gpsLati,gpsLong", "pair"),
    ("get_route_accto_thrgh_sttn_list", "nodeid", "get_sttn_thrgh_route_list", "nodeid", "identity"),
    ("get_crdnt_prxmt_sttn_list", "nodeid", "get_sttn_accto_arvl_prearnge_info_list", "nodeId", "identity"),
    ("get_crdnt_prxmt_sttn_list", "citycode", "get_sttn_accto_arvl_prearnge_info_list", "cityCode", "identity"),
    ("get_sttn_accto_arvl_prearnge_info_list", "routeid", "get_route_accto_thrgh_sttn_list", "routeId", "identity"),
    ("area_code2", "code", "area_based_list2", "areaCode", "identity"),
    ("area_based_list2", "contentid", "detail_common2", "contentId", "identity"),
    ("area_based_list2", "contentid", "detail_intro2", "contentId", "identity"),
    ("area_based_list2", "contenttypeid", "detail_intro2", "contentTypeId", "identity"),
    ("get_tm_stdr_crdnt", "tmX,tmY", "get_nearby_msrstn_list", "tmX,tmY", "pair"),
    ("get_nearby_msrstn_list", "stationName", "get_msrstn_accto_rltm_mesure_dnsty", "stationName", "identity"),
    ("get_hosp_basis_list", "ykiho", "get_dtl_info2_7", "ykiho", "identity"),
]

EXECUTOR = {
    "timeout_s": 10.0,
    "max_attempts": 3,
    "base_delay_s": 0.01,
    "max_delay_s": 0.02,
    "concurrency": 8,
    "record_target": "sandbox",
    "body_cap_bytes": 2_000_000,
    "sandbox_headers": {},
}


def verified_snapshot(catalog, edges=SANDBOX_EDGES, note: str = "synthesis tests") -> GraphSnapshot:
    """Store the edges as verified candidates and take a snapshot with the graph app's service."""
    for source, field, target, param, transform in edges:
        edge = edge_create(
            source_tool=catalog[source],
            source_field=field,
            target_tool=catalog[target],
            target_param=param,
            transform=transform,
            score=0.8,
            note="known to hold in the sandbox",
        )
        CandidateEdge.objects.filter(pk=edge.pk).update(
            status=CandidateEdge.Status.VERIFIED, alpha=9.0, beta=1.0, posterior_mean=0.9
        )
    return graph_snapshot_create(note=note)


def use_sandbox(settings, url: str) -> None:
    settings.KOPA_SANDBOX_ORIGIN = url
    settings.KOPA_EXECUTOR = dict(EXECUTOR)
    settings.KOPA_SYNTH = {"llm_url": "", "llm_model": "", "llm_key": "", "judge_model": ""}
