"""건강보험심사평가원 (HIRA, B551182): 병원정보서비스 getHospBasisList and 의료기관별상세정보서비스
getDtlInfo2.7, over a deterministic nationwide set of about 73,000 의료기관.

Facilities sit in the world's buildings (address, 우편번호 and coordinates agree with other APIs), are
filed under HIRA's own 시도/시군구 codes (seeds/hira_codes.csv, not 법정동), and open as many clinics per
resident as Korea does (Seoul and 강남 denser). JSON goes through the gateway's number conversion.
"""

from __future__ import annotations

import base64
import binascii
import math
import operator
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache, cached_property, lru_cache
from itertools import islice

from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.xml2json import ConvertedJsonEnvelope
from apis.sandbox.errors import InvalidParam
from apis.sandbox.families._listing import Filter, Picked, TextIndex, positions_by, positions_by_each, select
from apis.sandbox.families._places import (
    Place,
    choose,
    density,
    leaf_centers,
    leaves,
    leaves_near,
    nearest_station,
    person_name,
    phone_number,
    place_in,
    poisson,
    romanize,
    stem,
)
from apis.sandbox.families.mois import population_of
from apis.sandbox.rand import pick_weighted, rng, stable_int
from apis.sandbox.registry import Field, LazyRecords, Param
from apis.sandbox.world import regions
from apis.sandbox.world.seeds import read_csv

# People are counted as of this month, so the set of facilities does not move with the sandbox clock;
# the clock only hides facilities opened after it (estbDd).
POPULATION_MONTH = "202610"

# clCd -> (clCdNm as HIRA writes it, facilities per resident, zipCd 분류)
KINDS = {
    "01": ("상급종합", 0.0000009, "2010"),
    "11": ("종합병원", 0.0000063, "2010"),
    "21": ("병원", 0.000027, "2030"),
    "28": ("요양병원", 0.000028, "2040"),
    "29": ("정신병원", 0.000005, "2030"),
    "31": ("의원", 0.00076, "2070"),
    "41": ("치과병원", 0.000005, "2050"),
    "51": ("치과의원", 0.0004, "2050"),
    "61": ("조산원", 0.0000003, "2090"),
    "71": ("보건소", 0.0, "2080"),
    "72": ("보건지소", 0.0, "2080"),
    "73": ("보건진료소", 0.0, "2080"),
    "75": ("보건의료원", 0.0, "2080"),
    "92": ("한방병원", 0.000011, "2060"),
    "93": ("한의원", 0.00031, "2060"),
}
SUFFIX = re.compile(r"(요양병원|한방병원|치과병원|치과의원|한의원|의원|병원|의료원|보건소|보건지소|보건진료소|조산원)$")
KIND_SUFFIX = {"31": "의원", "51": "치과의원", "93": "한의원", "21": "병원", "28": "요양병원", "92": "한방병원"}
WHOLE_BUILDING = {"01", "11", "21", "28", "29", "41", "71", "75", "92"}

# 의원 by 표방 진료과목: (dgsbjtCd, name in the clinic's name, share)
CLINIC_SUBJECTS = [
    ("01", "내과", 0.22),
    ("23", "가정의학과", 0.05),
    ("11", "소아청소년과", 0.07),
    ("13", "이비인후과", 0.08),
    ("05", "정형외과", 0.08),
    ("14", "피부과", 0.06),
    ("12", "안과", 0.05),
    ("10", "산부인과", 0.05),
    ("15", "비뇨의학과", 0.03),
    ("08", "성형외과", 0.04),
    ("03", "정신건강의학과", 0.05),
    ("21", "재활의학과", 0.03),
    ("06", "신경외과", 0.02),
    ("04", "외과", 0.03),
    ("09", "마취통증의학과", 0.04),
    ("16", "영상의학과", 0.01),
    ("02", "신경과", 0.01),
    ("00", "", 0.08),
]
HOSPITAL_SUBJECTS = [
    ("05", "정형외과"),
    ("01", "내과"),
    ("10", "산부인과"),
    ("06", "신경외과"),
    ("21", "재활의학과"),
    ("04", "외과"),
    ("12", "안과"),
    ("00", ""),
]
NAME_WORDS = (
    "연세",
    "서울",
    "우리",
    "하나",
    "365",
    "튼튼",
    "밝은",
    "맑은",
    "바른",
    "새봄",
    "참",
    "좋은",
    "행복한",
    "미소",
    "사랑",
    "열린",
    "제일",
    "중앙",
    "한빛",
    "늘푸른",
    "편한",
    "고운",
    "푸른",
    "온누리",
    "봄",
    "바로",
    "함께",
    "새",
    "365열린",
    "다정한",
    "이음",
    "모아",
    "한결",
    "보람",
    "가온",
    "소망",
    "믿음",
)
SUBJECT_WORDS = {
    "11": ("아이", "키즈", "튼튼", "꿈나무", "아이사랑"),
    "12": ("밝은눈", "맑은눈", "새빛"),
    "14": ("고운", "예쁜", "맑은"),
    "05": ("튼튼", "바른", "힘찬", "척척"),
    "01": ("속편한", "건강한", "365", "연세"),
    "13": ("코숨", "맑은소리", "숨"),
    "03": ("마음", "숲", "마음숲"),
    "10": ("여성", "미즈"),
}
DENTAL_WORDS = (
    "스마일",
    "미소",
    "연세",
    "서울",
    "이플란트",
    "바른",
    "하얀",
    "튼튼",
    "예쁜",
    "365",
    "굿모닝",
    "웃는",
    "사과나무",
    "이음",
    "바로",
    "새하얀",
    "맑은",
    "치아사랑",
    "연세미소",
    "서울스마일",
    "하늘",
    "가온",
    "루덴스",
    "오늘",
)
HERB_WORDS = (
    "경희",
    "동의",
    "본",
    "소나무",
    "약손",
    "자연",
    "한결",
    "참",
    "청춘",
    "동산",
    "해맑은",
    "보명",
    "인산",
    "편안한",
    "수",
    "백세",
    "하늘마음",
    "다온",
    "생생",
    "우리들",
)
CARE_WORDS = (
    "행복한",
    "효",
    "사랑",
    "은혜",
    "실버",
    "참사랑",
    "늘봄",
    "평안",
    "소망",
    "기쁨",
    "온새미로",
    "효자",
    "푸른솔",
    "하늘빛",
    "새생명",
    "다움",
)
GENERAL_SUFFIXES = ("병원", "중앙병원", "성모병원", "기독병원", "의료원", "종합병원")


# --- HIRA region codes ---------------------------------------------------------------------------

# HIRA sidoCd -> 법정동 시도 (2 digits).
SIDO_TO_BJD = {
    "110000": "11",
    "210000": "26",
    "220000": "28",
    "230000": "27",
    "240000": "29",
    "250000": "30",
    "260000": "31",
    "310000": "41",
    "320000": "51",
    "330000": "43",
    "340000": "44",
    "350000": "52",
    "360000": "46",
    "370000": "47",
    "380000": "48",
    "390000": "50",
    "410000": "36",
}
METRO_PREFIX = {"26": "부산", "27": "대구", "28": "인천", "29": "광주", "30": "대전", "31": "울산"}


@dataclass(frozen=True)
class HiraArea:
    sido_cd: str
    sido_nm: str
    sggu_cd: str
    sggu_nm: str


def _hira_names(region: regions.Region) -> set[str]:
    """How HIRA may spell a 시군구: "강남구", "부산해운대구", "부산진구", "성남분당구", "세종시"."""
    sigungu = region.sigungu
    names = {sigungu}
    prefix = METRO_PREFIX.get(region.code[:2])
    if prefix:
        names.add(prefix + sigungu)
    if " " in sigungu:
        city, gu = sigungu.split(" ", 1)
        names.add(city.removesuffix("시") + gu)
    return names


@cache
def areas() -> dict[str, HiraArea]:
    """5-digit 법정동 시군구 (LAWD_CD) -> HIRA area; verified codes win over unverified duplicates."""
    rows = read_csv("hira_codes.csv")
    sido_names = {r["code"]: r["name"] for r in rows if r["kind"] == "sidoCd"}
    found: dict[str, tuple[bool, HiraArea]] = {}
    for row in rows:
        if row["kind"] != "sgguCd":
            continue
        sido_cd = row["code"][:2] + "0000"
        bjd = SIDO_TO_BJD.get(sido_cd)
        if bjd is None:
            continue
        area = HiraArea(sido_cd, sido_names[sido_cd], row["code"], row["name"])
        if bjd == "36":
            matches = ["36110"]
        else:
            matches = [
                lawd
                for lawd in regions.lawd_codes()
                if lawd.startswith(bjd) and row["name"] in _hira_names(regions.region(lawd + "00000"))
            ]
        verified = row["verified"] == "Y"
        for lawd in matches:
            if lawd not in found or (verified and not found[lawd][0]):
                found[lawd] = (verified, area)
    return {lawd: area for lawd, (_, area) in sorted(found.items())}


@cache
def lawds_by_hira() -> dict[str, tuple[str, ...]]:
    """HIRA sidoCd or sgguCd -> the LAWD_CDs filed under it."""
    index: dict[str, list[str]] = {}
    for lawd, area in areas().items():
        index.setdefault(area.sido_cd, []).append(lawd)
        index.setdefault(area.sggu_cd, []).append(lawd)
    return {code: tuple(lawds) for code, lawds in index.items()}


# --- facilities ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Facility:
    leaf_code: str  # leaf 법정동 (10 digits); its first five digits are the LAWD_CD
    seq: int  # running number within the 시군구
    cl_cd: str
    name: str
    subjects: tuple[str, ...]  # dgsbjtCd offered
    estb_dd: str
    staff: tuple[int, ...]  # mdept gdr/intn/resdnt/sdr, dety ×4, cmdc ×4, pnurs
    tel: str
    url: str

    @property
    def lawd(self) -> str:
        return self.leaf_code[:5]

    @cached_property  # each listed record prints it three times
    def ykiho(self) -> str:
        check = stable_int("ykiho", self.leaf_code, self.seq) % 1_000_000
        inner = (
            f"${self.leaf_code}#{self.cl_cd}#$1#$0#$89${self.seq:06d}#{self.cl_cd}#$2#$7#$00${check:06d}#61#$1#$8#$83"
        )
        return base64.b64encode(inner.encode("ascii")).decode("ascii")


_YKIHO = re.compile(r"^\$(\d{10})#\w{2}#\$1#\$0#\$89\$(\d{6})#")


def _city(lawd_region: regions.Region) -> str:
    """강남구 -> 강남, 성남시 분당구 -> 성남, 가평군 -> 가평, 세종특별자치시 -> 세종."""
    if not lawd_region.sigungu:
        return lawd_region.sido_short
    first = lawd_region.sigungu.split(" ")[0]
    return first[:-1] if len(first) > 2 and first.endswith(("시", "군", "구")) else first


def _estb(r, cl_cd: str) -> str:
    if cl_cd in ("01", "11", "71", "75"):
        year = r.randint(1965, 2012)
    elif cl_cd in ("28",):
        year = r.randint(2005, 2025)
    else:
        year = choose(
            r,
            [
                (lambda: r.randint(1980, 1999), 0.15),
                (lambda: r.randint(2000, 2015), 0.4),
                (lambda: r.randint(2016, 2026), 0.45),
            ],
        )
    month = r.randint(1, 10 if year == 2026 else 12)
    return f"{year}{month:02d}{r.randint(1, 28):02d}"


def _staff(r, cl_cd: str, subject: str) -> tuple[int, ...]:
    """Doctor counts in HIRA's order: 의과 일반의/인턴/레지던트/전문의, 치과 ×4, 한방 ×4, 조산사."""
    m = [0, 0, 0, 0]
    d = [0, 0, 0, 0]
    c = [0, 0, 0, 0]
    midwives = 0
    if cl_cd == "31":
        doctors = int(pick_weighted(r, [(1, 0.7), (2, 0.2), (3, 0.07), (r.randint(4, 6), 0.03)]))
        m[0 if subject == "00" else 3] = doctors
    elif cl_cd == "51":
        d[3] = int(r.random() < 0.35)
        d[0] = max(1 - d[3], int(pick_weighted(r, [(1, 0.7), (2, 0.22), (3, 0.08)])) - d[3])
    elif cl_cd == "93":
        c[0] = int(pick_weighted(r, [(1, 0.8), (2, 0.17), (3, 0.03)]))
        c[3] = int(r.random() < 0.15)
    elif cl_cd in ("21", "29"):
        m[3], m[0] = r.randint(3, 25), r.randint(0, 3)
    elif cl_cd == "28":
        m[3], m[0] = r.randint(2, 9), r.randint(0, 2)
        c[0] = int(r.random() < 0.4)
    elif cl_cd == "41":
        d[3], d[0] = r.randint(2, 12), r.randint(0, 4)
    elif cl_cd == "92":
        c[3], c[0] = r.randint(2, 10), r.randint(1, 6)
        m[0] = r.randint(0, 2)
    elif cl_cd == "11":
        m[3] = r.randint(25, 180)
        m[2] = int(m[3] * r.uniform(0, 0.25))
        m[1] = int(m[3] * r.uniform(0, 0.08))
        m[0] = r.randint(0, 6)
        d[3] = r.randint(0, 3)
        midwives = r.randint(0, 2)
    elif cl_cd == "01":
        m[3] = r.randint(250, 700)
        m[2] = int(m[3] * r.uniform(0.6, 0.9))
        m[1] = int(m[3] * r.uniform(0.1, 0.2))
        m[0] = r.randint(0, 10)
        d[3], d[2], d[0] = r.randint(3, 15), r.randint(2, 10), r.randint(0, 3)
    elif cl_cd in ("71", "75"):
        m[0], m[3] = r.randint(1, 3), r.randint(0, 2)
        d[0], c[0] = 1, 1
    elif cl_cd == "72":
        m[0] = int(r.random() < 0.7)
        c[0] = int(r.random() < 0.3)
    elif cl_cd == "61":
        midwives = r.randint(1, 2)
    return (*m, *d, *c, midwives)


def _subjects(r, cl_cd: str, subject: str) -> tuple[str, ...]:
    if cl_cd == "31":
        return (subject,) if subject == "00" or r.random() < 0.7 else (subject, "00")
    if cl_cd == "51":
        return ("61",) if r.random() < 0.6 else ("61", "52") if r.random() < 0.5 else ("61", "54")
    if cl_cd == "41":
        return ("50", "51", "52", "54", "55", "61")
    if cl_cd == "93":
        return ("80", "85") if r.random() < 0.7 else ("80", "85", "86")
    if cl_cd == "92":
        return ("80", "81", "82", "84", "85", "86", "87")
    if cl_cd in ("21", "29", "28"):
        base = {"29": ("03",), "28": ("01", "21", "23")}.get(cl_cd, ())
        extra = tuple(sorted({subject, "01", "09", "16"} - {"00"})) if cl_cd == "21" else ()
        return tuple(sorted(set(base) | set(extra))) or ("00",)
    if cl_cd == "11":
        pool = [f"{n:02d}" for n in range(1, 25) if n not in (17, 18, 20, 22)]
        return tuple(sorted(r.sample(pool, r.randint(12, len(pool)))))
    if cl_cd == "01":
        return tuple(f"{n:02d}" for n in range(0, 27) if n != 20) + ("50", "52", "55")
    if cl_cd in ("71", "72", "75"):
        return ("00", "01", "23", "61", "80")
    return ("00",)


def _name(
    r,
    cl_cd: str,
    subject_name: str,
    subject: str,
    leaf: regions.Region,
    lawd_region: regions.Region,
    *,
    personal: bool = False,
) -> str:
    """A facility name in the style of its kind; personal=True names a clinic after its doctor."""
    if personal and cl_cd in KIND_SUFFIX and cl_cd in ("31", "51", "93"):
        return f"{person_name(r)}{subject_name}{KIND_SUFFIX[cl_cd]}"
    local = stem(leaf.eupmyeondong if leaf.ri else leaf.leaf_name)
    city = _city(lawd_region)
    words = SUBJECT_WORDS.get(subject, ()) + NAME_WORDS
    if cl_cd == "31":
        if subject == "00" and r.random() < 0.45:
            return f"{person_name(r)}의원"
        prefix = choose(
            r,
            [
                (lambda: r.choice(words), 0.55),
                (local, 0.25),
                (lambda: r.choice(words) + local, 0.1),
                (lambda: city + r.choice(NAME_WORDS), 0.1),
            ],
        )
        return f"{prefix}{subject_name}의원"
    if cl_cd == "51":
        prefix = choose(
            r,
            [
                (lambda: r.choice(DENTAL_WORDS), 0.4),
                (local, 0.15),
                (lambda: r.choice(DENTAL_WORDS) + local, 0.15),
                (lambda: person_name(r), 0.2),
                (lambda: city + r.choice(DENTAL_WORDS), 0.1),
            ],
        )
        return f"{prefix}치과의원"
    if cl_cd == "93":
        prefix = choose(
            r,
            [
                (lambda: r.choice(HERB_WORDS), 0.4),
                (local, 0.2),
                (lambda: person_name(r), 0.3),
                (lambda: local + r.choice(HERB_WORDS), 0.1),
            ],
        )
        return f"{prefix}한의원"
    if cl_cd == "21":
        return f"{pick_weighted(r, [(r.choice(NAME_WORDS), 0.6), (local, 0.25), (city, 0.15)])}{subject_name}병원"
    if cl_cd == "28":
        return f"{pick_weighted(r, [(r.choice(CARE_WORDS), 0.6), (local, 0.25), (city, 0.15)])}요양병원"
    if cl_cd == "29":
        return f"{pick_weighted(r, [('마음', 0.3), ('다사랑', 0.2), (local, 0.3), (city, 0.2)])}병원"
    if cl_cd == "41":
        return f"{r.choice(DENTAL_WORDS)}치과병원"
    if cl_cd == "92":
        return f"{pick_weighted(r, [(r.choice(HERB_WORDS), 0.6), (city, 0.4)])}한방병원"
    if cl_cd == "11":
        return f"{pick_weighted(r, [(city, 0.5), (local, 0.3), (lawd_region.sido_short + city, 0.2)])}{r.choice(GENERAL_SUFFIXES)}"
    if cl_cd == "01":
        return f"{pick_weighted(r, [(city, 0.5), (local, 0.5)])}대학교병원"
    if cl_cd == "61":
        return f"{local}조산원"
    if cl_cd in ("71", "75"):
        own = (lawd_region.sigungu or lawd_region.sido).split(" ")[-1]
        return f"{own}{'보건소' if cl_cd == '71' else '보건의료원'}"
    if cl_cd == "72":
        return f"{leaf.eupmyeondong}보건지소"
    return f"{leaf.ri or leaf.eupmyeondong}보건진료소"


def _url(r, cl_cd: str, name: str) -> str:
    share = 0.85 if cl_cd in ("01", "11") else 0.6 if cl_cd in ("21", "28", "29", "41", "92") else 0.25
    if r.random() >= share:
        return ""
    slug = romanize(name.removesuffix("의원").removesuffix("병원"))[:24] or "clinic"
    if cl_cd in ("01", "11", "71", "72", "73", "75"):
        return f"http://www.{slug}.or.kr"
    return pick_weighted(r, [(f"http://www.{slug}.co.kr", 0.6), (f"https://blog.naver.com/{slug}", 0.4)])


@cache
def facilities_in(lawd: str) -> tuple[Facility, ...]:
    """Every 의료기관 of a 시군구, in 법정동 order."""
    lawd_region = regions.region(lawd + "00000")
    if lawd_region is None or lawd not in areas():
        return ()
    people_factor = density(lawd)
    found: list[Facility] = []
    names: set[str] = set()
    seen_myeon: set[str] = set()
    lawd_leaves = leaves(lawd)

    def add(leaf, cl_cd, r, subject="00", subject_name=""):
        # Two facilities of one 시군구 rarely share a name: draw again, then fall back to numbering.
        for attempt in range(5):
            name = _name(r, cl_cd, subject_name, subject, leaf, lawd_region, personal=attempt == 4)
            if name not in names:
                break
        number, base = 2, name
        while name in names:
            name = SUFFIX.sub(lambda m, n=number: f"{n}{m.group(1)}", base)
            number += 1
        names.add(name)
        found.append(
            Facility(
                leaf_code=leaf.code,
                seq=len(found) + 1,
                cl_cd=cl_cd,
                name=name,
                subjects=_subjects(r, cl_cd, subject),
                estb_dd=_estb(r, cl_cd),
                staff=_staff(r, cl_cd, subject),
                tel=phone_number(r, leaf.code),
                url=_url(r, cl_cd, name),
            )
        )

    public_r = rng("hira-public", lawd)
    if lawd_leaves:
        add(lawd_leaves[0], "75" if lawd_region.sigungu.endswith("군") and public_r.random() < 0.15 else "71", public_r)
    for leaf in lawd_leaves:
        male, female, _ = population_of(leaf.code, POPULATION_MONTH)
        people = (male + female) * people_factor
        r = rng("hira", leaf.code)
        for cl_cd, (_, rate, _) in KINDS.items():
            if cl_cd == "28" and lawd_region.sigungu.endswith("군"):
                rate *= 1.5
            for _ in range(poisson(r, people * rate)):
                fr = rng("hira-facility", leaf.code, cl_cd, len(found))
                if cl_cd == "31":
                    subject, subject_name, _share = pick_weighted(fr, [(s, s[2]) for s in CLINIC_SUBJECTS])
                elif cl_cd == "21":
                    subject, subject_name = fr.choice(HOSPITAL_SUBJECTS)
                else:
                    subject, subject_name = "00", ""
                add(leaf, cl_cd, fr, subject, subject_name)
        myeon = leaf.code[:8]
        if leaf.eupmyeondong.endswith(("읍", "면")) and myeon not in seen_myeon:
            seen_myeon.add(myeon)
            add(leaf, "72", rng("hira-branch", myeon))
        elif leaf.ri and r.random() < 0.08:
            add(leaf, "73", rng("hira-post", leaf.code))
    return tuple(found)


@lru_cache(maxsize=200_000)
def place_of(facility: Facility) -> Place | None:
    return place_in(facility.leaf_code, "hira", facility.seq, whole_building=facility.cl_cd in WHOLE_BUILDING)


def facility_by_ykiho(ykiho: str) -> Facility | None:
    try:
        inner = base64.b64decode(ykiho.strip() + "=" * (-len(ykiho.strip()) % 4), validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    match = _YKIHO.match(inner)
    if not match:
        return None
    leaf_code, seq = match.group(1), int(match.group(2))
    for facility in facilities_in(leaf_code[:5]):
        if facility.seq == seq and facility.leaf_code == leaf_code:
            return facility if facility.ykiho == ykiho.strip() else None
    return None


# --- the services ---------------------------------------------------------------------------------

# XML field order of the basis list, as in the official sample (pnursCnt: the v2 addition).
HOSP_ENVELOPE = ConvertedJsonEnvelope(
    json_switch=("_type", "json"),
    success_code="00",
    success_msg="NORMAL SERVICE.",
    keep_text=frozenset({"distance", "ykiho", "telno", "yadmNm"}),
)

HOSP_INFO = datagokr_service(
    id="hospInfoServicev2",
    org="B551182",
    provider_ko="건강보험심사평가원",
    provider_en="Health Insurance Review & Assessment Service (HIRA)",
    title_ko="건강보험심사평가원_병원정보서비스",
    envelope=HOSP_ENVELOPE,
)


def _float(params, name: str) -> float | None:
    text = params.text(name).strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise InvalidParam(name) from None
    if not math.isfinite(value):
        raise InvalidParam(name)
    return value


def _coordinate_text(value: float, *parts: object) -> str:
    """HIRA prints coordinates with 13–15 decimals; ours carry deterministic sub-metre digits."""
    return repr(round(value + rng("hira-xy", *parts).uniform(-4e-7, 4e-7), 15))


def basis_record(facility: Facility, distance: float | None) -> dict:
    area = areas()[facility.lawd]
    leaf = regions.region(facility.leaf_code)
    place = place_of(facility)
    s = facility.staff
    record = {
        "addr": place.address(floor_text=facility.cl_cd not in WHOLE_BUILDING) if place else leaf.full_name,
        "clCd": facility.cl_cd,
        "clCdNm": KINDS[facility.cl_cd][0],
        "cmdcGdrCnt": str(s[8]),
        "cmdcIntnCnt": str(s[9]),
        "cmdcResdntCnt": str(s[10]),
        "cmdcSdrCnt": str(s[11]),
        "detyGdrCnt": str(s[4]),
        "detyIntnCnt": str(s[5]),
        "detyResdntCnt": str(s[6]),
        "detySdrCnt": str(s[7]),
        "distance": repr(distance) if distance is not None else "0",
        "drTotCnt": str(sum(s[:12])),
        "emdongNm": leaf.eupmyeondong,
        "estbDd": facility.estb_dd,
    }
    if facility.url:
        record["hospUrl"] = facility.url
    record.update(
        {
            "mdeptGdrCnt": str(s[0]),
            "mdeptIntnCnt": str(s[1]),
            "mdeptResdntCnt": str(s[2]),
            "mdeptSdrCnt": str(s[3]),
            "pnursCnt": str(s[12]),
            "postNo": place.zip_no if place else "",
            "sgguCd": area.sggu_cd,
            "sgguCdNm": area.sggu_nm,
            "sidoCd": area.sido_cd,
            "sidoCdNm": area.sido_nm,
            "telno": facility.tel,
            "XPos": _coordinate_text(place.lon if place else 0.0, facility.ykiho, "x"),
            "YPos": _coordinate_text(place.lat if place else 0.0, facility.ykiho, "y"),
            "yadmNm": facility.name,
            "ykiho": facility.ykiho,
        }
    )
    return record


ZIP_KINDS = {
    zip_cd: {cl for cl, (_, _, z) in KINDS.items() if z == zip_cd} for zip_cd in {k[2] for k in KINDS.values()}
}
CL_ORDER = {cl: i for i, cl in enumerate(sorted(KINDS))}


@HOSP_INFO.operation(
    id="hira_hosp_basis_list",
    path="/getHospBasisList",
    summary_ko="병원기본목록",
    summary_en="Hospitals and clinics by region, kind, subject, name or distance",
    params=[
        Param("sidoCd", "시도코드 (심평원 코드 6자리, 예: 110000 서울)", example="110000"),
        Param("sgguCd", "시군구코드 (심평원 코드 6자리, 예: 110019 중랑구; 법정동코드 아님)", example="110019"),
        Param("emdongNm", "읍면동명", example="신내동"),
        Param("yadmNm", "병원명 (부분일치, UTF-8)", example="서울"),
        Param(
            "zipCd",
            "분류코드 (2010 종합병원, 2030 병원, 2040 요양병원, 2050 치과, 2060 한방, 2070 의원, 2080 보건기관, 2090 조산원)",
            example="2070",
        ),
        Param(
            "clCd",
            "종별코드 (01 상급종합, 11 종합병원, 21 병원, 28 요양병원, 29 정신병원, 31 의원, 41 치과병원, 51 치과의원, 61 조산원, 71 보건소, 72 보건지소, 73 보건진료소, 75 보건의료원, 92 한방병원, 93 한의원)",
            example="31",
        ),
        Param("dgsbjtCd", "진료과목코드 (00 일반의, 01 내과 … 24 응급의학과, 50~61 치과, 80~88 한방)", example="01"),
        Param("xPos", "x좌표 (경도, WGS84)", type="number", example="127.09854004628151"),
        Param("yPos", "y좌표 (위도, WGS84)", type="number", example="37.6132113197367"),
        Param("radius", "반경 (미터; xPos, yPos와 함께)", type="integer", example="3000"),
    ],
    fields=[
        Field("addr", "주소", example="서울특별시 중랑구 신내로 156 (신내동)"),
        Field("clCd", "종별코드", example="11"),
        Field("clCdNm", "종별코드명", example="종합병원"),
        Field("cmdcGdrCnt", "한방일반의 인원수", type="integer", example="1"),
        Field("cmdcIntnCnt", "한방인턴 인원수", type="integer", example="0"),
        Field("cmdcResdntCnt", "한방레지던트 인원수", type="integer", example="0"),
        Field("cmdcSdrCnt", "한방전문의 인원수", type="integer", example="0"),
        Field("detyGdrCnt", "치과일반의 인원수", type="integer", example="1"),
        Field("detyIntnCnt", "치과인턴 인원수", type="integer", example="0"),
        Field("detyResdntCnt", "치과레지던트 인원수", type="integer", example="0"),
        Field("detySdrCnt", "치과전문의 인원수", type="integer", example="2"),
        Field("distance", "거리 (미터; 좌표 검색일 때)", example="0"),
        Field("drTotCnt", "의사총수", type="integer", example="227"),
        Field("emdongNm", "읍면동명", example="신내동"),
        Field("estbDd", "개설일자", type="integer", example="20110309"),
        Field("hospUrl", "홈페이지 (없으면 생략)", example="http://www.seoulmc.or.kr"),
        Field("mdeptGdrCnt", "의과일반의 인원수", type="integer", example="0"),
        Field("mdeptIntnCnt", "의과인턴 인원수", type="integer", example="28"),
        Field("mdeptResdntCnt", "의과레지던트 인원수", type="integer", example="64"),
        Field("mdeptSdrCnt", "의과전문의 인원수", type="integer", example="131"),
        Field("pnursCnt", "조산사 인원수", type="integer", example="0"),
        Field("postNo", "우편번호", example="02053"),
        Field("sgguCd", "시군구코드", type="integer", example="110019"),
        Field("sgguCdNm", "시군구명", example="중랑구"),
        Field("sidoCd", "시도코드", type="integer", example="110000"),
        Field("sidoCdNm", "시도명", example="서울"),
        Field("telno", "전화번호", example="02-2276-7000"),
        Field("XPos", "x좌표 (경도)", type="number", example="127.09854004628151"),
        Field("YPos", "y좌표 (위도)", type="number", example="37.6132113197367"),
        Field("yadmNm", "병원명", example="서울특별시서울의료원"),
        Field("ykiho", "암호화된 요양기호", example="JDQ4MTg4MSM1MSMkMSMkMCMk..."),
    ],
    example={"sidoCd": "110000", "sgguCd": "110019", "clCd": "31", "_type": "json", "numOfRows": "10"},
    notes="About 73,000 synthetic facilities nationwide, filed under HIRA's own sidoCd/sgguCd (not 법정동). "
    "Sorted by 종별 then name, or by distance when xPos, yPos and radius are all given (coordinates without "
    "radius are ignored). emdongNm matches the 법정동 name exactly; yadmNm matches any part. JSON numbers follow "
    'the gateway\'s conversion ("01" stays text, "11" becomes 11); distance stays text. hospUrl is left out '
    "when a facility has none. Facilities opened after the sandbox clock are not listed.",
)
def hosp_basis_list(ctx, params):
    sido = params.text("sidoCd").strip()
    sggu = params.text("sgguCd").strip()
    emdong = params.text("emdongNm").strip()
    name = params.text("yadmNm").strip()
    zip_cd = params.text("zipCd").strip()
    cl_cd = params.text("clCd").strip()
    subject = params.text("dgsbjtCd").strip()
    x, y = _float(params, "xPos"), _float(params, "yPos")
    radius = _float(params, "radius")
    near = x is not None and y is not None and radius is not None
    if near and radius < 0:
        raise InvalidParam("radius")

    kinds = set(KINDS)
    if cl_cd:
        kinds &= {cl_cd}
    if zip_cd:
        kinds &= ZIP_KINDS.get(zip_cd, set())
    today = ctx.now.strftime("%Y%m%d")
    if not sido and not sggu and not near:
        listing = nation().opened_by(today)
    else:
        scope: set[str] = set(areas())
        if sido:
            scope &= set(lawds_by_hira().get(sido, ()) if sido.endswith("0000") else ())
        if sggu:
            scope &= set(lawds_by_hira().get(sggu, ()) if not sggu.endswith("0000") or sggu == "410000" else ())
        if near:
            near_leaves = {leaf.code for leaf in leaves_near(y, x, radius)}
            scope &= {code[:5] for code in near_leaves}
            return _near_list(sorted(scope), near_leaves, y, x, radius, kinds, subject, name, emdong, today)
        # Every request asks its districts' builders (cached), so a cold query builds exactly its scope.
        lawds = tuple(sorted(scope))
        for lawd in lawds:
            facilities_in(lawd)
        listing = _scoped(lawds).opened_by(today)
    found = listing.select(kinds=kinds, subject=subject, name=name, emdong=emdong)
    return LazyRecords(Picked(listing.facilities, found), lambda facility: basis_record(facility, None))


@cache
def _spots(lawd: str) -> tuple[tuple[Facility, str, float, float, float], ...]:
    """(facility, leaf code, latitude in radians, its cosine, longitude) of a district's placed facilities,
    in facility order: the parts of distance_m that do not depend on the search point."""
    found = []
    for facility in facilities_in(lawd):
        place = place_of(facility)
        if place is not None:
            lat = math.radians(place.lat)
            found.append((facility, facility.leaf_code, lat, math.cos(lat), place.lon))
    return tuple(found)


def _near_list(lawds, near_leaves, y, x, radius, kinds, subject, name, emdong, today) -> LazyRecords:
    """Facilities within radius metres of (y, x), nearest first (ties in district and facility order).

    The distance is distance_m(y, x, lat, lon) step for step, with the facility's side computed once; a
    facility whose latitude alone puts it a metre beyond the radius is skipped before it."""
    sin, asin, sqrt, radians = math.sin, math.asin, math.sqrt, math.radians
    p1 = radians(y)
    cos_p1 = math.cos(p1)
    lat_reach = (radius + 1.0) / 6_371_008.8
    chosen: list[tuple[Facility, float]] = []
    for lawd in lawds:
        facilities_in(lawd)  # asked per request, as the list path does: a cold query builds exactly its scope
        for facility, leaf_code, p2, cos_p2, lon in _spots(lawd):
            dp = p2 - p1
            if leaf_code not in near_leaves or abs(dp) > lat_reach:
                continue
            if facility.cl_cd not in kinds or facility.estb_dd > today:
                continue
            if subject and subject not in facility.subjects:
                continue
            if name and name not in facility.name:
                continue
            if emdong and regions.region(leaf_code).eupmyeondong != emdong:
                continue
            a = sin(dp / 2) ** 2 + cos_p1 * cos_p2 * sin(radians(lon - x) / 2) ** 2
            distance = 2 * 6_371_008.8 * asin(sqrt(min(1.0, a)))
            if distance > radius:
                continue
            chosen.append((facility, distance))
    nearest = sorted(chosen, key=operator.itemgetter(1))
    distances = [fd[1] for fd in nearest]
    if any(map(operator.eq, distances, islice(distances, 1, None))):  # a tie: the name decides
        nearest = sorted(chosen, key=lambda fd: (fd[1], fd[0].name))
    return LazyRecords(nearest, lambda fd: basis_record(*fd))


# --- the list's order and indexes ---------------------------------------------------------------------


def _list_key(facility: Facility) -> tuple:
    return (CL_ORDER[facility.cl_cd], facility.name, facility.leaf_code, facility.seq)


class Listing:
    """Facilities in getHospBasisList's order (종별, then name), with a column per filtered field and positions
    by value, so a filter starts from its narrowest index instead of walking every facility."""

    def __init__(self, facilities: Iterable[Facility]):
        self.facilities = tuple(facilities)
        self.kinds = tuple(f.cl_cd for f in self.facilities)
        self.subjects = tuple(f.subjects for f in self.facilities)
        self._opened: dict[str, Listing] = {}

    @cached_property
    def by_kind(self) -> dict[str, range]:
        """The list is ordered by 종별 first, so each kind is one run of positions."""
        runs: dict[str, range] = {}
        for kind, positions in positions_by(self.kinds).items():
            runs[kind] = range(positions[0], positions[-1] + 1)
        return runs

    @cached_property
    def by_subject(self) -> dict[str, tuple[int, ...]]:
        return positions_by_each(self.subjects)

    @cached_property
    def emdongs(self) -> tuple[str, ...]:
        return tuple(regions.region(f.leaf_code).eupmyeondong for f in self.facilities)

    @cached_property
    def by_emdong(self) -> dict[str, tuple[int, ...]]:
        return positions_by(self.emdongs)

    @cached_property
    def names(self) -> TextIndex:
        return TextIndex([f.name for f in self.facilities])

    @cached_property
    def by_lawd(self) -> dict[str, tuple[int, ...]]:
        return positions_by(f.leaf_code[:5] for f in self.facilities)

    def build_indexes(self) -> None:
        for index in ("by_kind", "by_subject", "by_emdong", "names", "by_lawd"):
            getattr(self, index)

    def opened_by(self, today: str) -> Listing:
        """The facilities opened by today (YYYYMMDD): this listing itself when all are, as on the default clock;
        otherwise a listing of its own, kept for a few clocks."""
        if self._latest_opening <= today:
            return self
        listing = self._opened.get(today)
        if listing is None:
            listing = Listing(f for f in self.facilities if f.estb_dd <= today)
            if len(self._opened) >= 4:
                self._opened.clear()
            self._opened[today] = listing
        return listing

    @cached_property
    def _latest_opening(self) -> str:
        return max((f.estb_dd for f in self.facilities), default="")

    def select(self, *, kinds: set[str], subject: str, name: str, emdong: str) -> Sequence[int]:
        """Positions of the facilities that pass the filters, in the list's order."""
        filters = []
        if len(kinds) < len(KINDS):
            runs = [self.by_kind.get(kind, range(0)) for kind in sorted(kinds, key=CL_ORDER.get)]
            positions = runs[0] if len(runs) == 1 else [p for run in runs for p in run]
            column = self.kinds
            filters.append(Filter(positions, lambda p: column[p] in kinds))
        if subject:
            offered = self.subjects
            filters.append(Filter(self.by_subject.get(subject, ()), lambda p: subject in offered[p]))
        if name:
            names = self.names.texts
            filters.append(Filter(self.names.containing(name), lambda p: name in names[p]))
        if emdong:
            emdongs = self.emdongs
            filters.append(Filter(self.by_emdong.get(emdong, ()), lambda p: emdongs[p] == emdong))
        return select(len(self.facilities), filters)


@cache
def nation() -> Listing:
    """Every facility of the country in the list's order (about 73,000; warm() builds it ahead of requests)."""
    return Listing(sorted((f for lawd in sorted(areas()) for f in facilities_in(lawd)), key=_list_key))


@lru_cache(maxsize=512)
def _scoped(lawds: tuple[str, ...]) -> Listing:
    """The facilities of some districts in the list's order: picked from the nation's list once that exists,
    else sorted from the districts' own (a cold district query must not build the country)."""
    if nation.cache_info().currsize:
        whole = nation()
        positions = sorted(p for lawd in lawds for p in whole.by_lawd.get(lawd, ()))
        return Listing(whole.facilities[p] for p in positions)
    return Listing(sorted((f for lawd in lawds for f in facilities_in(lawd)), key=_list_key))


# --- 의료기관별상세정보서비스 ------------------------------------------------------------------------

DTL_INFO = datagokr_service(
    id="MadmDtlInfoService2.7",
    org="B551182",
    provider_ko="건강보험심사평가원",
    provider_en="Health Insurance Review & Assessment Service (HIRA)",
    title_ko="건강보험심사평가원_의료기관별상세정보서비스",
    envelope=ConvertedJsonEnvelope(json_switch=("_type", "json"), success_code="00", success_msg="NORMAL SERVICE."),
)

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
CLINICS = {"31", "51", "93", "61"}


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}{minutes % 60:02d}"


def _colon(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[2:])


def opening_hours(facility: Facility) -> dict[str, tuple[int, int] | None]:
    """Day ("Mon".."Sun", "Holi") -> (open, close) in minutes after midnight, or None when closed."""
    r = rng("hira-hours", facility.leaf_code, facility.seq)
    cl = facility.cl_cd
    hours: dict[str, tuple[int, int] | None] = {}
    if cl in CLINICS:
        start = _minutes(pick_weighted(r, [("0830", 0.1), ("0900", 0.6), ("0930", 0.25), ("1000", 0.05)]))
        end = _minutes(pick_weighted(r, [("1800", 0.35), ("1830", 0.3), ("1900", 0.2), ("1700", 0.05), ("2000", 0.1)]))
        late_day = r.randrange(5) if r.random() < 0.35 else None
        for i, day in enumerate(DAYS[:5]):
            hours[day] = (start, _minutes(r.choice(("2000", "2100"))) if i == late_day else end)
        sat_open = r.random() < 0.85
        hours["Sat"] = (
            (start, _minutes(pick_weighted(r, [("1300", 0.45), ("1400", 0.25), ("1500", 0.2), ("1700", 0.1)])))
            if sat_open
            else None
        )
        sunday_share = 0.15 if "11" in facility.subjects or "13" in facility.subjects else 0.07
        hours["Sun"] = (600, _minutes(r.choice(("1400", "1500", "1600")))) if r.random() < sunday_share else None
        hours["Holi"] = hours["Sun"] if hours["Sun"] and r.random() < 0.6 else None
    elif cl in ("71", "72", "73", "75"):
        for day in DAYS[:5]:
            hours[day] = (540, 1080)
        hours["Sat"] = hours["Sun"] = hours["Holi"] = None
    else:
        start = _minutes(r.choice(("0830", "0900")))
        end = _minutes(r.choice(("1730", "1800")))
        for day in DAYS[:5]:
            hours[day] = (start, end)
        hours["Sat"] = (
            (start, _minutes(r.choice(("1230", "1300")))) if r.random() < (0.6 if cl in ("01", "11") else 0.8) else None
        )
        hours["Sun"] = hours["Holi"] = None
    return hours


def emergency(facility: Facility) -> tuple[bool, bool]:
    """(주간 응급실, 야간 응급실)."""
    r = rng("hira-er", facility.leaf_code, facility.seq)
    if facility.cl_cd in ("01", "11"):
        return True, facility.cl_cd == "01" or r.random() < 0.9
    if facility.cl_cd == "21" and r.random() < 0.25:
        return True, r.random() < 0.8
    return False, False


def has_detail(facility: Facility) -> bool:
    """Some general hospitals have no 세부정보 at all (live answers them with empty items)."""
    return not (facility.cl_cd in ("01", "11") and rng("hira-dtl", facility.leaf_code, facility.seq).random() < 0.15)


def _landmark(facility: Facility, r) -> tuple[str, str, str] | None:
    place = place_of(facility)
    if place is None:
        return None
    station, metres = nearest_station(place.lat, place.lon)
    if metres <= 1500:
        return f"{station}역", f"{r.randint(1, 12)}번 출구", f"도보 {max(1, round(metres / 70))}분"
    leaf = regions.region(facility.leaf_code)
    return (
        f"{leaf.eupmyeondong}행정복지센터",
        r.choice(("맞은편", "옆 건물", "건너편", "부근")),
        f"{r.randint(1, 6) * 50}m",
    )


def detail_record(facility: Facility) -> dict:
    r = rng("hira-detail", facility.leaf_code, facility.seq)
    hours = opening_hours(facility)
    day_er, night_er = emergency(facility)
    record: dict[str, str] = {}
    if day_er:
        record["emyDayTelNo1"] = facility.tel
        if r.random() < 0.4:
            record["emyDayTelNo2"] = phone_number(r, facility.leaf_code)
    record["emyDayYn"] = "Y" if day_er else "N"
    if night_er:
        record["emyNgtTelNo1"] = facility.tel
    record["emyNgtYn"] = "Y" if night_er else "N"
    clinic = facility.cl_cd in CLINICS
    lunch = (
        pick_weighted(r, [("13:00~14:00", 0.6), ("12:30~13:30", 0.25), ("13:30~14:30", 0.15)])
        if clinic
        else "12:30~13:30"
    )
    sat = hours["Sat"]
    record["lunchSat"] = "없음" if sat is None or sat[1] <= 14 * 60 else lunch
    record["lunchWeek"] = lunch
    record["noTrmtHoli"] = "휴진" if hours["Holi"] is None else "정상진료"
    if hours["Sun"] is None:
        record["noTrmtSun"] = "휴진"
    big = facility.cl_cd in ("01", "11")
    if big or facility.cl_cd in ("21", "28", "29", "92") or r.random() < 0.45:
        record["parkEtc"] = (
            "외래 진료 시 2시간 무료"
            if big
            else r.choice(("건물 내 주차장 이용", "진료 시 1시간 무료", "건물 지하주차장 이용 가능", "주차 공간 협소"))
        )
        record["parkQty"] = str(
            r.randint(300, 1800)
            if big
            else r.randint(20, 150)
            if facility.cl_cd in WHOLE_BUILDING
            else r.randint(2, 30)
        )
        record["parkXpnsYn"] = "Y" if big or r.random() < 0.5 else "N"
    landmark = _landmark(facility, r)
    if landmark:
        record["plcDir"], record["plcDist"], record["plcNm"] = landmark[1], landmark[2], landmark[0]
    weekday = hours["Mon"] or hours["Tue"]
    if weekday:
        record["rcvSat"] = f"{_colon(sat[0])}~{_colon(sat[1] - 30)}" if sat else ""
        record["rcvWeek"] = f"{_colon(weekday[0])}~{_colon(weekday[1] - 30)}"
        if not record["rcvSat"]:
            del record["rcvSat"]
    for day in ("Fri", "Mon", "Sat", "Sun", "Thu", "Tue", "Wed"):
        span = hours[day]
        if span:
            record[f"trmt{day}End"] = _hhmm(span[1])
            record[f"trmt{day}Start"] = _hhmm(span[0])
    return record


@DTL_INFO.operation(
    id="hira_dtl_info",
    path="/getDtlInfo2.7",
    summary_ko="세부정보 (진료시간, 응급실, 주차, 위치)",
    summary_en="One facility's hours, emergency room, parking and landmark",
    params=[Param("ykiho", "암호화된 요양기호 (병원기본목록의 ykiho)", required=True, example="")],
    fields=[
        Field("emyDayYn", "주간 응급실 운영여부 (Y/N)", example="Y"),
        Field("emyDayTelNo1", "주간 응급실 전화번호1", example="02-2276-7000"),
        Field("emyDayTelNo2", "주간 응급실 전화번호2", example=""),
        Field("emyNgtYn", "야간 응급실 운영여부 (Y/N)", example="Y"),
        Field("emyNgtTelNo1", "야간 응급실 전화번호1", example="02-2276-7000"),
        Field("lunchSat", "점심시간 토요일", example="없음"),
        Field("lunchWeek", "점심시간 평일", example="13:00~14:00"),
        Field("noTrmtHoli", "공휴일 휴진 안내", example="휴진"),
        Field("noTrmtSun", "일요일 휴진 안내", example="휴진"),
        Field("parkEtc", "주차 기타 안내", example="진료 시 1시간 무료"),
        Field("parkQty", "주차 가능 대수", type="integer", example="20"),
        Field("parkXpnsYn", "주차비 부담 여부 (Y/N)", example="N"),
        Field("plcDir", "공공건물(장소) 방향", example="3번 출구"),
        Field("plcDist", "공공건물(장소) 거리", example="도보 5분"),
        Field("plcNm", "공공건물(장소)명", example="강남역"),
        Field("rcvSat", "접수시간 토요일", example="09:00~12:30"),
        Field("rcvWeek", "접수시간 평일", example="09:00~17:30"),
        *[
            Field(f"trmt{d}{se}", f"{k}요일 진료 {'시작' if se == 'Start' else '종료'} (HHMM)", example=ex)
            for d, k in zip(DAYS, "월화수목금토일", strict=True)
            for se, ex in (("End", "1800"), ("Start", "0900"))
        ],
    ],
    example={"ykiho": "", "_type": "json"},
    notes="One facility per ykiho, answered as a single object under items.item. An unknown or mangled ykiho "
    "(e.g. a '+' sent unencoded) gives empty items, and so do about 15 % of 상급종합/종합병원, which have no "
    "세부정보 (as live). Days a facility is closed have no trmt*Start/End fields; fields without a value are "
    'left out. HHMM times keep their leading zero as text in JSON ("0900") and become numbers otherwise (1830).',
)
def dtl_info(ctx, params):
    facility = facility_by_ykiho(params.text("ykiho"))
    if facility is None or facility.estb_dd > ctx.now.strftime("%Y%m%d") or not has_detail(facility):
        return []
    return [detail_record(facility)]


def _example_ykiho() -> str:
    """A 내과의원 in 중랑구 신내동, for the operation's example request."""
    for facility in facilities_in("11260"):
        if facility.cl_cd == "31" and "01" in facility.subjects and facility.estb_dd < "20200101":
            return facility.ykiho
    return ""


def _ykiho_showing(wanted: set[str], worth_a_look: Callable[[Facility], bool]) -> str:
    """A facility of 중랑구 opened before 2020 whose 세부정보 carries the wanted fields (worth_a_look skips
    most facilities cheaply, as this runs at import)."""
    for facility in facilities_in("11260"):
        if facility.estb_dd >= "20200101" or not worth_a_look(facility) or not has_detail(facility):
            continue
        if wanted <= set(detail_record(facility)):
            return facility.ykiho
    return ""


DTL_INFO.operations[-1].example["ykiho"] = _example_ykiho()
# Fields without a value are left out, so a 종합병원 with both emergency rooms and parking and a facility
# open on Sundays show the fields the 내과의원 lacks.
DTL_INFO.operations[-1].more_examples = (
    {"ykiho": _ykiho_showing({"emyDayTelNo2", "emyNgtTelNo1", "parkQty"}, lambda f: emergency(f)[1]), "_type": "json"},
    {"ykiho": _ykiho_showing({"trmtSunStart"}, lambda f: opening_hours(f)["Sun"] is not None), "_type": "json"},
)


def warm(now: datetime) -> None:
    """Build every facility, the nationwide list with its indexes and every placed facility (apis.sandbox.warm)."""
    nation().opened_by(now.strftime("%Y%m%d")).build_indexes()
    for lawd in areas():
        _spots(lawd)
    for lawd in regions.lawd_codes():
        leaf_centers(lawd)
