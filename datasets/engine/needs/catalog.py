"""The catalog of user needs: what Korean users ask of the bundled public APIs, each realised over verified edges.

Every need starts from what a user knows (a district, a dong, a bus stop, a station, a tourist site, a month, a
budget, a drug), reaches internal codes (LAWD_CD, lDongRegnCd, nx/ny, tmX/tmY, arsId, contentId, ykiho,
PBLANC_NO) only through lookup steps and verified edges, picks records by a criterion the request states (named,
nearest, latest, cheapest, above a threshold from the domain) and answers with decoded labels, units and names.
The requests live in korean.yaml beside this module.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from datasets.engine import korean
from datasets.engine.needs.runtime import Bind, Ctx, Need, Outcome, Result
from datasets.engine.synthesis import Discard, _all
from graphs.engine.walk import CMP, COND, DRV, SEQ

DATA = Path(__file__).with_name("korean.yaml")
TOUR = {"MobileOS": "ETC", "MobileApp": "KOPA"}
PM10_BAD = 80  # AirKorea PM10 grade: 81-150 나쁨, over 150 매우나쁨
PM10_GRADES = ((30, "좋음"), (80, "보통"), (150, "나쁨"))
PM25_GRADES = ((15, "좋음"), (35, "보통"), (75, "나쁨"))
POP_RAIN = 60  # 강수확률 60 % 이상: take an umbrella (KMA's 강수 예보 threshold)


@cache
def phrases() -> dict[str, Any]:
    with DATA.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def entries(name: str) -> list[Any]:
    return phrases()["entries"][name]


def label(table: str, code: Any) -> str:
    return phrases()["labels"][table].get(str(code).strip(), "")


# --- Clock rules (explicit, reproducible: the same clock gives the same arguments) -------------------------


def now(ctx: Ctx) -> dt.datetime:
    return dt.datetime.fromisoformat(ctx.clock) if ctx.clock else dt.datetime(2026, 11, 18, 14, 20)


def ncst_base(moment: dt.datetime) -> tuple[str, str]:
    """초단기실황: the hour's observation is out at HH:40; before that, the previous hour's."""
    base = moment.replace(minute=0, second=0, microsecond=0)
    if moment.minute < 40:
        base -= dt.timedelta(hours=1)
    return base.strftime("%Y%m%d"), base.strftime("%H00")


def vilage_base(moment: dt.datetime) -> tuple[str, str]:
    """단기예보: issued at 02, 05, … 23 h and out 10 minutes later; the latest one out."""
    moment = moment - dt.timedelta(minutes=10)
    hour = max((h for h in (2, 5, 8, 11, 14, 17, 20, 23) if h <= moment.hour), default=None)
    if hour is None:
        moment -= dt.timedelta(days=1)
        hour = 23
    return moment.strftime("%Y%m%d"), f"{hour:02d}00"


def last_month(moment: dt.datetime) -> tuple[str, int]:
    first = moment.replace(day=1) - dt.timedelta(days=1)
    return first.strftime("%Y%m"), first.month


# --- Shared pieces ---------------------------------------------------------------------------------------

REGION_TRADES = Bind.of("get_stan_regin_cd_list", "region_cd", "get_rtms_data_svc_apt_trade", "LAWD_CD", "slice:0:5")
REGION_RENT = Bind.of("get_stan_regin_cd_list", "region_cd", "get_rtms_data_svc_apt_rent", "LAWD_CD", "slice:0:5")
REGION_DEV = Bind.of("get_stan_regin_cd_list", "region_cd", "get_rtms_data_svc_apt_trade_dev", "LAWD_CD", "slice:0:5")
# The building register's 시군구 is the district's own code: a trade's sggCd only repeats the LAWD_CD it was asked
# with (an echo, never a hop), so it comes from the district record, as the trades' LAWD_CD did.
REGION_BUILDING = Bind.of("get_stan_regin_cd_list", "region_cd", "get_br_title_info", "sigunguCd", "slice:0:5")
REGION_SIDO_TOUR = Bind.of("get_stan_regin_cd_list", "sido_cd", "area_based_list2", "lDongRegnCd")
REGION_SGG_TOUR = Bind.of("get_stan_regin_cd_list", "sgg_cd", "area_based_list2", "lDongSignguCd")
# The dong's TM pair travels as one binding, as the graph verifies it (a coordinate is never bound alone).
TM_PAIR = Bind.of("get_tm_stdr_crdnt", "tmX,tmY", "get_nearby_msrstn_list", "tmX,tmY", "pair")
NEARBY_REALTIME = Bind.of("get_nearby_msrstn_list", "stationName", "get_msrstn_accto_rltm_mesure_dnsty", "stationName")


def number(value: Any) -> float | None:
    text = str(value if value is not None else "").replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def floor(value: Any) -> str:
    """'13' -> '13층', '-1' -> '지하 1층'."""
    text = str(value).strip()
    return f"지하 {text[1:]}층" if text.startswith("-") else f"{text}층"


def particle(text: str, form: str) -> str:
    """The text with the particle the word before a closing parenthetical takes: '우동 7,273명(3,703세대)' ->
    '…(3,703세대)이에요', as '명' reads; a text without one as korean.josa."""
    base = re.sub(r"\s*\([^()]*\)$", "", text)
    return text + korean.josa(base, form)[len(base) :]


def frame(ctx: Ctx, name: str, options: Sequence[str]) -> str:
    """One of an answer's wordings: the one the need used least in the run (ties: the item's seed), so a run spreads
    its items over every frame instead of leaving them to chance."""
    return options[ctx.spread(f"frame:{name}", list(range(len(options))))]


def repr_q(text: str) -> str:
    return f"'{text}'"


def hour_span(hours: Sequence[int]) -> str:
    """Hours as people say them: [9, 10, 11] -> '9~11시', [9, 13] -> '9시, 13시', [9, 10, 14] -> '9~10시, 14시'."""
    runs: list[list[int]] = []
    for hour in hours:
        if runs and hour == runs[-1][-1] + 1:
            runs[-1].append(hour)
        else:
            runs.append([hour])
    return ", ".join(f"{run[0]}~{run[-1]}시" if len(run) > 1 else f"{run[0]}시" for run in runs)


def distinct(rows: Sequence[Mapping], *fields: str) -> list:
    """The rows in order, one per value of `fields` (stripped): a place registered twice under one name and address
    is one place to the user, so a list or a count never shows it twice."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for r in rows:
        key = tuple(str(r.get(f, "")).strip() for f in fields)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def house_type(code: Any) -> str:
    """청약 주택형 '084.9100C' -> '84.91㎡ C타입'."""
    text = str(code).strip()
    head, letter = (text[:-1], text[-1]) if text and text[-1].isalpha() else (text, "")
    value = number(head)
    if value is None:
        return text
    return f"{value:g}㎡" + (f" {letter}타입" if letter else "")


def grade_of(value: float, table) -> str:
    for limit, name in table:
        if value <= limit:
            return name
    return "매우나쁨"


async def district(ctx: Ctx, sido: str, gu: str) -> tuple[Result, dict]:
    """The 법정동 lookup of a district the user names: its own record (읍면동 000) among the results."""
    full = f"{sido} {gu}"
    found = await ctx.call("get_stan_regin_cd_list", {"locatadd_nm": full}, reuse=True)
    own = [r for r in found.records if str(r.get("locatadd_nm", "")).strip() == full]
    if not own:
        raise Discard("need.no_district", full)
    ctx.pick(found, own[0], criterion="named", field="locatadd_nm", value=gu)
    return found, own[0]


def pick_district(ctx: Ctx, *, seoul_only: bool = False) -> tuple[str, str, str]:
    options = [d for d in entries("districts") if not seoul_only or d[0] == "서울특별시"]
    return tuple(ctx.spread("district", options))  # type: ignore[return-value]


async def realtime_air(ctx: Ctx, nearby: Result) -> tuple[Result, dict, dict]:
    """Nearest station (smallest distance) -> its latest hourly values."""
    rows = [r for r in nearby.records if number(r.get("tm")) is not None]
    if not rows:
        raise Discard("need.no_station", "no distance in the nearby list")
    nearest = min(rows, key=lambda r: number(r["tm"]))
    ctx.pick(nearby, nearest, criterion="nearest", field="tm")
    air = await ctx.call(
        "get_msrstn_accto_rltm_mesure_dnsty",
        {"dataTerm": "DAILY", "ver": "1.3"},
        feed=[(NEARBY_REALTIME, nearby, nearest)],
    )
    latest = max(air.records, key=lambda r: str(r.get("dataTime", "")))
    ctx.pick(air, latest, criterion="latest", field="dataTime")
    for name in ("pm10Value", "pm25Value"):
        if number(latest.get(name)) is None:
            raise Discard("need.no_value", f"{name} is {latest.get(name)!r}")
    return air, nearest, latest


def air_sentence(ctx: Ctx, air: Result, nearest: Mapping, latest: Mapping) -> tuple[str, str]:
    pm10, pm25 = number(latest["pm10Value"]), number(latest["pm25Value"])
    # The hourly values go with the hourly grades (pm10Grade is the 24-hour one); else AirKorea's table.
    g10 = label("grade", latest.get("pm10Grade1h")) or grade_of(pm10, PM10_GRADES)
    g25 = label("grade", latest.get("pm25Grade1h")) or grade_of(pm25, PM25_GRADES)
    ctx.answer(air, "stationName", nearest["stationName"])
    ctx.answer(air, "pm10Value", latest["pm10Value"])
    ctx.answer(air, "pm25Value", latest["pm25Value"])
    ctx.asked("미세먼지", f"{fmt(pm10)}㎍/㎥", latest["pm10Value"])
    ctx.asked("초미세먼지", f"{fmt(pm25)}㎍/㎥", latest["pm25Value"])
    hour = str(latest.get("dataTime", ""))[-5:]
    station, km = nearest["stationName"], fmt(number(nearest["tm"]))
    text = frame(
        ctx,
        "f1",
        (
            f"가장 가까운 {station} 측정소({km}km) 기준으로 {hour} 현재 미세먼지(PM10) {fmt(pm10)}㎍/㎥로 '{g10}', "
            f"초미세먼지(PM2.5) {fmt(pm25)}㎍/㎥로 '{g25}' 수준이에요.",
            f"{hour}에 {km}km 떨어진 {station} 측정소에서 잰 값으로 미세먼지(PM10)는 {fmt(pm10)}㎍/㎥('{g10}'), "
            f"초미세먼지(PM2.5)는 {fmt(pm25)}㎍/㎥('{g25}')예요.",
            f"제일 가까운 측정소가 {km}km 거리의 {station}인데, {hour} 기준 미세먼지(PM10) {fmt(pm10)}㎍/㎥, "
            f"초미세먼지(PM2.5) {fmt(pm25)}㎍/㎥로 각각 '{g10}', '{g25}'이에요.",
        ),
    )
    if "나쁨" in (g10 + g25):
        advice = " " + frame(
            ctx, "f2", ("마스크를 챙기시는 게 좋겠어요.", "밖에 오래 계실 거면 마스크를 쓰시는 게 좋아요.")
        )
    else:
        advice = ""
    return text + advice, f"PM10 {fmt(pm10)}, PM2.5 {fmt(pm25)}"


def spoken_stop(label: str) -> str:
    """A Seoul stop's label as a user types it: '혜화역1번출구' -> '혜화역 1번 출구', '혜화역.마로니에공원' ->
    '혜화역 마로니에공원', '9호선노량진역' -> '9호선 노량진역'."""
    text = re.sub(r"(?<=[가-힣])\.(?=[가-힣])", " ", label.strip())
    text = re.sub(r"(?<=역)(?=\d)", " ", text)
    text = re.sub(r"(?<=호선)(?=[가-힣])", " ", text)
    text = re.sub(r"(?<=\d번)(?=[가-힣])", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def same_stop(label: Any, typed: str) -> bool:
    return re.sub(r"[\s.]", "", str(label)) == re.sub(r"[\s.]", "", typed)


def said_stop(label: str) -> bool:
    """A label people say as it is: short, not two landmarks run together ('지적공사.여의도자이') unless the first is the
    station the stop is named after ('혜화역.마로니에공원'), not the station named twice ('강남역.강남역사거리'), and
    not a line's name before the station ('지하철2호선강남역': people say '강남역')."""
    if len(spoken_stop(label)) > 14 or re.match(r"(지하철|신분당선|\d+호선)", label):
        return False
    if "." not in label:
        return True
    head, _, tail = label.partition(".")
    return bool(re.fullmatch(r"[^.]+역\.[^.]+", label)) and not tail.startswith(head.removesuffix("역"))


SIDES_AT_MOST = 4  # stops of one name a "next bus" answer covers, each side by side; more is a whole square


async def stop_search(ctx: Ctx, *, unique: bool) -> tuple[Result, list[dict], str, str]:
    """A stop the user names as people write it; the agent searches with a word of the name (the station it is named
    after, else the first) and keeps the records whose label is that name (spaces and dots aside). unique: only a
    name one stop has (a need that answers for one place; stops of one name stand on both sides of a road); else a
    name at most SIDES_AT_MOST stops share, so the answer covers every one of them (광화문 has 7: never asked)."""
    known = await ctx.scout("get_station_by_name", {"stSrch": ctx.spread("stop_word", entries("bus_stop_words"))})
    counts = Counter(str(r.get("stNm", "")).strip() for r in known)
    most = 1 if unique else SIDES_AT_MOST
    labels = sorted(n for n in counts if n and not re.search(r"[()A-Za-z]|\d\.|\.\d", n) and counts[n] <= most)
    label_ = ctx.spread("stop", [n for n in labels if said_stop(n)] or labels)
    typed = spoken_stop(label_)
    words = typed.split()
    word = next((w for w in words if w.endswith("역")), words[0])  # the station a stop is named after, if any
    found = await ctx.call("get_station_by_name", {"stSrch": word}, reuse=True)
    matching = [r for r in found.records if same_stop(r.get("stNm", ""), typed)]
    if not matching:
        raise Discard("need.no_stop", f"{typed} not among the stops found by {word!r}")
    ctx.name(typed, label_)
    return found, matching, label_, typed


async def bus_stop(ctx: Ctx) -> tuple[Result, dict, str]:
    """The one stop of the name the user types (a name two stops share is discarded by the pick, never taken by
    position)."""
    found, matching, label_, typed = await stop_search(ctx, unique=True)
    ctx.pick(found, matching[0], criterion="named", field="stNm", value=label_, among=matching)
    return found, matching[0], typed


# --- Air quality -----------------------------------------------------------------------------------------


async def air_near_bus_stop(ctx: Ctx) -> Outcome:
    found, stop, name = await bus_stop(ctx)
    nearby = await ctx.call(
        "get_nearby_msrstn_list",
        {"ver": "1.1"},
        feed=[
            (
                Bind.of("get_station_by_name", "tmX,tmY", "get_nearby_msrstn_list", "tmX,tmY", "project:wgs84:tm"),
                found,
                stop,
            )
        ],
    )
    air, nearest, latest = await realtime_air(ctx, nearby)
    text, short = air_sentence(ctx, air, nearest, latest)
    return Outcome({"stop": name}, f"{name} 정류장에서 {text}", short)


async def air_in_dong(ctx: Ctx) -> Outcome:
    dong, gu = ctx.spread("dong", entries("dongs"))
    found = await ctx.call("get_tm_stdr_crdnt", {"umdName": dong}, reuse=True)
    own = [r for r in found.records if str(r.get("sggName", "")).strip() == gu]
    if not own:
        raise Discard("need.no_dong", f"{gu} {dong}")
    ctx.pick(found, own[0], criterion="named", field="sggName", value=gu, among=own)
    ctx.name(gu)
    ctx.name(dong)
    nearby = await ctx.call(
        "get_nearby_msrstn_list",
        {"ver": "1.1"},
        feed=[(TM_PAIR, found, own[0])],
    )
    air, nearest, latest = await realtime_air(ctx, nearby)
    text, short = air_sentence(ctx, air, nearest, latest)
    return Outcome({"gu": gu, "dong": dong}, f"{gu} {korean.josa(dong, '은')} {text}", short)


async def air_worst_station(ctx: Ctx) -> Outcome:
    sido = ctx.spread("sido", entries("sido_short"))
    ctx.name(sido)
    found = await ctx.call(
        "get_ctprvn_rltm_mesure_dnsty", {"sidoName": sido, "ver": "1.3"}, all_pages=True, page_size=100
    )
    rows = [r for r in found.records if number(r.get("pm10Value")) is not None]
    if len(rows) < 2:
        raise Discard("need.no_values", sido)
    worst = max(rows, key=lambda r: number(r["pm10Value"]))
    ctx.pick(found, worst, criterion="max", field="pm10Value")
    value = number(worst["pm10Value"])
    ctx.derived(found, "max", "pm10Value", worst["pm10Value"])
    # Stations that share the highest reading are all the worst: each is named.
    tied = [r for r in rows if number(r["pm10Value"]) == value]
    for r in tied:
        ctx.answer(found, "stationName", r["stationName"])
    where = (
        f"{worst['stationName']} 측정소"
        if len(tied) == 1
        else f"{'·'.join(str(r['stationName']) for r in tied)} 측정소 {len(tied)}곳(같은 값)"
    )
    over = [r for r in rows if number(r["pm10Value"]) > PM10_BAD]
    ctx.condition(
        found,
        field="pm10Value",
        op=">",
        value=PM10_BAD,
        source="domain:airkorea_pm10_grade",
        kept=len(over),
        of=len(rows),
    )
    ctx.asked("가장 높은 측정소", worst["stationName"])
    ctx.asked("수치", f"{fmt(value)}㎍/㎥", worst["pm10Value"])
    counted = (
        f"{len(rows)}곳"
        if len(rows) == len(found.records)
        else f"{len(found.records)}곳 가운데 지금 값이 나온 {len(rows)}곳"  # a station without a reading is said
    )
    verdict = (
        f"나쁨 기준(81㎍/㎥ 이상)을 넘었어요. {sido}에서 나쁨 이상인 곳은 {len(rows)}곳 중 {len(over)}곳이에요."
        if value > PM10_BAD
        else f"나쁨 기준(81㎍/㎥ 이상)보다는 낮은 '{grade_of(value, PM10_GRADES)}' 수준이에요."
    )
    hour = str(worst.get("dataTime", ""))[-5:]
    answer = frame(
        ctx,
        "f3",
        (
            f"{hour} 기준 {sido} 측정소 {counted} 중 미세먼지(PM10)가 가장 높은 곳은 "
            f"{korean.josa(where, '으로')} {fmt(value)}㎍/㎥예요. {verdict}",
            f"{sido}에서 {hour} 현재 미세먼지(PM10)가 제일 높은 곳은 {korean.josa(where, '이에요')}. "
            f"{fmt(value)}㎍/㎥이고, 측정소 {counted}을 비교했어요. {verdict}",
        ),
    )
    return Outcome({"sido": sido}, answer, f"{worst['stationName']} {fmt(value)}㎍/㎥")


# --- Weather ---------------------------------------------------------------------------------------------


async def weather_now_at_stop(ctx: Ctx) -> Outcome:
    found, stop, name = await bus_stop(ctx)
    base_date, base_time = ncst_base(now(ctx))
    obs = await ctx.call(
        "get_ultra_srt_ncst",
        {"numOfRows": "10"},
        feed=[
            (Bind.of("get_station_by_name", "tmX,tmY", "get_ultra_srt_ncst", "nx,ny", "project:wgs84:kma"), found, stop)
        ],
        derived=[
            ("base_date", base_date, "clock: today", None),
            ("base_time", base_time, "clock: the latest hour observed (HH:40 rule)", None),
        ],
    )
    by = {str(r.get("category")): r for r in obs.records}
    if not {"T1H", "PTY", "RN1"} <= set(by):
        raise Discard("need.no_value", "T1H/PTY/RN1 missing")
    temp, pty, rain = by["T1H"]["obsrValue"], by["PTY"]["obsrValue"], by["RN1"]["obsrValue"]
    pty_label = label("pty", pty) or str(pty)
    ctx.answer(obs, "obsrValue", temp)
    ctx.answer(obs, "obsrValue", pty, decoded=pty_label)
    ctx.asked("기온", f"{temp}℃", temp)
    raining = str(pty).strip() != "0"
    rain_text = (
        f"지금 {korean.josa(pty_label, '이')} 오고 있고 1시간 강수량은 {rain}mm예요"
        if raining
        else frame(ctx, "f4", ("지금 비는 안 오고 있어요", "비는 오지 않고 있어요"))
    )
    hour = int(base_time[:2])
    answer = frame(
        ctx,
        "f5",
        (
            f"{name} 정류장 근처는 {hour}시 관측 기준 기온 {temp}℃이고, {rain_text}.",
            f"{hour}시에 관측한 값으로 {name} 정류장 쪽은 {temp}℃예요. {rain_text}.",
            f"{rain_text}. {name} 정류장 근처 기온은 {temp}℃예요({hour}시 관측).",
        ),
    )
    return Outcome({"stop": name}, answer, f"{temp}℃, 강수 {pty_label}")


async def tourist_site(ctx: Ctx, *, content_type: str = "12", seoul_only=True) -> tuple[Result, dict, str, str]:
    sido, gu, city = pick_district(ctx, seoul_only=seoul_only)
    region, own = await district(ctx, sido, gu)
    sites = await ctx.call(
        "area_based_list2",
        {**TOUR, "contentTypeId": content_type, "arrange": "A", "numOfRows": "100"},
        feed=[(REGION_SIDO_TOUR, region, own), (REGION_SGG_TOUR, region, own)],
        all_pages=True,  # the district's every place, so the one the user names is found wherever it sorts
        reuse=True,
    )
    counts = Counter(str(r.get("title", "")).strip() for r in sites.records)
    names = sorted(n for n, c in counts.items() if n and c == 1)  # a name two places share tells neither
    title = ctx.spread("site", names)
    record = next(r for r in sites.records if str(r.get("title", "")).strip() == title)
    ctx.pick(sites, record, criterion="named", field="title")
    ctx.name(gu)
    ctx.name(title)
    return sites, record, gu, title


async def rain_at_site(ctx: Ctx) -> Outcome:
    sites, site, gu, title = await tourist_site(ctx)
    moment = now(ctx)
    base_date, base_time = vilage_base(moment)
    tomorrow = (moment + dt.timedelta(days=1)).strftime("%Y%m%d")
    forecast = await ctx.call(
        "get_vilage_fcst",
        {},
        all_pages=True,
        stop=lambda rows: any(str(r.get("fcstDate", "")) > tomorrow for r in rows),
        feed=[(Bind.of("area_based_list2", "mapx,mapy", "get_vilage_fcst", "nx,ny", "project:wgs84:kma"), sites, site)],
        derived=[
            ("base_date", base_date, "clock: today", None),
            ("base_time", base_time, "clock: the latest 단기예보 issued (02, 05 … 23 h, out at +10 min)", None),
        ],
    )
    pops = [r for r in forecast.records if r.get("category") == "POP" and str(r.get("fcstDate")) == tomorrow]
    if len(pops) < 6:
        raise Discard("need.no_forecast", f"POP rows for {tomorrow}: {len(pops)}")
    wet = [r for r in pops if (number(r.get("fcstValue")) or 0) >= POP_RAIN]
    ctx.condition(
        forecast,
        field="fcstValue(POP)",
        op=">=",
        value=POP_RAIN,
        source="domain:kma_pop_umbrella",
        kept=len(wet),
        of=len(pops),
    )
    top = max(pops, key=lambda r: (number(r.get("fcstValue")) or 0, -int(str(r.get("fcstTime")))))
    ctx.answer(forecast, "fcstValue", top["fcstValue"])
    # Every hour at the peak: "9~11시", not the first of three tied hours.
    peak = [int(str(r["fcstTime"])[:2]) for r in pops if number(r.get("fcstValue")) == number(top["fcstValue"])]
    when = hour_span(sorted(peak))
    ctx.asked("강수확률", f"{top['fcstValue']}%")
    day = f"내일({int(tomorrow[4:6])}월 {int(tomorrow[6:])}일)"
    if wet:
        hours = ", ".join(f"{int(str(r['fcstTime'])[:2])}시({r['fcstValue']}%)" for r in wet)
        answer = frame(
            ctx,
            "f6",
            (
                f"{day} {title} 일대는 강수확률 {POP_RAIN}% 이상인 시간이 {len(wet)}번 있어요: {hours}. "
                f"가장 높은 때는 {when} {top['fcstValue']}%라서 우산을 챙기시는 게 좋겠어요.",
                f"우산 챙기세요. {day} {title} 쪽은 {when}에 강수확률이 {top['fcstValue']}%까지 올라가고, "
                f"{POP_RAIN}% 이상인 시간이 {len(wet)}번({hours}) 있어요.",
            ),
        )
    else:
        answer = frame(
            ctx,
            "f7",
            (
                f"{day} {title} 일대는 강수확률이 {POP_RAIN}% 이상인 시간이 없어요. "
                f"가장 높은 때도 {when} {top['fcstValue']}% 정도라 우산 없이 다녀오셔도 될 것 같아요.",
                f"{day} {title} 쪽은 비 걱정은 크게 안 하셔도 돼요. 강수확률이 제일 높은 {when}에도 "
                f"{top['fcstValue']}%라 {POP_RAIN}%에 못 미쳐요.",
            ),
        )
    return Outcome({"gu": gu, "site": title}, answer, f"최고 {top['fcstValue']}% ({when})")


async def site_hours(ctx: Ctx) -> Outcome:
    sites, site, gu, title = await tourist_site(ctx)
    intro = await ctx.call(
        "detail_intro2",
        dict(TOUR),
        feed=[
            (Bind.of("area_based_list2", "contentid", "detail_intro2", "contentId"), sites, site),
            (Bind.of("area_based_list2", "contenttypeid", "detail_intro2", "contentTypeId"), sites, site),
        ],
        reuse=True,
    )
    record = intro.records[0]
    rest, use, park = (korean.strip_html(record.get(f)) for f in ("restdate", "usetime", "parking"))
    if not (rest and use and park):
        raise Discard("need.no_value", "restdate/usetime/parking empty")
    for name, value in (
        ("restdate", record.get("restdate")),
        ("usetime", record.get("usetime")),
        ("parking", record.get("parking")),
    ):
        ctx.answer(intro, name, value)
    ctx.asked("쉬는 날", rest)
    ctx.asked("이용 시간", use)
    ctx.asked("주차", park)
    answer = frame(
        ctx,
        "f8",
        (
            f"{korean.josa(title, '은')} 쉬는 날이 '{rest}'이고, 이용 시간은 {korean.josa(repr_q(use), '이에요')}. "
            f"주차는 {korean.josa(repr_q(park), '이라고')} 안내돼 있어요.",
            f"{title} 안내를 보면 이용 시간은 {repr_q(use)}, 쉬는 날은 {korean.josa(repr_q(rest), '이에요')}. "
            f"주차는 {korean.josa(repr_q(park), '이라고')} 돼 있어요.",
        ),
    )
    return Outcome({"gu": gu, "site": title}, answer, f"휴무 {rest}")


async def air_at_site(ctx: Ctx) -> Outcome:
    sites, site, gu, title = await tourist_site(ctx)
    nearby = await ctx.call(
        "get_nearby_msrstn_list",
        {"ver": "1.1"},
        feed=[
            (
                Bind.of("area_based_list2", "mapx,mapy", "get_nearby_msrstn_list", "tmX,tmY", "project:wgs84:tm"),
                sites,
                site,
            )
        ],
    )
    air, nearest, latest = await realtime_air(ctx, nearby)
    text, short = air_sentence(ctx, air, nearest, latest)
    return Outcome({"gu": gu, "site": title}, f"{title} 근처는 {text}", short)


async def district_places(ctx: Ctx, *, arrange: str = "A") -> tuple[str, str, str, Result]:
    """Every listed place of one kind (관광지, 음식점, 문화시설) in a district the user names: (gu, city, kind, places),
    in the listing order the need asks for (arrange A 제목순, D 등록일순)."""
    sido, gu, city = pick_district(ctx)
    code = ctx.spread("kind", ["12", "39", "14"])
    kind = label("content_types", code)
    region, own = await district(ctx, sido, gu)
    ctx.name(gu)
    ctx.name(kind)
    places = await ctx.call(
        "area_based_list2",
        {**TOUR, "contentTypeId": code, "arrange": arrange, "numOfRows": "100"},
        feed=[(REGION_SIDO_TOUR, region, own), (REGION_SGG_TOUR, region, own)],
        all_pages=True,
        reuse=True,
    )
    return gu, city, kind, places


async def places_in_district(ctx: Ctx) -> Outcome:
    gu, city, kind, places = await district_places(ctx)
    # Every place, one record each as the API counts them, with its address: the request asks where they are, and
    # two places of one name are told apart by it.
    named = [r for r in places.records if str(r.get("title", "")).strip() and str(r.get("addr1", "")).strip()]
    if len(named) < len(places.records):
        raise Discard("need.no_value", f"{len(places.records) - len(named)} places without a name or an address")
    rows = distinct(sorted(named, key=lambda r: (str(r["title"]).strip(), str(r["addr1"]))), "title", "addr1")
    shown, total = ctx.show(rows, result=places, criterion="title (가나다순, arrange=A: every place, image or not)")
    for r in shown:
        ctx.answer(places, "title", r["title"])
        ctx.answer(places, "addr1", r["addr1"], shown=local_address(r["addr1"], gu))
    ctx.asked(kind, str(shown[0]["title"]).strip())
    ctx.asked("주소", local_address(shown[0]["addr1"], gu))
    listing = ", ".join(f"{str(r['title']).strip()}({local_address(r['addr1'], gu)})" for r in shown)
    if total <= len(shown):
        answer = frame(
            ctx,
            "f9",
            (
                f"{city} {gu}에 등록된 {korean.josa(kind, '은')} {total}곳이에요. {listing}.",
                f"관광 안내에 올라 있는 {city} {gu} {korean.josa(kind, '은')} 모두 {total}곳이고, 주소와 함께 보면 "
                f"{listing}.",
                f"{listing}. 이렇게 {total}곳이 {city} {gu}에 등록된 {korean.josa(kind, '이에요')}.",
            ),
        )
    else:
        answer = frame(
            ctx,
            "f10",
            (
                f"{city} {gu}에 등록된 {korean.josa(kind, '은')} {total}곳이에요. 다 적기엔 많아서 이름순으로 앞의 "
                f"{len(shown)}곳만 주소와 함께 적으면 이래요: {listing}.",
                f"{city} {gu}에는 {korean.josa(kind, '이')} {total}곳 등록돼 있어요. 이름 가나다순으로 {len(shown)}곳만 "
                f"추리면 다음과 같아요: {listing}.",
                f"모두 {total}곳이라 한 번에 다 적기는 어렵고, 이름순으로 처음 {len(shown)}곳은 {particle(listing, '이에요')}. "
                f"나머지 {total - len(shown)}곳도 필요하면 이어서 알려드릴게요.",
                f"{city} {gu} {kind} 목록은 {total}곳이에요. 그중 이름순 {len(shown)}곳을 주소와 함께 보여드리면 "
                f"{listing}.",
            ),
        )
    return Outcome({"gu": gu, "city": city, "kind": kind}, answer, f"{total}곳")


# --- Real estate -----------------------------------------------------------------------------------------


def trade_line(r: Mapping) -> str:
    return f"{r['aptNm']} {r['excluUseAr']}㎡ {floor(r['floor'])} {korean.manwon(r['dealAmount'])}({int(r['dealMonth'])}/{int(r['dealDay'])})"


async def apt_trades_in_dong(ctx: Ctx) -> Outcome:
    sido, gu, city = pick_district(ctx)
    ym, month = last_month(now(ctx))
    region, own = await district(ctx, sido, gu)
    trades = await ctx.call(
        "get_rtms_data_svc_apt_trade", {"DEAL_YMD": ym}, feed=[(REGION_TRADES, region, own)], all_pages=True, reuse=True
    )
    dongs = sorted({str(r.get("umdNm", "")).strip() for r in trades.records} - {""})
    dong = ctx.spread("dong", dongs)
    ctx.name(gu)
    ctx.name(dong)
    ctx.name(f"{month}월", str(month))
    rows = [r for r in trades.records if str(r.get("umdNm", "")).strip() == dong and number(r.get("dealAmount"))]
    rows.sort(key=lambda r: -number(r["dealAmount"]))
    ctx.condition(trades, field="umdNm", op="==", value=dong, source="user", kept=len(rows), of=len(trades.records))
    ctx.derived(trades, "count_where", f"umdNm={dong}", len(rows))
    shown, total = ctx.show(rows, result=trades, criterion="dealAmount desc")
    for r in shown:
        ctx.answer(trades, "aptNm", r["aptNm"])
        ctx.answer(trades, "dealAmount", r["dealAmount"], shown=korean.manwon(r["dealAmount"]))
    ctx.asked("최고가", korean.manwon(rows[0]["dealAmount"]))
    lines = "; ".join(trade_line(r) for r in shown)
    head = frame(
        ctx,
        "f11",
        (
            f"{month}월 {gu} {dong} 아파트 매매는 {total}건이에요.",
            f"{gu} {dong}에서 {month}월에 신고된 아파트 매매는 모두 {total}건이에요.",
        ),
    )
    low = min(number(r["dealAmount"]) for r in rows)
    spread = (
        f" 가격은 {korean.manwon(rows[-1]['dealAmount'])}에서 {korean.manwon(rows[0]['dealAmount'])} 사이였어요."
        if total > 1 and low != number(rows[0]["dealAmount"])
        else ""
    )
    if total <= len(shown):
        tail = frame(
            ctx,
            "f12",
            (f" 비싼 순으로 {lines}.", f" 가격이 높은 거래부터 보면 {lines}.", f"{spread} 비싼 순으로 {lines}."),
        )
    else:
        tail = frame(
            ctx,
            "f13",
            (
                f" 비싼 순으로 상위 {len(shown)}건은 {lines}.",
                f"{spread} 그중 비싸게 팔린 {len(shown)}건을 보면 {lines}.",
                f" {total}건 중 가격이 높은 {len(shown)}건만 추리면 {lines}.",
            ),
        )
    return Outcome(
        {"gu": gu, "dong": dong, "month": month, "city": city},
        head + tail,
        f"{total}건, 최고 {korean.manwon(rows[0]['dealAmount'])}",
    )


async def compare_districts(ctx: Ctx) -> Outcome:
    seoul = [d for d in entries("districts") if d[0] == "서울특별시"]
    first = ctx.spread("district", seoul)
    second = ctx.spread("district", [d for d in seoul if d != first])
    ym, month = last_month(now(ctx))

    async def one(sido: str, gu: str):
        region, own = await district(ctx, sido, gu)
        trades = await ctx.call(
            "get_rtms_data_svc_apt_trade",
            {"DEAL_YMD": ym},
            feed=[(REGION_TRADES, region, own)],
            all_pages=True,
            junction=CMP,
            reuse=True,
        )
        priced = [r for r in trades.records if number(r.get("dealAmount"))]
        top = max(priced, key=lambda r: number(r["dealAmount"]))
        ctx.derived(trades, "count", "", len(trades.records))
        ctx.derived(trades, "max", "dealAmount", top["dealAmount"])
        ctx.answer(trades, "aptNm", top["aptNm"])
        return gu, trades, len(trades.records), top

    ctx.name(first[1])
    ctx.name(second[1])
    figures = await _all(one(first[0], first[1]), one(second[0], second[1]))  # two independent branches, at once
    ctx.name(f"{month}월", str(month))
    (g1, t1, n1, top1), (g2, t2, n2, top2) = figures
    ctx.compare(t2, metric="count", values=[n1, n2], winner=None if n1 == n2 else (0 if n1 > n2 else 1))
    ctx.asked("거래 건수", f"{n1}건")
    ctx.asked("거래 건수", f"{n2}건")
    ctx.asked("최고가", korean.manwon(top1["dealAmount"]))
    ctx.asked("최고가", korean.manwon(top2["dealAmount"]))
    price1, price2 = korean.manwon(top1["dealAmount"]), korean.manwon(top2["dealAmount"])
    second_top = f"{g2} {price2}({top2['aptNm']})"
    second_sale = f"{top2['aptNm']}({price2})"
    tops = frame(
        ctx,
        "f14",
        (
            f"최고가는 {g1} {top1['aptNm']} {price1}, {g2} {top2['aptNm']} {korean.josa(price2, '이에요')}.",
            f"가장 비싸게 팔린 건 {g1}에서는 {top1['aptNm']}({price1}), {g2}에서는 {particle(second_sale, '이에요')}.",
            f"구별 최고 거래가는 {g1} {price1}({top1['aptNm']}), {particle(second_top, '이에요')}.",
        ),
    )
    if n1 == n2:
        verdict = frame(
            ctx,
            "f15",
            (
                f"{month}월 아파트 매매 신고 건수는 두 구 모두 {n1}건으로 같았어요.",
                f"{month}월에는 {korean.josa(g1, '과')} {g2} 모두 아파트 매매가 {n1}건씩 신고돼 차이가 없었어요.",
            ),
        )
    else:
        (more, m), (less, l_) = ((g1, n1), (g2, n2)) if n1 > n2 else ((g2, n2), (g1, n1))
        verdict = frame(
            ctx,
            "f16",
            (
                f"{month}월 아파트 매매 신고 건수는 {korean.josa(more, '이')} {m}건으로 {less}({l_}건)보다 "
                f"{m - l_}건 많았어요.",
                f"{month}월에 아파트가 더 많이 팔린 쪽은 {more}예요. {m}건이 신고돼 {less}의 {l_}건보다 {m - l_}건 많아요.",
                f"거래가 더 활발했던 곳은 {korean.josa(more, '이에요')}. {month}월 매매 신고가 {more} {m}건, "
                f"{less} {l_}건이었어요.",
            ),
        )
    answer = f"{verdict} {tops}"
    return Outcome({"gu1": g1, "gu2": g2, "month": month}, answer, f"{g1} {n1}건, {g2} {n2}건")


async def jeonse_under_budget(ctx: Ctx) -> Outcome:
    sido, gu, city = pick_district(ctx)
    ym, month = last_month(now(ctx))
    region, own = await district(ctx, sido, gu)
    rents = await ctx.call(
        "get_rtms_data_svc_apt_rent", {"DEAL_YMD": ym}, feed=[(REGION_RENT, region, own)], all_pages=True, reuse=True
    )
    jeonse = [r for r in rents.records if number(r.get("monthlyRent")) == 0 and number(r.get("deposit"))]
    if len(jeonse) < 3:
        raise Discard("need.no_values", "too few 전세 contracts")
    deposits = sorted(number(r["deposit"]) for r in jeonse)
    budget = max(5000, int(deposits[len(deposits) // 4] // 5000 * 5000 + 5000))  # a round sum a user would name
    rows = sorted((r for r in jeonse if number(r["deposit"]) <= budget), key=lambda r: number(r["deposit"]))
    if not rows:
        raise Discard("need.no_values", "no contract under the budget")
    ctx.name(gu)
    ctx.name(korean.manwon(budget), korean.manwon(budget).replace(" 원", "원"))
    ctx.name(f"{month}월", str(month))
    ctx.condition(rents, field="deposit", op="<=", value=budget, source="user", kept=len(rows), of=len(jeonse))
    shown, total = ctx.show(rows, result=rents, criterion="deposit asc")
    for r in shown:
        ctx.answer(rents, "aptNm", r["aptNm"])
        ctx.answer(rents, "deposit", r["deposit"], shown=korean.manwon(r["deposit"]))
    ctx.asked("가장 싼 전세", korean.manwon(rows[0]["deposit"]))
    lines = "; ".join(
        f"{r['aptNm']} {r['excluUseAr']}㎡ {floor(r['floor'])} 보증금 {korean.manwon(r['deposit'])}" for r in shown
    )
    head = frame(
        ctx,
        "f17",
        (
            f"{month}월 {gu} 아파트 전세 계약 {len(jeonse)}건 중 보증금 {korean.manwon(budget)} 이하는 {total}건이에요.",
            f"{korean.manwon(budget)} 안으로 계약된 {gu} 아파트 전세는 {month}월에 {total}건 있었어요"
            f"(그달 전세 계약은 모두 {len(jeonse)}건).",
            f"{month}월 {gu}에서 보증금 {korean.manwon(budget)} 이하로 계약된 아파트 전세는 {total}건이에요.",
        ),
    )
    if total <= len(shown):
        tail = frame(ctx, "f18", (f" 싼 순으로 {lines}.", f" 보증금이 낮은 것부터 보면 {lines}."))
    else:
        tail = frame(
            ctx,
            "f19",
            (
                f" 싼 순으로 {len(shown)}건만 보면 {lines}.",
                f" 그중 보증금이 가장 낮은 {len(shown)}건은 {lines}.",
            ),
        )
    return Outcome({"gu": gu, "city": city, "month": month, "budget": korean.manwon(budget)}, head + tail, f"{total}건")


async def apt_building(ctx: Ctx) -> Outcome:
    sido, gu, city = pick_district(ctx, seoul_only=True)
    ym, _ = last_month(now(ctx))
    region, own = await district(ctx, sido, gu)
    # Every page of the month: "the latest sale" is a claim about all of the apartment's trades, not a page's.
    trades = await ctx.call(
        "get_rtms_data_svc_apt_trade_dev",
        {"DEAL_YMD": ym},
        feed=[(REGION_DEV, region, own)],
        all_pages=True,
        reuse=True,
    )
    names = sorted({(str(r.get("aptNm", "")).strip(), str(r.get("umdNm", "")).strip()) for r in trades.records})
    apt, dong = ctx.spread("apt", [n for n in names if n[0] and n[1]])
    mine = [
        r for r in trades.records if (str(r.get("aptNm", "")).strip(), str(r.get("umdNm", "")).strip()) == (apt, dong)
    ]
    latest = max(mine, key=lambda r: (int(r["dealMonth"]), int(r["dealDay"])))
    ctx.pick(trades, latest, criterion="named", field="aptNm", value=apt, among=[latest])
    ctx.name(gu)
    ctx.name(dong)
    ctx.name(apt)
    building = await ctx.call(
        "get_br_title_info",
        {},
        feed=[
            (REGION_BUILDING, region, own),
            (Bind.of("get_rtms_data_svc_apt_trade_dev", "umdCd", "get_br_title_info", "bjdongCd"), trades, latest),
            (Bind.of("get_rtms_data_svc_apt_trade_dev", "bonbun", "get_br_title_info", "bun"), trades, latest),
            (Bind.of("get_rtms_data_svc_apt_trade_dev", "bubun", "get_br_title_info", "ji"), trades, latest),
        ],
        all_pages=True,  # the answer counts the buildings (동) of the lot
        reuse=True,
    )
    if building.total > len(building.records):
        raise Discard("need.incomplete", f"{len(building.records)} of {building.total} buildings read")
    floors = [number(r.get("grndFlrCnt")) for r in building.records if number(r.get("grndFlrCnt"))]
    days = sorted({str(r.get("useAprDay", "")).strip() for r in building.records} - {""})
    if not floors or not days:
        raise Discard("need.no_value", "grndFlrCnt/useAprDay")
    tallest = max(building.records, key=lambda r: number(r.get("grndFlrCnt")) or 0)
    ctx.answer(building, "grndFlrCnt", tallest["grndFlrCnt"])
    ctx.answer(building, "useAprDay", days[0])
    ctx.answer(trades, "dealAmount", latest["dealAmount"], shown=korean.manwon(latest["dealAmount"]))
    ctx.asked("층수", f"{fmt(max(floors))}층")
    ctx.asked("사용승인", korean.ymd(days[0]), days[0][:4])
    ctx.asked("최근 매매가", korean.manwon(latest["dealAmount"]))
    day = days[0]
    approval = f"{day[:4]}년 {int(day[4:6])}월 {int(day[6:8])}일"
    dongs = len(building.records)
    recent = (
        f"최근 매매는 {int(latest['dealMonth'])}월 {int(latest['dealDay'])}일 {latest['excluUseAr']}㎡ "
        f"{floor(latest['floor'])}이 {korean.manwon(latest['dealAmount'])}에 거래됐어요."
    )
    tallest_floor = fmt(max(floors))
    answer = frame(
        ctx,
        "f20",
        (
            f"{gu} {dong} {korean.josa(apt, '은')} 건축물대장상 {dongs}개 동이고 가장 높은 동이 지상 {tallest_floor}층이에요. "
            f"사용승인일은 {approval}이에요. {recent}",
            f"{korean.josa(apt, '은')} {approval}에 사용승인이 난 단지로, 건축물대장에 {dongs}개 동이 올라 있고 최고 {tallest_floor}층이에요. "
            f"{recent}",
            f"{korean.josa(apt, '은')} 최고 지상 {tallest_floor}층, {dongs}개 동 규모이고 {approval}에 사용승인을 받았어요. "
            f"{recent}",
        ),
    )
    return Outcome({"gu": gu, "dong": dong, "apt": apt}, answer, f"지상 {fmt(max(floors))}층, {approval}")


async def dong_population(ctx: Ctx) -> Outcome:
    sido, gu, city = pick_district(ctx)
    found = await ctx.call("get_stan_regin_cd_list", {"locatadd_nm": f"{sido} {gu}"}, reuse=True)
    dongs = [
        r
        for r in found.records
        if str(r.get("umd_cd", "000")) != "000" and str(r.get("ri_cd", "00")) in ("00", "") and r.get("locallow_nm")
    ]
    record = ctx.spread("dong", dongs)
    dong = str(record["locallow_nm"]).strip()
    ctx.pick(found, record, criterion="named", field="locallow_nm")
    ctx.name(gu)
    ctx.name(dong)
    ym, _ = last_month(now(ctx))
    people = await ctx.call(
        "select_stdg_ppltn_hh_stus",
        {"lv": "3", "regSeCd": "1"},
        feed=[(Bind.of("get_stan_regin_cd_list", "region_cd", "select_stdg_ppltn_hh_stus", "stdgCd"), found, record)],
        derived=[
            ("srchFrYm", ym, "clock: the last complete month", None),
            ("srchToYm", ym, "clock: the last complete month", None),
        ],
        reuse=True,
    )
    row = max(people.records, key=lambda r: str(r.get("statsYm", "")))
    total, households = row.get("totNmprCnt"), row.get("hhCnt")
    if number(total) is None or number(households) is None:
        raise Discard("need.no_value", "totNmprCnt/hhCnt")
    ctx.answer(people, "totNmprCnt", total)
    ctx.answer(people, "hhCnt", households)
    ctx.asked("인구", f"{int(number(total)):,}명", total)
    ctx.asked("세대 수", f"{int(number(households)):,}세대", households)
    month = str(row.get("statsYm", ym))
    people_n, homes = f"{int(number(total)):,}명", f"{int(number(households)):,}세대"
    male, female = int(number(row.get("maleNmprCnt") or 0)), int(number(row.get("femlNmprCnt") or 0))
    when = f"{month[:4]}년 {int(month[4:6])}월 말"
    answer = frame(
        ctx,
        "f21",
        (
            f"{when} 주민등록 기준으로 {city} {gu} {dong} 인구는 {people_n}(남 {male:,}명, 여 {female:,}명), "
            f"세대 수는 {homes}예요. 세대당 {row.get('hhNmpr')}명꼴이에요.",
            f"{city} {gu} {korean.josa(dong, '은')} {when} 기준 {homes}에 {people_n}이 살고 있어요"
            f"(남 {male:,}명, 여 {female:,}명). 한 세대에 평균 {row.get('hhNmpr')}명이에요.",
            f"{when} 주민등록 통계로 {gu} {dong}에는 {people_n}, {homes}가 등록돼 있어요. 남자가 {male:,}명, "
            f"여자가 {female:,}명이에요.",
        ),
    )
    return Outcome({"gu": gu, "dong": dong, "city": city}, answer, f"{int(number(total)):,}명")


# --- Transport -------------------------------------------------------------------------------------------


def minutes_away(message: Any) -> float:
    """'3분후[2번째 전]' -> 3, '곧 도착' -> 0, '2분30초후' -> 2.5; messages without a time (운행종료) last."""
    text = str(message)
    if "곧 도착" in text:
        return 0.0
    match = re.match(r"\s*(?:(\d+)분)?\s*(?:(\d+)초)?\s*후", text)
    if not match or not (match.group(1) or match.group(2)):
        return 1e9
    return int(match.group(1) or 0) + int(match.group(2) or 0) / 60


def holiday_name(name: Any) -> str:
    """A holiday as people call it: the API names New Year's Day by its date ('1월1일'), which reads as '1월 1일은
    1월1일이에요'; it is 신정."""
    text = str(name).strip()
    return "신정(1월1일)" if text == "1월1일" else text


def arrival_text(message: Any) -> str:
    """'3분후[2번째 전]' -> '3분 후(2정류장 전)', '2분30초후[1번째 전]' -> '2분 30초 후(1정류장 전)'; others as they are."""
    text = str(message).strip()
    match = re.fullmatch(r"(?:(\d+)분)?(?:(\d+)초)?후\[(\d+)번째 전\]", text)
    if not match or not (match.group(1) or match.group(2)):
        return {"출발대기": "차고지에서 출발 대기 중", "운행종료": "오늘 운행 종료"}.get(text, text)
    minutes, seconds, stops = match.groups()
    when = " ".join(p for p in (minutes and f"{minutes}분", seconds and f"{seconds}초") if p)
    return f"{when} 후({stops}정류장 전)"


async def next_bus(ctx: Ctx) -> Outcome:
    """Next buses at the stop the user names; stops of one name (the two sides of a road) are each answered, with the
    next stop that tells their direction."""
    found, stops, label_, name = await stop_search(ctx, unique=False)
    if len(stops) > SIDES_AT_MOST:  # the search found more stops of the name than the scout did
        raise Discard("need.ambiguous", f"{len(stops)} stops named {label_}")
    boards = []
    for stop in stops:
        ctx.pick(found, stop, criterion="named", field="stNm", value=label_, among=[stop])
        arrivals = await ctx.call(
            "get_station_by_uid",
            {},
            feed=[(Bind.of("get_station_by_name", "arsId", "get_station_by_uid", "arsId"), found, stop)],
        )
        rows = [r for r in arrivals.records if r.get("rtNm") and r.get("arrmsg1")]
        if not rows:
            raise Discard("need.no_value", "no arrivals")
        rows.sort(key=lambda r: (minutes_away(r["arrmsg1"]), str(r["rtNm"])))
        shown, total = ctx.show(rows, result=arrivals, criterion="soonest arrival first")
        for r in shown:
            ctx.answer(arrivals, "rtNm", r["rtNm"])
            ctx.answer(arrivals, "arrmsg1", r["arrmsg1"], shown=arrival_text(r["arrmsg1"]))
        headings = {str(r.get("nxtStn") or "").strip() for r in rows} - {""}
        boards.append((stop, arrivals, headings, shown, total))
    ctx.asked("노선", str(boards[0][3][0]["rtNm"]))
    # Stops of one name are told apart by the next stop when every bus of a side goes on to the same one and the
    # sides differ; else by the number on the stop's sign (arsId), which is what tells them apart on the street.
    by_heading = (
        len(boards) > 1 and all(len(b[2]) == 1 for b in boards) and len({min(b[2]) for b in boards}) == len(boards)
    )
    sides = []
    for stop, arrivals, headings, shown, total in boards:
        if len(boards) == 1:
            sides.append(("", shown, total))
        elif by_heading:
            heading = ctx.answer(arrivals, "nxtStn", min(headings))
            sides.append((f"다음 정류장이 {korean.josa(heading, '인')} 쪽", shown, total))
        else:
            number_ = ctx.answer(found, "arsId", stop["arsId"])
            sides.append((f"정류소 번호 {number_}번", shown, total))

    def board(shown, total) -> str:
        lines = ", ".join(f"{r['rtNm']}번 {arrival_text(r['arrmsg1'])}" for r in shown)
        if total == 1:
            return f"{shown[0]['rtNm']}번 한 노선이고 {arrival_text(shown[0]['arrmsg1'])}"
        if total <= len(shown):
            return f"{total}개 노선이 빨리 오는 순으로 {lines}"
        return f"{total}개 노선 중 가장 빨리 오는 {len(shown)}개는 {lines}"

    if len(sides) == 1:
        _, shown, total = sides[0]
        said = korean.josa(board(shown, total), "이에요")
        answer = frame(ctx, "f22", (f"{name} 정류장에 서는 버스는 {said}.", f"지금 {name} 정류장 기준으로 {said}."))
    else:
        each = " ".join(
            f"{korean.josa(side, '은')} {korean.josa(board(shown, total), '이에요')}." for side, shown, total in sides
        )
        answer = f"{name} 정류장은 같은 이름으로 방향이 다른 {len(sides)}곳이 있어서 각각 알려드릴게요. {each}"
    short = ", ".join(f"{r['rtNm']}번 {arrival_text(r['arrmsg1'])}" for r in sides[0][1])
    return Outcome({"stop": name}, answer, short[:120])


def train_heading(line: str) -> str:
    """The API's train label as a rider reads it on the platform: '용두행 - 낙성대방면' → '용두행(낙성대 방면)'."""
    bound, _, via = (part.strip() for part in str(line).partition(" - "))
    if via.endswith("방면") and via != "방면":
        return f"{bound}({via[:-2]} 방면)"
    return str(line).strip()


_ARRIVAL_MESSAGES = {
    "진입": "지금 진입 중",
    "도착": "지금 도착",
    "출발": "방금 출발",
    "전역 진입": "전 역 진입 중",
    "전역 도착": "전 역 도착",
    "전역 출발": "전 역 출발",
}


def arrival_said(message: str, station: str) -> str:
    """The API's arrival message (arvlMsg2) in a sentence's words: '사당 도착' → '지금 도착', '4분 후 (동작)'
    → '4분 후(지금 동작)', '[5]번째 전역 (신대방)' → '5정거장 전(신대방)'; anything else as it came."""
    text = str(message).strip()
    if text.startswith(f"{station} "):
        text = text[len(station) + 1 :]
    if text in _ARRIVAL_MESSAGES:
        return _ARRIVAL_MESSAGES[text]
    if m := re.fullmatch(r"(\d+분(?:\s*\d+초)?\s*후)\s*\((.+)\)", text):
        return f"{m[1]}(지금 {m[2]})"
    if m := re.fullmatch(r"\[(\d+)\]번째 전역\s*\((.+)\)", text):
        return f"{m[1]}정거장 전({m[2]})"
    return text


async def subway_arrival(ctx: Ctx) -> Outcome:
    station = ctx.spread("station", entries("subway_stations"))
    ctx.name(station, f"{station}역")
    # Every page: the answer counts the trains, so none of them is left on a page not read.
    arrivals = await ctx.call("realtime_station_arrival", {"statnNm": station}, all_pages=True, page_size=10)
    rows = [r for r in arrivals.records if r.get("arvlMsg2") and r.get("trainLineNm")]
    if not rows:
        raise Discard("need.no_value", "no arrivals")
    if arrivals.total > len(arrivals.records):
        raise Discard("need.incomplete", f"{len(arrivals.records)} of {arrivals.total} arrivals read")
    # The next train of each direction (the API lists a direction's trains soonest first), with the count of all.
    first_of: dict[tuple[str, str], dict] = {}
    for r in sorted(rows, key=lambda r: number(r.get("barvlDt")) if number(r.get("barvlDt")) is not None else 1e9):
        first_of.setdefault((str(r.get("updnLine", "")), str(r["trainLineNm"])), r)
    firsts = list(first_of.values())
    shown, directions = ctx.show(firsts, result=arrivals, criterion="the first train of each direction (barvlDt)")

    def minutes(r: Mapping) -> str:
        """The minutes left to wait (barvlDt, seconds) when the message does not say them ('[3]번째 전역 (석계)')."""
        seconds = number(r.get("barvlDt"))
        if seconds is None or seconds < 60 or "분" in str(r["arvlMsg2"]):
            return ""
        return f"약 {max(1, round(seconds / 60))}분"

    def heading(r: Mapping) -> str:
        line = label("subway_lines", r.get("subwayId", ""))
        return f"{line} {train_heading(r['trainLineNm'])}" if line else train_heading(r["trainLineNm"])

    for r in shown:
        if label("subway_lines", r.get("subwayId", "")):
            ctx.answer(arrivals, "subwayId", r["subwayId"], decoded=label("subway_lines", r["subwayId"]))
        ctx.answer(arrivals, "trainLineNm", r["trainLineNm"], shown=train_heading(r["trainLineNm"]))
        ctx.answer(arrivals, "arvlMsg2", r["arvlMsg2"], shown=arrival_said(r["arvlMsg2"], station))
        if minutes(r):
            ctx.answer(arrivals, "barvlDt", r["barvlDt"], shown=minutes(r))
    ctx.asked("열차", train_heading(shown[0]["trainLineNm"]))
    lines = "; ".join(
        f"{heading(r)} {arrival_said(r['arvlMsg2'], station)}" + (f", {minutes(r)} 뒤" if minutes(r) else "")
        for r in shown
    )
    total = len(rows)
    if directions <= len(shown):
        answer = frame(
            ctx,
            "f23",
            (
                f"지금 {station}역으로 오고 있는 열차는 {total}편이에요. 방향마다 다음 열차는 {lines}.",
                f"{station}역 다음 열차를 방향별로 보면 {lines}. 도착 예정 열차는 모두 {total}편이에요.",
            ),
        )
    else:
        answer = (
            f"지금 {station}역으로 오고 있는 열차는 {total}편({directions}개 방향)이고, "
            f"그중 {len(shown)}개 방향의 다음 열차는 {lines}."
        )
    return Outcome({"station": station}, answer, lines[:120])


# --- Health ----------------------------------------------------------------------------------------------

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEKDAY_FIELDS = ("Mon", "Tue", "Wed", "Thu", "Fri")
DAY_NAMES = dict(zip(DAYS, "월화수목금토일", strict=True))


def weekday_hours(week: Sequence[tuple[str, Any, Any]]) -> tuple[str, str]:
    """How the weekdays' hours read: '평일 9:00부터 18:00까지 진료하고' when Monday to Friday agree, else each run of
    days with the same hours ('월·화·목·금 9:00~18:00, 수 9:00~13:00') and the days without hours ('휴진')."""
    spans: dict[str, list[str]] = {}
    for day, start, end in week:
        span = f"{korean.hhmm(start)}~{korean.hhmm(end)}" if start and end else "휴진"
        spans.setdefault(span, []).append(DAY_NAMES[day])
    if len(spans) == 1:
        (span,) = spans
        if span == "휴진":
            return "평일에는 진료하지 않고", "평일 휴진"
        start, end = span.split("~")
        return f"평일(월~금) {start}부터 {end}까지 진료하고", f"평일 {span}"
    parts = [f"{'·'.join(days)}요일 {span}" for span, days in spans.items()]
    return f"평일은 요일마다 달라서 {', '.join(parts)}이고", "; ".join(parts)


async def hospital_hours(ctx: Ctx) -> Outcome:
    dong, gu = ctx.spread("dong", entries("dongs"))
    # The user knows a clinic of the dong by name; the agent finds it through the list's own name filter.
    known = await ctx.scout("get_hosp_basis_list", {"emdongNm": dong, "numOfRows": "30"})
    names = sorted({str(r.get("yadmNm", "")).strip() for r in known if gu in str(r.get("addr", ""))} - {""})
    name = ctx.spread("hospital", names)
    found = await ctx.call("get_hosp_basis_list", {"yadmNm": name, "emdongNm": dong}, reuse=True)
    mine = [r for r in found.records if str(r.get("yadmNm", "")).strip() == name and gu in str(r.get("addr", ""))]
    if len(mine) != 1:
        raise Discard("need.ambiguous", f"{len(mine)} facilities named {name} in {gu} {dong}")
    record = mine[0]
    ctx.pick(found, record, criterion="named", field="yadmNm", among=mine)
    ctx.name(dong)
    ctx.name(name)
    detail = await ctx.call(
        "get_dtl_info2_7",
        {},
        feed=[(Bind.of("get_hosp_basis_list", "ykiho", "get_dtl_info2_7", "ykiho"), found, record)],
        reuse=True,
    )
    info = detail.records[0]
    # 평일 is Monday to Friday: every weekday's hours are read, and the answer says where they differ.
    week = [(day, info.get(f"trmt{day}Start"), info.get(f"trmt{day}End")) for day in WEEKDAY_FIELDS]
    open_days = [(day, s, e) for day, s, e in week if s and e]
    if not open_days:
        raise Discard("need.no_value", "weekday hours")
    for day, s, e in open_days:
        ctx.answer(detail, f"trmt{day}Start", s, shown=korean.hhmm(s))
        ctx.answer(detail, f"trmt{day}End", e, shown=korean.hhmm(e))
    weekday_text, weekday_short = weekday_hours(week)
    ctx.asked("평일 진료", korean.hhmm(open_days[0][1]))
    sat_start, sat_end = info.get("trmtSatStart"), info.get("trmtSatEnd")
    if sat_start and sat_end:
        ctx.answer(detail, "trmtSatStart", sat_start, shown=korean.hhmm(sat_start))
        ctx.asked("토요일", korean.hhmm(sat_end))
        saturday = f"토요일도 {korean.hhmm(sat_start)}부터 {korean.hhmm(sat_end)}까지 진료해요"
    else:
        ctx.asked("토요일", "진료하지 않아요")
        saturday = "토요일은 진료하지 않아요"
    lunch = str(info.get("lunchWeek") or "").strip()
    if lunch and lunch != "없음":
        ctx.answer(detail, "lunchWeek", lunch)
        lunch_text = f" 평일 점심시간은 {korean.josa(lunch, '이에요')}."
    else:
        lunch_text = " 평일 점심시간은 따로 없어요."
    ctx.asked("점심시간", lunch if lunch and lunch != "없음" else "따로 없어요")
    sunday = " 일요일은 휴진이에요." if str(info.get("noTrmtSun", "")).strip() == "휴진" else ""
    answer = frame(
        ctx,
        "f24",
        (
            f"{korean.josa(name, '은')} {weekday_text}, {saturday}.{lunch_text}{sunday}",
            f"안내된 진료 시간으로는 {korean.josa(name, '이')} {weekday_text}, {saturday}.{lunch_text}{sunday}",
            f"{dong} {name} 진료 시간은 {weekday_short}이고, {saturday}.{lunch_text}{sunday}",
        ),
    )
    return Outcome({"dong": dong, "hospital": name}, answer, weekday_short)


def open_at(record: Mapping, day: int, hhmm: int) -> tuple[bool, str, str]:
    start, end = record.get(f"dutyTime{day}s"), record.get(f"dutyTime{day}c")
    if start in (None, "") or end in (None, ""):
        return False, "", ""
    s, e = int(str(start).strip()), int(str(end).strip())
    return s <= hhmm < e, str(start).strip().zfill(4), str(end).strip().zfill(4)


def order_phrase(shown: Sequence[tuple[Mapping, str, str]], rows: Sequence[tuple[Mapping, str, str]]) -> str:
    """How the shown pharmacies were picked from `rows` (all of them, latest closing first): by closing time,
    or, when the latest closing time is shared by more than are shown, by name among those."""
    latest = rows[0][2]
    tied = sum(1 for _, _, e in rows if e == latest)
    if tied == len(rows):  # the head already said how many: not "22시까지 여는 곳이 67곳" a second time
        return f"모두 {korean.hhmm(latest)}까지 열어서 가나다순으로"
    if tied > len(shown):
        return f"가장 늦게 {korean.hhmm(latest)}까지 여는 곳이 {tied}곳이라, 그중 가나다순으로"
    return "늦게까지 여는 순으로"


def local_address(address: Any, gu: str) -> str:
    """'서울특별시 종로구 율곡로 10, 1층 (원서동)' -> '율곡로 10, 1층 (원서동)': the part after the district the user named."""
    text = str(address or "").strip()
    _, found, tail = text.partition(f"{gu} ")
    return tail.strip() if found and tail.strip() else text


def pharmacy_lines(rows: Sequence[tuple[Mapping, str, str]], gu: str) -> str:
    """Each pharmacy with where it is (the request asks where), its hours that day and its phone."""
    return "; ".join(
        f"{r['dutyName']}({local_address(r.get('dutyAddr'), gu)}, {korean.hhmm(s)}~{korean.hhmm(e)}, {r.get('dutyTel1', '')})"
        for r, s, e in rows
    )


def answer_pharmacies(ctx: Ctx, found: Result, shown: Sequence[tuple[Mapping, str, str]], gu: str) -> None:
    for r, _, _ in shown:
        ctx.answer(found, "dutyName", r["dutyName"])
        if r.get("dutyAddr"):
            ctx.answer(found, "dutyAddr", r["dutyAddr"], shown=local_address(r["dutyAddr"], gu))
    ctx.asked("약국", str(shown[0][0]["dutyName"]))
    if shown[0][0].get("dutyAddr"):
        ctx.asked("주소", local_address(shown[0][0]["dutyAddr"], gu))


async def pharmacies_open_now(ctx: Ctx) -> Outcome:
    """Pharmacies open today past an hour the user names (an hour at which the answer discriminates)."""
    sido, gu, city = pick_district(ctx)
    moment = now(ctx)
    day = moment.isoweekday()
    ctx.name(gu)
    found = await ctx.call(
        "get_parmacy_list_info_inqire",
        {"Q0": sido, "Q1": gu},
        derived=[("QT", str(day), "clock: today's weekday (1 월 … 7 일)", None)],
        all_pages=True,
        reuse=True,
    )
    hours = []
    for r in found.records:
        _, s, e = open_at(r, day, 0)
        if s and e:
            hours.append((r, s, e))
    options = [h for h in (2000, 2100, 2200, 2300) if 0 < sum(1 for _, _, e in hours if int(e) > h) < len(hours)]
    if not options:
        raise Discard("need.no_threshold", "every pharmacy closes at the same time")
    limit = ctx.choice(options)
    late = sorted(((r, s, e) for r, s, e in hours if int(e) > limit), key=lambda t: (-int(t[2]), str(t[0]["dutyName"])))
    spoken = f"밤 {limit // 100 - 12}시"
    ctx.name(spoken, f"{limit // 100}시", f"{limit // 100 - 12}시")
    ctx.condition(found, field=f"dutyTime{day}c", op=">", value=limit, source="user", kept=len(late), of=len(hours))
    shown, total = ctx.show(late, result=found, criterion="latest closing first")
    answer_pharmacies(ctx, found, shown, gu)
    weekday = korean.WEEKDAYS[day - 1]
    head = frame(
        ctx,
        "f25",
        (
            f"오늘({weekday}요일) {gu} 약국 {len(hours)}곳 중 {spoken} 넘어서까지 여는 곳은 {total}곳이에요.",
            f"네, 오늘 {weekday}요일에 {gu}에서 {spoken} 이후에도 문을 여는 약국이 {total}곳 있어요"
            f"(오늘 영업하는 {len(hours)}곳 중).",
            f"{gu}에서 오늘 {korean.josa(spoken, '이')} 지나도 여는 약국은 {total}곳이에요. 오늘 문 여는 {len(hours)}곳 가운데서요.",
        ),
    )
    body = pharmacy_lines(shown, gu)
    if total <= len(shown):
        tail = frame(ctx, "f26", (f" {body}.", f" 늦게까지 하는 순서로 보면 {body}."))
    else:
        tail = f" {order_phrase(shown, late)} {len(shown)}곳만 보면 {body}."
    return Outcome({"gu": gu, "city": city, "hour": spoken}, head + tail, f"{total}곳")


async def holiday_pharmacy(ctx: Ctx) -> Outcome:
    sido, gu, city = pick_district(ctx)
    moment = now(ctx)
    # A month with public holidays in the coming year (the one people plan around), spread over the run's items.
    month = ctx.spread("month", [12, 1, 2, 3, 5, 6, 8, 9, 10])
    year = moment.year if month >= moment.month else moment.year + 1
    holidays = await ctx.call("get_rest_de_info", {"solYear": str(year), "solMonth": f"{month:02d}"}, reuse=True)
    if not any(str(r.get("isHoliday")) == "Y" for r in holidays.records):
        raise Discard("need.no_holiday", f"{year}-{month}")
    is_holiday = ctx.rng.random() < 0.6
    days = {str(r.get("locdate")): r for r in holidays.records if str(r.get("isHoliday")) == "Y"}
    if is_holiday:
        locdate = ctx.spread("date", sorted(days))
    else:  # a weekday next to a holiday, the day people wonder about (12월 24일, the day after 추석)
        near = set()
        for d in days:
            holiday = dt.date(int(d[:4]), int(d[4:6]), int(d[6:8]))
            near |= {holiday - dt.timedelta(days=1), holiday + dt.timedelta(days=1)}
        options = sorted(
            day.strftime("%Y%m%d") for day in near if day.strftime("%Y%m%d") not in days and day.isoweekday() <= 5
        )
        if not options:
            raise Discard("need.no_choice", "no weekday next to a holiday")
        locdate = ctx.spread("date", options)
    date = dt.date(int(locdate[:4]), int(locdate[4:6]), int(locdate[6:8]))
    spoken = f"{date.month}월 {date.day}일"
    ctx.name(spoken, f"{date.month}/{date.day}")
    ctx.name(gu)
    qt = "8" if locdate in days else str(date.isoweekday())
    ctx.condition(
        holidays, field="locdate", op="in", value=locdate, source="user", kept=int(locdate in days), of=len(days)
    )
    found = await ctx.call(
        "get_parmacy_list_info_inqire",
        {"Q0": sido, "Q1": gu},
        derived=[
            (
                "QT",
                qt,
                "8 when the date is a public holiday in the holiday list, else its weekday (1 월 … 7 일)",
                holidays,
            )
        ],
        all_pages=True,
        reuse=True,
    )
    day = int(qt)
    rows = []
    for r in found.records:
        s, e = r.get(f"dutyTime{day}s"), r.get(f"dutyTime{day}c")
        if s not in (None, "") and e not in (None, ""):
            rows.append((r, str(s).zfill(4), str(e).zfill(4)))
    if not rows:
        raise Discard("need.no_values", "no pharmacy open that day")
    rows.sort(key=lambda t: (-int(t[2]), str(t[0]["dutyName"])))
    shown, total = ctx.show(rows, result=found, criterion="latest closing first")
    answer_pharmacies(ctx, found, shown, gu)
    if locdate in days:
        ctx.answer(holidays, "dateName", days[locdate]["dateName"])
        holiday = holiday_name(days[locdate]["dateName"])
        head = frame(
            ctx,
            "f27",
            (
                f"{spoken}({korean.WEEKDAYS[date.weekday()]}요일)은 공휴일({holiday})이 맞아요. "
                f"그날 {gu}에서 문을 여는 약국은 {total}곳이에요.",
                f"네, {spoken}은 {korean.josa(holiday, '이에요')}. 쉬는 날이지만 {gu}에서 그날 여는 약국이 "
                f"{total}곳 있어요.",
            ),
        )
    else:
        names = ", ".join(f"{korean.ymd(d)} {holiday_name(days[d]['dateName'])}" for d in sorted(days))
        for d in sorted(days):
            ctx.answer(holidays, "dateName", days[d]["dateName"])
        head = (
            f"{spoken}({korean.WEEKDAYS[date.weekday()]}요일)은 공휴일이 아니에요(그달 공휴일은 {names}). "
            f"평소 {korean.WEEKDAYS[date.weekday()]}요일처럼 {gu}에서 문을 여는 약국은 {total}곳이에요."
        )
    body = pharmacy_lines(shown, gu)
    tail = f" {body}." if total <= len(shown) else f" {order_phrase(shown, rows)} {len(shown)}곳만 보면 {body}."
    return Outcome({"date": spoken, "gu": gu, "city": city}, head + tail, f"{total}곳")


async def weekday_holidays(ctx: Ctx) -> Outcome:
    year = now(ctx).year + ctx.choice([0, 1])
    ctx.name(f"{year}", f"{year}년")
    found = await ctx.call("get_rest_de_info", {"solYear": str(year), "numOfRows": "50"}, reuse=True)
    rows = []
    for r in found.records:
        text = str(r.get("locdate", ""))
        if str(r.get("isHoliday")) != "Y" or len(text) != 8:
            continue
        date = dt.date(int(text[:4]), int(text[4:6]), int(text[6:8]))
        if date.isoweekday() <= 5:
            rows.append((date, r))
    if not rows:
        raise Discard("need.no_values", "no weekday holiday")
    rows.sort(key=lambda t: t[0])
    ctx.condition(
        found, field="locdate", op="weekday", value="월-금", source="user", kept=len(rows), of=len(found.records)
    )
    ctx.listed(found, total=len(rows), shown=len(rows), criterion="date order")
    for _, r in rows:
        ctx.answer(found, "dateName", r["dateName"])
    ctx.asked("공휴일", str(rows[0][1]["dateName"]))
    lines = ", ".join(
        f"{d.month}/{d.day}({korean.WEEKDAYS[d.weekday()]}) {holiday_name(r['dateName'])}" for d, r in rows
    )
    answer = frame(
        ctx,
        "f28",
        (
            f"{year}년 공휴일 {len(found.records)}일 중 평일에 있는 날은 {len(rows)}일이에요: {lines}.",
            f"{year}년에 월요일부터 금요일 사이에 걸린 공휴일은 {len(rows)}일이에요(전체 공휴일 {len(found.records)}일). "
            f"날짜순으로 {lines}.",
            f"주말과 겹치지 않는 {year}년 공휴일은 {lines}, 이렇게 {len(rows)}일이에요. 그해 공휴일은 모두 "
            f"{len(found.records)}일이고요.",
        ),
    )
    return Outcome({"year": year}, answer, f"{len(rows)}일")


async def drug_info(ctx: Ctx) -> Outcome:
    drug = ctx.choice(entries("drugs"))
    ctx.name(drug)
    found = await ctx.call("get_drb_easy_drug_list", {"itemName": drug}, reuse=True)
    shown, total = ctx.show(found.records, result=found, criterion="every product of that name")
    parts = []
    for r in shown:
        efficacy, usage = korean.first_sentence(r.get("efcyQesitm")), korean.first_sentence(r.get("useMethodQesitm"))
        efficacy, usage = efficacy.rstrip("."), usage.rstrip(".")  # quoted before '라고': no full stop inside
        if not efficacy or not usage:
            raise Discard("need.no_value", "efcy/useMethod")
        ctx.answer(found, "itemName", r["itemName"])
        item = str(r["itemName"])
        parts.append(
            frame(
                ctx,
                "f29",
                (
                    f"{korean.josa(item, '은')} {r['entpName']} 제품이에요. 효능은 '{efficacy}'라고 돼 있고, "
                    f"먹는 법은 '{usage}'라고 안내돼 있어요.",
                    f"{r['entpName']}에서 만드는 {item} 설명서에는 '{efficacy}'라고 나와 있고, 복용법은 '{usage}'라고 "
                    "돼 있어요.",
                ),
            )
        )
    ctx.asked("효능", str(shown[0]["itemName"]))
    head = (
        frame(ctx, "f30", (f"'{drug}' 제품은 {total}가지예요. ", f"찾아보니 '{drug}' 제품이 {total}가지 있어요. "))
        if total > 1
        else ""
    )
    return Outcome({"drug": drug}, head + " ".join(parts), str(shown[0]["itemName"]))


async def subscription_types(ctx: Ctx) -> Outcome:
    found, record, region, house = await subscription_notice(ctx)
    models = await ctx.call(
        "get_apt_lttot_pblanc_mdl",
        {},
        feed=[
            (
                Bind.of(
                    "get_apt_lttot_pblanc_detail",
                    "HOUSE_MANAGE_NO",
                    "get_apt_lttot_pblanc_mdl",
                    "cond[HOUSE_MANAGE_NO::EQ]",
                ),
                found,
                record,
            ),
            (
                Bind.of("get_apt_lttot_pblanc_detail", "PBLANC_NO", "get_apt_lttot_pblanc_mdl", "cond[PBLANC_NO::EQ]"),
                found,
                record,
            ),
        ],
        reuse=True,
    )
    rows = [r for r in models.records if r.get("HOUSE_TY") and number(r.get("LTTOT_TOP_AMOUNT"))]
    if not rows:
        raise Discard("need.no_value", "no house types")
    shown, total = ctx.show(rows, result=models, criterion="every house type")
    for r in shown:
        ctx.answer(models, "HOUSE_TY", r["HOUSE_TY"], shown=house_type(r["HOUSE_TY"]))
        ctx.answer(models, "LTTOT_TOP_AMOUNT", r["LTTOT_TOP_AMOUNT"], shown=korean.manwon(r["LTTOT_TOP_AMOUNT"]))
    ctx.asked("분양가", korean.manwon(shown[0]["LTTOT_TOP_AMOUNT"]))

    def units(r: Mapping) -> str:
        general, special = number(r.get("SUPLY_HSHLDCO")), number(r.get("SPSPLY_HSHLDCO"))
        if general is None:
            return "세대 수 미공개"
        if not special:
            return f"{int(general):,}세대"
        return f"{int(general + special):,}세대(일반 {int(general):,}, 특별 {int(special):,})"

    for r in shown:
        for field in ("SUPLY_HSHLDCO", "SPSPLY_HSHLDCO"):
            if r.get(field) not in (None, ""):
                ctx.answer(models, field, r[field])
    lines = "; ".join(
        f"{house_type(r['HOUSE_TY'])} {units(r)}, 최고 분양가 {korean.manwon(r['LTTOT_TOP_AMOUNT'])}" for r in shown
    )
    answer = frame(
        ctx,
        "f31",
        (
            f"{korean.josa(house, '은')} 주택형이 {total}개예요: {lines}.",
            f"{region} {house} 공급 내역을 주택형별로 보면 {lines}. 모두 {total}개 주택형이에요.",
            f"{house} 모집공고에 나온 주택형 {total}개는 {lines}.",
        ),
    )
    return Outcome({"region": region, "house": house}, answer, f"{total}개 주택형")


# --- Addresses (Juso): what a user knows of a building is its road address ----------------------------------

ADDRESS_COORD = tuple(
    Bind.of("addr_link_api", name, "addr_coord_api", name)
    for name in ("admCd", "rnMgtSn", "udrtYn", "buldMnnm", "buldSlno")
)
ADDRESS_BUILDING = (
    Bind.of("addr_link_api", "admCd", "get_br_title_info", "sigunguCd", "slice:0:5"),
    Bind.of("addr_link_api", "admCd", "get_br_title_info", "bjdongCd", "slice:5:10"),
    Bind.of("addr_link_api", "lnbrMnnm", "get_br_title_info", "bun", "zero_pad:4"),
    Bind.of("addr_link_api", "lnbrSlno", "get_br_title_info", "ji", "zero_pad:4"),
    Bind.of("addr_link_api", "mtYn", "get_br_title_info", "platGbCd"),
)
COORD_NCST = Bind.of("addr_coord_api", "entX,entY", "get_ultra_srt_ncst", "nx,ny", "project:utmk:kma")
COORD_HOSPITALS = Bind.of("addr_coord_api", "entX,entY", "get_hosp_basis_list", "xPos,yPos", "project:utmk:wgs84")


def spoken_address(full: str) -> str:
    """'서울특별시 관악구 봉천대로 123-15' -> '관악구 봉천대로 123-15': the way people type a Seoul address."""
    return re.sub(r"^서울특별시\s+", "", full.strip())


async def address(ctx: Ctx, *, named_building: bool = False) -> tuple[Result, dict, str, str]:
    """A road address the user knows (from a letter, a listing, a map); the agent searches Juso with it and keeps
    the one building whose road address is that address."""
    dong, gu = ctx.spread("address_dong", entries("dongs"))
    known = await ctx.scout("addr_link_api", {"keyword": f"{gu} {dong}", "countPerPage": "100"})
    counts = Counter(str(r.get("roadAddrPart1", "")).strip() for r in known)
    options = sorted(
        a
        for a, c in counts.items()
        if a
        and c == 1
        and (
            not named_building
            or any(str(r.get("bdNm", "")).strip() for r in known if str(r.get("roadAddrPart1", "")).strip() == a)
        )
    )
    full = ctx.spread("address", options)
    typed = spoken_address(full)
    found = await ctx.call("addr_link_api", {"keyword": typed, "countPerPage": "10"}, reuse=True)
    own = [r for r in found.records if str(r.get("roadAddrPart1", "")).strip() == full]
    if not own:
        raise Discard("need.no_address", typed)
    ctx.pick(found, own[0], criterion="named", field="roadAddrPart1", value=typed, among=own)
    ctx.name(typed, full)
    return found, own[0], typed, gu


async def weather_at_address(ctx: Ctx) -> Outcome:
    found, record, typed, gu = await address(ctx)
    coords = await ctx.call("addr_coord_api", {}, feed=[(b, found, record) for b in ADDRESS_COORD])
    base_date, base_time = ncst_base(now(ctx))
    obs = await ctx.call(
        "get_ultra_srt_ncst",
        {"numOfRows": "10"},
        feed=[(COORD_NCST, coords, coords.records[0])],
        derived=[
            ("base_date", base_date, "clock: today", None),
            ("base_time", base_time, "clock: the latest hour observed (HH:40 rule)", None),
        ],
    )
    by = {str(r.get("category")): r["obsrValue"] for r in obs.records}
    if not {"T1H", "PTY", "RN1", "REH", "WSD"} <= set(by):
        raise Discard("need.no_value", "T1H/PTY/RN1/REH/WSD missing")
    temp, pty, rain, humid, wind = by["T1H"], by["PTY"], by["RN1"], by["REH"], by["WSD"]
    pty_label = label("pty", pty) or str(pty)
    ctx.answer(obs, "obsrValue", temp)
    ctx.answer(obs, "obsrValue", pty, decoded=pty_label)
    ctx.answer(obs, "obsrValue", humid)
    ctx.answer(obs, "obsrValue", wind)
    ctx.asked("기온", f"{temp}℃", temp)
    ctx.asked("습도", f"{humid}%", humid)
    hour = int(base_time[:2])
    raining = str(pty).strip() != "0"
    if raining:
        ctx.answer(obs, "obsrValue", rain)
        sky = f"지금 {korean.josa(pty_label, '이')} 내리고 있어요(1시간 강수량 {rain}mm)"
    else:
        sky = frame(ctx, "f32", ("비나 눈은 오지 않고 있어요", "지금 내리는 비나 눈은 없어요"))
    answer = frame(
        ctx,
        "f33",
        (
            f"{typed} 일대는 {hour}시 관측으로 기온 {temp}℃, 습도 {humid}%, 바람 초속 {wind}m예요. {sky}.",
            f"{sky}. {hour}시에 관측한 {typed} 쪽 기온은 {temp}℃이고 습도 {humid}%, 바람은 초속 {wind}m로 불어요.",
            f"{hour}시 관측값으로 보면 {typed} 근처는 {temp}℃에 습도 {humid}%예요. 바람은 초속 {wind}m이고, {sky}.",
        ),
    )
    return Outcome({"address": typed, "gu": gu}, answer, f"{temp}℃, 습도 {humid}%, 강수 {pty_label}")


async def building_at_address(ctx: Ctx) -> Outcome:
    found, record, typed, gu = await address(ctx)
    building = await ctx.call(
        "get_br_title_info",
        {},
        feed=[(b, found, record) for b in ADDRESS_BUILDING],
        all_pages=True,
        reuse=True,
    )
    main = [r for r in building.records if str(r.get("mainAtchGbCdNm", "주건축물")).strip() == "주건축물"]
    floors = [number(r.get("grndFlrCnt")) for r in main if number(r.get("grndFlrCnt"))]
    days = sorted({str(r.get("useAprDay", "")).strip() for r in main} - {""})
    uses = Counter(str(r.get("mainPurpsCdNm") or "").strip() for r in main) - Counter({"": 10**6})
    if not floors or not days or not uses:
        raise Discard("need.no_value", "grndFlrCnt/useAprDay/mainPurpsCdNm")
    tallest = max(main, key=lambda r: number(r.get("grndFlrCnt")) or 0)
    use = uses.most_common(1)[0][0]
    ctx.answer(building, "grndFlrCnt", tallest["grndFlrCnt"])
    ctx.answer(building, "useAprDay", days[0], shown=korean.ymd(days[0]))
    ctx.answer(building, "mainPurpsCdNm", use)
    day = days[0]
    approval = f"{day[:4]}년 {int(day[4:6])}월 {int(day[6:8])}일"
    ctx.asked("층수", f"{fmt(max(floors))}층")
    ctx.asked("사용승인", approval, day[:4])
    ctx.asked("용도", use)
    under = max((number(r.get("ugrndFlrCnt")) or 0 for r in main), default=0)
    height = f"지상 {fmt(max(floors))}층" + (f", 지하 {fmt(under)}층" if under else "")
    name = str(tallest.get("bldNm") or "").strip()
    structure = str(tallest.get("strctCdNm") or "").strip()

    size = f"건물 {len(main)}개 동으로 이뤄져 있고 가장 높은 동이 {height}" if len(main) > 1 else f"{height} 건물"
    answer = frame(
        ctx,
        "f34",
        (
            f"건축물대장을 보면 {typed} 건물{f'({name})' if name else ''}은 주용도가 {korean.josa(use, '이에요')}. "
            f"{korean.josa(size, '이에요')}. 사용승인일은 {approval}이에요.",
            f"{typed}에 있는 건물은 주용도가 {use}, {size}이에요. {approval}에 사용승인이 났어요"
            + (f"(구조: {structure})." if structure else "."),
            f"{typed} 건물은 {approval}에 사용승인을 받았어요. 주용도는 {use}이고, {size}이에요.",
        ),
    )
    return Outcome({"address": typed, "gu": gu}, answer, f"{height}, {approval}")


HOSPITAL_KINDS = (("치과", "치과"), ("한의원", "한의원"), ("의원", "동네 의원"))


async def hospitals_near_address(ctx: Ctx) -> Outcome:
    found, record, typed, gu = await address(ctx)
    kind, said = ctx.spread("hospital_kind", HOSPITAL_KINDS)
    metres = ctx.spread("radius", (500, 1000))
    radius = f"{metres}m" if metres < 1000 else "1km"
    ctx.name(radius, f"{metres}m", f"{metres}미터", "1키로" if metres == 1000 else "")
    ctx.name(said, kind or "병원")
    coords = await ctx.call("addr_coord_api", {}, feed=[(b, found, record) for b in ADDRESS_COORD])
    near = await ctx.call(
        "get_hosp_basis_list",
        {"radius": str(metres), "numOfRows": "100"},
        feed=[(COORD_HOSPITALS, coords, coords.records[0])],
        all_pages=True,
    )

    def fits(r: Mapping) -> bool:
        cl = str(r.get("clCdNm") or "")
        if kind == "의원":
            return cl == "의원"
        return kind in cl

    rows = sorted(
        (r for r in near.records if fits(r) and number(r.get("distance")) is not None),
        key=lambda r: number(r["distance"]),
    )
    if not rows:
        raise Discard("need.no_values", f"no {kind or 'hospital'} within {metres}m")
    ctx.condition(near, field="clCdNm", op="contains", value=kind, source="user", kept=len(rows), of=len(near.records))
    shown, total = ctx.show(rows, result=near, criterion="distance asc (nearest first)")
    for r in shown:
        ctx.answer(near, "yadmNm", r["yadmNm"])
        ctx.answer(near, "distance", r["distance"], shown=f"{round(number(r['distance'])):,}m")
    ctx.asked("가장 가까운 곳", str(shown[0]["yadmNm"]).strip())
    ctx.asked("거리", f"{round(number(shown[0]['distance'])):,}m")

    def line(r: Mapping) -> str:
        tel = f", {r['telno']}" if r.get("telno") else ""
        return f"{str(r['yadmNm']).strip()}({r.get('clCdNm', '')}, 약 {round(number(r['distance'])):,}m{tel})"

    listing = "; ".join(line(r) for r in shown)
    first = shown[0]
    where = f"{typed} 반경 {radius} 안"
    if total == 1:
        answer = f"{where}에 있는 {korean.josa(said, '은')} 한 곳이에요: {listing}."
    elif total <= len(shown):
        answer = frame(
            ctx,
            "f35",
            (
                f"{where}에 {korean.josa(said, '이')} {total}곳 있어요. 가까운 순으로 {listing}.",
                f"가장 가까운 곳은 약 {round(number(first['distance'])):,}m 떨어진 {korean.josa(str(first['yadmNm']).strip(), '이에요')}. "
                f"{where}에는 모두 {total}곳이 있고, 가까운 순으로 {listing}.",
            ),
        )
    else:
        answer = frame(
            ctx,
            "f36",
            (
                f"{where}에 {korean.josa(said, '이')} {total}곳 있어요. 그중 가까운 {len(shown)}곳은 {listing}.",
                f"{where}에서 찾은 {said} {total}곳 가운데 가장 가까운 {len(shown)}곳만 거리순으로 적으면 {listing}.",
            ),
        )
    return Outcome({"address": typed, "gu": gu, "kind": said, "radius": radius}, answer, f"{total}곳")


# --- Buses outside Seoul (TAGO) -----------------------------------------------------------------------------

TAGO_STOP_ARRIVALS = Bind.of("get_sttn_no_list", "nodeid", "get_sttn_accto_arvl_prearnge_info_list", "nodeId")


async def tago_next_bus(ctx: Ctx) -> Outcome:
    """Next buses at a stop of a city outside Seoul: the city's code from the bus city list (by the name the user
    says), the stop by its name, then its arrivals."""
    cities, code, stops, stop, city, name = await tago_stop(ctx)
    arrivals = await ctx.call(
        "get_sttn_accto_arvl_prearnge_info_list",
        {"numOfRows": "100"},
        feed=[(TAGO_STOP_ARRIVALS, stops, stop)],
        derived=[("cityCode", code, TAGO_CITY_RULE, cities)],
    )
    soonest: dict[str, dict] = {}
    for r in sorted(arrivals.records, key=lambda r: number(r.get("arrtime")) or 1e9):
        if r.get("routeno") not in (None, "") and number(r.get("arrtime")) is not None:
            soonest.setdefault(str(r["routeno"]), r)
    rows = list(soonest.values())
    if not rows:
        raise Discard("need.no_value", "no arrivals")
    shown, total = ctx.show(rows, result=arrivals, criterion="each route's next bus, soonest first")

    def when(r: Mapping) -> str:
        seconds = number(r["arrtime"])
        minutes = "곧 도착" if seconds < 60 else f"약 {max(1, round(seconds / 60))}분 후"
        return f"{minutes}({r.get('arrprevstationcnt')}정류장 전)"

    for r in shown:
        ctx.answer(arrivals, "routeno", r["routeno"])
        ctx.answer(arrivals, "arrtime", r["arrtime"], shown=when(r))
    ctx.asked("노선", f"{shown[0]['routeno']}번")
    lines = ", ".join(f"{r['routeno']}번 {when(r)}" for r in shown)
    if total == 1:
        answer = (
            f"{city} {name} 정류장에는 지금 {shown[0]['routeno']}번 한 노선이 오고 있고, {when(shown[0])}에 도착해요."
        )
    else:
        cut = "" if total <= len(shown) else f" 그중 먼저 오는 {len(shown)}개 노선만 적으면"
        answer = frame(
            ctx,
            "f37",
            (
                f"{city} {name} 정류장에 오는 버스는 {total}개 노선이에요.{cut} 빨리 오는 순으로 {lines}.",
                f"지금 {city} {name} 정류장 기준으로 가장 먼저 오는 건 {shown[0]['routeno']}번이에요. "
                f"도착 예정 {total}개 노선을{cut or ''} 순서대로 보면 {lines}.",
            ),
        )
    return Outcome({"city": city, "stop": name}, answer, lines[:120])


async def tago_stop(ctx: Ctx) -> tuple[Result, str, Result, dict, str, str]:
    """A stop of a city outside Seoul by the name the user says; the city's bus code from the city list."""
    city, listed = ctx.spread("tago_city", entries("tago_cities"))
    word = ctx.spread("tago_word", entries("tago_stop_words"))
    cities = await ctx.call("get_cty_code_list", {"numOfRows": "200"}, reuse=True)
    own = [r for r in cities.records if str(r.get("cityname", "")).strip() == listed]
    if not own:
        raise Discard("need.no_city", listed)
    ctx.pick(cities, own[0], criterion="named", field="cityname", value=city, among=own)
    code = str(own[0]["citycode"])
    known = await ctx.scout("get_sttn_no_list", {"cityCode": code, "nodeNm": word, "numOfRows": "100"})
    counts = Counter(str(r.get("nodenm", "")).strip() for r in known)
    # A stop named after a whole city ('대전광역시청' in 세종's list) reads as a place elsewhere: not one a user names.
    names = sorted(n for n, c in counts.items() if n and c == 1 and len(n) <= 12 and not re.search(r"광역시|특별", n))
    stop = ctx.spread("tago_stop", names)
    ctx.name(spoken_stop(stop), stop)
    ctx.name(city)
    stops = await ctx.call(
        "get_sttn_no_list",
        {"nodeNm": stop, "numOfRows": "50"},
        derived=[("cityCode", code, TAGO_CITY_RULE, cities)],
        reuse=True,
    )
    mine = [r for r in stops.records if str(r.get("nodenm", "")).strip() == stop]
    if len(mine) != 1:
        raise Discard("need.ambiguous", f"{len(mine)} stops named {stop}")
    ctx.pick(stops, mine[0], criterion="named", field="nodenm", among=mine)
    return cities, code, stops, mine[0], city, spoken_stop(stop)


TAGO_CITY_RULE = "the city's code in the bus city list (cityname the city the user names)"
TAGO_STOP_ROUTES = Bind.of("get_sttn_no_list", "nodeid", "get_sttn_thrgh_route_list", "nodeid")


def route_number(r: Mapping) -> tuple:
    """'급행6' after 6, '53' before '200': routes in the order a stop's sign lists them."""
    text = str(r.get("routeno", ""))
    digits = re.findall(r"\d+", text)
    return (not text[:1].isdigit(), int(digits[0]) if digits else 0, text)


async def tago_routes_at_stop(ctx: Ctx) -> Outcome:
    cities, code, stops, stop, city, name = await tago_stop(ctx)
    routes = await ctx.call(
        "get_sttn_thrgh_route_list",
        {"numOfRows": "100"},
        feed=[(TAGO_STOP_ROUTES, stops, stop)],
        derived=[("cityCode", code, TAGO_CITY_RULE, cities)],
    )
    rows = sorted((r for r in routes.records if r.get("routeno") not in (None, "")), key=route_number)
    if not rows:
        raise Discard("need.no_value", "no routes")
    shown, total = ctx.show(rows, result=routes, criterion="route number order")
    for r in shown:
        ctx.answer(routes, "routeno", r["routeno"])
        if r.get("startnodenm") and r.get("endnodenm"):
            ctx.answer(routes, "endnodenm", r["endnodenm"])
    ctx.asked("노선", f"{shown[0]['routeno']}번")

    def line(r: Mapping) -> str:
        ends = f" {r['startnodenm']}↔{r['endnodenm']}" if r.get("startnodenm") and r.get("endnodenm") else ""
        kind = f"({r['routetp']})" if r.get("routetp") else ""
        return f"{r['routeno']}번{kind}{ends}"

    lines = "; ".join(line(r) for r in shown)  # a terminus may hold a comma ('가재마을9, 10단지')
    if total == 1:
        answer = f"{city} {name} 정류장을 지나는 버스는 {line(shown[0])} 한 노선이에요."
    elif total <= len(shown):
        answer = frame(
            ctx,
            "f38",
            (
                f"{city} {name} 정류장에 서는 버스는 {total}개 노선이에요. 번호순으로 {lines}.",
                f"{city} {name} 정류장을 지나는 노선은 모두 {total}개예요. {lines}.",
            ),
        )
    else:
        answer = (
            f"{city} {name} 정류장에 서는 버스는 {total}개 노선이에요. 번호순으로 앞의 {len(shown)}개만 적으면 {lines}."
        )
    return Outcome({"city": city, "stop": name}, answer, f"{total}개 노선")


# --- More of the region, rents and places -------------------------------------------------------------------

REGION_OFFI_RENT = Bind.of("get_stan_regin_cd_list", "region_cd", "get_rtms_data_svc_offi_rent", "LAWD_CD", "slice:0:5")
REGION_POPULATION = Bind.of("get_stan_regin_cd_list", "region_cd", "select_stdg_ppltn_hh_stus", "stdgCd")


async def officetel_monthly_rent(ctx: Ctx) -> Outcome:
    """Officetel 월세 contracts of last month in a district with a deposit the user can pay, cheapest rent first."""
    sido, gu, city = pick_district(ctx)
    ym, month = last_month(now(ctx))
    deposit = ctx.spread("deposit", (1000, 2000, 3000))
    region, own = await district(ctx, sido, gu)
    rents = await ctx.call(
        "get_rtms_data_svc_offi_rent",
        {"DEAL_YMD": ym},
        feed=[(REGION_OFFI_RENT, region, own)],
        all_pages=True,
        reuse=True,
    )
    monthly = [
        r for r in rents.records if (number(r.get("monthlyRent")) or 0) > 0 and number(r.get("deposit")) is not None
    ]
    rows = sorted(
        (r for r in monthly if number(r["deposit"]) <= deposit),
        key=lambda r: (number(r["monthlyRent"]), number(r["deposit"])),
    )
    if not rows or len(rows) == len(monthly):
        raise Discard("need.no_threshold", f"{len(rows)} of {len(monthly)} 월세 under {deposit}")
    spoken = korean.manwon(deposit)
    ctx.name(gu)
    ctx.name(spoken, spoken.replace(" 원", "원"))
    ctx.name(f"{month}월", str(month))
    ctx.condition(rents, field="deposit", op="<=", value=deposit, source="user", kept=len(rows), of=len(monthly))
    shown, total = ctx.show(rows, result=rents, criterion="monthlyRent asc")
    for r in shown:
        ctx.answer(rents, "offiNm", r["offiNm"])
        ctx.answer(rents, "monthlyRent", r["monthlyRent"], shown=f"월 {korean.manwon(r['monthlyRent'])}")
        ctx.answer(rents, "deposit", r["deposit"], shown=korean.manwon(r["deposit"]))
    ctx.asked("가장 싼 월세", korean.manwon(rows[0]["monthlyRent"]))
    lines = "; ".join(
        f"{r['offiNm']}({r.get('umdNm', '')}) {r['excluUseAr']}㎡ {floor(r['floor'])}, 보증금 {korean.manwon(r['deposit'])}에 "
        f"월 {korean.manwon(r['monthlyRent'])}"
        for r in shown
    )
    head = frame(
        ctx,
        "f39",
        (
            f"{month}월 {gu} 오피스텔 월세 계약 {len(monthly)}건 중 보증금이 {spoken} 이하인 건 {total}건이에요.",
            f"보증금 {spoken} 안으로 계약된 {gu} 오피스텔 월세는 {month}월에 {total}건 있었어요"
            f"(그달 월세 계약은 모두 {len(monthly)}건).",
        ),
    )
    if total <= len(shown):
        tail = f" 월세가 싼 순으로 {lines}."
    else:
        tail = frame(
            ctx,
            "f40",
            (
                f" 그중 월세가 가장 싼 {len(shown)}건은 {lines}.",
                f" 월세 싼 순으로 {len(shown)}건만 보면 {lines}.",
            ),
        )
    return Outcome(
        {"gu": gu, "city": city, "month": month, "deposit": spoken},
        head + tail,
        f"{total}건, 최저 월 {korean.manwon(rows[0]['monthlyRent'])}",
    )


async def compare_dong_population(ctx: Ctx) -> Outcome:
    """Two 동 of one district the user names: which has more people, and each one's households."""
    sido, gu, city = pick_district(ctx)
    found = await ctx.call("get_stan_regin_cd_list", {"locatadd_nm": f"{sido} {gu}"}, reuse=True)
    dongs = [
        r
        for r in found.records
        if str(r.get("umd_cd", "000")) != "000" and str(r.get("ri_cd", "00")) in ("00", "") and r.get("locallow_nm")
    ]
    if len(dongs) < 2:
        raise Discard("need.no_choice", f"{len(dongs)} 동 in {gu}")
    first = ctx.spread("dong_pair", dongs)
    second = ctx.choice([d for d in dongs if d is not first])
    ym, _ = last_month(now(ctx))
    ctx.name(gu)

    async def one(record: Mapping):
        name = str(record["locallow_nm"]).strip()
        ctx.pick(found, record, criterion="named", field="locallow_nm")
        ctx.name(name)
        people = await ctx.call(
            "select_stdg_ppltn_hh_stus",
            {"lv": "3", "regSeCd": "1"},
            feed=[(REGION_POPULATION, found, record)],
            derived=[
                ("srchFrYm", ym, "clock: the last complete month", None),
                ("srchToYm", ym, "clock: the last complete month", None),
            ],
            junction=CMP,
            reuse=True,
        )
        row = max(people.records, key=lambda r: str(r.get("statsYm", "")))
        if number(row.get("totNmprCnt")) is None or number(row.get("hhCnt")) is None:
            raise Discard("need.no_value", "totNmprCnt/hhCnt")
        ctx.answer(people, "totNmprCnt", row["totNmprCnt"])
        ctx.answer(people, "hhCnt", row["hhCnt"])
        return name, people, int(number(row["totNmprCnt"])), int(number(row["hhCnt"])), str(row.get("statsYm", ym))

    (d1, p1, n1, h1, when), (d2, p2, n2, h2, _) = await _all(one(first), one(second))
    ctx.compare(p2, metric="totNmprCnt", values=[n1, n2], winner=None if n1 == n2 else (0 if n1 > n2 else 1))
    for n, h in ((n1, h1), (n2, h2)):
        ctx.asked("인구", f"{n:,}명")
        ctx.asked("세대 수", f"{h:,}세대")
    month = f"{when[:4]}년 {int(when[4:6])}월 말"
    figures = f"{d1} {n1:,}명({h1:,}세대), {d2} {n2:,}명({h2:,}세대)"
    if n1 == n2:
        answer = f"{month} 주민등록 기준으로 두 동의 인구는 같아요: {figures}."
    else:
        (big, nb), (small, ns) = ((d1, n1), (d2, n2)) if n1 > n2 else ((d2, n2), (d1, n1))
        answer = frame(
            ctx,
            "f41",
            (
                f"{month} 주민등록 기준으로 {gu} {korean.josa(big, '이')} {nb - ns:,}명 더 많아요. {particle(figures, '이에요')}.",
                f"인구는 {korean.josa(big, '이')} 더 많아요. {month} 기준 {figures}로, {small}보다 {nb - ns:,}명 많아요.",
                f"{month} 주민등록 인구를 비교하면 {particle(figures, '이에요')}. {korean.josa(big, '이')} {nb - ns:,}명 더 많아요.",
            ),
        )
    return Outcome({"gu": gu, "city": city, "dong1": d1, "dong2": d2}, answer, f"{d1} {n1:,}명, {d2} {n2:,}명")


async def new_places_in_district(ctx: Ctx) -> Outcome:
    """The places of a kind most recently added to the tourism listings of a district (newest first: the listing is
    asked in that order, arrange D, and every page is read for the total)."""
    gu, city, kind, places = await district_places(ctx, arrange="D")
    rows = sorted(
        (r for r in places.records if str(r.get("title", "")).strip() and len(str(r.get("createdtime", ""))) >= 8),
        key=lambda r: (str(r["createdtime"]), str(r["title"])),
        reverse=True,
    )
    if len(rows) < 3:
        raise Discard("need.no_values", f"{len(rows)} places with a date")
    shown, total = ctx.show(rows, result=places, criterion="createdtime desc (arrange=D, newest listed first)")

    def listed(r: Mapping) -> str:
        t = str(r["createdtime"])
        return f"{t[:4]}년 {int(t[4:6])}월"

    for r in shown:
        ctx.answer(places, "title", r["title"])
        ctx.answer(places, "createdtime", r["createdtime"], shown=listed(r))
    ctx.asked(kind, str(shown[0]["title"]).strip())
    listing = ", ".join(
        f"{str(r['title']).strip()}({listed(r)} 등록, {local_address(r.get('addr1'), gu)})" for r in shown
    )
    if total <= len(shown):
        answer = f"{city} {gu}에 관광 정보로 올라 있는 {korean.josa(kind, '은')} {total}곳이고, 최근에 등록된 순으로 {listing}."
    else:
        answer = frame(
            ctx,
            "f42",
            (
                f"{city} {gu} {kind} {total}곳 가운데 관광 안내에 가장 최근 올라온 {len(shown)}곳은 {listing}.",
                f"관광 안내에 등록된 {city} {gu} {korean.josa(kind, '은')} {total}곳이에요. 새로 올라온 순으로 "
                f"{len(shown)}곳만 보면 {listing}.",
            ),
        )
    return Outcome({"gu": gu, "city": city, "kind": kind}, answer, f"{total}곳")


# --- Housing subscription: competition -----------------------------------------------------------------------


async def subscription_notice(ctx: Ctx) -> tuple[Result, dict, str, str]:
    """A complex the user knows by name (an ad, a news item), found among the region's notices by that name."""
    region = ctx.spread("region", entries("subscription_regions"))
    known = await ctx.scout("get_apt_lttot_pblanc_detail", {"cond[SUBSCRPT_AREA_CODE_NM::EQ]": region, "perPage": "20"})
    # A name whose last word is one syllable ('SK뷰 동') reads as cut off: not a complex a user would name.
    names = {str(r.get("HOUSE_NM", "")).strip() for r in known}
    label_ = ctx.spread(
        "house", sorted(n for n in names if n and not re.search(r"\s\S$", re.sub(r"\s*\([^)]*\)", "", n)))
    )
    house = re.sub(r"\s*\([^)]*\)", "", label_).strip() or label_  # '… 신혼희망타운(공공분양)' as people say it
    found = await ctx.call(
        "get_apt_lttot_pblanc_detail",
        {"cond[HOUSE_NM::LIKE]": house, "cond[SUBSCRPT_AREA_CODE_NM::EQ]": region, "perPage": "10"},
        reuse=True,
    )
    same = [r for r in found.records if re.sub(r"\s*\([^)]*\)", "", str(r.get("HOUSE_NM", ""))).strip() == house]
    if len(same) != 1:
        raise Discard("need.ambiguous", f"{len(same)} notices named {house}")
    ctx.pick(found, same[0], criterion="named", field="HOUSE_NM", value=label_, among=same)
    ctx.name(region)
    ctx.name(house, label_)
    return found, same[0], region, house


async def subscription_competition(ctx: Ctx) -> Outcome:
    found, record, region, house = await subscription_notice(ctx)
    rates = await ctx.call(
        "get_apt_lttot_pblanc_cmpet",
        {"perPage": "100"},
        feed=[
            (
                Bind.of(
                    "get_apt_lttot_pblanc_detail", "PBLANC_NO", "get_apt_lttot_pblanc_cmpet", "cond[PBLANC_NO::EQ]"
                ),
                found,
                record,
            )
        ],
    )
    # 1순위 해당지역: the row every house type has and the one people quote.
    rows = [
        r
        for r in rates.records
        if str(r.get("SUBSCRPT_RANK_CODE")) == "1"
        and str(r.get("RESIDE_SENM", "")).strip() == "해당지역"
        and r.get("HOUSE_TY")
    ]
    if len(rows) < 1:
        raise Discard("need.no_value", "no 1순위 해당지역 rows")
    ctx.condition(
        rates,
        field="SUBSCRPT_RANK_CODE,RESIDE_SENM",
        op="==",
        value="1,해당지역",
        source="domain:applyhome_first_rank",
        kept=len(rows),
        of=len(rates.records),
    )
    rows.sort(key=lambda r: -(number(r.get("CMPET_RATE")) or 0))
    top = rows[0]
    if number(top.get("CMPET_RATE")) is None:
        raise Discard("need.no_value", "no competition rate")
    ctx.pick(rates, top, criterion="max", field="CMPET_RATE")
    shown, total = ctx.show(rows, result=rates, criterion="CMPET_RATE desc")

    def rate(r: Mapping) -> str:
        value = number(r.get("CMPET_RATE"))
        if value is None:
            requests, supply = number(r.get("REQ_CNT")), number(r.get("SUPLY_HSHLDCO"))
            return "미달" if requests is not None and supply and requests < supply else "경쟁률 미공개"
        return f"{value:g} 대 1" + (" (미달)" if value < 1 else "")

    for r in shown:
        ctx.answer(rates, "HOUSE_TY", r["HOUSE_TY"], shown=house_type(r["HOUSE_TY"]))
        ctx.answer(rates, "CMPET_RATE", r["CMPET_RATE"], shown=rate(r))
        if r.get("REQ_CNT") not in (None, ""):
            ctx.answer(rates, "REQ_CNT", r["REQ_CNT"])
    ctx.asked("가장 높은 경쟁률", f"{number(top['CMPET_RATE']):g}", house_type(top["HOUSE_TY"]))
    lines = "; ".join(
        f"{house_type(r['HOUSE_TY'])} {rate(r)}(일반공급 {r.get('SUPLY_HSHLDCO')}세대, 해당지역 "
        f"{int(number(r.get('REQ_CNT')) or 0):,}명 접수)"
        for r in shown
    )
    # The rate is against the homes the 해당지역 is allotted, not every 일반공급 home: said once, so that 58 applicants
    # for 60 homes at 1.38 대 1 does not read as a contradiction.
    basis = " 경쟁률은 일반공급 중 해당지역에 배정된 물량 대비 접수 건수라, 전체 세대수로 나눈 값과는 달라요."
    head = frame(
        ctx,
        "f43",
        (
            f"{house} 1순위 해당지역 경쟁률은 {house_type(top['HOUSE_TY'])} 주택형이 {korean.josa(rate(top), '로')} 가장 높았어요.",
            f"{house}에서 1순위(해당지역) 경쟁이 가장 치열했던 주택형은 {house_type(top['HOUSE_TY'])}, "
            f"경쟁률 {korean.josa(rate(top), '이에요')}.",
        ),
    )
    tail = (
        f" 주택형 {total}개를 경쟁률 높은 순으로 보면 {lines}."
        if total <= len(shown)
        else f" 주택형 {total}개 중 경쟁률 높은 {len(shown)}개는 {lines}."
    )
    return Outcome(
        {"region": region, "house": house}, head + tail + basis, f"{house_type(top['HOUSE_TY'])} {rate(top)}"
    )


# --- National days (KASI) -----------------------------------------------------------------------------------


async def national_days(ctx: Ctx) -> Outcome:
    """Which national days of a year fall on a weekend, and whether a substitute holiday follows them."""
    year = now(ctx).year + ctx.choice([0, 1])
    ctx.name(f"{year}", f"{year}년")
    days = await ctx.call("get_holi_de_info", {"solYear": str(year), "numOfRows": "30"}, reuse=True)
    rest = await ctx.call("get_rest_de_info", {"solYear": str(year), "numOfRows": "50"}, reuse=True)
    rows = []
    for r in days.records:
        text = str(r.get("locdate", ""))
        if len(text) == 8:
            rows.append((dt.date(int(text[:4]), int(text[4:6]), int(text[6:8])), r))
    if len(rows) < 3:
        raise Discard("need.no_values", "too few national days")
    rows.sort(key=lambda t: t[0])
    weekend = [(d, r) for d, r in rows if d.isoweekday() >= 6]
    ctx.condition(days, field="locdate", op="weekday", value="토-일", source="user", kept=len(weekend), of=len(rows))
    ctx.listed(days, total=len(rows), shown=len(rows), criterion="date order")
    for _, r in rows:
        ctx.answer(days, "dateName", r["dateName"])
    # The substitute holiday a weekend national day brings ('대체공휴일(광복절)'), from the year's public holidays.
    names = {str(r["dateName"]).strip() for _, r in weekend}
    substitutes = {}
    for r in rest.records:
        match = re.fullmatch(r"대체공휴일\((.+)\)", str(r.get("dateName", "")).strip())
        if match and match.group(1) in names and str(r.get("isHoliday")) == "Y" and len(str(r.get("locdate"))) == 8:
            text = str(r["locdate"])
            substitutes[match.group(1)] = dt.date(int(text[:4]), int(text[4:6]), int(text[6:8]))
    ctx.asked("국경일", str(rows[0][1]["dateName"]))
    listing = ", ".join(f"{r['dateName']} {d.month}월 {d.day}일({korean.WEEKDAYS[d.weekday()]})" for d, r in rows)
    if weekend:
        said = ", ".join(f"{str(r['dateName'])}({korean.WEEKDAYS[d.weekday()]})" for d, r in weekend)
        tail = f" 주말과 겹치는 날은 {particle(said, '이에요')}."
        if substitutes:
            for name in substitutes:
                ctx.answer(rest, "dateName", f"대체공휴일({name})", shown=f"{name} 대체공휴일")
            subs = ", ".join(
                f"{name} 대체공휴일 {d.month}월 {d.day}일({korean.WEEKDAYS[d.weekday()]})"
                for name, d in substitutes.items()
            )
            tail += f" 그 대신 공휴일 목록에 {subs}이 잡혀 있어요."
        if len(substitutes) < len(weekend):
            left = [str(r["dateName"]) for _, r in weekend if str(r["dateName"]) not in substitutes]
            tail += f" {', '.join(left)}에는 대체공휴일이 따로 없어요."
    else:
        tail = " 주말과 겹치는 국경일은 하나도 없어요."
    head = frame(
        ctx,
        "f44",
        (
            f"{year}년 국경일은 {len(rows)}일이에요: {listing}.",
            f"{year}년 국경일 {len(rows)}일을 날짜순으로 보면 {listing}.",
        ),
    )
    return Outcome({"year": year}, head + tail, f"주말 {len(weekend)}일")


# --- Tourism: a place's contact details ---------------------------------------------------------------------


async def site_contact(ctx: Ctx) -> Outcome:
    sites, site, gu, title = await tourist_site(ctx, content_type=ctx.choice(["12", "14"]))
    common = await ctx.call(
        "detail_common2",
        dict(TOUR),
        feed=[(Bind.of("area_based_list2", "contentid", "detail_common2", "contentId"), sites, site)],
        reuse=True,
    )
    record = common.records[0]
    addr = str(record.get("addr1") or "").strip()
    home = korean.strip_html(record.get("homepage"))
    tel = str(record.get("tel") or "").strip()
    intro = korean.first_sentence(record.get("overview")).rstrip(".")
    if not addr or not intro:
        raise Discard("need.no_value", "addr1/overview empty")
    ctx.answer(common, "addr1", addr)
    ctx.answer(common, "overview", record.get("overview"), shown=intro)
    ctx.asked("주소", addr)
    parts = [f"주소는 {korean.josa(addr, '이에요')}."]
    if tel:
        ctx.answer(common, "tel", tel)
        parts.append(f"전화번호는 {korean.josa(tel, '이에요')}.")
    else:
        parts.append("전화번호는 안내돼 있지 않아요.")
    if home:
        ctx.answer(common, "homepage", record.get("homepage"), shown=home)
        parts.append(f"홈페이지는 {korean.josa(home, '이에요')}.")
    else:
        parts.append("홈페이지 정보는 없어요.")
    ctx.asked("연락처", tel or "안내돼 있지 않아요")
    answer = frame(
        ctx,
        "f45",
        (
            f"관광 안내에는 {title}에 대해 '{intro}'라고 소개돼 있어요. {' '.join(parts)}",
            f"{' '.join(parts)} 관광 안내에는 '{intro}'라고 소개돼 있어요.",
        ),
    )
    return Outcome({"gu": gu, "site": title}, answer, addr)


# --- The catalog -----------------------------------------------------------------------------------------

NEEDS: tuple[Need, ...] = (
    Need(
        "air_near_bus_stop",
        "air",
        SEQ,
        (
            Bind.of("get_station_by_name", "tmX,tmY", "get_nearby_msrstn_list", "tmX,tmY", "project:wgs84:tm"),
            NEARBY_REALTIME,
        ),
        air_near_bus_stop,
        length=3,
    ),
    Need(
        "air_in_dong",
        "air",
        SEQ,
        (TM_PAIR, NEARBY_REALTIME),
        air_in_dong,
        length=3,
    ),
    Need("air_worst_station", "air", DRV, (), air_worst_station, tools=("get_ctprvn_rltm_mesure_dnsty",), length=1),
    Need(
        "weather_now_at_stop",
        "weather",
        SEQ,
        (Bind.of("get_station_by_name", "tmX,tmY", "get_ultra_srt_ncst", "nx,ny", "project:wgs84:kma"),),
        weather_now_at_stop,
        length=2,
    ),
    Need(
        "rain_at_site",
        "weather",
        COND,
        (
            REGION_SIDO_TOUR,
            REGION_SGG_TOUR,
            Bind.of("area_based_list2", "mapx,mapy", "get_vilage_fcst", "nx,ny", "project:wgs84:kma"),
        ),
        rain_at_site,
        length=3,
    ),
    Need(
        "site_hours",
        "tourism",
        SEQ,
        (
            REGION_SIDO_TOUR,
            REGION_SGG_TOUR,
            Bind.of("area_based_list2", "contentid", "detail_intro2", "contentId"),
            Bind.of("area_based_list2", "contenttypeid", "detail_intro2", "contentTypeId"),
        ),
        site_hours,
        length=3,
    ),
    Need(
        "air_at_site",
        "air",
        SEQ,
        (
            REGION_SIDO_TOUR,
            REGION_SGG_TOUR,
            Bind.of("area_based_list2", "mapx,mapy", "get_nearby_msrstn_list", "tmX,tmY", "project:wgs84:tm"),
            NEARBY_REALTIME,
        ),
        air_at_site,
        length=4,
    ),
    Need("places_in_district", "tourism", SEQ, (REGION_SIDO_TOUR, REGION_SGG_TOUR), places_in_district, length=2),
    Need("apt_trades_in_dong", "real_estate", DRV, (REGION_TRADES,), apt_trades_in_dong, length=2),
    Need("compare_districts", "real_estate", CMP, (REGION_TRADES,), compare_districts, length=4),
    Need("jeonse_under_budget", "real_estate", DRV, (REGION_RENT,), jeonse_under_budget, length=2),
    Need(
        "apt_building",
        "real_estate",
        SEQ,
        (
            REGION_DEV,
            REGION_BUILDING,
            Bind.of("get_rtms_data_svc_apt_trade_dev", "umdCd", "get_br_title_info", "bjdongCd"),
            Bind.of("get_rtms_data_svc_apt_trade_dev", "bonbun", "get_br_title_info", "bun"),
            Bind.of("get_rtms_data_svc_apt_trade_dev", "bubun", "get_br_title_info", "ji"),
        ),
        apt_building,
        length=3,
    ),
    Need(
        "dong_population",
        "region",
        SEQ,
        (Bind.of("get_stan_regin_cd_list", "region_cd", "select_stdg_ppltn_hh_stus", "stdgCd"),),
        dong_population,
        length=2,
    ),
    Need(
        "next_bus",
        "transport",
        SEQ,
        (Bind.of("get_station_by_name", "arsId", "get_station_by_uid", "arsId"),),
        next_bus,
        length=2,
    ),
    Need("subway_arrival", "transport", SEQ, (), subway_arrival, tools=("realtime_station_arrival",), length=1),
    Need(
        "hospital_hours",
        "health",
        SEQ,
        (Bind.of("get_hosp_basis_list", "ykiho", "get_dtl_info2_7", "ykiho"),),
        hospital_hours,
        length=2,
    ),
    Need(
        "pharmacies_open_now",
        "health",
        DRV,
        (),
        pharmacies_open_now,
        tools=("get_parmacy_list_info_inqire",),
        length=1,
    ),
    Need(
        "holiday_pharmacy",
        "health",
        COND,
        (),
        holiday_pharmacy,
        tools=("get_rest_de_info", "get_parmacy_list_info_inqire"),
        length=2,
    ),
    Need("weekday_holidays", "calendar", DRV, (), weekday_holidays, tools=("get_rest_de_info",), length=1),
    Need("drug_info", "health", SEQ, (), drug_info, tools=("get_drb_easy_drug_list",), length=1, weight=0.5),
    Need(
        "weather_at_address",
        "weather",
        SEQ,
        (*ADDRESS_COORD, COORD_NCST),
        weather_at_address,
        length=3,
    ),
    Need("building_at_address", "real_estate", SEQ, ADDRESS_BUILDING, building_at_address, length=2),
    Need(
        "hospitals_near_address",
        "health",
        SEQ,
        (*ADDRESS_COORD, COORD_HOSPITALS),
        hospitals_near_address,
        length=3,
    ),
    Need(
        "tago_next_bus",
        "transport",
        SEQ,
        (TAGO_STOP_ARRIVALS,),
        tago_next_bus,
        tools=("get_cty_code_list",),
        length=3,
    ),
    Need(
        "subscription_competition",
        "housing",
        SEQ,
        (Bind.of("get_apt_lttot_pblanc_detail", "PBLANC_NO", "get_apt_lttot_pblanc_cmpet", "cond[PBLANC_NO::EQ]"),),
        subscription_competition,
        length=2,
    ),
    Need(
        "national_days",
        "calendar",
        DRV,
        (),
        national_days,
        tools=("get_holi_de_info", "get_rest_de_info"),
        length=2,
    ),
    Need(
        "site_contact",
        "tourism",
        SEQ,
        (REGION_SIDO_TOUR, REGION_SGG_TOUR, Bind.of("area_based_list2", "contentid", "detail_common2", "contentId")),
        site_contact,
        length=3,
    ),
    Need(
        "tago_routes_at_stop",
        "transport",
        SEQ,
        (TAGO_STOP_ROUTES,),
        tago_routes_at_stop,
        tools=("get_cty_code_list",),
        length=3,
    ),
    Need("officetel_monthly_rent", "real_estate", DRV, (REGION_OFFI_RENT,), officetel_monthly_rent, length=2),
    Need("compare_dong_population", "region", CMP, (REGION_POPULATION,), compare_dong_population, length=3),
    Need(
        "new_places_in_district", "tourism", DRV, (REGION_SIDO_TOUR, REGION_SGG_TOUR), new_places_in_district, length=2
    ),
    Need(
        "subscription_types",
        "housing",
        SEQ,
        (
            Bind.of(
                "get_apt_lttot_pblanc_detail",
                "HOUSE_MANAGE_NO",
                "get_apt_lttot_pblanc_mdl",
                "cond[HOUSE_MANAGE_NO::EQ]",
            ),
            Bind.of("get_apt_lttot_pblanc_detail", "PBLANC_NO", "get_apt_lttot_pblanc_mdl", "cond[PBLANC_NO::EQ]"),
        ),
        subscription_types,
        length=2,
    ),
)
