"""에어코리아 측정소정보 and 대기오염정보: the bare-array envelope, ver-dependent fields, the clock's latest hour,
paging of long terms, grades that agree with the values, and research §5 chain 5 over a real socket."""

from __future__ import annotations

import json
import statistics
from datetime import datetime

import httpx
import pytest

from apis.engine import geo
from apis.sandbox.config import DEMO_KEY, KST
from apis.sandbox.families import airkorea, kma

from .conftest import parse

STATION_SVC = "apis.data.go.kr/B552584/MsrstnInfoInqireSvc/"
AIR_SVC = "apis.data.go.kr/B552584/ArpltnInforInqireSvc/"


def air_json(sandbox_get, op: str, *, now: str | None = None, **params) -> dict:
    headers = {"X-Sandbox-Now": now} if now else None
    response = sandbox_get(op, {"returnType": "json", **params}, headers=headers)
    assert response.status == 200
    return json.loads(response.text())["response"]


def rltm(sandbox_get, station="종로구", term="DAILY", **params) -> dict:
    return air_json(sandbox_get, AIR_SVC + "getMsrstnAcctoRltmMesureDnsty", stationName=station, dataTerm=term,
                    **params)  # fmt: skip


# --- 측정소정보 -------------------------------------------------------------------------------


def test_it_lists_stations_as_a_bare_array(sandbox_get):
    body = air_json(sandbox_get, STATION_SVC + "getMsrstnList", addr="서울", numOfRows=100)
    assert body["header"] == {"resultCode": "00", "resultMsg": "NORMAL_SERVICE"}
    items = body["body"]["items"]
    assert isinstance(items, list) and len(items) == body["body"]["totalCount"] == 40
    jongno = next(i for i in items if i["stationName"] == "종로구")
    assert jongno["addr"].startswith("서울 종로구") and jongno["mangName"] == "도시대기"
    assert float(jongno["dmX"]) == pytest.approx(37.572025) and float(jongno["dmY"]) == pytest.approx(127.005028)
    assert "stationCode" not in jongno


def test_it_lists_all_656_stations_without_a_filter(sandbox_get):
    body = air_json(sandbox_get, STATION_SVC + "getMsrstnList", numOfRows=1000)
    assert body["body"]["totalCount"] == len(body["body"]["items"]) == 656


def test_it_swaps_dm_coordinates_and_adds_a_code_from_version_one_one(sandbox_get):
    item = air_json(sandbox_get, STATION_SVC + "getMsrstnList", stationName="종로구", ver="1.1")["body"]["items"][0]
    assert float(item["dmX"]) == pytest.approx(127.005028) and float(item["dmY"]) == pytest.approx(37.572025)
    assert len(item["stationCode"]) == 6 and item["stationCode"].isdigit()


def test_it_answers_an_empty_list_as_an_empty_array_and_empty_xml_items(sandbox_get):
    body = air_json(sandbox_get, STATION_SVC + "getMsrstnList", addr="평양")
    assert body["body"]["items"] == [] and body["body"]["totalCount"] == 0
    xml = parse(sandbox_get(STATION_SVC + "getMsrstnList", {"addr": "평양"}))["response"]["body"]
    assert xml["items"] is None and xml["totalCount"] == "0"


def test_it_gives_tm_coordinates_of_a_dong_by_name(sandbox_get):
    body = air_json(sandbox_get, STATION_SVC + "getTMStdrCrdnt", umdName="혜화동")
    [item] = body["body"]["items"]
    assert (item["sidoName"], item["sggName"], item["umdName"]) == ("서울특별시", "종로구", "혜화동")
    lat, lon = geo.tm_to_wgs84(float(item["tmX"]), float(item["tmY"]))
    assert lat == pytest.approx(37.586, abs=0.01) and lon == pytest.approx(127.0, abs=0.015)
    assert 190_000 < float(item["tmX"]) < 210_000 and 440_000 < float(item["tmY"]) < 460_000


def test_it_matches_part_of_a_dong_name_across_the_country(sandbox_get):
    body = air_json(sandbox_get, STATION_SVC + "getTMStdrCrdnt", umdName="신사동", numOfRows=50)
    places = {(i["sidoName"], i["sggName"]) for i in body["body"]["items"]}
    assert {("서울특별시", "강남구"), ("서울특별시", "은평구")} <= places
    assert air_json(sandbox_get, STATION_SVC + "getTMStdrCrdnt", umdName="없는동이름")["body"]["items"] == []
    missing = air_json(sandbox_get, STATION_SVC + "getTMStdrCrdnt")
    assert missing["header"]["resultCode"] == "11"


def test_it_finds_the_three_nearest_stations_with_distances(sandbox_get):
    x, y = geo.wgs84_to_tm(37.5720, 127.0050)  # next to the 종로구 station
    body = air_json(sandbox_get, STATION_SVC + "getNearbyMsrstnList", tmX=f"{x:.6f}", tmY=f"{y:.6f}")
    items = body["body"]["items"]
    assert len(items) == 3 and items[0]["stationName"] == "종로구"
    distances = [i["tm"] for i in items]
    assert all(isinstance(d, float) for d in distances) and distances == sorted(distances) and distances[0] < 0.2


def test_it_reads_juso_coordinates_with_version_one_and_adds_codes_with_one_one(sandbox_get):
    tm = geo.wgs84_to_tm(35.1796, 129.0756)  # 부산시청
    utmk = geo.wgs84_to_utmk(35.1796, 129.0756)
    by_tm = air_json(sandbox_get, STATION_SVC + "getNearbyMsrstnList", tmX=tm[0], tmY=tm[1])["body"]["items"]
    by_juso = air_json(sandbox_get, STATION_SVC + "getNearbyMsrstnList", tmX=utmk[0], tmY=utmk[1], ver="1.0")
    with_codes = air_json(sandbox_get, STATION_SVC + "getNearbyMsrstnList", tmX=tm[0], tmY=tm[1], ver="1.1")
    assert [i["stationName"] for i in by_juso["body"]["items"]] == [i["stationName"] for i in by_tm]
    assert all("stationCode" in i for i in with_codes["body"]["items"]) and "stationCode" not in by_tm[0]


def test_it_answers_10_to_a_coordinate_that_is_not_a_number(sandbox_get):
    body = air_json(sandbox_get, STATION_SVC + "getNearbyMsrstnList", tmX="서울", tmY="1")
    assert body["header"] == {"resultCode": "10", "resultMsg": "INVALID_REQUEST_PARAMETER_ERROR"}


# --- 측정소별 실시간 측정정보 -----------------------------------------------------------------


def test_it_lists_a_day_of_hours_newest_first_from_the_clock(sandbox_get):
    body = rltm(sandbox_get, numOfRows=100)
    items = body["body"]["items"]
    assert body["body"]["totalCount"] == len(items) == 24
    assert items[0]["dataTime"] == "2026-11-18 14:00" and items[-1]["dataTime"] == "2026-11-17 15:00"
    assert air_json(sandbox_get, AIR_SVC + "getMsrstnAcctoRltmMesureDnsty", now="2026-11-18T14:14",
                    stationName="종로구", dataTerm="DAILY")["body"]["items"][0]["dataTime"] == "2026-11-18 13:00"  # fmt: skip


def test_it_writes_midnight_as_twenty_four_hundred_of_the_day_before(sandbox_get):
    times = [i["dataTime"] for i in rltm(sandbox_get, numOfRows=100)["body"]["items"]]
    assert "2026-11-17 24:00" in times and not any(t.endswith(" 00:00") for t in times)


def test_it_pages_a_month_of_hours(sandbox_get):
    first = rltm(sandbox_get, term="MONTH")
    assert first["body"]["totalCount"] == 744 and len(first["body"]["items"]) == 10
    last = rltm(sandbox_get, term="month", numOfRows=100, pageNo=8)
    assert len(last["body"]["items"]) == 44 and last["body"]["items"][-1]["dataTime"] == "2026-10-18 15:00"
    assert rltm(sandbox_get, term="3MONTH", numOfRows=1)["body"]["totalCount"] == 2208


@pytest.mark.parametrize(
    ("ver", "present", "absent"),
    [
        (None, {"pm10Value", "khaiGrade", "pm10Flag"}, {"pm25Value", "pm10Value24", "mangName", "stationName"}),
        ("1.0", {"pm25Value", "pm25Grade", "pm25Flag"}, {"pm10Value24", "mangName"}),
        ("1.1", {"pm10Value24", "pm25Value24"}, {"mangName", "pm10Grade1h"}),
        ("1.2", {"mangName"}, {"pm10Grade1h"}),
        ("1.3", {"pm10Grade1h", "pm25Grade1h"}, {"stationCode"}),
        ("1.4", {"stationName", "stationCode"}, set()),
    ],
)
def test_it_adds_fields_by_version_as_the_guide_lists(sandbox_get, ver, present, absent):
    params = {"ver": ver} if ver else {}
    item = rltm(sandbox_get, numOfRows=1, **params)["body"]["items"][0]
    assert present <= set(item) and not absent & set(item)


def test_it_writes_more_decimals_from_version_one_five(sandbox_get):
    plain = rltm(sandbox_get, numOfRows=1, ver="1.4")["body"]["items"][0]
    fine = rltm(sandbox_get, numOfRows=1, ver="1.5")["body"]["items"][0]
    assert len(plain["o3Value"].split(".")[1]) == 3 and len(fine["o3Value"].split(".")[1]) == 4
    assert len(plain["coValue"].split(".")[1]) == 1 and len(fine["coValue"].split(".")[1]) == 2
    assert plain["pm10Value"] == fine["pm10Value"]


def test_it_grades_values_with_the_korean_breakpoints(sandbox_get):
    items = rltm(sandbox_get, term="MONTH", numOfRows=1000, ver="1.3")["body"]["items"]
    checked = 0
    for item in items:
        if item["pm10Value"] != "-":
            assert item["pm10Grade1h"] == airkorea.grade("pm10", int(item["pm10Value"]))
        if item["pm25Value"] != "-":
            assert item["pm25Grade1h"] == airkorea.grade("pm25", int(item["pm25Value"]))
            checked += 1
        if item["pm10Value24"] != "-":
            assert item["pm10Grade"] == airkorea.grade("pm10", int(item["pm10Value24"]))
        if item["o3Value"] != "-":
            assert item["o3Grade"] == airkorea.grade("o3", float(item["o3Value"]))
        if item["khaiValue"] != "-":
            assert item["khaiGrade"] == airkorea.khai_grade(int(item["khaiValue"]))
    assert checked > 600


def test_it_marks_a_few_missing_hours_with_a_dash_and_a_flag(sandbox_get):
    items = rltm(sandbox_get, term="3MONTH", numOfRows=3000, ver="1.3")["body"]["items"]
    missing = [i for i in items if i["pm25Value"] == "-"]
    assert 0.005 < len(missing) / len(items) < 0.06
    assert all(i["pm25Flag"] == "통신장애" and i["pm25Grade1h"] is None for i in missing)
    assert all(i["pm25Flag"] is None for i in items if i["pm25Value"] != "-")


def test_it_keeps_null_flags_as_empty_xml_elements(sandbox_get):
    response = sandbox_get(AIR_SVC + "getMsrstnAcctoRltmMesureDnsty", {"stationName": "종로구", "dataTerm": "DAILY"})
    assert "<pm10Flag></pm10Flag>" in response.text()
    item = parse(response)["response"]["body"]["items"]["item"][0]
    assert item["dataTime"] == "2026-11-18 14:00" and "pm25Value" not in item


def test_it_looks_plausible_for_a_november_day(sandbox_get):
    items = air_json(sandbox_get, AIR_SVC + "getCtprvnRltmMesureDnsty", sidoName="전국", ver="1.3",
                     numOfRows=1000)["body"]["items"]  # fmt: skip
    pm25 = [int(i["pm25Value"]) for i in items if i["pm25Value"] != "-"]
    no2 = [float(i["no2Value"]) for i in items if i["no2Value"] != "-"]
    assert 10 < statistics.median(pm25) < 40 and 0.005 < statistics.median(no2) < 0.04
    roadside = [float(i["no2Value"]) for i in items if i["mangName"] == "도로변대기" and i["no2Value"] != "-"]
    assert statistics.median(roadside) > statistics.median(no2)
    days = range(1, 29)
    afternoons = [airkorea.measured("종로구", kma.hour_index(datetime(2026, 11, d, 15, tzinfo=KST))).o3 for d in days]
    nights = [airkorea.measured("종로구", kma.hour_index(datetime(2026, 11, d, 4, tzinfo=KST))).o3 for d in days]
    assert statistics.mean(a for a in afternoons if a) > statistics.mean(n for n in nights if n)


def test_it_answers_empty_items_for_an_unknown_station_and_10_for_an_unknown_term(sandbox_get):
    assert rltm(sandbox_get, station="없는측정소")["body"] == {
        "items": [],
        "pageNo": 1,
        "numOfRows": 10,
        "totalCount": 0,
    }
    assert rltm(sandbox_get, term="WEEK")["header"]["resultCode"] == "10"
    assert (
        air_json(sandbox_get, AIR_SVC + "getMsrstnAcctoRltmMesureDnsty", dataTerm="DAILY")["header"]["resultCode"]
        == "11"
    )


# --- 시도별 실시간 측정정보 -------------------------------------------------------------------


def test_it_lists_the_latest_hour_of_every_station_in_a_province(sandbox_get):
    body = air_json(sandbox_get, AIR_SVC + "getCtprvnRltmMesureDnsty", sidoName="서울", numOfRows=100, ver="1.0")
    items = body["body"]["items"]
    assert body["body"]["totalCount"] == len(items) == 40
    assert {i["sidoName"] for i in items} == {"서울"} and {i["dataTime"] for i in items} == {"2026-11-18 14:00"}
    assert "종로구" in {i["stationName"] for i in items}
    country = air_json(sandbox_get, AIR_SVC + "getCtprvnRltmMesureDnsty", sidoName="전국")
    assert country["body"]["totalCount"] == 656 and len(country["body"]["items"]) == 10


def test_it_agrees_with_the_station_query_for_the_same_hour(sandbox_get):
    province = air_json(sandbox_get, AIR_SVC + "getCtprvnRltmMesureDnsty", sidoName="서울", numOfRows=100, ver="1.3")
    from_province = next(i for i in province["body"]["items"] if i["stationName"] == "종로구")
    from_station = rltm(sandbox_get, numOfRows=1, ver="1.3")["body"]["items"][0]
    assert {k: v for k, v in from_province.items() if k not in ("sidoName", "stationName")} == from_station


def test_it_answers_empty_items_for_a_province_name_outside_the_list(sandbox_get):
    body = air_json(sandbox_get, AIR_SVC + "getCtprvnRltmMesureDnsty", sidoName="서울특별시")
    assert body["body"]["items"] == [] and body["body"]["totalCount"] == 0


# --- chain 5 over a real socket ---------------------------------------------------------------


@pytest.mark.slow
def test_chain_5_dong_to_tm_to_nearest_station_to_measurements(sandbox_server):
    def get(live_url: str, **params) -> dict:
        url = f"{sandbox_server.url}/sandbox/{live_url.split('://', 1)[1]}"
        response = httpx.get(url, params={"serviceKey": DEMO_KEY, "returnType": "json", **params}, timeout=10)
        response.raise_for_status()
        return response.json()["response"]["body"]

    [dong] = get("http://apis.data.go.kr/B552584/MsrstnInfoInqireSvc/getTMStdrCrdnt", umdName="혜화동")["items"]
    nearby = get("http://apis.data.go.kr/B552584/MsrstnInfoInqireSvc/getNearbyMsrstnList", tmX=dong["tmX"],
                 tmY=dong["tmY"])["items"]  # fmt: skip
    station = nearby[0]["stationName"]
    assert station in {"종로구", "종로", "성북구"} and nearby[0]["tm"] < 3
    measurements = get("https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty",
                       stationName=station, dataTerm="DAILY", ver="1.3", numOfRows=24)  # fmt: skip
    latest = measurements["items"][0]
    assert measurements["totalCount"] == 24 and latest["dataTime"] == "2026-11-18 14:00"
    assert latest["pm10Grade1h"] in {"1", "2", "3", "4", None} and latest["khaiGrade"] in {"1", "2", "3", "4"}
