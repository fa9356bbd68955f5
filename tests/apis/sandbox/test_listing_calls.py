"""List-style calls that the EDGE graph uses to tell an echo from a link: a parent code lists new child codes,
KOSIS's ALL lists every item, an odcloud list without a filter lists several notices (a source whose answer the
input already determines proves nothing)."""

from __future__ import annotations

import json

from apis.sandbox.config import DEMO_KEY

POP = "apis.data.go.kr/1741000/stdgPpltnHhStus/selectStdgPpltnHhStus"
KOSIS_DATA = "kosis.kr/openapi/Param/statisticsParameterData.do"
MODELS = "api.odcloud.kr/api/ApplyhomeInfoDetailSvc/v1/getAPTLttotPblancMdl"


def population_codes(sandbox_get, stdg_cd: str, lv: str) -> set[str]:
    query = {"stdgCd": stdg_cd, "srchFrYm": "202610", "srchToYm": "202610", "lv": lv, "regSeCd": "1"}
    response = sandbox_get(POP, {**query, "type": "json", "numOfRows": "1000"})
    items = json.loads(response.text())["Response"]["items"]["item"]
    return {item["stdgCd"] for item in ([items] if isinstance(items, dict) else items)}  # one item is no list


def test_a_parent_region_code_lists_its_children_one_level_down(sandbox_get):
    sigungu = population_codes(sandbox_get, "1100000000", "2")  # 서울's 시군구
    assert len(sigungu) == 25 and "1100000000" not in sigungu
    assert all(code[:2] == "11" and code[5:] == "00000" and code[2:5] != "000" for code in sigungu)
    dongs = population_codes(sandbox_get, "1111000000", "3")  # 종로구's 읍면동
    assert len(dongs) > 50 and all(code[:5] == "11110" and code[5:] != "00000" for code in dongs)
    assert population_codes(sandbox_get, "1111010300", "3") == {"1111010300"}  # a 동 asked at its own level


def test_kosis_items_all_lists_every_item_of_the_table(sandbox_get):
    query = {"method": "getList", "apiKey": DEMO_KEY, "format": "json", "jsonVD": "Y", "orgId": "101"}
    query |= {"tblId": "DT_1B040A3", "objL1": "11", "prdSe": "M"}
    one = json.loads(sandbox_get(KOSIS_DATA, {**query, "itmId": "T20"}, service_key=None).text())
    every = json.loads(sandbox_get(KOSIS_DATA, {**query, "itmId": "ALL"}, service_key=None).text())
    assert {row["ITM_ID"] for row in one} == {"T20"}
    assert len({row["ITM_ID"] for row in every}) > 1 and "T20" in {row["ITM_ID"] for row in every}


def test_an_odcloud_list_without_a_filter_lists_several_notices(sandbox_get):
    response = sandbox_get(MODELS, {"serviceKey": DEMO_KEY, "perPage": "100"}, service_key=None)
    notices = {row["PBLANC_NO"] for row in json.loads(response.text())["data"]}
    assert len(notices) > 1
