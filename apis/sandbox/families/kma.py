"""기상청 단기예보 (VilageFcstInfoService_2.0) and 중기예보 (MidFcstInfoService), read from one weather field.

The field is a deterministic function of (KMA grid cell, hour): a climate by season, latitude and terrain, a
diurnal cycle, and smooth noise for weather systems drifting east. 실황 reads it as it is; every forecast reads
it through an error that grows with lead time, so 실황, 초단기예보, 단기예보 and 중기예보 of one hour agree
closely and neighbouring cells look alike. Issuance times, availability and retention follow the sandbox clock.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache, lru_cache

from apis.engine import geo
from apis.sandbox.config import KST
from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.kma import KmaEnvelope
from apis.sandbox.errors import InvalidParam, NoData
from apis.sandbox.rand import rng, stable_int
from apis.sandbox.registry import Context, Field, Param, Params
from apis.sandbox.world.regions import SIDO_SHORT
from apis.sandbox.world.seeds import read_csv

# Minutes after base_time when 초단기실황 is served. Newer guides say HH:10, older clients HH:40 (research §4.2);
# override with SANDBOX["extra"]["kma_ncst_available_minute"].
NCST_AVAILABLE_MINUTE = 10
ULTRA_FCST_AVAILABLE_MINUTE = 15  # HH30 issuance, served from HH:45
VILAGE_AVAILABLE_MINUTE = 10  # 0200, 0500, … served from 02:10, 05:10, …
VILAGE_HOURS = (2, 5, 8, 11, 14, 17, 20, 23)
NCST_RETENTION = timedelta(days=1)
ULTRA_FCST_RETENTION = timedelta(days=1)
VILAGE_RETENTION = timedelta(days=3)
MID_RETENTION = timedelta(hours=24)
GRID_NX, GRID_NY = 149, 253

_EPOCH = datetime(2020, 1, 1, tzinfo=KST)


def hour_index(moment: datetime) -> int:
    """Whole hours since 2020-01-01 00:00 KST: the time axis of the weather field."""
    return int((moment.astimezone(KST) - _EPOCH).total_seconds() // 3600)


def hour_time(index: int) -> datetime:
    return _EPOCH + timedelta(hours=index)


# --- smooth noise ------------------------------------------------------------------------------


@lru_cache(maxsize=400_000)
def _lattice(seed: str, i: int, j: int, k: int) -> float:
    return stable_int(seed, i, j, k) / 2**63 - 1.0


def smooth_noise(seed: str, x: float, y: float, t: float) -> float:
    """Value noise in [-1, 1]: random values on an integer lattice of (x, y, t), blended smoothly in between;
    other families use it for fields that must agree with the weather (e.g. air quality)."""
    i, j, k = math.floor(x), math.floor(y), math.floor(t)
    fx, fy, ft = x - i, y - j, t - k
    sx, sy, st = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy), ft * ft * (3 - 2 * ft)
    at = _lattice
    # The 8 corners, blended along x, then y, then t; unrolled because it runs for every value of every row.
    c000, c100, c010, c110 = at(seed, i, j, k), at(seed, i + 1, j, k), at(seed, i, j + 1, k), at(seed, i + 1, j + 1, k)
    c001, c101 = at(seed, i, j, k + 1), at(seed, i + 1, j, k + 1)
    c011, c111 = at(seed, i, j + 1, k + 1), at(seed, i + 1, j + 1, k + 1)
    now = (c000 + sx * (c100 - c000)) * (1 - sy) + (c010 + sx * (c110 - c010)) * sy
    later = (c001 + sx * (c101 - c001)) * (1 - sy) + (c011 + sx * (c111 - c011)) * sy
    return now + st * (later - now)


def _sigmoid(value: float) -> float:
    return 1.0 / (1.0 + math.exp(-value))


# --- the weather field -------------------------------------------------------------------------

# (lat, lon, radius in degrees, °C): highlands colder than the latitude alone says.
_TERRAIN = (
    (37.68, 128.72, 0.18, -5.0),  # 대관령
    (37.45, 128.45, 0.35, -2.5),  # 평창·정선
    (37.16, 128.99, 0.15, -3.0),  # 태백
    (38.10, 128.20, 0.35, -1.5),  # 인제
    (38.20, 127.35, 0.35, -1.5),  # 철원 분지 (continental nights)
    (36.90, 128.30, 0.35, -1.0),  # 소백
    (35.75, 127.60, 0.30, -1.5),  # 진안·무주·장수 고원
    (35.35, 127.70, 0.20, -2.5),  # 지리산
    (33.37, 126.53, 0.10, -6.0),  # 한라산
)
_SYNOPTIC_SPEED_KMH = 35.0  # weather systems drift east at about this speed
_CLOUD_CENTER = 0.06
_RAIN_THRESHOLD = 0.62
_RAIN_MM_PER_UNIT = 8.0


@cache
def cell_latlon(nx: int, ny: int) -> tuple[float, float]:
    return geo.kma_grid_to_wgs84(nx, ny)


@cache
def _land_cells() -> frozenset[tuple[int, int]]:
    """Cells KMA's own table names a place in: land, where WAV is 0."""
    cells = set()
    for row in read_csv("kma_grid.csv"):
        try:
            cells.add((int(row["nx"]), int(row["ny"])))
        except ValueError:
            continue
    return frozenset(cells)


def _season(day: date) -> float:
    """+1 in late July, -1 in late January."""
    return math.cos(2 * math.pi * (day.timetuple().tm_yday - 208) / 365.25)


@cache
def _terrain(lat: float, lon: float) -> float:
    cooling = sum(d * math.exp(-((lat - a) ** 2 + (lon - b) ** 2) / r**2) for a, b, r, d in _TERRAIN)
    # The east coast below the ridge is milder than the west at the same latitude.
    east_coast = 2.0 * math.exp(-(((lon - 129.1) / 0.22) ** 2)) if 35.4 < lat < 38.7 else 0.0
    return cooling + east_coast


@lru_cache(maxsize=1024)
def _climate_of_day(day: date) -> tuple[float, float]:
    season = _season(day)
    return 12.8 + 14.5 * season, -1.25 + 0.65 * season  # Seoul's daily mean, °C per degree north


def _diurnal(hour_of_day: int) -> float:
    """-1 at 06:30 (coldest), +1 at 14:30 (warmest)."""
    h = float(hour_of_day)
    if 6.5 <= h < 14.5:
        return -math.cos(math.pi * (h - 6.5) / 8.0)
    return math.cos(math.pi * ((h - 14.5) % 24) / 16.0)


@lru_cache(maxsize=262_144)
def synoptic(nx: int, ny: int, hour: int) -> float:
    """Weather-system intensity: about -1 (clear, dry) to +1 (overcast, wet)."""
    x, y = nx * 5.0, ny * 5.0
    large = smooth_noise("kma-synoptic", (x - _SYNOPTIC_SPEED_KMH * hour) / 650.0, y / 650.0, hour / 40.0)
    meso = smooth_noise("kma-meso", (x - 45.0 * hour) / 170.0, y / 170.0, hour / 9.0)
    return 1.15 * large + 0.45 * meso


def _rain(intensity: float) -> float:
    """mm in the hour for a weather-system intensity; below 0.1 mm nothing is measured or forecast."""
    amount = round(max(0.0, intensity - _RAIN_THRESHOLD) * _RAIN_MM_PER_UNIT, 1)
    return amount if amount >= 0.1 else 0.0


def precip_rate(nx: int, ny: int, hour: int) -> float:
    """Observed precipitation (mm in the hour) — also read by other families (e.g. air quality washout)."""
    return _rain(synoptic(nx, ny, hour))


def cloud_cover(nx: int, ny: int, hour: int) -> float:
    """Observed cloud cover, 0 clear … 1 overcast."""
    return _sigmoid((synoptic(nx, ny, hour) - _CLOUD_CENTER) * 6.0)


@dataclass(frozen=True)
class Weather:
    temp: float  # °C
    cloud: float  # 0 clear … 1 overcast
    precip: float  # mm in the hour (water equivalent)
    humidity: float  # %
    wind_dir: float  # degrees the wind comes from
    wind_speed: float  # m/s
    wave: float  # m, 0 on land
    pop: float  # chance of precipitation as a forecaster would put it, 0–100

    @property
    def kind(self) -> str:
        """Precipitation type: empty when dry, else "rain", "mix" (비/눈) or "snow"."""
        if self.precip <= 0:
            return ""
        if self.temp <= 0.5:
            return "snow"
        return "mix" if self.temp <= 2.0 else "rain"

    @property
    def snowfall_cm(self) -> float:
        return {"snow": 1.0, "mix": 0.3}.get(self.kind, 0.0) * self.precip

    @property
    def sky(self) -> str:
        """SKY code: 1 맑음, 3 구름많음, 4 흐림."""
        return "1" if self.cloud < 0.35 else "3" if self.cloud < 0.7 else "4"


def _weather(nx: int, ny: int, hour: int, synoptic_shift: float, temp_shift: float) -> Weather:
    x, y = nx * 5.0, ny * 5.0
    lat, lon = cell_latlon(nx, ny)
    moment = hour_time(hour)
    s = synoptic(nx, ny, hour) + synoptic_shift
    cloud = _sigmoid((s - _CLOUD_CENTER) * 6.0)
    precip = _rain(s)
    seoul_mean, per_degree = _climate_of_day(moment.date())
    anomaly = 3.2 * smooth_noise("kma-anomaly", (x - 20.0 * hour) / 1100.0, y / 1100.0, hour / 80.0)
    local = 0.8 * smooth_noise("kma-local", x / 60.0, y / 60.0, 0.0)
    amplitude = 6.0 * (1.0 - 0.55 * cloud) * (0.6 if precip > 0 else 1.0)
    temp = (
        seoul_mean
        + per_degree * (lat - 37.57)
        + _terrain(round(lat, 3), round(lon, 3))
        + anomaly
        + local
        + amplitude * _diurnal(moment.hour)
        + temp_shift
    )
    humidity = 58 + 24 * cloud - 14 * _diurnal(moment.hour) + (16 if precip > 0 else 0)
    humidity += 6 * smooth_noise("kma-humidity", x / 200.0, y / 200.0, hour / 12.0)
    direction = (300.0 + 130.0 * smooth_noise("kma-wind-dir", x / 500.0, y / 500.0, hour / 20.0)) % 360.0
    speed = 0.8 + 2.6 * abs(smooth_noise("kma-wind-speed", x / 300.0, y / 300.0, hour / 10.0)) + 1.2 * cloud
    speed += 0.6 * max(0.0, _diurnal(moment.hour))
    at_sea = (nx, ny) not in _land_cells()
    if at_sea:
        speed *= 1.6
    wave = round(0.3 + speed * 0.22, 1) if at_sea else 0.0
    pop = 100.0 * _sigmoid((s - _RAIN_THRESHOLD + 0.06) * 9.0)
    return Weather(
        temp=temp,
        cloud=cloud,
        precip=precip,
        humidity=min(98.0, max(18.0, humidity)),
        wind_dir=direction,
        wind_speed=speed,
        wave=wave,
        pop=pop,
    )


@lru_cache(maxsize=65_536)
def observed(nx: int, ny: int, hour: int) -> Weather:
    """What the station network measured in a cell at an hour (초단기실황)."""
    return _weather(nx, ny, hour, 0.0, 0.0)


@lru_cache(maxsize=131_072)
def forecast(nx: int, ny: int, hour: int, issued_hour: int) -> Weather:
    """A forecast for an hour issued at another: the observed field through an error growing with lead time."""
    lead = hour - issued_hour
    if lead <= 1:
        return observed(nx, ny, hour)
    x, y = nx * 5.0, ny * 5.0
    growth = min(1.0, lead / 72.0)
    seed = f"kma-error-{issued_hour}"
    shift = 0.25 * growth**0.7 * smooth_noise(seed + "-s", x / 300.0, y / 300.0, hour / 10.0)
    temp_shift = (0.3 + 1.8 * growth) * smooth_noise(seed + "-t", x / 250.0, y / 250.0, hour / 12.0)
    return _weather(nx, ny, hour, shift, temp_shift)


# --- KMA's value formats -----------------------------------------------------------------------


def _decimal1(value: float) -> str:
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def _whole(value: float) -> str:
    return str(int(math.floor(value + 0.5)))


def _round_to(value: float, step: int) -> int:
    return int(step * math.floor(value / step + 0.5))


def precipitation_text(mm: float) -> str:
    """PCP / 초단기예보 RN1 as KMA writes them: 강수없음, 1.0mm 미만, 12.5mm, 30.0~50.0mm, 50.0mm 이상."""
    mm = round(mm, 1)
    if mm <= 0:
        return "강수없음"
    if mm < 1.0:
        return "1.0mm 미만"
    if mm < 30.0:
        return f"{mm:.1f}mm"
    return "30.0~50.0mm" if mm < 50.0 else "50.0mm 이상"


def snowfall_text(cm: float) -> str:
    """SNO: 적설없음, 1.0cm 미만, 2.5cm, 5.0cm 이상."""
    cm = round(cm, 1)
    if cm <= 0:
        return "적설없음"
    if cm < 1.0:
        return "1.0cm 미만"
    return f"{cm:.1f}cm" if cm < 5.0 else "5.0cm 이상"


def _uv(weather: Weather) -> tuple[str, str]:
    """UUU (east +) and VVV (north +) of a wind coming from wind_dir."""
    radians = math.radians(weather.wind_dir)
    return (
        _decimal1(-weather.wind_speed * math.sin(radians)),
        _decimal1(-weather.wind_speed * math.cos(radians)),
    )


def _vec(weather: Weather) -> str:
    value = _whole(weather.wind_dir)
    return "0" if value == "360" else value


def _pty(weather: Weather, *, ultra: bool) -> str:
    """PTY: 0 없음, 1 비, 2 비/눈, 3 눈; 초단기 adds 5 빗방울, 6 빗방울눈날림, 7 눈날림 for traces."""
    code = {"": 0, "rain": 1, "mix": 2, "snow": 3}[weather.kind]
    if ultra and code and weather.precip < 0.3:
        code += 4
    return str(code)


def _pop(weather: Weather) -> int:
    pop = min(90, _round_to(weather.pop, 10))
    return max(pop, 60) if weather.precip > 0 else min(pop, 50)


# --- issuance rules ----------------------------------------------------------------------------


def ncst_available_minute(ctx: Context) -> int:
    value = ctx.config.extra.get("kma_ncst_available_minute", NCST_AVAILABLE_MINUTE)
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit() or int(value) > 59:
        raise ValueError(f'SANDBOX["extra"]["kma_ncst_available_minute"] must be a minute 0–59; got {value!r}')
    return int(value)


def _read_base(params: Params) -> datetime:
    """base_date + base_time as a KST moment; a malformed value is INVALID_REQUEST_PARAMETER_ERROR (10)."""
    day, clock = params.digits("base_date", 8), params.digits("base_time", 4)
    try:
        return datetime(int(day[:4]), int(day[4:6]), int(day[6:]), int(clock[:2]), int(clock[2:]), tzinfo=KST)
    except ValueError:
        raise InvalidParam("base_date" if not _is_date(day) else "base_time") from None


def _is_date(text: str) -> bool:
    try:
        date(int(text[:4]), int(text[4:6]), int(text[6:]))
    except ValueError:
        return False
    return True


def _check_served(ctx: Context, base: datetime, *, available_after: int, retention: timedelta) -> None:
    """A well-formed issuance that is not served (yet, or any more) is 03 NO_DATA, as live."""
    if ctx.now < base + timedelta(minutes=available_after) or ctx.now - base > retention:
        raise NoData()


def _grid(params: Params) -> tuple[int, int]:
    nx, ny = params.int("nx"), params.int("ny")
    if not (1 <= nx <= GRID_NX and 1 <= ny <= GRID_NY):
        raise NoData()
    return nx, ny


def latest_ncst_base(now: datetime, available_minute: int = NCST_AVAILABLE_MINUTE) -> datetime:
    """The newest 초단기실황 base (HH00) served at now."""
    moment = now.astimezone(KST) - timedelta(minutes=available_minute)
    return moment.replace(minute=0, second=0, microsecond=0)


def latest_ultra_fcst_base(now: datetime) -> datetime:
    """The newest 초단기예보 base (HH30) served at now."""
    moment = now.astimezone(KST) - timedelta(minutes=30 + ULTRA_FCST_AVAILABLE_MINUTE)
    return moment.replace(minute=30, second=0, microsecond=0)


def latest_vilage_base(now: datetime) -> datetime:
    """The newest 단기예보 base (02, 05, …, 23 h) served at now."""
    moment = now.astimezone(KST) - timedelta(minutes=VILAGE_AVAILABLE_MINUTE)
    hour = max((h for h in VILAGE_HOURS if h <= moment.hour), default=None)
    if hour is None:
        return (moment - timedelta(days=1)).replace(hour=23, minute=0, second=0, microsecond=0)
    return moment.replace(hour=hour, minute=0, second=0, microsecond=0)


# --- 단기예보 조회서비스 -----------------------------------------------------------------------

KMA_ENVELOPE = KmaEnvelope()

VILAGE = datagokr_service(
    id="VilageFcstInfoService_2.0",
    org="1360000",
    provider_ko="기상청",
    provider_en="Korea Meteorological Administration (KMA)",
    title_ko="기상청_단기예보 ((구)_동네예보) 조회서비스",
    envelope=KMA_ENVELOPE,
)

_GRID_PARAMS = [
    Param("base_date", "발표일자 (YYYYMMDD)", required=True, example="20261118"),
    Param("base_time", "발표시각 (HHmm)", required=True, example="1400"),
    Param("nx", "예보지점 X 좌표 (격자, 1~149)", required=True, type="integer", example="60"),
    Param("ny", "예보지점 Y 좌표 (격자, 1~253)", required=True, type="integer", example="127"),
]
_BASE_FIELDS = [
    Field("baseDate", "발표일자", example="20261118"),
    Field("baseTime", "발표시각", example="1400"),
    Field("category", "자료구분문자", example="T1H"),
]
_FCST_FIELDS = [
    *_BASE_FIELDS,
    Field("fcstDate", "예보일자", example="20261118"),
    Field("fcstTime", "예보시각", example="1500"),
    Field("fcstValue", "예보 값", example="9"),
    Field("nx", "예보지점 X 좌표", type="integer", example="60"),
    Field("ny", "예보지점 Y 좌표", type="integer", example="127"),
]


def _stamp(moment: datetime) -> tuple[str, str]:
    return moment.strftime("%Y%m%d"), moment.strftime("%H%M")


@VILAGE.operation(
    id="kma_ultra_srt_ncst",
    path="/getUltraSrtNcst",
    summary_ko="초단기실황조회",
    summary_en="Ultra-short-term observations (nowcast) for a grid cell",
    params=_GRID_PARAMS,
    fields=[
        *_BASE_FIELDS,
        Field("nx", "예보지점 X 좌표", type="integer", example="60"),
        Field("ny", "예보지점 Y 좌표", type="integer", example="127"),
        Field("obsrValue", "실황 값", example="9.4"),
    ],
    example={"base_date": "20261118", "base_time": "1400", "nx": "60", "ny": "127", "dataType": "JSON"},
    missing_param_code="10",
    notes="base_time HH00, served from HH:10 (setting kma_ncst_available_minute) for one day; 8 categories "
    "PTY, REH, RN1, T1H, UUU, VEC, VVV, WSD. Another minute, a future or expired base gives 03 NO_DATA.",
)
def ultra_srt_ncst(ctx, params):
    base = _read_base(params)
    nx, ny = _grid(params)
    if base.minute != 0:
        raise NoData()
    _check_served(ctx, base, available_after=ncst_available_minute(ctx), retention=NCST_RETENTION)
    weather = observed(nx, ny, hour_index(base))
    uuu, vvv = _uv(weather)
    values = {
        "PTY": _pty(weather, ultra=True),
        "REH": _whole(weather.humidity),
        "RN1": "0" if weather.precip <= 0 else _decimal1(weather.precip),
        "T1H": _decimal1(weather.temp),
        "UUU": uuu,
        "VEC": _vec(weather),
        "VVV": vvv,
        "WSD": _decimal1(weather.wind_speed),
    }
    base_date, base_time = _stamp(base)
    return [
        {"baseDate": base_date, "baseTime": base_time, "category": name, "nx": nx, "ny": ny, "obsrValue": value}
        for name, value in values.items()
    ]


@VILAGE.operation(
    id="kma_ultra_srt_fcst",
    path="/getUltraSrtFcst",
    summary_ko="초단기예보조회",
    summary_en="Ultra-short-term forecast: the next 6 hours for a grid cell",
    params=_GRID_PARAMS,
    fields=_FCST_FIELDS,
    example={"base_date": "20261118", "base_time": "1330", "nx": "60", "ny": "127", "dataType": "JSON"},
    missing_param_code="10",
    notes="base_time HH30, served from HH:45 for one day; 60 rows: LGT, PTY, RN1, SKY, T1H, REH, UUU, VVV, "
    "VEC, WSD, each for the 6 following hours (grouped by category, as live).",
)
def ultra_srt_fcst(ctx, params):
    base = _read_base(params)
    nx, ny = _grid(params)
    if base.minute != 30:
        raise NoData()
    _check_served(ctx, base, available_after=ULTRA_FCST_AVAILABLE_MINUTE, retention=ULTRA_FCST_RETENTION)
    issued = hour_index(base)
    hours = [issued + step for step in range(1, 7)]
    forecasts = [(hour_time(h), forecast(nx, ny, h, issued)) for h in hours]
    base_date, base_time = _stamp(base)
    writers = {
        "LGT": lambda w: "0",
        "PTY": lambda w: _pty(w, ultra=True),
        "RN1": lambda w: precipitation_text(w.precip),
        "SKY": lambda w: w.sky,
        "T1H": lambda w: _whole(w.temp),
        "REH": lambda w: _whole(w.humidity),
        "UUU": lambda w: _uv(w)[0],
        "VVV": lambda w: _uv(w)[1],
        "VEC": _vec,
        "WSD": lambda w: _decimal1(w.wind_speed),
    }
    rows = []
    for category, write in writers.items():
        for moment, weather in forecasts:
            fcst_date, fcst_time = _stamp(moment)
            rows.append(_fcst_row(base_date, base_time, category, fcst_date, fcst_time, write(weather), nx, ny))
    return rows


def _fcst_row(base_date, base_time, category, fcst_date, fcst_time, value, nx, ny) -> dict:
    return {
        "baseDate": base_date,
        "baseTime": base_time,
        "category": category,
        "fcstDate": fcst_date,
        "fcstTime": fcst_time,
        "fcstValue": value,
        "nx": nx,
        "ny": ny,
    }


def vilage_hours(base: datetime) -> list[int]:
    """Forecast hours of a 단기예보 issuance: from the next hour to 24:00 of the third day (of the fourth
    for the 17, 20 and 23 h issuances)."""
    days = 4 if base.hour >= 17 else 3
    end = base.replace(hour=0, minute=0) + timedelta(days=days)
    issued = hour_index(base)
    return list(range(issued + 1, hour_index(end) + 1))


def _vilage_rows(nx: int, ny: int, base: datetime) -> list[dict]:
    issued = hour_index(base)
    hours = vilage_hours(base)
    base_date, base_time = _stamp(base)
    by_day: dict[date, list[Weather]] = {}
    forecasts = []
    for h in hours:
        moment, weather = hour_time(h), forecast(nx, ny, h, issued)
        forecasts.append((moment, weather))
        by_day.setdefault(moment.date(), []).append(weather)
    rows = []
    for moment, weather in forecasts:
        fcst_date, fcst_time = _stamp(moment)
        uuu, vvv = _uv(weather)
        values = [
            ("TMP", _whole(weather.temp)),
            ("UUU", uuu),
            ("VVV", vvv),
            ("VEC", _vec(weather)),
            ("WSD", _decimal1(weather.wind_speed)),
            ("SKY", weather.sky),
            ("PTY", _pty(weather, ultra=False)),
            ("POP", str(_pop(weather))),
            ("WAV", _decimal1(weather.wave) if weather.wave else "0"),
            ("PCP", precipitation_text(weather.precip)),
            ("REH", str(_round_to(weather.humidity, 5))),
            ("SNO", snowfall_text(weather.snowfall_cm)),
        ]
        day = moment.date()
        # The day's extremes ride on 06:00 (TMN) and 15:00 (TMX); the issuance day's TMN only at 02 h,
        # its TMX up to 11 h (as in captured bodies).
        same_day = day == base.date()
        if moment.hour == 6 and (not same_day or base.hour == 2):
            values.append(("TMN", _decimal1(round(min(w.temp for w in _day_span(day, by_day, 0, 9))))))
        if moment.hour == 15 and (not same_day or base.hour <= 11):
            values.append(("TMX", _decimal1(round(max(w.temp for w in _day_span(day, by_day, 9, 18))))))
        rows.extend(_fcst_row(base_date, base_time, c, fcst_date, fcst_time, v, nx, ny) for c, v in values)
    return rows


def _day_span(day: date, by_day: dict[date, list[Weather]], start: int, end: int) -> list[Weather]:
    """Forecast hours start..end of a day (the list for a day starts at its first forecast hour)."""
    weathers = by_day[day]
    offset = 24 - len(weathers)
    return weathers[max(0, start - offset) : max(1, end - offset + 1)]


@VILAGE.operation(
    id="kma_vilage_fcst",
    path="/getVilageFcst",
    summary_ko="단기예보조회",
    summary_en="Short-term forecast: hourly values for about three days for a grid cell",
    params=_GRID_PARAMS,
    fields=_FCST_FIELDS,
    example={"base_date": "20261118", "base_time": "1400", "nx": "60", "ny": "127", "dataType": "JSON"},
    missing_param_code="10",
    notes="base_time 0200, 0500, …, 2300, served 10 minutes later for three days; 12 categories an hour "
    "(TMP, UUU, VVV, VEC, WSD, SKY, PTY, POP, WAV, PCP, REH, SNO) plus TMN at 06:00 and TMX at 15:00: "
    "about 800–950 rows, so numOfRows matters (default 10).",
)
def vilage_fcst(ctx, params):
    base = _read_base(params)
    nx, ny = _grid(params)
    if base.minute != 0 or base.hour not in VILAGE_HOURS:
        raise NoData()
    _check_served(ctx, base, available_after=VILAGE_AVAILABLE_MINUTE, retention=VILAGE_RETENTION)
    return _vilage_rows(nx, ny, base)


# --- 중기예보 조회서비스 -----------------------------------------------------------------------

MID = datagokr_service(
    id="MidFcstInfoService",
    org="1360000",
    provider_ko="기상청",
    provider_en="Korea Meteorological Administration (KMA)",
    title_ko="기상청_중기예보 조회서비스",
    envelope=KMA_ENVELOPE,
)

# The land region's forecast is read at its main city (temperature regId).
_LAND_ANCHOR = {
    "11B00000": "11B10101",
    "11D10000": "11D10301",
    "11D20000": "11D20501",
    "11C10000": "11C10301",
    "11C20000": "11C20401",
    "11F10000": "11F10201",
    "11F20000": "11F20501",
    "11H10000": "11H10701",
    "11H20000": "11H20201",
    "11G00000": "11G00201",
}
# Which 시도 a temperature regId prefix lies in (for placing it on the map) and its land region.
_PREFIX_REGION = (
    ("11A", ("인천광역시",), "11B00000"),
    ("11B", ("서울특별시", "인천광역시", "경기도"), "11B00000"),
    ("11C1", ("충청북도",), "11C10000"),
    ("11C2", ("대전광역시", "세종특별자치시", "충청남도"), "11C20000"),
    ("11D1", ("강원특별자치도",), "11D10000"),
    ("11D2", ("강원특별자치도",), "11D20000"),
    ("11E", ("경상북도",), "11H10000"),
    ("11F1", ("전북특별자치도",), "11F10000"),
    ("21F1", ("전북특별자치도",), "11F10000"),
    ("11F2", ("광주광역시", "전라남도"), "11F20000"),
    ("21F2", ("광주광역시", "전라남도"), "11F20000"),
    ("11G", ("제주특별자치도",), "11G00000"),
    ("11H1", ("대구광역시", "경상북도"), "11H10000"),
    ("11H2", ("부산광역시", "울산광역시", "경상남도"), "11H20000"),
)
# Temperature points KMA's grid table has no row for: North Korean provinces (rough centres) and two
# Jeju stations (고산, 성판악 — their weather stations' coordinates).
_UNLISTED = {
    "11I": (38.4, 125.9),
    "11J": (39.8, 125.9),
    "11K": (41.0, 129.2),
    "11L": (38.9, 127.6),
    "11G00501": (33.29, 126.16),
    "11G00302": (33.38, 126.62),
}
_LAND_OF_SIDO = {
    "서울": "11B00000",
    "인천": "11B00000",
    "경기": "11B00000",
    "충북": "11C10000",
    "대전": "11C20000",
    "세종": "11C20000",
    "충남": "11C20000",
    "전북": "11F10000",
    "광주": "11F20000",
    "전남": "11F20000",
    "대구": "11H10000",
    "경북": "11H10000",
    "부산": "11H20000",
    "울산": "11H20000",
    "경남": "11H20000",
    "제주": "11G00000",
}
_YEONGDONG = ("강릉", "동해", "속초", "삼척", "태백", "고성", "양양")
# The temperature point used for an address whose 시군 has none of its own.
_MAIN_TA = {
    "서울": "11B10101",
    "인천": "11B20201",
    "경기": "11B20601",
    "충북": "11C10301",
    "대전": "11C20401",
    "세종": "11C20404",
    "충남": "11C20104",
    "전북": "11F10201",
    "광주": "11F20501",
    "전남": "21F20801",
    "대구": "11H10701",
    "경북": "11H10501",
    "부산": "11H20201",
    "울산": "11H20101",
    "경남": "11H20301",
    "제주": "11G00201",
    "강원영서": "11D10301",
    "강원영동": "11D20501",
}


@cache
def mid_regions() -> dict[str, dict[str, str]]:
    """regId -> row of seeds/kma_mid_regions.csv."""
    return {row["reg_id"]: row for row in read_csv("kma_mid_regions.csv")}


def _prefix_region(reg_id: str) -> tuple[tuple[str, ...], str] | None:
    for prefix, sidos, land in _PREFIX_REGION:
        if reg_id.startswith(prefix):
            return sidos, land
    return None


def _stem(name: str) -> str:
    """'수원시장안구' -> '수원', '양평군' -> '양평', '순천시' -> '순천'."""
    found = re.match(r"(.+?)[시군](?:.+구)?$", name)
    return found.group(1) if found else name


@cache
def ta_cell(reg_id: str) -> tuple[int, int]:
    """KMA grid cell of a temperature regId: its name's row in KMA's grid table (the table's own nx, ny)."""
    unlisted = _UNLISTED.get(reg_id) or _UNLISTED.get(reg_id[:3])
    if unlisted:
        return geo.wgs84_to_kma_grid(*unlisted)
    name = mid_regions()[reg_id]["name"]
    sidos, _land = _prefix_region(reg_id) or ((), "")
    rows = [r for r in read_csv("kma_grid.csv") if r["level1"] in sidos or r["level1"] == name]
    island = name[:-1] if name.endswith("도") and len(name) > 2 else name
    for matches in (
        lambda r: r["level1"] == name,
        lambda r: not r["level2"] and r["level1"].startswith(name),
        lambda r: r["level2"] and not r["level3"] and _stem(r["level2"]) in (name, island),
        lambda r: r["level2"] and not r["level3"] and r["level2"] == name,
        lambda r: r["level3"].startswith(island),
    ):
        for row in rows:
            if matches(row):
                return int(row["nx"]), int(row["ny"])
    first = next(r for r in rows if not r["level2"])
    return int(first["nx"]), int(first["ny"])


def mid_region_ids(address: str) -> tuple[str, str]:
    """(land regId, temperature regId) for an address such as '경기도 수원시 장안구 …' — the static table lookup
    clients do before calling getMidLandFcst / getMidTa. Raises ValueError for an address outside the table."""
    parts = address.split()
    if not parts:
        raise ValueError("empty address")
    sido = SIDO_SHORT.get(parts[0], parts[0][:2] if parts[0][:2] in _MAIN_TA else parts[0])
    sigungu = _stem(parts[1]) if len(parts) > 1 else ""
    if sido == "강원":
        key = "강원영동" if sigungu in _YEONGDONG else "강원영서"
        land = "11D20000" if key == "강원영동" else "11D10000"
    elif sido in _LAND_OF_SIDO:
        key, land = sido, _LAND_OF_SIDO[sido]
    else:
        raise ValueError(f"no 중기예보 region for {address!r}")
    if sigungu:
        for reg_id, row in mid_regions().items():
            region = _prefix_region(reg_id)
            if (
                row["kind"] == "temperature"
                and region
                and region[1] == land
                and row["name"] in (sigungu, f"{sigungu}시")
            ):
                return land, reg_id
    return land, _MAIN_TA[key]


def _read_tm_fc(ctx: Context, params: Params) -> datetime:
    text = params.digits("tmFc", 12)
    if not _is_date(text[:8]):
        raise InvalidParam("tmFc")
    if text[8:] not in ("0600", "1800"):
        raise NoData()
    issued = datetime(int(text[:4]), int(text[4:6]), int(text[6:8]), int(text[8:10]), tzinfo=KST)
    if ctx.now < issued or ctx.now - issued > MID_RETENTION:
        raise NoData()
    return issued


def _mid_days(issued: datetime) -> range:
    """Days after the issuance date a 중기예보 covers: 4–10 at 06:00, 5–10 at 18:00 (captured 2026-10-04)."""
    return range(4 if issued.hour == 6 else 5, 11)


def _window(cell: tuple[int, int], issued: datetime, day: date, start: int, end: int) -> list[Weather]:
    first = hour_index(datetime(day.year, day.month, day.day, tzinfo=KST))
    issued_hour = hour_index(issued)
    return [forecast(cell[0], cell[1], first + h, issued_hour) for h in range(start, end)]


def _sky_words(weathers: list[Weather]) -> str:
    """wf text: 맑음, 구름많음, 흐림, or '구름많고'/'흐리고' + 비, 눈, 비/눈, 소나기."""
    cloud = sum(w.cloud for w in weathers) / len(weathers)
    wet = [w for w in weathers if w.precip > 0]
    if not wet:
        return "맑음" if cloud < 0.35 else "구름많음" if cloud < 0.7 else "흐림"
    kinds = {w.kind for w in wet}
    what = "눈" if kinds == {"snow"} else "비/눈" if kinds & {"snow", "mix"} else "비"
    if what == "비" and len(wet) <= 2 and cloud < 0.7:
        what = "소나기"
    return ("흐리고 " if cloud >= 0.7 else "구름많고 ") + what


def _rain_chance(weathers: list[Weather]) -> int:
    """rnSt: mid-term chances stay modest (60–80 on a wet half-day, up to 40 on a dry one)."""
    pop = _round_to(max(w.pop for w in weathers), 10)
    return min(80, max(pop, 60)) if any(w.precip > 0 for w in weathers) else min(pop, 40)


@MID.operation(
    id="kma_mid_land_fcst",
    path="/getMidLandFcst",
    summary_ko="중기육상예보조회",
    summary_en="Mid-term land forecast (days 4–10): rain chance and weather text",
    params=[
        Param("regId", "예보구역코드 (11B00000 서울·인천·경기도 …)", required=True, example="11B00000"),
        Param("tmFc", "발표시각 (YYYYMMDD0600 또는 YYYYMMDD1800, 최근 24시간)", required=True, example="202611180600"),
    ],
    fields=[
        Field("regId", "예보구역코드", example="11B00000"),
        *[
            Field(f"rnSt{d}{h}", f"{d}일 후 {'오전' if h == 'Am' else '오후'} 강수확률", type="integer", example="20")
            for d in range(4, 8)
            for h in ("Am", "Pm")
        ],
        *[Field(f"rnSt{d}", f"{d}일 후 강수확률", type="integer", example="20") for d in range(8, 11)],
        *[
            Field(f"wf{d}{h}", f"{d}일 후 {'오전' if h == 'Am' else '오후'} 날씨예보", example="맑음")
            for d in range(4, 8)
            for h in ("Am", "Pm")
        ],
        *[Field(f"wf{d}", f"{d}일 후 날씨예보", example="구름많음") for d in range(8, 11)],
    ],
    example={"regId": "11B00000", "tmFc": "202611180600", "dataType": "JSON"},
    missing_param_code="10",
    notes="tmFc 06:00 lists days 4–10, 18:00 days 5–10 (the day-4 keys are absent), for 24 hours after "
    "issuance; an unknown or abolished regId, another hour, a future or older tmFc give 03 NO_DATA.",
)
def mid_land_fcst(ctx, params):
    reg_id = params.text("regId").strip()
    issued = _read_tm_fc(ctx, params)
    row = mid_regions().get(reg_id)
    if row is None or row["kind"] != "land":
        raise NoData()
    cell = ta_cell(_LAND_ANCHOR[reg_id])
    rain, words = {}, {}
    for d in _mid_days(issued):
        day = issued.date() + timedelta(days=d)
        halves = (("Am", 0, 12), ("Pm", 12, 24)) if d <= 7 else (("", 0, 24),)
        for suffix, start, end in halves:
            weathers = _window(cell, issued, day, start, end)
            rain[f"rnSt{d}{suffix}"] = _rain_chance(weathers)
            words[f"wf{d}{suffix}"] = _sky_words(weathers)
    return [{"regId": reg_id, **rain, **words}]


@MID.operation(
    id="kma_mid_ta",
    path="/getMidTa",
    summary_ko="중기기온조회",
    summary_en="Mid-term temperature forecast (days 4–10): lows and highs with their bands",
    params=[
        Param(
            "regId", "예보구역코드 (11B10101 서울, 11B20201 인천, 11B20601 수원 …)", required=True, example="11B10101"
        ),
        Param("tmFc", "발표시각 (YYYYMMDD0600 또는 YYYYMMDD1800, 최근 24시간)", required=True, example="202611180600"),
    ],
    fields=[
        Field("regId", "예보구역코드", example="11B10101"),
        *[
            Field(
                f"ta{kind}{d}{band}",
                f"{d}일 후 {'최저' if kind == 'Min' else '최고'}기온{label}",
                type="integer",
                example="1" if band else "5",
            )
            for d in range(4, 11)
            for kind in ("Min", "Max")
            for band, label in (("", ""), ("Low", " 하한 범위"), ("High", " 상한 범위"))
        ],
    ],
    example={"regId": "11B10101", "tmFc": "202611180600", "dataType": "JSON"},
    missing_param_code="10",
    notes="Numbers, not strings (captured). Lows are the coldest forecast hour 00–09, highs the warmest "
    "09–18 at the point; bands 0–2 up to day 7, 0–3 after. tmFc rules as getMidLandFcst.",
)
def mid_ta(ctx, params):
    reg_id = params.text("regId").strip()
    issued = _read_tm_fc(ctx, params)
    row = mid_regions().get(reg_id)
    if row is None or row["kind"] != "temperature":
        raise NoData()
    cell = ta_cell(reg_id)
    record: dict[str, object] = {"regId": reg_id}
    for d in _mid_days(issued):
        day = issued.date() + timedelta(days=d)
        bands = rng("kma-mid-band", reg_id, issued.isoformat(), d)
        low = round(min(w.temp for w in _window(cell, issued, day, 0, 10)))
        high = round(max(w.temp for w in _window(cell, issued, day, 9, 19)))
        for kind, value in (("Min", low), ("Max", high)):
            if d <= 7:
                lower, upper = bands.choice((0, 1, 1, 1, 2)), bands.choice((0, 1, 1, 1, 2))
            else:
                lower, upper = bands.choice((0, 0, 1)), bands.choice((1, 2, 2, 3))
            record[f"ta{kind}{d}"] = int(value)
            record[f"ta{kind}{d}Low"] = lower
            record[f"ta{kind}{d}High"] = upper
    return [record]
