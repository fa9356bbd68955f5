"""NMC 약국 (getParmacyListInfoInqire): region and name filters, QT day filters (8 = 공휴일), paging, orders,
the XML default with optional JSON, and pharmacies sharing buildings with HIRA's clinics."""

from __future__ import annotations

import json
from datetime import date

import httpx
import pytest
import xmltodict

from apis.sandbox.config import DEMO_KEY
from apis.sandbox.families import hira, nmc

from .conftest import parse

PHARMACY = "apis.data.go.kr/B552657/ErmctInsttInfoInqireService/getParmacyListInfoInqire"


def xml_items(response) -> tuple[int, list[dict]]:
    """(totalCount, items) of an engine response or an httpx one."""
    body = (parse(response) if hasattr(response, "body") else xmltodict.parse(response.text))["response"]["body"]
    items = body["items"]
    if not items:
        return int(body["totalCount"]), []
    item = items["item"]
    return int(body["totalCount"]), item if isinstance(item, list) else [item]


def test_it_lists_a_district_in_xml_by_default_with_thousands_in_seoul(sandbox_get):
    total, rows = xml_items(sandbox_get(PHARMACY, {"Q0": "서울특별시", "Q1": "강남구", "numOfRows": "5"}))
    assert total > 200 and len(rows) == 5
    assert all(r["dutyAddr"].startswith("서울특별시 강남구 ") and r["dutyName"].endswith("약국") for r in rows)
    assert [r["rnum"] for r in rows] == ["1", "2", "3", "4", "5"]
    assert all(r["hpid"].startswith("C11") and len(r["postCdn1"]) == 3 for r in rows)
    seoul, _ = xml_items(sandbox_get(PHARMACY, {"Q0": "서울", "numOfRows": "1"}))
    assert seoul > 4000  # the short 시도 name works too


def test_it_keeps_only_pharmacies_open_on_the_asked_day(sandbox_get):
    total_all, _ = xml_items(sandbox_get(PHARMACY, {"Q0": "서울특별시", "Q1": "마포구", "numOfRows": "1"}))
    holiday_total, holiday = xml_items(
        sandbox_get(PHARMACY, {"Q0": "서울특별시", "Q1": "마포구", "QT": "8", "numOfRows": "500"})
    )
    sunday_total, sunday = xml_items(
        sandbox_get(PHARMACY, {"Q0": "서울특별시", "Q1": "마포구", "QT": "7", "numOfRows": "500"})
    )
    monday_total, _ = xml_items(
        sandbox_get(PHARMACY, {"Q0": "서울특별시", "Q1": "마포구", "QT": "1", "numOfRows": "1"})
    )
    assert 0 < holiday_total < sunday_total * 2 and 0 < sunday_total < monday_total == total_all
    assert all(r["dutyTime8s"] and r["dutyTime8c"] for r in holiday)
    assert all("dutyTime7s" in r for r in sunday)
    closed = [
        r
        for r in xml_items(sandbox_get(PHARMACY, {"Q0": "서울특별시", "Q1": "마포구", "numOfRows": "100"}))[1]
        if "dutyTime8s" not in r
    ]
    assert closed and all("dutyTime8c" not in r for r in closed)  # a closed day has no fields at all


def test_it_pages_without_overlap_and_orders_by_name(sandbox_get):
    first = xml_items(sandbox_get(PHARMACY, {"Q0": "부산광역시", "numOfRows": "100", "pageNo": "1"}))[1]
    second = xml_items(sandbox_get(PHARMACY, {"Q0": "부산광역시", "numOfRows": "100", "pageNo": "2"}))[1]
    assert not {r["hpid"] for r in first} & {r["hpid"] for r in second}
    assert int(second[0]["rnum"]) == 101
    by_name = xml_items(sandbox_get(PHARMACY, {"Q0": "부산광역시", "ORD": "NAME", "numOfRows": "50"}))[1]
    names = [r["dutyName"] for r in by_name]
    assert names == sorted(names)


def test_it_matches_a_part_of_the_name_and_a_word_of_the_city_district(sandbox_get):
    total, rows = xml_items(sandbox_get(PHARMACY, {"Q0": "경기도", "Q1": "분당구", "QN": "온누리", "numOfRows": "50"}))
    assert total and all("온누리" in r["dutyName"] and "성남시 분당구" in r["dutyAddr"] for r in rows)
    city_total, _ = xml_items(sandbox_get(PHARMACY, {"Q0": "경기도", "Q1": "성남시", "numOfRows": "1"}))
    gu_total, _ = xml_items(sandbox_get(PHARMACY, {"Q0": "경기도", "Q1": "분당구", "numOfRows": "1"}))
    assert city_total > gu_total > 0


def test_it_answers_empty_items_for_an_unknown_region_and_10_for_a_bad_day(sandbox_get):
    total, rows = xml_items(sandbox_get(PHARMACY, {"Q0": "강원도"}))  # renamed 강원특별자치도 in 2023
    assert total == 0 and rows == [] and "<items/>" in sandbox_get(PHARMACY, {"Q0": "강원도"}).text()
    assert parse(sandbox_get(PHARMACY, {"QT": "9"}))["response"]["header"]["resultCode"] == "10"


def test_it_converts_json_like_the_gateway(sandbox_get):
    response = sandbox_get(PHARMACY, {"Q0": "서울특별시", "Q1": "종로구", "QT": "1", "_type": "json", "numOfRows": "3"})
    items = json.loads(response.text())["response"]["body"]["items"]["item"]
    first = items[0]
    assert isinstance(first["rnum"], int) and isinstance(first["wgs84Lat"], float)
    assert isinstance(first["dutyTime1s"], str) and first["dutyTime1s"].startswith("0")
    assert isinstance(first["dutyTime1c"], int) and first["postCdn1"].startswith("0")


def test_it_puts_many_pharmacies_in_clinic_buildings():
    clinic_buildings = {
        (p.building.road_name, p.building.road_bonbun, p.building.road_bubun)
        for f in hira.facilities_in("11680")
        if f.cl_cd == "31" and (p := hira.place_of(f)) is not None
    }
    pharmacies = nmc.pharmacies_in("11680")
    shared = sum(
        (
            nmc.place_of(ph).building.road_name,
            nmc.place_of(ph).building.road_bonbun,
            nmc.place_of(ph).building.road_bubun,
        )
        in clinic_buildings
        for ph in pharmacies
    )
    assert shared / len(pharmacies) > 0.5


@pytest.mark.slow
def test_chain_9_holiday_calendar_decides_the_day_to_ask(sandbox_server):
    """Research §5 chain 9: 특일정보 getRestDeInfo → is the day a holiday? → 약국 QT=8, else its weekday (1–7)."""
    rest_days = "apis.data.go.kr/B090041/openapi/service/SpcdeInfoService/getRestDeInfo"
    with httpx.Client(timeout=30) as client:
        calendar = client.get(
            sandbox_server.live(rest_days),
            params={"serviceKey": DEMO_KEY, "solYear": "2026", "solMonth": "12", "_type": "json"},
        ).json()["response"]["body"]["items"]["item"]
        holidays = {
            str(i["locdate"]) for i in (calendar if isinstance(calendar, list) else [calendar]) if i["isHoliday"] == "Y"
        }
        asked = {}
        for day in (date(2026, 12, 24), date(2026, 12, 25)):
            qt = "8" if day.strftime("%Y%m%d") in holidays else str(day.isoweekday())
            response = client.get(
                sandbox_server.live(PHARMACY),
                params={"serviceKey": DEMO_KEY, "Q0": "서울특별시", "Q1": "송파구", "QT": qt, "numOfRows": "1000"},
            )
            asked[qt] = xml_items(response)
    assert set(asked) == {"4", "8"}  # 12-24 is a Thursday, 12-25 기독탄신일
    holiday_total, holiday_rows = asked["8"]
    thursday_total, _ = asked["4"]
    assert 0 < holiday_total < thursday_total
    assert all(int(r["dutyTime8s"]) < int(r["dutyTime8c"]) for r in holiday_rows)
