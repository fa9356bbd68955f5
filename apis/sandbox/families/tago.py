"""국토교통부 TAGO 버스 (1613000/BusSttnInfoInqireService, BusRouteInfoInqireService, ArvlInfoInqireService):
city codes, stops, routes through a stop, stops of a route and arrival predictions.

Stops are the real 국토교통부 정류장 file for 세종, 대전, 청주, 전주 and 창원 (seeds); other cities have a
city code but no stops. Routes are synthetic chains of near stops (apis.sandbox.bus_network) with the
city's own style of route numbers; arrivals follow each route's timetable on the sandbox clock.
Live traits kept: resultCode 00, `_type=json`, numbers as JSON numbers (citycode, gpslati, nodeno,
arrtime and a numeric routeno), fields in alphabetical order, gateway errors in XML even for JSON.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache

from apis.sandbox.bus_network import Network, RouteStyle, Stop, approaches, distance_m
from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.standard import StandardEnvelope
from apis.sandbox.errors import InvalidParam
from apis.sandbox.rand import pick_weighted, rng
from apis.sandbox.registry import Field, Param
from apis.sandbox.world.seeds import read_csv

TAGO_ENVELOPE = StandardEnvelope(json_switch=("_type", "json"), success_code="00", success_msg="NORMAL SERVICE.")
PROXIMITY_M = 500


def _service(id: str, title: str):
    return datagokr_service(
        id=id,
        org="1613000",
        provider_ko="국토교통부",
        provider_en="Ministry of Land, Infrastructure and Transport (MOLIT), TAGO",
        title_ko=title,
        envelope=TAGO_ENVELOPE,
        # "키가 막히거나 호출 한도를 넘기면 JSON 을 달라고 해도 XML 오류를 준다" (research §2.6).
        gateway_json_errors=False,
    )


STTN = _service("BusSttnInfoInqireService", "국토교통부_(TAGO)_버스정류소정보")
ROUTE = _service("BusRouteInfoInqireService", "국토교통부_(TAGO)_버스노선정보")
ARVL = _service("ArvlInfoInqireService", "국토교통부_(TAGO)_버스도착정보")


def _number(text: str) -> int | str:
    """Live JSON writes a value as a number when it is all digits (nodeno 44810, routeno 102, "5-1" stays text)."""
    return int(text) if text.isdigit() else text


@cache
def cities() -> dict[str, str]:
    return {row["citycode"]: row["cityname"] for row in read_csv("tago_city_codes.csv")}


@cache
def city_stops() -> dict[str, tuple[Stop, ...]]:
    stops: dict[str, list[Stop]] = {}
    for row in read_csv("tago_bus_stops_sample.csv"):
        if not row["gpslati"] or not row["gpslong"]:
            continue  # three rows of the source file have no position
        stops.setdefault(row["citycode"], []).append(
            Stop(row["nodeid"], row["nodenm"], float(row["gpslati"]), float(row["gpslong"]), row["nodeno"])
        )
    return {city: tuple(rows) for city, rows in stops.items()}


# Route numbering per city: (routetp, weight, numbers to draw from, headway range in minutes).
_STYLES: dict[str, tuple[str, list[tuple[str, float, list[str], tuple[int, int]]]]] = {
    "25": (
        "DJB30300",
        [
            ("급행버스", 0.04, [f"급행{n}" for n in range(1, 10)], (12, 18)),
            ("간선버스", 0.3, [str(n) for n in (*range(101, 120), *range(301, 320), *range(601, 620))], (8, 15)),
            ("지선버스", 0.56, [str(n) for n in range(201, 999) if n % 100 and n % 10 != 0], (12, 25)),
            ("외곽버스", 0.1, [str(n) for n in range(20, 80)], (25, 45)),
        ],
    ),
    "12": (
        "SJB293000",
        [
            ("간선버스", 0.1, ["B0", "B1", "B2", "B3", "B4", "B5", "B6", "B7"], (8, 12)),
            ("광역버스", 0.06, [str(n) for n in range(1000, 1010)], (20, 40)),
            ("일반버스", 0.54, [str(n) for n in (*range(200, 230), *range(21, 99))], (12, 25)),
            ("마을버스", 0.3, [str(n) for n in range(60, 99)], (20, 45)),
        ],
    ),
    "33010": (
        "CJB270000",
        [
            ("일반버스", 0.78, [str(n) for n in range(101, 999) if n % 10 != 0], (10, 25)),
            ("좌석버스", 0.05, ["747", "757", "407", "513"], (20, 35)),
            ("지선버스", 0.17, [f"{n}-{k}" for n in range(811, 870) for k in (1, 2)], (25, 50)),
        ],
    ),
    "35010": (
        "JJB1000",
        [
            ("일반버스", 0.82, [str(n) for n in range(1, 999) if n % 10 != 0], (10, 25)),
            ("좌석버스", 0.1, [str(n) for n in range(1000, 1010)], (20, 35)),
            ("마을버스", 0.08, [f"{n}-{k}" for n in range(5, 80) for k in (1, 2)], (30, 60)),
        ],
    ),
    "38010": (
        "CWB379000",
        [
            ("일반버스", 0.72, [str(n) for n in range(100, 999) if n % 10 != 0], (10, 22)),
            ("좌석버스", 0.12, [str(n) for n in range(700, 799)], (15, 30)),
            ("마을버스", 0.16, [f"{n}-{k}" for n in range(1, 60) for k in (1, 2)], (25, 50)),
        ],
    ),
}


@cache
def network(city: str) -> Network | None:
    stops = city_stops().get(city)
    if not stops:
        return None
    prefix, styles = _STYLES[city]
    taken: set[str] = set()

    def style(n: int, seed: int) -> RouteStyle:
        r = rng("tago-route-style", city, n)
        kind, _, numbers, headway = pick_weighted(r, [(s, s[1]) for s in styles])
        free = [x for x in numbers if x not in taken]
        number = r.choice(free) if free else f"{r.choice(numbers)}-{n % 9 + 1}"
        taken.add(number)
        short = kind in ("마을버스", "지선버스")
        return RouteStyle(
            id=f"{prefix}{n + 1:03d}",
            number=number,
            kind=kind,
            outbound=(25, 40) if short else (28, 60),
            headway_min=r.randint(*headway),
            first_min=r.randint(5 * 60 + 20, 6 * 60 + 30),
            last_min=r.randint(22 * 60, 23 * 60 + 10),
        )

    return Network(stops, longest_hop_m=2600).build(f"tago-{city}", max(30, len(stops) // 20), style)


def _city(params) -> str:
    code = params.text("cityCode").strip()
    if not code.isdigit():
        raise InvalidParam("cityCode")
    return code


def _float(params, name: str) -> float:
    try:
        return float(params.text(name).strip())
    except ValueError:
        raise InvalidParam(name) from None


@STTN.operation(
    id="tago_city_codes",
    path="/getCtyCodeList",
    summary_ko="도시코드 목록 조회",
    summary_en="City codes TAGO serves",
    fields=[
        Field("citycode", "도시코드", type="integer", example="25"),
        Field("cityname", "도시명", example="대전광역시/계룡시"),
    ],
    example={"_type": "json", "numOfRows": "200"},
    notes="All 132 cities of the live list; only 세종 (12), 대전 (25), 청주 (33010), 전주 (35010) and 창원 (38010) "
    "have stops in the sandbox, the others answer empty stop lists.",
)
def city_codes(ctx, params):
    return [{"citycode": int(code), "cityname": name} for code, name in cities().items()]


def _stop_record(city: str, stop: Stop) -> dict:
    return {
        "citycode": int(city),
        "gpslati": stop.lat,
        "gpslong": stop.lon,
        "nodeid": stop.id,
        "nodenm": stop.name,
        "nodeno": _number(stop.number),
    }


@STTN.operation(
    id="tago_sttn_no_list",
    path="/getSttnNoList",
    summary_ko="정류소번호 목록 조회",
    summary_en="Bus stops of a city by name or number",
    params=[
        Param("cityCode", "도시코드 (getCtyCodeList)", required=True, example="25"),
        Param("nodeNm", "정류소명 (부분일치)", example="전통시장"),
        Param("nodeNo", "정류소 번호 (모바일 단축번호)", example="44810"),
    ],
    fields=[
        Field("citycode", "도시코드", type="integer", example="25"),
        Field("gpslati", "WGS84 위도", type="number", example="36.3504"),
        Field("gpslong", "WGS84 경도", type="number", example="127.3845"),
        Field("nodeid", "정류소 ID", example="DJB8001793"),
        Field("nodenm", "정류소명", example="법동전통시장"),
        Field("nodeno", "정류소 번호 (숫자면 JSON 숫자)", type="integer", example="44810"),
    ],
    example={"cityCode": "25", "nodeNm": "전통시장", "_type": "json"},
    notes="Real stops for the five seeded cities (about 3,000 each, so a city without nodeNm runs to hundreds of "
    "pages); other city codes answer empty items.",
)
def sttn_no_list(ctx, params):
    city = _city(params)
    name, number = params.text("nodeNm").strip(), params.text("nodeNo").strip()
    return [
        _stop_record(city, stop)
        for stop in city_stops().get(city, ())
        if (not name or name in stop.name) and (not number or stop.number == number)
    ]


@STTN.operation(
    id="tago_crdnt_prxmt_sttn",
    path="/getCrdntPrxmtSttnList",
    summary_ko="좌표기반 근접정류소 목록 조회",
    summary_en="Bus stops near a WGS84 point",
    params=[
        Param("gpsLati", "WGS84 위도", required=True, type="number", example="36.3504"),
        Param("gpsLong", "WGS84 경도", required=True, type="number", example="127.3845"),
    ],
    fields=[
        Field("citycode", "도시코드", type="integer", example="25"),
        Field("gpslati", "WGS84 위도", type="number", example="36.3504"),
        Field("gpslong", "WGS84 경도", type="number", example="127.3845"),
        Field("nodeid", "정류소 ID", example="DJB8001793"),
        Field("nodenm", "정류소명", example="대전시청"),
    ],
    example={"gpsLati": "36.3504", "gpsLong": "127.3845", "_type": "json"},
    notes=f"Stops within {PROXIMITY_M} m, nearest first (the live radius is not published; 500 m is our choice).",
)
def crdnt_prxmt_sttn(ctx, params):
    lat, lon = _float(params, "gpsLati"), _float(params, "gpsLong")
    found = []
    for city, stops in city_stops().items():
        if not any(distance_m(lat, lon, s.lat, s.lon) < 40_000 for s in stops[:: max(1, len(stops) // 50)]):
            continue
        net = network(city)
        for d, i in net.near(lat, lon, PROXIMITY_M):
            found.append((d, city, net.stops[i]))
    found.sort(key=lambda item: item[0])
    return [
        {key: value for key, value in _stop_record(city, stop).items() if key != "nodeno"} for _, city, stop in found
    ]


def _stop_index(city: str, node_id: str) -> tuple[Network, int] | None:
    net = network(city)
    if net is None or node_id not in net.index_of:
        return None
    return net, net.index_of[node_id]


@STTN.operation(
    id="tago_sttn_thrgh_route",
    path="/getSttnThrghRouteList",
    summary_ko="정류소별 경유노선 목록 조회",
    summary_en="Routes through a stop",
    params=[
        Param("cityCode", "도시코드", required=True, example="25"),
        Param("nodeid", "정류소 ID (소문자 nodeid)", required=True, example="DJB8001793"),
    ],
    fields=[
        Field("endnodenm", "종점", example="대전역"),
        Field("routeid", "노선 ID", example="DJB30300004"),
        Field("routeno", "노선번호 (숫자면 JSON 숫자)", type="integer", example="102"),
        Field("routetp", "노선유형", example="간선버스"),
        Field("startnodenm", "기점", example="동부네거리"),
    ],
    example={"cityCode": "25", "nodeid": "DJB8001793", "_type": "json"},
    notes="Every route listed here lists the stop in getRouteAcctoThrghSttnList.",
)
def sttn_thrgh_route(ctx, params):
    found = _stop_index(_city(params), params.text("nodeid").strip())
    if found is None:
        return []
    net, index = found
    return [
        {
            "endnodenm": net.stops[route.stops[route.turn - 1]].name,
            "routeid": route.id,
            "routeno": _number(route.number),
            "routetp": route.kind,
            "startnodenm": net.stops[route.stops[0]].name,
        }
        for route in net.routes_at(index)
    ]


@ROUTE.operation(
    id="tago_route_thrgh_sttn",
    path="/getRouteAcctoThrghSttnList",
    summary_ko="노선별 경유정류소 목록 조회",
    summary_en="Ordered stops of a route (both directions)",
    params=[
        Param("cityCode", "도시코드", required=True, example="25"),
        Param("routeId", "노선 ID", required=True, example="DJB30300004"),
    ],
    fields=[
        Field("gpslati", "WGS84 위도", type="number", example="36.3504"),
        Field("gpslong", "WGS84 경도", type="number", example="127.3845"),
        Field("nodeid", "정류소 ID", example="DJB8001793"),
        Field("nodenm", "정류소명", example="대전시청"),
        Field("nodeno", "정류소 번호", type="integer", example="44810"),
        Field("nodeord", "정류소 순번", type="integer", example="1"),
        Field("routeid", "노선 ID", example="DJB30300004"),
        Field("updowncd", "상하행 (0 상행, 1 하행)", type="integer", example="0"),
    ],
    example={"cityCode": "25", "routeId": "DJB30300004", "_type": "json", "numOfRows": "200"},
    notes="50–120 stops per route (out and back), so the default 10 rows is one page of many.",
)
def route_thrgh_sttn(ctx, params):
    net = network(_city(params))
    route_id = params.text("routeId").strip()
    route = next((r for r in net.routes if r.id == route_id), None) if net else None
    if route is None:
        return []
    rows = []
    for order, index in enumerate(route.stops, start=1):
        stop = net.stops[index]
        rows.append(
            {
                "gpslati": stop.lat,
                "gpslong": stop.lon,
                "nodeid": stop.id,
                "nodenm": stop.name,
                "nodeno": _number(stop.number),
                "nodeord": order,
                "routeid": route.id,
                "updowncd": 0 if order <= route.turn else 1,
            }
        )
    return rows


@ARVL.operation(
    id="tago_arvl_by_sttn",
    path="/getSttnAcctoArvlPrearngeInfoList",
    summary_ko="정류소별 도착예정정보 목록 조회",
    summary_en="Bus arrival predictions at a stop",
    params=[
        Param("cityCode", "도시코드", required=True, example="25"),
        Param("nodeId", "정류소 ID (대문자 I: nodeId)", required=True, example="DJB8001793"),
    ],
    fields=[
        Field("arrprevstationcnt", "도착예정버스 남은 정류장 수", type="integer", example="3"),
        Field("arrtime", "도착예정버스 도착예상시간 (초)", type="integer", example="283"),
        Field("nodeid", "정류소 ID", example="DJB8001793"),
        Field("nodenm", "정류소명", example="대전시청"),
        Field("routeid", "노선 ID", example="DJB30300004"),
        Field("routeno", "노선번호 (숫자면 JSON 숫자)", type="integer", example="102"),
        Field("routetp", "노선유형", example="일반버스"),
        Field("vehicletp", "차량유형 (저상버스/일반차량)", example="저상버스"),
    ],
    example={"cityCode": "25", "nodeId": "DJB8001793", "_type": "json"},
    notes="Buses already on the road toward the stop (up to two per route), from each route's timetable "
    "(first bus 05:20–06:30, last 22:00–23:10) and the sandbox clock; empty late at night.",
)
def arvl_by_sttn(ctx, params):
    found = _stop_index(_city(params), params.text("nodeId").strip())
    if found is None:
        return []
    net, index = found
    stop = net.stops[index]
    coming = []
    for route in net.routes_at(index):
        for position, at in enumerate(route.stops):
            if at == index:
                coming.extend(a for a in approaches(route, position, ctx.now) if a.started)
    coming.sort(key=lambda a: a.seconds)
    return [
        {
            "arrprevstationcnt": max(1, a.stops_away),
            "arrtime": a.seconds,
            "nodeid": stop.id,
            "nodenm": stop.name,
            "routeid": a.route.id,
            "routeno": _number(a.route.number),
            "routetp": a.route.kind,
            "vehicletp": "저상버스" if rng("tago-vehicle", a.route.id, a.departure).random() < 0.45 else "일반차량",
        }
        for a in coming
    ]


def warm(now: datetime) -> None:
    """Lay out every seeded city's route network ahead of requests (apis.sandbox.warm)."""
    for city in city_stops():
        network(city)
