"""서울특별시 버스정보 (ws.bus.go.kr/api/rest/stationinfo): stops by name and arrivals at a stop by its ARS id.

Stops are the real 11,290 stops of 서울시 버스정류소 위치정보 (seeds). Routes are synthetic chains of near
stops (apis.sandbox.bus_network) numbered the Seoul way: 간선 3 digits and 지선 4 digits starting with the
zone of their first stop, 광역 9xxx, 마을 "<구>NN" from 마을버스 stops. Arrivals follow each route's
timetable on the sandbox clock: "4분후[3번째 전]", "곧 도착", "출발대기" before the first bus leaves,
"운행종료" after the last; lastTm keeps live's trailing spaces ("2340  ").
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from functools import cache

from apis.engine import geo
from apis.sandbox.bus_network import Approach, Network, Route, RouteStyle, Stop, approaches, distance_m
from apis.sandbox.envelopes.seoul_bus import SeoulBusAuth, SeoulBusEnvelope
from apis.sandbox.rand import pick_weighted, rng
from apis.sandbox.registry import Field, Param, service
from apis.sandbox.world import regions
from apis.sandbox.world.seeds import read_csv

STATION_INFO = service(
    id="stationinfo",
    provider_ko="서울특별시",
    provider_en="Seoul Metropolitan Government (TOPIS bus information)",
    family="seoul_bus",
    host="ws.bus.go.kr",
    base_path="/api/rest/stationinfo",
    title_ko="서울특별시_정류소정보조회 서비스",
    title_en="Seoul bus stop information",
    envelope=SeoulBusEnvelope(),
    auth=SeoulBusAuth(),
    schemes=("http", "https"),
)

# Seoul's bus zones: the first digit of 간선/지선 numbers is the zone where the route starts.
ZONES = {
    "11110": 0,
    "11140": 0,
    "11170": 0,
    "11320": 1,
    "11305": 1,
    "11290": 1,
    "11350": 1,
    "11230": 2,
    "11260": 2,
    "11200": 2,
    "11215": 2,
    "11740": 3,
    "11710": 3,
    "11650": 4,
    "11680": 4,
    "11590": 5,
    "11620": 5,
    "11545": 5,
    "11500": 6,
    "11470": 6,
    "11560": 6,
    "11530": 6,
    "11380": 7,
    "11440": 7,
    "11410": 7,
}
ROUTE_TYPE = {"간선": "3", "지선": "4", "순환": "5", "광역": "6", "마을": "2"}


@cache
def network() -> Network:
    stops = tuple(
        Stop(row["stId"], row["stNm"], float(row["gpsY"]), float(row["gpsX"]), row["arsId"], row["stop_type"])
        for row in read_csv("seoul_bus_stops.csv")
    )
    net = Network(stops)
    taken: set[str] = set()

    def style(n: int, seed: int) -> RouteStyle:
        r = rng("seoul-route-style", n)
        stop = stops[seed]
        gu = nearest_gu(stop.lat, stop.lon)
        kind = pick_weighted(r, [("간선", 0.34), ("지선", 0.58), ("광역", 0.05), ("순환", 0.03)])
        if stop.kind == "마을버스" and r.random() < 0.4:
            kind = "마을"
        zone = ZONES[gu]
        # 간선 ab0–ab9 and 지선 abNN run from zone a to zone b; the 도심 (zone 0) is never the first digit.
        start, end = (zone, None) if zone else (None, 0)
        name = regions.sigungu_name(gu)
        for _ in range(50):
            a = start if start is not None else r.randint(1, 7)
            b = end if end is not None else r.randint(0, 7)
            number = {
                "간선": f"{a}{b}{r.randint(0, 9)}",
                "지선": f"{a}{b}{r.randint(10, 99)}",
                "광역": f"9{r.randint(100, 799)}",
                "순환": f"0{r.randint(1, 9)}",
                "마을": f"{name[:-1] if len(name) > 2 else name}{r.randint(1, 30):02d}",
            }[kind]
            if number not in taken:
                break
        taken.add(number)
        village = kind == "마을"
        return RouteStyle(
            id=f"1119{n:05d}" if village else f"100100{n:03d}",
            number=number,
            kind=kind,
            outbound=(10, 22) if village else (26, 58),
            headway_min=r.randint(8, 20) if village else r.randint(6, 15) if kind == "간선" else r.randint(8, 25),
            first_min=r.randint(5 * 60 + 30, 6 * 60 + 30) if village else r.randint(4 * 60, 5 * 60),
            last_min=r.randint(22 * 60 + 30, 23 * 60 + 40),
            avoid=("중앙차로", "가상정류장") if village else ("마을버스",),
        )

    return net.build("seoul", 760, style)


@cache
def _gu_centers() -> tuple[tuple[str, float, float], ...]:
    return tuple((gu, *regions.center(gu + "00000")) for gu in ZONES)


def nearest_gu(lat: float, lon: float) -> str:
    return min(_gu_centers(), key=lambda g: distance_m(lat, lon, g[1], g[2]))[0]


def _tm(lat: float, lon: float) -> tuple[str, str]:
    # posX/posY: GRS80 TM. We use Korea 2000 central belt (EPSG:5181); the live EPSG is unconfirmed.
    x, y = geo.wgs84_to_tm(lat, lon)
    return repr(round(x, 10)), repr(round(y, 10))


@cache
def _by_ars_id() -> dict[str, int]:
    return {stop.number: i for i, stop in enumerate(network().stops)}


@cache
def _rows() -> tuple[dict[str, str], ...]:
    return read_csv("seoul_bus_stops.csv")


@STATION_INFO.operation(
    id="seoul_bus_station_by_name",
    path="/getStationByName",
    summary_ko="정류소명 검색",
    summary_en="Seoul bus stops whose name contains a text",
    params=[Param("stSrch", "정류소명 검색어 (부분일치)", required=True, example="강남역")],
    fields=[
        Field("stId", "정류소 ID", example="121000009"),
        Field("stNm", "정류소명", example="강남역"),
        Field("arsId", "정류소 고유번호 (5자리)", example="22009"),
        Field("tmX", "경도 (WGS84, 이름과 달리)", example="127.0284005454"),
        Field("tmY", "위도 (WGS84)", example="37.4960417459"),
        Field("posX", "GRS80 TM X (EPSG:5181로 계산)", example="202511.4634262886"),
        Field("posY", "GRS80 TM Y", example="444065.1876262456"),
    ],
    example={"stSrch": "강남역", "resultType": "json"},
    missing_param_code="2",
    notes="Every match in one answer (no paging), in the stop file's order. tmX/tmY are the file's WGS84 "
    "values; posX/posY are EPSG:5181 (our choice; live only says GRS80 TM).",
)
def station_by_name(ctx, params):
    text = params.text("stSrch").strip()
    found = []
    for row in _rows():
        if text in row["stNm"]:
            pos_x, pos_y = _tm(float(row["gpsY"]), float(row["gpsX"]))
            found.append(
                {
                    "stId": row["stId"],
                    "stNm": row["stNm"],
                    "arsId": row["arsId"],
                    "tmX": row["gpsX"],
                    "tmY": row["gpsY"],
                    "posX": pos_x,
                    "posY": pos_y,
                }
            )
    return found


ARRIVAL_FIELDS = [
    Field("stId", "정류소 ID", example="121000009"),
    Field("stNm", "정류소명", example="강남역"),
    Field("arsId", "정류소 고유번호", example="22009"),
    Field("busRouteId", "노선 ID", example="100100063"),
    Field("rtNm", "노선명", example="7612"),
    Field("busRouteAbrv", "노선 약칭", example="7612"),
    Field("sectNm", "구간명", example="강남역~신논현역"),
    Field("gpsX", "정류소 경도", example="127.0284005454"),
    Field("gpsY", "정류소 위도", example="37.4960417459"),
    Field("posX", "정류소 TM X", example="202511.4634262886"),
    Field("posY", "정류소 TM Y", example="444065.1876262456"),
    Field("stationTp", "정류소 타입", example="0"),
    Field("firstTm", "첫차시간 (HHMM + 공백 2칸)", example="0400  "),
    Field("lastTm", "막차시간 (HHMM + 공백 2칸)", example="2340  "),
    Field("term", "배차간격 (분)", example="9"),
    Field("routeType", "노선유형 (2 마을, 3 간선, 4 지선, 5 순환, 6 광역)", example="4"),
    Field("nextBus", "막차운행여부", example="N"),
    Field("staOrd", "정류소 순번", example="23"),
    Field("vehId1", "첫번째 차량 ID", example="111033668"),
    Field("plainNo1", "첫번째 차량 번호", example="서울74사1234"),
    Field("sectOrd1", "첫번째 차량 현재 구간 순번", example="20"),
    Field("stationNm1", "첫번째 차량 최종 정류소명", example="역삼역"),
    Field("traTime1", "첫번째 도착예정 (초)", example="283"),
    Field("traSpd1", "첫번째 차량 속도 (km/h)", example="21"),
    Field("isArrive1", "첫번째 차량 도착출발여부 (0 운행중, 1 도착)", example="0"),
    Field("repTm1", "첫번째 차량 정보 수집 시각", example="2026-11-18 14:19:41.0"),
    Field("isLast1", "첫번째 차량 막차여부", example="0"),
    Field("busType1", "첫번째 차량 유형 (0 일반, 1 저상)", example="1"),
    Field("vehId2", "두번째 차량 ID", example="111033671"),
    Field("plainNo2", "두번째 차량 번호", example="서울74사1239"),
    Field("sectOrd2", "두번째 차량 현재 구간 순번", example="16"),
    Field("stationNm2", "두번째 차량 최종 정류소명", example="한티역"),
    Field("traTime2", "두번째 도착예정 (초)", example="415"),
    Field("traSpd2", "두번째 차량 속도 (km/h)", example="18"),
    Field("isArrive2", "두번째 차량 도착출발여부", example="0"),
    Field("repTm2", "두번째 차량 정보 수집 시각", example="2026-11-18 14:19:35.0"),
    Field("isLast2", "두번째 차량 막차여부", example="0"),
    Field("busType2", "두번째 차량 유형", example="0"),
    Field("adirection", "방향 (진행 방향 종점)", example="영등포구청역"),
    Field("arrmsg1", "첫번째 도착예정 메시지", example="4분후[3번째 전]"),
    Field("arrmsg2", "두번째 도착예정 메시지", example="출발대기"),
    Field("arrmsgSec1", "첫번째 도착예정 메시지 (초 포함)", example="4분43초후[3번째 전]"),
    Field("arrmsgSec2", "두번째 도착예정 메시지 (초 포함)", example="출발대기"),
    Field("nxtStn", "다음 정류소명", example="신논현역"),
    Field("rerdieDiv1", "첫번째 재차 구분", example="0"),
    Field("rerdieDiv2", "두번째 재차 구분", example="0"),
    Field("rerideNum1", "첫번째 재차 인원", example="0"),
    Field("rerideNum2", "두번째 재차 인원", example="0"),
    Field("isFullFlag1", "첫번째 차량 만차여부", example="0"),
    Field("isFullFlag2", "두번째 차량 만차여부", example="0"),
    Field("deTourAt", "우회여부", example="00"),
    Field("congestion1", "첫번째 차량 혼잡도 (0 없음, 3 여유, 4 보통, 5 혼잡)", example="3"),
    Field("congestion2", "두번째 차량 혼잡도", example="0"),
]


def _hhmm(minutes: int) -> str:
    # Live pads the time with two spaces: "2340  ".
    minutes %= 24 * 60
    return f"{minutes // 60:02d}{minutes % 60:02d}  "


def _messages(a: Approach | None) -> tuple[str, str]:
    if a is None:
        return "운행종료", "운행종료"
    if not a.started:
        return "출발대기", "출발대기"
    if a.seconds < 60:
        return "곧 도착", "곧 도착"
    minutes, seconds = divmod(a.seconds, 60)
    place = f"[{a.stops_away}번째 전]"
    return f"{minutes}분후{place}", f"{minutes}분{seconds}초후{place}"


def _vehicle(ctx, net: Network, slot: int, a: Approach | None) -> dict[str, str]:
    n = str(slot)
    if a is None or not a.started:
        return {
            f"vehId{n}": "0", f"plainNo{n}": "", f"sectOrd{n}": "0", f"stationNm{n}": "", f"traTime{n}": "0",
            f"traSpd{n}": "0", f"isArrive{n}": "0", f"repTm{n}": "", f"isLast{n}": "1" if a and a.last else "0",
            f"busType{n}": "0",
        }  # fmt: skip
    r = rng("seoul-vehicle", a.route.id, a.departure)
    reported = ctx.now - timedelta(seconds=r.randint(5, 55))
    return {
        f"vehId{n}": str(111_000_000 + r.randint(0, 999_999)),
        f"plainNo{n}": f"서울7{r.randint(0, 5)}사{r.randint(1000, 9999)}",
        f"sectOrd{n}": str(a.at_position + 1),
        f"stationNm{n}": net.stops[a.route.stops[a.at_position]].name,
        f"traTime{n}": str(a.seconds),
        f"traSpd{n}": str(r.randint(12, 32)),
        f"isArrive{n}": "0",
        f"repTm{n}": reported.strftime("%Y-%m-%d %H:%M:%S.0"),
        f"isLast{n}": "1" if a.last else "0",
        f"busType{n}": "1" if r.random() < 0.6 else "0",
    }


def _congestion(ctx, a: Approach | None) -> str:
    if a is None or not a.started:
        return "0"
    rush = ctx.now.hour in (7, 8, 9, 17, 18, 19)
    return pick_weighted(
        rng("seoul-congestion", a.route.id, a.departure),
        [("3", 0.3 if rush else 0.6), ("4", 0.4), ("5", 0.3 if rush else 0.1)],
    )


def arrival_record(ctx, net: Network, route: Route, index: int) -> dict[str, str]:
    stop = net.stops[index]
    positions = [p for p, at in enumerate(route.stops) if at == index]
    options = [(approaches(route, p, ctx.now), p) for p in positions]
    coming, position = min(options, key=lambda o: o[0][0].seconds if o[0] else math.inf)
    first = coming[0] if coming else None
    second = coming[1] if len(coming) > 1 else None
    msg1, sec1 = _messages(first)
    msg2, sec2 = _messages(second)
    pos_x, pos_y = _tm(stop.lat, stop.lon)
    following = route.stops[position + 1] if position + 1 < len(route.stops) else route.stops[0]
    terminus = route.stops[route.turn - 1] if position < route.turn else route.stops[-1]
    record = {
        "stId": stop.id,
        "stNm": stop.name,
        "arsId": stop.number,
        "busRouteId": route.id,
        "rtNm": route.number,
        "busRouteAbrv": route.number,
        "sectNm": f"{stop.name}~{net.stops[following].name}",
        "gpsX": repr(stop.lon),
        "gpsY": repr(stop.lat),
        "posX": pos_x,
        "posY": pos_y,
        "stationTp": "0",
        "firstTm": _hhmm(route.first_min),
        "lastTm": _hhmm(route.last_min + route.seconds[position] // 60),
        "term": str(route.headway_min),
        "routeType": ROUTE_TYPE[route.kind],
        "nextBus": "N",
        "staOrd": str(position + 1),
        **_vehicle(ctx, net, 1, first),
        **_vehicle(ctx, net, 2, second),
        "adirection": net.stops[terminus].name,
        "arrmsg1": msg1,
        "arrmsg2": msg2,
        "arrmsgSec1": sec1,
        "arrmsgSec2": sec2,
        "nxtStn": net.stops[following].name,
        "rerdieDiv1": "0",
        "rerdieDiv2": "0",
        "rerideNum1": "0",
        "rerideNum2": "0",
        "isFullFlag1": "0",
        "isFullFlag2": "0",
        "deTourAt": "00",
        "congestion1": _congestion(ctx, first),
        "congestion2": _congestion(ctx, second),
    }
    return {f.name: record[f.name] for f in ARRIVAL_FIELDS}


@STATION_INFO.operation(
    id="seoul_bus_station_by_uid",
    path="/getStationByUid",
    summary_ko="고유번호별 정류소 도착정보 조회",
    summary_en="Arrivals at a Seoul bus stop by its ARS id",
    params=[Param("arsId", "정류소 고유번호 (5자리)", required=True, example="22009")],
    fields=ARRIVAL_FIELDS,
    example={"arsId": "01001", "resultType": "json"},
    missing_param_code="2",
    notes="One row per route through the stop, with its next two buses from the route's timetable (first bus "
    "04:00–06:30, last 22:30–23:40) and the sandbox clock. An unknown arsId answers headerCd 4.",
)
def station_by_uid(ctx, params):
    ars_id = params.text("arsId").strip()
    net = network()
    index = _by_ars_id().get(ars_id)
    if index is None:
        return []
    return [arrival_record(ctx, net, route, index) for route in net.routes_at(index)]


def warm(now: datetime) -> None:
    """Lay out the Seoul route network (a few seconds) ahead of requests (apis.sandbox.warm)."""
    network()
    _by_ars_id()
