"""한국천문연구원 특일 정보 (SpcdeInfoService): public holidays (getRestDeInfo) and national days
(getHoliDeInfo) by year and month, from the real 2024–2027 KASI answers in seeds/holidays.csv."""

from __future__ import annotations

from functools import cache

from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.standard import StandardEnvelope
from apis.sandbox.errors import InvalidParam
from apis.sandbox.registry import Field, Param, Params
from apis.sandbox.world.seeds import read_csv

SPCDE = datagokr_service(
    id="SpcdeInfoService",
    org="B090041",
    base_path="/B090041/openapi/service/SpcdeInfoService",
    provider_ko="한국천문연구원",
    provider_en="Korea Astronomy and Space Science Institute (KASI)",
    title_ko="한국천문연구원_특일 정보",
    envelope=StandardEnvelope(json_switch=("_type", "json"), success_code="00", success_msg="NORMAL SERVICE."),
)

# 국경일 under the 국경일에 관한 법률; 제헌절 has been one all along but a day off again only from 2026.
NATIONAL_DAYS = {"0301": "삼일절", "0717": "제헌절", "0815": "광복절", "1003": "개천절", "1009": "한글날"}

_PARAMS = [
    Param("solYear", "연 (YYYY)", required=True, example="2026"),
    Param("solMonth", "월 (MM, 생략하면 연 전체)", example="09"),
]
_FIELDS = [
    Field("dateKind", "종류 (01 국경일·공휴일)", example="01"),
    Field("dateName", "명칭", example="추석"),
    Field("isHoliday", "공공기관 휴일여부 (Y/N)", example="Y"),
    Field("locdate", "날짜 (YYYYMMDD)", type="integer", example="20260924"),
    Field("seq", "순번", type="integer", example="1"),
]


@cache
def rest_days() -> tuple[dict, ...]:
    """Every rest day of seeds/holidays.csv as KASI writes the item (locdate and seq as numbers)."""
    return tuple(
        {
            "dateKind": row["dateKind"],
            "dateName": row["dateName"],
            "isHoliday": row["isHoliday"],
            "locdate": int(row["locdate"]),
            "seq": int(row["seq"] or 1),
        }
        for row in read_csv("holidays.csv")
    )


@cache
def national_days() -> tuple[dict, ...]:
    """The five 국경일 of each seeded year, a day off (Y) where the year's rest days list them."""
    off = {item["locdate"] for item in rest_days()}
    years = sorted({item["locdate"] // 10000 for item in rest_days()})
    return tuple(
        {
            "dateKind": "01",
            "dateName": name,
            "isHoliday": "Y" if int(f"{year}{monthday}") in off else "N",
            "locdate": int(f"{year}{monthday}"),
            "seq": 1,
        }
        for year in years
        for monthday, name in NATIONAL_DAYS.items()
    )


def _period(params: Params) -> tuple[int, int | None]:
    """(year, month or None); a year that is not 4 digits or a month outside 1–12 is 10."""
    year = int(params.digits("solYear", 4))
    if not params.present("solMonth"):
        return year, None
    month = params.digits("solMonth", (1, 2))
    if not 1 <= int(month) <= 12:
        raise InvalidParam("solMonth")
    return year, int(month)


def _in_period(items: tuple[dict, ...], year: int, month: int | None) -> list[dict]:
    return [
        dict(item)
        for item in items
        if item["locdate"] // 10000 == year and (month is None or item["locdate"] // 100 % 100 == month)
    ]


@SPCDE.operation(
    id="kasi_rest_de",
    path="/getRestDeInfo",
    summary_ko="공휴일 정보조회",
    summary_en="Public holidays (rest days) of a year or month",
    params=_PARAMS,
    fields=_FIELDS,
    example={"solYear": "2026", "solMonth": "09", "_type": "json"},
    notes="Real KASI items for 2024–2027 (substitute and election days included, names as KASI spells them); "
    "other years give empty items. A single result is an object, not a list, as live.",
)
def rest_de(ctx, params):
    year, month = _period(params)
    return _in_period(rest_days(), year, month)


@SPCDE.operation(
    id="kasi_holi_de",
    path="/getHoliDeInfo",
    summary_ko="국경일 정보조회",
    summary_en="National days (국경일) of a year or month",
    params=_PARAMS,
    fields=_FIELDS,
    example={"solYear": "2026", "solMonth": "10", "_type": "json"},
    notes="The five statutory 국경일 (삼일절, 제헌절, 광복절, 개천절, 한글날) with isHoliday from the rest-day "
    "table, so 제헌절 is N before 2026 and Y from 2026 (our reading; live may list more days).",
)
def holi_de(ctx, params):
    year, month = _period(params)
    return _in_period(national_days(), year, month)
