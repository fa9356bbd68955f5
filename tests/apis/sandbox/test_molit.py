"""MOLIT RTMS (trades and rents) and 건축HUB 표제부: live envelope traits, paging, clock, realism, errors."""

from __future__ import annotations

import json
import statistics

import pytest

from .conftest import parse

TRADE = "apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
TRADE_DEV = "apis.data.go.kr/1613000/RTMSDataSvcAptTradeDev/getRTMSDataSvcAptTradeDev"
RENT = "apis.data.go.kr/1613000/RTMSDataSvcAptRent/getRTMSDataSvcAptRent"
OFFI = "apis.data.go.kr/1613000/RTMSDataSvcOffiTrade/getRTMSDataSvcOffiTrade"
RH = "apis.data.go.kr/1613000/RTMSDataSvcRHTrade/getRTMSDataSvcRHTrade"
TITLE = "apis.data.go.kr/1613000/BldRgstHubService/getBrTitleInfo"


def body_of(response) -> dict:
    return parse(response)["response"]["body"]


def items_of(response) -> list[dict]:
    items = body_of(response)["items"]
    if not items:
        return []
    item = items["item"]
    return item if isinstance(item, list) else [item]


def all_items(sandbox_get, path, lawd, ymd, **extra) -> list[dict]:
    return items_of(sandbox_get(path, {"LAWD_CD": lawd, "DEAL_YMD": ymd, "numOfRows": 99999, **extra}))


def test_it_answers_000_ok_with_fields_in_alphabetical_order(sandbox_get):
    response = sandbox_get(TRADE, {"LAWD_CD": "11680", "DEAL_YMD": "202609", "numOfRows": 5})
    assert response.headers["Content-Type"].startswith("application/xml")
    header = parse(response)["response"]["header"]
    assert header == {"resultCode": "000", "resultMsg": "OK"}
    item = items_of(response)[0]
    assert list(item) == sorted(item)
    assert item["sggCd"] == "11680"
    assert item["dealAmount"].startswith(" ") and "," in item["dealAmount"]  # "  245,000"


def test_it_stays_xml_when_json_is_asked(sandbox_get):
    for switch in ({"_type": "json"}, {"dataType": "JSON"}, {"type": "json"}):
        response = sandbox_get(TRADE, {"LAWD_CD": "11680", "DEAL_YMD": "202609", **switch})
        assert response.text().startswith("<?xml")


def test_it_lists_hundreds_of_deals_for_a_big_district_so_page_one_is_not_enough(sandbox_get):
    response = sandbox_get(TRADE, {"LAWD_CD": "11680", "DEAL_YMD": "202609"})
    body = body_of(response)
    assert int(body["totalCount"]) > 300
    assert len(items_of(response)) == 10 == int(body["numOfRows"])


def test_it_pages_through_every_deal_once(sandbox_get):
    everything = all_items(sandbox_get, TRADE_DEV, "11110", "202609")
    paged = []
    for page in range(1, len(everything) // 25 + 2):
        paged += items_of(
            sandbox_get(TRADE_DEV, {"LAWD_CD": "11110", "DEAL_YMD": "202609", "numOfRows": 25, "pageNo": page})
        )
    assert paged == everything


def test_it_prices_gangnam_far_above_dobong(sandbox_get):
    def median_per_m2(lawd):
        rows = [r for r in all_items(sandbox_get, TRADE, lawd, "202609") if r["cdealType"].strip() != "O"]
        return statistics.median(int(r["dealAmount"].replace(",", "")) / float(r["excluUseAr"]) for r in rows)

    gangnam, dobong = median_per_m2("11680"), median_per_m2("11320")
    assert 2500 < gangnam < 5000  # 만원/㎡: an 84㎡ flat around 25–40억
    assert gangnam > 3 * dobong


def test_it_fills_the_latest_month_as_the_clock_advances(sandbox_get):
    october_now = len(all_items(sandbox_get, TRADE, "11680", "202610"))
    september = len(all_items(sandbox_get, TRADE, "11680", "202609"))
    november = len(all_items(sandbox_get, TRADE, "11680", "202611"))
    later = sandbox_get(
        TRADE, {"LAWD_CD": "11680", "DEAL_YMD": "202610", "numOfRows": 1}, headers={"X-Sandbox-Now": "2027-01-15T10:00"}
    )
    assert november < october_now < int(body_of(later)["totalCount"])
    assert november < september / 3
    assert all_items(sandbox_get, TRADE, "11680", "202612") == []


def test_it_keeps_cancelled_deals_with_their_date(sandbox_get):
    rows = all_items(sandbox_get, TRADE, "11680", "202608")
    cancelled = [r for r in rows if r["cdealType"] == "O"]
    assert 0 < len(cancelled) < len(rows) * 0.1
    assert all(len(r["cdealDay"]) == 8 and r["cdealDay"][2] == "." for r in cancelled)
    assert any(r["cdealType"] == " " and r["cdealDay"] == " " for r in rows)  # blank-space fields


def test_it_returns_empty_items_for_a_month_before_the_data_starts_or_an_unknown_district(sandbox_get):
    for params in ({"LAWD_CD": "11680", "DEAL_YMD": "200512"}, {"LAWD_CD": "99999", "DEAL_YMD": "202609"}):
        response = sandbox_get(TRADE, params)
        assert "<items/>" in response.text()
        assert body_of(response)["totalCount"] == "0"


def test_it_rejects_a_malformed_region_or_month_with_10(sandbox_get):
    for params in ({"LAWD_CD": "1168", "DEAL_YMD": "202609"}, {"LAWD_CD": "11680", "DEAL_YMD": "202613"}):
        header = parse(sandbox_get(TRADE, params))["response"]["header"]
        assert header == {"resultCode": "10", "resultMsg": "INVALID_REQUEST_PARAMETER_ERROR"}


def test_it_answers_11_when_a_required_parameter_is_missing(sandbox_get):
    header = parse(sandbox_get(TRADE, {"LAWD_CD": "11680"}))["response"]["header"]
    assert header == {"resultCode": "11", "resultMsg": "NO_MANDATORY_REQUEST_PARAMETERS_ERROR"}


def test_it_gives_the_detailed_fields_only_on_the_dev_service(sandbox_get):
    basic = items_of(sandbox_get(TRADE, {"LAWD_CD": "11350", "DEAL_YMD": "202609", "numOfRows": 3}))
    dev = items_of(sandbox_get(TRADE_DEV, {"LAWD_CD": "11350", "DEAL_YMD": "202609", "numOfRows": 3}))
    assert "aptSeq" not in basic[0] and dev[0]["aptSeq"].startswith("11350-")
    assert len(dev[0]["bonbun"]) == 4 and len(dev[0]["bubun"]) == 4 and len(dev[0]["umdCd"]) == 5
    for b, d in zip(basic, dev, strict=True):
        assert {k: v for k, v in d.items() if k in b} == b  # the same deals, more fields


def test_it_lists_rents_with_jeonse_and_monthly_contracts(sandbox_get):
    rows = all_items(sandbox_get, RENT, "11710", "202609")
    jeonse = [r for r in rows if r["monthlyRent"] == "0"]
    wolse = [r for r in rows if r["monthlyRent"] != "0"]
    assert jeonse and wolse
    assert {r["contractType"] for r in rows} == {"신규", "갱신"}
    assert all("~" in r["contractTerm"] for r in rows)


def test_it_lists_officetel_and_row_house_trades_with_their_own_names(sandbox_get):
    offi = all_items(sandbox_get, OFFI, "11440", "202609")
    rh = all_items(sandbox_get, RH, "11110", "202609")
    assert offi and all(r["offiNm"] and r["sggNm"] == "마포구" for r in offi)
    assert rh and {r["houseType"] for r in rh} <= {"연립", "다세대"} and all(r["mhouseNm"] for r in rh)


def test_it_gives_a_single_deal_as_one_item_element(sandbox_get):
    response = sandbox_get(TRADE, {"LAWD_CD": "11680", "DEAL_YMD": "202609", "numOfRows": 1})
    assert response.text().count("<item>") == 1


@pytest.mark.parametrize(
    "host_path",
    [
        "openapi.molit.go.kr/OpenAPI_ToolInstallPackage/service/rest/RTMSOBJSvc/getRTMSDataSvcAptTradeDev",
        "openapi.molit.go.kr:8081/OpenAPI_ToolInstallPackage/service/rest/RTMSOBJSvc/getRTMSDataSvcAptRent",
        "apis.data.go.kr/1613000/BldRgstService_v2/getBrTitleInfo",
    ],
)
def test_it_answers_12_for_retired_services(sandbox_get, host_path):
    response = sandbox_get(host_path, {"LAWD_CD": "11110", "DEAL_YMD": "202401"})
    assert response.status == 400
    assert parse(response)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "12"


def test_it_answers_12_without_the_root_in_json_for_a_retired_service(sandbox_get):
    response = sandbox_get("apis.data.go.kr/1613000/BldRgstService_v2/getBrTitleInfo", {"_type": "json"})
    assert json.loads(response.text()) == {
        "cmmMsgHeader": {
            "errMsg": "SERVICE ERROR",
            "returnAuthMsg": "NO_OPENAPI_SERVICE_ERROR",
            "returnReasonCode": "12",
        }
    }


def title(sandbox_get, **params):
    return sandbox_get(TITLE, {"sigunguCd": "11680", "bjdongCd": "10100", **params})


def test_it_describes_a_complex_one_record_per_building(sandbox_get):
    response = title(sandbox_get, platGbCd="0", bun="0023", ji="0000", _type="json", numOfRows=100)
    body = json.loads(response.text())["response"]
    assert body["header"] == {"resultCode": "00", "resultMsg": "NORMAL SERVICE"}
    items = body["body"]["items"]["item"]
    assert len(items) > 1 and {i["bldNm"] for i in items} == {items[0]["bldNm"]}
    assert [i["dongNm"] for i in items][:2] == ["101동", "102동"]
    first = items[0]
    assert isinstance(first["grndFlrCnt"], int) and isinstance(first["totArea"], float)
    assert first["bun"] == "0023" and first["ji"] == "0000" and first["mainPurpsCdNm"] == "공동주택"
    assert first["newPlatPlc"].startswith(" 서울특별시 강남구 ")
    assert first["platPlc"] == "서울특별시 강남구 역삼동 23번지"


def test_it_lists_every_building_of_a_dong_when_no_lot_is_given(sandbox_get):
    body = body_of(title(sandbox_get, numOfRows=10))
    assert int(body["totalCount"]) > 100


def test_it_answers_10_for_a_missing_district_code(sandbox_get):
    header = parse(sandbox_get(TITLE, {"bjdongCd": "10100"}))["response"]["header"]
    assert header["resultCode"] == "10"


def test_it_returns_empty_items_for_a_lot_without_a_building(sandbox_get):
    response = title(sandbox_get, bun="9999", ji="0000", _type="json")
    assert json.loads(response.text())["response"]["body"]["items"] == ""


def test_a_city_divided_into_gu_answers_no_rows_as_the_live_api_does(sandbox_get):
    # 수원시 41110 is no unit of the 실거래가 or the building register: only its 구 (41111 장안구) are.
    from apis.sandbox.world import regions
    from graphs.engine.domains import CITIES_WITH_GU

    for code in CITIES_WITH_GU:
        for path in (TRADE, RENT, OFFI, RH):
            for _ in range(2):  # the same answer each time
                body = body_of(sandbox_get(path, {"LAWD_CD": code, "DEAL_YMD": "202609", "numOfRows": 99999}))
                assert int(body["totalCount"]) == 0 and not body["items"], (path, code)
        gu = next(r for r in regions.sigungu_list(code[:2]) if r.code[:5] != code and r.code[:4] == code[:4])
        dong = regions.leaf_dongs_in(gu.code[:5])[0].code[5:]
        title = body_of(sandbox_get(TITLE, {"sigunguCd": code, "bjdongCd": dong, "numOfRows": 100}))
        assert int(title["totalCount"]) == 0, code
    assert all_items(sandbox_get, TRADE, "41111", "202609")  # its 구 answers
