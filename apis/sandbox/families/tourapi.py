"""한국관광공사 TourAPI 4.0 국문 관광정보 (B551011/KorService2): area codes, area-based lists and the common
and type-specific details of one content.

Area and 시군구 codes are the real TourAPI tables (seeds/tourapi_codes.csv), each tied to its 법정동 시군구.
Places are synthetic but plausible: titles built from the real 동 and 시군구 names of the area plus a kind
("개포근린공원", "종로문화원", "역삼칼국수"), one place a name within a 시군구 and type (a repeat is named after its
동, else numbered as a branch), addresses and coordinates on the world's buildings, dates before the sandbox clock. Live traits kept: resultCode 0000 / OK, MobileOS and MobileApp required, every value a
string (mapx/mapy too), `"items": ""` when empty, gateway errors in XML even for `_type=json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache, cached_property

from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.standard import StandardEnvelope
from apis.sandbox.errors import InvalidParam
from apis.sandbox.families._listing import Filter, Picked, positions_by, select
from apis.sandbox.rand import pick_weighted, rng
from apis.sandbox.registry import Field, LazyRecords, Param
from apis.sandbox.world import buildings, regions
from apis.sandbox.world.seeds import read_csv

KOR_SERVICE = datagokr_service(
    id="KorService2",
    org="B551011",
    provider_ko="한국관광공사",
    provider_en="Korea Tourism Organization (KTO), TourAPI 4.0",
    title_ko="한국관광공사_국문 관광정보 서비스_GW",
    envelope=StandardEnvelope(json_switch=("_type", "json"), success_code="0000", success_msg="OK"),
    gateway_json_errors=False,
)

IMAGE_HOST = "http://tong.visitkorea.sandbox.invalid"  # a reserved (.invalid) host: the images do not exist
HOMEPAGE_HOST = "www.tour.sandbox.invalid"
MOBILE_OS = ("IOS", "AND", "WIN", "ETC", "WEB")
CONTENT_TYPES = ("12", "14", "15", "25", "28", "32", "38", "39")
ARRANGES = ("A", "C", "D", "O", "Q", "R")
# TourAPI's legacy area code -> 법정동 시도 code (KorService2 lDongRegnCd).
AREA_TO_SIDO = {
    "1": "11", "2": "28", "3": "30", "4": "27", "5": "29", "6": "26", "7": "31", "8": "36", "31": "41",
    "32": "51", "33": "43", "34": "44", "35": "47", "36": "48", "37": "52", "38": "46", "39": "50",
}  # fmt: skip
# 시군구 the TourAPI table still lists under their old names.
LEGACY_SIGUNGU = {
    ("33", "9"): ("청주시 청원구",),
    ("35", "5"): ("군위군",),
    ("36", "6"): ("창원시 마산합포구", "창원시 마산회원구"),
    ("36", "14"): ("창원시 진해구",),
    ("39", "1"): ("서귀포시",),
    ("39", "2"): ("제주시",),
}
COASTAL_SIDO = {"26", "28", "31", "44", "46", "47", "48", "50", "51"}
PHONE_PREFIX = {
    "11": "02", "26": "051", "27": "053", "28": "032", "29": "062", "30": "042", "31": "052", "36": "044",
    "41": "031", "51": "033", "43": "043", "44": "041", "52": "063", "46": "061", "47": "054", "48": "055", "50": "064",
}  # fmt: skip


@dataclass(frozen=True)
class Area:
    area_code: str
    sigungu_code: str
    name: str
    sido: str  # 법정동 시도 code (2 digits)
    lawds: tuple[str, ...]  # 5-digit 법정동 시군구 codes the TourAPI 시군구 covers
    index: int  # position in the table, part of every contentid


@cache
def areas() -> tuple[dict[str, str], ...]:
    return tuple(row for row in read_csv("tourapi_codes.csv") if row["kind"] == "area")


@cache
def sigungus() -> tuple[Area, ...]:
    found = []
    for index, row in enumerate(r for r in read_csv("tourapi_codes.csv") if r["kind"] == "sigungu"):
        sido = AREA_TO_SIDO[row["areaCode"]]
        names = LEGACY_SIGUNGU.get((row["areaCode"], row["sigunguCode"]), (row["name"],))
        lawds = tuple(
            lawd
            for lawd in regions.lawd_codes()
            if lawd.startswith(sido) and any(_sigungu_matches(regions.sigungu_name(lawd), name) for name in names)
        )
        if sido == "36":
            lawds = ("36110",)
        found.append(Area(row["areaCode"], row["sigunguCode"], row["name"], sido, lawds, index))
    return tuple(found)


def _sigungu_matches(full: str, name: str) -> bool:
    return full == name or full.startswith(name + " ")


@cache
def _sigungu_by_code() -> dict[tuple[str, str], Area]:
    return {(a.area_code, a.sigungu_code): a for a in sigungus()}


def _stem(name: str) -> str:
    """역삼1동 -> 역삼, 종로구 -> 종로, 수원시 장안구 -> 수원, 가평군 -> 가평."""
    word = name.split(" ")[0]
    while word and (word[-1].isdigit() or word[-1] in "동읍면리가구시군"):
        if len(word) <= 2 and not word[-1].isdigit():
            break
        word = word[:-1]
    return word or name


def _has_final(word: str) -> bool:
    last = word.strip()[-1:] if word.strip() else ""
    if "가" <= last <= "힣":
        return (ord(last) - 0xAC00) % 28 != 0
    return last.isdigit() and last in "013678"


def _topic(word: str) -> str:
    return f"{word}{'은' if _has_final(word) else '는'}"


# Kinds per content type: (name pattern, cat1, cat2, cat3, lclsSystm1..3, weight, coastal/rural only).
# {d} is a 동 stem, {s} the 시군구 stem; the category codes follow TourAPI's 서비스분류 tree.
KINDS: dict[str, list[tuple[str, str, str, str, str, float, str]]] = {
    "12": [
        ("{d}근린공원", "A02", "A0202", "A02020700", "VE030500", 3, ""),
        ("{d}공원", "A02", "A0202", "A02020700", "VE030500", 2, ""),
        ("{d}생태공원", "A01", "A0101", "A01010500", "NA040100", 1, ""),
        ("{s}전망대", "A02", "A0205", "A02050200", "VE060100", 0.5, ""),
        ("{d}산", "A01", "A0101", "A01010400", "NA010100", 1, ""),
        ("{d}약수터", "A01", "A0101", "A01011000", "NA010300", 0.6, ""),
        ("{d}고택", "A02", "A0201", "A02010400", "HS010300", 0.6, ""),
        ("{s}향교", "A02", "A0201", "A02010700", "HS010400", 0.4, ""),
        ("{d}사", "A02", "A0201", "A02010800", "HS020100", 1, ""),
        ("{d}마을", "A02", "A0201", "A02010600", "HS010500", 0.8, ""),
        ("{d}벽화마을", "A02", "A0203", "A02030600", "VE070100", 0.5, ""),
        ("{d} 문화거리", "A02", "A0203", "A02030600", "VE070100", 0.7, ""),
        ("{s}수목원", "A01", "A0101", "A01010700", "NA040200", 0.3, ""),
        ("{d}계곡", "A01", "A0101", "A01010900", "NA010400", 1, "rural"),
        ("{d}폭포", "A01", "A0101", "A01010800", "NA010500", 0.4, "rural"),
        ("{s}자연휴양림", "A01", "A0101", "A01010600", "NA040300", 0.4, "rural"),
        ("{d}해수욕장", "A01", "A0101", "A01011200", "NA020100", 1, "coastal"),
        ("{d}항", "A01", "A0101", "A01011400", "NA020300", 0.6, "coastal"),
    ],
    "14": [
        ("{s}역사박물관", "A02", "A0206", "A02060100", "VE020100", 1, ""),
        ("{d}미술관", "A02", "A0206", "A02060500", "VE020200", 1, ""),
        ("{d}도서관", "A02", "A0206", "A02060900", "VE020500", 2, ""),
        ("{s}문화원", "A02", "A0206", "A02060700", "VE020400", 0.5, ""),
        ("{s}문화예술회관", "A02", "A0206", "A02060600", "VE020300", 0.5, ""),
        ("{d}기념관", "A02", "A0206", "A02060200", "VE020100", 0.6, ""),
        ("{d} 갤러리", "A02", "A0206", "A02060500", "VE020200", 1, ""),
    ],
    "15": [
        ("{s} 벚꽃축제", "A02", "A0207", "A02070200", "EV010100", 1, ""),
        ("{s} 단풍축제", "A02", "A0207", "A02070200", "EV010100", 1, ""),
        ("{s} 빛축제", "A02", "A0207", "A02070200", "EV010200", 1, ""),
        ("{d} 거리예술제", "A02", "A0207", "A02070200", "EV010300", 1, ""),
        ("{s} 먹거리 한마당", "A02", "A0207", "A02070200", "EV010400", 1, ""),
        ("{s} 가을 음악회", "A02", "A0208", "A02081000", "EV020100", 1, ""),
    ],
    "25": [
        ("{s} 당일치기 여행 코스", "C01", "C0112", "C01120001", "C0112", 1, ""),
        ("{d} 골목 걷기 코스", "C01", "C0115", "C01150001", "C0115", 1, ""),
        ("{s} 맛집 탐방 코스", "C01", "C0117", "C01170001", "C0117", 1, ""),
        ("혼자 떠나는 {s} 여행", "C01", "C0113", "C01130001", "C0113", 1, ""),
    ],
    "28": [
        ("{d} 오토캠핑장", "A03", "A0302", "A03021700", "LS030100", 1, ""),
        ("{s}국민체육센터 수영장", "A03", "A0303", "A03030600", "LS020100", 1, ""),
        ("{d} 자전거길", "A03", "A0302", "A03020700", "LS010100", 1, ""),
        ("{d} 클라이밍센터", "A03", "A0302", "A03022100", "LS010300", 0.5, ""),
        ("{d}승마장", "A03", "A0302", "A03021200", "LS010400", 0.4, "rural"),
        ("{d} 카약체험장", "A03", "A0303", "A03030200", "LS020200", 0.6, "coastal"),
    ],
    "32": [
        ("{d} 관광호텔", "B02", "B0201", "B02010100", "AC010100", 2, ""),
        ("호텔 {d}", "B02", "B0201", "B02010100", "AC010100", 1, ""),
        ("{d} 게스트하우스", "B02", "B0201", "B02011100", "AC030200", 2, ""),
        ("{d} 한옥스테이", "B02", "B0201", "B02011600", "AC030300", 0.5, ""),
        ("{d} 펜션", "B02", "B0201", "B02010700", "AC020100", 2, "rural"),
    ],
    "38": [
        ("{d}시장", "A04", "A0401", "A04010200", "SH010100", 2, ""),
        ("{d}전통시장", "A04", "A0401", "A04010200", "SH010100", 1, ""),
        ("{s} 5일장", "A04", "A0401", "A04010100", "SH010200", 0.5, "rural"),
        ("{d} 상점가", "A04", "A0401", "A04010600", "SH020100", 1, ""),
        ("{d} 공예공방", "A04", "A0401", "A04010700", "SH030100", 0.6, ""),
        ("{s} 로컬푸드직매장", "A04", "A0401", "A04010900", "SH040100", 0.5, ""),
    ],
    "39": [
        ("{d}{food}", "A05", "A0502", "A05020100", "FD010100", 4, ""),
        ("{surname}가네 {food}", "A05", "A0502", "A05020100", "FD010100", 2, ""),
        ("원조{d}{food}", "A05", "A0502", "A05020100", "FD010100", 1, ""),
        ("{d}반점", "A05", "A0502", "A05020400", "FD030100", 1, ""),
        ("스시 {d}", "A05", "A0502", "A05020300", "FD040100", 0.6, ""),
        ("{d} 비스트로", "A05", "A0502", "A05020200", "FD050100", 0.6, ""),
        ("{d}찻집", "A05", "A0502", "A05020900", "FD060100", 0.6, ""),
    ],
}
FOODS = ("칼국수", "순대국", "갈비", "냉면", "한정식", "곰탕", "막국수", "닭갈비", "보쌈", "족발", "설렁탕", "추어탕",
         "해장국", "국밥", "두부마을", "보리밥", "삼계탕", "불고기", "생선구이", "아구찜")  # fmt: skip
SURNAMES = ("김", "이", "박", "최", "정", "강", "조", "윤", "장", "임", "한", "오", "서", "신", "권")
TYPE_NAMES = {
    "12": "관광지",
    "14": "문화시설",
    "15": "축제",
    "25": "여행코스",
    "28": "레포츠 시설",
    "32": "숙소",
    "38": "쇼핑 명소",
    "39": "음식점",
}
# Places per 시군구 for a Seoul 구; other places scale down (see _scale).
# 종로구 (the 23rd 서울 시군구, table index 22): its first place of each type, used by the operations' examples.
EXAMPLE_IDS = {typeid: str(125000 + (22 * 8 + slot) * 400) for slot, typeid in enumerate(CONTENT_TYPES)}
EXAMPLE_ID = EXAMPLE_IDS["12"]
BASE_COUNTS = {"12": 28, "14": 18, "15": 5, "25": 3, "28": 7, "32": 30, "38": 14, "39": 75}


@dataclass(frozen=True)
class Place:
    contentid: str
    typeid: str
    title: str
    area: Area
    dong: str  # 10-digit leaf 법정동 code it stands in
    cats: tuple[str, str, str]
    lcls: str
    created: datetime
    has_image: bool
    kind: str  # the kind word ("근린공원", "칼국수" …) used by the overview


def _scale(area: Area) -> float:
    if area.sido == "11":
        return 1.0
    if area.name.endswith("군"):
        return 0.35
    return 0.6 if area.sido in ("26", "27", "28", "29", "30", "31") else 0.5


def _contentid(area: Area, typeid: str, n: int) -> str:
    return str(125000 + (area.index * 8 + CONTENT_TYPES.index(typeid)) * 400 + n)


def _decode(contentid: str) -> tuple[Area, str, int] | None:
    if not contentid.isdigit() or int(contentid) < 125000:
        return None
    rest, n = divmod(int(contentid) - 125000, 400)
    index, slot = divmod(rest, 8)
    table = sigungus()
    if index >= len(table):
        return None
    return table[index], CONTENT_TYPES[slot], n


@cache
def places_of(area_code: str, sigungu_code: str, typeid: str) -> tuple[Place, ...]:
    area = _sigungu_by_code().get((area_code, sigungu_code))
    if area is None or not area.lawds:
        return ()
    dongs = [d for lawd in area.lawds for d in regions.leaf_dongs_in(lawd)]
    if not dongs:
        return ()
    r = rng("tour-count", area_code, sigungu_code, typeid)
    count = max(1, int(BASE_COUNTS[typeid] * _scale(area) * r.uniform(0.6, 1.5)))
    rural = area.name.endswith("군") or area.sido not in ("11", "26", "27", "28", "29", "30", "31")
    coastal = area.sido in COASTAL_SIDO
    kinds = [k for k in KINDS[typeid] if not k[6] or (k[6] == "rural" and rural) or (k[6] == "coastal" and coastal)]
    sgg_stem = _stem(area.name)
    found = []
    taken: dict[str, int] = {}  # title -> places of that name so far
    for n in range(min(count, 399)):
        pr = rng("tour-place", area_code, sigungu_code, typeid, n)
        # A name the district already has is drawn again (another kind, another 동): real listings hold one park
        # or museum of a name per 시군구; a restaurant or a lodging of a taken name is a branch (2호점).
        for attempt in range(_NAME_DRAWS):
            dong = pr.choice(dongs)
            pattern, cat1, cat2, cat3, lcls, _, _ = pick_weighted(pr, [(k, k[5]) for k in kinds])
            food = pr.choice(FOODS)
            parts = {"d": _stem(dong.leaf_name), "food": food, "surname": pr.choice(SURNAMES)}
            title = _unique_title(
                pattern.format(s=sgg_stem, **parts),
                pattern.format(s=parts["d"], **parts),
                typeid,
                taken,
                branch=attempt == _NAME_DRAWS - 1,
            )
            if title:
                break
        created = datetime(2003, 1, 1) + timedelta(days=pr.randint(0, 8000), seconds=pr.randint(0, 86399))
        kind = food if "{food}" in pattern else pattern.replace("{d}", "").replace("{s}", "").strip()
        found.append(
            Place(
                contentid=_contentid(area, typeid, n),
                typeid=typeid,
                title=title,
                area=area,
                dong=dong.code,
                cats=(cat1, cat2, cat3),
                lcls=lcls,
                created=created,
                has_image=pr.random() < 0.72,
                kind=kind,
            )
        )
    return tuple(found)


_NAME_DRAWS = 40  # draws of a new name before a place of a taken one becomes a branch
_CHAINS = ("39", "32")  # restaurants and lodging: a taken name is a branch, as chains are


def _unique_title(title: str, local: str, typeid: str, taken: dict[str, int], *, branch: bool) -> str | None:
    """One name a place within a 시군구 and type, as in the real listings: a second "관악역사박물관" is named after its
    동 instead ("봉천역사박물관"); where that is taken too, a restaurant or a lodging is a branch ("봉천칼국수 2호점")
    and any other place has no name yet (None: draw again), unless `branch` (the last draw), when it is "… 2관"."""
    for candidate in (title, local):
        if candidate not in taken:
            taken[candidate] = 1
            return candidate
    chain = typeid in _CHAINS
    if not chain and not branch:
        return None
    taken[title] += 1
    named = f"{title} {taken[title]}호점" if chain else f"{title} {taken[title]}관"
    taken[named] = 1
    return named


def _modified(place: Place, now: datetime) -> datetime:
    """Last edit: between creation and the sandbox clock (most pages were touched in recent years)."""
    start = place.created
    end = now.replace(tzinfo=None)
    if end <= start:
        return start
    span = (end - start).total_seconds()
    return start + timedelta(seconds=int(span * _modified_share(place.contentid)))


@cache
def _modified_share(contentid: str) -> float:
    """Where between creation and the clock a place's last edit falls (independent of the clock)."""
    return rng("tour-modified", contentid).betavariate(4, 1.3)


def find_place(contentid: str) -> Place | None:
    decoded = _decode(contentid)
    if decoded is None:
        return None
    area, typeid, n = decoded
    found = places_of(area.area_code, area.sigungu_code, typeid)
    return found[n] if n < len(found) else None


@dataclass(frozen=True)
class Site:
    """Where a place is: address, zip code and coordinates on one of the world's buildings."""

    addr1: str
    addr2: str
    zipcode: str
    lat: float
    lon: float


def site(place: Place) -> Site:
    return _site(place.contentid, place.dong)


@cache
def _site(contentid: str, dong: str) -> Site:
    r = rng("tour-site", contentid)
    candidates = [b for b in buildings.buildings_in(dong) if b.kind in ("commercial", "house", "offi")]
    if candidates:
        b = candidates[r.randrange(len(candidates))]
        addr2 = f"({regions.region(dong).leaf_name})" if r.random() < 0.4 else ""
        return Site(b.road_address, addr2, b.zip_no, b.lat + r.uniform(-2e-5, 2e-5), b.lon + r.uniform(-2e-5, 2e-5))
    lat, lon = regions.center(dong)
    region = regions.region(dong)
    return Site(f"{region.full_name} {r.randint(1, 900)}", "", "", lat, lon)


def _tel(place: Place) -> str:
    r = rng("tour-tel", place.contentid)
    if r.random() < 0.15:
        return ""
    return f"{PHONE_PREFIX.get(place.area.sido, '02')}-{r.randint(200, 999)}-{r.randint(1000, 9999)}"


def _images(place: Place) -> tuple[str, str]:
    if not place.has_image:
        return "", ""
    folder = int(place.contentid) % 97
    stem = f"{IMAGE_HOST}/cms/resource/{folder:02d}/{int(place.contentid) * 7 % 9_000_000 + 1_000_000}"
    return f"{stem}_image2_1.jpg", f"{stem}_image3_1.jpg"


def list_record(place: Place, now: datetime) -> dict[str, str]:
    where = site(place)
    image, thumb = _images(place)
    return {
        "addr1": where.addr1,
        "addr2": where.addr2,
        "areacode": place.area.area_code,
        "cat1": place.cats[0],
        "cat2": place.cats[1],
        "cat3": place.cats[2],
        "contentid": place.contentid,
        "contenttypeid": place.typeid,
        "createdtime": place.created.strftime("%Y%m%d%H%M%S"),
        "firstimage": image,
        "firstimage2": thumb,
        "cpyrhtDivCd": "Type3" if image else "",
        "mapx": f"{where.lon:.10f}",
        "mapy": f"{where.lat:.10f}",
        "mlevel": "6",
        "modifiedtime": _modified(place, now).strftime("%Y%m%d%H%M%S"),
        "sigungucode": place.area.sigungu_code,
        "tel": _tel(place),
        "title": place.title,
        "zipcode": where.zipcode,
        "lDongRegnCd": place.dong[:2],
        "lDongSignguCd": place.dong[2:5],
        "lclsSystm1": place.lcls[:2],
        "lclsSystm2": place.lcls[:4],
        "lclsSystm3": place.lcls,
    }


def _check_common(params) -> None:
    if params.text("MobileOS").strip().upper() not in MOBILE_OS:
        raise InvalidParam("MobileOS")


COMMON_PARAMS = [
    Param("MobileOS", "OS 구분 (IOS, AND, WIN, ETC)", required=True, example="ETC", enum=("IOS", "AND", "WIN", "ETC")),
    Param("MobileApp", "서비스명 (어플명)", required=True, example="AppTest"),
]


@KOR_SERVICE.operation(
    id="tour_area_code2",
    path="/areaCode2",
    summary_ko="지역코드 조회",
    summary_en="TourAPI area codes (시도), or the 시군구 of one area",
    params=[*COMMON_PARAMS, Param("areaCode", "지역코드 (주면 그 지역의 시군구 목록)", example="1")],
    fields=[
        Field("rnum", "일련번호", type="integer", example="1"),
        Field("code", "지역코드 또는 시군구코드", example="1"),
        Field("name", "지역명 또는 시군구명", example="서울"),
    ],
    example={"MobileOS": "ETC", "MobileApp": "AppTest", "_type": "json", "numOfRows": "20"},
    notes="17 areas without areaCode (two pages at the default 10 rows); the 시군구 table is an older snapshot "
    "(it still lists 마산시, 진해시, 남제주군, 북제주군 and 청원군), as the seed provenance says.",
)
def area_code2(ctx, params):
    _check_common(params)
    code = params.text("areaCode").strip()
    if not code:
        rows = [(row["areaCode"], row["name"]) for row in areas()]
    else:
        rows = [(a.sigungu_code, a.name) for a in sigungus() if a.area_code == code]
    return [{"rnum": n, "code": c, "name": name} for n, (c, name) in enumerate(rows, start=1)]


def _sort(found: Sequence[Place], arrange: str, now: datetime | None) -> list[Place]:
    """The places in an arrange order (now matters to C and Q only)."""
    if arrange in ("A", "O"):
        return sorted(found, key=lambda p: (p.title, p.contentid))
    if arrange in ("D", "R"):
        return sorted(found, key=lambda p: (p.created, p.contentid), reverse=True)
    return sorted(found, key=lambda p: (_modified(p, now), p.contentid), reverse=True)


class Listing:
    """Every place of the country in one arrange order, with positions by each filtered field: a filtered
    list is the ordered places at the narrowest filter's positions that pass the other filters."""

    def __init__(self, places: Sequence[Place]):
        self.places = tuple(places)

    def _column(self, value_of) -> tuple:
        return tuple(value_of(p) for p in self.places)

    @cached_property
    def columns(self) -> dict[str, tuple]:
        return {
            "area": self._column(lambda p: p.area.area_code),
            "sigungu": self._column(lambda p: (p.area.area_code, p.area.sigungu_code)),
            "type": self._column(lambda p: p.typeid),
            "cat1": self._column(lambda p: p.cats[0]),
            "cat2": self._column(lambda p: p.cats[1]),
            "cat3": self._column(lambda p: p.cats[2]),
            "regn": self._column(lambda p: p.dong[:2]),
            "signgu": self._column(lambda p: p.dong[2:5]),
            "image": self._column(lambda p: p.has_image),
        }

    @cached_property
    def positions(self) -> dict[str, dict]:
        return {name: positions_by(column) for name, column in self.columns.items()}

    def build_indexes(self) -> None:
        self.positions  # noqa: B018 (a cached property: reading it builds it)

    def select(self, wanted: dict[str, object]) -> Sequence[int]:
        """Positions of the places whose fields equal every wanted value (column name -> value)."""
        filters = []
        for name, value in wanted.items():
            column = self.columns[name]
            filters.append(Filter(self.positions[name].get(value, ()), lambda p, c=column, v=value: c[p] == v))
        return select(len(self.places), filters)


@cache
def _every_place() -> tuple[Place, ...]:
    """Every place, 시군구 by 시군구 and type by type (the order the list is gathered in before sorting)."""
    return tuple(p for a in sigungus() for t in CONTENT_TYPES for p in places_of(a.area_code, a.sigungu_code, t))


@cache
def _listing(arrange: str) -> Listing:
    """The nationwide listing for a clock-free order (A/O by title, D/R by creation)."""
    return Listing(_sort(_every_place(), arrange, None))


_BY_MODIFIED: dict[datetime, Listing] = {}


def listing(arrange: str, now: datetime) -> Listing:
    """The nationwide listing in an arrange order; C/Q (by last edit) depends on the clock, kept for a few."""
    if arrange not in ("C", "Q"):
        return _listing("A" if arrange in ("A", "O") else "D")
    key = now.replace(tzinfo=None)
    found = _BY_MODIFIED.get(key)
    if found is None:
        found = Listing(_sort(_every_place(), "C", now))
        if len(_BY_MODIFIED) >= 8:
            _BY_MODIFIED.clear()
        _BY_MODIFIED[key] = found
    return found


@KOR_SERVICE.operation(
    id="tour_area_based_list2",
    path="/areaBasedList2",
    summary_ko="지역기반 관광정보 조회",
    summary_en="Tourism contents of an area, by type",
    params=[
        *COMMON_PARAMS,
        Param(
            "arrange", "정렬 (A 제목, C 수정일, D 생성일; O/Q/R 은 대표이미지 있는 것만)", example="C", enum=ARRANGES
        ),
        Param(
            "contentTypeId",
            "관광타입 (12 관광지, 14 문화시설, 15 축제공연행사, 25 여행코스, 28 레포츠, 32 숙박, 38 쇼핑, 39 음식점)",
            example="12",
        ),
        Param("areaCode", "지역코드 (areaCode2)", example="1"),
        Param("sigunguCode", "시군구코드 (areaCode2 에 areaCode 를 주어 얻음)", example="23"),
        Param("lDongRegnCd", "법정동 시도코드", example="11"),
        Param("lDongSignguCd", "법정동 시군구코드 (3자리)", example="110"),
        Param("cat1", "대분류", example="A02"),
        Param("cat2", "중분류", example="A0202"),
        Param("cat3", "소분류", example="A02020700"),
    ],
    fields=[
        Field("addr1", "주소", example="서울특별시 종로구 사직로 161"),
        Field("addr2", "상세주소", example=""),
        Field("areacode", "지역코드", example="1"),
        Field("cat1", "대분류", example="A02"),
        Field("cat2", "중분류", example="A0202"),
        Field("cat3", "소분류", example="A02020700"),
        Field("contentid", "콘텐츠 ID", example=EXAMPLE_ID),
        Field("contenttypeid", "관광타입 ID", example="12"),
        Field("createdtime", "등록일 (YYYYMMDDHHMMSS)", example="20070919000000"),
        Field("firstimage", "대표이미지 (원본)", example=f"{IMAGE_HOST}/cms/resource/12/2345678_image2_1.jpg"),
        Field("firstimage2", "대표이미지 (썸네일)", example=f"{IMAGE_HOST}/cms/resource/12/2345678_image3_1.jpg"),
        Field("cpyrhtDivCd", "저작권 유형", example="Type3"),
        Field("mapx", "경도 (WGS84, 문자열)", example="126.9769930325"),
        Field("mapy", "위도 (WGS84, 문자열)", example="37.5788222356"),
        Field("mlevel", "지도 레벨", example="6"),
        Field("modifiedtime", "수정일 (YYYYMMDDHHMMSS)", example="20250101000000"),
        Field("sigungucode", "시군구코드", example="23"),
        Field("tel", "전화번호", example="02-3700-3900"),
        Field("title", "제목", example="사직근린공원"),
        Field("zipcode", "우편번호", example="03045"),
        Field("lDongRegnCd", "법정동 시도코드", example="11"),
        Field("lDongSignguCd", "법정동 시군구코드", example="110"),
        Field("lclsSystm1", "분류체계 대분류", example="VE"),
        Field("lclsSystm2", "분류체계 중분류", example="VE03"),
        Field("lclsSystm3", "분류체계 소분류", example="VE030500"),
    ],
    example={"MobileOS": "ETC", "MobileApp": "AppTest", "_type": "json", "areaCode": "1", "contentTypeId": "12"},
    notes="Synthetic places (Seoul alone has about 700 관광지 and 1,900 음식점, so page 1 is a trap). arrange "
    "defaults to C (수정일순); the lclsSystm values have the new 분류체계's shape but are not the real table.",
)
def area_based_list2(ctx, params):
    _check_common(params)
    arrange = params.text("arrange", "C").strip().upper() or "C"
    if arrange not in ARRANGES:
        raise InvalidParam("arrange")
    typeid = params.text("contentTypeId").strip()
    area_code, sigungu_code = params.text("areaCode").strip(), params.text("sigunguCode").strip()
    regn, signgu = params.text("lDongRegnCd").strip(), params.text("lDongSignguCd").strip()
    for name, value in (("contentTypeId", typeid), ("areaCode", area_code), ("sigunguCode", sigungu_code)):
        if value and not value.isdigit():
            raise InvalidParam(name)
    if typeid and typeid not in CONTENT_TYPES:
        return []
    if sigungu_code and not area_code:
        return []
    wanted: dict[str, object] = {}
    if area_code:
        wanted.update({"sigungu": (area_code, sigungu_code)} if sigungu_code else {"area": area_code})
    if typeid:
        wanted["type"] = typeid
    for name in ("cat1", "cat2", "cat3"):
        if want := params.text(name).strip():
            wanted[name] = want
    if regn:
        wanted["regn"] = regn
    if signgu:
        wanted["signgu"] = signgu
    if arrange in ("O", "Q", "R"):
        wanted["image"] = True
    ordered = listing(arrange, ctx.now)
    found = ordered.select(wanted)
    return LazyRecords(Picked(ordered.places, found), lambda p: list_record(p, ctx.now))


def _overview(place: Place, where: Site) -> str:
    region = regions.region(place.dong)
    place_words = f"{region.sido} {region.sigungu} {region.leaf_name}".replace("  ", " ")
    r = rng("tour-overview", place.contentid)
    type_name = TYPE_NAMES[place.typeid]
    opening = f"{_topic(place.title)} {place_words}에 자리한 {type_name}이다."
    middle = {
        "12": ["사계절 산책을 즐기려는 주민과 여행객이 즐겨 찾는 곳으로, 봄에는 꽃길이 가을에는 단풍이 아름답다.",
               "주변에 작은 쉼터와 산책로가 잘 정비되어 있어 가족 나들이 장소로 알맞다.",
               "옛 마을의 모습과 이야기가 남아 있어 천천히 걸으며 둘러보기 좋다."],
        "14": ["지역의 역사와 문화를 소개하는 상설 전시와 함께 계절마다 기획 전시가 열린다.",
               "누구나 편하게 들러 전시와 강좌를 즐길 수 있는 열린 문화 공간이다."],
        "15": ["지역 주민과 예술가가 함께 만드는 행사로, 공연과 체험 부스, 먹거리 장터가 어우러진다.",
               "해마다 많은 관람객이 찾는 지역 대표 축제로, 낮과 밤 모두 다채로운 프로그램이 이어진다."],
        "25": ["대중교통으로 이동하기 쉬운 명소를 엮은 코스로, 반나절이면 여유 있게 둘러볼 수 있다.",
               "걷기 좋은 골목과 오래된 가게, 작은 공원을 차례로 지나는 코스다."],
        "28": ["초보자도 안전하게 즐길 수 있도록 강습과 장비 대여를 함께 운영한다.",
               "주말이면 가족 단위 이용객으로 붐비므로 미리 예약하는 것이 좋다."],
        "32": ["역과 주요 관광지가 가까워 여행의 거점으로 삼기 좋은 숙소다.",
               "깔끔한 객실과 친절한 서비스로 재방문 손님이 많다."],
        "38": ["지역 농산물과 먹거리, 생활용품을 고루 갖춘 곳으로 구경하는 재미가 있다.",
               "오래된 점포와 새로 생긴 가게가 함께 어우러진 활기찬 곳이다."],
        "39": [f"정성껏 끓여 내는 {place.kind}이(가) 대표 메뉴로, 점심시간이면 줄을 서는 곳이다.",
               f"{place.kind} 한 가지로 오랫동안 자리를 지켜 온 동네 맛집이다."],
    }[place.typeid]  # fmt: skip
    closing = f"주소는 {where.addr1}이며, 가까운 대중교통을 이용하면 편리하다."
    return f"{opening} {r.choice(middle)}<br>\n{closing}"


def _homepage(place: Place) -> str:
    if rng("tour-homepage", place.contentid).random() < 0.4:
        return ""
    url = f"https://{HOMEPAGE_HOST}/{place.contentid}"
    return f'<a href="{url}" target="_blank" title="새창 : 홈페이지로 이동">{url.removeprefix("https://")}</a>'


DETAIL_COMMON_FIELDS = [
    Field("contentid", "콘텐츠 ID", example=EXAMPLE_ID),
    Field("contenttypeid", "관광타입 ID", example="12"),
    Field("title", "제목", example="사직근린공원"),
    Field("createdtime", "등록일", example="20070919000000"),
    Field("modifiedtime", "수정일", example="20250101000000"),
    Field("tel", "전화번호", example="02-3700-3900"),
    Field("telname", "전화번호명", example="종로구청 관광과"),
    Field("homepage", "홈페이지 (HTML 조각)", example=f'<a href="https://{HOMEPAGE_HOST}/{EXAMPLE_ID}">…</a>'),
    Field("firstimage", "대표이미지", example=""),
    Field("firstimage2", "썸네일", example=""),
    Field("cpyrhtDivCd", "저작권 유형", example="Type3"),
    Field("areacode", "지역코드", example="1"),
    Field("sigungucode", "시군구코드", example="23"),
    Field("lDongRegnCd", "법정동 시도코드", example="11"),
    Field("lDongSignguCd", "법정동 시군구코드", example="110"),
    Field("lclsSystm1", "분류체계 대분류", example="VE"),
    Field("lclsSystm2", "분류체계 중분류", example="VE03"),
    Field("lclsSystm3", "분류체계 소분류", example="VE030500"),
    Field("cat1", "대분류", example="A02"),
    Field("cat2", "중분류", example="A0202"),
    Field("cat3", "소분류", example="A02020700"),
    Field("addr1", "주소", example="서울특별시 종로구 사직로 161"),
    Field("addr2", "상세주소", example=""),
    Field("zipcode", "우편번호", example="03045"),
    Field("mapx", "경도", example="126.9769930325"),
    Field("mapy", "위도", example="37.5788222356"),
    Field("mlevel", "지도 레벨", example="6"),
    Field("overview", "개요 (HTML 가능)", example="사직근린공원은 …"),
]


@KOR_SERVICE.operation(
    id="tour_detail_common2",
    path="/detailCommon2",
    summary_ko="공통정보 조회",
    summary_en="Common details of one tourism content",
    params=[
        *COMMON_PARAMS,
        Param("contentId", "콘텐츠 ID (areaBasedList2 의 contentid)", required=True, example=EXAMPLE_ID),
    ],
    fields=DETAIL_COMMON_FIELDS,
    example={"MobileOS": "ETC", "MobileApp": "AppTest", "_type": "json", "contentId": EXAMPLE_ID},
    notes="contentId only (KorService2 dropped KorService1's *YN flags); an unknown id answers empty items.",
)
def detail_common2(ctx, params):
    _check_common(params)
    content_id = params.text("contentId").strip()
    if not content_id.isdigit():
        raise InvalidParam("contentId")
    place = find_place(content_id)
    if place is None:
        return []
    row = list_record(place, ctx.now)
    where = site(place)
    extra = {
        "telname": f"{place.area.name}청 문화관광과" if row["tel"] and place.typeid in ("12", "14", "15", "25") else "",
        "homepage": _homepage(place),
        "overview": _overview(place, where),
    }
    record = {**row, **extra}
    return [{f.name: record[f.name] for f in DETAIL_COMMON_FIELDS}]


# detailIntro2 fields per content type, in the order the live answers list them.
INTRO_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "12": (("accomcount", "수용인원"), ("chkbabycarriage", "유모차 대여"), ("chkcreditcard", "신용카드 가능"),
           ("chkpet", "애완동물 동반"), ("expagerange", "체험가능 연령"), ("expguide", "체험안내"),
           ("heritage1", "세계문화유산 유무"), ("heritage2", "세계자연유산 유무"), ("heritage3", "세계기록유산 유무"),
           ("infocenter", "문의 및 안내"), ("opendate", "개장일"), ("parking", "주차시설"), ("restdate", "쉬는날"),
           ("useseason", "이용시기"), ("usetime", "이용시간")),
    "14": (("accomcountculture", "수용인원"), ("chkbabycarriageculture", "유모차 대여"),
           ("chkcreditcardculture", "신용카드 가능"), ("chkpetculture", "애완동물 동반"), ("discountinfo", "할인정보"),
           ("infocenterculture", "문의 및 안내"), ("parkingculture", "주차시설"), ("parkingfee", "주차요금"),
           ("restdateculture", "쉬는날"), ("usefee", "이용요금"), ("usetimeculture", "이용시간"), ("scale", "규모"),
           ("spendtime", "관람 소요시간")),
    "15": (("agelimit", "관람 가능연령"), ("bookingplace", "예매처"), ("discountinfofestival", "할인정보"),
           ("eventenddate", "행사 종료일"), ("eventhomepage", "행사 홈페이지"), ("eventplace", "행사 장소"),
           ("eventstartdate", "행사 시작일"), ("festivalgrade", "축제등급"), ("placeinfo", "행사장 위치안내"),
           ("playtime", "공연시간"), ("program", "행사 프로그램"), ("spendtimefestival", "관람 소요시간"),
           ("sponsor1", "주최자 정보"), ("sponsor1tel", "주최자 연락처"), ("sponsor2", "주관사 정보"),
           ("sponsor2tel", "주관사 연락처"), ("subevent", "부대행사"), ("usetimefestival", "이용요금")),
    "25": (("distance", "코스 총거리"), ("infocentertourcourse", "문의 및 안내"), ("schedule", "코스 일정"),
           ("taketime", "코스 총 소요시간"), ("theme", "코스 테마")),
    "28": (("accomcountleports", "수용인원"), ("chkbabycarriageleports", "유모차 대여"),
           ("chkcreditcardleports", "신용카드 가능"), ("chkpetleports", "애완동물 동반"),
           ("expagerangeleports", "체험 가능연령"), ("infocenterleports", "문의 및 안내"), ("openperiod", "개장기간"),
           ("parkingfeeleports", "주차요금"), ("parkingleports", "주차시설"), ("reservation", "예약안내"),
           ("restdateleports", "쉬는날"), ("scaleleports", "규모"), ("usefeeleports", "입장료"),
           ("usetimeleports", "이용시간")),
    "32": (("accomcountlodging", "수용 가능인원"), ("checkintime", "입실 시간"), ("checkouttime", "퇴실 시간"),
           ("chkcooking", "객실내 취사 여부"), ("foodplace", "식음료장"), ("infocenterlodging", "문의 및 안내"),
           ("parkinglodging", "주차시설"), ("pickup", "픽업 서비스"), ("roomcount", "객실수"),
           ("reservationlodging", "예약안내"), ("reservationurl", "예약안내 홈페이지"), ("roomtype", "객실유형"),
           ("scalelodging", "규모"), ("subfacility", "부대시설"), ("barbecue", "바비큐장 여부"), ("fitness", "휘트니스센터 여부"),
           ("refundregulation", "환불규정")),
    "38": (("chkbabycarriageshopping", "유모차 대여"), ("chkcreditcardshopping", "신용카드 가능"),
           ("chkpetshopping", "애완동물 동반"), ("culturecenter", "문화센터 바로가기"), ("fairday", "장서는 날"),
           ("infocentershopping", "문의 및 안내"), ("opendateshopping", "개장일"), ("opentime", "영업시간"),
           ("parkingshopping", "주차시설"), ("restdateshopping", "쉬는날"), ("restroom", "화장실 설명"),
           ("saleitem", "판매 품목"), ("saleitemcost", "판매 품목별 가격"), ("scaleshopping", "규모"),
           ("shopguide", "매장안내")),
    "39": (("chkcreditcardfood", "신용카드 가능"), ("discountinfofood", "할인정보"), ("firstmenu", "대표 메뉴"),
           ("infocenterfood", "문의 및 안내"), ("kidsfacility", "어린이 놀이방 여부"), ("opendatefood", "개업일"),
           ("opentimefood", "영업시간"), ("packing", "포장 가능"), ("parkingfood", "주차시설"),
           ("reservationfood", "예약안내"), ("restdatefood", "쉬는날"), ("scalefood", "규모"), ("seat", "좌석수"),
           ("smoking", "금연/흡연 여부"), ("treatmenu", "취급 메뉴"), ("lcnsno", "인허가번호")),
}  # fmt: skip


def intro_record(place: Place, now: datetime) -> dict[str, str]:
    """The type-specific details: hours, rest days, parking, fees … in the portal's free-text style."""
    r = rng("tour-intro", place.contentid)
    tel = _tel(place) or f"{PHONE_PREFIX.get(place.area.sido, '02')}-120"
    open_hour = r.choice(("09:00", "10:00", "11:00", "11:30"))
    close_hour = r.choice(("18:00", "20:00", "21:00", "22:00"))
    rest = r.choice(("연중무휴", "매주 월요일", "매주 월요일, 1월 1일, 설·추석 당일", "매월 둘째·넷째 일요일"))
    parking = r.choice(("가능", "불가", "가능 (소형 20대)", "인근 공영주차장 이용"))
    yes_no = lambda: r.choice(("가능", "불가", "없음"))  # noqa: E731
    values: dict[str, str] = {}
    if place.typeid == "12":
        values = {
            "accomcount": r.choice(("", "1,000명", "300명")),
            "chkbabycarriage": yes_no(),
            "chkcreditcard": yes_no(),
            "chkpet": r.choice(("불가", "가능 (목줄 착용)")),
            "expagerange": r.choice(("", "전연령")),
            "expguide": r.choice(("", "숲 해설 프로그램 (주말 10:00, 14:00)")),
            "heritage1": "0",
            "heritage2": "0",
            "heritage3": "0",
            "infocenter": tel,
            "opendate": "",
            "parking": parking,
            "restdate": r.choice(("연중무휴", rest)),
            "useseason": "연중",
            "usetime": r.choice(("상시 개방", f"{open_hour}~{close_hour}", "하절기 06:00~22:00<br>동절기 07:00~20:00")),
        }
    elif place.typeid == "14":
        values = {
            "accomcountculture": f"{r.randint(5, 60) * 10}명",
            "chkbabycarriageculture": yes_no(),
            "chkcreditcardculture": yes_no(),
            "chkpetculture": "불가",
            "discountinfo": r.choice(("", "단체 20인 이상 20% 할인")),
            "infocenterculture": tel,
            "parkingculture": parking,
            "parkingfee": r.choice(("무료", "30분 1,000원")),
            "restdateculture": rest,
            "usefee": r.choice(("무료", "성인 3,000원 / 청소년 2,000원", "성인 5,000원")),
            "usetimeculture": f"{open_hour}~{close_hour} (입장 마감 30분 전)",
            "scale": f"연면적 {r.randint(500, 9000):,}㎡",
            "spendtime": r.choice(("1시간", "1시간 30분", "2시간")),
        }
    elif place.typeid == "15":
        start = (now.replace(tzinfo=None) + timedelta(days=r.randint(-200, 160))).date()
        end = start + timedelta(days=r.choice((0, 1, 2, 3, 9, 30)))
        values = {
            "agelimit": "전연령",
            "bookingplace": "",
            "discountinfofestival": "",
            "eventenddate": end.strftime("%Y%m%d"),
            "eventhomepage": "",
            "eventplace": f"{regions.region(place.dong).leaf_name} 일원",
            "eventstartdate": start.strftime("%Y%m%d"),
            "festivalgrade": r.choice(("", "", "지역축제")),
            "placeinfo": "행사장 주변 도로 통제, 대중교통 이용 권장",
            "playtime": f"{start:%Y.%m.%d} ~ {end:%Y.%m.%d} 11:00~21:00",
            "program": "개막식, 거리공연, 체험부스, 먹거리 장터",
            "spendtimefestival": "",
            "sponsor1": f"{place.area.name}",
            "sponsor1tel": tel,
            "sponsor2": f"{place.area.name}문화재단",
            "sponsor2tel": tel,
            "subevent": r.choice(("", "사진 공모전, 플리마켓")),
            "usetimefestival": "무료",
        }
    elif place.typeid == "25":
        values = {
            "distance": f"{r.randint(3, 25)}km",
            "infocentertourcourse": tel,
            "schedule": "",
            "taketime": r.choice(("반나절", "4시간", "당일")),
            "theme": r.choice(("도보코스", "가족코스", "맛코스", "힐링코스")),
        }
    elif place.typeid == "28":
        values = {
            "accomcountleports": f"{r.randint(2, 30) * 10}명",
            "chkbabycarriageleports": yes_no(),
            "chkcreditcardleports": yes_no(),
            "chkpetleports": "불가",
            "expagerangeleports": r.choice(("", "만 7세 이상")),
            "infocenterleports": tel,
            "openperiod": r.choice(("연중", "3월~11월")),
            "parkingfeeleports": "무료",
            "parkingleports": parking,
            "reservation": r.choice(("", "전화 예약")),
            "restdateleports": rest,
            "scaleleports": "",
            "usefeeleports": r.choice(("무료", "1인 10,000원", "1회 5,000원")),
            "usetimeleports": f"{open_hour}~{close_hour}",
        }
    elif place.typeid == "32":
        rooms = r.randint(8, 180)
        values = {
            "accomcountlodging": f"{rooms * 2}명",
            "checkintime": r.choice(("15:00", "14:00", "16:00")),
            "checkouttime": r.choice(("11:00", "12:00")),
            "chkcooking": r.choice(("불가", "가능")),
            "foodplace": r.choice(("", "레스토랑, 라운지")),
            "infocenterlodging": tel,
            "parkinglodging": parking,
            "pickup": "불가",
            "roomcount": str(rooms),
            "reservationlodging": tel,
            "reservationurl": "",
            "roomtype": r.choice(("스탠다드, 디럭스, 스위트", "싱글, 더블, 트윈", "온돌, 침대")),
            "scalelodging": "",
            "subfacility": r.choice(("", "비즈니스센터, 편의점", "세미나실")),
            "barbecue": "0",
            "fitness": r.choice(("0", "1")),
            "refundregulation": "이용 3일 전까지 전액 환불",
        }
    elif place.typeid == "38":
        values = {
            "chkbabycarriageshopping": yes_no(),
            "chkcreditcardshopping": "가능",
            "chkpetshopping": "불가",
            "culturecenter": "",
            "fairday": r.choice(("", "매월 2, 7일", "매월 4, 9일")),
            "infocentershopping": tel,
            "opendateshopping": "",
            "opentime": f"{open_hour}~{close_hour}",
            "parkingshopping": parking,
            "restdateshopping": r.choice(("연중무휴", "매월 첫째·셋째 일요일")),
            "restroom": "있음",
            "saleitem": r.choice(("농수산물, 반찬, 분식", "의류, 잡화", "공예품, 기념품")),
            "saleitemcost": "",
            "scaleshopping": f"점포 {r.randint(20, 300)}개",
            "shopguide": "",
        }
    elif place.typeid == "39":
        values = {"chkcreditcardfood": "가능", "discountinfofood": "", "firstmenu": place.kind, "infocenterfood": tel,
                  "kidsfacility": r.choice(("0", "1")), "opendatefood": "", "opentimefood": f"{open_hour}~{close_hour}",
                  "packing": r.choice(("가능", "불가")), "parkingfood": parking, "reservationfood": r.choice(("가능", "불가")),
                  "restdatefood": rest, "scalefood": "", "seat": f"{r.randint(12, 120)}석", "smoking": "금연",
                  "treatmenu": f"{place.kind}, 수육, 공기밥" if place.cats[2] == "A05020100" else place.kind,
                  "lcnsno": f"{r.randint(2000000, 3999999)}{r.randint(10000, 99999)}"}  # fmt: skip
    return {"contentid": place.contentid, "contenttypeid": place.typeid, **values}


@KOR_SERVICE.operation(
    id="tour_detail_intro2",
    path="/detailIntro2",
    summary_ko="소개정보 조회",
    summary_en="Type-specific details of one tourism content (hours, rest days, parking …)",
    params=[
        *COMMON_PARAMS,
        Param("contentId", "콘텐츠 ID", required=True, example=EXAMPLE_ID),
        Param("contentTypeId", "관광타입 ID (그 콘텐츠의 것)", required=True, example="12", enum=CONTENT_TYPES),
    ],
    fields=[
        Field("contentid", "콘텐츠 ID", example=EXAMPLE_ID),
        Field("contenttypeid", "관광타입 ID", example="12"),
        *(
            Field(name, f"{description} (contentTypeId {typeid})")
            for typeid, fields in INTRO_FIELDS.items()
            for name, description in fields
        ),
    ],
    example={
        "MobileOS": "ETC",
        "MobileApp": "AppTest",
        "_type": "json",
        "contentId": EXAMPLE_ID,
        "contentTypeId": "12",
    },
    more_examples=[
        {"MobileOS": "ETC", "MobileApp": "AppTest", "_type": "json", "contentId": content_id, "contentTypeId": typeid}
        for typeid, content_id in EXAMPLE_IDS.items()
        if typeid != "12"
    ],
    notes="The field set depends on contentTypeId, as live. A contentTypeId other than the content's own, or "
    "an unknown contentId, answers empty items (live's answer to a mismatch is unconfirmed).",
)
def detail_intro2(ctx, params):
    _check_common(params)
    content_id, typeid = params.text("contentId").strip(), params.text("contentTypeId").strip()
    if not content_id.isdigit():
        raise InvalidParam("contentId")
    if typeid not in CONTENT_TYPES:
        raise InvalidParam("contentTypeId")
    place = find_place(content_id)
    if place is None or place.typeid != typeid:
        return []
    return [intro_record(place, ctx.now)]


def warm(now: datetime) -> None:
    """Build every place, its site and the nationwide listings in each order on this clock (apis.sandbox.warm)."""
    for arrange in ("A", "D", "C"):
        listing(arrange, now).build_indexes()
    for place in _every_place():
        site(place)
