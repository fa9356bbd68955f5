"""TourAPI KorService2: area codes from the real table, hundreds of plausible places per area (page 1 is a trap),
string typing, arrange and filters, details that agree with the list, and research §5 chain 8 over HTTP."""

from __future__ import annotations

import json
from datetime import datetime

import httpx
import pytest

from apis.sandbox.config import DEMO_KEY
from apis.sandbox.families import tourapi

from .conftest import parse

BASE = "apis.data.go.kr/B551011/KorService2"
COMMON = {"MobileOS": "ETC", "MobileApp": "AppTest", "_type": "json"}
CLOCK = datetime(2026, 11, 18, 14, 20)


def data(response) -> dict:
    text = response.text() if callable(response.text) else response.text
    return json.loads(text)["response"]


def items(response) -> list[dict]:
    found = data(response)["body"]["items"]
    if found == "":
        return []
    item = found["item"]
    return item if isinstance(item, list) else [item]


def get(sandbox_get, op: str, **params):
    return sandbox_get(f"{BASE}/{op}", {**COMMON, **params})


def test_it_lists_the_17_areas_over_two_default_pages_and_the_sigungu_of_one(sandbox_get):
    first = get(sandbox_get, "areaCode2")
    assert data(first)["header"] == {"resultCode": "0000", "resultMsg": "OK"}
    assert data(first)["body"]["totalCount"] == 17 and len(items(first)) == 10
    assert items(first)[0] == {"rnum": 1, "code": "1", "name": "서울"}
    seoul = {row["name"]: row["code"] for row in items(get(sandbox_get, "areaCode2", areaCode="1", numOfRows=50))}
    assert len(seoul) == 25 and seoul["종로구"] == "23"
    assert data(get(sandbox_get, "areaCode2", areaCode="99"))["body"]["items"] == ""


def test_it_requires_mobile_os_and_app_and_checks_the_os(sandbox_get):
    missing = sandbox_get(f"{BASE}/areaCode2", {"MobileApp": "AppTest", "_type": "json"})
    assert data(missing)["header"]["resultCode"] == "11"
    bad = get(sandbox_get, "areaCode2", MobileOS="PLAYSTATION")
    assert data(bad)["header"]["resultCode"] == "10"


def test_gateway_errors_stay_xml_for_json_requests(sandbox_get):
    response = sandbox_get(f"{BASE}/areaCode2", COMMON, service_key="not-a-key")
    assert parse(response)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"


def test_seoul_has_hundreds_of_sights_so_page_one_is_a_trap(sandbox_get):
    response = get(sandbox_get, "areaBasedList2", areaCode="1", contentTypeId="12")
    assert data(response)["body"]["totalCount"] > 300 and len(items(response)) == 10
    seen = []
    for page in (1, 2, 3):
        seen += [
            row["contentid"]
            for row in items(
                get(sandbox_get, "areaBasedList2", areaCode="1", contentTypeId="12", pageNo=page, numOfRows=100)
            )
        ]
    assert len(seen) == len(set(seen)) == 300


def test_list_items_are_plausible_strings_on_real_addresses_before_the_clock(sandbox_get):
    rows = items(get(sandbox_get, "areaBasedList2", areaCode="1", contentTypeId="12", numOfRows=200))
    for row in rows:
        assert all(isinstance(value, str) for value in row.values())
        assert row["addr1"].startswith("서울특별시 ") and row["areacode"] == "1" and row["lDongRegnCd"] == "11"
        assert 37.4 < float(row["mapy"]) < 37.72 and 126.7 < float(row["mapx"]) < 127.2
        created = datetime.strptime(row["createdtime"], "%Y%m%d%H%M%S")
        modified = datetime.strptime(row["modifiedtime"], "%Y%m%d%H%M%S")
        assert created <= modified <= CLOCK
        assert row["firstimage"] == "" or row["firstimage"].startswith(tourapi.IMAGE_HOST)
        assert row["cat1"] in ("A01", "A02") and row["cat3"].startswith(row["cat2"])
    assert len({row["title"] for row in rows}) > 150


def test_arrange_sorts_and_o_keeps_only_items_with_an_image(sandbox_get):
    by_title = [
        row["title"]
        for row in items(get(sandbox_get, "areaBasedList2", areaCode="1", sigunguCode="23", arrange="A", numOfRows=500))
    ]
    assert by_title == sorted(by_title)
    by_change = [
        row["modifiedtime"]
        for row in items(get(sandbox_get, "areaBasedList2", areaCode="1", sigunguCode="23", numOfRows=500))
    ]
    assert by_change == sorted(by_change, reverse=True)  # default arrange C
    with_images = items(get(sandbox_get, "areaBasedList2", areaCode="1", sigunguCode="23", arrange="O", numOfRows=500))
    assert with_images and all(row["firstimage"] for row in with_images)
    assert len(with_images) < len(by_title)
    assert data(get(sandbox_get, "areaBasedList2", arrange="Z"))["header"]["resultCode"] == "10"


def test_filters_narrow_by_sigungu_category_and_legal_dong_codes(sandbox_get):
    jongno = items(
        get(sandbox_get, "areaBasedList2", areaCode="1", sigunguCode="23", contentTypeId="39", numOfRows=500)
    )
    assert jongno and {row["sigungucode"] for row in jongno} == {"23"}
    assert all("종로구" in row["addr1"] for row in jongno)
    parks = items(get(sandbox_get, "areaBasedList2", areaCode="1", cat3="A02020700", numOfRows=1000))
    assert parks and {row["cat3"] for row in parks} == {"A02020700"}
    by_ldong = items(
        get(sandbox_get, "areaBasedList2", lDongRegnCd="11", lDongSignguCd="110", contentTypeId="39", numOfRows=500)
    )
    assert {row["contentid"] for row in by_ldong} == {row["contentid"] for row in jongno}
    assert items(get(sandbox_get, "areaBasedList2", areaCode="1", contentTypeId="13")) == []


def test_details_agree_with_the_list_and_unknown_ids_are_empty(sandbox_get):
    row = items(get(sandbox_get, "areaBasedList2", areaCode="1", sigunguCode="23", contentTypeId="12"))[0]
    detail = items(get(sandbox_get, "detailCommon2", contentId=row["contentid"]))
    assert len(detail) == 1
    common = detail[0]
    for name in ("title", "addr1", "mapx", "mapy", "contenttypeid", "firstimage", "modifiedtime"):
        assert common[name] == row[name]
    assert common["overview"].startswith(row["title"]) and row["addr1"] in common["overview"]
    assert data(get(sandbox_get, "detailCommon2", contentId="999999999"))["body"]["items"] == ""
    assert data(get(sandbox_get, "detailCommon2", contentId="abc"))["header"]["resultCode"] == "10"


def test_intro_fields_depend_on_the_content_type(sandbox_get):
    sight = items(get(sandbox_get, "areaBasedList2", areaCode="1", contentTypeId="12"))[0]
    food = items(get(sandbox_get, "areaBasedList2", areaCode="1", contentTypeId="39"))[0]
    festival = items(get(sandbox_get, "areaBasedList2", areaCode="6", contentTypeId="15"))[0]
    sight_intro = items(get(sandbox_get, "detailIntro2", contentId=sight["contentid"], contentTypeId="12"))[0]
    assert {"usetime", "restdate", "parking", "infocenter"} <= set(sight_intro)
    food_intro = items(get(sandbox_get, "detailIntro2", contentId=food["contentid"], contentTypeId="39"))[0]
    assert {"firstmenu", "opentimefood", "restdatefood"} <= set(food_intro) and "usetime" not in food_intro
    assert food_intro["firstmenu"] in food["title"] or food["cat3"] != "A05020100"
    dates = items(get(sandbox_get, "detailIntro2", contentId=festival["contentid"], contentTypeId="15"))[0]
    assert len(dates["eventstartdate"]) == 8 and dates["eventstartdate"] <= dates["eventenddate"]
    mismatch = get(sandbox_get, "detailIntro2", contentId=sight["contentid"], contentTypeId="39")
    assert data(mismatch)["body"]["items"] == ""


@pytest.mark.slow
def test_chain_8_area_codes_to_list_to_details_over_http(sandbox_server):
    """areaCode2 -> areaBasedList2(areaCode, sigunguCode, contentTypeId) -> contentid -> detailCommon2/detailIntro2."""
    with httpx.Client(timeout=30) as http:

        def call(op: str, **params):
            response = http.get(
                sandbox_server.live(f"{BASE}/{op}"), params={"serviceKey": DEMO_KEY, **COMMON, **params}
            )
            response.raise_for_status()
            return items(response)

        area = next(row for row in call("areaCode2", numOfRows=20) if row["name"] == "부산")
        sigungu = call("areaCode2", areaCode=area["code"], numOfRows=50)[0]
        places = call("areaBasedList2", areaCode=area["code"], sigunguCode=sigungu["code"], contentTypeId="32")
        assert places and {p["sigungucode"] for p in places} == {sigungu["code"]}
        for place in places[:3]:
            common = call("detailCommon2", contentId=place["contentid"])[0]
            intro = call("detailIntro2", contentId=place["contentid"], contentTypeId=place["contenttypeid"])[0]
            assert common["title"] == place["title"] and common["addr1"].startswith("부산광역시 ")
            assert intro["contentid"] == place["contentid"] and "checkintime" in intro


def test_a_district_names_each_place_once_and_only_chains_have_branches():
    for area in tourapi.sigungus()[:40]:
        for typeid in ("12", "14", "39", "32"):
            titles = [p.title for p in tourapi.places_of(area.area_code, area.sigungu_code, typeid)]
            assert len(titles) == len(set(titles)), (area.name, typeid)
            if typeid in ("12", "14"):  # a park or a museum is never "… 분관 1" nor a 호점
                assert not [t for t in titles if "분관" in t or "호점" in t], (area.name, typeid)
