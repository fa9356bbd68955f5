"""HIRA 병원정보 (getHospBasisList) and 상세정보 (getDtlInfo2.7): HIRA's own region codes, filters, distance
search, the gateway's JSON number conversion, the single-object detail and research §5 chain 10 over HTTP."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from apis.sandbox.config import DEMO_KEY
from apis.sandbox.families import hira
from apis.sandbox.families._places import distance_m

from .conftest import parse

BASIS = "apis.data.go.kr/B551182/hospInfoServicev2/getHospBasisList"
DETAIL = "apis.data.go.kr/B551182/MadmDtlInfoService2.7/getDtlInfo2.7"
GANGNAM_STATION = {"xPos": "127.0276", "yPos": "37.4979"}


def basis(sandbox_get, **params):
    body = json.loads(sandbox_get(BASIS, {"_type": "json", **params}).text())["response"]["body"]
    items = body["items"]
    rows = [] if items == "" else items["item"] if isinstance(items["item"], list) else [items["item"]]
    return body, rows


def test_it_files_facilities_under_hira_codes_not_legal_dong_codes(sandbox_get):
    body, rows = basis(sandbox_get, sidoCd="110000", sgguCd="110019", numOfRows=50)
    assert body["totalCount"] > 300  # a Seoul 구 has hundreds of clinics: page 1 is not the answer
    assert {r["sgguCd"] for r in rows} == {110019} and {r["sgguCdNm"] for r in rows} == {"중랑구"}
    assert {r["sidoCdNm"] for r in rows} == {"서울"}
    assert all(r["addr"].startswith("서울특별시 중랑구 ") for r in rows)
    assert basis(sandbox_get, sgguCd="11260")[0]["totalCount"] == 0  # 법정동 LAWD_CD is not a HIRA code


def test_it_maps_metropolitan_and_city_district_names_the_hira_way(sandbox_get):
    areas = hira.areas()
    assert areas["26350"].sggu_nm == "부산해운대구" and areas["26350"].sido_cd == "210000"
    assert areas["28237"].sggu_cd == "220003"  # 인천 부평구, the captured response's code
    assert areas["41135"].sggu_nm == "성남분당구"
    assert len(areas) == 252  # every 시군구 holding 법정동 has a HIRA code


def test_it_pages_through_a_whole_district_without_overlap(sandbox_get):
    total = basis(sandbox_get, sgguCd="110016", numOfRows=1)[0]["totalCount"]
    seen = []
    for page in range(1, total // 500 + 2):
        seen += [r["ykiho"] for r in basis(sandbox_get, sgguCd="110016", numOfRows=500, pageNo=page)[1]]
    assert len(seen) == len(set(seen)) == total


def test_it_filters_by_kind_subject_name_and_dong(sandbox_get):
    _, clinics = basis(sandbox_get, sgguCd="110001", clCd="31", dgsbjtCd="11", numOfRows=100)
    assert clinics and all(r["clCdNm"] == "의원" for r in clinics)
    facilities = {f.ykiho: f for f in hira.facilities_in("11680")}
    assert all("11" in facilities[r["ykiho"]].subjects for r in clinics)
    _, named = basis(sandbox_get, sgguCd="110001", yadmNm="치과", numOfRows=100)
    assert named and all("치과" in r["yadmNm"] for r in named)
    _, in_dong = basis(sandbox_get, sgguCd="110001", emdongNm="역삼동", numOfRows=100)
    assert in_dong and {r["emdongNm"] for r in in_dong} == {"역삼동"}
    _, dental = basis(sandbox_get, sgguCd="110001", zipCd="2050", numOfRows=100)
    assert {r["clCd"] for r in dental} <= {41, 51}


def test_it_lists_general_hospitals_first(sandbox_get):
    _, rows = basis(sandbox_get, sidoCd="110000", numOfRows=30)
    kinds = [str(r["clCd"]).zfill(2) for r in rows]
    assert kinds[0] == "01" and kinds == sorted(kinds)


def test_it_sorts_a_radius_search_by_distance_within_the_radius(sandbox_get):
    _, rows = basis(sandbox_get, **GANGNAM_STATION, radius="700", numOfRows=200)
    distances = [float(r["distance"]) for r in rows]
    assert rows and distances == sorted(distances) and distances[-1] <= 700
    for r in rows[:20]:
        assert distance_m(37.4979, 127.0276, r["YPos"], r["XPos"]) == pytest.approx(float(r["distance"]), abs=1.0)
    assert basis(sandbox_get, **GANGNAM_STATION, radius="0")[0]["totalCount"] == 0


def test_it_converts_json_like_the_gateway_and_keeps_text_in_xml(sandbox_get):
    _, rows = basis(sandbox_get, sidoCd="110000", clCd="01", numOfRows=1)
    row = rows[0]
    assert row["clCd"] == "01" and isinstance(row["drTotCnt"], int) and isinstance(row["estbDd"], int)
    assert isinstance(row["XPos"], float) and isinstance(row["sidoCd"], int) and isinstance(row["distance"], str)
    assert isinstance(row["postNo"], str) and row["postNo"].startswith("0")  # a leading zero keeps it text
    xml = parse(sandbox_get(BASIS, {"sidoCd": "110000", "clCd": "01", "numOfRows": "1"}))
    item = xml["response"]["body"]["items"]["item"]
    assert item["clCd"] == "01" and item["ykiho"] == row["ykiho"]
    assert re.fullmatch(r"1\d\d\.\d{8,}", item["XPos"])


def test_it_answers_bad_coordinates_with_10_and_unknown_codes_with_empty_items(sandbox_get):
    response = sandbox_get(BASIS, {"xPos": "east", "yPos": "37.5", "radius": "100", "_type": "json"})
    assert json.loads(response.text())["response"]["header"]["resultCode"] == "10"
    assert basis(sandbox_get, sidoCd="999999")[0] == {"items": "", "pageNo": 1, "numOfRows": 10, "totalCount": 0}


def test_it_hides_facilities_opened_after_the_sandbox_clock(sandbox_get):
    now = basis(sandbox_get, sgguCd="110001", numOfRows=1)[0]["totalCount"]
    earlier = json.loads(
        sandbox_get(BASIS, {"sgguCd": "110001", "_type": "json"}, headers={"X-Sandbox-Now": "2015-01-01T09:00"}).text()
    )["response"]["body"]["totalCount"]
    assert 0 < earlier < now


def test_it_answers_the_detail_as_a_single_object_with_hours(sandbox_get):
    ykiho = basis(sandbox_get, sgguCd="110019", clCd="31", numOfRows=1)[1][0]["ykiho"]
    body = json.loads(sandbox_get(DETAIL, {"ykiho": ykiho, "_type": "json"}).text())["response"]["body"]
    item = body["items"]["item"]
    assert isinstance(item, dict) and body["totalCount"] == 1
    assert item["emyDayYn"] in ("Y", "N") and item["lunchWeek"]
    assert isinstance(item["trmtMonStart"], str) and item["trmtMonStart"].startswith("0")
    assert isinstance(item["trmtMonEnd"], int) and 1600 <= item["trmtMonEnd"] <= 2200
    assert ("trmtSunStart" in item) == ("noTrmtSun" not in item)


def test_it_answers_an_unknown_or_mangled_ykiho_with_empty_items(sandbox_get):
    ykiho = basis(sandbox_get, sgguCd="110019", clCd="31", numOfRows=1)[1][0]["ykiho"]
    for bad in ("nope", ykiho[:-6] + "AAAAAA", ykiho.replace("=", "")[:-1]):
        body = json.loads(sandbox_get(DETAIL, {"ykiho": bad, "_type": "json"}).text())["response"]["body"]
        assert body["items"] == "" and body["totalCount"] == 0
    xml = sandbox_get(DETAIL, {"ykiho": "nope"}).text()
    assert "<items/>" in xml
    missing = parse(sandbox_get(DETAIL, {}))
    assert missing["response"]["header"]["resultCode"] == "11"


def test_it_gives_general_hospitals_an_emergency_room(sandbox_get):
    _, rows = basis(sandbox_get, sidoCd="110000", clCd="11", numOfRows=40)
    with_detail = []
    for row in rows:
        items = json.loads(sandbox_get(DETAIL, {"ykiho": row["ykiho"], "_type": "json"}).text())["response"]["body"][
            "items"
        ]
        if items:
            with_detail.append(items["item"])
    assert len(with_detail) < len(rows)  # some 종합병원 have no 세부정보, as live
    assert all(d["emyDayYn"] == "Y" and d["emyDayTelNo1"] for d in with_detail)


@pytest.mark.slow
def test_chain_10_nearby_internal_medicine_to_its_opening_hours(sandbox_server):
    """Research §5 chain 10: getHospBasisList(xPos, yPos, radius, dgsbjtCd) → ykiho → getDtlInfo2.7."""
    with httpx.Client(timeout=30) as client:
        listed = client.get(
            sandbox_server.live(BASIS),
            params={
                "serviceKey": DEMO_KEY,
                "_type": "json",
                "dgsbjtCd": "01",
                "radius": "1000",
                "numOfRows": "5",
                **GANGNAM_STATION,
            },
        ).json()["response"]["body"]["items"]["item"]
        nearest = listed[0]
        assert float(nearest["distance"]) <= 1000
        detail = client.get(
            sandbox_server.live(DETAIL), params={"serviceKey": DEMO_KEY, "ykiho": nearest["ykiho"], "_type": "json"}
        ).json()["response"]["body"]["items"]["item"]
    assert detail["trmtMonStart"] and detail["emyNgtYn"] in ("Y", "N")
    assert detail["plcNm"].endswith("역")  # 강남 clinics are described by their subway station
