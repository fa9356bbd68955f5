"""Helpers the health and business families share: people's names, phone numbers, and placing a
facility in one of the world's buildings so its address, 우편번호 and coordinates match other APIs."""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from functools import cache

from apis.sandbox.rand import pick_weighted, rng
from apis.sandbox.world import buildings, regions
from apis.sandbox.world.seeds import read_csv

# Surnames by their share of the population (통계청 2015 census order of magnitude).
SURNAMES = [
    ("김", 21.5),
    ("이", 14.7),
    ("박", 8.4),
    ("최", 4.7),
    ("정", 4.3),
    ("강", 2.4),
    ("조", 2.1),
    ("윤", 2.1),
    ("장", 2.0),
    ("임", 1.7),
    ("한", 1.5),
    ("오", 1.5),
    ("서", 1.5),
    ("신", 1.4),
    ("권", 1.4),
    ("황", 1.4),
    ("안", 1.3),
    ("송", 1.3),
    ("류", 1.2),
    ("전", 1.1),
    ("홍", 1.1),
    ("고", 0.9),
    ("문", 0.9),
    ("양", 0.9),
    ("손", 0.9),
    ("배", 0.8),
    ("백", 0.7),
    ("허", 0.6),
    ("유", 0.6),
    ("남", 0.5),
    ("심", 0.5),
    ("노", 0.4),
    ("하", 0.4),
    ("곽", 0.4),
    ("성", 0.4),
    ("차", 0.4),
    ("주", 0.4),
    ("우", 0.4),
    ("구", 0.4),
    ("민", 0.3),
]
GIVEN_SYLLABLES = (
    "민",
    "서",
    "지",
    "현",
    "준",
    "영",
    "수",
    "호",
    "우",
    "진",
    "성",
    "은",
    "하",
    "윤",
    "재",
    "동",
    "혜",
    "경",
    "연",
    "상",
    "정",
    "태",
    "승",
    "유",
    "희",
    "미",
    "선",
    "철",
    "광",
    "기",
    "도",
    "예",
    "주",
    "원",
    "석",
    "훈",
    "빈",
    "아",
    "린",
    "채",
    "규",
    "환",
    "용",
    "숙",
    "순",
    "옥",
    "범",
    "혁",
    "찬",
    "다",
)

# 지역번호 by the first two digits of the 법정동 code.
AREA_CODES = {
    "11": "02",
    "26": "051",
    "27": "053",
    "28": "032",
    "29": "062",
    "30": "042",
    "31": "052",
    "36": "044",
    "41": "031",
    "42": "033",
    "51": "033",
    "43": "043",
    "44": "041",
    "45": "063",
    "52": "063",
    "46": "061",
    "47": "054",
    "48": "055",
    "50": "064",
}


# Clinics and pharmacies cluster where people work and shop, not only where they live.
DENSITY = {"11680": 2.2, "11650": 2.0, "11110": 2.6, "11140": 2.6, "11440": 1.4, "11560": 1.4, "11710": 1.3}


def density(lawd_cd: str) -> float:
    """Facilities per resident relative to the country: Seoul and its centres higher, 군 lower."""
    if lawd_cd in DENSITY:
        return DENSITY[lawd_cd]
    if lawd_cd.startswith("11"):
        return 1.25
    region = regions.region(lawd_cd + "00000")
    return 0.85 if region is not None and region.sigungu.endswith("군") else 1.0


def poisson(r: random.Random, lam: float) -> int:
    """A Poisson draw (normal approximation above 30)."""
    if lam <= 0:
        return 0
    if lam > 30:
        return max(0, int(round(r.gauss(lam, math.sqrt(lam)))))
    limit, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= r.random()
        if p <= limit:
            return k
        k += 1


def choose(r: random.Random, options: list[tuple[object, float]]):
    """Like pick_weighted, but an option may be a callable that builds the value only when it is drawn."""
    picked = pick_weighted(r, options)
    return picked() if callable(picked) else picked


@cache
def stem(name: str) -> str:
    """역삼1동 -> 역삼, 종로1가 -> 종로, 조치원읍 -> 조치원."""
    bare = re.sub(r"(\d+가|\d*동|\d*읍|\d*면|\d*리)$", "", name)
    return re.sub(r"\d+$", "", bare) or name


def person_name(r: random.Random) -> str:
    """A plausible Korean name: weighted surname and two given-name syllables."""
    surname = pick_weighted(r, SURNAMES)
    first, second = r.choice(GIVEN_SYLLABLES), r.choice(GIVEN_SYLLABLES)
    while second == first:
        second = r.choice(GIVEN_SYLLABLES)
    return f"{surname}{first}{second}"


def phone_number(r: random.Random, region_code: str) -> str:
    """A landline in the region's area code: 02-XXXX-XXXX in Seoul, 0XX-XXX(X)-XXXX elsewhere."""
    area = AREA_CODES.get(region_code[:2], "02")
    exchange = r.randint(200, 999) if r.random() < 0.25 else r.randint(2000, 9999)
    return f"{area}-{exchange}-{r.randint(0, 9999):04d}"


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in metres (haversine, mean Earth radius)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6_371_008.8 * math.asin(math.sqrt(min(1.0, a)))


@dataclass(frozen=True)
class Place:
    """Where a facility sits: its building, the floor (0 for a whole building) and its coordinates."""

    building: buildings.Building
    floor: int
    lat: float
    lon: float

    @property
    def zip_no(self) -> str:
        return self.building.zip_no

    def address(self, *, floor_text: bool = True) -> str:
        """Road address as facility registers write it: "서울특별시 강남구 테헤란로 123, 2층 (역삼동)".

        The 동 goes in brackets only for 동 (not 읍/면), as the road-address rules say."""
        b = self.building
        text = b.road_address
        if floor_text and self.floor > 0:
            text += f", {self.floor}층"
        region = b.region
        if not region.ri and not region.eupmyeondong.endswith(("읍", "면")):
            text += f" ({region.eupmyeondong})"
        return text


@cache
def _hosts(leaf_code: str) -> tuple[buildings.Building, ...]:
    """Buildings that take tenants: shops and officetels first, any building when a 동 has none."""
    found = buildings.buildings_in(leaf_code)
    preferred = tuple(b for b in found if b.kind in ("commercial", "offi"))
    return preferred or found


def place_in(leaf_code: str, *parts: object, whole_building: bool = False) -> Place | None:
    """A deterministic spot in a leaf 법정동 for the facility named by parts."""
    hosts = _hosts(leaf_code)
    if not hosts:
        return None
    r = rng("place", leaf_code, *parts)
    building = hosts[r.randrange(len(hosts))]
    floor = 0 if whole_building else r.randint(1, max(1, min(building.grnd_flr, 8)))
    # Tenants of one building share its point, give or take a few metres of geocoding noise.
    lat = building.lat + r.uniform(-0.00004, 0.00004)
    lon = building.lon + r.uniform(-0.00004, 0.00004)
    return Place(building, floor, lat, lon)


@cache
def _leaves_by_lawd() -> dict[str, tuple[regions.Region, ...]]:
    rows: dict[str, list[regions.Region]] = {}
    with_ri: set[str] = set()
    for region in regions.regions():
        if region.level in (3, 4):
            rows.setdefault(region.code[:5], []).append(region)
            if region.level == 4:
                with_ri.add(region.code[:8])
    return {lawd: tuple(r for r in found if r.level == 4 or r.code[:8] not in with_ri) for lawd, found in rows.items()}


def leaves(lawd_cd: str) -> tuple[regions.Region, ...]:
    """regions.leaf_dongs_in(lawd_cd) for every 시군구 from one pass over the code table (that function scans
    the whole table per call, which adds up to seconds when a family walks the country)."""
    return _leaves_by_lawd().get(lawd_cd, ())


@cache
def lawds_in_sido(sido2: str) -> tuple[str, ...]:
    return tuple(lawd for lawd in regions.lawd_codes() if lawd.startswith(sido2))


@cache
def leaf_centers(lawd_cd: str) -> tuple[tuple[regions.Region, float, float], ...]:
    """The leaf 법정동 of a 시군구 with their centers (computing a center is slow; each is done once)."""
    return tuple((leaf, *regions.center(leaf.code)) for leaf in leaves(lawd_cd))


def leaves_near(lat: float, lon: float, radius_m: float) -> list[regions.Region]:
    """Leaf 법정동 whose buildings may lie within radius_m of the point (buildings sit ≤ 0.9 km from
    their 동's center, so the margin is one kilometre). 시군구 far from the point are skipped by their
    own center: a 구 spans well under 15 km, a 시 or 군 under 45 km."""
    reach = radius_m + 1000.0
    found = []
    for lawd in regions.lawd_codes():
        sigungu = regions.region(lawd + "00000")
        span = 15_000.0 if sigungu is not None and sigungu.sigungu.endswith("구") else 45_000.0
        if distance_m(lat, lon, *regions.center(lawd + "00000")) > reach + span:
            continue
        found.extend(leaf for leaf, la, lo in leaf_centers(lawd) if distance_m(lat, lon, la, lo) <= reach)
    return found


# Revised Romanization, syllable by syllable (no sound-change rules): enough for web addresses.
_INITIALS = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h")
_MEDIALS = (
    "a",
    "ae",
    "ya",
    "yae",
    "eo",
    "e",
    "yeo",
    "ye",
    "o",
    "wa",
    "wae",
    "oe",
    "yo",
    "u",
    "wo",
    "we",
    "wi",
    "yu",
    "eu",
    "ui",
    "i",
)
_FINALS = (
    "",
    "k",
    "k",
    "k",
    "n",
    "n",
    "n",
    "t",
    "l",
    "k",
    "m",
    "l",
    "l",
    "l",
    "p",
    "l",
    "m",
    "p",
    "p",
    "t",
    "t",
    "ng",
    "t",
    "t",
    "k",
    "t",
    "p",
    "t",
)


def romanize(text: str) -> str:
    """ "서울중앙" -> "seouljungang"; characters that are not Hangul syllables are dropped unless ASCII."""
    out = []
    for char in text:
        code = ord(char) - 0xAC00
        if 0 <= code < 11172:
            out.append(_INITIALS[code // 588] + _MEDIALS[(code % 588) // 28] + _FINALS[code % 28])
        elif char.isascii() and char.isalnum():
            out.append(char.lower())
    return "".join(out)


@cache
def _stations() -> tuple[tuple[str, float, float], ...]:
    """Seoul-area subway stations (seeds/seoul_subway_stations.csv), one point per name."""
    seen: dict[str, tuple[str, float, float]] = {}
    for row in read_csv("seoul_subway_stations.csv"):
        name = re.sub(r"\(.*\)$", "", row["station_name"]).strip()
        seen.setdefault(name, (name, float(row["lat"]), float(row["lon"])))
    return tuple(seen.values())


@cache
def _station_arrays():
    # numpy is imported here, not at module level, so processes that never look for a station skip its import.
    import numpy

    stations = _stations()
    return numpy, numpy.array([s[1] for s in stations]), numpy.array([s[2] for s in stations])


def nearest_station(lat: float, lon: float) -> tuple[str, float]:
    """(역명 without 역, metres) of the nearest Seoul-area subway station."""
    stations = _stations()
    numpy, lats, lons = _station_arrays()
    rough = (lats - lat) ** 2 + ((lons - lon) * 0.8) ** 2
    # numpy's squares may differ from Python's in the last bit, so it only shortlists the stations within a
    # hair of its best; the exact key picks among them, the first in file order on a tie, as a full min() does.
    shortlist = numpy.flatnonzero(rough <= rough.min() * (1 + 1e-9)).tolist()
    name, la, lo = min((stations[i] for i in shortlist), key=lambda s: (s[1] - lat) ** 2 + ((s[2] - lon) * 0.8) ** 2)
    return name, distance_m(lat, lon, la, lo)
