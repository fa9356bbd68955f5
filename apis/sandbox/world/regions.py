"""Real 법정동 codes and names (seeds/bdong_codes.csv) with helpers every family uses, plus map centers.

Codes are 10 digits: 시도2 + 시군구3 + 읍면동3 + 리2. LAWD_CD / sigunguCd is code[:5], bjdongCd code[5:].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from apis.sandbox.rand import rng
from apis.sandbox.world.seeds import read_csv

SIDO_SHORT = {
    "서울특별시": "서울",
    "부산광역시": "부산",
    "대구광역시": "대구",
    "인천광역시": "인천",
    "광주광역시": "광주",
    "대전광역시": "대전",
    "울산광역시": "울산",
    "세종특별자치시": "세종",
    "경기도": "경기",
    "강원특별자치도": "강원",
    "강원도": "강원",
    "충청북도": "충북",
    "충청남도": "충남",
    "전북특별자치도": "전북",
    "전라북도": "전북",
    "전라남도": "전남",
    "경상북도": "경북",
    "경상남도": "경남",
    "제주특별자치도": "제주",
}


@dataclass(frozen=True)
class Region:
    code: str
    name: str  # 법정동명 exactly as published (4 names keep a trailing space)
    sido: str
    sigungu: str  # "" for 세종 and for 시도 rows; "수원시 장안구" for a 구 of a 시
    eupmyeondong: str
    ri: str
    abolished: bool
    created_date: str
    abolished_date: str

    @property
    def level(self) -> int:
        """1 시도, 2 시군구, 3 읍면동, 4 리."""
        if self.ri:
            return 4
        if self.eupmyeondong:
            return 3
        return 2 if self.sigungu else 1

    @property
    def full_name(self) -> str:
        return self.name.strip()

    @property
    def lawd_cd(self) -> str:
        return self.code[:5]

    @property
    def bjdong_cd(self) -> str:
        return self.code[5:]

    @property
    def leaf_name(self) -> str:
        """The lowest part of the name (locallow_nm): 청운동, 종로구, 서울특별시."""
        return self.ri or self.eupmyeondong or self.sigungu or self.sido

    @property
    def sido_short(self) -> str:
        return SIDO_SHORT.get(self.sido, self.sido[:2])

    @property
    def parent_code(self) -> str | None:
        """The code one level up (리 -> 읍면, 읍면동 -> 시군구, 구 of a 시 -> 시, 시군구 -> 시도)."""
        if self.level == 1:
            return None
        if self.level == 4:
            return self.code[:8] + "00"
        if self.level == 3:
            candidate = self.code[:5] + "00000"
            return candidate if candidate in _by_code() else sido_code_of(self.code)
        # 시군구: a 구 of a 시 (41111 수원시 장안구) hangs under the 시 (41110) when that row exists.
        city = self.code[:4] + "0" + "00000"
        if city != self.code and city in _by_code() and _by_code()[city].level == 2:
            return city
        return sido_code_of(self.code)


@cache
def _all() -> tuple[Region, ...]:
    return tuple(
        Region(
            code=row["code"],
            name=row["name"],
            sido=row["sido"],
            sigungu=row["sigungu"],
            eupmyeondong=row["eupmyeondong"],
            ri=row["ri"],
            abolished=row["abolished"] == "Y",
            created_date=row["created_date"],
            abolished_date=row["abolished_date"],
        )
        for row in read_csv("bdong_codes.csv")
    )


@cache
def _by_code() -> dict[str, Region]:
    # Existing rows win over abolished ones that reuse a code.
    found: dict[str, Region] = {}
    for region in _all():
        if region.code not in found or not region.abolished:
            found[region.code] = region
    return found


def region(code: str) -> Region | None:
    return _by_code().get(code)


def regions(*, include_abolished: bool = False) -> tuple[Region, ...]:
    """Every region in code order (존재 only unless asked), the order the 법정동코드 API lists them."""
    return _all() if include_abolished else _existing()


@cache
def _existing() -> tuple[Region, ...]:
    return tuple(r for r in _all() if not r.abolished)


def sido_code_of(code: str) -> str:
    return "3611000000" if code.startswith("36") else code[:2] + "00000000"


@cache
def sido_list() -> tuple[Region, ...]:
    return tuple(r for r in _existing() if r.level == 1)


@cache
def sigungu_list(sido_cd: str | None = None) -> tuple[Region, ...]:
    """시군구 rows (both a 시 and its 구 appear, as in the code table)."""
    return tuple(r for r in _existing() if r.level == 2 and (sido_cd is None or r.code.startswith(sido_cd)))


@cache
def lawd_codes() -> tuple[str, ...]:
    """5-digit codes that hold 읍면동 directly: what MOLIT LAWD_CD / 건축물대장 sigunguCd accept."""
    return tuple(sorted({r.code[:5] for r in _existing() if r.level == 3}))


@cache
def _existing_by_lawd() -> dict[str, tuple[Region, ...]]:
    """First five digits -> the existing rows with that prefix, in code order (one pass instead of one per
    시군구: families that walk the country ask for every 시군구's 동)."""
    found: dict[str, list[Region]] = {}
    for r in _existing():
        found.setdefault(r.code[:5], []).append(r)
    return {prefix: tuple(rows) for prefix, rows in found.items()}


def _starting_with(prefix: str) -> tuple[Region, ...]:
    if len(prefix) == 5:
        return _existing_by_lawd().get(prefix, ())
    return tuple(r for r in _existing() if r.code.startswith(prefix))


@cache
def dongs_in(lawd_cd: str) -> tuple[Region, ...]:
    """읍면동 rows directly under a 5-digit 시군구 code."""
    return tuple(r for r in _starting_with(lawd_cd) if r.level == 3)


@cache
def leaf_dongs_in(lawd_cd: str) -> tuple[Region, ...]:
    """Where parcels sit: the 리 of a 읍/면 that has 리, otherwise the 동 itself."""
    rows = [r for r in _starting_with(lawd_cd) if r.level in (3, 4)]
    with_ri = {r.code[:8] for r in rows if r.level == 4}
    return tuple(r for r in rows if r.level == 4 or r.code[:8] not in with_ri)


def children(code: str) -> tuple[Region, ...]:
    return tuple(r for r in _existing() if r.parent_code == code)


def search(fragment: str, *, include_abolished: bool = False) -> list[Region]:
    """Partial match on the full name, as the 법정동코드 API's locatadd_nm does."""
    fragment = fragment.strip()
    return [r for r in regions(include_abolished=include_abolished) if fragment in r.name]


def sigungu_name(lawd_cd: str) -> str:
    """'종로구', '수원시 장안구', or the 시도 name for 세종."""
    found = region(lawd_cd + "00000")
    if found is None:
        return ""
    return found.sigungu or found.sido


# --- map centers -------------------------------------------------------------------------------


@cache
def _grid_centers() -> tuple[dict[str, tuple[float, float]], dict[tuple[str, str], tuple[float, float]]]:
    """From kma_grid.csv (행정동 codes): 시군구 centers by code[:5], 읍면동 centers by (code[:5], name)."""
    sgg: dict[str, tuple[float, float]] = {}
    dong: dict[tuple[str, str], tuple[float, float]] = {}
    for row in read_csv("kma_grid.csv"):
        try:
            point = (round(float(row["lat"]), 6), round(float(row["lon"]), 6))
        except ValueError:
            continue
        code = row["code"]
        if row["level3"]:
            dong.setdefault((code[:5], row["level3"]), point)
        elif row["level2"]:
            sgg.setdefault(code[:5], point)
        else:
            sgg.setdefault(code[:2], point)
    return sgg, dong


def _offset(point: tuple[float, float], radius_km: float, *parts: object) -> tuple[float, float]:
    r = rng("center", *parts)
    distance = radius_km * math.sqrt(r.random())
    angle = r.random() * 2 * math.pi
    lat = point[0] + distance / 111.0 * math.cos(angle)
    lon = point[1] + distance / (111.0 * math.cos(math.radians(point[0]))) * math.sin(angle)
    return round(lat, 6), round(lon, 6)


@cache
def center(code: str) -> tuple[float, float]:
    """(lat, lon) WGS84 of a region: KMA's table where names match, else the parent's center nudged
    deterministically (a 동 within ~1.5 km of its 구, a 리 within ~3 km of its 읍면)."""
    sgg, dong = _grid_centers()
    found = region(code)
    if found is None or found.level == 1:
        return sgg.get(code[:2], (36.5, 127.8))
    if found.level == 2:
        if code[:5] in sgg:
            return sgg[code[:5]]
        parent = found.parent_code
        return _offset(center(parent), 8.0, code) if parent and parent != code else sgg.get(code[:2], (36.5, 127.8))
    if found.level == 3:
        name = found.eupmyeondong
        exact = dong.get((code[:5], name))
        if exact:
            return exact
        stem = name[:-1]
        for (prefix, admin_name), point in dong.items():
            # 법정동 역삼동 ~ 행정동 역삼1동: same stem followed by a digit
            if prefix == code[:5] and admin_name.startswith(stem) and admin_name[len(stem) : len(stem) + 1].isdigit():
                return _offset(point, 0.4, code)
        return _offset(center(code[:5] + "00000"), 1.5, code)
    return _offset(center(code[:8] + "00"), 3.0, code)


def ancestors(code: str) -> list[str]:
    """Codes above a region, nearest first."""
    chain, current = [], region(code)
    while current is not None and current.parent_code and current.parent_code != current.code:
        chain.append(current.parent_code)
        current = region(current.parent_code)
    return chain


@cache
def descendants(code: str) -> tuple[Region, ...]:
    """Existing regions below code (not code itself), in code order."""
    prefix = code[:2]
    return tuple(r for r in _existing() if r.code != code and r.code.startswith(prefix) and code in ancestors(r.code))


@cache
def dongs_in_sido(sido_code: str) -> tuple[Region, ...]:
    """Every leaf 법정동 (where parcels sit) of a 시도."""
    prefix = sido_code[:2]
    return tuple(leaf for lawd in lawd_codes() if lawd.startswith(prefix) for leaf in leaf_dongs_in(lawd))
