"""KOSIS 공유서비스 (kosis.kr/openapi): 통합검색, 통계표 설명 (getMeta) and 통계자료 (statisticsParameterData)
over six tables with KOSIS-style IDs: 주민등록인구 (the MOIS population family's numbers), 경제활동인구,
소비자물가지수, 1인가구 비율, 합계출산율 and 미분양.

Classifications use KOSIS's own region codes (11 서울, 21 부산 … 39 제주; 시군구 11010 종로구 …), not 법정동,
as live. Each table publishes a period on its own day after the period ends, read off the sandbox clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import cache, lru_cache

from apis.sandbox.envelopes.kosis import KosisAuth, KosisEnvelope
from apis.sandbox.errors import ServiceError
from apis.sandbox.families.mois import population_of
from apis.sandbox.rand import rng
from apis.sandbox.registry import Field, Param, service
from apis.sandbox.world import regions

MAX_CELLS = 40_000
REFERENCE_MONTH = "202610"  # 주민등록인구 equals the MOIS family's numbers in this month

# 통계청 행정구역분류 시도 codes -> (법정동 시도 code, name, English name)
SIDO = {
    "11": ("1100000000", "서울특별시", "Seoul"),
    "21": ("2600000000", "부산광역시", "Busan"),
    "22": ("2700000000", "대구광역시", "Daegu"),
    "23": ("2800000000", "인천광역시", "Incheon"),
    "24": ("2900000000", "광주광역시", "Gwangju"),
    "25": ("3000000000", "대전광역시", "Daejeon"),
    "26": ("3100000000", "울산광역시", "Ulsan"),
    "29": ("3611000000", "세종특별자치시", "Sejong"),
    "31": ("4100000000", "경기도", "Gyeonggi-do"),
    "32": ("5100000000", "강원특별자치도", "Gangwon-do"),
    "33": ("4300000000", "충청북도", "Chungcheongbuk-do"),
    "34": ("4400000000", "충청남도", "Chungcheongnam-do"),
    "35": ("5200000000", "전북특별자치도", "Jeonbuk-do"),
    "36": ("4600000000", "전라남도", "Jeollanam-do"),
    "37": ("4700000000", "경상북도", "Gyeongsangbuk-do"),
    "38": ("4800000000", "경상남도", "Gyeongsangnam-do"),
    "39": ("5000000000", "제주특별자치도", "Jeju-do"),
}


@dataclass(frozen=True)
class Value:
    """One classification value: C1 code, 국문명, 영문명, parent code."""

    code: str
    name: str
    name_eng: str
    up: str = ""


@dataclass(frozen=True)
class Item:
    itm_id: str
    name: str
    name_eng: str
    unit: str
    unit_eng: str


@dataclass
class Table:
    org_id: str
    org_nm: str
    org_nm_eng: str
    tbl_id: str
    tbl_nm: str
    tbl_nm_eng: str
    stat_id: str
    stat_nm: str
    mt_atitle: str
    full_path_id: str
    keywords: str
    prd_se: str  # request code: M | Y
    first: str  # first period (YYYYMM or YYYY)
    publish: Callable[[str], date]  # period -> publication day
    obj_id: str
    obj_nm: str
    obj_nm_eng: str
    values: Callable[[], tuple[Value, ...]]
    items: tuple[Item, ...]
    cell: Callable[[str, str, str], str]  # (C1 code, ITM_ID, period) -> DT
    comment: str
    dept: str
    dept_phone: str
    contents: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def prd_se_name(self) -> str:
        return {"M": "월", "Y": "년"}[self.prd_se]

    @property
    def data_prd_se(self) -> str:
        """PRD_SE as data rows write it: annual tables say A although the request says Y."""
        return "A" if self.prd_se == "Y" else self.prd_se

    def periods(self, today: date) -> list[str]:
        """Published periods, oldest first."""
        found = []
        period = self.first
        while self.publish(period) <= today:
            found.append(period)
            period = _next(period)
        return found


def _next(period: str) -> str:
    if len(period) == 4:
        return str(int(period) + 1)
    year, month = int(period[:4]), int(period[4:])
    return f"{year + (month == 12)}{month % 12 + 1:02d}"


def _month_after(period: str, day: int) -> date:
    following = _next(period)
    return date(int(following[:4]), int(following[4:]), day)


def _year_after(period: str, month: int, day: int) -> date:
    return date(int(period) + 1, month, day)


def _sido_values(total_name: str = "계") -> tuple[Value, ...]:
    return (
        Value("00", total_name, "Whole country"),
        *(Value(code, name, eng, "00") for code, (_, name, eng) in SIDO.items()),
    )


@cache
def sigungu_codes() -> dict[str, str]:
    """KOSIS 시군구 code (시도 code + 3 digits, in 법정동 order: 11010 종로구 …) -> LAWD_CD."""
    found = {}
    for kosis_sido, (bjd, _, _) in SIDO.items():
        lawds = [lawd for lawd in regions.lawd_codes() if lawd[:2] == bjd[:2]]
        for index, lawd in enumerate(lawds, start=1):
            found[f"{kosis_sido}{index * 10:03d}"] = lawd
    return found


@cache
def _population_values() -> tuple[Value, ...]:
    values = [Value("00", "전국", "Whole country")]
    by_sido: dict[str, list[Value]] = {}
    for code, lawd in sigungu_codes().items():
        name = regions.sigungu_name(lawd)
        by_sido.setdefault(code[:2], []).append(Value(code, name, code, code[:2]))
    for code, (_, name, eng) in SIDO.items():
        values.append(Value(code, name, eng, "00"))
        values.extend(v for v in by_sido.get(code, []) if v.name != name)
    return tuple(values)


@cache
def _reference(lawd: str) -> tuple[int, int]:
    """(male, female) of a 시군구 in the reference month, straight from the MOIS population family."""
    male, female, _ = population_of(lawd + "00000", REFERENCE_MONTH)
    return male, female


def _months_between(start: str, end: str) -> int:
    return (int(end[:4]) - int(start[:4])) * 12 + int(end[4:]) - int(start[4:])


@lru_cache(maxsize=65_536)
def _sigungu_population(lawd: str, ym: str) -> tuple[int, int]:
    """The reference month drifted by the 시군구's own slow trend: equal to MOIS in the reference month,
    smooth elsewhere (replaying MOIS month by month would cost seconds per national total)."""
    male, female = _reference(lawd)
    if ym == REFERENCE_MONTH:
        return male, female
    trend = rng("kosis-trend", lawd).uniform(-0.0022, 0.0012) if lawd[:2] != "36" else 0.0025
    factor = (1 + trend) ** _months_between(REFERENCE_MONTH, ym) * (1 + _wobble("pop", lawd, ym, spread=0.0003))
    return int(male * factor), int(female * factor)


def _population(code: str, ym: str) -> tuple[int, int]:
    """(male, female) for a KOSIS region code: 시군구 directly, 시도 and 전국 as sums, so they add up."""
    if code == "00":
        lawds = list(sigungu_codes().values())
    elif code in SIDO:
        lawds = [lawd for c, lawd in sigungu_codes().items() if c[:2] == code]
    else:
        lawds = [sigungu_codes()[code]]
    parts = [_sigungu_population(lawd, ym) for lawd in lawds]
    return sum(p[0] for p in parts), sum(p[1] for p in parts)


def _population_cell(code: str, itm: str, period: str) -> str:
    male, female = _population(code, period)
    return str({"T20": male + female, "T21": male, "T22": female}[itm])


def _wobble(*parts: object, spread: float) -> float:
    return rng("kosis", *parts).uniform(-spread, spread)


# 실업률 (%) level of each 시도 around the national rate; 고용률 likewise.
def _labour_cell(code: str, itm: str, period: str) -> str:
    year, month = int(period[:4]), int(period[4:])
    people = _population(code, period)
    adults = (people[0] + people[1]) * 0.86 / 1000  # 15세 이상 (천 명)
    seasonal = {1: 0.9, 2: 1.1, 3: 0.7, 4: 0.2, 5: 0.0, 6: 0.1, 7: -0.1, 8: -0.2, 9: -0.3, 10: -0.3, 11: -0.4, 12: 0.1}[
        month
    ]
    trend = {2020: 1.0, 2021: 0.7, 2022: 0.0}.get(year, 0.2 if year < 2020 else -0.1)
    regional = 0.0 if code == "00" else rng("kosis-labour", code).uniform(-1.0, 1.0)
    unemployment = max(1.0, 2.9 + seasonal + trend + regional + _wobble("u", code, period, spread=0.15))
    participation = (
        64.0 + (regional * -1.5) + (0.8 if month in range(4, 11) else -1.2) + _wobble("p", code, period, spread=0.3)
    )
    active = adults * participation / 100
    employed = active * (1 - unemployment / 100)
    values = {
        "T10": f"{active:.0f}",
        "T20": f"{employed:.0f}",
        "T30": f"{active - employed:.0f}",
        "T80": f"{unemployment:.1f}",
        "T90": f"{employed / adults * 100:.1f}",
    }
    return values[itm]


CPI_YEARLY = {
    2015: 0.7,
    2016: 1.0,
    2017: 1.9,
    2018: 1.5,
    2019: 0.4,
    2020: 0.5,
    2021: 2.5,
    2022: 5.1,
    2023: 3.6,
    2024: 2.3,
    2025: 2.1,
    2026: 2.0,
}
CPI_GROUPS = {"0": 1.0, "A": 1.05, "A1": 1.6, "A2": 1.0, "A3": 1.3, "B": 0.95, "B1": 0.4, "B2": 0.5, "B3": 1.25}


def _cpi_cell(code: str, itm: str, period: str) -> str:
    """Index 2020=100: monthly compounding of each year's inflation, scaled per 품목 group."""
    year, month = int(period[:4]), int(period[4:])
    scale = CPI_GROUPS[code]
    level = 100.0
    step_years = range(2020, year) if year >= 2020 else range(year, 2020)
    for y in step_years:
        rate = CPI_YEARLY.get(y, 2.0) * scale / 100
        level = level * (1 + rate) if year >= 2020 else level / (1 + rate)
    level *= (1 + CPI_YEARLY.get(year, 2.0) * scale / 100) ** ((month - 6.5) / 12)
    seasonal = 0.6 * math.sin((month - 2) / 12 * 2 * math.pi) if code == "A1" else 0.0
    return f"{level + seasonal + _wobble('cpi', code, period, spread=0.08):.2f}"


ONE_PERSON = {
    2000: 15.5,
    2005: 20.0,
    2010: 23.9,
    2015: 27.2,
    2016: 27.9,
    2017: 28.6,
    2018: 29.3,
    2019: 30.2,
    2020: 31.7,
    2021: 33.4,
    2022: 34.5,
    2023: 35.5,
    2024: 36.1,
    2025: 36.8,
}


def _one_person_cell(code: str, itm: str, period: str) -> str:
    year = int(period)
    known = sorted(ONE_PERSON)
    lower = max(y for y in known if y <= year) if year >= known[0] else known[0]
    upper = min((y for y in known if y >= year), default=known[-1])
    base = ONE_PERSON[lower] + (ONE_PERSON[upper] - ONE_PERSON[lower]) * (
        (year - lower) / (upper - lower) if upper != lower else 0
    )
    regional = 0.0 if code == "00" else rng("kosis-1p", code).uniform(-4.0, 5.0)
    return f"{base + regional:.1f}"


FERTILITY = {
    2015: 1.239,
    2016: 1.172,
    2017: 1.052,
    2018: 0.977,
    2019: 0.918,
    2020: 0.837,
    2021: 0.808,
    2022: 0.778,
    2023: 0.720,
    2024: 0.748,
    2025: 0.790,
}
FERTILITY_OFFSET = {
    "11": -0.17,
    "21": -0.09,
    "29": 0.25,
    "36": 0.2,
    "38": 0.05,
    "37": 0.08,
    "39": 0.08,
    "32": 0.15,
    "33": 0.12,
}


def _fertility_cell(code: str, itm: str, period: str) -> str:
    year = int(period)
    base = FERTILITY.get(year, 1.3 + (2015 - year) * 0.02 if year < 2015 else 0.8)
    offset = 0.0 if code == "00" else FERTILITY_OFFSET.get(code, rng("kosis-tfr", code).uniform(-0.04, 0.1))
    return f"{max(0.4, base + offset + _wobble('tfr', code, period, spread=0.01)):.3f}"


UNSOLD_SHARE = {
    "11": 0.02,
    "31": 0.12,
    "23": 0.05,
    "21": 0.06,
    "22": 0.14,
    "37": 0.11,
    "38": 0.07,
    "36": 0.06,
    "34": 0.07,
}


def _unsold_cell(code: str, itm: str, period: str) -> str:
    year, month = int(period[:4]), int(period[4:])
    months = (year - 2020) * 12 + month
    national = 20000 + 45000 * max(0.0, math.sin(min(months, 60) / 60 * math.pi)) * (1.3 if year >= 2023 else 1.0)
    if code == "00":
        return str(sum(int(_unsold_cell(c, itm, period)) for c in SIDO))
    share = UNSOLD_SHARE.get(code, 0.04)
    return str(max(0, int(national * share * (1 + _wobble("unsold", code, period, spread=0.06)))))


TABLES = (
    Table(
        org_id="101",
        org_nm="통계청",
        org_nm_eng="Statistics Korea",
        tbl_id="DT_1B040A3",
        tbl_nm="행정구역(시군구)별, 성별 인구수",
        tbl_nm_eng="Population by Administrative District and Sex",
        stat_id="1962001",
        stat_nm="주민등록인구현황",
        mt_atitle="인구 > 주민등록인구현황",
        full_path_id="A > A_7",
        keywords="주민등록인구 인구수 인구 시군구 성별 남자 여자",
        prd_se="M",
        first="201101",
        publish=lambda p: _month_after(p, 1),
        obj_id="A",
        obj_nm="행정구역(시군구)별",
        obj_nm_eng="By administrative district",
        values=_population_values,
        items=(
            Item("T20", "총인구수", "Total population", "명", "Person"),
            Item("T21", "남자인구수", "Male population", "명", "Person"),
            Item("T22", "여자인구수", "Female population", "명", "Person"),
        ),
        cell=_population_cell,
        comment="매월말 기준 주민등록인구 (거주자, 거주불명자, 재외국민 포함)",
        dept="행정안전부 주민과",
        dept_phone="044-205-3157",
        contents="행정구역(시군구)별 성별 주민등록인구 총인구수 남자 여자",
    ),
    Table(
        org_id="101",
        org_nm="통계청",
        org_nm_eng="Statistics Korea",
        tbl_id="DT_1DA7004S",
        tbl_nm="시도별 경제활동인구 총괄",
        tbl_nm_eng="Summary of Economically Active Population by Province",
        stat_id="1994044",
        stat_nm="경제활동인구조사",
        mt_atitle="노동 > 경제활동인구조사 > 지역별 경제활동인구",
        full_path_id="B > B_1 > B_1_4",
        keywords="실업률 고용률 취업자 실업자 경제활동인구 경제활동참가율 시도별",
        prd_se="M",
        first="200001",
        publish=lambda p: _month_after(p, 12),
        obj_id="A",
        obj_nm="시도별",
        obj_nm_eng="By province",
        values=_sido_values,
        items=(
            Item("T10", "경제활동인구", "Economically active population", "천명", "Thousand Persons"),
            Item("T20", "취업자", "Employed persons", "천명", "Thousand Persons"),
            Item("T30", "실업자", "Unemployed persons", "천명", "Thousand Persons"),
            Item("T80", "실업률", "Unemployment rate", "%", "%"),
            Item("T90", "고용률", "Employment to population ratio", "%", "%"),
        ),
        cell=_labour_cell,
        comment="15세 이상 인구 기준; 매월 15일이 속한 1주간 조사",
        dept="통계청 사회통계국 고용통계과",
        dept_phone="042-481-2264",
        contents="시도별 경제활동인구 취업자 실업자 실업률 고용률",
    ),
    Table(
        org_id="101",
        org_nm="통계청",
        org_nm_eng="Statistics Korea",
        tbl_id="DT_1J22003",
        tbl_nm="품목성질별 소비자물가지수(2020=100)",
        tbl_nm_eng="Consumer Price Indices by Commodity Characteristics (2020=100)",
        stat_id="1991001",
        stat_nm="소비자물가조사",
        mt_atitle="물가 > 소비자물가조사 > 소비자물가지수(2020=100)",
        full_path_id="C > C_1 > C_1_1",
        keywords="소비자물가지수 물가 물가지수 CPI 인플레이션 상품 서비스",
        prd_se="M",
        first="200001",
        publish=lambda p: _month_after(p, 2),
        obj_id="A",
        obj_nm="품목성질별",
        obj_nm_eng="By commodity characteristics",
        values=lambda: (
            Value("0", "총지수", "All items"),
            Value("A", "상품", "Commodities", "0"),
            Value("A1", "농축수산물", "Agricultural, livestock & marine products", "A"),
            Value("A2", "공업제품", "Industrial products", "A"),
            Value("A3", "전기·가스·수도", "Electricity, gas & water", "A"),
            Value("B", "서비스", "Services", "0"),
            Value("B1", "집세", "House rent", "B"),
            Value("B2", "공공서비스", "Public services", "B"),
            Value("B3", "개인서비스", "Personal services", "B"),
        ),
        items=(Item("T", "지수", "Index", "2020=100", "2020=100"),),
        cell=_cpi_cell,
        comment="기준년 2020=100; 458개 품목",
        dept="통계청 경제통계국 물가동향과",
        dept_phone="042-481-2532",
        contents="품목성질별 소비자물가지수 총지수 상품 서비스",
    ),
    Table(
        org_id="101",
        org_nm="통계청",
        org_nm_eng="Statistics Korea",
        tbl_id="DT_1JC1501",
        tbl_nm="1인가구비율(시도)",
        tbl_nm_eng="Ratio of One-person Households (Province)",
        stat_id="1960001",
        stat_nm="인구총조사",
        mt_atitle="인구 > 인구총조사 > 가구부문",
        full_path_id="A > A_1 > A_1_2",
        keywords="1인가구 1인 가구 비율 가구 혼자 사는",
        prd_se="Y",
        first="2000",
        publish=lambda p: _year_after(p, 12, 10),
        obj_id="A",
        obj_nm="시도별",
        obj_nm_eng="By province",
        values=lambda: _sido_values("전국"),
        items=(Item("T10", "1인가구비율", "Ratio of one-person households", "%", "%"),),
        cell=_one_person_cell,
        comment="일반가구 중 1인가구의 비율; 2015년부터 등록센서스 방식",
        dept="통계청 인구총조사과",
        dept_phone="042-481-2293",
        contents="시도별 1인가구 비율",
    ),
    Table(
        org_id="101",
        org_nm="통계청",
        org_nm_eng="Statistics Korea",
        tbl_id="DT_1B81A12",
        tbl_nm="시도/합계출산율, 모의 연령별 출산율",
        tbl_nm_eng="Total Fertility Rate by Province",
        stat_id="1970003",
        stat_nm="인구동향조사",
        mt_atitle="인구 > 인구동향조사 > 출생",
        full_path_id="A > A_4 > A_4_1",
        keywords="합계출산율 출산율 출생 저출산 시도별",
        prd_se="Y",
        first="2000",
        publish=lambda p: _year_after(p, 8, 27),
        obj_id="A",
        obj_nm="시도별",
        obj_nm_eng="By province",
        values=lambda: _sido_values("전국"),
        items=(Item("T1", "합계출산율", "Total fertility rate", "가임여성 1명당 명", "Number of persons per woman"),),
        cell=_fertility_cell,
        comment="합계출산율: 여자 1명이 가임기간(15~49세) 동안 낳을 것으로 기대되는 평균 출생아 수",
        dept="통계청 인구동향과",
        dept_phone="042-481-2252",
        contents="시도별 합계출산율",
    ),
    Table(
        org_id="116",
        org_nm="국토교통부",
        org_nm_eng="Ministry of Land, Infrastructure and Transport",
        tbl_id="DT_MLTM_2082",
        tbl_nm="시도별 미분양현황",
        tbl_nm_eng="Unsold Housings by Province",
        stat_id="1998033",
        stat_nm="미분양주택현황보고",
        mt_atitle="주거 > 미분양주택현황보고",
        full_path_id="I1 > I1_2",
        keywords="미분양 미분양현황 미분양주택 주택 분양",
        prd_se="M",
        first="200701",
        publish=lambda p: _month_after(p, 28),
        obj_id="A",
        obj_nm="시도별",
        obj_nm_eng="By province",
        values=_sido_values,
        items=(Item("T1", "미분양호수", "Unsold housings", "호", "Apartment Unit"),),
        cell=_unsold_cell,
        comment="매월말 기준; 공동주택(아파트) 기준",
        dept="국토교통부 주택토지실 주택정책과",
        dept_phone="044-201-3336",
        contents="시도별 미분양주택 현황 계",
    ),
)
BY_ID = {(t.org_id, t.tbl_id): t for t in TABLES}


def _kosis_service(id: str, title: str, base_path: str = "/openapi"):
    return service(
        id=id,
        provider_ko="통계청 (KOSIS 국가통계포털)",
        provider_en="Statistics Korea (KOSIS)",
        family="kosis",
        host="kosis.kr",
        base_path=base_path,
        title_ko=title,
        envelope=KosisEnvelope(),
        auth=KosisAuth(),
        schemes=("https",),
    )


# One service per live endpoint (each is told apart by ?method=, which the specs show in the path).
SEARCH = _kosis_service("statisticsSearch", "KOSIS 공유서비스 통합검색")
META = _kosis_service("statisticsData", "KOSIS 공유서비스 통계표 설명")
DATA = _kosis_service("statisticsParameterData", "KOSIS 공유서비스 통계자료", "/openapi/Param")


def _table(params) -> Table:
    found = BY_ID.get((params.text("orgId").strip(), params.text("tblId").strip()))
    if found is None:
        raise ServiceError("30")
    return found


def _link(table: Table) -> str:
    return f"https://kosis.kr/statHtml/statHtml.do?orgId={table.org_id}&tblId={table.tbl_id}&conn_path=I2"


@SEARCH.operation(
    id="kosis_stat_search",
    path="/statisticsSearch.do?method=getList",
    summary_ko="KOSIS 통합검색",
    summary_en="Search statistics tables by keyword",
    params=[
        Param("searchNm", "검색명 (띄어쓴 낱말이 모두 들어간 통계표)", required=True, example="인구"),
        Param("orgId", "기관코드", example="101"),
        Param("sort", "정렬 (RANK 정확도, DATE 최신순)", example="RANK", enum=("RANK", "DATE")),
        Param("startCount", "페이지 번호", type="integer", example="1", default="1"),
        Param("resultCount", "출력 개수", type="integer", example="20", default="20"),
    ],
    fields=[
        Field("ORG_ID", "기관코드", example="101"),
        Field("ORG_NM", "기관명", example="통계청"),
        Field("TBL_ID", "통계표ID", example="DT_1B040A3"),
        Field("TBL_NM", "통계표명", example="행정구역(시군구)별, 성별 인구수"),
        Field("STAT_ID", "조사코드", example="1962001"),
        Field("STAT_NM", "조사명", example="주민등록인구현황"),
        Field("VW_CD", "KOSIS 목록구분", example="MT_ZTITLE"),
        Field("MT_ATITLE", "KOSIS 통계표 위치", example="인구 > 주민등록인구현황"),
        Field("FULL_PATH_ID", "통계표 위치", example="A > A_7"),
        Field("CONTENTS", "통계표 주요내용", example=""),
        Field("STRT_PRD_DE", "수록기간 시작일", example="201101"),
        Field("END_PRD_DE", "수록기간 종료일", example="202610"),
        Field("ITEM03", "통계표 주석", example=""),
        Field("REC_TBL_SE", "추천통계표 여부", example="N"),
        Field("TBL_VIEW_URL", "통계표 이동URL (목록)", example=""),
        Field("LINK_URL", "통계표 이동URL (통계표)", example=""),
        Field("STAT_DB_CNT", "검색결과 건수", example="3"),
        Field("QUERY", "검색어명", example="인구"),
    ],
    example={"searchNm": "인구", "format": "json", "jsonVD": "Y"},
    missing_param_code="20",
    notes="Six tables are searchable (names, survey names and keywords; every word of searchNm must match). "
    'Paging is startCount (page) × resultCount. No match → {"err":"30",…}. Without jsonVD=Y keys are unquoted.',
)
def stat_search(ctx, params):
    words = params.text("searchNm").split()
    org = params.text("orgId").strip()
    today = ctx.now.date()
    hits = []
    for table in TABLES:
        text = f"{table.tbl_nm} {table.stat_nm} {table.keywords} {table.contents}".replace(" ", "")
        if org and table.org_id != org:
            continue
        if words and all(w in text for w in words):
            rank = sum(w in table.tbl_nm for w in words)
            hits.append((table, rank))
    if params.text("sort").strip().upper() == "DATE":
        hits.sort(key=lambda tr: tr[0].periods(today)[-1], reverse=True)
    else:
        hits.sort(key=lambda tr: -tr[1])
    query = params.text("searchNm")
    rows = []
    for table, _ in hits:
        periods = table.periods(today)
        rows.append(
            {
                "ORG_ID": table.org_id,
                "ORG_NM": table.org_nm,
                "TBL_ID": table.tbl_id,
                "TBL_NM": table.tbl_nm,
                "STAT_ID": table.stat_id,
                "STAT_NM": table.stat_nm,
                "VW_CD": "MT_ZTITLE",
                "MT_ATITLE": table.mt_atitle,
                "FULL_PATH_ID": table.full_path_id,
                "CONTENTS": table.contents,
                "STRT_PRD_DE": periods[0],
                "END_PRD_DE": periods[-1],
                "ITEM03": table.comment,
                "REC_TBL_SE": "Y" if table.tbl_id in ("DT_1B040A3", "DT_1J22003") else "N",
                "TBL_VIEW_URL": f"https://kosis.kr/statisticsList/statisticsListIndex.do?vwcd=MT_ZTITLE&parentId={table.full_path_id.split(' > ')[0]}",
                "LINK_URL": _link(table),
                "STAT_DB_CNT": str(len(hits)),
                "QUERY": query,
            }
        )
    return rows


META_TYPES = ("TBL", "ORG", "PRD", "ITM", "OBJ", "CMMT", "UNIT", "SOURCE", "WGT", "NCD")


def _itm_rows(table: Table, params) -> list[dict]:
    obj_filter = params.text("objId").strip()
    itm_filter = params.text("itmId").strip()
    rows = []
    for serial, value in enumerate(table.values(), start=1):
        rows.append(
            {
                "ORG_ID": table.org_id,
                "TBL_ID": table.tbl_id,
                "OBJ_ID": table.obj_id,
                "OBJ_NM": table.obj_nm,
                "OBJ_NM_ENG": table.obj_nm_eng,
                "ITM_ID": value.code,
                "ITM_NM": value.name,
                "ITM_NM_ENG": value.name_eng,
                "UP_ITM_ID": value.up,
                "OBJ_ID_SN": "1",
                "UNIT_ID": "",
                "UNIT_NM": "",
                "UNIT_ENG_NM": "",
                "ITM_SN": str(serial),
            }
        )
    for serial, item in enumerate(table.items, start=1):
        rows.append(
            {
                "ORG_ID": table.org_id,
                "TBL_ID": table.tbl_id,
                "OBJ_ID": "ITEM",
                "OBJ_NM": "항목",
                "OBJ_NM_ENG": "Item",
                "ITM_ID": item.itm_id,
                "ITM_NM": item.name,
                "ITM_NM_ENG": item.name_eng,
                "UP_ITM_ID": "",
                "OBJ_ID_SN": "0",
                "UNIT_ID": item.itm_id,
                "UNIT_NM": item.unit,
                "UNIT_ENG_NM": item.unit_eng,
                "ITM_SN": str(serial),
            }
        )
    return [
        r
        for r in rows
        if (not obj_filter or r["OBJ_ID"] == obj_filter) and (not itm_filter or r["ITM_ID"] == itm_filter)
    ]


@META.operation(
    id="kosis_meta",
    path="/statisticsData.do?method=getMeta",
    summary_ko="통계표 설명 (메타자료)",
    summary_en="Table metadata: name, organisation, periods, classifications and items, notes, units, source",
    params=[
        Param(
            "type",
            "메타 유형 (TBL 통계표명칭, ORG 기관명칭, PRD 수록정보, ITM 분류/항목, OBJ 분류, CMMT 주석, UNIT 단위, SOURCE 출처, WGT 가중치, NCD 자료갱신일)",
            required=True,
            example="ITM",
            enum=META_TYPES,
        ),
        Param("orgId", "기관코드", required=True, example="101"),
        Param("tblId", "통계표ID", required=True, example="DT_1B040A3"),
        Param("objId", "분류코드 (type=ITM)", example="ITEM"),
        Param("itmId", "분류값코드 (type=ITM)", example="T20"),
        Param("detail", "전체시점 정보 (type=PRD, Y)", example="Y"),
        Param("prdSe", "수록주기 (type=NCD)", example="M"),
    ],
    fields=[
        # The example asks for ITM (classifications and items); each other type answers its own columns.
        Field("ORG_ID", "기관코드 (ITM)", example="101"),
        Field("TBL_ID", "통계표ID (ITM)", example="DT_1B040A3"),
        Field("OBJ_ID", "분류 ID (ITM, OBJ)", example="A"),
        Field("OBJ_NM", "분류 국문명 (ITM, OBJ)", example="행정구역(시군구)별"),
        Field("OBJ_NM_ENG", "분류 영문명 (ITM, OBJ)", example="By administrative district"),
        Field("ITM_ID", "분류값/항목 ID (ITM)", example="T20"),
        Field("ITM_NM", "분류값/항목 국문명 (ITM)", example="총인구수"),
        Field("ITM_NM_ENG", "분류값/항목 영문명 (ITM)", example="Total population"),
        Field("UP_ITM_ID", "상위 분류값 ID (ITM)", example=""),
        Field("OBJ_ID_SN", "분류 순번 (ITM, OBJ; 0 항목)", example="1"),
        Field("UNIT_ID", "단위 ID (ITM)", example="T20"),
        Field("UNIT_NM", "단위 국문명 (ITM, UNIT)", example="명"),
        Field("UNIT_ENG_NM", "단위 영문명 (ITM)", example="Person"),
        Field("UNIT_NM_ENG", "단위 영문명 (UNIT)", example="Person"),
        Field("ITM_SN", "분류값/항목 순번 (ITM)", example="1"),
        Field("TBL_NM", "통계표 국문명 (TBL, NCD)", example="행정구역(시군구)별, 성별 인구수"),
        Field("TBL_NM_ENG", "통계표 영문명 (TBL)", example="Population by Administrative District and Sex"),
        Field("ORG_NM", "기관 국문명 (ORG, NCD)", example="통계청"),
        Field("ORG_NM_ENG", "기관 영문명 (ORG)", example="Statistics Korea"),
        Field("PRD_SE", "수록주기 (PRD, NCD)", example="월"),
        Field("STRT_PRD_DE", "수록 시작시점 (PRD)", example="201101"),
        Field("END_PRD_DE", "수록 종료시점 (PRD)", example="202610"),
        Field("PRD_DE", "수록시점 (PRD detail=Y, NCD)", example="202610"),
        Field("SEND_DE", "자료갱신일 (NCD)", example="2026-11-01"),
        Field("CMMT_NM", "주석 구분 (CMMT)", example="통계표"),
        Field("CMMT_DC", "주석 내용 (CMMT)", example="매월말 기준 주민등록인구 (거주자, 거주불명자, 재외국민 포함)"),
        Field("JOSA_NM", "조사명 (SOURCE)", example="「주민등록인구현황」"),
        Field("DEPT_NM", "담당부서 (SOURCE)", example="행정안전부 주민과"),
        Field("DEPT_PHONE", "담당부서 전화번호 (SOURCE)", example="044-205-3157"),
    ],
    example={"type": "ITM", "orgId": "101", "tblId": "DT_1B040A3", "objId": "ITEM", "format": "json", "jsonVD": "Y"},
    # Each type answers its own columns (WGT answers 30: no weights exist).
    more_examples=[
        {"type": kind, "orgId": "101", "tblId": "DT_1B040A3", "format": "json", "jsonVD": "Y", **extra}
        for kind, extra in (
            ("TBL", {}),
            ("ORG", {}),
            ("PRD", {}),
            ("PRD", {"detail": "Y"}),
            ("OBJ", {}),
            ("CMMT", {}),
            ("UNIT", {}),
            ("SOURCE", {}),
            ("NCD", {}),
        )
    ],
    missing_param_code="20",
    notes="type=OBJ (a list of the classifications, ITEM included) is our reading of the guide's list; its exact "
    "fields are unconfirmed. No weights exist (WGT answers 30). PRD gives the first and last published period, "
    "or every period with detail=Y; NCD gives each period's update day.",
)
def stat_meta(ctx, params):
    kind = params.text("type").strip().upper()
    if kind not in META_TYPES:
        raise ServiceError("21")
    table = _table(params)
    periods = table.periods(ctx.now.date())
    if kind == "TBL":
        return [{"TBL_NM": table.tbl_nm, "TBL_NM_ENG": table.tbl_nm_eng}]
    if kind == "ORG":
        return [{"ORG_NM": table.org_nm, "ORG_NM_ENG": table.org_nm_eng}]
    if kind == "PRD":
        if params.text("detail").strip().upper() == "Y":
            return [{"PRD_SE": table.prd_se_name, "PRD_DE": p} for p in periods]
        return [{"PRD_SE": table.prd_se_name, "STRT_PRD_DE": periods[0], "END_PRD_DE": periods[-1]}]
    if kind == "ITM":
        return _itm_rows(table, params)
    if kind == "OBJ":
        return [
            {"OBJ_ID": table.obj_id, "OBJ_NM": table.obj_nm, "OBJ_NM_ENG": table.obj_nm_eng, "OBJ_ID_SN": "1"},
            {"OBJ_ID": "ITEM", "OBJ_NM": "항목", "OBJ_NM_ENG": "Item", "OBJ_ID_SN": "0"},
        ]
    if kind == "CMMT":
        return [{"CMMT_NM": "통계표", "CMMT_DC": table.comment}]
    if kind == "UNIT":
        units = dict.fromkeys((i.unit, i.unit_eng) for i in table.items)
        return [{"UNIT_NM": u, "UNIT_NM_ENG": e} for u, e in units]
    if kind == "SOURCE":
        return [{"JOSA_NM": f"「{table.stat_nm}」", "DEPT_NM": table.dept, "DEPT_PHONE": table.dept_phone}]
    if kind == "WGT":
        return []
    wanted = params.text("prdSe").strip().upper()
    if wanted and wanted != table.prd_se:
        return []
    return [
        {
            "ORG_NM": table.org_nm,
            "TBL_NM": table.tbl_nm,
            "PRD_SE": table.prd_se_name,
            "PRD_DE": p,
            "SEND_DE": table.publish(p).isoformat(),
        }
        for p in periods
    ]


def _codes(text: str) -> list[str] | None:
    """ "ALL" -> None (everything); "11+26+" (or with spaces: + read as a space) -> ["11", "26"]."""
    parts = [p for p in text.replace("+", " ").split() if p]
    if not parts or any(p.upper() == "ALL" for p in parts):
        return None
    return parts


def _selected_periods(table: Table, params, today: date) -> list[str]:
    published = table.periods(today)
    start, end = params.text("startPrdDe").strip(), params.text("endPrdDe").strip()
    width = 6 if table.prd_se == "M" else 4
    if start or end:
        for value in (start, end):
            if value and (not value.isdigit() or len(value) != width):
                raise ServiceError("21")
        return [p for p in published if (not start or p >= start) and (not end or p <= end)]
    count = params.int("newEstPrdCnt", 1, minimum=1, code="21")
    interval = params.int("prdInterval", 1, minimum=1, code="21")
    latest = published[::-1][::interval][:count]
    return sorted(latest)


@DATA.operation(
    id="kosis_param_data",
    path="/statisticsParameterData.do?method=getList",
    summary_ko="통계자료 조회 (파라미터 방식)",
    summary_en="Statistical data cells of one table by classification, item and period",
    params=[
        Param("orgId", "기관 ID", required=True, example="101"),
        Param("tblId", "통계표 ID", required=True, example="DT_1B040A3"),
        Param("objL1", "분류1 (ALL 또는 분류값 코드를 +로 연결)", required=True, example="11"),
        *[Param(f"objL{n}", f"분류{n}", example="") for n in range(2, 9)],
        Param("itmId", "항목 (ALL 또는 항목 ID를 +로 연결)", required=True, example="T20"),
        Param("prdSe", "수록주기 (M 월, Y 년 …)", required=True, example="M"),
        Param("startPrdDe", "시작수록시점 (월 YYYYMM, 년 YYYY)", example="202601"),
        Param("endPrdDe", "종료수록시점", example="202609"),
        Param("newEstPrdCnt", "최근수록시점 개수 (시점 대신)", type="integer", example="3"),
        Param("prdInterval", "수록시점 간격", type="integer", example="1"),
    ],
    fields=[
        Field("ORG_ID", "기관코드", example="101"),
        Field("TBL_ID", "통계표ID", example="DT_1B040A3"),
        Field("TBL_NM", "통계표명", example="행정구역(시군구)별, 성별 인구수"),
        Field("C1", "분류값 ID1", example="11"),
        Field("C1_OBJ_NM", "분류명1", example="행정구역(시군구)별"),
        Field("C1_OBJ_NM_ENG", "분류 영문명1", example="By administrative district"),
        Field("C1_NM", "분류값 명1", example="서울특별시"),
        Field("C1_NM_ENG", "분류값 영문명1", example="Seoul"),
        Field("ITM_ID", "항목 ID", example="T20"),
        Field("ITM_NM", "항목명", example="총인구수"),
        Field("ITM_NM_ENG", "항목영문명", example="Total population"),
        Field("UNIT_NM", "단위명", example="명"),
        Field("UNIT_NM_ENG", "단위영문명", example="Person"),
        Field("PRD_SE", "수록주기 (연간 통계표는 A)", example="M"),
        Field("PRD_DE", "수록시점", example="202609"),
        Field("DT", "수치값 (문자열)", example="9312461"),
        Field("LST_CHN_DE", "최종수정일", example="2026-10-01"),
    ],
    example={
        "orgId": "101",
        "tblId": "DT_1B040A3",
        "objL1": "11",
        "itmId": "T20",
        "prdSe": "M",
        "newEstPrdCnt": "3",
        "format": "json",
        "jsonVD": "Y",
    },
    missing_param_code="20",
    notes="Rows classification by classification, then item, then period; DT is text. Without a period the "
    'latest one is given. More than 40,000 cells → {"err":"31",…} (limit reported; the code and text are '
    "ours). A prdSe other than the table's, unknown codes or an empty range → 30; a period of the wrong "
    "length → 21. 주민등록인구 (DT_1B040A3) adds up to the MOIS population family's numbers.",
)
def param_data(ctx, params):
    table = _table(params)
    if params.text("prdSe").strip().upper() != table.prd_se:
        return []
    periods = _selected_periods(table, params, ctx.now.date())
    wanted = _codes(params.text("objL1"))
    values = [v for v in table.values() if wanted is None or v.code in wanted]
    wanted_items = _codes(params.text("itmId"))
    items = [i for i in table.items if wanted_items is None or i.itm_id in wanted_items]
    if len(values) * len(items) * len(periods) > MAX_CELLS:
        raise ServiceError("31")
    rows = []
    for value in values:
        for item in items:
            for period in periods:
                rows.append(
                    {
                        "ORG_ID": table.org_id,
                        "TBL_ID": table.tbl_id,
                        "TBL_NM": table.tbl_nm,
                        "C1": value.code,
                        "C1_OBJ_NM": table.obj_nm,
                        "C1_OBJ_NM_ENG": table.obj_nm_eng,
                        "C1_NM": value.name,
                        "C1_NM_ENG": value.name_eng,
                        "ITM_ID": item.itm_id,
                        "ITM_NM": item.name,
                        "ITM_NM_ENG": item.name_eng,
                        "UNIT_NM": item.unit,
                        "UNIT_NM_ENG": item.unit_eng,
                        "PRD_SE": table.data_prd_se,
                        "PRD_DE": period,
                        "DT": table.cell(value.code, item.itm_id, period),
                        "LST_CHN_DE": table.publish(period).isoformat(),
                    }
                )
    return rows
