"""행정안전부: 법정동코드 (StanReginCd) and 법정동별 주민등록 인구 및 세대현황 (stdgPpltnHhStus)."""

from __future__ import annotations

from functools import cache, lru_cache

from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.mois_population import PopulationEnvelope
from apis.sandbox.envelopes.stanregincd import StanReginCdEnvelope
from apis.sandbox.errors import InvalidParam
from apis.sandbox.rand import rng
from apis.sandbox.registry import Field, LazyRecords, Param
from apis.sandbox.world import regions

STAN_REGIN_CD = datagokr_service(
    id="StanReginCd",
    org="1741000",
    provider_ko="행정안전부",
    provider_en="Ministry of the Interior and Safety (MOIS)",
    title_ko="행정안전부_행정표준코드_법정동코드",
    envelope=StanReginCdEnvelope(),
    # Auth errors of this service come back as XML whatever type was asked for (reported).
    gateway_json_errors=False,
)


def stan_row(region: regions.Region, order: int) -> dict:
    code = region.code
    return {
        "region_cd": code,
        "sido_cd": code[:2],
        "sgg_cd": code[2:5],
        "umd_cd": code[5:8],
        "ri_cd": code[8:],
        "locatjumin_cd": code,
        "locatjijuk_cd": code,
        "locatadd_nm": region.full_name,
        "locat_order": order,
        "locat_rm": "",
        "locathigh_cd": region.parent_code or "0000000000",
        "locallow_nm": region.leaf_name,
        "adpt_de": region.created_date if region.created_date >= "20120701" else "",
    }


@lru_cache(maxsize=1)
def _sibling_orders() -> dict[str, int]:
    orders: dict[str, int] = {}
    counters: dict[str | None, int] = {}
    for region in regions.regions():
        parent = region.parent_code
        counters[parent] = counters.get(parent, 0) + 1
        orders[region.code] = counters[parent]
    return orders


@STAN_REGIN_CD.operation(
    id="mois_stanregincd_list",
    path="/getStanReginCdList",
    summary_ko="법정동코드 목록 조회",
    summary_en="Standard legal-dong (법정동) region codes",
    params=[
        Param("locatadd_nm", "지역주소명 (부분일치 검색, 생략하면 전국)", example="서울특별시 종로구"),
    ],
    fields=[
        Field("region_cd", "지역코드 (법정동코드 10자리)", example="1111000000"),
        Field("sido_cd", "시도코드", example="11"),
        Field("sgg_cd", "시군구코드", example="110"),
        Field("umd_cd", "읍면동코드", example="000"),
        Field("ri_cd", "리코드", example="00"),
        Field("locatjumin_cd", "지역코드_주민", example="1111000000"),
        Field("locatjijuk_cd", "지역코드_지적", example="1111000000"),
        Field("locatadd_nm", "지역주소명", example="서울특별시 종로구"),
        Field("locat_order", "서열", type="integer", example="1"),
        Field("locat_rm", "비고", example=""),
        Field("locathigh_cd", "상위지역코드", example="1100000000"),
        Field("locallow_nm", "최하위지역명", example="종로구"),
        Field("adpt_de", "생성일", example=""),
    ],
    example={"locatadd_nm": "서울특별시 종로구", "type": "json", "pageNo": "1", "numOfRows": "10"},
    notes="Existing (존재) codes only, so abolished names such as 강원도 give INFO-3. locat_order is the rank among "
    "siblings and adpt_de the creation date for codes made since 2012-07 (both unconfirmed on live).",
)
def stan_regin_cd_list(ctx, params):
    text = params.text("locatadd_nm").strip()
    found = regions.search(text) if text else regions.regions()
    orders = _sibling_orders()
    return LazyRecords(found, lambda r: stan_row(r, orders.get(r.code, 1)))


POPULATION = datagokr_service(
    id="stdgPpltnHhStus",
    org="1741000",
    provider_ko="행정안전부",
    provider_en="Ministry of the Interior and Safety (MOIS)",
    title_ko="행정안전부_법정동별(행정동 통반단위) 주민등록 인구 및 세대현황",
    envelope=PopulationEnvelope(),
)

# People per leaf 법정동, before the monthly drift; Seoul dongs are dense, 리 are small.
_LEAF_BASE = {
    "11": 19000,
    "26": 12000,
    "27": 11000,
    "28": 11000,
    "29": 10000,
    "30": 10000,
    "31": 9000,
    "36": 9000,
    "41": 9000,
}
# Seoul 구 residents (thousands, 2026 order of magnitude): spread over their 법정동 by weight.
_SEOUL_GU = {
    "11110": 139,
    "11140": 121,
    "11170": 210,
    "11200": 280,
    "11215": 335,
    "11230": 350,
    "11260": 380,
    "11290": 430,
    "11305": 290,
    "11320": 300,
    "11350": 490,
    "11380": 460,
    "11410": 305,
    "11440": 370,
    "11470": 430,
    "11500": 560,
    "11530": 400,
    "11545": 230,
    "11560": 375,
    "11590": 375,
    "11620": 480,
    "11650": 410,
    "11680": 555,
    "11710": 655,
    "11740": 465,
}


def _leaf_weight(code: str) -> float:
    region = regions.region(code)
    base = _LEAF_BASE.get(code[:2], 3500)
    if region.ri:
        base = 420
    elif region.eupmyeondong.endswith("면"):
        base = 2600
    elif region.eupmyeondong.endswith("읍"):
        base = 14000
    return base * rng("population", code).lognormvariate(0, 0.55)


@lru_cache(maxsize=512)
def _weight_sum(lawd_cd: str) -> float:
    return sum(_leaf_weight(leaf.code) for leaf in regions.leaf_dongs_in(lawd_cd))


def _leaf_population(code: str, ym: str) -> tuple[int, int, int]:
    """(male, female, households) of a leaf 법정동 in a month; deterministic, slowly drifting."""
    region = regions.region(code)
    r = rng("population-shape", code)
    people = _leaf_weight(code)
    if code[:5] in _SEOUL_GU:
        people = _SEOUL_GU[code[:5]] * 1000 * people / _weight_sum(code[:5])
    months = (int(ym[:4]) - 2026) * 12 + int(ym[4:]) - 1
    trend = r.uniform(-0.0025, 0.0015) if code[:2] != "36" else r.uniform(0.0005, 0.004)
    wobble = rng("population", code, ym).uniform(-0.0015, 0.0015)
    total = max(12, int(people * (1 + trend) ** months * (1 + wobble)))
    male = int(total * r.uniform(0.475, 0.515))
    per_household = r.uniform(1.75, 2.45) if not region.ri else r.uniform(1.55, 2.0)
    households = max(1, int(total / (per_household * (1 + 0.0012 * months))))
    return male, total - male, households


# Room for every leaf 법정동 of the country for a few months: the health families read them all once.
@lru_cache(maxsize=65536)
def population_of(code: str, ym: str) -> tuple[int, int, int]:
    """(male, female, households) of any region: leaf values summed up the hierarchy."""
    region = regions.region(code)
    if region.level == 1:
        parts = [population_of(r.code, ym) for r in regions.dongs_in_sido(code)]
    elif region.level == 2:
        parts = [population_of(leaf.code, ym) for lawd in _lawds_under(code) for leaf in regions.leaf_dongs_in(lawd)]
    elif region.level == 3 and region.code[:8] in _dongs_with_ri(code[:5]):
        parts = [population_of(r.code, ym) for r in regions.leaf_dongs_in(code[:5]) if r.code[:8] == code[:8]]
    else:
        return _leaf_population(code, ym)
    return tuple(sum(p[i] for p in parts) for i in range(3))


@cache
def _dongs_with_ri(lawd_cd: str) -> frozenset[str]:
    """First eight digits of the 읍/면 of a 시군구 that are split into 리."""
    return frozenset(r.code[:8] for r in regions.leaf_dongs_in(lawd_cd) if r.level == 4)


def _lawds_under(code: str) -> list[str]:
    """A 시 (41110) covers its 구 (41111, 41113 …); any other 시군구 only itself."""
    own = code[:5]
    if own in regions.lawd_codes():
        return [own]
    return [lawd for lawd in regions.lawd_codes() if lawd[:4] == own[:4] and lawd != own]


def _months(start: str, end: str) -> list[str]:
    months, year, month = [], int(start[:4]), int(start[4:])
    while f"{year}{month:02d}" <= end and len(months) < 1200:
        months.append(f"{year}{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return months


def _valid_ym(params, name: str) -> str:
    value = params.digits(name, 6)
    if not 1 <= int(value[4:]) <= 12:
        raise InvalidParam(name)
    return value


@POPULATION.operation(
    id="mois_stdg_population",
    path="/selectStdgPpltnHhStus",
    summary_ko="법정동별 주민등록 인구 및 세대현황 조회",
    summary_en="Resident population and households by legal dong",
    params=[
        Param("stdgCd", "법정동코드 (10자리)", required=True, example="1111000000"),
        Param("srchFrYm", "조회시작년월 (YYYYMM)", required=True, example="202609"),
        Param("srchToYm", "조회종료년월 (YYYYMM)", required=True, example="202610"),
        Param(
            "lv", "조회레벨 (1 시도, 2 시군구, 3 읍면동, 4 리)", required=True, example="3", enum=("1", "2", "3", "4")
        ),
        Param("regSeCd", "등록구분 (1 전체, 2 거주자)", required=True, example="1", enum=("1", "2")),
    ],
    fields=[
        Field("statsYm", "통계년월", example="202610"),
        Field("stdgCd", "법정동코드", example="1111010100"),
        Field("ctpvNm", "시도명", example="서울특별시"),
        Field("sggNm", "시군구명", example="종로구"),
        Field("dongNm", "읍면동명", example="청운동"),
        Field("liNm", "리명", example=""),
        Field("totNmprCnt", "총인구수", example="2104"),
        Field("hhCnt", "세대수", example="1012"),
        Field("hhNmpr", "세대당 인구", example="2.08"),
        Field("maleNmprCnt", "남자 인구수", example="1003"),
        Field("femlNmprCnt", "여자 인구수", example="1101"),
        Field("maleFemlRate", "남녀 비율", example="0.91"),
    ],
    example={
        "stdgCd": "1111000000",
        "srchFrYm": "202609",
        "srchToYm": "202610",
        "lv": "3",
        "regSeCd": "1",
        "type": "json",
    },
    missing_param_code="11",
    notes="Synthetic counts that add up the hierarchy (동 -> 구 -> 시도); a month is published once it is over, "
    "so the sandbox clock's month is empty (03). lv 4 lists 리, not 통반. regSeCd 2 (거주자) is ~98.5 % of 1.",
)
def stdg_population(ctx, params):
    code = params.digits("stdgCd", 10)
    start, end = _valid_ym(params, "srchFrYm"), _valid_ym(params, "srchToYm")
    level = params.int("lv")
    if level not in (1, 2, 3, 4):
        raise InvalidParam("lv")
    resident_only = params.text("regSeCd") == "2"
    if params.text("regSeCd") not in ("1", "2"):
        raise InvalidParam("regSeCd")
    root = regions.region(code)
    if root is None or root.abolished:
        return []
    published_until = f"{ctx.now.year}{ctx.now.month:02d}"
    months = [m for m in _months(start, end) if m < published_until and m >= "200801"]
    targets = [root] if root.level == level else [r for r in regions.descendants(code) if r.level == level]
    rows = []
    for ym in months:
        for region in targets:
            male, female, households = population_of(region.code, ym)
            if resident_only:
                male, female = int(male * 0.985), int(female * 0.985)
            total = male + female
            rows.append(
                {
                    "statsYm": ym,
                    "stdgCd": region.code,
                    "ctpvNm": region.sido,
                    "sggNm": region.sigungu,
                    "dongNm": region.eupmyeondong,
                    "liNm": region.ri,
                    "totNmprCnt": str(total),
                    "hhCnt": str(households),
                    "hhNmpr": f"{total / households:.2f}",
                    "maleNmprCnt": str(male),
                    "femlNmprCnt": str(female),
                    "maleFemlRate": f"{male / female:.2f}" if female else "0.00",
                }
            )
    return rows
