"""Parameter and field names: normalization, word tokens, and the known aliases of Korean public-API codes.

Names are compared after folding case and separators (`LAWD_CD` ~ `lawdCd`, `nodeid` ~ `nodeId`). Codes that
go by different names across providers are grouped into concepts (a 10-digit 법정동 code is `region_cd`,
`admCd` or `stdgCd`); a concept may feed another one through a transform (its first five digits are the
시군구 code that MOLIT calls `LAWD_CD`). research/korean_apis.md §3 is the source of the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_SEPARATORS = re.compile(r"[^0-9a-z]+")
_CONDITION = re.compile(r"^cond\[([^:\]]+)::[A-Za-z]+\]$")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

# Paging, format and client-identification parameters: never the target of a data link.
CONTROL_PARAMS = frozenset(
    {
        "pageno",
        "numofrows",
        "currentpage",
        "countperpage",
        "startindex",
        "endindex",
        "startcount",
        "page",
        "perpage",
        "resultcount",
        "mobileos",
        "mobileapp",
        "datatype",
        "returntype",
        "resulttype",
        "servicekey",
        "confmkey",
        "apikey",
        "format",
    }
)

# Abbreviations that mean the same word, folded before tokens are compared.
TOKEN_SYNONYMS = {
    "cd": "code",
    "nm": "name",
    "no": "num",
    "nmbr": "num",
    "number": "num",
    "lati": "lat",
    "latitude": "lat",
    "long": "lon",
    "lng": "lon",
    "longitude": "lon",
    "ymd": "date",
    "de": "date",
    "dt": "date",
}

# Tokens too common to identify anything on their own.
GENERIC_TOKENS = frozenset({"code", "name", "num", "id", "type", "value", "info", "list", "se", "gbn", "yn", "cnt"})


@dataclass(frozen=True)
class Concept:
    """A code that several APIs name differently."""

    name: str
    label: str
    names: frozenset[str]  # normalized spellings


# Normalized spellings of each concept. A name may only belong to one concept.
CONCEPTS: tuple[Concept, ...] = (
    Concept(
        "bjd10", "법정동코드 10자리", frozenset({"regioncd", "admcd", "stdgcd", "bjdcd", "legaldongcode", "ldongcd"})
    ),
    Concept("sigungu5", "시군구코드 5자리 (LAWD_CD)", frozenset({"lawdcd", "sggcd", "sigungucd", "roadnmsggcd"})),
    Concept("bjdong5", "법정동코드 뒤 5자리", frozenset({"bjdongcd", "umdcd"})),
    Concept("bun4", "본번 4자리", frozenset({"bun", "bonbun", "lnbrmnnm"})),
    Concept("ji4", "부번 4자리", frozenset({"ji", "bubun", "lnbrslno"})),
    Concept("node_id", "TAGO 정류소 ID", frozenset({"nodeid"})),
    Concept("city_code", "TAGO 도시코드", frozenset({"citycode"})),
    Concept("station_name", "에어코리아 측정소명", frozenset({"stationname"})),
    Concept("content_id", "TourAPI 콘텐츠 ID", frozenset({"contentid"})),
    Concept("content_type", "TourAPI 관광타입 ID", frozenset({"contenttypeid"})),
    Concept("area_code", "TourAPI 지역코드", frozenset({"areacode"})),
    Concept("ykiho", "요양기호", frozenset({"ykiho"})),
    Concept("hpid", "기관 ID", frozenset({"hpid"})),
    Concept("ars_id", "서울 정류소 고유번호", frozenset({"arsid"})),
    Concept("kosis_org", "KOSIS 기관 ID", frozenset({"orgid"})),
    Concept("kosis_table", "KOSIS 통계표 ID", frozenset({"tblid"})),
    Concept("business_no", "사업자등록번호", frozenset({"bno"})),
    Concept("route_id", "노선 ID", frozenset({"routeid"})),
)

# Concept -> concept links and the transform each needs (research §3, §5).
CONCEPT_LINKS: dict[tuple[str, str], tuple[str, ...]] = {
    ("bjd10", "bjd10"): ("identity",),
    ("bjd10", "sigungu5"): ("slice:0:5",),
    ("bjd10", "bjdong5"): ("slice:5:10",),
    ("sigungu5", "sigungu5"): ("identity",),
    ("bjdong5", "bjdong5"): ("identity",),
    ("bun4", "bun4"): ("identity", "zero_pad:4"),
    ("ji4", "ji4"): ("identity", "zero_pad:4"),
}

_CONCEPT_OF = {spelling: concept.name for concept in CONCEPTS for spelling in concept.names}


def unwrap(name: str) -> str:
    """The field a filter parameter names: odcloud's `cond[HOUSE_MANAGE_NO::EQ]` filters HOUSE_MANAGE_NO."""
    match = _CONDITION.match(name)
    return match.group(1) if match else name


@lru_cache(maxsize=65536)
def normalize(name: str) -> str:
    """Lower case without separators: `LAWD_CD` -> `lawdcd`, `node-Id` -> `nodeid`."""
    return _SEPARATORS.sub("", unwrap(name).lower())


@lru_cache(maxsize=65536)
def tokens(name: str) -> tuple[str, ...]:
    """Word tokens of a name (camelCase, snake_case, digits split), lower case, synonyms folded."""
    words = []
    for part in re.split(r"[^0-9A-Za-z]+", unwrap(name)):
        words.extend(_CAMEL.findall(part))
    return tuple(TOKEN_SYNONYMS.get(word.lower(), word.lower()) for word in words if word)


def concept_of(name: str) -> str | None:
    return _CONCEPT_OF.get(normalize(name))


def is_control_param(name: str) -> bool:
    return normalize(name) in CONTROL_PARAMS


def concept_transforms(source: str, target: str) -> tuple[str, ...]:
    """Transforms that link a source name's concept to a target name's concept; empty if none is known."""
    a, b = concept_of(source), concept_of(target)
    if a is None or b is None:
        return ()
    return CONCEPT_LINKS.get((a, b), ("identity",) if a == b else ())


def name_similarity(source: str, target: str) -> float:
    """1.0 for the same normalized name, 0.95 for a known alias, else a token overlap below 0.8."""
    if normalize(source) == normalize(target):
        return 1.0
    if concept_transforms(source, target):
        return 0.95
    a, b = set(tokens(source)), set(tokens(target))
    if not a or not b:
        return 0.0
    shared = a & b
    if not shared or shared <= GENERIC_TOKENS:
        # Only "code" or "name" in common says little: "sidoCd" and "clCd" are unrelated.
        return 0.1 * len(shared) / len(a | b)
    return 0.8 * len(shared) / len(a | b)


@lru_cache(maxsize=65536)
def _blocking_keys(name: str) -> frozenset[str]:
    keys = {f"n:{normalize(name)}"}
    concept = concept_of(name)
    if concept:
        keys.add(f"c:{concept}")
    words = sorted({word for word in tokens(name) if not word.isdigit()})[:5]
    # Two words in common ("station" + "name" in stationNm1 and stationName) say more than one, and keep
    # each key's list short in a big catalog. In longer names a pair needs two specific words.
    specific = len(words) > 2
    keys.update(
        f"p:{a}|{b}"
        for i, a in enumerate(words)
        for b in words[i + 1 :]
        if not ({a, b} & GENERIC_TOKENS if specific else {a, b} <= GENERIC_TOKENS)
    )
    return frozenset(keys)


def blocking_keys(name: str) -> set[str]:
    """Index keys under which a name meets its likely partners: its normalized form, its concept, and each
    pair of its words that is not just generic words."""
    return set(_blocking_keys(name))


def target_keys(name: str) -> set[str]:
    """The keys a target parameter is filed under: as blocking_keys, plus every concept that links to it."""
    keys = blocking_keys(name)
    concept = concept_of(name)
    if concept:
        keys.update(f"c:{src}" for (src, dst) in CONCEPT_LINKS if dst == concept)
    return keys
