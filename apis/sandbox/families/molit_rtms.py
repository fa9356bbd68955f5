"""국토교통부 실거래가 (RTMS, 2024 generation, 1613000/RTMSDataSvc*): apartment, officetel and 연립다세대
trades and rents per 시군구 and contract month, drawn from the world's buildings.

Live traits kept: resultCode 000 / OK, XML only, fields in alphabetical order, amounts in 만원 with commas
and leading spaces, blank " " fields, cancelled deals (cdealType O) counted in totalCount, and the 30-day
reporting window: the latest months fill up as the sandbox clock moves on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.standard import StandardEnvelope
from apis.sandbox.errors import InvalidParam
from apis.sandbox.families._places import poisson
from apis.sandbox.rand import pick_weighted, rng
from apis.sandbox.registry import Field, LazyRecords, Param
from apis.sandbox.world import buildings, regions

RTMS_ENVELOPE = StandardEnvelope(json_switch=None, success_code="000", success_msg="OK")
FIRST_MONTH = {
    "apt_trade": "200601",
    "apt_rent": "201101",
    "offi_trade": "200601",
    "offi_rent": "201101",
    "rh_trade": "200601",
    "rh_rent": "201101",
}

# Market level by month (1.0 = late 2026), linear between anchors; Seoul swings harder than elsewhere.
_INDEX = [
    (2006, 1, 0.50),
    (2008, 6, 0.62),
    (2012, 12, 0.53),
    (2015, 1, 0.56),
    (2018, 1, 0.68),
    (2021, 10, 1.02),
    (2023, 1, 0.84),
    (2024, 6, 0.90),
    (2025, 6, 0.97),
    (2026, 11, 1.0),
    (2030, 12, 1.0),
]
# Deals per household per month, relative to a normal market.
_ACTIVITY = {
    2006: 1.3,
    2007: 1.0,
    2008: 0.8,
    2009: 0.9,
    2010: 0.7,
    2011: 0.8,
    2012: 0.6,
    2013: 0.8,
    2014: 1.0,
    2015: 1.2,
    2016: 1.1,
    2017: 1.1,
    2018: 1.0,
    2019: 0.9,
    2020: 1.2,
    2021: 0.8,
    2022: 0.35,
    2023: 0.55,
    2024: 0.75,
    2025: 0.85,
    2026: 0.9,
}
_RATE = {
    "apt_trade": 0.0028,
    "apt_rent": 0.0045,
    "offi_trade": 0.004,
    "offi_rent": 0.011,
    "rh_trade": 0.011,
    "rh_rent": 0.016,
}
_KIND_OF = {"apt": buildings.apartments_in, "offi": buildings.officetels_in, "rh": buildings.rowhouses_in}


def market_index(year: int, month: int, sido: str) -> float:
    t = year * 12 + month
    for (y0, m0, v0), (y1, m1, v1) in zip(_INDEX, _INDEX[1:], strict=False):
        a, b = y0 * 12 + m0, y1 * 12 + m1
        if a <= t <= b:
            level = v0 + (v1 - v0) * (t - a) / (b - a)
            break
    else:
        level = _INDEX[0][2]
    amplitude = 1.15 if sido == "11" else 0.8
    return 1 + (level - 1) * amplitude


@dataclass(frozen=True)
class Deal:
    building: buildings.Building
    contract: date
    reported: date  # deals appear once reported (up to 30 days after the contract)
    area: float
    floor: int
    amount: int  # 만원: price for trades, deposit for rents
    monthly: int  # 만원 monthly rent (0 = 전세)
    cancel: date | None
    registered: date | None
    direct: bool
    seller: str
    buyer: str
    agent_sgg: str
    renewal: bool
    used_right: bool
    term_months: int
    pre_amount: int
    pre_monthly: int
    apt_dong: str


def _parties(r) -> tuple[str, str]:
    options = [("개인", 0.9), ("법인", 0.05), ("공공기관", 0.01), ("기타", 0.04)]
    return pick_weighted(r, options), pick_weighted(r, options)


@lru_cache(maxsize=256)
def deals(kind: str, lawd_cd: str, year: int, month: int) -> tuple[Deal, ...]:
    """Every deal of one kind ("apt_trade" …) contracted in a 시군구 and month, before the clock filters them."""
    family, _, trade = kind.partition("_")
    days_in_month = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
    activity = _ACTIVITY.get(year, 0.9) * (0.8 if month in (1, 2) else 1.1 if month in (3, 4, 10) else 1.0)
    level = market_index(year, month, lawd_cd[:2])
    sgg_label = f"{regions.SIDO_SHORT.get(regions.region(lawd_cd + '00000').sido, '')} {regions.sigungu_name(lawd_cd)}"
    found: list[Deal] = []
    for b in _KIND_OF[family](lawd_cd):
        if b.build_year > year or (b.build_year == year and int(b.use_apr_day[4:6]) > month):
            continue
        key = b.apt_seq or f"{b.region_code}-{b.bun}-{b.ji}"
        r = rng("rtms", kind, key, year, month)
        for _ in range(poisson(r, b.households * _RATE[kind] * activity)):
            contract = date(year, month, r.randint(1, days_in_month))
            area = r.choice(b.unit_areas)
            floor = r.randint(1, b.grnd_flr) if r.random() > 0.01 else -1
            floor_factor = 0.93 if floor <= 2 else 1.0 + min(floor, 25) * 0.002
            age_factor = 1.0 - max(0, (2026 - b.build_year) - 5) * 0.002 if b.build_year < year else 1.05
            price = b.price_per_m2 * area * level * floor_factor * age_factor * r.uniform(0.92, 1.08)
            if family == "apt" and area < 50:
                price *= 1.12  # small units cost more per ㎡
            direct = r.random() < (0.12 if family == "apt" else 0.18)
            seller, buyer = _parties(r)
            cancel = contract + timedelta(days=r.randint(5, 70)) if trade == "trade" and r.random() < 0.035 else None
            registered = contract + timedelta(days=r.randint(30, 75)) if trade == "trade" and cancel is None else None
            monthly, amount = 0, int(round(price / 10)) * 10 if price > 10000 else int(round(price))
            renewal = used_right = False
            pre_amount = pre_monthly = 0
            if trade == "rent":
                jeonse = price * r.uniform(0.48, 0.62)
                if r.random() < 0.42:  # 월세: part of the deposit converted at about 5 % a year
                    deposit = jeonse * r.uniform(0.1, 0.5)
                    monthly = max(5, int(round((jeonse - deposit) * 0.05 / 12)))
                    amount = int(round(deposit / 100)) * 100 if deposit > 1000 else int(round(deposit / 10)) * 10
                else:
                    amount = int(round(jeonse / 500)) * 500
                renewal = r.random() < 0.3
                used_right = renewal and r.random() < 0.5
                if renewal:
                    pre_amount = int(amount / (1.05 if used_right else r.uniform(1.0, 1.2)) / 100) * 100
                    pre_monthly = int(monthly / 1.05) if monthly else 0
            found.append(
                Deal(
                    building=b,
                    contract=contract,
                    reported=contract + timedelta(days=r.randint(1, 30)),
                    area=area,
                    floor=floor,
                    amount=max(amount, 100),
                    monthly=monthly,
                    cancel=cancel,
                    registered=registered,
                    direct=direct,
                    seller=seller,
                    buyer=buyer,
                    agent_sgg="" if direct else sgg_label,
                    renewal=renewal,
                    used_right=used_right,
                    term_months=24,
                    pre_amount=pre_amount,
                    pre_monthly=pre_monthly,
                    apt_dong=r.choice(b.dong_names).removesuffix("동") if b.dong_names and r.random() < 0.6 else "",
                )
            )
    found.sort(key=lambda d: (d.building.region_code, d.building.bun, d.building.ji, d.contract, d.floor))
    return tuple(found)


@lru_cache(maxsize=1024)
def visible_deals(kind: str, lawd_cd: str, deal_ymd: str, today: date) -> tuple[Deal, ...]:
    """The deals the live API would list on the sandbox day: reported by then; future months empty."""
    year, month = int(deal_ymd[:4]), int(deal_ymd[4:])
    if lawd_cd not in regions.lawd_codes() or deal_ymd < FIRST_MONTH[kind]:
        return ()
    if date(year, month, 1) > today:
        return ()
    return tuple(d for d in deals(kind, lawd_cd, year, month) if d.reported <= today)


def _ymd(params) -> str:
    value = params.digits("DEAL_YMD", 6)
    if not 1 <= int(value[4:]) <= 12:
        raise InvalidParam("DEAL_YMD")
    return value


def amount_text(value: int) -> str:
    """ "  245,000": comma-grouped 만원, right-aligned in nine characters as the feed stores it."""
    return f"{value:,}".rjust(9)


def short_date(day: date | None, today: date) -> str:
    """ "24.08.20" when the event happened by the sandbox day, else a single space."""
    return day.strftime("%y.%m.%d") if day is not None and day <= today else " "


def _common(d: Deal, today: date) -> dict:
    b = d.building
    return {
        "sggCd": b.sigungu_cd,
        "umdNm": b.region.leaf_name if not b.region.ri else f"{b.region.eupmyeondong} {b.region.ri}",
        "jibun": b.jibun,
        "excluUseAr": f"{d.area:g}",
        "dealYear": str(d.contract.year),
        "dealMonth": str(d.contract.month),
        "dealDay": str(d.contract.day),
        "floor": str(d.floor),
        "buildYear": str(b.build_year),
    }


def _trade_extra(d: Deal, today: date) -> dict:
    cancelled = d.cancel is not None and d.cancel <= today
    return {
        "dealAmount": amount_text(d.amount),
        "cdealType": "O" if cancelled else " ",
        "cdealDay": short_date(d.cancel, today) if cancelled else " ",
        "dealingGbn": "직거래" if d.direct else "중개거래",
        "estateAgentSggNm": d.agent_sgg or " ",
        "slerGbn": d.seller,
        "buyerGbn": d.buyer,
    }


def _rent_extra(d: Deal, today: date) -> dict:
    end = date(d.contract.year + 2, d.contract.month, 1)
    return {
        "deposit": amount_text(d.amount),
        "monthlyRent": str(d.monthly),
        "contractTerm": f"{d.contract:%y.%m}~{end:%y.%m}",
        "contractType": "갱신" if d.renewal else "신규",
        "useRRRight": "사용" if d.used_right else " ",
        "preDeposit": f"{d.pre_amount:,}" if d.renewal else " ",
        "preMonthlyRent": str(d.pre_monthly) if d.renewal else " ",
    }


def _alphabetical(record: dict) -> dict:
    """The 2024 RTMS feed writes item fields in alphabetical order (see the official sample)."""
    return {k: record[k] for k in sorted(record)}


def apt_trade_record(d: Deal, today: date, *, detailed: bool) -> dict:
    b = d.building
    record = {
        **_common(d, today),
        **_trade_extra(d, today),
        "aptNm": b.name,
        "rgstDate": short_date(d.registered, today),
        "aptDong": d.apt_dong if d.registered and d.registered <= today and d.apt_dong else " ",
        "landLeaseholdGbn": "N",
    }
    if detailed:
        record.update(
            {
                "umdCd": b.bjdong_cd,
                "landCd": b.land_cd,
                "bonbun": b.bonbun,
                "bubun": b.bubun,
                "roadNm": b.road_name,
                "roadNmSggCd": b.road_code[:5],
                "roadNmCd": b.road_code[5:],
                "roadNmSeq": "01",
                "roadNmbCd": b.underground,
                "roadNmBonbun": f"{b.road_bonbun:05d}",
                "roadNmBubun": f"{b.road_bubun:05d}",
                "aptSeq": b.apt_seq,
            }
        )
    return _alphabetical(record)


COMMON_PARAMS = [
    Param("LAWD_CD", "지역코드 (법정동코드 앞 5자리, 시군구)", required=True, example="11680"),
    Param("DEAL_YMD", "계약년월 (YYYYMM)", required=True, example="202610"),
]
EXAMPLE = {"LAWD_CD": "11680", "DEAL_YMD": "202610", "pageNo": "1", "numOfRows": "10"}

BASE_FIELDS = [
    Field("sggCd", "법정동시군구코드", example="11680"),
    Field("umdNm", "법정동", example="역삼동"),
    Field("jibun", "지번", example="39"),
    Field("excluUseAr", "전용면적 (㎡)", example="84.97"),
    Field("dealYear", "계약년도", example="2026"),
    Field("dealMonth", "계약월", example="10"),
    Field("dealDay", "계약일", example="23"),
    Field("floor", "층", example="10"),
    Field("buildYear", "건축년도", example="2016"),
]
TRADE_FIELDS = [
    Field("dealAmount", "거래금액 (만원)", example="  245,000"),
    Field("cdealType", "해제여부 (O 해제)", example=" "),
    Field("cdealDay", "해제사유발생일 (YY.MM.DD)", example=" "),
    Field("dealingGbn", "거래유형 (중개거래/직거래)", example="중개거래"),
    Field("estateAgentSggNm", "중개사소재지 (시군구)", example="서울 강남구"),
    Field("slerGbn", "거래주체정보_매도자 (개인/법인/공공기관/기타)", example="개인"),
    Field("buyerGbn", "거래주체정보_매수자 (개인/법인/공공기관/기타)", example="개인"),
]
RENT_FIELDS = [
    Field("deposit", "보증금액 (만원)", example="   80,000"),
    Field("monthlyRent", "월세금액 (만원, 0은 전세)", example="0"),
    Field("contractTerm", "계약기간 (YY.MM~YY.MM)", example="26.10~28.10"),
    Field("contractType", "계약구분 (신규/갱신)", example="신규"),
    Field("useRRRight", "갱신요구권사용", example=" "),
    Field("preDeposit", "종전계약보증금 (만원)", example=" "),
    Field("preMonthlyRent", "종전계약월세 (만원)", example=" "),
]
APT_TRADE_FIELDS = [
    *BASE_FIELDS,
    Field("aptNm", "단지명", example="역삼금호어울림"),
    *TRADE_FIELDS,
    Field("rgstDate", "등기일자 (YY.MM.DD)", example=" "),
    Field("aptDong", "아파트 동명", example=" "),
    Field("landLeaseholdGbn", "토지임대부 아파트 여부 (Y/N)", example="N"),
]
DEV_FIELDS = [
    Field("umdCd", "법정동읍면동코드", example="10100"),
    Field("landCd", "법정동지번코드 (1 대지, 2 산)", example="1"),
    Field("bonbun", "법정동본번코드", example="0039"),
    Field("bubun", "법정동부번코드", example="0000"),
    Field("roadNm", "도로명", example="역삼로12길"),
    Field("roadNmSggCd", "도로명시군구코드", example="11680"),
    Field("roadNmCd", "도로명코드", example="3412345"),
    Field("roadNmSeq", "도로명일련번호코드", example="01"),
    Field("roadNmbCd", "도로명지상지하코드 (0 지상, 1 지하)", example="0"),
    Field("roadNmBonbun", "도로명건물본번호코드", example="00252"),
    Field("roadNmBubun", "도로명건물부번호코드", example="00000"),
    Field("aptSeq", "단지 일련번호", example="11680-1000"),
]


def _sorted_fields(fields: list[Field]) -> list[Field]:
    return sorted(fields, key=lambda f: f.name)


def _rtms_service(id: str, title: str):
    return datagokr_service(
        id=id,
        org="1613000",
        provider_ko="국토교통부",
        provider_en="Ministry of Land, Infrastructure and Transport (MOLIT)",
        title_ko=title,
        envelope=RTMS_ENVELOPE,
        schemes=("https", "http"),
    )


NOTES = (
    "Deals are synthetic but drawn from the sandbox's buildings (aptSeq, 지번 and 도로명 match the building "
    "register). A deal appears 1–30 days after its contract date, so the latest two months fill up as the "
    "sandbox clock advances; cancelled deals (cdealType O) stay in totalCount."
)

APT_TRADE = _rtms_service("RTMSDataSvcAptTrade", "국토교통부_아파트 매매 실거래가 자료")


@APT_TRADE.operation(
    id="molit_rtms_apt_trade",
    path="/getRTMSDataSvcAptTrade",
    summary_ko="아파트 매매 실거래가 자료 조회",
    summary_en="Apartment sale transactions",
    params=COMMON_PARAMS,
    fields=_sorted_fields(APT_TRADE_FIELDS),
    example=EXAMPLE,
    notes=NOTES,
)
def apt_trade(ctx, params):
    lawd, ymd, today = params.digits("LAWD_CD", 5), _ymd(params), ctx.now.date()
    return LazyRecords(
        visible_deals("apt_trade", lawd, ymd, today), lambda d: apt_trade_record(d, today, detailed=False)
    )


APT_TRADE_DEV = _rtms_service("RTMSDataSvcAptTradeDev", "국토교통부_아파트 매매 실거래가 상세 자료")


@APT_TRADE_DEV.operation(
    id="molit_rtms_apt_trade_dev",
    path="/getRTMSDataSvcAptTradeDev",
    summary_ko="아파트 매매 실거래가 상세 자료 조회",
    summary_en="Apartment sale transactions (detailed)",
    params=COMMON_PARAMS,
    fields=_sorted_fields(APT_TRADE_FIELDS + DEV_FIELDS),
    example=EXAMPLE,
    notes=NOTES,
)
def apt_trade_dev(ctx, params):
    lawd, ymd, today = params.digits("LAWD_CD", 5), _ymd(params), ctx.now.date()
    return LazyRecords(
        visible_deals("apt_trade", lawd, ymd, today), lambda d: apt_trade_record(d, today, detailed=True)
    )


APT_RENT = _rtms_service("RTMSDataSvcAptRent", "국토교통부_아파트 전월세 실거래가 자료")


@APT_RENT.operation(
    id="molit_rtms_apt_rent",
    path="/getRTMSDataSvcAptRent",
    summary_ko="아파트 전월세 실거래가 자료 조회",
    summary_en="Apartment jeonse and monthly-rent contracts",
    params=COMMON_PARAMS,
    fields=_sorted_fields([*BASE_FIELDS, Field("aptNm", "단지명", example="역삼금호어울림"), *RENT_FIELDS]),
    example=EXAMPLE,
    notes=NOTES,
)
def apt_rent(ctx, params):
    lawd, ymd, today = params.digits("LAWD_CD", 5), _ymd(params), ctx.now.date()
    return LazyRecords(
        visible_deals("apt_rent", lawd, ymd, today),
        lambda d: _alphabetical({**_common(d, today), "aptNm": d.building.name, **_rent_extra(d, today)}),
    )


OFFI_TRADE = _rtms_service("RTMSDataSvcOffiTrade", "국토교통부_오피스텔 매매 신고 자료")
OFFI_FIELDS = [
    *BASE_FIELDS,
    Field("sggNm", "시군구", example="강남구"),
    Field("offiNm", "단지명", example="역삼오피스텔"),
]


def _offi_base(d: Deal, today: date) -> dict:
    return {**_common(d, today), "sggNm": regions.sigungu_name(d.building.sigungu_cd), "offiNm": d.building.name}


@OFFI_TRADE.operation(
    id="molit_rtms_offi_trade",
    path="/getRTMSDataSvcOffiTrade",
    summary_ko="오피스텔 매매 신고 자료 조회",
    summary_en="Officetel sale transactions",
    params=COMMON_PARAMS,
    fields=_sorted_fields([*OFFI_FIELDS, *TRADE_FIELDS]),
    example={**EXAMPLE, "LAWD_CD": "11440"},
    notes=NOTES,
)
def offi_trade(ctx, params):
    lawd, ymd, today = params.digits("LAWD_CD", 5), _ymd(params), ctx.now.date()
    return LazyRecords(
        visible_deals("offi_trade", lawd, ymd, today),
        lambda d: _alphabetical({**_offi_base(d, today), **_trade_extra(d, today)}),
    )


OFFI_RENT = _rtms_service("RTMSDataSvcOffiRent", "국토교통부_오피스텔 전월세 신고 자료")


@OFFI_RENT.operation(
    id="molit_rtms_offi_rent",
    path="/getRTMSDataSvcOffiRent",
    summary_ko="오피스텔 전월세 신고 자료 조회",
    summary_en="Officetel jeonse and monthly-rent contracts",
    params=COMMON_PARAMS,
    fields=_sorted_fields([*OFFI_FIELDS, *RENT_FIELDS]),
    example={**EXAMPLE, "LAWD_CD": "11440"},
    notes=NOTES,
)
def offi_rent(ctx, params):
    lawd, ymd, today = params.digits("LAWD_CD", 5), _ymd(params), ctx.now.date()
    return LazyRecords(
        visible_deals("offi_rent", lawd, ymd, today),
        lambda d: _alphabetical({**_offi_base(d, today), **_rent_extra(d, today)}),
    )


RH_TRADE = _rtms_service("RTMSDataSvcRHTrade", "국토교통부_연립다세대 매매 실거래가 자료")
RH_FIELDS = [
    *BASE_FIELDS,
    Field("mhouseNm", "연립다세대명", example="역삼빌라"),
    Field("houseType", "주택유형 (연립/다세대)", example="다세대"),
]


def _rh_base(d: Deal, today: date) -> dict:
    return {**_common(d, today), "mhouseNm": d.building.name, "houseType": d.building.house_type}


@RH_TRADE.operation(
    id="molit_rtms_rh_trade",
    path="/getRTMSDataSvcRHTrade",
    summary_ko="연립다세대 매매 실거래가 자료 조회",
    summary_en="Row-house and multi-unit (연립·다세대) sale transactions",
    params=COMMON_PARAMS,
    fields=_sorted_fields(
        [
            *RH_FIELDS,
            Field("landAr", "대지권면적 (㎡)", example="21.5"),
            *TRADE_FIELDS,
            Field("rgstDate", "등기일자", example=" "),
        ]
    ),
    example={**EXAMPLE, "LAWD_CD": "11110"},
    notes=NOTES,
)
def rh_trade(ctx, params):
    lawd, ymd, today = params.digits("LAWD_CD", 5), _ymd(params), ctx.now.date()

    def build(d: Deal) -> dict:
        land = d.area * d.building.plat_area / max(d.building.tot_area, 1)
        record = {**_rh_base(d, today), **_trade_extra(d, today), "landAr": f"{land:.2f}"}
        record["rgstDate"] = short_date(d.registered, today)
        return _alphabetical(record)

    return LazyRecords(visible_deals("rh_trade", lawd, ymd, today), build)


RH_RENT = _rtms_service("RTMSDataSvcRHRent", "국토교통부_연립다세대 전월세 실거래가 자료")


@RH_RENT.operation(
    id="molit_rtms_rh_rent",
    path="/getRTMSDataSvcRHRent",
    summary_ko="연립다세대 전월세 실거래가 자료 조회",
    summary_en="Row-house and multi-unit (연립·다세대) rent contracts",
    params=COMMON_PARAMS,
    fields=_sorted_fields([*RH_FIELDS, *RENT_FIELDS]),
    example={**EXAMPLE, "LAWD_CD": "11110"},
    notes=NOTES,
)
def rh_rent(ctx, params):
    lawd, ymd, today = params.digits("LAWD_CD", 5), _ymd(params), ctx.now.date()
    return LazyRecords(
        visible_deals("rh_rent", lawd, ymd, today),
        lambda d: _alphabetical({**_rh_base(d, today), **_rent_extra(d, today)}),
    )
