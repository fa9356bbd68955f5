"""서울 열린데이터광장: 역사마스터 (subwayStationMaster, seeds/seoul_subway_stations.csv as published) and
실시간 지하철 도착정보 (realtimeStationArrival on swopenapi.seoul.go.kr), whose trains run on a timetable
read off the sandbox clock: headways by time of day, two minutes between stations, no service 01:00–05:30.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from urllib.parse import unquote

from apis.sandbox.envelopes.seoul_open import SeoulAuth, SeoulOpenEnvelope, SeoulSubwayEnvelope, unknown_service
from apis.sandbox.registry import REGISTRY, Field, HostDef, LazyRecords, Param, service
from apis.sandbox.world.seeds import read_csv

OPEN_HOST = "openapi.seoul.go.kr:8088"
SUBWAY_HOST = "swopenapi.seoul.go.kr"

STATION_MASTER = service(
    id="SeoulOpenData",
    provider_ko="서울특별시 (열린데이터광장)",
    provider_en="Seoul Metropolitan Government (Seoul Open Data Plaza)",
    family="seoul_open",
    host=OPEN_HOST,
    base_path="",
    title_ko="서울 열린데이터광장 OpenAPI",
    envelope=SeoulOpenEnvelope(),
    auth=SeoulAuth(),
    schemes=("http",),
)
REGISTRY.add_host(HostDef(OPEN_HOST, unknown_path=unknown_service(STATION_MASTER.envelope)))


@STATION_MASTER.operation(
    id="seoul_subway_station_master",
    path="/{KEY}/{TYPE}/subwayStationMaster/{START_INDEX}/{END_INDEX}",
    summary_ko="서울시 역사마스터 정보",
    summary_en="Seoul-area subway stations: id, name, line and WGS84 position",
    fields=[
        Field("BLDN_ID", "역사_ID", example="0150"),
        Field("BLDN_NM", "역사명", example="서울역"),
        Field("ROUTE", "호선", example="1호선"),
        Field("LAT", "위도", example="37.55"),
        Field("LOT", "경도", example="126.97"),
    ],
    example={"TYPE": "json", "START_INDEX": "1", "END_INDEX": "5"},
    notes="Rows are the published dataset file (909 rows, kept verbatim, including the file's duplicate rows "
    "whose IDs differ only by a leading zero); live answers about 780. Values are strings.",
)
def station_master(ctx, params):
    return [
        {"BLDN_ID": r["station_id"], "BLDN_NM": r["station_name"], "ROUTE": r["line"], "LAT": r["lat"], "LOT": r["lon"]}
        for r in read_csv("seoul_subway_stations.csv")
    ]


# --- realtime arrivals ---------------------------------------------------------------------------

# 역사마스터 호선 -> realtime subwayId. Lines outside Seoul's realtime feed (인천, 에버라인 …) are absent.
SUBWAY_IDS = {
    "1호선": "1001",
    "경부선": "1001",
    "경원선": "1001",
    "경인선": "1001",
    "장항선": "1001",
    "2호선": "1002",
    "3호선": "1003",
    "일산선": "1003",
    "4호선": "1004",
    "과천선": "1004",
    "안산선": "1004",
    "진접선": "1004",
    "5호선": "1005",
    "6호선": "1006",
    "7호선": "1007",
    "7호선(인천)": "1007",
    "8호선": "1008",
    "별내선": "1008",
    "9호선": "1009",
    "9호선(연장)": "1009",
    "중앙선": "1061",
    "경의중앙선": "1063",
    "공항철도1호선": "1065",
    "경춘선": "1067",
    "분당선": "1075",
    "수인선": "1075",
    "신분당선": "1077",
    "신분당선(연장)": "1077",
    "신분당선(연장2)": "1077",
    "경강선": "1081",
    "우이신설선": "1092",
    "서해선": "1093",
    "신림선": "1094",
    "수도권 광역급행철도": "1032",
}
TRAVEL_S = 120  # between adjacent stations
DWELL_S = 30
# (from minute of day, headway minutes); trains start from both ends at 05:30, the last ones leave at 24:00.
HEADWAYS = ((330, 8), (420, 3), (570, 6), (1050, 4), (1200, 8), (1440, None))


def display_name(name: str) -> str:
    """ "잠실(송파구청)" -> "잠실": the name the realtime feed uses."""
    return re.sub(r"\(.*\)$", "", name).strip()


@dataclass(frozen=True)
class Stop:
    station_id: str
    name: str


@cache
def lines() -> dict[str, tuple[Stop, ...]]:
    """subwayId -> its stations in station-ID order (one per name)."""
    grouped: dict[str, dict[str, Stop]] = {}
    for row in sorted(read_csv("seoul_subway_stations.csv"), key=lambda r: int(r["station_id"])):
        subway_id = SUBWAY_IDS.get(row["line"])
        if subway_id is None:
            continue
        name = display_name(row["station_name"])
        grouped.setdefault(subway_id, {}).setdefault(name, Stop(f"{int(row['station_id']):04d}", name))
    return {subway_id: tuple(stops.values()) for subway_id, stops in sorted(grouped.items())}


def statn_id(subway_id: str, stop: Stop) -> str:
    return f"{subway_id}000{stop.station_id[-3:]}"


def departures(day_start: datetime) -> list[datetime]:
    """Departure times from a terminal on one service day."""
    found, minute = [], HEADWAYS[0][0]
    for (start, headway), (end, _) in zip(HEADWAYS, HEADWAYS[1:], strict=False):
        minute = max(minute, start)
        while headway and minute < end:
            found.append(day_start + timedelta(minutes=minute))
            minute += headway
    return found


@dataclass(frozen=True)
class Arrival:
    subway_id: str
    up: bool  # 상행/내선: towards the first station of the line
    stop_index: int
    train_no: int
    departed: datetime
    arrives: datetime


def arrivals_at(subway_id: str, stop_index: int, now: datetime, per_direction: int = 2) -> list[Arrival]:
    """The next trains (in each direction) that have not yet left this station."""
    stops = lines()[subway_id]
    found = []
    for up in (True, False):
        if stop_index == (0 if up else len(stops) - 1):
            continue  # trains in this direction end here
        hops = (len(stops) - 1 - stop_index) if up else stop_index
        upcoming = []
        for day in (now.date() - timedelta(days=1), now.date()):
            day_start = datetime(day.year, day.month, day.day, tzinfo=now.tzinfo)
            for number, departed in enumerate(departures(day_start)):
                arrives = departed + timedelta(seconds=hops * TRAVEL_S)
                if arrives + timedelta(seconds=DWELL_S) >= now and departed <= now + timedelta(minutes=40):
                    upcoming.append(Arrival(subway_id, up, stop_index, number, departed, arrives))
        found.extend(sorted(upcoming, key=lambda a: a.arrives)[:per_direction])
    return found


def _message(arrival: Arrival, stops: tuple[Stop, ...], now: datetime) -> tuple[str, str, str, str]:
    """(arvlMsg2, arvlMsg3, arvlCd, barvlDt) for a train on its way."""
    seconds = int((arrival.arrives - now).total_seconds())
    travelled = max(0, int((now - arrival.departed).total_seconds()))
    origin = len(stops) - 1 if arrival.up else 0
    step = -1 if arrival.up else 1
    passed = min(travelled // TRAVEL_S, abs(arrival.stop_index - origin))
    where = stops[origin + step * passed].name
    here = stops[arrival.stop_index].name
    away = abs(arrival.stop_index - origin) - passed
    if seconds <= 0:
        return f"{here} 도착", here, "1", "0"
    if seconds <= DWELL_S:
        return f"{here} 진입", here, "0", str(seconds)
    if away == 1:
        phase = travelled % TRAVEL_S
        code, text = ("5", "전역 도착") if phase < DWELL_S else ("3", "전역 출발")
        return text, where, code, str(seconds)
    if away >= 3:
        return f"[{away}]번째 전역 ({where})", where, "99", str(seconds)
    return f"{math.ceil(seconds / 60)}분 후 ({where})", where, "99", str(seconds)


def arrival_record(arrival: Arrival, now: datetime, rank: int, total: int, row_num: int) -> dict:
    stops = lines()[arrival.subway_id]
    here = stops[arrival.stop_index]
    terminal = stops[0] if arrival.up else stops[-1]
    step = -1 if arrival.up else 1
    toward = stops[arrival.stop_index + step]
    back = stops[arrival.stop_index - step] if 0 <= arrival.stop_index - step < len(stops) else here
    msg2, msg3, code, seconds = _message(arrival, stops, now)
    transfers = sorted(sid for sid, line in lines().items() if any(s.name == here.name for s in line))
    circle = arrival.subway_id == "1002"
    express = arrival.subway_id == "1009" and arrival.train_no % 2 == 1
    train_no = f"{int(arrival.subway_id) % 10}{(2 * arrival.train_no + (0 if arrival.up else 1)) % 1000:03d}"
    return {
        "beginRow": None,
        "endRow": None,
        "curPage": None,
        "pageRow": None,
        "totalCount": total,
        "rowNum": row_num,
        "selectedCount": total,
        "subwayId": arrival.subway_id,
        "subwayNm": None,
        "updnLine": ("내선" if arrival.up else "외선") if circle else ("상행" if arrival.up else "하행"),
        "trainLineNm": f"{terminal.name}행 - {toward.name}방면",
        "subwayHeading": None,
        "statnFid": statn_id(arrival.subway_id, back),
        "statnTid": statn_id(arrival.subway_id, toward),
        "statnId": statn_id(arrival.subway_id, here),
        "statnNm": here.name,
        "trainCo": None,
        "trnsitCo": str(len(transfers)),
        "ordkey": f"{0 if arrival.up else 1}{rank}{abs(int(seconds) // TRAVEL_S):03d}{terminal.name}{int(express)}",
        "subwayList": ",".join(transfers),
        "statnList": ",".join(statn_id(sid, next(s for s in lines()[sid] if s.name == here.name)) for sid in transfers),
        "btrainSttus": "급행" if express else "일반",
        "barvlDt": seconds,
        "btrainNo": train_no,
        "bstatnId": statn_id(arrival.subway_id, terminal),
        "bstatnNm": terminal.name,
        "recptnDt": (now - timedelta(seconds=int(seconds) % 17 + 3)).strftime("%Y-%m-%d %H:%M:%S"),
        "arvlMsg2": msg2,
        "arvlMsg3": msg3,
        "arvlCd": code,
        "lstcarAt": "1" if arrival.departed.hour == 23 and arrival.departed.minute >= 50 else "0",
    }


SUBWAY = service(
    id="SeoulSubwayRealtime",
    provider_ko="서울특별시 (열린데이터광장)",
    provider_en="Seoul Metropolitan Government (Seoul Open Data Plaza)",
    family="seoul_subway",
    host=SUBWAY_HOST,
    base_path="/api/subway",
    title_ko="서울시 지하철 실시간 도착정보",
    envelope=SeoulSubwayEnvelope("realtimeArrivalList"),
    auth=SeoulAuth(),
    schemes=("http",),
)


@SUBWAY.operation(
    id="seoul_subway_arrival",
    path="/{KEY}/{TYPE}/realtimeStationArrival/{START_INDEX}/{END_INDEX}/{statnNm}",
    summary_ko="실시간 역 도착정보",
    summary_en="Next trains at a station, both directions, every line through it",
    params=[Param("statnNm", "역명 ('역' 없이, 예: 서울, 강남)", required=True, location="path", example="강남")],
    fields=[
        Field("subwayId", "호선 ID (1001 1호선 … 1009 9호선, 1063 경의중앙선, 1077 신분당선 …)", example="1002"),
        Field("subwayNm", "호선명 (null)"),
        Field("updnLine", "상하행선 구분 (상행/하행, 2호선 내선/외선)", example="내선"),
        Field("trainLineNm", "도착지방면", example="성수행 - 역삼방면"),
        Field("subwayHeading", "내리는 문 방향 (null)"),
        Field("statnFid", "이전지하철역ID", example="1002000223"),
        Field("statnTid", "다음지하철역ID", example="1002000221"),
        Field("statnId", "지하철역ID", example="1002000222"),
        Field("statnNm", "지하철역명", example="강남"),
        Field("trainCo", "열차운행사 (null)"),
        Field("trnsitCo", "환승노선수", example="2"),
        Field("ordkey", "도착예정열차순번", example="01003성수0"),
        Field("subwayList", "연계호선ID", example="1002,1077"),
        Field("statnList", "연계지하철역ID", example="1002000222,1077000687"),
        Field("btrainSttus", "열차종류 (일반, 급행)", example="일반"),
        Field("barvlDt", "열차도착예정시간 (초)", example="180"),
        Field("btrainNo", "열차번호", example="2216"),
        Field("bstatnId", "종착지하철역ID", example="1002000211"),
        Field("bstatnNm", "종착지하철역명", example="성수"),
        Field("recptnDt", "열차도착정보를 생성한 시각", example="2026-11-18 14:19:52"),
        Field("arvlMsg2", "첫번째도착메세지", example="3분 후 (선릉)"),
        Field("arvlMsg3", "두번째도착메세지 (열차 현재 위치)", example="선릉"),
        Field("arvlCd", "도착코드 (0 진입, 1 도착, 3 전역출발, 5 전역도착, 99 운행중)", example="99"),
        Field("lstcarAt", "막차여부 (1 막차)", example="0"),
        # Paging columns live repeats in every row (the first four always null).
        Field("beginRow", "시작 행 (사용 안 함, null)"),
        Field("endRow", "끝 행 (사용 안 함, null)"),
        Field("curPage", "현재 페이지 (사용 안 함, null)"),
        Field("pageRow", "페이지당 행 (사용 안 함, null)"),
        Field("totalCount", "전체 건수", type="integer", example="8"),
        Field("rowNum", "행 번호", type="integer", example="1"),
        Field("selectedCount", "선택 건수", type="integer", example="8"),
    ],
    example={"TYPE": "json", "START_INDEX": "0", "END_INDEX": "10", "statnNm": "강남"},
    notes="Trains leave both terminals from 05:30 every 3–8 minutes (peaks 07:00–09:30 and 17:30–20:00) until "
    "24:00 and take two minutes between stations, so answers follow the sandbox clock; 01:00–05:30 is empty "
    "(INFO-200). Up to two trains per direction and line. Line order follows station IDs, statnId is subwayId + "
    "000 + the station ID's last three digits (live IDs differ for some lines), and START_INDEX 0 is read as 1. "
    "Values are strings except totalCount, rowNum, selectedCount; unused fields are null.",
)
def subway_arrival(ctx, params):
    # Path segments reach the engine decoded; a client that encoded twice still finds its station.
    wanted = display_name(unquote(params.text("statnNm")).strip()).removesuffix("역") or "-"
    now = ctx.now
    found: list[Arrival] = []
    for subway_id, stops in lines().items():
        for index, stop in enumerate(stops):
            if stop.name in (wanted, wanted + "역"):
                found.extend(arrivals_at(subway_id, index, now))
    found.sort(key=lambda a: (a.subway_id, not a.up, a.arrives))
    ranks: dict[tuple[str, bool], int] = {}
    numbered = []
    for arrival in found:
        key = (arrival.subway_id, arrival.up)
        ranks[key] = ranks.get(key, 0) + 1
        numbered.append((arrival, ranks[key]))
    total = len(numbered)
    return LazyRecords(
        [(a, rank, row) for row, (a, rank) in enumerate(numbered, start=1)],
        lambda item: arrival_record(item[0], now, item[1], total, item[2]),
    )
