"""Deterministic parcels and buildings for every 법정동: apartment complexes, officetels, 연립/다세대,
houses and shops, each with 지번, 도로명, 건물관리번호, 우편번호, floors, households, dates and coordinates.

MOLIT trades pick their complexes here and the building register describes the same ones, so a trade's
sggCd/umdCd/bonbun/bubun finds its building; Juso and others should address the same buildings.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache

from apis.sandbox.rand import pick_weighted, rng, stable_int
from apis.sandbox.world import regions

APT_BRANDS = (
    "래미안",
    "자이",
    "힐스테이트",
    "e편한세상",
    "푸르지오",
    "롯데캐슬",
    "아이파크",
    "더샵",
    "SK뷰",
    "현대",
    "삼성",
    "한신",
    "우성",
    "쌍용",
    "벽산",
    "극동",
    "대림",
    "두산위브",
    "센트레빌",
    "꿈에그린",
    "금호어울림",
    "한양",
    "신동아",
    "동아",
    "삼익",
    "럭키",
    "코오롱하늘채",
    "중흥S클래스",
    "호반써밋",
    "포레나",
)
OFFI_SUFFIX = ("오피스텔", "타워", "스퀘어", "시티", "리치빌", "센트럴", "트윈타워", "레지던스")
RH_SUFFIX = ("빌라", "하이츠", "맨션", "하우스", "빌", "캐슬", "파크빌", "그린빌", "연립")
ROAD_SUFFIX = ("로", "대로", "길")
UNIT_AREAS = (39.6, 49.94, 59.97, 59.99, 74.98, 84.95, 84.97, 84.99, 101.93, 114.8, 134.9, 164.5)

# 만원/㎡ for apartments in late 2026, by 시군구 (others fall back to their 시도).
APT_PRICE_M2 = {
    "11680": 3600,
    "11650": 3400,
    "11710": 2600,
    "11170": 2700,
    "11200": 2050,
    "11440": 1850,
    "11215": 1750,
    "11470": 1800,
    "11740": 1550,
    "11590": 1650,
    "11560": 1550,
    "11110": 1550,
    "11140": 1500,
    "11410": 1250,
    "11230": 1150,
    "11290": 1050,
    "11500": 1100,
    "11380": 1000,
    "11530": 950,
    "11620": 980,
    "11545": 820,
    "11350": 880,
    "11320": 760,
    "11305": 760,
    "11260": 820,
    "41135": 2100,
    "41290": 2800,
    "41465": 1500,
    "41173": 1300,
    "41117": 1300,
    "41450": 1250,
    "41131": 1100,
    "26350": 1050,
    "26260": 700,
    "27260": 850,
    "28185": 1000,
    "30200": 800,
    "29200": 650,
    "36110": 800,
}
SIDO_PRICE_M2 = {
    "11": 1200,
    "41": 650,
    "28": 560,
    "26": 520,
    "27": 480,
    "30": 480,
    "29": 440,
    "31": 440,
    "36": 620,
    "43": 330,
    "44": 320,
    "51": 300,
    "52": 290,
    "46": 270,
    "47": 280,
    "48": 320,
    "50": 520,
}
# 시도 -> first two digits of its 우편번호 range and how many it spans.
ZIP_RANGE = {
    "11": (1, 8),
    "41": (10, 9),
    "28": (21, 3),
    "51": (24, 3),
    "42": (24, 3),
    "43": (27, 3),
    "36": (30, 1),
    "44": (31, 3),
    "30": (34, 2),
    "47": (36, 5),
    "27": (41, 3),
    "31": (44, 2),
    "26": (46, 4),
    "48": (50, 4),
    "52": (54, 3),
    "45": (54, 3),
    "46": (57, 3),
    "29": (61, 2),
    "50": (63, 1),
}


@dataclass(frozen=True)
class Building:
    kind: str  # apt | offi | rh | house | commercial
    name: str  # complex or building name; "" for most houses
    region_code: str  # 10-digit 법정동 (리 for 읍면 with 리)
    sigungu_cd: str
    bjdong_cd: str
    plat_gb_cd: str  # 0 대지, 1 산
    bun: int
    ji: int
    road_name: str
    road_code: str  # 12 digits: 시군구 5 + 도로명번호 7 (Juso rnMgtSn)
    road_bonbun: int
    road_bubun: int
    underground: str  # "0" 지상, "1" 지하
    zip_no: str
    grnd_flr: int
    ugrnd_flr: int
    households: int
    dong_names: tuple[str, ...]  # 동 of a complex ("101동" …); () for a single building
    use_apr_day: str  # YYYYMMDD
    unit_areas: tuple[float, ...]  # 전용면적 types (㎡)
    plat_area: float
    arch_area: float
    tot_area: float
    lat: float
    lon: float
    price_per_m2: int  # 만원/㎡ in late 2026; trades scale it by the market index of their month
    house_type: str = ""  # 연립 | 다세대 for rh; 단독 | 다가구 for house
    apt_seq: str = ""  # 단지 일련번호 for apartments, e.g. "11680-1023"

    @property
    def jibun(self) -> str:
        """지번 as MOLIT writes it: "202-3", or "202" when 부번 is 0; 산 parcels get a "산" prefix."""
        text = f"{self.bun}-{self.ji}" if self.ji else str(self.bun)
        return f"산{text}" if self.plat_gb_cd == "1" else text

    @property
    def bonbun(self) -> str:
        return f"{self.bun:04d}"

    @property
    def bubun(self) -> str:
        return f"{self.ji:04d}"

    @property
    def land_cd(self) -> str:
        """MOLIT landCd: 1 대지, 2 산 (the 건축물대장 platGbCd is one less)."""
        return "2" if self.plat_gb_cd == "1" else "1"

    @property
    def build_year(self) -> int:
        return int(self.use_apr_day[:4])

    @property
    def region(self) -> regions.Region:
        return regions.region(self.region_code)

    @property
    def bd_mgt_sn(self) -> str:
        """25-digit 건물관리번호: 법정동 10 + 산 1 + 본번 4 + 부번 4 + 6-digit serial."""
        return (
            f"{self.region_code}{'2' if self.plat_gb_cd == '1' else '1'}{self.bonbun}{self.bubun}{self.ji % 97 + 1:06d}"
        )

    @property
    def jibun_address(self) -> str:
        return f"{self.region.full_name} {self.jibun}"

    @property
    def road_address(self) -> str:
        r = self.region
        head = " ".join(p for p in (r.sido, r.sigungu) if p)
        if r.ri:  # 읍면 addresses keep the 읍/면 before the road name
            head = f"{head} {r.eupmyeondong}"
        number = f"{self.road_bonbun}-{self.road_bubun}" if self.road_bubun else str(self.road_bonbun)
        return f"{head} {self.road_name} {'지하 ' if self.underground == '1' else ''}{number}"


def _stem(name: str) -> str:
    """청운동 -> 청운, 종로1가 -> 종로, 역삼1동 -> 역삼, 조치원읍 -> 조치원."""
    stem = re.sub(r"(\d+가|\d*동|\d*읍|\d*면|\d*리)$", "", name)
    return re.sub(r"\d+$", "", stem) or name


def _density(code: str) -> float:
    """How built-up a 법정동 is: 1.0 for Seoul, less for other cities, low for 읍면 and 리."""
    found = regions.region(code)
    sido = code[:2]
    base = {"11": 1.0, "26": 0.7, "27": 0.6, "28": 0.65, "29": 0.55, "30": 0.6, "31": 0.5, "36": 0.6, "41": 0.7}.get(
        sido, 0.3
    )
    if found is not None and (found.ri or found.eupmyeondong.endswith(("읍", "면"))):
        base *= 0.25 if found.ri else 0.4
    return base


# Apartment complexes per 시군구 (Seoul 구 by size of their housing stock); others by kind of place.
SEOUL_APT_COMPLEXES = {
    "11110": 25,
    "11140": 30,
    "11170": 60,
    "11200": 90,
    "11215": 60,
    "11230": 90,
    "11260": 90,
    "11290": 120,
    "11305": 50,
    "11320": 80,
    "11350": 180,
    "11380": 100,
    "11410": 80,
    "11440": 110,
    "11470": 110,
    "11500": 170,
    "11530": 130,
    "11545": 50,
    "11560": 120,
    "11590": 100,
    "11620": 80,
    "11650": 160,
    "11680": 200,
    "11710": 170,
    "11740": 120,
}
BUSY_OFFICETELS = {"11680", "11650", "11440", "11560", "11140", "11110", "11500", "11710", "41135", "28185", "26350"}


@cache
def sigungu_targets(lawd_cd: str) -> tuple[float, float, float]:
    """(apartment complexes, 연립·다세대 buildings, officetels) a 시군구 holds."""
    name = regions.sigungu_name(lawd_cd)
    if lawd_cd in SEOUL_APT_COMPLEXES:
        apt, rh = SEOUL_APT_COMPLEXES[lawd_cd], 420.0
    elif lawd_cd.startswith("36"):
        apt, rh = 150.0, 60.0
    elif name.endswith("군"):
        apt, rh = 8.0, 10.0
    elif lawd_cd[:2] in ("26", "27", "28", "29", "30", "31"):
        apt, rh = 65.0, 90.0
    elif lawd_cd[:2] == "41":
        apt, rh = 85.0, 120.0
    else:
        apt, rh = 35.0, 25.0
    offi = 40.0 if lawd_cd in BUSY_OFFICETELS else 12.0 if lawd_cd[:2] in ("11", "41", "28") else 4.0
    return float(apt), rh, offi


def _price_m2(code: str) -> float:
    return APT_PRICE_M2.get(code[:5]) or SIDO_PRICE_M2.get(code[:2], 300)


def _zip(code: str, index: int) -> str:
    start, span = ZIP_RANGE.get(code[:2], (60, 1))
    sgg_rank = regions.lawd_codes().index(code[:5]) if code[:5] in regions.lawd_codes() else 0
    base = start * 1000 + (sgg_rank * 137) % (span * 1000)
    return f"{(base + index * 7) % 100000:05d}"


def _roads(code: str) -> list[tuple[str, str]]:
    """A few roads for a 법정동: (name, 12-digit road code). Names follow the 동 ("청운로", "청운로3길")."""
    region = regions.region(code)
    stem = _stem(region.leaf_name if region else "중앙")
    r = rng("roads", code)
    main = f"{stem}{pick_weighted(r, [('로', 0.8), ('대로', 0.2)])}"
    names = [main] + [f"{main}{n}길" for n in sorted(r.sample(range(1, 60), r.randint(2, 5)))]
    return [(name, f"{code[:5]}{3000000 + (stable_int(code[:5], name) % 999999):07d}") for name in names]


def _use_apr_day(r, kind: str) -> str:
    if kind == "apt":
        year = int(
            pick_weighted(
                r, [(r.randint(1976, 1989), 0.22), (r.randint(1990, 2004), 0.38), (r.randint(2005, 2025), 0.40)]
            )
        )
    elif kind == "offi":
        year = r.randint(1995, 2025)
    elif kind == "rh":
        year = int(pick_weighted(r, [(r.randint(1985, 2001), 0.35), (r.randint(2002, 2025), 0.65)]))
    else:
        year = r.randint(1965, 2024)
    return f"{year}{r.randint(1, 12):02d}{r.randint(1, 28):02d}"


@cache
def buildings_in(bjdong_code: str) -> tuple[Building, ...]:
    """Every building of one leaf 법정동 (10 digits), in 지번 order."""
    region = regions.region(bjdong_code)
    if region is None or region.abolished or region.level < 3:
        return ()
    leaves = {r.code for r in regions.leaf_dongs_in(bjdong_code[:5])}
    if bjdong_code not in leaves:
        return ()
    r = rng("buildings", bjdong_code)
    density = _density(bjdong_code)
    share = 1.0 / len(leaves)

    def spread(target: float) -> int:
        # The 시군구's target spread over its 법정동 at random; fractional parts round by chance.
        value = target * share * r.uniform(0.2, 1.8)
        return int(value) + (r.random() < value - int(value))

    apt_target, rh_target, offi_target = sigungu_targets(bjdong_code[:5])
    counts = {
        "apt": spread(apt_target),
        "offi": spread(offi_target),
        "rh": spread(rh_target),
        "house": int(round(r.uniform(3, 10) * (0.5 + density))),
        "commercial": int(round(r.uniform(1, 6) * density)) + 1,
    }
    roads = _roads(bjdong_code)
    lat0, lon0 = regions.center(bjdong_code)
    used: set[tuple[str, int, int]] = set()
    bun_cursor = r.randint(1, 60)
    built: list[Building] = []
    region_price = _price_m2(bjdong_code) * r.uniform(0.82, 1.22)
    apt_index = 0
    names: set[str] = set()
    for kind in ("apt", "offi", "rh", "house", "commercial"):
        for n in range(counts[kind]):
            br = rng("building", bjdong_code, kind, n)
            plat = "1" if kind == "house" and br.random() < 0.05 else "0"
            bun_cursor += br.randint(1, 40)
            bun = bun_cursor % 1500 + 1
            ji = 0 if kind == "apt" and br.random() < 0.7 else br.randint(1, 60)
            while (plat, bun, ji) in used:
                ji += 1
            used.add((plat, bun, ji))
            road_name, road_code = roads[br.randrange(len(roads))]
            apr = _use_apr_day(br, kind)
            age = 2026 - int(apr[:4])
            angle, dist = br.random() * 2 * math.pi, 0.9 * math.sqrt(br.random())
            lat = round(lat0 + dist / 111.0 * math.cos(angle), 6)
            lon = round(lon0 + dist / (111.0 * math.cos(math.radians(lat0))) * math.sin(angle), 6)
            stem = _stem(region.leaf_name)
            name, house_type, dong_names, apt_seq = "", "", (), ""
            if kind == "apt":
                brand = APT_BRANDS[br.randrange(len(APT_BRANDS))]
                if age > 30 and br.random() < 0.3:
                    name = f"{stem}주공{br.randint(1, 9)}단지"
                else:
                    name = pick_weighted(
                        br,
                        [(f"{stem}{brand}", 0.5), (f"{brand}{stem}", 0.3), (f"{stem}{brand}{br.randint(2, 5)}차", 0.2)],
                    )
                households = int(math.exp(br.uniform(math.log(120), math.log(3200))))
                floors = br.randint(5, 15) if age > 30 else br.randint(12, 35)
                dong_count = max(1, math.ceil(households / (floors * 4)))
                dong_names = tuple(f"{101 + i}동" for i in range(dong_count))
                areas = tuple(sorted(br.sample(UNIT_AREAS, br.randint(2, 5))))
                dong_index = [c.code for c in regions.leaf_dongs_in(bjdong_code[:5])].index(bjdong_code)
                apt_seq = f"{bjdong_code[:5]}-{1000 + dong_index * 20 + apt_index}"
                apt_index += 1
                price = region_price * (1.18 if age < 6 else 1.0 if age < 20 else 0.88 if age < 33 else 1.05)
            elif kind == "offi":
                name = f"{stem}{OFFI_SUFFIX[br.randrange(len(OFFI_SUFFIX))]}"
                floors = br.randint(10, 25)
                households = br.randint(80, 600)
                areas = tuple(sorted(br.sample((19.8, 23.5, 27.1, 29.9, 33.2, 41.7, 59.9, 84.5), br.randint(2, 4))))
                price = region_price * 0.62
            elif kind == "rh":
                name = f"{stem}{RH_SUFFIX[br.randrange(len(RH_SUFFIX))]}" + (
                    f"{br.randint(1, 5)}차" if br.random() < 0.3 else ""
                )
                house_type = pick_weighted(br, [("다세대", 0.8), ("연립", 0.2)])
                floors = br.randint(3, 5) if house_type == "연립" else br.randint(4, 7)
                households = br.randint(8, 40)
                areas = tuple(
                    sorted(br.sample((29.7, 36.4, 42.1, 49.5, 54.9, 59.8, 68.2, 75.3, 84.8), br.randint(2, 4)))
                )
                price = region_price * 0.45
            elif kind == "house":
                house_type = pick_weighted(br, [("단독", 0.6), ("다가구", 0.4)])
                floors = br.randint(1, 3) if house_type == "단독" else br.randint(3, 4)
                households = 1 if house_type == "단독" else br.randint(3, 19)
                areas = (round(br.uniform(60, 330), 2),)
                price = region_price * 0.5
            else:
                name = f"{stem}{pick_weighted(br, [('빌딩', 0.5), ('프라자', 0.3), ('상가', 0.2)])}"
                floors = br.randint(2, 15)
                households = 0
                areas = (round(br.uniform(150, 4000), 2),)
                price = region_price * 0.7
            if name and name in names:  # two complexes of one 법정동 never share a name
                name = next(f"{name}{k}차" for k in range(2, 99) if f"{name}{k}차" not in names)
            names.add(name)
            ugrnd = br.randint(1, 3) if kind in ("apt", "offi", "commercial") else br.randint(0, 1)
            per_floor = sum(areas) / len(areas) * 1.35
            tot = round(per_floor * max(households, 1) if kind in ("apt", "offi", "rh") else areas[0] * floors, 2)
            plat_area = round(tot / br.uniform(1.5, 3.2) if kind != "house" else areas[0] * br.uniform(1.0, 1.6), 2)
            arch_area = round(min(plat_area * br.uniform(0.15, 0.6), tot / max(floors, 1) * 1.1), 2)
            built.append(
                Building(
                    kind=kind,
                    name=name,
                    region_code=bjdong_code,
                    sigungu_cd=bjdong_code[:5],
                    bjdong_cd=bjdong_code[5:],
                    plat_gb_cd=plat,
                    bun=bun,
                    ji=ji,
                    road_name=road_name,
                    road_code=road_code,
                    road_bonbun=br.randint(1, 320),
                    road_bubun=0 if br.random() < 0.7 else br.randint(1, 30),
                    underground="0",
                    zip_no=_zip(bjdong_code, len(built)),
                    grnd_flr=floors,
                    ugrnd_flr=ugrnd,
                    households=households,
                    dong_names=dong_names,
                    use_apr_day=apr,
                    unit_areas=areas,
                    plat_area=plat_area,
                    arch_area=arch_area,
                    tot_area=tot,
                    lat=lat,
                    lon=lon,
                    price_per_m2=int(price),
                    house_type=house_type,
                    apt_seq=apt_seq,
                )
            )
    return tuple(sorted(built, key=lambda b: (b.plat_gb_cd, b.bun, b.ji)))


@cache
def _in_sigungu(lawd_cd: str, kind: str) -> tuple[Building, ...]:
    return tuple(b for dong in regions.leaf_dongs_in(lawd_cd) for b in buildings_in(dong.code) if b.kind == kind)


def apartments_in(lawd_cd: str) -> tuple[Building, ...]:
    """Apartment complexes of a 시군구 (5-digit LAWD_CD), 법정동 then 지번 order."""
    return _in_sigungu(lawd_cd, "apt")


def officetels_in(lawd_cd: str) -> tuple[Building, ...]:
    return _in_sigungu(lawd_cd, "offi")


def rowhouses_in(lawd_cd: str) -> tuple[Building, ...]:
    """연립·다세대 buildings of a 시군구."""
    return _in_sigungu(lawd_cd, "rh")


def houses_in(lawd_cd: str) -> tuple[Building, ...]:
    return _in_sigungu(lawd_cd, "house")


def apartment(apt_seq: str) -> Building | None:
    lawd_cd = apt_seq.split("-", 1)[0]
    return next((b for b in apartments_in(lawd_cd) if b.apt_seq == apt_seq), None)


def building_at(sigungu_cd: str, bjdong_cd: str, plat_gb_cd: str, bun: int | str, ji: int | str) -> Building | None:
    """The building on one parcel (plat_gb_cd 0 대지 / 1 산), or None."""
    try:
        bun_i, ji_i = int(bun), int(ji)
    except ValueError:
        return None
    for b in buildings_in(sigungu_cd + bjdong_cd):
        if b.plat_gb_cd == plat_gb_cd and b.bun == bun_i and b.ji == ji_i:
            return b
    return None


def buildings_on_road(lawd_cd: str, road_name: str) -> tuple[Building, ...]:
    return tuple(
        b for dong in regions.leaf_dongs_in(lawd_cd) for b in buildings_in(dong.code) if b.road_name == road_name
    )
