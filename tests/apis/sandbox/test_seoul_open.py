"""서울 열린데이터광장: key and format in the path, START..END paging with its limits (1000 rows, 5 for
"sample"), RESULT codes, unknown services; realtime arrivals that follow the sandbox clock; and a
station-master → arrival chain over HTTP."""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx
import pytest
import xmltodict

from apis.sandbox.config import DEMO_KEY

MASTER = "openapi.seoul.go.kr:8088/{key}/{fmt}/subwayStationMaster/{start}/{end}"
ARRIVAL = "swopenapi.seoul.go.kr/api/subway/{key}/{fmt}/realtimeStationArrival/{start}/{end}/{name}"


def master(sandbox_get, start, end, *, key=DEMO_KEY, fmt="json"):
    return sandbox_get(MASTER.format(key=key, fmt=fmt, start=start, end=end), service_key=None)


def arrivals(sandbox_get, name, *, now=None, start=0, end=20, fmt="json"):
    headers = {"X-Sandbox-Now": now} if now else {}
    path = ARRIVAL.format(key=DEMO_KEY, fmt=fmt, start=start, end=end, name=name)
    return sandbox_get(path, service_key=None, headers=headers)


def test_it_lists_the_station_master_with_a_total_count(sandbox_get):
    body = json.loads(master(sandbox_get, 1, 3).text())["subwayStationMaster"]
    assert body["list_total_count"] == 909 and body["RESULT"] == {"CODE": "INFO-000", "MESSAGE": "정상 처리되었습니다"}
    assert list(body["row"][0]) == ["BLDN_ID", "BLDN_NM", "ROUTE", "LAT", "LOT"]
    assert all(isinstance(v, str) for v in body["row"][0].values())


def test_it_pages_by_start_and_end_index_up_to_1000_rows(sandbox_get):
    first = json.loads(master(sandbox_get, 1, 1000).text())["subwayStationMaster"]["row"]
    rest = json.loads(master(sandbox_get, 901, 1000).text())["subwayStationMaster"]["row"]
    assert len(first) == 909 and len(rest) == 9 and rest == first[900:]
    too_many = json.loads(master(sandbox_get, 1, 1001).text())
    assert too_many["RESULT"]["CODE"] == "ERROR-336"
    assert json.loads(master(sandbox_get, 5, 2).text())["RESULT"]["CODE"] == "ERROR-334"
    assert json.loads(master(sandbox_get, "a", 2).text())["RESULT"]["CODE"] == "ERROR-333"
    assert json.loads(master(sandbox_get, 1000, 1005).text())["RESULT"]["CODE"] == "INFO-200"


def test_the_sample_key_gives_five_rows_at_most(sandbox_get):
    assert len(json.loads(master(sandbox_get, 1, 5, key="sample").text())["subwayStationMaster"]["row"]) == 5
    assert json.loads(master(sandbox_get, 1, 6, key="sample").text())["RESULT"]["CODE"] == "ERROR-335"


def test_it_answers_xml_and_format_key_and_service_errors(sandbox_get):
    xml = xmltodict.parse(master(sandbox_get, 1, 2, fmt="xml").text())["subwayStationMaster"]
    assert xml["list_total_count"] == "909" and len(xml["row"]) == 2
    bad_key = master(sandbox_get, 1, 5, key="not-my-key", fmt="xml").text()
    assert xmltodict.parse(bad_key)["RESULT"]["CODE"] == "INFO-100" and "not-my-key" not in bad_key
    assert json.loads(master(sandbox_get, 1, 5, key="nope").text())["RESULT"]["CODE"] == "INFO-100"
    assert xmltodict.parse(master(sandbox_get, 1, 5, fmt="xls").text())["RESULT"]["CODE"] == "ERROR-301"
    unknown = sandbox_get(f"openapi.seoul.go.kr:8088/{DEMO_KEY}/json/noSuchService/1/5", service_key=None)
    assert json.loads(unknown.text())["RESULT"]["CODE"] == "ERROR-310"


def test_arrivals_come_in_the_realtime_envelope_for_every_line_and_direction(sandbox_get):
    body = json.loads(arrivals(sandbox_get, "강남").text())
    status, rows = body["errorMessage"], body["realtimeArrivalList"]
    assert status["code"] == "INFO-000" and status["status"] == 200 and status["total"] == len(rows)
    assert {r["subwayId"] for r in rows} == {"1002", "1077"} and {
        r["updnLine"] for r in rows if r["subwayId"] == "1002"
    } == {"내선", "외선"}
    assert all(r["statnNm"] == "강남" and r["trainLineNm"].endswith("방면") for r in rows)
    assert all(isinstance(r["barvlDt"], str) and isinstance(r["rowNum"], int) for r in rows)
    assert rows[0]["subwayList"] == "1002,1077" and rows[0]["trnsitCo"] == "2"


def test_arrivals_follow_the_sandbox_clock(sandbox_get):
    def line2(now):
        rows = json.loads(arrivals(sandbox_get, "시청", now=now).text())["realtimeArrivalList"]
        return [(r["btrainNo"], int(r["barvlDt"])) for r in rows if r["subwayId"] == "1002"]

    earlier, later = line2("2026-11-18T14:20:00"), line2("2026-11-18T14:21:00")
    assert earlier != later
    shared = {no for no, _ in earlier} & {no for no, _ in later}
    for number in shared:
        assert dict(earlier)[number] - dict(later)[number] == 60  # the same train, one minute closer
    night = json.loads(arrivals(sandbox_get, "시청", now="2026-11-19T03:30").text())
    assert night == {
        "errorMessage": {
            "status": 500,
            "code": "INFO-200",
            "message": "해당하는 데이터가 없습니다.",
            "link": "",
            "developerMessage": "",
            "total": 0,
        }
    }


def test_trains_arrive_more_often_in_the_rush_hour(sandbox_get):
    def gap(now):
        rows = [
            r
            for r in json.loads(arrivals(sandbox_get, "을지로3가", now=now).text())["realtimeArrivalList"]
            if r["subwayId"] == "1003" and r["updnLine"] == "상행"
        ]
        return int(rows[1]["barvlDt"]) - int(rows[0]["barvlDt"])

    assert gap("2026-11-18T08:10") == 180 and gap("2026-11-18T14:20") == 360


def test_unknown_stations_and_xml_arrivals(sandbox_get):
    assert json.loads(arrivals(sandbox_get, "없는역").text())["errorMessage"]["code"] == "INFO-200"
    xml = xmltodict.parse(arrivals(sandbox_get, "서울", fmt="xml", end=3).text())["realtimeStationArrival"]
    assert xml["RESULT"]["code"] == "INFO-000" and len(xml["row"]) == 3
    assert json.loads(arrivals(sandbox_get, "서울역").text())["errorMessage"]["code"] == "INFO-000"


@pytest.mark.slow
def test_station_master_name_finds_realtime_arrivals_over_http(sandbox_server):
    with httpx.Client(timeout=30) as client:
        listed = client.get(sandbox_server.live(MASTER.format(key=DEMO_KEY, fmt="json", start=1, end=1000))).json()
        station = next(
            r for r in listed["subwayStationMaster"]["row"] if r["ROUTE"] == "4호선" and r["BLDN_NM"].startswith("명동")
        )
        name = quote(station["BLDN_NM"].split("(")[0])
        body = client.get(
            sandbox_server.live(ARRIVAL.format(key=DEMO_KEY, fmt="json", start=0, end=5, name=name))
        ).json()
    assert body["errorMessage"]["code"] == "INFO-000"
    assert {r["subwayId"] for r in body["realtimeArrivalList"]} == {"1004"} and len(body["realtimeArrivalList"]) == 4
