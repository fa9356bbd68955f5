"""KOSIS 공유서비스: bare-array answers (unquoted keys without jsonVD=Y), {"err","errMsg"} errors, search paging,
getMeta types, data selection by code/item/period, the 40,000-cell limit, publication days on the clock,
agreement with the MOIS population family, and research §5 chain 11 over HTTP."""

from __future__ import annotations

import json

import httpx
import pytest

from apis.sandbox.config import DEMO_KEY

SEARCH = "kosis.kr/openapi/statisticsSearch.do"
META = "kosis.kr/openapi/statisticsData.do"
DATA = "kosis.kr/openapi/Param/statisticsParameterData.do"
POPULATION = "apis.data.go.kr/1741000/stdgPpltnHhStus/selectStdgPpltnHhStus"


def kosis(sandbox_get, path, method, **params):
    query = {"method": method, "apiKey": DEMO_KEY, "format": "json", "jsonVD": "Y", **params}
    return sandbox_get(path, query, service_key=None)


def rows(sandbox_get, path, method, **params):
    return json.loads(kosis(sandbox_get, path, method, **params).text())


def test_it_searches_tables_and_answers_a_bare_array(sandbox_get):
    found = rows(sandbox_get, SEARCH, "getList", searchNm="인구")
    assert isinstance(found, list) and {r["TBL_ID"] for r in found} >= {"DT_1B040A3", "DT_1DA7004S"}
    first = found[0]
    assert first["ORG_ID"] == "101" and first["STAT_DB_CNT"] == str(len(found)) and first["QUERY"] == "인구"
    assert rows(sandbox_get, SEARCH, "getList", searchNm="미분양 현황")[0]["TBL_ID"] == "DT_MLTM_2082"
    assert rows(sandbox_get, SEARCH, "getList", searchNm="인구", orgId="116") == {
        "err": "30",
        "errMsg": "데이터가 존재하지 않습니다.",
    }


def test_it_pages_search_results_by_start_count(sandbox_get):
    page1 = rows(sandbox_get, SEARCH, "getList", searchNm="시도별", resultCount="2", startCount="1")
    page2 = rows(sandbox_get, SEARCH, "getList", searchNm="시도별", resultCount="2", startCount="2")
    assert len(page1) == len(page2) == 2 and not {r["TBL_ID"] for r in page1} & {r["TBL_ID"] for r in page2}


def test_it_writes_unquoted_keys_without_json_vd(sandbox_get):
    text = kosis(sandbox_get, SEARCH, "getList", searchNm="물가", jsonVD=None).text()
    assert text.startswith('[{ORG_ID:"101",') and '"ORG_ID"' not in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_it_answers_key_and_parameter_errors_in_its_own_form(sandbox_get):
    missing = json.loads(
        sandbox_get(SEARCH, {"method": "getList", "searchNm": "인구", "format": "json"}, service_key=None).text()
    )
    assert missing == {"err": "10", "errMsg": "인증KEY값이 누락되었습니다."}
    wrong = json.loads(
        sandbox_get(SEARCH, {"method": "getList", "apiKey": "x", "searchNm": "인구"}, service_key=None).text()
    )
    assert wrong["err"] == "11"
    assert rows(sandbox_get, SEARCH, "getList")["err"] == "20"
    assert rows(sandbox_get, META, "getMeta", type="XYZ", orgId="101", tblId="DT_1B040A3")["err"] == "21"
    assert rows(sandbox_get, SEARCH, "getList", searchNm="인구", format="sdmx")["err"] == "21"


def test_meta_describes_names_periods_items_and_sources(sandbox_get):
    base = {"orgId": "101", "tblId": "DT_1J22003"}
    assert rows(sandbox_get, META, "getMeta", type="TBL", **base)[0]["TBL_NM"].startswith("품목성질별 소비자물가지수")
    period = rows(sandbox_get, META, "getMeta", type="PRD", **base)[0]
    assert period == {"PRD_SE": "월", "STRT_PRD_DE": "200001", "END_PRD_DE": "202610"}
    items = rows(sandbox_get, META, "getMeta", type="ITM", **base)
    assert {r["OBJ_ID"] for r in items} == {"A", "ITEM"} and {"0", "A1", "B3", "T"} <= {r["ITM_ID"] for r in items}
    assert [r["ITM_ID"] for r in rows(sandbox_get, META, "getMeta", type="ITM", objId="ITEM", **base)] == ["T"]
    assert rows(sandbox_get, META, "getMeta", type="UNIT", **base) == [
        {"UNIT_NM": "2020=100", "UNIT_NM_ENG": "2020=100"}
    ]
    assert rows(sandbox_get, META, "getMeta", type="SOURCE", **base)[0]["DEPT_NM"].startswith("통계청")
    assert rows(sandbox_get, META, "getMeta", type="WGT", **base)["err"] == "30"
    assert rows(sandbox_get, META, "getMeta", type="TBL", orgId="101", tblId="DT_NOPE")["err"] == "30"


def test_data_selects_codes_items_and_periods(sandbox_get):
    data = rows(
        sandbox_get,
        DATA,
        "getList",
        orgId="101",
        tblId="DT_1DA7004S",
        objL1="00+11+",
        itmId="T80 T90",
        prdSe="M",
        startPrdDe="202601",
        endPrdDe="202603",
    )
    assert len(data) == 2 * 2 * 3
    assert {(r["C1"], r["ITM_ID"]) for r in data} == {("00", "T80"), ("00", "T90"), ("11", "T80"), ("11", "T90")}
    assert [r["PRD_DE"] for r in data[:3]] == ["202601", "202602", "202603"]
    assert all(isinstance(r["DT"], str) and 0 < float(r["DT"]) < 100 for r in data)
    latest = rows(sandbox_get, DATA, "getList", orgId="101", tblId="DT_1J22003", objL1="0", itmId="T", prdSe="M")
    assert [r["PRD_DE"] for r in latest] == ["202610"]  # without a period: the latest published one
    three = rows(
        sandbox_get,
        DATA,
        "getList",
        orgId="101",
        tblId="DT_1J22003",
        objL1="0",
        itmId="T",
        prdSe="M",
        newEstPrdCnt="3",
        prdInterval="2",
    )
    assert [r["PRD_DE"] for r in three] == ["202606", "202608", "202610"]


def test_annual_tables_answer_a_instead_of_y(sandbox_get):
    data = rows(
        sandbox_get,
        DATA,
        "getList",
        orgId="101",
        tblId="DT_1B81A12",
        objL1="00",
        itmId="T1",
        prdSe="Y",
        newEstPrdCnt="2",
    )
    assert [r["PRD_DE"] for r in data] == ["2024", "2025"] and {r["PRD_SE"] for r in data} == {"A"}
    assert (
        rows(sandbox_get, DATA, "getList", orgId="101", tblId="DT_1B81A12", objL1="00", itmId="T1", prdSe="A")["err"]
        == "30"
    )
    wrong_width = rows(
        sandbox_get,
        DATA,
        "getList",
        orgId="101",
        tblId="DT_1B81A12",
        objL1="00",
        itmId="T1",
        prdSe="Y",
        startPrdDe="202401",
    )
    assert wrong_width["err"] == "21"


def test_periods_are_published_on_their_own_day(sandbox_get):
    def latest(now):
        query = {
            "method": "getList",
            "apiKey": DEMO_KEY,
            "format": "json",
            "jsonVD": "Y",
            "orgId": "101",
            "tblId": "DT_1DA7004S",
            "objL1": "00",
            "itmId": "T80",
            "prdSe": "M",
        }
        return json.loads(sandbox_get(DATA, query, service_key=None, headers={"X-Sandbox-Now": now}).text())[0][
            "PRD_DE"
        ]

    assert latest("2026-11-11T09:00") == "202609" and latest("2026-11-12T09:00") == "202610"


def test_it_refuses_more_than_40000_cells(sandbox_get):
    too_big = rows(
        sandbox_get,
        DATA,
        "getList",
        orgId="101",
        tblId="DT_1B040A3",
        objL1="ALL",
        itmId="ALL",
        prdSe="M",
        startPrdDe="201101",
        endPrdDe="202610",
    )
    assert too_big["err"] == "31"


def test_population_uses_kosis_region_codes_and_agrees_with_mois(sandbox_get):
    data = rows(
        sandbox_get,
        DATA,
        "getList",
        orgId="101",
        tblId="DT_1B040A3",
        objL1="11010",
        itmId="T20",
        prdSe="M",
        startPrdDe="202610",
        endPrdDe="202610",
    )
    assert data[0]["C1_NM"] == "종로구"  # KOSIS 11010, 법정동 11110
    mois = json.loads(
        sandbox_get(
            POPULATION,
            {
                "stdgCd": "1111000000",
                "srchFrYm": "202610",
                "srchToYm": "202610",
                "lv": "2",
                "regSeCd": "1",
                "type": "json",
            },
        ).text()
    )
    assert data[0]["DT"] == mois["Response"]["items"]["item"]["totNmprCnt"]
    seoul = rows(
        sandbox_get,
        DATA,
        "getList",
        orgId="101",
        tblId="DT_1B040A3",
        objL1="11",
        itmId="T20+T21+T22",
        prdSe="M",
        startPrdDe="202610",
        endPrdDe="202610",
    )
    total, male, female = (int(r["DT"]) for r in seoul)
    assert total == male + female and 9_000_000 < total < 10_000_000


@pytest.mark.slow
def test_chain_11_search_then_meta_then_data_over_http(sandbox_server):
    """Research §5 chain 11: statisticsSearch(searchNm) → ORG_ID, TBL_ID → getMeta(ITM) → statisticsParameterData."""
    with httpx.Client(timeout=30) as client:

        def get(path, **params):
            return client.get(
                sandbox_server.live(path), params={"apiKey": DEMO_KEY, "format": "json", "jsonVD": "Y", **params}
            ).json()

        table = get(SEARCH, method="getList", searchNm="실업률")[0]
        meta = get(META, method="getMeta", type="ITM", orgId=table["ORG_ID"], tblId=table["TBL_ID"])
        item = next(m["ITM_ID"] for m in meta if m["OBJ_ID"] == "ITEM" and m["ITM_NM"] == "실업률")
        seoul = next(m["ITM_ID"] for m in meta if m["OBJ_ID"] != "ITEM" and m["ITM_NM"] == "서울특별시")
        data = get(
            DATA,
            method="getList",
            orgId=table["ORG_ID"],
            tblId=table["TBL_ID"],
            objL1=seoul,
            itmId=item,
            prdSe="M",
            newEstPrdCnt="12",
        )
    assert len(data) == 12 and {d["UNIT_NM"] for d in data} == {"%"} and data[-1]["PRD_DE"] == table["END_PRD_DE"]
