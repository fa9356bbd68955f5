"""한국천문연구원 특일 정보 (SpcdeInfoService): real 2024–2027 holidays, the single-object and empty-string quirks,
number typing, paging, errors, and the first step of research §5 chain 9 over a real socket."""

from __future__ import annotations

import json
from datetime import date

import httpx
import pytest

from apis.sandbox.config import DEMO_KEY

from .conftest import parse

SPCDE = "apis.data.go.kr/B090041/openapi/service/SpcdeInfoService/"


def kasi_json(sandbox_get, op: str = "getRestDeInfo", **params) -> dict:
    response = sandbox_get(SPCDE + op, {"_type": "json", **params})
    assert response.status == 200
    return json.loads(response.text())["response"]


def test_it_lists_the_three_days_of_chuseok_with_numbers_where_kasi_has_them(sandbox_get):
    body = kasi_json(sandbox_get, solYear="2026", solMonth="09")
    assert body["header"] == {"resultCode": "00", "resultMsg": "NORMAL SERVICE."}
    items = body["body"]["items"]["item"]
    assert [i["locdate"] for i in items] == [20260924, 20260925, 20260926]
    assert items[0] == {"dateKind": "01", "dateName": "추석", "isHoliday": "Y", "locdate": 20260924, "seq": 1}
    assert body["body"]["totalCount"] == 3


def test_it_answers_a_single_holiday_as_an_object(sandbox_get):
    item = kasi_json(sandbox_get, solYear="2026", solMonth="12")["body"]["items"]["item"]
    assert item == {"dateKind": "01", "dateName": "기독탄신일", "isHoliday": "Y", "locdate": 20261225, "seq": 1}


def test_it_answers_a_month_without_holidays_with_an_empty_string_and_empty_xml_items(sandbox_get):
    body = kasi_json(sandbox_get, solYear="2026", solMonth="11")["body"]
    assert body["items"] == "" and body["totalCount"] == 0
    response = sandbox_get(SPCDE + "getRestDeInfo", {"solYear": "2026", "solMonth": "11"})
    assert "<items/>" in response.text() and parse(response)["response"]["body"]["totalCount"] == "0"


def test_it_keeps_kasis_own_names_for_substitute_and_election_days(sandbox_get):
    names_2026 = [i["dateName"] for i in kasi_json(sandbox_get, solYear="2026", numOfRows=50)["body"]["items"]["item"]]
    assert "전국동시지방선거" in names_2026 and "대체공휴일(삼일절)" in names_2026 and "제헌절" in names_2026
    may_2025 = kasi_json(sandbox_get, solYear="2025", solMonth="05")["body"]["items"]["item"]
    assert [(i["locdate"], i["dateName"], i["seq"]) for i in may_2025[:2]] == [
        (20250505, "어린이날", 1),
        (20250505, "부처님오신날", 2),
    ]


def test_it_pages_a_whole_year(sandbox_get):
    first = kasi_json(sandbox_get, solYear="2026", numOfRows=10, pageNo=1)["body"]
    second = kasi_json(sandbox_get, solYear="2026", numOfRows=10, pageNo=2)["body"]
    third = kasi_json(sandbox_get, solYear="2026", numOfRows=10, pageNo=3)["body"]
    assert first["totalCount"] == second["totalCount"] == 22
    dates = [i["locdate"] for i in first["items"]["item"] + second["items"]["item"] + third["items"]["item"]]
    assert len(dates) == 22 and dates == sorted(dates) and len(set(dates)) == 22
    assert kasi_json(sandbox_get, solYear="2026", numOfRows=10, pageNo=4)["body"]["items"] == ""


def test_it_accepts_a_month_without_its_leading_zero(sandbox_get):
    assert kasi_json(sandbox_get, solYear="2026", solMonth="9")["body"]["totalCount"] == 3


def test_it_answers_empty_items_for_a_year_outside_the_data(sandbox_get):
    assert kasi_json(sandbox_get, solYear="2031")["body"]["items"] == ""


@pytest.mark.parametrize("params", [{"solYear": "26"}, {"solYear": "2026", "solMonth": "13"}, {"solYear": "이천"}])
def test_it_answers_10_to_a_malformed_period(sandbox_get, params):
    assert kasi_json(sandbox_get, **params)["header"] == {
        "resultCode": "10",
        "resultMsg": "INVALID_REQUEST_PARAMETER_ERROR",
    }


def test_it_answers_11_without_a_year(sandbox_get):
    assert kasi_json(sandbox_get, solMonth="09")["header"]["resultCode"] == "11"


def test_it_lists_the_national_days_with_constitution_day_off_from_2026(sandbox_get):
    days_2025 = kasi_json(sandbox_get, "getHoliDeInfo", solYear="2025")["body"]["items"]["item"]
    assert [i["dateName"] for i in days_2025] == ["삼일절", "제헌절", "광복절", "개천절", "한글날"]
    assert {i["dateName"]: i["isHoliday"] for i in days_2025}["제헌절"] == "N"
    july_2026 = kasi_json(sandbox_get, "getHoliDeInfo", solYear="2026", solMonth="07")["body"]["items"]["item"]
    assert july_2026 == {"dateKind": "01", "dateName": "제헌절", "isHoliday": "Y", "locdate": 20260717, "seq": 1}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("day", "holiday"),
    [(date(2026, 11, 18), False), (date(2026, 12, 25), True), (date(2026, 10, 5), True), (date(2026, 10, 6), False)],
)
def test_chain_9_is_a_date_a_holiday(sandbox_server, day, holiday):
    url = f"{sandbox_server.url}/sandbox/apis.data.go.kr/B090041/openapi/service/SpcdeInfoService/getRestDeInfo"
    params = {"serviceKey": DEMO_KEY, "solYear": f"{day.year}", "solMonth": f"{day.month:02d}", "_type": "json"}
    body = httpx.get(url, params={**params, "numOfRows": 100}, timeout=10).json()["response"]["body"]
    items = body["items"]["item"] if body["items"] else []
    items = [items] if isinstance(items, dict) else items  # one holiday comes as an object
    is_holiday = any(i["locdate"] == int(day.strftime("%Y%m%d")) and i["isHoliday"] == "Y" for i in items)
    assert is_holiday is holiday
