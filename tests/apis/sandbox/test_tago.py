"""TAGO bus (BusSttnInfoInqireService, BusRouteInfoInqireService, ArvlInfoInqireService): real cities and stops,
consistent synthetic routes, clock-driven arrivals, live typing and errors, and research §5 chain 6 over HTTP."""

from __future__ import annotations

import json
import math

import httpx
import pytest

from apis.sandbox.config import DEMO_KEY
from apis.sandbox.families import tago

from .conftest import parse

STTN = "apis.data.go.kr/1613000/BusSttnInfoInqireService"
ROUTE = "apis.data.go.kr/1613000/BusRouteInfoInqireService"
ARVL = "apis.data.go.kr/1613000/ArvlInfoInqireService"
ROUTE_TYPES = {"급행버스", "간선버스", "지선버스", "외곽버스", "광역버스", "일반버스", "마을버스", "좌석버스"}


def body(response) -> dict:
    """response.body of an engine answer or an httpx response."""
    text = response.text() if callable(response.text) else response.text
    return json.loads(text)["response"]["body"]


def items(response) -> list[dict]:
    found = body(response)["items"]
    if found == "":
        return []
    item = found["item"]
    return item if isinstance(item, list) else [item]


def every(sandbox_get, path, **params) -> list[dict]:
    return items(sandbox_get(path, {"_type": "json", "numOfRows": 1000, **params}))


def test_it_lists_the_132_real_city_codes_with_numeric_codes(sandbox_get):
    response = sandbox_get(f"{STTN}/getCtyCodeList", {"_type": "json"})
    assert json.loads(response.text())["response"]["header"] == {"resultCode": "00", "resultMsg": "NORMAL SERVICE."}
    assert body(response)["totalCount"] == 132 and len(items(response)) == 10
    cities = {row["citycode"]: row["cityname"] for row in every(sandbox_get, f"{STTN}/getCtyCodeList")}
    assert cities[25] == "대전광역시/계룡시" and cities[38010] == "창원시" and len(cities) == 132


def test_it_finds_stops_by_partial_name_and_exact_number_with_live_typing(sandbox_get):
    found = every(sandbox_get, f"{STTN}/getSttnNoList", cityCode="25", nodeNm="전통시장")
    assert found and all("전통시장" in row["nodenm"] for row in found)
    first = found[0]
    assert list(first) == sorted(first)  # TAGO writes its fields in alphabetical order
    assert isinstance(first["gpslati"], float) and isinstance(first["nodeno"], int) and first["citycode"] == 25
    by_number = every(sandbox_get, f"{STTN}/getSttnNoList", cityCode="25", nodeNo=str(first["nodeno"]))
    assert first["nodeid"] in {row["nodeid"] for row in by_number}
    assert all(row["nodeno"] == first["nodeno"] for row in by_number)


def test_it_pages_through_a_whole_city_without_repeats(sandbox_get):
    page1 = sandbox_get(f"{STTN}/getSttnNoList", {"cityCode": "12", "_type": "json", "numOfRows": 500})
    total = body(page1)["totalCount"]
    assert total > 2900
    seen = []
    for page in range(1, math.ceil(total / 500) + 1):
        seen += [
            row["nodeid"]
            for row in every(sandbox_get, f"{STTN}/getSttnNoList", cityCode="12", pageNo=page, numOfRows=500)
        ]
    assert len(seen) == len(set(seen)) == total


def test_it_answers_empty_items_for_a_city_without_stops_in_both_forms(sandbox_get):
    as_json = sandbox_get(f"{STTN}/getSttnNoList", {"cityCode": "21", "_type": "json"})
    assert body(as_json)["items"] == "" and body(as_json)["totalCount"] == 0
    assert "<items/>" in sandbox_get(f"{STTN}/getSttnNoList", {"cityCode": "21"}).text()


def test_it_rejects_a_non_numeric_city_code_and_a_missing_one(sandbox_get):
    bad = parse(sandbox_get(f"{STTN}/getSttnNoList", {"cityCode": "대전"}))["response"]["header"]
    assert bad["resultCode"] == "10"
    missing = parse(sandbox_get(f"{STTN}/getSttnNoList", {"nodeNm": "시청"}))["response"]["header"]
    assert missing["resultCode"] == "11"


def test_it_keeps_gateway_errors_in_xml_when_json_is_asked(sandbox_get):
    response = sandbox_get(f"{STTN}/getSttnNoList", {"cityCode": "25", "_type": "json"}, service_key="not-a-key")
    assert response.text().lstrip().startswith("<OpenAPI_ServiceResponse>")
    assert parse(response)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"


def test_it_lists_stops_within_500_m_nearest_first_with_their_city(sandbox_get):
    found = every(sandbox_get, f"{STTN}/getCrdntPrxmtSttnList", gpsLati="36.3504", gpsLong="127.3845")
    assert found
    distances = [
        math.hypot(
            (row["gpslong"] - 127.3845) * 111320 * math.cos(math.radians(36.35)), (row["gpslati"] - 36.3504) * 111320
        )
        for row in found
    ]
    assert max(distances) <= 505 and distances == sorted(distances)
    assert {row["citycode"] for row in found} <= {25, 12}
    assert every(sandbox_get, f"{STTN}/getCrdntPrxmtSttnList", gpsLati="37.5665", gpsLong="126.9780") == []
    bad = parse(sandbox_get(f"{STTN}/getCrdntPrxmtSttnList", {"gpsLati": "north", "gpsLong": "127"}))
    assert bad["response"]["header"]["resultCode"] == "10"


def test_every_route_through_a_stop_lists_that_stop_in_order_out_and_back(sandbox_get):
    routes = every(sandbox_get, f"{STTN}/getSttnThrghRouteList", cityCode="25", nodeid="DJB8001793")
    assert routes
    for route in routes:
        assert route["routetp"] in ROUTE_TYPES
        assert isinstance(route["routeno"], int) == str(route["routeno"]).isdigit()
        stops = every(sandbox_get, f"{ROUTE}/getRouteAcctoThrghSttnList", cityCode="25", routeId=route["routeid"])
        assert 45 <= len(stops) <= 120
        assert "DJB8001793" in {s["nodeid"] for s in stops}
        assert [s["nodeord"] for s in stops] == list(range(1, len(stops) + 1))
        directions = [s["updowncd"] for s in stops]
        assert directions == sorted(directions) and set(directions) == {0, 1}
        assert stops[0]["nodenm"] == route["startnodenm"]


def test_the_route_stop_list_is_longer_than_one_default_page(sandbox_get):
    response = sandbox_get(
        f"{ROUTE}/getRouteAcctoThrghSttnList", {"cityCode": "25", "routeId": "DJB30300004", "_type": "json"}
    )
    assert body(response)["totalCount"] > 10 and len(items(response)) == 10


def test_arrivals_come_only_from_routes_through_the_stop_and_follow_the_clock(sandbox_get):
    afternoon = every(sandbox_get, f"{ARVL}/getSttnAcctoArvlPrearngeInfoList", cityCode="25", nodeId="DJB8001793")
    through = {
        r["routeid"] for r in every(sandbox_get, f"{STTN}/getSttnThrghRouteList", cityCode="25", nodeid="DJB8001793")
    }
    assert afternoon and {a["routeid"] for a in afternoon} <= through
    times = [a["arrtime"] for a in afternoon]
    assert times == sorted(times) and all(isinstance(t, int) and t > 0 for t in times)
    assert all(a["arrprevstationcnt"] >= 1 and a["vehicletp"] in ("저상버스", "일반차량") for a in afternoon)
    assert {a["nodeid"] for a in afternoon} == {"DJB8001793"}
    later = items(
        sandbox_get(
            f"{ARVL}/getSttnAcctoArvlPrearngeInfoList",
            {"cityCode": "25", "nodeId": "DJB8001793", "_type": "json", "numOfRows": 100},
            headers={"X-Sandbox-Now": "2026-11-18T14:24"},
        )
    )
    assert [a["arrtime"] for a in later] != times


def test_there_is_no_service_late_at_night(sandbox_get):
    night = sandbox_get(
        f"{ARVL}/getSttnAcctoArvlPrearngeInfoList",
        {"cityCode": "25", "nodeId": "DJB8001793", "_type": "json"},
        headers={"X-Sandbox-Now": "2026-11-19T02:30"},
    )
    assert body(night)["items"] == ""


def test_the_network_covers_nearly_every_stop_with_routes_of_50_to_120_stops():
    for city in ("12", "25", "33010", "35010", "38010"):
        net = tago.network(city)
        served = sum(1 for i in range(len(net.stops)) if net.routes_at(i))
        assert served / len(net.stops) > 0.97
        assert all(45 <= len(route.stops) <= 120 for route in net.routes)
        assert len({route.number for route in net.routes}) > 0.9 * len(net.routes)


@pytest.mark.slow
def test_chain_6_nearby_stop_to_arrivals_over_http(sandbox_server):
    """gpsLati/gpsLong -> citycode + nodeid -> arrivals with nodeId (the parameter changes case)."""
    with httpx.Client(timeout=20) as http:

        def get(path: str, **params):
            response = http.get(sandbox_server.live(path), params={"serviceKey": DEMO_KEY, "_type": "json", **params})
            response.raise_for_status()
            return items(response)

        near = get(f"{STTN}/getCrdntPrxmtSttnList", gpsLati="36.3504", gpsLong="127.3845", numOfRows=50)
        assert near
        served = 0
        for stop in near[:6]:
            routes = {
                r["routeid"]
                for r in get(
                    f"{STTN}/getSttnThrghRouteList", cityCode=stop["citycode"], nodeid=stop["nodeid"], numOfRows=100
                )
            }
            arrivals = get(
                f"{ARVL}/getSttnAcctoArvlPrearngeInfoList",
                cityCode=stop["citycode"],
                nodeId=stop["nodeid"],
                numOfRows=100,
            )
            assert {a["routeid"] for a in arrivals} <= routes
            served += bool(arrivals)
        assert served >= 3
        by_name = get(f"{STTN}/getSttnNoList", cityCode="25", nodeNm="전통시장")
        arrivals = get(f"{ARVL}/getSttnAcctoArvlPrearngeInfoList", cityCode="25", nodeId=by_name[0]["nodeid"])
        assert all(a["nodenm"] == by_name[0]["nodenm"] for a in arrivals)


def test_a_single_stop_comes_as_an_object_not_a_list(sandbox_get):
    stop = tago.city_stops()["25"][0]
    matches = [s for s in tago.city_stops()["25"] if s.number == stop.number]
    response = sandbox_get(f"{STTN}/getSttnNoList", {"cityCode": "25", "nodeNo": stop.number, "_type": "json"})
    item = body(response)["items"]["item"]
    assert isinstance(item, dict) == (len(matches) == 1)
    assert (item if isinstance(item, dict) else item[0])["nodeid"] == stop.id
