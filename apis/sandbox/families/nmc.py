"""국립중앙의료원 (NMC, B552657) 전국 약국 정보: getParmacyListInfoInqire over about 25,000 deterministic
pharmacies, many on the ground floor of a clinic's building, with opening hours per weekday and holiday.

QT 1–7 (월–일) and 8 (공휴일) keep only pharmacies open that day; a closed day has no dutyTime fields,
as live. XML by default; _type=json goes through the gateway's number conversion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache, cached_property, lru_cache

from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.xml2json import ConvertedJsonEnvelope
from apis.sandbox.errors import InvalidParam
from apis.sandbox.families import hira
from apis.sandbox.families._listing import Filter, TextIndex, positions_by, positions_by_each, select
from apis.sandbox.families._places import (
    Place,
    density,
    leaves,
    nearest_station,
    person_name,
    phone_number,
    place_in,
    poisson,
    stem,
)
from apis.sandbox.families.mois import population_of
from apis.sandbox.rand import pick_weighted, rng
from apis.sandbox.registry import Field, LazyRecords, Param
from apis.sandbox.world import regions

PHARMACIES_PER_RESIDENT = 0.00056
NAME_WORDS = (
    "온누리",
    "365",
    "우리",
    "하나",
    "중앙",
    "건강한",
    "새",
    "대학",
    "봄",
    "열린",
    "보람",
    "참",
    "사랑",
    "행복",
    "미래",
    "제일",
    "늘푸른",
    "튼튼",
    "프라자",
    "메디",
    "편한",
    "한빛",
    "소망",
    "태평양",
    "현대",
    "종로",
    "큰",
    "믿음",
    "베스트",
    "초록",
    "해맑은",
    "정",
    "굿모닝",
    "바른",
    "약손",
)
DAYS = 8  # dutyTime1..7 = 월..일, 8 = 공휴일


@dataclass(frozen=True)
class Pharmacy:
    hpid: str
    name: str
    leaf_code: str
    key: int  # running number within the 시군구
    tel: str
    hours: tuple[tuple[str, str] | None, ...]  # index 0..7 = dutyTime1..8; None when closed


def _hours(r) -> tuple[tuple[str, str] | None, ...]:
    kind = pick_weighted(r, [("normal", 0.85), ("late", 0.12), ("always", 0.03)])
    if kind == "always":  # 365일 약국
        return tuple(("0900", "2200") for _ in range(DAYS))
    start = pick_weighted(r, [("0830", 0.2), ("0900", 0.55), ("0930", 0.25)])
    end = (
        "2200"
        if kind == "late"
        else pick_weighted(
            r, [("1830", 0.2), ("1900", 0.35), ("1930", 0.15), ("2000", 0.15), ("2100", 0.1), ("1800", 0.05)]
        )
    )
    week: list[tuple[str, str] | None] = [(start, end)] * 5
    saturday = r.random() < (0.95 if kind == "late" else 0.75)
    week.append(
        (
            start if start != "0830" else "0900",
            pick_weighted(r, [("1300", 0.2), ("1500", 0.4), ("1700", 0.3), ("1800", 0.1)]),
        )
        if saturday
        else None
    )
    sunday = r.random() < (0.5 if kind == "late" else 0.08)
    week.append(("1000", r.choice(("1700", "1800", "1900"))) if sunday else None)
    holiday = (sunday and r.random() < 0.7) or r.random() < 0.04
    week.append(("1000", "1800") if holiday else None)
    return tuple(week)


def _name(r, leaf: regions.Region) -> str:
    local = stem(leaf.eupmyeondong if leaf.ri else leaf.leaf_name)
    options = [(r.choice(NAME_WORDS), 0.45), (local, 0.2), (r.choice(NAME_WORDS) + local, 0.15), (person_name(r), 0.2)]
    return f"{pick_weighted(r, options)}약국"


@cache
def _lawd_index(lawd: str) -> int:
    return [code for code in regions.lawd_codes() if code[:2] == lawd[:2]].index(lawd)


@cache
def pharmacies_in(lawd: str) -> tuple[Pharmacy, ...]:
    """Every pharmacy of a 시군구, in 법정동 order."""
    if regions.region(lawd + "00000") is None:
        return ()
    factor = density(lawd)
    found: list[Pharmacy] = []
    names: set[str] = set()
    for leaf in leaves(lawd):
        male, female, _ = population_of(leaf.code, hira.POPULATION_MONTH)
        r = rng("nmc", leaf.code)
        for _ in range(poisson(r, (male + female) * PHARMACIES_PER_RESIDENT * factor)):
            key = len(found) + 1
            pr = rng("nmc-pharmacy", lawd, key)
            name = _name(pr, leaf)
            for attempt in range(6):
                if name not in names:
                    break
                name = _name(pr, leaf) if attempt < 4 else f"{person_name(pr)}약국"
            names.add(name)
            found.append(
                Pharmacy(
                    hpid=f"C{lawd[:2]}{_lawd_index(lawd):02d}{key:03d}",
                    name=name,
                    leaf_code=leaf.code,
                    key=key,
                    tel=phone_number(pr, leaf.code),
                    hours=_hours(pr),
                )
            )
    return tuple(found)


@cache
def _clinics_by_leaf(lawd: str) -> dict[str, list[hira.Facility]]:
    found: dict[str, list[hira.Facility]] = {}
    for facility in hira.facilities_in(lawd):
        if facility.cl_cd in ("31", "21", "11", "01"):
            found.setdefault(facility.leaf_code, []).append(facility)
    return found


def _place(leaf_code: str, key: int) -> Place | None:
    """Most pharmacies take the ground floor of a building where clinics are (문전약국)."""
    r = rng("nmc-place", leaf_code, key)
    clinics = _clinics_by_leaf(leaf_code[:5]).get(leaf_code, [])
    if clinics and r.random() < 0.65:
        clinic_place = hira.place_of(clinics[r.randrange(len(clinics))])
        if clinic_place is not None:
            return Place(
                clinic_place.building,
                1,
                clinic_place.lat + r.uniform(-2e-5, 2e-5),
                clinic_place.lon + r.uniform(-2e-5, 2e-5),
            )
    spot = place_in(leaf_code, "pharmacy", key)
    if spot is None:
        return None
    return Place(spot.building, 1 if r.random() < 0.9 else 2, spot.lat, spot.lon)


@cache
def place_of(pharmacy: Pharmacy) -> Place | None:
    return _place(pharmacy.leaf_code, pharmacy.key)


def is_open(pharmacy: Pharmacy, qt: int) -> bool:
    """QT 1–7 = 월–일, 8 = 공휴일."""
    return pharmacy.hours[qt - 1] is not None


def record(pharmacy: Pharmacy, rnum: int) -> dict:
    place = place_of(pharmacy)
    leaf = regions.region(pharmacy.leaf_code)
    r = rng("nmc-record", pharmacy.hpid)
    item: dict[str, str] = {"dutyAddr": place.address() if place else leaf.full_name}
    if pharmacy.hours[7] is not None and r.random() < 0.5:
        item["dutyEtc"] = "공휴일지킴이약국"
    if place is not None and r.random() < 0.45:
        station, metres = nearest_station(place.lat, place.lon)
        item["dutyMapimg"] = (
            f"{station}역 {r.randint(1, 10)}번 출구 {int(round(metres, -1))}m"
            if metres <= 800
            else f"{place.building.name or leaf.eupmyeondong} 1층"
        )
    item["dutyName"] = pharmacy.name
    item["dutyTel1"] = pharmacy.tel
    for day in range(DAYS):
        span = pharmacy.hours[day]
        if span is not None:
            item[f"dutyTime{day + 1}c"] = span[1]
            item[f"dutyTime{day + 1}s"] = span[0]
    item["hpid"] = pharmacy.hpid
    zip_no = place.zip_no if place else ""
    item["postCdn1"] = zip_no[:3]
    item["postCdn2"] = zip_no[3:]
    item["rnum"] = str(rnum)
    item["wgs84Lat"] = f"{place.lat:.8f}".rstrip("0") if place else ""
    item["wgs84Lon"] = f"{place.lon:.8f}".rstrip("0") if place else ""
    return item


PHARMACY = datagokr_service(
    id="ErmctInsttInfoInqireService",
    org="B552657",
    provider_ko="국립중앙의료원",
    provider_en="National Medical Center (NMC)",
    title_ko="국립중앙의료원_전국 약국 정보 조회 서비스",
    envelope=ConvertedJsonEnvelope(
        json_switch=("_type", "json"),
        success_code="00",
        success_msg="NORMAL SERVICE.",
        keep_text=frozenset({"dutyTel1", "hpid", "dutyName", "dutyAddr"}),
    ),
)


def _sido_matches(region: regions.Region, text: str) -> bool:
    return text in (region.sido, region.sido_short)


def _sigungu_matches(region: regions.Region, text: str) -> bool:
    sigungu = region.sigungu
    return text == sigungu or text in sigungu.split(" ")


@PHARMACY.operation(
    id="nmc_pharmacy_list",
    path="/getParmacyListInfoInqire",
    summary_ko="약국 목록정보 조회",
    summary_en="Pharmacies by region, day open and name",
    params=[
        Param("Q0", "주소(시도), 예: 서울특별시", example="서울특별시"),
        Param("Q1", "주소(시군구), 예: 강남구", example="강남구"),
        Param("QT", "진료요일 (1~7 월~일, 8 공휴일)", example="8", enum=tuple(str(n) for n in range(1, 9))),
        Param("QN", "기관명 (부분일치)", example="온누리약국"),
        Param("ORD", "순서 (NAME 기관명, ADDR 주소)", example="NAME", enum=("NAME", "ADDR")),
    ],
    fields=[
        Field("dutyAddr", "주소", example="서울특별시 강남구 테헤란로 152, 1층 (역삼동)"),
        Field("dutyEtc", "비고 (없으면 생략)", example="공휴일지킴이약국"),
        Field("dutyMapimg", "간이약도 (없으면 생략)", example="역삼역 3번 출구 120m"),
        Field("dutyName", "기관명", example="온누리약국"),
        Field("dutyTel1", "대표전화1", example="02-555-1234"),
        *[
            Field(
                f"dutyTime{d}{se}", f"진료시간({k}) {'종료' if se == 'c' else '시작'} HHMM; 휴무일은 생략", example=ex
            )
            for d, k in zip(
                range(1, 9),
                ("월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일", "공휴일"),
                strict=True,
            )
            for se, ex in (("c", "1900"), ("s", "0900"))
        ],
        Field("hpid", "기관ID", example="C1100001"),
        Field("postCdn1", "우편번호1 (앞 3자리)", example="062"),
        Field("postCdn2", "우편번호2 (뒤 2자리)", example="36"),
        Field("rnum", "일련번호", type="integer", example="1"),
        Field("wgs84Lat", "병원위도", type="number", example="37.5003"),
        Field("wgs84Lon", "병원경도", type="number", example="127.0364"),
    ],
    example={"Q0": "서울특별시", "Q1": "강남구", "QT": "1", "numOfRows": "10"},
    notes="About 25,000 synthetic pharmacies (Seoul ≈ 7,300). Q0 takes the full 시도 name or its short form "
    "(서울); Q1 the 시군구 name or one word of it (성남시 / 분당구); QN any part of the name. QT keeps pharmacies "
    "open that day (8 = 공휴일, for holiday lookups chained from 특일정보); an unknown QT is answered 10. Default "
    "order is hpid; ORD=NAME sorts by name, ORD=ADDR by 시도/시군구/법정동 (live sorts by the address text). rnum numbers the whole result. _type=json is "
    "supported (reported by clients, unconfirmed): values go through the gateway's number conversion.",
)
def pharmacy_list(ctx, params):
    sido = params.text("Q0").strip()
    sigungu = params.text("Q1").strip()
    name = params.text("QN").strip()
    qt_text = params.text("QT").strip()
    qt = None
    if qt_text:
        if qt_text not in {str(n) for n in range(1, 9)}:
            raise InvalidParam("QT")
        qt = int(qt_text)
    order = params.text("ORD").strip().upper()
    order = order if order in ("NAME", "ADDR") else "HPID"

    if not sido and not sigungu:
        listing = nation(order)
    else:
        lawds = _lawds_named(sido, sigungu)
        # Every request asks its districts' builders (cached), so a cold query builds exactly its scope.
        for lawd in lawds:
            pharmacies_in(lawd)
        listing = _scoped(lawds, order)
    found = listing.select(qt=qt, name=name)
    pharmacies = listing.pharmacies
    return LazyRecords(range(len(found)), lambda k: record(pharmacies[found[k]], k + 1))


@lru_cache(maxsize=1024)
def _lawds_named(sido: str, sigungu: str) -> tuple[str, ...]:
    """The 시군구 (LAWD_CD, in code order) that Q0 and Q1 name."""
    found = []
    for lawd in regions.lawd_codes():
        lawd_region = regions.region(lawd + "00000")
        if lawd_region is None:
            continue
        if sido and not _sido_matches(lawd_region, sido):
            continue
        if sigungu and not _sigungu_matches(lawd_region, sigungu):
            continue
        found.append(lawd)
    return tuple(found)


_SORT_KEYS = {
    "HPID": lambda p: p.hpid,
    "NAME": lambda p: (p.name, p.hpid),
    "ADDR": lambda p: (regions.region(p.leaf_code).full_name, p.hpid),
}


class Listing:
    """Pharmacies in one ORD order, with positions by day open and by name fragment for the QT and QN filters."""

    def __init__(self, pharmacies):
        self.pharmacies = tuple(pharmacies)

    @cached_property
    def by_day(self) -> dict[int, tuple[int, ...]]:
        return positions_by_each([qt for qt in range(1, DAYS + 1) if is_open(p, qt)] for p in self.pharmacies)

    @cached_property
    def names(self) -> TextIndex:
        return TextIndex([p.name for p in self.pharmacies])

    @cached_property
    def by_lawd(self) -> dict[str, tuple[int, ...]]:
        return positions_by(p.leaf_code[:5] for p in self.pharmacies)

    def build_indexes(self) -> None:
        for index in ("by_day", "names", "by_lawd"):
            getattr(self, index)

    def select(self, *, qt: int | None, name: str) -> Sequence[int]:
        filters = []
        pharmacies = self.pharmacies
        if qt is not None:
            filters.append(Filter(self.by_day.get(qt, ()), lambda p: is_open(pharmacies[p], qt)))
        if name:
            filters.append(Filter(self.names.containing(name), lambda p: name in pharmacies[p].name))
        return select(len(pharmacies), filters)


@cache
def _every_pharmacy() -> tuple[Pharmacy, ...]:
    return tuple(p for lawd in regions.lawd_codes() for p in pharmacies_in(lawd))


_NATION: dict[str, Listing] = {}


def nation(order: str) -> Listing:
    """Every pharmacy of the country in one ORD order (HPID, NAME or ADDR)."""
    found = _NATION.get(order)
    if found is None:
        found = _NATION[order] = Listing(sorted(_every_pharmacy(), key=_SORT_KEYS[order]))
    return found


@lru_cache(maxsize=1024)
def _scoped(lawds: tuple[str, ...], order: str) -> Listing:
    """Pharmacies of some districts in one order: picked from the nation's list once that exists, else sorted
    from the districts' own (a cold district query must not build the country)."""
    if order in _NATION:
        whole = nation(order)
        positions = sorted(p for lawd in lawds for p in whole.by_lawd.get(lawd, ()))
        return Listing(whole.pharmacies[p] for p in positions)
    return Listing(sorted((p for lawd in lawds for p in pharmacies_in(lawd)), key=_SORT_KEYS[order]))


def warm(now: datetime) -> None:
    """Build every pharmacy, the three nationwide orders with their indexes and every pharmacy's place
    (apis.sandbox.warm)."""
    for order in _SORT_KEYS:
        nation(order).build_indexes()
    for pharmacy in _every_pharmacy():
        place_of(pharmacy)
