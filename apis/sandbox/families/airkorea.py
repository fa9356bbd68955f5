"""한국환경공단 에어코리아: 측정소정보 (MsrstnInfoInqireSvc) and 대기오염정보 (ArpltnInforInqireSvc).

The 656 real stations of seeds/airkorea_stations.csv measure a deterministic hourly field: a regional haze
level drifting east (higher towards the west coast), daily cycles (NO2 at rush hours, O3 in the afternoon),
the station's network (roadside, port, background) and the weather's rain, which washes particles out. Grades
and the integrated index (khai) are computed from the values with the Korean breakpoints, so they agree.
"""

from __future__ import annotations

import calendar
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache, lru_cache

from apis.engine import geo
from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.airkorea import AirKoreaEnvelope
from apis.sandbox.errors import InvalidParam
from apis.sandbox.families import kma
from apis.sandbox.rand import rng
from apis.sandbox.registry import Context, Field, LazyRecords, Param, Params
from apis.sandbox.world import regions
from apis.sandbox.world.seeds import read_csv

PUBLISH_MINUTE = 15  # an hour's values are served from about a quarter past ("매시 15분 내외")
SIDO_NAMES = (
    "서울", "부산", "대구", "인천", "광주", "대전", "울산", "경기", "강원",
    "충북", "충남", "전북", "전남", "경북", "경남", "제주", "세종",
)  # fmt: skip
# 법정동 시도 codes, used to make up the 6-digit stationCode the seed does not carry.
_SIDO_CODE = {
    "서울": "11", "부산": "26", "대구": "27", "인천": "28", "광주": "29", "대전": "30", "울산": "31", "세종": "36",
    "경기": "41", "강원": "51", "충북": "43", "충남": "44", "전북": "52", "전남": "46", "경북": "47", "경남": "48",
    "제주": "50",
}  # fmt: skip


@dataclass(frozen=True)
class Station:
    name: str
    addr: str
    lat: float
    lon: float
    network: str  # mangName: 도시대기, 도로변대기, 국가배경농도, 교외대기, 항만
    items: str  # what it measures, e.g. "SO2, CO, O3, NO2, PM10, PM2.5"
    year: str
    sido: str  # AirKorea's short name: 서울 … 제주, 세종
    code: str
    tm: tuple[float, float]  # EPSG:5181 metres
    cell: tuple[int, int]  # KMA grid

    def measures(self, pollutant: str) -> bool:
        return pollutant in self.items.split(", ")


@cache
def stations() -> tuple[Station, ...]:
    found, counters = [], {}
    for row in read_csv("airkorea_stations.csv"):
        lat, lon = float(row["dmX"]), float(row["dmY"])  # the seed keeps the API's naming: dmX is latitude
        sido = row["sidoName"]
        counters[sido] = counters.get(sido, 0) + 1
        found.append(
            Station(
                name=row["stationName"],
                addr=row["addr"],
                lat=lat,
                lon=lon,
                network=row["mangName"],
                items=row["item"],
                year=row["year"],
                sido=sido,
                code=f"{_SIDO_CODE[sido]}{counters[sido]:04d}",
                tm=geo.wgs84_to_tm(lat, lon),
                cell=geo.wgs84_to_kma_grid(lat, lon),
            )
        )
    return tuple(found)


@cache
def station_by_name() -> dict[str, Station]:
    return {s.name: s for s in stations()}


def version(params: Params) -> float:
    """The ver parameter as a number; absent or unreadable means the original operation."""
    try:
        return float(params.text("ver").strip())
    except ValueError:
        return 0.0


# --- the pollution field -----------------------------------------------------------------------

_NETWORK = {  # (particles, NO2, O3 offset ppm, SO2)
    "도시대기": (1.0, 1.0, 0.0, 1.0),
    "도로변대기": (1.15, 1.6, -0.006, 1.1),
    "교외대기": (0.8, 0.45, 0.005, 0.8),
    "국가배경농도": (0.7, 0.3, 0.007, 0.7),
    "항만": (1.05, 1.1, 0.002, 1.8),
}


@dataclass(frozen=True)
class Hourly:
    pm10: int | None
    pm25: int | None
    o3: float | None
    no2: float | None
    co: float | None
    so2: float | None
    lost: str | None  # "all": the logger lost the hour; "pm25": the PM2.5 analyser did not report


@cache
def _station_traits(name: str) -> tuple[float, float]:
    """(particle level, NO2 level) of a station's surroundings, fixed over time."""
    station = station_by_name()[name]
    local = rng("airkorea-station", name).lognormvariate(0.0, 0.15)
    x, y = station.tm[0] / 1000.0, station.tm[1] / 1000.0
    urban = 0.8 + 0.2 * (kma.smooth_noise("airkorea-no2", x / 40.0, y / 40.0, 0.0) + 1)
    return local, urban


@lru_cache(maxsize=400_000)
def _particles(name: str, hour: int) -> tuple[int | None, int | None, str | None]:
    """(PM10, PM2.5, lost) of an hour: the regional haze drifting east, the morning peak, rain washout.
    Kept apart from the gases because 24-hour means read 24 of them per row."""
    station = station_by_name()[name]
    r = rng("airkorea-hour", name, hour)
    outage = r.random()
    lost = "all" if outage < 0.006 else "pm25" if outage < 0.026 else None
    x, y = station.tm[0] / 1000.0, station.tm[1] / 1000.0
    haze = math.exp(0.6 * kma.smooth_noise("airkorea-haze", (x - 25.0 * hour) / 350.0, y / 350.0, hour / 18.0))
    west = min(1.3, max(0.85, 1.0 + 0.12 * (127.5 - station.lon)))
    rain = kma.precip_rate(*station.cell, hour)
    washout = 0.55 if rain > 1.0 else 0.75 if rain > 0 else 1.0
    morning = 1.0 + 0.12 * math.cos(2 * math.pi * (kma.hour_time(hour).hour - 9) / 24)
    local, _urban = _station_traits(name)
    level = _NETWORK.get(station.network, _NETWORK["도시대기"])[0]
    pm25 = 19.0 * haze * west * washout * morning * level * local * r.gauss(1.0, 0.1)
    pm10 = pm25 * r.uniform(1.5, 1.9) + 4 + (6 if station.network == "도로변대기" else 0)
    pm10_value = max(3, round(pm10)) if station.measures("PM10") and lost != "all" else None
    pm25_value = max(1, round(pm25)) if station.measures("PM2.5") and lost is None else None
    return pm10_value, pm25_value, lost


@lru_cache(maxsize=65_536)
def measured(name: str, hour: int) -> Hourly:
    """What a station recorded for an hour (kma.hour_index): particles, plus gases with their daily cycles
    (NO2 at rush hours, O3 in the sunny afternoon) and the station's network."""
    station = station_by_name()[name]
    pm10, pm25, lost = _particles(name, hour)
    hod = kma.hour_time(hour).hour
    _level, nitrogen, ozone_offset, sulphur = _NETWORK.get(station.network, _NETWORK["도시대기"])
    r = rng("airkorea-gas", name, hour)
    rush = 1.0 + 0.45 * math.exp(-(((hod - 8) / 1.5) ** 2)) + 0.5 * math.exp(-(((hod - 19) / 2.0) ** 2))
    no2 = max(0.002, 0.019 * rush * nitrogen * _station_traits(name)[1] * r.gauss(1.0, 0.12))
    sun = max(0.0, math.cos(2 * math.pi * (hod - 15) / 24)) * (1.0 - 0.6 * kma.cloud_cover(*station.cell, hour))
    gases = {
        "o3": max(0.002, 0.012 + 0.02 * sun + ozone_offset - 0.25 * max(0.0, no2 - 0.02) + r.gauss(0.0, 0.002)),
        "no2": no2,
        "co": max(0.1, 0.28 + 6.5 * no2 + r.gauss(0.0, 0.03)),
        "so2": max(0.001, 0.0025 * sulphur * r.gauss(1.0, 0.15)),
    }
    for key, item in (("o3", "O3"), ("no2", "NO2"), ("co", "CO"), ("so2", "SO2")):
        if lost == "all" or not station.measures(item):
            gases[key] = None
    return Hourly(pm10=pm10, pm25=pm25, lost=lost, **gases)


def latest_hour(now: datetime) -> int:
    """kma.hour_index of the newest hour served at now."""
    return kma.hour_index(now - timedelta(minutes=PUBLISH_MINUTE))


def data_time(hour: int) -> str:
    """'2026-11-18 14:00'; midnight is '24:00' of the day before, as AirKorea writes it."""
    moment = kma.hour_time(hour)
    if moment.hour == 0:
        return (moment - timedelta(days=1)).strftime("%Y-%m-%d") + " 24:00"
    return moment.strftime("%Y-%m-%d %H:00")


# --- grades and the integrated index ----------------------------------------------------------

# Breakpoints of 좋음/보통/나쁨/매우나쁨 (upper bounds of grades 1–3) and the CAI index bands.
_BREAKS = {
    "so2": (0.02, 0.05, 0.15, 1.0),
    "co": (2.0, 9.0, 15.0, 50.0),
    "o3": (0.03, 0.09, 0.15, 0.6),
    "no2": (0.03, 0.06, 0.2, 2.0),
    "pm10": (30, 80, 150, 600),
    "pm25": (15, 35, 75, 500),
}
_INDEX_BANDS = ((0, 50), (51, 100), (101, 250), (251, 500))


# Grades read values at the resolution the breakpoints are written in (0.030 vs 0.031 ppm).
_GRADE_DIGITS = {"so2": 3, "co": 1, "o3": 3, "no2": 3, "pm10": 0, "pm25": 0}


def grade(pollutant: str, value: float | None) -> str | None:
    if value is None:
        return None
    value = round(value, _GRADE_DIGITS[pollutant])
    for number, upper in enumerate(_BREAKS[pollutant][:3], start=1):
        if value <= upper:
            return str(number)
    return "4"


def _sub_index(pollutant: str, value: float) -> int:
    breaks = _BREAKS[pollutant]
    lower_bp = 0.0
    for (low_i, high_i), high_bp in zip(_INDEX_BANDS, breaks, strict=True):
        if value <= high_bp:
            return round((high_i - low_i) / (high_bp - lower_bp) * (value - lower_bp) + low_i)
        lower_bp = high_bp
    return 500


def khai(values: dict[str, float | None]) -> int | None:
    """통합대기환경지수: the worst sub-index, raised by 50/75 when two/three pollutants are 나쁨 or worse."""
    present = {k: v for k, v in values.items() if v is not None}
    if not present:
        return None
    indices = [_sub_index(k, round(v, _GRADE_DIGITS[k])) for k, v in present.items()]
    bad = sum(1 for i in indices if i > 100)
    return max(indices) + (75 if bad >= 3 else 50 if bad == 2 else 0)


def khai_grade(value: int | None) -> str | None:
    if value is None:
        return None
    return "1" if value <= 50 else "2" if value <= 100 else "3" if value <= 250 else "4"


def _average24(name: str, hour: int, index: int) -> int | None:
    """Trailing 24-hour mean of PM10 (index 0) or PM2.5 (1), over the hours that have a value."""
    values = [_particles(name, h)[index] for h in range(hour - 23, hour + 1)]
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values)) if values else None


def _text(value: float | None, digits: int) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}" if digits else str(int(value))


def measurement_row(station: Station, hour: int, ver: float, *, with_sido: bool = False) -> dict:
    """One row of getMsrstnAcctoRltmMesureDnsty (or, with_sido, getCtprvnRltmMesureDnsty) for a version."""
    now = measured(station.name, hour)
    pm10_24, pm25_24 = _average24(station.name, hour, 0), _average24(station.name, hour, 1)
    gas_digits = 4 if ver >= 1.5 else 3
    index = khai({"so2": now.so2, "co": now.co, "o3": now.o3, "no2": now.no2, "pm10": pm10_24, "pm25": pm25_24})
    row: dict[str, object] = {}
    if with_sido:
        row["sidoName"] = station.sido
        row["stationName"] = station.name
    row["dataTime"] = data_time(hour)
    if ver >= 1.4 and not with_sido:
        row["stationName"] = station.name
    if ver >= 1.4:
        row["stationCode"] = station.code
    if ver >= 1.2:
        row["mangName"] = station.network
    row["so2Value"] = _text(now.so2, gas_digits)
    row["coValue"] = _text(now.co, 2 if ver >= 1.5 else 1)
    row["o3Value"] = _text(now.o3, gas_digits)
    row["no2Value"] = _text(now.no2, gas_digits)
    row["pm10Value"] = _text(now.pm10, 0)
    if ver >= 1.1:
        row["pm10Value24"] = _text(pm10_24, 0)
    if ver >= 1.0:
        row["pm25Value"] = _text(now.pm25, 0)
    if ver >= 1.1:
        row["pm25Value24"] = _text(pm25_24, 0)
    row["khaiValue"] = "-" if index is None else str(index)
    row["khaiGrade"] = khai_grade(index)
    row["so2Grade"] = grade("so2", now.so2)
    row["coGrade"] = grade("co", now.co)
    row["o3Grade"] = grade("o3", now.o3)
    row["no2Grade"] = grade("no2", now.no2)
    row["pm10Grade"] = grade("pm10", pm10_24)
    if ver >= 1.0:
        row["pm25Grade"] = grade("pm25", pm25_24)
    if ver >= 1.3:
        row["pm10Grade1h"] = grade("pm10", now.pm10)
        row["pm25Grade1h"] = grade("pm25", now.pm25)
    lost_all = "통신장애" if now.lost == "all" else None
    for name in ("so2Flag", "coFlag", "o3Flag", "no2Flag", "pm10Flag"):
        row[name] = lost_all
    if ver >= 1.0:
        row["pm25Flag"] = "통신장애" if now.lost else None
    return row


# --- 측정소정보 --------------------------------------------------------------------------------

ENVELOPE = AirKoreaEnvelope()

MSRSTN = datagokr_service(
    id="MsrstnInfoInqireSvc",
    org="B552584",
    provider_ko="한국환경공단",
    provider_en="Korea Environment Corporation (AirKorea)",
    title_ko="한국환경공단_에어코리아_측정소정보",
    envelope=ENVELOPE,
)


@MSRSTN.operation(
    id="airkorea_msrstn_list",
    path="/getMsrstnList",
    summary_ko="측정소 목록 조회",
    summary_en="Air-quality stations, optionally filtered by address or name",
    params=[
        Param("addr", "주소 (부분일치, 예: 서울)", example="서울"),
        Param("stationName", "측정소명 (부분일치)", example="종로구"),
        Param("ver", "버전 (1.1: dmX 경도·dmY 위도, stationCode 포함)", example="1.0"),
    ],
    fields=[
        Field("stationName", "측정소명", example="종로구"),
        Field("addr", "측정소 주소", example="서울 종로구 종로35가길 19"),
        Field("dmX", "위도 (ver 1.1 이상: 경도)", example="37.572025"),
        Field("dmY", "경도 (ver 1.1 이상: 위도)", example="127.005028"),
        Field("mangName", "측정망", example="도시대기"),
        Field("item", "측정항목", example="SO2, CO, O3, NO2, PM10, PM2.5"),
        Field("year", "설치년도", example="1997"),
        Field("stationCode", "측정소 코드 (ver 1.1 이상)", example="110010"),
    ],
    example={"addr": "서울", "ver": "1.1", "returnType": "json"},
    notes="The 656 stations of a 2024 capture. Without ver dmX is the latitude and dmY the longitude (as "
    "captured); ver 1.1 or later swaps them and adds stationCode (reported by one client; our choice). "
    "stationCode values are made up (sido code + number).",
)
def msrstn_list(ctx, params):
    addr, name = params.text("addr").strip(), params.text("stationName").strip()
    swapped = version(params) >= 1.1
    found = [s for s in stations() if addr in s.addr and name in s.name]

    def build(station: Station) -> dict:
        row = {
            "stationName": station.name,
            "addr": station.addr,
            "dmX": _coordinate(station.lon if swapped else station.lat),
            "dmY": _coordinate(station.lat if swapped else station.lon),
            "mangName": station.network,
            "item": station.items,
            "year": station.year,
        }
        if swapped:
            row["stationCode"] = station.code
        return row

    return LazyRecords(found, build)


def _coordinate(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".")


@lru_cache(maxsize=4096)
def _dongs_named(fragment: str) -> tuple[regions.Region, ...]:
    return tuple(r for r in regions.regions() if r.level == 3 and fragment in r.eupmyeondong)


@MSRSTN.operation(
    id="airkorea_tm_stdr_crdnt",
    path="/getTMStdrCrdnt",
    summary_ko="TM 기준좌표 조회",
    summary_en="TM coordinates of an eup/myeon/dong, by name",
    params=[Param("umdName", "읍면동명 (부분일치)", required=True, example="혜화동")],
    fields=[
        Field("sidoName", "시도 이름", example="서울특별시"),
        Field("sggName", "시군구 이름", example="종로구"),
        Field("umdName", "읍면동 이름", example="혜화동"),
        Field("tmX", "TM X 좌표", example="199165.341806"),
        Field("tmY", "TM Y 좌표", example="453740.548713"),
    ],
    example={"umdName": "혜화동", "returnType": "json"},
    notes="법정동 names of the shared world (live uses its own 읍면동 list); coordinates are the dong's centre "
    "in Korea 2000 central belt TM (EPSG:5181), our reading of AirKorea's TM.",
)
def tm_stdr_crdnt(ctx, params):
    fragment = params.text("umdName").strip()
    found = _dongs_named(fragment)

    def build(region: regions.Region) -> dict:
        x, y = geo.wgs84_to_tm(*regions.center(region.code))
        return {
            "sidoName": region.sido,
            "sggName": region.sigungu,
            "umdName": region.eupmyeondong,
            "tmX": f"{x:.6f}",
            "tmY": f"{y:.6f}",
        }

    return LazyRecords(found, build)


def _coordinate_param(params: Params, name: str) -> float:
    try:
        value = float(params.text(name).strip())
    except ValueError:
        raise InvalidParam(name) from None
    if not math.isfinite(value):
        raise InvalidParam(name)
    return value


@MSRSTN.operation(
    id="airkorea_nearby_msrstn",
    path="/getNearbyMsrstnList",
    summary_ko="근접측정소 목록 조회",
    summary_en="The three stations nearest to a TM coordinate",
    params=[
        Param("tmX", "TM 측정방식 X 좌표", required=True, type="number", example="199165.341806"),
        Param("tmY", "TM 측정방식 Y 좌표", required=True, type="number", example="453740.548713"),
        Param("ver", "버전 (1.0/1.2: 도로명주소 API 좌표, 1.1/1.2: stationCode 포함)", example="1.1"),
    ],
    fields=[
        Field("stationName", "측정소명", example="종로구"),
        Field("addr", "측정소 주소", example="서울 종로구 종로35가길 19"),
        Field("tm", "요청 좌표에서의 거리 (km)", type="number", example="0.9"),
        Field("stationCode", "측정소 코드 (ver 1.1, 1.2)", example="110010"),
    ],
    example={"tmX": "199165.341806", "tmY": "453740.548713", "ver": "1.1", "returnType": "json"},
    notes="As the guide's ver table: none/1.1 read TM (EPSG:5181 here), 1.0/1.2 read the Juso 좌표제공 "
    "entX/entY (UTM-K, EPSG:5179); 1.1/1.2 add stationCode. tm is a JSON number (older captures).",
)
def nearby_msrstn(ctx, params):
    x, y = _coordinate_param(params, "tmX"), _coordinate_param(params, "tmY")
    ver = version(params)
    juso = ver in (1.0, 1.2)
    if juso:
        x, y = geo.wgs84_to_tm(*geo.utmk_to_wgs84(x, y))
    nearest = sorted(stations(), key=lambda s: (s.tm[0] - x) ** 2 + (s.tm[1] - y) ** 2)[:3]
    rows = []
    for station in nearest:
        row = {
            "stationName": station.name,
            "addr": station.addr,
            "tm": round(math.hypot(station.tm[0] - x, station.tm[1] - y) / 1000.0, 1),
        }
        if ver in (1.1, 1.2):
            row["stationCode"] = station.code
        rows.append(row)
    return rows


# --- 대기오염정보 ------------------------------------------------------------------------------

ARPLTN = datagokr_service(
    id="ArpltnInforInqireSvc",
    org="B552584",
    provider_ko="한국환경공단",
    provider_en="Korea Environment Corporation (AirKorea)",
    title_ko="한국환경공단_에어코리아_대기오염정보",
    envelope=ENVELOPE,
)

_VALUE_FIELDS = [
    Field("dataTime", "측정일시 (자정은 전날 24:00)", example="2026-11-18 14:00"),
    Field("stationName", "측정소명 (ver 1.4 이상)", example="종로구"),
    Field("stationCode", "측정소 코드 (ver 1.4 이상)", example="110010"),
    Field("mangName", "측정망 정보 (ver 1.2 이상)", example="도시대기"),
    Field("so2Value", "아황산가스 농도 (ppm)", example="0.003"),
    Field("coValue", "일산화탄소 농도 (ppm)", example="0.4"),
    Field("o3Value", "오존 농도 (ppm)", example="0.021"),
    Field("no2Value", "이산화질소 농도 (ppm)", example="0.022"),
    Field("pm10Value", "미세먼지(PM10) 농도 (㎍/㎥)", example="38"),
    Field("pm10Value24", "미세먼지(PM10) 24시간 예측이동농도 (ver 1.1 이상)", example="36"),
    Field("pm25Value", "초미세먼지(PM2.5) 농도 (ver 1.0 이상)", example="19"),
    Field("pm25Value24", "초미세먼지(PM2.5) 24시간 예측이동농도 (ver 1.1 이상)", example="18"),
    Field("khaiValue", "통합대기환경수치", example="52"),
    Field("khaiGrade", "통합대기환경지수 (1 좋음 … 4 매우나쁨)", example="2"),
    Field("so2Grade", "아황산가스 지수", example="1"),
    Field("coGrade", "일산화탄소 지수", example="1"),
    Field("o3Grade", "오존 지수", example="1"),
    Field("no2Grade", "이산화질소 지수", example="1"),
    Field("pm10Grade", "미세먼지(PM10) 24시간 등급", example="2"),
    Field("pm25Grade", "초미세먼지(PM2.5) 24시간 등급 (ver 1.0 이상)", example="2"),
    Field("pm10Grade1h", "미세먼지(PM10) 1시간 등급 (ver 1.3 이상)", example="2"),
    Field("pm25Grade1h", "초미세먼지(PM2.5) 1시간 등급 (ver 1.3 이상)", example="2"),
    Field("so2Flag", "아황산가스 플래그", example=""),
    Field("coFlag", "일산화탄소 플래그", example=""),
    Field("o3Flag", "오존 플래그", example=""),
    Field("no2Flag", "이산화질소 플래그", example=""),
    Field("pm10Flag", "미세먼지(PM10) 플래그", example=""),
    Field("pm25Flag", "초미세먼지(PM2.5) 플래그 (통신장애 …)", example=""),
]
_VER_PARAM = Param("ver", "버전 (없음: PM2.5 제외, 1.0 PM2.5, 1.1 24시간, 1.2 측정망, 1.3 1시간 등급, 1.4 측정소, 1.5 소수점)",
                   example="1.3")  # fmt: skip


def _months_back(moment: datetime, months: int) -> datetime:
    month_index = moment.year * 12 + moment.month - 1 - months
    year, month = divmod(month_index, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def _term_hours(ctx: Context, term: str) -> list[int]:
    """Hours a dataTerm covers, newest first: DAILY the last 24, MONTH / 3MONTH back to the same hour."""
    latest = latest_hour(ctx.now)
    if term == "DAILY":
        return list(range(latest, latest - 24, -1))
    months = 1 if term == "MONTH" else 3
    start = kma.hour_index(_months_back(kma.hour_time(latest), months))
    return list(range(latest, start, -1))


@ARPLTN.operation(
    id="airkorea_msrstn_rltm",
    path="/getMsrstnAcctoRltmMesureDnsty",
    summary_ko="측정소별 실시간 측정정보 조회",
    summary_en="Hourly measurements of one station, newest first",
    params=[
        Param("stationName", "측정소명", required=True, example="종로구"),
        Param(
            "dataTerm",
            "요청 데이터기간 (DAILY 1일, MONTH 1개월, 3MONTH 3개월)",
            required=True,
            example="DAILY",
            enum=("DAILY", "MONTH", "3MONTH"),
        ),
        _VER_PARAM,
    ],
    fields=_VALUE_FIELDS,
    example={"stationName": "종로구", "dataTerm": "DAILY", "ver": "1.5", "returnType": "json"},
    notes="Hours served from HH:15 on the sandbox clock; DAILY 24 rows, MONTH ~744, 3MONTH ~2,200 (page "
    "them). Fields by ver as the guide lists; '-' with the flag 통신장애 for a small share of hours. An unknown "
    "station gives empty items (our choice); pm*Value24 is the trailing 24-hour mean.",
)
def msrstn_rltm(ctx, params):
    term = params.text("dataTerm").strip().upper()
    if term not in ("DAILY", "MONTH", "3MONTH"):
        raise InvalidParam("dataTerm")
    station = station_by_name().get(params.text("stationName").strip())
    if station is None:
        return []
    ver = version(params)
    return LazyRecords(_term_hours(ctx, term), lambda hour: measurement_row(station, hour, ver))


@ARPLTN.operation(
    id="airkorea_ctprvn_rltm",
    path="/getCtprvnRltmMesureDnsty",
    summary_ko="시도별 실시간 측정정보 조회",
    summary_en="The latest hour of every station in a province (or the whole country)",
    params=[
        Param(
            "sidoName",
            "시도 이름 (전국, 서울, 부산, …, 제주, 세종)",
            required=True,
            example="서울",
            enum=("전국", *SIDO_NAMES),
        ),
        _VER_PARAM,
    ],
    fields=[
        Field("sidoName", "시도명", example="서울"),
        Field("stationName", "측정소명", example="종로구"),
        *[f for f in _VALUE_FIELDS if f.name != "stationName"],
    ],
    example={"sidoName": "서울", "ver": "1.5", "returnType": "json"},
    notes="전국 lists all 656 stations (page them). A name outside the list (e.g. 서울특별시) gives empty items "
    "(our choice).",
)
def ctprvn_rltm(ctx, params):
    sido = params.text("sidoName").strip()
    if sido != "전국" and sido not in SIDO_NAMES:
        return []
    hour = latest_hour(ctx.now)
    ver = version(params)
    found = [s for s in stations() if sido in ("전국", s.sido)]
    return LazyRecords(found, lambda station: measurement_row(station, hour, ver, with_sido=True))
