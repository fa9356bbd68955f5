"""행정안전부 도로명주소 (business.juso.go.kr/addrlink): 주소 검색 (addrLinkApi.do) and 좌표 제공 (addrCoordApi.do).

Every address is a building of the sandbox world, so admCd is its real 10-digit 법정동 code and mtYn/lnbrMnnm/
lnbrSlno are the parcel the 건축물대장 (BldRgstHubService) registers: admCd[:5] -> sigunguCd, admCd[5:] ->
bjdongCd, lnbrMnnm/lnbrSlno zero-padded -> bun/ji (research §5 chain 2). Coordinates are UTM-K (EPSG:5179)
from the building's WGS84 position (chain 4).
"""

from __future__ import annotations

import re
from functools import cache

from apis.engine import geo
from apis.sandbox.envelopes.juso import JusoAuth, JusoEnvelope
from apis.sandbox.errors import ServiceError
from apis.sandbox.rand import rng
from apis.sandbox.registry import Field, LazyRecords, Param, service
from apis.sandbox.world import buildings, regions

HOST = "business.juso.go.kr"
MAX_RESULTS = 9000  # beyond this the live search answers E0015
MAX_DONGS = 300  # a keyword spanning more 법정동 than this is past 9,000 buildings in any city
SQL_WORDS = (
    "OR",
    "SELECT",
    "INSERT",
    "DELETE",
    "UPDATE",
    "CREATE",
    "DROP",
    "EXEC",
    "UNION",
    "FETCH",
    "DECLARE",
    "TRUNCATE",
)

# The order live writes the fields in: JSON as captured (a hash order), XML as the guide lists them.
JSON_ORDER = ("detBdNmList", "engAddr", "rn", "emdNm", "zipNo", "roadAddrPart2", "emdNo", "sggNm", "jibunAddr", "siNm",
              "roadAddrPart1", "bdNm", "admCd", "udrtYn", "lnbrMnnm", "roadAddr", "lnbrSlno", "buldMnnm", "bdKdcd", "liNm",
              "rnMgtSn", "mtYn", "bdMgtSn", "buldSlno")  # fmt: skip
XML_ORDER = ("roadAddr", "roadAddrPart1", "roadAddrPart2", "jibunAddr", "engAddr", "zipNo", "admCd", "rnMgtSn", "bdMgtSn",
             "detBdNmList", "bdNm", "bdKdcd", "siNm", "sggNm", "emdNm", "liNm", "rn", "udrtYn", "buldMnnm", "buldSlno",
             "mtYn", "lnbrMnnm", "lnbrSlno", "emdNo")  # fmt: skip
COORD_ORDER = ("admCd", "rnMgtSn", "bdMgtSn", "udrtYn", "buldMnnm", "buldSlno", "entX", "entY", "bdNm")


def _service(id: str, title: str, order: tuple[str, ...], xml_order: tuple[str, ...]):
    return service(
        id=id,
        provider_ko="행정안전부 (도로명주소 개발자센터)",
        provider_en="Ministry of the Interior and Safety, road-name address portal (juso.go.kr)",
        family="juso",
        host=HOST,
        base_path="/addrlink",
        title_ko=title,
        title_en="Road-name address API",
        envelope=JusoEnvelope(json_order=order, xml_order=xml_order),
        auth=JusoAuth(),
    )


ADDR_LINK = _service("addrLinkApi", "도로명주소 검색 API", JSON_ORDER, XML_ORDER)
ADDR_COORD = _service("addrCoordApi", "좌표제공 API", COORD_ORDER, COORD_ORDER)

# --- Revised Romanization, enough for road and place names ----------------------------------------
_INITIALS = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h")
_VOWELS = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi", "yu",
           "eu", "ui", "i")  # fmt: skip
_FINALS = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t", "t", "ng",
           "t", "t", "k", "t", "p", "t")  # fmt: skip
# A final consonant read into a following silent ㅇ (liaison), by final index.
_CARRY = {1: "g", 2: "kk", 4: "n", 7: "d", 8: "r", 16: "m", 17: "b", 19: "s", 20: "ss", 22: "j", 23: "ch", 24: "k",
          25: "t", 26: "p"}  # fmt: skip
SIDO_EN = {
    "서울특별시": "Seoul", "부산광역시": "Busan", "대구광역시": "Daegu", "인천광역시": "Incheon", "광주광역시": "Gwangju",
    "대전광역시": "Daejeon", "울산광역시": "Ulsan", "세종특별자치시": "Sejong-si", "경기도": "Gyeonggi-do",
    "강원특별자치도": "Gangwon-do", "충청북도": "Chungcheongbuk-do", "충청남도": "Chungcheongnam-do",
    "전북특별자치도": "Jeonbuk-do", "전라남도": "Jeollanam-do", "경상북도": "Gyeongsangbuk-do",
    "경상남도": "Gyeongsangnam-do", "제주특별자치도": "Jeju-do",
}  # fmt: skip
_SUFFIX_EN = {"대로": "daero", "로": "ro", "길": "gil", "구": "gu", "시": "si", "군": "gun", "읍": "eup", "면": "myeon",
              "동": "dong", "리": "ri", "가": "ga"}  # fmt: skip


def romanize(word: str) -> str:
    """Hangul -> Revised Romanization with the common sound changes (종로 Jongno, 신라 Silla, 백마 Baengma)."""
    syllables = []
    for ch in word:
        code = ord(ch) - 0xAC00
        syllables.append((code // 588, code % 588 // 28, code % 28) if 0 <= code < 11172 else ch)
    out = []
    for i, s in enumerate(syllables):
        if isinstance(s, str):
            out.append(s)
            continue
        initial, vowel, final = s
        prev = syllables[i - 1] if i and not isinstance(syllables[i - 1], str) else None
        if prev is None:
            onset = _INITIALS[initial]
        elif initial == 11 and prev[2] in _CARRY:
            onset = _CARRY[prev[2]]
        elif initial == 5 and prev[2] in (4, 8):
            onset = "l"
        elif initial == 5 and prev[2]:
            onset = "n"
        else:
            onset = _INITIALS[initial]
        nxt = syllables[i + 1] if i + 1 < len(syllables) and not isinstance(syllables[i + 1], str) else None
        coda = _FINALS[final]
        if nxt is not None and final:
            if nxt[0] == 11 and final in _CARRY:
                coda = ""
            elif nxt[0] in (2, 6) or nxt[0] == 5:
                coda = {"k": "ng", "t": "n", "p": "m"}.get(coda, coda)
                if final == 4 and nxt[0] == 5:
                    coda = "l"
        out.append(onset + _VOWELS[vowel] + coda)
    return "".join(out)


def romanize_name(name: str) -> str:
    """'청운로3길' -> 'Cheongun-ro 3-gil', '종로구' -> 'Jongno-gu', '세종대로' -> 'Sejong-daero'."""
    m = re.fullmatch(r"(.+?)(대로|로)(\d+)(번?길)", name)
    if m:
        return f"{romanize(m.group(1)).capitalize()}-{_SUFFIX_EN[m.group(2)]} {m.group(3)}{'beon' if m.group(4) == '번길' else ''}-gil"
    m = re.fullmatch(r"(.+?)(\d*)(대로|로|길|구|시|군|읍|면|동|리|가)", name)
    if m and len(m.group(1)) >= 1:
        return f"{romanize(m.group(1)).capitalize()}{m.group(2)}-{_SUFFIX_EN[m.group(3)]}"
    return romanize(name).capitalize()


# --- the address records -------------------------------------------------------------------------


def _collective(b: buildings.Building) -> bool:
    return b.kind in ("apt", "rh")


def address_record(b: buildings.Building) -> dict[str, str]:
    region = b.region
    road_part1 = b.road_address
    # 참고항목: the 법정동 (not for 읍면) and, for 공동주택, the complex name.
    notes = [region.eupmyeondong] if region.eupmyeondong.endswith(("동", "가", "로")) and not region.ri else []
    if _collective(b) and b.name:
        notes.append(b.name)
    road_part2 = f" ({', '.join(notes)})" if notes else ""
    jibun = f"{region.full_name} {b.jibun}" + (f" {b.name}" if b.name else "")
    number = f"{b.road_bonbun}-{b.road_bubun}" if b.road_bubun else str(b.road_bonbun)
    places = [romanize_name(region.eupmyeondong)] if region.ri else []
    places += [romanize_name(part) for part in reversed(region.sigungu.split())] if region.sigungu else []
    eng = ", ".join(
        [f"{number} {romanize_name(b.road_name)}", *places, SIDO_EN.get(region.sido, romanize(region.sido))]
    )
    return {
        "roadAddr": road_part1 + road_part2,
        "roadAddrPart1": road_part1,
        "roadAddrPart2": road_part2,
        "jibunAddr": jibun,
        "engAddr": eng,
        "zipNo": b.zip_no,
        "admCd": b.region_code,
        "rnMgtSn": b.road_code,
        "bdMgtSn": b.bd_mgt_sn,
        "detBdNmList": ",".join(b.dong_names),
        "bdNm": b.name if b.kind != "house" else "",
        "bdKdcd": "1" if _collective(b) else "0",
        "siNm": region.sido,
        "sggNm": region.sigungu,
        "emdNm": region.eupmyeondong,
        "liNm": region.ri,
        "rn": b.road_name,
        "udrtYn": b.underground,
        "buldMnnm": str(b.road_bonbun),
        "buldSlno": str(b.road_bubun),
        "mtYn": "1" if b.plat_gb_cd == "1" else "0",
        "lnbrMnnm": str(b.bun),
        "lnbrSlno": str(b.ji),
        "emdNo": f"{int(b.region_code[5:8]) // 10 % 4 + 1:02d}",
    }


# --- keyword search ------------------------------------------------------------------------------


def _validate(keyword: str) -> None:
    """The live checks on the keyword, in the order that makes each error reachable."""
    text = keyword.strip()
    if not text:
        raise ServiceError("E0005")
    upper = text.upper()
    if re.search(r"[%=<>\[\]]", text) or any(re.search(rf"(^|\s){w}(\s|$)", upper) for w in SQL_WORDS):
        raise ServiceError("E0013")
    if len(text) < 2:
        raise ServiceError("E0008")
    hangul = sum(1 for ch in text if "가" <= ch <= "힣")
    if hangul > 40 or len(text) > 80:
        raise ServiceError("E0010")
    if re.search(r"\d{11,}", text):
        raise ServiceError("E0011")
    if re.fullmatch(r"[\d\s]+", text):
        raise ServiceError("E0009")
    if not re.search(r"[A-Za-z가-힣]", text):
        raise ServiceError("E0012")


@cache
def _region_words() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Words naming a 시도 or a 시군구 -> the 2-/5-digit code prefixes they cover."""
    sido: dict[str, set[str]] = {}
    for r in regions.sido_list():
        for word in {r.sido, r.sido_short, r.sido_short + "시"}:
            sido.setdefault(word, set()).add(r.code[:2])
    sigungu: dict[str, set[str]] = {}
    for lawd in regions.lawd_codes():
        for word in regions.sigungu_name(lawd).split():
            sigungu.setdefault(word, set()).add(lawd)
    return sido, sigungu


@cache
def _leaves() -> tuple[tuple[regions.Region, ...], dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Every leaf 법정동 (where buildings stand), and indexes by name (동/읍면/리) and by road stem."""
    existing = [r for r in regions.regions() if r.level in (3, 4)]
    with_ri = {r.code[:8] for r in existing if r.level == 4}
    leaves = tuple(r for r in existing if r.level == 4 or r.code[:8] not in with_ri)
    by_name: dict[str, list[str]] = {}
    by_stem: dict[str, list[str]] = {}
    for r in leaves:
        for word in {r.leaf_name, r.eupmyeondong}:
            by_name.setdefault(word, []).append(r.code)
        by_stem.setdefault(buildings._stem(r.leaf_name), []).append(r.code)
    return leaves, {k: tuple(v) for k, v in by_name.items()}, {k: tuple(v) for k, v in by_stem.items()}


_NUMBER = re.compile(r"(산)?(\d+)(?:-(\d+))?(?:번지)?")
_ROAD = re.compile(r"(.+?)(대로|로)(\d+번?길)?")


def search(keyword: str) -> list[buildings.Building]:
    """Buildings whose road or 지번 address (or building name) matches every word of the keyword."""
    _validate(keyword)
    sido_words, sigungu_words = _region_words()
    leaves, by_name, by_stem = _leaves()
    area: set[str] | None = None  # code prefixes the address must start with
    dong_codes: set[str] | None = None
    road = number = None
    names: list[str] = []
    for token in keyword.split():
        if token in sido_words or token in sigungu_words:
            prefixes = sido_words.get(token) or sigungu_words[token]
            area = (
                set(prefixes)
                if area is None
                else {max(a, p, key=len) for a in area for p in prefixes if a.startswith(p) or p.startswith(a)}
            )
        elif _NUMBER.fullmatch(token):
            number = _NUMBER.fullmatch(token)
        elif token in by_name:
            dong_codes = set(by_name[token]) if dong_codes is None else dong_codes & set(by_name[token])
        elif _ROAD.fullmatch(token) and _ROAD.fullmatch(token).group(1) in by_stem:
            road = token
            stem_codes = set(by_stem[_ROAD.fullmatch(token).group(1)])
            dong_codes = stem_codes if dong_codes is None else dong_codes & stem_codes
        else:
            names.append(token)
    if dong_codes is None and names:
        # A building name starts with its 동's stem ("개포래미안"): look there.
        stems = {n[:k] for n in names for k in range(2, min(5, len(n)) + 1)} & set(by_stem)
        if stems:
            dong_codes = {code for s in stems for code in by_stem[s]}
    if dong_codes is None:
        if area is None or not (names or number):
            raise ServiceError("E0006")  # only a 시도/시군구, or nothing that names a place
        dong_codes = {r.code for r in leaves if any(r.code.startswith(a) for a in area)}
    if area is not None:
        dong_codes = {c for c in dong_codes if any(c.startswith(a) for a in area)}
    if len(dong_codes) > MAX_DONGS:
        raise ServiceError("E0015")  # decided before generating: a whole 시도 holds far more than 9,000
    found = []
    for code in sorted(dong_codes):
        for b in buildings.buildings_in(code):
            if road and b.road_name != road:
                continue
            if number and not _number_matches(b, number, road is not None):
                continue
            if names and not all(n in b.name or n in b.road_name for n in names):
                continue
            found.append(b)
    return found


def _number_matches(b: buildings.Building, m: re.Match, road_given: bool) -> bool:
    main, sub = int(m.group(2)), int(m.group(3) or 0)
    road_hit = b.road_bonbun == main and (m.group(3) is None or b.road_bubun == sub)
    lot_hit = b.bun == main and (m.group(3) is None or b.ji == sub) and (b.plat_gb_cd == "1") == bool(m.group(1))
    return road_hit if road_given else (road_hit or lot_hit)


ADDRESS_FIELDS = [
    Field("roadAddr", "전체 도로명주소", example="서울특별시 종로구 청운로 12 (청운동)"),
    Field("roadAddrPart1", "도로명주소 (참고항목 제외)", example="서울특별시 종로구 청운로 12"),
    Field("roadAddrPart2", "참고항목 (앞에 공백)", example=" (청운동)"),
    Field("jibunAddr", "지번주소", example="서울특별시 종로구 청운동 23-4"),
    Field("engAddr", "영문주소", example="12 Cheongun-ro, Jongno-gu, Seoul"),
    Field("zipNo", "우편번호", example="03047"),
    Field("admCd", "행정구역코드 (법정동코드 10자리)", example="1111010100"),
    Field("rnMgtSn", "도로명코드 (12자리)", example="111103123456"),
    Field("bdMgtSn", "건물관리번호 (25자리)", example="1111010100100230004000005"),
    Field("detBdNmList", "상세건물명 (공동주택 동 목록)", example="101동,102동"),
    Field("bdNm", "건물명", example="청운래미안"),
    Field("bdKdcd", "공동주택여부 (1 공동주택, 0 비공동주택)", example="1"),
    Field("siNm", "시도명", example="서울특별시"),
    Field("sggNm", "시군구명", example="종로구"),
    Field("emdNm", "읍면동명", example="청운동"),
    Field("liNm", "법정리명", example=""),
    Field("rn", "도로명", example="청운로"),
    Field("udrtYn", "지하여부 (0 지상, 1 지하)", example="0"),
    Field("buldMnnm", "건물본번", example="12"),
    Field("buldSlno", "건물부번", example="0"),
    Field("mtYn", "산여부 (0 대지, 1 산)", example="0"),
    Field("lnbrMnnm", "지번본번 (번지)", example="23"),
    Field("lnbrSlno", "지번부번 (호)", example="4"),
    Field("emdNo", "읍면동일련번호", example="01"),
]


@ADDR_LINK.operation(
    id="juso_addrlink",
    path="/addrLinkApi.do",
    summary_ko="도로명주소 검색",
    summary_en="Road-name address search",
    params=[
        Param(
            "keyword", "주소 검색어 (2자 이상, 한글 40자 / 영문·숫자 80자 이하)", required=True, example="청운동 청운로"
        ),
        Param("hstryYn", "변동된 주소정보 포함 여부 (Y/N)", example="N", enum=("Y", "N")),
        Param("firstSort", "정렬 우선순위 (none, road, location)", example="none", enum=("none", "road", "location")),
        Param("addInfoYn", "추가정보 포함 여부 (Y/N)", example="N", enum=("Y", "N")),
    ],
    fields=ADDRESS_FIELDS,
    example={"keyword": "청운동 청운로", "resultType": "json", "currentPage": "1", "countPerPage": "10"},
    missing_param_code="E0005",
    other_methods=("POST",),
    notes="Searches the world's buildings by 시도/시군구, 동·읍면·리, road name, road or 지번 number and building name "
    "(every word must match). A keyword that names no 동, road or building (only a 시도/시군구, or a bare "
    "brand) answers E0006; over 9,000 hits E0015. hstryYn/firstSort/addInfoYn are accepted and ignored.",
)
def addr_link(ctx, params):
    found = search(params.text("keyword"))
    if len(found) > MAX_RESULTS:
        raise ServiceError("E0015")
    return LazyRecords(found, address_record)


def _digits(params, name: str) -> int:
    value = params.text(name).strip()
    if not value.isdigit():
        raise ServiceError("-999")
    return int(value)


@ADDR_COORD.operation(
    id="juso_addrcoord",
    path="/addrCoordApi.do",
    summary_ko="좌표제공 (출입구 좌표)",
    summary_en="Entrance coordinates (UTM-K, EPSG:5179) of an address",
    params=[
        Param("admCd", "행정구역코드 (addrLinkApi 의 admCd)", required=True, example="1111010100"),
        Param("rnMgtSn", "도로명코드 (addrLinkApi 의 rnMgtSn)", required=True, example="111103123456"),
        Param("udrtYn", "지하여부 (0 지상, 1 지하)", required=True, example="0", enum=("0", "1")),
        Param("buldMnnm", "건물본번", required=True, type="integer", example="12"),
        Param("buldSlno", "건물부번", required=True, type="integer", example="0"),
    ],
    fields=[
        Field("admCd", "행정구역코드", example="1111010100"),
        Field("rnMgtSn", "도로명코드", example="111103123456"),
        Field("bdMgtSn", "건물관리번호", example="1111010100100230004000005"),
        Field("udrtYn", "지하여부", example="0"),
        Field("buldMnnm", "건물본번", example="12"),
        Field("buldSlno", "건물부번", example="0"),
        Field("entX", "출입구 X (UTM-K, EPSG:5179, m)", example="953877.3428236847"),
        Field("entY", "출입구 Y (UTM-K, EPSG:5179, m)", example="1954107.0816297412"),
        Field("bdNm", "건물명", example="청운래미안"),
    ],
    example={
        "admCd": "1111010100",
        "rnMgtSn": "111103626996",
        "udrtYn": "0",
        "buldMnnm": "58",
        "buldSlno": "0",
        "resultType": "json",
    },
    missing_param_code="-999",
    other_methods=("POST",),
    notes="Live's answer to a missing or malformed parameter is unconfirmed; the sandbox answers -999 시스템에러. "
    "entX/entY are the building's position a few metres off, as an entrance would be.",
)
def addr_coord(ctx, params):
    adm_cd, road_code = params.text("admCd").strip(), params.text("rnMgtSn").strip()
    underground = params.text("udrtYn").strip()
    main, sub = _digits(params, "buldMnnm"), _digits(params, "buldSlno")
    if not adm_cd.isdigit() or len(adm_cd) != 10 or underground not in ("0", "1"):
        raise ServiceError("-999")
    rows = []
    for b in buildings.buildings_in(adm_cd):
        if (b.road_code, b.underground, b.road_bonbun, b.road_bubun) != (road_code, underground, main, sub):
            continue
        r = rng("juso-entrance", b.bd_mgt_sn)
        x, y = geo.wgs84_to_utmk(b.lat, b.lon)
        rows.append(
            {
                "admCd": b.region_code,
                "rnMgtSn": b.road_code,
                "bdMgtSn": b.bd_mgt_sn,
                "udrtYn": b.underground,
                "buldMnnm": str(b.road_bonbun),
                "buldSlno": str(b.road_bubun),
                "entX": repr(round(x + r.uniform(-8, 8), 10)),
                "entY": repr(round(y + r.uniform(-8, 8), 10)),
                "bdNm": b.name if b.kind != "house" else "",
            }
        )
    return rows
