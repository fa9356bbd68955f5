"""Domain inference over every bundled tool: a table test. Every parameter a link could fill has a known
domain; the codes that connect the APIs (research §3) get the domain they mean, provider by provider."""

from __future__ import annotations

import pytest

from graphs.engine import domains
from graphs.engine.names import is_control_param
from graphs.selectors import active_tools, tool_infos

pytestmark = pytest.mark.django_db

# (tool, "param" or "field", name): domain. The connecting codes of the bundled catalog.
EXPECTED = {
    ("get_stan_regin_cd_list", "field", "region_cd"): "bjd10",
    ("get_stan_regin_cd_list", "field", "sgg_cd"): "ldong.sgg3",
    ("get_stan_regin_cd_list", "field", "sido_cd"): "ldong.sido2",
    ("select_stdg_ppltn_hh_stus", "param", "stdgCd"): "bjd10",
    ("addr_link_api", "field", "admCd"): "bjd10",
    ("addr_link_api", "field", "lnbrMnnm"): "lot.bun",
    ("addr_link_api", "field", "mtYn"): "lot.plat_gb",
    ("addr_coord_api", "field", "entX"): "utmk.x",
    ("get_rtms_data_svc_apt_trade", "param", "LAWD_CD"): "sgg5",
    ("get_rtms_data_svc_apt_trade", "field", "sggCd"): "sgg5",
    ("get_rtms_data_svc_apt_trade", "field", "dealYear"): "date.y",
    ("get_rtms_data_svc_apt_trade_dev", "field", "umdCd"): "umd5",
    ("get_rtms_data_svc_apt_trade_dev", "field", "bonbun"): "lot.bun4",
    ("get_br_title_info", "param", "sigunguCd"): "sgg5",
    ("get_br_title_info", "param", "bjdongCd"): "umd5",
    ("get_br_title_info", "param", "bun"): "lot.bun4",
    ("get_br_title_info", "param", "ji"): "lot.ji4",
    ("get_hosp_basis_list", "param", "sgguCd"): "hira.sggu",
    ("get_hosp_basis_list", "field", "sgguCd"): "hira.sggu",
    ("get_hosp_basis_list", "field", "ykiho"): "hira.ykiho",
    ("get_hosp_basis_list", "field", "XPos"): "wgs84.lon",
    ("get_dtl_info2_7", "param", "ykiho"): "hira.ykiho",
    ("area_code2", "field", "code"): "tour.area",
    ("area_based_list2", "param", "areaCode"): "tour.area",
    ("area_based_list2", "param", "sigunguCode"): "tour.sigungu",
    ("area_based_list2", "param", "lDongSignguCd"): "ldong.sgg3",
    ("area_based_list2", "field", "mapx"): "wgs84.lon",
    ("area_based_list2", "field", "mapy"): "wgs84.lat",
    ("detail_common2", "param", "contentId"): "tour.content_id",
    ("get_vilage_fcst", "param", "nx"): "kma.nx",
    ("get_vilage_fcst", "param", "base_date"): "date.ymd",
    ("get_vilage_fcst", "param", "base_time"): "time.hhmm",
    ("get_mid_ta", "param", "regId"): "kma.reg_ta",
    ("get_mid_land_fcst", "param", "regId"): "kma.reg_land",
    ("get_mid_ta", "field", "taMax4"): "measure",
    ("get_tm_stdr_crdnt", "field", "tmX"): "tm.x",
    ("get_tm_stdr_crdnt", "field", "sidoName"): "sido.full",
    ("get_tm_stdr_crdnt", "param", "umdName"): "emd.admin",  # 행정동, not the 법정동 names of MOLIT or Juso
    ("get_hosp_basis_list", "field", "sgguCdNm"): "sigungu.name_hira",  # 성남분당구
    ("get_hosp_basis_list", "field", "sidoCdNm"): "sido.short_hira",  # 세종시, where AirKorea writes 세종
    ("get_rtms_data_svc_offi_rent", "field", "sggNm"): "sigungu.name_rtms",
    ("get_nearby_msrstn_list", "param", "tmY"): "tm.y",
    ("get_nearby_msrstn_list", "field", "stationName"): "airkorea.station",
    ("get_nearby_msrstn_list", "field", "tm"): "measure",
    ("get_ctprvn_rltm_mesure_dnsty", "param", "sidoName"): "sido.short",
    ("get_station_by_name", "field", "tmX"): "wgs84.lon",
    ("get_station_by_name", "field", "posX"): "tm.x",
    ("get_station_by_name", "field", "arsId"): "seoul.ars_id",
    ("get_station_by_uid", "field", "rtNm"): "tago.route_no",
    ("get_sttn_no_list", "field", "nodeid"): "tago.node",
    ("get_sttn_no_list", "field", "nodenm"): "tago.node_name",
    ("get_sttn_accto_arvl_prearnge_info_list", "param", "cityCode"): "tago.city",
    ("get_route_accto_thrgh_sttn_list", "param", "routeId"): "tago.route",
    ("get_drb_easy_drug_list", "field", "bizrno"): "bizno",
    ("get_drb_easy_drug_list", "field", "updateDe"): "date.ymd",
    ("status", "param", "b_no"): "bizno",
    ("validate", "param", "businesses[].b_no"): "bizno",
    ("validate", "param", "businesses[].start_dt"): "date.ymd",
    ("validate", "field", "valid"): "flag",
    ("statistics_search", "field", "TBL_ID"): "kosis.tbl",
    ("statistics_data", "param", "tblId"): "kosis.tbl",
    ("get_parmacy_list_info_inqire", "param", "Q1"): "sigungu.name",
    ("get_apt_lttot_pblanc_detail", "field", "HOUSE_MANAGE_NO"): "applyhome.house_manage_no",
    ("realtime_station_arrival", "param", "statnNm"): "subway.station_name",
}


def _inferred(catalog) -> dict[tuple[str, str, str], str]:
    table = {}
    for info in tool_infos(active_tools()):
        for param in info.params:
            table[(info.name, "param", param.name)] = domains.infer(
                param.name, provider=info.provider, side="param", tool=info.name
            )
        for field in info.fields:
            table[(info.name, "field", field.path)] = domains.infer(
                field.path, provider=info.provider, side="field", tool=info.name
            )
    return table


def test_every_bundled_parameter_and_field_gets_a_domain_from_the_table(catalog):
    table = _inferred(catalog)
    assert len({tool for tool, _, _ in table}) >= 50
    assert set(table.values()) <= set(domains.DOMAINS), "a rule names a domain the table does not define"
    wrong = {key: (table.get(key), want) for key, want in EXPECTED.items() if table.get(key) != want}
    assert not wrong, wrong
    # Every parameter a link could fill has a known domain: no target is left to chance.
    unknown = [key for key, domain in table.items() if key[1] == "param" and domain == domains.UNKNOWN]
    unknown = [key for key in unknown if not is_control_param(key[2])]
    assert not unknown, unknown
    # Unknown stays an honest minority among fields (detail texts of one provider, opaque flags).
    fields = [domain for key, domain in table.items() if key[1] == "field"]
    assert fields.count(domains.UNKNOWN) < 0.4 * len(fields)
