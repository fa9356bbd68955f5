"""청약홈 on api.odcloud.kr: the page/perPage envelope with totalCount vs matchCount, cond[…] filters, XML,
notices and competition rates following the sandbox clock, and research §5 chain 14 over HTTP."""

from __future__ import annotations

import json

import httpx
import pytest
import xmltodict

from apis.sandbox.config import DEMO_KEY

DETAIL = "api.odcloud.kr/api/ApplyhomeInfoDetailSvc/v1/getAPTLttotPblancDetail"
MODELS = "api.odcloud.kr/api/ApplyhomeInfoDetailSvc/v1/getAPTLttotPblancMdl"
COMPETITION = "api.odcloud.kr/api/ApplyhomeInfoCmpetRtSvc/v1/getAPTLttotPblancCmpet"


def get(sandbox_get, path, now=None, **params):
    headers = {"X-Sandbox-Now": now} if now else {}
    response = sandbox_get(path, {"serviceKey": DEMO_KEY, **params}, service_key=None, headers=headers)
    return response, (json.loads(response.text()) if response.text().startswith("{") else None)


def test_it_answers_the_odcloud_envelope_with_total_and_match_counts(sandbox_get):
    _, body = get(sandbox_get, DETAIL, perPage="3", **{"cond[SUBSCRPT_AREA_CODE_NM::EQ]": "경기"})
    assert list(body) == ["page", "perPage", "totalCount", "currentCount", "matchCount", "data"]
    assert body["page"] == 1 and body["perPage"] == 3 and body["currentCount"] == 3
    assert body["totalCount"] > body["matchCount"] > 500  # totalCount ignores cond, matchCount does not
    assert all(d["SUBSCRPT_AREA_CODE_NM"] == "경기" and d["SUBSCRPT_AREA_CODE"] == "410" for d in body["data"])
    assert isinstance(body["data"][0]["TOT_SUPLY_HSHLDCO"], int)


def test_it_lists_newest_notices_first_and_only_those_out_by_the_clock(sandbox_get):
    _, body = get(sandbox_get, DETAIL, perPage="50")
    days = [d["RCRIT_PBLANC_DE"] for d in body["data"]]
    assert days == sorted(days, reverse=True) and days[0] <= "2026-11-18"
    _, earlier = get(sandbox_get, DETAIL, now="2026-06-01T09:00", perPage="1")
    assert earlier["data"][0]["RCRIT_PBLANC_DE"] <= "2026-06-01" and earlier["totalCount"] < body["totalCount"]


def test_cond_filters_compare_dates_numbers_and_text(sandbox_get):
    _, recent = get(sandbox_get, DETAIL, perPage="100", **{"cond[RCRIT_PBLANC_DE::GTE]": "2026-10-01"})
    assert recent["matchCount"] and all(d["RCRIT_PBLANC_DE"] >= "2026-10-01" for d in recent["data"])
    _, big = get(sandbox_get, DETAIL, perPage="100", **{"cond[TOT_SUPLY_HSHLDCO::GT]": "1000"})
    assert all(d["TOT_SUPLY_HSHLDCO"] > 1000 for d in big["data"])
    _, brand = get(sandbox_get, DETAIL, perPage="100", **{"cond[HOUSE_NM::LIKE]": "힐스테이트"})
    assert brand["matchCount"] and all("힐스테이트" in d["HOUSE_NM"] for d in brand["data"])
    response, bad = get(sandbox_get, DETAIL, **{"cond[HOUSE_NM]": "x"})
    assert response.status == 400 and bad["code"] == -1


def test_it_pages_and_answers_xml(sandbox_get):
    _, first = get(sandbox_get, DETAIL, perPage="20", page="1")
    _, second = get(sandbox_get, DETAIL, perPage="20", page="2")
    assert not {d["HOUSE_MANAGE_NO"] for d in first["data"]} & {d["HOUSE_MANAGE_NO"] for d in second["data"]}
    response, _ = get(sandbox_get, DETAIL, perPage="2", returnType="XML")
    xml = xmltodict.parse(response.text())["results"]
    assert xml["currentCount"] == "2" and len(xml["data"]["item"]) == 2
    bad, body = get(sandbox_get, DETAIL, page="zero")
    assert bad.status == 400 and body["code"] == -1


def test_it_answers_key_problems_with_odcloud_401s(sandbox_get):
    response = sandbox_get(DETAIL, {}, service_key=None)
    assert response.status == 401 and json.loads(response.text())["code"] == -401


def test_competition_appears_once_the_first_rank_day_has_passed(sandbox_get):
    notice = get(sandbox_get, DETAIL, perPage="1", **{"cond[RCRIT_PBLANC_DE::LTE]": "2026-09-15"})[1]["data"][0]
    key = {"cond[HOUSE_MANAGE_NO::EQ]": notice["HOUSE_MANAGE_NO"], "cond[PBLANC_NO::EQ]": notice["PBLANC_NO"]}
    first_rank_day = notice["GNRL_RNK1_CRSPAREA_RCPTDE"]
    _, early = get(sandbox_get, COMPETITION, now=f"{notice['RCRIT_PBLANC_DE']}T12:00", **key)
    _, late = get(sandbox_get, COMPETITION, now=f"{first_rank_day}T12:00", **key)
    assert early["matchCount"] == 0 and late["matchCount"] >= 3
    rates = [d["CMPET_RATE"] for d in late["data"]]
    assert all(r.startswith("(△") or float(r) >= 1.0 for r in rates)


@pytest.mark.slow
def test_chain_14_notice_to_house_types_and_competition_over_http(sandbox_server):
    """Research §5 chain 14: getAPTLttotPblancDetail(cond) → HOUSE_MANAGE_NO + PBLANC_NO → 주택형, 경쟁률."""
    with httpx.Client(timeout=30, headers={"Authorization": f"Infuser {DEMO_KEY}"}) as client:
        notices = client.get(
            sandbox_server.live(DETAIL),
            params={
                "perPage": "5",
                "cond[SUBSCRPT_AREA_CODE_NM::EQ]": "서울",
                "cond[RCRIT_PBLANC_DE::LTE]": "2026-10-31",
            },
        ).json()["data"]
        notice = notices[0]
        key = {"cond[HOUSE_MANAGE_NO::EQ]": notice["HOUSE_MANAGE_NO"], "cond[PBLANC_NO::EQ]": notice["PBLANC_NO"]}
        models = client.get(sandbox_server.live(MODELS), params=key).json()["data"]
        rates = client.get(sandbox_server.live(COMPETITION), params={**key, "perPage": "100"}).json()["data"]
    assert models and sum(m["SUPLY_HSHLDCO"] + m["SPSPLY_HSHLDCO"] for m in models) == notice["TOT_SUPLY_HSHLDCO"]
    assert {r["HOUSE_TY"] for r in rates} == {m["HOUSE_TY"] for m in models}
    assert {r["SUBSCRPT_RANK_CODE"] for r in rates} <= {"1", "2"}
