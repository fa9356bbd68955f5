"""법정동코드 (StanReginCd) and 주민등록 인구 (stdgPpltnHhStus): envelopes, paging, empty results, errors."""

from __future__ import annotations

import json

from .conftest import parse

STAN = "apis.data.go.kr/1741000/StanReginCd/getStanReginCdList"
POP = "apis.data.go.kr/1741000/stdgPpltnHhStus/selectStdgPpltnHhStus"


def stan_json(sandbox_get, **params):
    response = sandbox_get(STAN, {"type": "json", **params})
    return response, json.loads(response.text())


def test_it_lists_a_district_in_the_head_row_shape_with_html_content_type(sandbox_get):
    response, body = stan_json(sandbox_get, locatadd_nm="서울특별시 종로구", numOfRows=3)
    assert response.headers["Content-Type"].startswith("text/html")
    head, rows = body["StanReginCd"][0]["head"], body["StanReginCd"][1]["row"]
    assert head[0] == {"totalCount": 88}
    assert head[1] == {"numOfRows": "3", "pageNo": "1", "type": "JSON"}
    assert head[2] == {"RESULT": {"resultCode": "INFO-0", "resultMsg": "NOMAL SERVICE"}}
    assert rows[0]["region_cd"] == "1111000000" and rows[0]["locallow_nm"] == "종로구"
    assert rows[0]["locathigh_cd"] == "1100000000"
    assert isinstance(rows[0]["locat_order"], int) and isinstance(rows[0]["sgg_cd"], str)
    assert all(r["locatadd_nm"].startswith("서울특별시 종로구") for r in rows)


def test_it_matches_part_of_a_name_anywhere(sandbox_get):
    _, body = stan_json(sandbox_get, locatadd_nm="청운동", numOfRows=100)
    names = [r["locatadd_nm"] for r in body["StanReginCd"][1]["row"]]
    assert "서울특별시 종로구 청운동" in names


def test_it_lists_the_whole_country_when_no_name_is_given(sandbox_get):
    _, body = stan_json(sandbox_get, numOfRows=1000, pageNo=21)
    assert body["StanReginCd"][0]["head"][0]["totalCount"] == 20555
    assert len(body["StanReginCd"][1]["row"]) == 555


def test_it_pages_without_overlap(sandbox_get):
    _, first = stan_json(sandbox_get, locatadd_nm="서울특별시", numOfRows=50, pageNo=1)
    _, second = stan_json(sandbox_get, locatadd_nm="서울특별시", numOfRows=50, pageNo=2)
    codes1 = {r["region_cd"] for r in first["StanReginCd"][1]["row"]}
    codes2 = {r["region_cd"] for r in second["StanReginCd"][1]["row"]}
    assert len(codes1) == len(codes2) == 50 and not codes1 & codes2


def test_it_answers_info_3_for_an_abolished_name(sandbox_get):
    _, body = stan_json(sandbox_get, locatadd_nm="강원도 춘천시")
    assert body == {"RESULT": {"resultCode": "INFO-3", "resultMsg": "데이터없음 에러"}}


def test_it_refuses_more_than_1000_rows(sandbox_get):
    _, body = stan_json(sandbox_get, numOfRows=1001)
    assert body["RESULT"]["resultCode"] == "ERROR-1"


def test_it_answers_xml_by_default(sandbox_get):
    response = sandbox_get(STAN, {"locatadd_nm": "세종특별자치시", "numOfRows": 2})
    body = parse(response)["StanReginCd"]
    assert body["head"]["RESULT"]["resultCode"] == "INFO-0"
    assert int(body["head"]["totalCount"]) > 20
    assert body["row"][0]["region_cd"] == "3611000000"


def test_it_answers_gateway_errors_in_xml_even_for_json(sandbox_get):
    response = sandbox_get(STAN, {"type": "json"}, service_key="not-a-key")
    assert response.text().startswith("<OpenAPI_ServiceResponse>")
    assert response.status == 200


def population(sandbox_get, **params):
    base = {
        "stdgCd": "1111000000",
        "srchFrYm": "202609",
        "srchToYm": "202610",
        "lv": "3",
        "regSeCd": "1",
        "type": "json",
    }
    response = sandbox_get(POP, {**base, **params})
    return json.loads(response.text())["Response"]


def test_it_lists_population_per_dong_and_month(sandbox_get):
    body = population(sandbox_get, numOfRows=1000)
    assert body["head"]["resultCode"] == "0"
    items = body["items"]["item"]
    assert int(body["head"]["totalCount"]) == len(items) == 2 * 87
    assert {i["statsYm"] for i in items} == {"202609", "202610"}
    first = items[0]
    assert first["ctpvNm"] == "서울특별시" and first["sggNm"] == "종로구"
    assert int(first["maleNmprCnt"]) + int(first["femlNmprCnt"]) == int(first["totNmprCnt"])


def test_it_adds_population_up_the_hierarchy(sandbox_get):
    dongs = population(sandbox_get, srchFrYm="202610", numOfRows=1000)["items"]["item"]
    gu = population(sandbox_get, srchFrYm="202610", lv="2")["items"]["item"]
    assert isinstance(gu, dict)  # a single result is an object, not a list
    assert sum(int(d["totNmprCnt"]) for d in dongs) == int(gu["totNmprCnt"])
    seoul = population(sandbox_get, stdgCd="1100000000", srchFrYm="202610", lv="1")["items"]["item"]
    assert 9_000_000 < int(seoul["totNmprCnt"]) < 10_000_000


def test_it_has_no_data_for_the_current_month(sandbox_get):
    body = population(sandbox_get, srchFrYm="202611", srchToYm="202611")
    assert body["head"]["resultCode"] == "03"
    assert "items" not in body


def test_it_publishes_a_month_once_the_clock_passes_it(sandbox_get):
    body = sandbox_get(
        POP,
        {"stdgCd": "1111000000", "srchFrYm": "202611", "srchToYm": "202611", "lv": "2", "regSeCd": "1", "type": "json"},
        headers={"X-Sandbox-Now": "2026-12-05T09:00"},
    )
    assert json.loads(body.text())["Response"]["head"]["resultCode"] == "0"


def test_it_rejects_a_malformed_month_with_10(sandbox_get):
    assert population(sandbox_get, srchFrYm="2026-9")["head"]["resultCode"] == "10"
    assert population(sandbox_get, lv="7")["head"]["resultCode"] == "10"


def test_it_answers_population_in_xml_by_default(sandbox_get):
    response = sandbox_get(
        POP, {"stdgCd": "1111000000", "srchFrYm": "202610", "srchToYm": "202610", "lv": "2", "regSeCd": "1"}
    )
    body = parse(response)["Response"]
    assert body["head"]["resultCode"] == "0"
    assert body["items"]["item"]["stdgCd"] == "1111000000"


def test_it_counts_residents_below_the_total(sandbox_get):
    everyone = population(sandbox_get, srchFrYm="202610", lv="2")["items"]["item"]
    residents = population(sandbox_get, srchFrYm="202610", lv="2", regSeCd="2")["items"]["item"]
    assert int(residents["totNmprCnt"]) < int(everyone["totNmprCnt"])
