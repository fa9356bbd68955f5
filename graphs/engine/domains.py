"""Value domains: what kind of value a parameter means and a record field holds, kept as data.

A link A.F -> B.P is only worth trying when F's values are of the kind P means: a 5-digit 시군구 code is no
TourAPI areaCode, a TM X is no latitude, a drug's update date is no business's opening date. Every parameter
and field gets a domain from the rules below (its normalized name, the provider, sometimes the side); a name no
rule knows is "unknown", an honest value that the matcher penalizes rather than passes. Domains that identify
nothing another API could look up (dates, times, measurements, free text, flags of one provider) are not
chainable: no candidate is proposed from or into them.

The table is extensible per provider: a rule with a provider is tried before the general ones, so a provider
whose `tmX` is a WGS84 longitude (Seoul bus) says so in one line. research/korean_apis.md §3 and the reference
tables in the shared data folder are the sources. Plain data and functions; no Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from graphs.engine.names import is_control_param, normalize

UNKNOWN = "unknown"
UNKNOWN_PENALTY = 0.5  # a known <-> unknown pair keeps this share of its score
BOTH_UNKNOWN_PENALTY = 0.5  # and an unknown <-> unknown pair this share (a catalog no rule knows yet)


@dataclass(frozen=True)
class Domain:
    name: str
    label: str
    chainable: bool = True  # identifies something another API can look up
    # Valid values of the domain (from the shared reference tables), for specificity and confusion controls.
    samples: tuple[str, ...] = ()
    # The domain most easily mistaken for this one: its values are what a confusion control binds.
    confusable: str = ""
    # Coordinate members: the composite they only mean something in ("wgs84", "tm", "utmk", "kma").
    group: str = ""
    # Target domains that must be bound from the same source record for a value of this domain to mean
    # anything: a 0/1 지하여부 names no building without its road code, a 부번 no lot without its 본번.
    companions: tuple[str, ...] = ()
    # Values of the right shape that name nothing of this kind (a regular expression over the whole value): the
    # 동 part 00000 of a 시도 or 시군구 row, a 시도 row's 11000 where a 시군구 belongs.
    invalid: str = ""


def _d(name, label, chainable=True, samples=(), confusable="", group="", companions=(), invalid=""):
    return Domain(name, label, chainable, tuple(samples), confusable, group, tuple(companions), invalid)


# 시 divided into 구 (수원시, 성남시, 청주시, 창원시 …): their own 5-digit code names no unit that MOLIT's 실거래가
# (LAWD_CD) or the building register (sigunguCd) index, which answer it with 0 rows; their 구 (41111 장안구) are
# the units. They are the current (not abolished) 시군구 rows of the 법정동 table (the sandbox's
# seeds/bdong_codes.csv.gz, from the shared reference data) that have 구 rows under their name;
# tests/graphs/engine/test_domains_scope.py derives them again from the table.
CITIES_WITH_GU: tuple[str, ...] = (
    "41110",
    "41130",
    "41170",
    "41190",
    "41270",
    "41280",
    "41460",
    "43110",
    "44130",
    "47110",
    "48120",
    "52110",
)

DOMAINS: dict[str, Domain] = {
    d.name: d
    for d in (
        _d(UNKNOWN, "unknown (no rule knows this name)"),
        # Regions: the 법정동 code and its slices, and what other providers use instead.
        _d("bjd10", "법정동코드 10자리", samples=("1111010100", "1168010100", "2611010100"), confusable="hjd10"),
        _d(
            "sgg5",
            "시군구코드 5자리 (법정동 앞 5자리, LAWD_CD)",
            samples=("11110", "11680", "26110"),
            confusable="hira.sggu",
            # A 시도 row's 11000, or a 시 whose 구 are the units (41110 수원시): neither is a LAWD_CD or sigunguCd.
            invalid=r"\d\d000|" + "|".join(CITIES_WITH_GU),
        ),
        _d(
            "umd5",
            "법정동 읍면동 5자리 (법정동 뒤 5자리)",
            samples=("10100", "10300", "11800"),
            confusable="sgg5",
            companions=("sgg5",),
            invalid=r"0{5}",
        ),
        _d(
            "bjd10.upper",
            "법정동코드 10자리의 시도·시군구 행 (읍면동 자리 00000)",
            samples=("1100000000", "1111000000"),
            confusable="hjd10",
        ),
        _d("hjd10", "행정동코드 10자리", samples=("1111051500", "1168064000"), confusable="bjd10"),
        _d("ldong.sido2", "법정동 시도코드 2자리", samples=("11", "26", "41"), confusable="tour.area"),
        _d(
            "ldong.sgg3",
            "법정동 시군구코드 3자리 (법정동 3~5번째)",
            samples=("110", "680", "140"),
            confusable="tour.sigungu",
            companions=("ldong.sido2",),
            invalid=r"000",
        ),
        _d("ldong.umd3", "법정동 읍면동코드 3자리", chainable=False),
        _d(
            "sido.full",
            "시도명 (서울특별시)",
            samples=("서울특별시", "부산광역시", "경기도"),
            confusable="sigungu.name",
        ),
        _d("sido.short", "시도 약칭 (서울, 경기)", samples=("서울", "부산", "경기"), confusable="sigungu.name"),
        # "중구" names six districts: a 시군구 name means one only beside its 시도 (the pharmacy list's Q0 with Q1).
        _d(
            "sigungu.name",
            "시군구명 (종로구)",
            samples=("종로구", "강남구", "해운대구"),
            confusable="emd.name",
            companions=("sido.full",),
        ),
        # 신사동 and 중앙동 are in many districts: a 읍면동 name means one only beside its 시군구 (HIRA's sgguCd).
        _d(
            "emd.name",
            "법정 읍면동명 (청운동)",
            samples=("청운동", "역삼동", "신내동"),
            confusable="sigungu.name",
            companions=("hira.sggu", "sigungu.name", "sgg5"),
        ),
        # AirKorea's TM reference points are listed by 행정동 (역삼1동), not 법정동 (역삼동): another spelling.
        _d(
            "emd.admin",
            "행정동명 (역삼1동, 에어코리아 TM 기준좌표)",
            samples=("혜화동", "역삼1동"),
            confusable="sigungu.name",
        ),
        # 심평원 writes a 구 of a 시 as one word (성남분당구), where others write 성남시 분당구.
        _d("sigungu.name_hira", "심평원 시군구명 (성남분당구)", samples=("중랑구", "성남분당구")),
        # Names whose spelling across providers is not confirmed stay apart until it is: 실거래가's sggNm (시 and
        # 구 written together or apart), 심평원's sidoCdNm (세종시 where AirKorea writes 세종).
        _d("sigungu.name_rtms", "실거래가 시군구명 (표기 미확인)", chainable=False),
        _d("sido.short_hira", "심평원 시도명 (세종시, 표기가 에어코리아와 다름)", chainable=False),
        _d("region.name", "지역주소명 (서울특별시 종로구)", samples=("서울특별시 종로구", "부산광역시 해운대구")),
        _d("hira.sido", "심평원 시도코드 6자리", samples=("110000", "210000", "310000"), confusable="sgg5"),
        _d("hira.sggu", "심평원 시군구코드 6자리", samples=("110019", "110001", "210001"), confusable="sgg5"),
        _d("tour.area", "TourAPI 지역코드 (1 서울 … 39 제주)", samples=("1", "6", "32", "35"), confusable="sgg5"),
        _d(
            "tour.sigungu",
            "TourAPI 시군구코드 (지역코드 안의 번호)",
            samples=("1", "23", "5"),
            confusable="ldong.sgg3",
            companions=("tour.area",),
        ),
        # Addresses (Juso) and lots (건축물대장).
        _d("juso.rn_mgt_sn", "도로명코드 12자리", samples=("111103100012", "116804166727")),
        _d("juso.udrt", "지하여부 (0 지상, 1 지하)", samples=("0", "1"), companions=("juso.rn_mgt_sn",)),
        _d("juso.buld_mnnm", "건물본번", samples=("12", "58", "1"), companions=("juso.rn_mgt_sn",)),
        _d("juso.buld_slno", "건물부번", samples=("0", "1"), companions=("juso.rn_mgt_sn",)),
        _d("lot.plat_gb", "대지구분 (0 대지, 1 산)", samples=("0", "1"), companions=("lot.bun4",)),
        _d("lot.bun", "지번 본번 (번지, 앞 0 없음)", samples=("23", "12", "459")),
        _d("lot.ji", "지번 부번 (호, 앞 0 없음)", samples=("0", "4", "59")),
        # No confusion control between 본번 and 부번: they share one value space (a 부번 0004 is also a real
        # 본번), so B answering it proves nothing, and the verdict would hang on which sample was drawn.
        # A 본번 names a lot only inside its 시군구 and 법정동, read from the same record.
        _d("lot.bun4", "지번 본번 4자리 (0023)", samples=("0023", "0012", "0459"), companions=("sgg5", "umd5")),
        _d("lot.ji4", "지번 부번 4자리 (0004)", samples=("0000", "0004", "0059"), companions=("lot.bun4",)),
        _d("address.keyword", "주소 검색어", chainable=False),
        _d("address.text", "주소 (문장)", chainable=False),
        # Coordinates: members of a pair, never bound one by one.
        _d("wgs84.lon", "WGS84 경도", group="wgs84"),
        _d("wgs84.lat", "WGS84 위도", group="wgs84"),
        _d("tm.x", "TM X (EPSG:5181 계열)", group="tm"),
        _d("tm.y", "TM Y", group="tm"),
        _d("utmk.x", "UTM-K X (EPSG:5179)", group="utmk"),
        _d("utmk.y", "UTM-K Y", group="utmk"),
        _d("kma.nx", "기상청 격자 nx", group="kma"),
        _d("kma.ny", "기상청 격자 ny", group="kma"),
        # Weather.
        _d(
            "kma.reg_land",
            "기상청 중기 육상예보 구역 (11B00000)",
            samples=("11B00000", "11H20000"),
            confusable="kma.reg_ta",
        ),
        _d(
            "kma.reg_ta",
            "기상청 중기 기온예보 구역 (11B10101)",
            samples=("11B10101", "11H20201"),
            confusable="kma.reg_land",
        ),
        # Air quality.
        _d("airkorea.station", "에어코리아 측정소명", samples=("종로구", "중구", "강남구"), confusable="emd.name"),
        _d("airkorea.station_code", "에어코리아 측정소 코드", chainable=False),
        _d("airkorea.dm", "위도 또는 경도 (ver에 따라 바뀜)", chainable=False),
        # Buses.
        _d("tago.city", "TAGO 도시코드", samples=("25", "22", "12"), confusable="tour.area"),
        _d("tago.node", "TAGO 정류소 ID", samples=("DJB8001793", "DJB8001583"), confusable="tago.route"),
        _d("tago.route", "TAGO 노선 ID", samples=("DJB30300004", "DJB30300056"), confusable="tago.node"),
        _d("tago.node_name", "TAGO 정류소명", samples=("대전시청", "전통시장"), confusable="tago.route_no"),
        _d(
            "tago.node_no",
            "TAGO 정류소 번호 (모바일 단축번호)",
            samples=("44810", "45730"),
            confusable="tago.route_no",
            # Stop numbers repeat across cities (2296 is a stop of 청주 and of 세종): one means a stop with its city.
            companions=("tago.city",),
        ),
        _d("tago.route_no", "버스 노선번호", chainable=False),
        _d("tago.city_name", "TAGO 도시명", chainable=False),
        _d(
            "seoul.ars_id",
            "서울 정류소 고유번호 (5자리)",
            samples=("01001", "22009", "13195"),
            confusable="tago.node_no",
        ),
        _d("seoul.st_id", "서울 정류소 ID (9자리)", samples=("121000009", "100000001"), confusable="seoul.route_id"),
        _d("seoul.station_name", "서울 버스 정류소명", samples=("강남역", "종로2가사거리"), confusable="tago.route_no"),
        _d("seoul.route_id", "서울 버스 노선 ID", samples=("100100063",), confusable="seoul.st_id"),
        _d("subway.station_name", "지하철역명 ('역' 없이)", samples=("강남", "서울"), confusable="seoul.station_name"),
        _d("subway.station_name_full", "지하철 역사명 ('역' 포함)", chainable=False),
        # Tourism.
        _d("tour.content_id", "TourAPI 콘텐츠 ID", samples=("195400", "126508"), confusable="drug.item_seq"),
        # A content's type is its own: detailIntro2 answers a contentId only with the contentTypeId of the same record.
        _d(
            "tour.content_type",
            "TourAPI 관광타입 ID",
            samples=("12", "14", "39"),
            confusable="tour.area",
            companions=("tour.content_id",),
        ),
        _d("tour.cat1", "TourAPI 대분류", samples=("A01", "A02")),
        # TourAPI filters cat2 only within its cat1, and cat3 within its cat1 and cat2: the parents go beside them.
        _d("tour.cat2", "TourAPI 중분류", samples=("A0101", "A0202"), companions=("tour.cat1",)),
        _d("tour.cat3", "TourAPI 소분류", samples=("A01011000", "A02020700"), companions=("tour.cat1", "tour.cat2")),
        # Health.
        _d("hira.ykiho", "심평원 암호화 요양기호", confusable="nmc.hpid", samples=()),
        _d("nmc.hpid", "국립중앙의료원 기관 ID", samples=("C1100001",), confusable="hira.ykiho"),
        _d("hira.cl_cd", "심평원 종별코드", samples=("11", "21", "31")),
        _d("hira.dgsbjt", "심평원 진료과목코드", samples=("01", "23")),
        _d("hira.zip_cd", "심평원 분류코드", samples=("2010", "2070")),
        _d("hospital.name", "병원명", samples=("서울의료원",)),
        _d("pharmacy.name", "약국명", samples=("온누리약국",)),
        _d("drug.item_name", "의약품 제품명", samples=("타이레놀",)),
        _d("drug.company_name", "의약품 업체명", samples=("한미약품(주)",)),
        _d(
            "drug.item_seq",
            "의약품 품목기준코드 (9자리)",
            samples=("198900001", "200003092"),
            confusable="tour.content_id",
        ),
        # Business, housing, statistics.
        _d("bizno", "사업자등록번호 10자리", samples=("2208162517", "1048137225"), confusable="corp_no"),
        _d("corp_no", "법인등록번호 13자리", samples=("1101110000001", "1101110012345"), confusable="bizno"),
        _d("person.name", "대표자 성명", chainable=False),
        _d("business.name", "상호", chainable=False),
        _d(
            "applyhome.house_manage_no",
            "청약 주택관리번호",
            samples=("2026010001", "2026009001"),
            # 주택관리번호 and 공고번호 are usually the same number: neither is a confusion control for the other.
        ),
        _d(
            "applyhome.pblanc_no",
            "청약 공고번호",
            samples=("2026010001", "2026010002"),
        ),
        _d("applyhome.house_name", "청약 주택명", chainable=False),
        _d("kosis.org", "KOSIS 기관 ID", samples=("101", "116"), confusable="kosis.itm"),
        # A 통계표 ID is an 기관's own, and an item ID (T21) names an item only inside its table.
        _d(
            "kosis.tbl",
            "KOSIS 통계표 ID",
            samples=("DT_1B040A3", "DT_1IN1502"),
            confusable="kosis.org",
            companions=("kosis.org",),
        ),
        _d("kosis.obj", "KOSIS 분류 ID", samples=("A", "ITEM"), confusable="kosis.itm"),
        _d(
            "kosis.itm",
            "KOSIS 분류값/항목 ID",
            samples=("T20", "T21"),
            confusable="kosis.obj",
            companions=("kosis.org", "kosis.tbl"),
        ),
        _d("kosis.obj_value", "KOSIS 분류값 코드 (objL)", samples=("11", "26"), confusable="kosis.itm"),
        _d("kosis.search", "KOSIS 검색어", chainable=False),
        # Context values: the user's choice, never a key another API looks up.
        _d("date.ymd", "날짜 (YYYYMMDD)", chainable=False),
        _d("date.ym", "연월 (YYYYMM)", chainable=False),
        _d("date.y", "연도 (YYYY)", chainable=False),
        _d("date.m", "월 (MM)", chainable=False),
        _d("date.text", "날짜 (YYYY-MM-DD 등)", chainable=False),
        _d("time.hhmm", "시각 (HHmm)", chainable=False),
        _d("datetime", "일시", chainable=False),
        _d("kma.tmfc", "중기예보 발표시각 (YYYYMMDDHHmm)", chainable=False),
        _d("measure", "측정값·수량·금액", chainable=False),
        _d("text", "설명·이름 (문장)", chainable=False),
        _d("flag", "제공자 고유의 구분값·여부", chainable=False),
        _d("option", "요청 옵션 (정렬, 버전, 기간 등)", chainable=False),
    )
}


@dataclass(frozen=True)
class Rule:
    domain: str
    names: str  # a regular expression that the whole normalized name (names.normalize) must match
    provider: str = ""  # a substring of the provider code; "" for every provider
    side: str = ""  # "param", "field" or "" for both


def _r(domain, names, provider="", side=""):
    return Rule(domain, names, provider, side)


# Provider rules first (they win), then general ones. Names are normalized: lower case, no separators,
# odcloud's cond[NAME::OP] unwrapped.
RULES: tuple[Rule, ...] = (
    # Seoul bus (ws.bus.go.kr): tmX/tmY are WGS84 despite their names, posX/posY a TM.
    _r("wgs84.lon", r"tmx|gpsx", "ws.bus.go.kr"),
    _r("wgs84.lat", r"tmy|gpsy", "ws.bus.go.kr"),
    _r("tm.x", r"posx", "ws.bus.go.kr"),
    _r("tm.y", r"posy", "ws.bus.go.kr"),
    _r("seoul.ars_id", r"arsid", "ws.bus.go.kr"),
    _r("seoul.st_id", r"stid", "ws.bus.go.kr"),
    _r("seoul.station_name", r"stnm|stsrch", "ws.bus.go.kr"),
    _r("seoul.route_id", r"busrouteid", "ws.bus.go.kr"),
    _r("tago.route_no", r"rtnm|busrouteabrv", "ws.bus.go.kr"),
    _r("text", r"stationnm\d|nxtstn|adirection|sectnm|arrmsg.*|plainno\d", "ws.bus.go.kr"),
    # AirKorea getMsrstnList: dmX is a latitude and dmY a longitude, or the other way round with ver 1.1 or
    # later: a field whose axis depends on the request is bound into nothing.
    _r("airkorea.dm", r"dmx|dmy", "B552584"),
    _r("tm.x", r"tmx", "B552584"),
    _r("tm.y", r"tmy", "B552584"),
    _r("airkorea.station", r"stationname", "B552584"),
    _r("sido.short", r"sidoname", "B552584"),
    _r("sigungu.name", r"sggname", "B552584"),
    _r("emd.admin", r"umdname", "B552584"),
    _r("measure", r"tm", "B552584", "field"),  # getNearbyMsrstnList's tm is a distance in km
    _r("address.keyword", r"addr", "B552584", "param"),
    # TourAPI.
    _r("tour.area", r"areacode", "B551011"),
    _r("tour.sigungu", r"sigungucode", "B551011"),
    _r("wgs84.lon", r"mapx", "B551011"),
    _r("wgs84.lat", r"mapy", "B551011"),
    _r("ldong.sido2", r"ldongregncd", "B551011"),
    _r("ldong.sgg3", r"ldongsigngucd", "B551011"),
    _r("tour.content_id", r"contentid", "B551011"),
    _r("tour.content_type", r"contenttypeid", "B551011"),
    _r("tour.cat1", r"cat1", "B551011"),
    _r("tour.cat2", r"cat2", "B551011"),
    _r("tour.cat3", r"cat3", "B551011"),
    _r("flag", r"lclssystm\d|cpyrhtdivcd|mlevel|arrange", "B551011"),
    # areaCode2's `code` is an areaCode without an areaCode in the request, a sigunguCode with one
    # (request_domain below); `name` likewise a 시도 or 시군구 name in TourAPI spelling.
    _r("tour.area", r"code", "B551011", "field"),
    _r("text", r"name", "B551011", "field"),
    # HIRA.
    _r("hira.sido", r"sidocd", "B551182"),
    _r("hira.sggu", r"sggucd", "B551182"),
    _r("sido.short_hira", r"sidocdnm", "B551182"),
    _r("sigungu.name_hira", r"sggucdnm", "B551182"),
    _r("emd.name", r"emdongnm", "B551182"),
    _r("wgs84.lon", r"xpos", "B551182"),
    _r("wgs84.lat", r"ypos", "B551182"),
    _r("hira.ykiho", r"ykiho", "B551182"),
    _r("hira.cl_cd", r"clcd", "B551182"),
    _r("hira.dgsbjt", r"dgsbjtcd", "B551182"),
    _r("hira.zip_cd", r"zipcd", "B551182"),
    _r("hospital.name", r"yadmnm", "B551182"),
    _r("option", r"radius", "B551182"),
    # NMC pharmacies.
    _r("sido.full", r"q0", "B552657"),
    _r("sigungu.name", r"q1", "B552657"),
    _r("pharmacy.name", r"qn|dutyname", "B552657"),
    _r("option", r"qt|ord", "B552657"),
    _r("nmc.hpid", r"hpid", "B552657"),
    _r("wgs84.lon", r"wgs84lon", "B552657"),
    _r("wgs84.lat", r"wgs84lat", "B552657"),
    # Drugs (식약처).
    _r("drug.item_name", r"itemname", "1471000"),
    _r("drug.company_name", r"entpname", "1471000"),
    _r("drug.item_seq", r"itemseq", "1471000"),
    _r("bizno", r"bizrno", "1471000"),
    # TAGO (국토부 버스).
    _r("tago.city", r"citycode", "1613000"),
    _r("tago.city_name", r"cityname", "1613000"),
    _r("tago.node", r"nodeid", "1613000"),
    _r("tago.route", r"routeid", "1613000"),
    _r("tago.node_name", r"nodenm", "1613000"),
    _r("tago.node_no", r"nodeno", "1613000"),
    _r("tago.route_no", r"routeno", "1613000"),
    _r("wgs84.lat", r"gpslati", "1613000"),
    _r("wgs84.lon", r"gpslong", "1613000"),
    _r("text", r"startnodenm|endnodenm|routetp|vehicletp", "1613000"),
    # MOLIT: 실거래 and 건축물대장.
    _r("sgg5", r"lawdcd|sggcd|sigungucd|roadnmsggcd", "1613000"),
    _r("umd5", r"umdcd|bjdongcd|nabjdongcd", "1613000"),
    _r("emd.name", r"umdnm", "1613000"),
    _r("sigungu.name_rtms", r"sggnm", "1613000"),
    _r("lot.bun4", r"bun|bonbun", "1613000"),
    _r("lot.ji4", r"ji|bubun", "1613000"),
    _r("lot.plat_gb", r"platgbcd|landcd", "1613000"),
    _r("juso.buld_mnnm", r"namainbun", "1613000"),
    _r("juso.buld_slno", r"nasubbun", "1613000"),
    _r("juso.rn_mgt_sn", r"naroadcd", "1613000"),
    _r("juso.udrt", r"naugrndcd|roadnmbcd", "1613000"),
    _r("date.ym", r"dealymd", "1613000"),
    _r("date.y", r"dealyear|buildyear", "1613000"),
    _r("measure", r"floor|deposit|monthlyrent|predeposit|premonthlyrent|heit", "1613000"),
    _r("text", r"jibun|contractterm|userrright|aptdong|platplc|newplatplc|etcpurps|block|lot", "1613000"),
    _r("date.m", r"dealmonth", "1613000"),
    _r("flag", r"roadnmcd|roadnmseq|roadnmbonbun|roadnmbubun|aptseq|mgmbldrgstpk", "1613000"),
    # 행정안전부: 법정동코드 and 주민등록 인구.
    _r("bjd10", r"regioncd|stdgcd|locatjumincd|locatjijukcd|locathighcd", "1741000"),
    _r("ldong.sido2", r"sidocd", "1741000"),
    _r("ldong.sgg3", r"sggcd", "1741000"),
    _r("ldong.umd3", r"umdcd|ricd", "1741000"),
    _r("region.name", r"locataddnm", "1741000"),
    _r("sido.full", r"ctpvnm", "1741000"),
    _r("sigungu.name", r"sggnm|locallownm", "1741000"),
    _r("emd.name", r"dongnm", "1741000"),
    _r("option", r"lv|regsecd", "1741000"),
    _r("date.ym", r"srchfrym|srchtoym|statsym", "1741000"),
    # Juso.
    _r("bjd10", r"admcd", "juso.go.kr"),
    _r("juso.rn_mgt_sn", r"rnmgtsn", "juso.go.kr"),
    _r("juso.udrt", r"udrtyn", "juso.go.kr"),
    _r("juso.buld_mnnm", r"buldmnnm", "juso.go.kr"),
    _r("juso.buld_slno", r"buldslno", "juso.go.kr"),
    _r("lot.plat_gb", r"mtyn", "juso.go.kr"),
    _r("lot.bun", r"lnbrmnnm", "juso.go.kr"),
    _r("lot.ji", r"lnbrslno", "juso.go.kr"),
    _r("sido.full", r"sinm", "juso.go.kr"),
    _r("sigungu.name", r"sggnm", "juso.go.kr"),
    _r("emd.name", r"emdnm", "juso.go.kr"),
    _r("utmk.x", r"entx", "juso.go.kr"),
    _r("utmk.y", r"enty", "juso.go.kr"),
    _r("address.keyword", r"keyword", "juso.go.kr"),
    _r("flag", r"bdmgtsn|emdno|bdkdcd|zipno|linm|rn|detbdnmlist", "juso.go.kr"),
    # KMA.
    _r("kma.nx", r"nx", "1360000"),
    _r("kma.ny", r"ny", "1360000"),
    _r("kma.tmfc", r"tmfc", "1360000"),
    _r("date.ymd", r"basedate|fcstdate", "1360000"),
    _r("time.hhmm", r"basetime|fcsttime", "1360000"),
    _r("flag", r"category", "1360000"),
    _r("measure", r"(ta|rnst)(min|max)?\d+(am|pm|low|high)?|ta(min|max)\d+(low|high)?", "1360000"),
    _r("text", r"wf\d+(am|pm)?", "1360000"),
    # Holidays.
    _r("date.y", r"solyear", "B090041"),
    _r("date.m", r"solmonth", "B090041"),
    _r("date.ymd", r"locdate", "B090041"),
    # NTS (odcloud nts-businessman) and 청약홈 (odcloud Applyhome).
    _r("bizno", r"bno", "odcloud"),
    _r("date.ymd", r"startdt|enddt|taxtypechangedt|invoiceapplydt", "odcloud"),
    _r("person.name", r"pnm|pnm2", "odcloud"),
    _r("business.name", r"bnm", "odcloud"),
    _r("corp_no", r"corpno", "odcloud"),
    _r("text", r"bsector|btype|badr|validmsg|bstt|taxtype|rbftaxtype", "odcloud"),
    _r("flag", r"valid|bsttcd|taxtypecd|rbftaxtypecd|utccyn|requestparam|status", "odcloud"),
    _r("applyhome.house_manage_no", r"housemanageno", "odcloud"),
    _r("applyhome.pblanc_no", r"pblancno", "odcloud"),
    _r("applyhome.house_name", r"housenm", "odcloud"),
    _r("sido.short", r"subscrptareacodenm", "odcloud"),
    _r("date.text", r"rcritpblancde", "odcloud"),
    # KOSIS.
    _r("kosis.org", r"orgid", "kosis"),
    _r("kosis.tbl", r"tblid", "kosis"),
    _r("kosis.obj", r"objid", "kosis"),
    _r("kosis.itm", r"itmid", "kosis"),
    _r("kosis.obj_value", r"objl\d|c\d", "kosis"),
    _r("kosis.search", r"searchnm|query", "kosis"),
    _r("option", r"type|detail|prdse|sort|newestprdcnt|prdinterval", "kosis"),
    _r("date.text", r"startprdde|endprdde|strtprdde|prdde|lstchnde|sendde", "kosis"),
    # Seoul open data (subway).
    _r("subway.station_name", r"statnnm|bstatnnm", "seoul.go.kr"),
    _r("subway.station_name_full", r"bldnnm", "seoul.go.kr"),
    _r("wgs84.lat", r"lat", "seoul.go.kr"),
    _r("wgs84.lon", r"lot", "seoul.go.kr"),
    # General rules: any provider. Names that mean one thing wherever they appear (research §3), then shapes
    # of names for context values.
    _r("bjd10", r"regioncd|stdgcd|admcd|bjdcd|legaldongcode"),
    _r("sgg5", r"lawdcd|sggcd|sigungucd"),
    _r("umd5", r"bjdongcd|umdcd"),
    _r("lot.bun4", r"bun|bonbun"),
    _r("lot.ji4", r"ji|bubun"),
    _r("tm.x", r"tmx"),
    _r("tm.y", r"tmy"),
    _r("utmk.x", r"entx"),
    _r("utmk.y", r"enty"),
    _r("kma.nx", r"nx"),
    _r("kma.ny", r"ny"),
    _r("wgs84.lat", r"(gps|wgs84|map)?(lat|lati|latitude|mapy)"),
    _r("wgs84.lon", r"(gps|wgs84|map)?(lon|long|lng|longitude|mapx)"),
    _r("hira.ykiho", r"ykiho"),
    _r("tour.content_id", r"contentid"),
    _r("tago.node", r"nodeid"),
    _r("tago.city", r"citycode"),
    _r("airkorea.station", r"stationname"),
    _r("seoul.ars_id", r"arsid"),
    _r("bizno", r"bno|bizrno"),
    _r("kosis.org", r"orgid"),
    _r("kosis.tbl", r"tblid"),
    _r("option", r"ver|datatype|dataterm|hstryyn|firstsort|addinfoyn|mobileos|mobileapp"),
    _r(UNKNOWN, r".*(code|cd|id|no)"),
    _r("measure", r".*(cnt|value|value24|grade|grade1h|amount|ar|area|rat|count|rate|hshldco|qty|distance)"),
    _r("flag", r".*(flag|yn|at|gbcd|gbn|secd|tp|type|kind|sn|ord|seq|rnum)"),
    _r("date.ymd", r".*(de|dd|day|date|dt)"),
    _r("text", r".*(nm|name|addr|adres|title|tel|telno|url|image\d?|homepage|overview|msg|etc|memo|qesitm)\d?"),
    _r("time.hhmm", r".*(time|tm)\d?[cs]?|.*(start|end)"),
)

# Which tool's regId is which: the land forecast regions and the temperature regions are different sets.
TOOL_RULES: dict[tuple[str, str], str] = {
    ("get_mid_ta", "regid"): "kma.reg_ta",
    ("get_mid_land_fcst", "regid"): "kma.reg_land",
    ("get_tm_stdr_crdnt", "sidoname"): "sido.full",
}

# A field whose domain depends on the request: (provider, normalized field) -> (request parameter, domain when
# that parameter was given). TourAPI areaCode2 lists areas without an areaCode and that area's 시군구 with one.
# Entries are (request parameter, its values that change the domain (empty: any value), the domain then).
# 행안부's select_stdg lists 시도 rows with lv=1 and 시군구 rows with lv=2: their stdgCd is a 10-digit code whose
# 동 part is 00000, good for a 시군구 slice but no 동.
REQUEST_DOMAINS: dict[tuple[str, str], tuple[tuple[str, tuple[str, ...], str], ...]] = {
    ("B551011", "code"): (("areaCode", (), "tour.sigungu"),),
    ("1741000", "stdgcd"): (("lv", ("1", "2"), "bjd10.upper"),),
}

# Parameters that a bound parameter only works with: (provider, normalized parameter) -> the optional parameters
# a call must also carry. HIRA's getHospBasisList ignores xPos and yPos without a radius, as the live API does.
PARAM_COMPANIONS: dict[tuple[str, str], tuple[str, ...]] = {
    ("B551182", "xpos"): ("radius",),
    ("B551182", "ypos"): ("radius",),
}


def param_companions(names: Iterable[str], *, provider: str) -> list[str]:
    """The optional parameters that the given bound parameters need beside them (radius with xPos, yPos)."""
    found: list[str] = []
    for name in names:
        norm = normalize(name.rsplit(".", 1)[-1])
        for (prov, param), companions in PARAM_COMPANIONS.items():
            if param == norm and prov.lower() in provider.lower():
                found.extend(c for c in companions if c not in found)
    return found


# Registered transforms between two domains (besides identity within one domain).
LINKS: dict[tuple[str, str], tuple[str, ...]] = {
    ("bjd10", "sgg5"): ("slice:0:5",),
    ("bjd10", "umd5"): ("slice:5:10",),
    ("bjd10", "ldong.sido2"): ("slice:0:2",),
    ("bjd10", "ldong.sgg3"): ("slice:2:5",),
    ("bjd10.upper", "bjd10"): ("identity",),
    ("bjd10.upper", "sgg5"): ("slice:0:5",),
    ("bjd10.upper", "ldong.sido2"): ("slice:0:2",),
    ("bjd10.upper", "ldong.sgg3"): ("slice:2:5",),
    ("lot.bun", "lot.bun4"): ("zero_pad:4",),
    ("lot.ji", "lot.ji4"): ("zero_pad:4",),
    ("juso.buld_mnnm", "juso.buld_mnnm"): ("identity",),
}

# Answers that are records but say "no": NTS validate 02 (확인할 수 없음), NTS status for an unregistered
# number. (normalized field, regular expression of the value): a record matching one is not a finding.
NEGATIVE_ANSWERS: tuple[tuple[str, str], ...] = (
    ("valid", r"02"),
    ("taxtype", r".*등록되지 않은.*"),
)


# Provider rules first, then general ones, each with its pattern compiled once.
_COMPILED = [(rule, re.compile(rule.names), rule.provider.lower()) for rule in RULES if rule.provider] + [
    (rule, re.compile(rule.names), "") for rule in RULES if not rule.provider
]


def infer(name: str, *, provider: str = "", side: str = "", tool: str = "") -> str:
    """The domain of a parameter (side="param") or record field (side="field") of a provider's tool."""
    short = name.rsplit(".", 1)[-1]
    if "[]." in short:
        short = short.split("[].", 1)[1]
    norm = normalize(short)
    if (tool, norm) in TOOL_RULES:
        return TOOL_RULES[(tool, norm)]
    if side != "field" and is_control_param(short):
        return "option"
    return _infer(norm, provider.lower(), side)


@lru_cache(maxsize=65536)
def _infer(norm: str, provider: str, side: str) -> str:
    if not norm:
        return UNKNOWN
    for rule, pattern, rule_provider in _COMPILED:
        if rule.side and side and rule.side != side:
            continue
        if rule_provider and rule_provider not in provider:
            continue
        if pattern.fullmatch(norm):
            return rule.domain
    return UNKNOWN


def _request_entries(name: str, provider: str) -> list[tuple[str, tuple[str, ...], str]]:
    norm = normalize(name.rsplit(".", 1)[-1])
    return [
        entry
        for (prov, field), entries in REQUEST_DOMAINS.items()
        if field == norm and prov.lower() in provider.lower()
        for entry in entries
    ]


def request_domain(name: str, base: str, *, provider: str, request: Mapping[str, object] | None) -> str:
    """A field's domain for one request: REQUEST_DOMAINS may change it when a parameter was given (with one of
    the listed values, when the entry lists any)."""
    for param, values, domain in _request_entries(name, provider):
        given = (request or {}).get(param)
        if given not in (None, "") and (not values or str(given).strip() in values):
            return domain
    return base


def request_condition(name: str, *, provider: str, target: str | None = None) -> dict[str, list[str]]:
    """The requests of the source call under which the field does not hold a value for `target` (None: any
    target): parameter -> its values that change the field's kind ([] for any value). {"areaCode": []} for
    TourAPI areaCode2's code into an areaCode; {"lv": ["1", "2"]} for select_stdg's stdgCd into a 동 code."""
    found: dict[str, list[str]] = {}
    for param, values, domain in _request_entries(name, provider):
        if target is None or match(domain, target) is None:
            found[param] = sorted(values)
    return found


def domain(name: str) -> Domain:
    return DOMAINS.get(name, DOMAINS[UNKNOWN])


def valid_value(name: str, value: object) -> bool:
    """False for a value of the right shape that names nothing of the domain (a 동 part 00000)."""
    pattern = domain(name).invalid
    return not (pattern and re.fullmatch(pattern, str(value).strip()))


def binding_conditions(target_domains: Sequence[str], params: Mapping[str, str]) -> dict[str, Any]:
    """What a binding into parameters of `target_domains` needs beyond its own values, for snapshots and walks:
    "companions", the other target parameters (of `params`, parameter -> domain) that must be bound from the same
    source record (lDongRegnCd beside lDongSignguCd, cat1 beside cat2), and "invalid", per bound position a
    pattern of values that name nothing of the kind (a 시군구 row's 동 part 00000): a record whose value matches
    it is not bound from."""
    wanted = {c for name in target_domains for c in domain(name).companions}
    companions = sorted(param for param, name in params.items() if name in wanted)
    return {"companions": companions, "invalid": [domain(name).invalid for name in target_domains]}


def missing_companions(
    bound_domains: Iterable[str], other_domains: Iterable[str], target_domains: Iterable[str] | None = None
) -> list[str]:
    """Companion domains that the bound values need but that no other parameter bound from the same source
    record has (a 지하여부 without the road code it qualifies). With `target_domains` (the domains of the target's
    parameters), only companions the target has a parameter for are asked for."""
    bound_domains = list(bound_domains)
    have = set(other_domains) | set(bound_domains)
    wanted = {c for name in bound_domains for c in domain(name).companions}
    if target_domains is not None:
        wanted &= set(target_domains)
    return sorted(wanted - have)


def is_coordinate(name: str) -> bool:
    return bool(domain(name).group)


def chainable(name: str) -> bool:
    return domain(name).chainable


@dataclass(frozen=True)
class Match:
    """How two domains may be joined: the transforms allowed (None: any the shapes suggest) and the share of
    the score kept."""

    transforms: tuple[str, ...] | None
    factor: float
    reason: str


@lru_cache(maxsize=4096)
def match(source: str, target: str) -> Match | None:
    """None when a value of `source` can never fill `target`; else the transforms allowed and a penalty."""
    s, t = domain(source), domain(target)
    if s.group or t.group:
        return None  # coordinates bind as pairs (candidates._coordinate_candidates), never one by one
    if source == UNKNOWN or target == UNKNOWN:
        known = t if source == UNKNOWN else s
        if known.name != UNKNOWN and not known.chainable:
            return None
        factor = BOTH_UNKNOWN_PENALTY if source == target else UNKNOWN_PENALTY
        return Match(None, factor, f"{source} -> {target}: unknown domain, penalized")
    if not s.chainable or not t.chainable:
        return None
    if (source, target) in LINKS:
        return Match(LINKS[(source, target)], 1.0, f"{source} -> {target} via {', '.join(LINKS[(source, target)])}")
    if source == target:
        return Match(("identity",), 1.0, f"same domain {source}")
    return None


def mismatch_reason(source: str, target: str) -> str:
    s, t = domain(source), domain(target)
    if s.group or t.group:
        return f"coordinates bind as pairs only ({source} -> {target})"
    if not s.chainable or not t.chainable:
        side = source if not s.chainable else target
        return f"{side} ({domain(side).label}) identifies nothing another API looks up"
    return f"a value of {source} ({s.label}) is not a {target} ({t.label})"


def edge_domains(
    source_fields: Sequence[str],
    target_params: Sequence[str],
    source_of: Mapping[str, str],
    target_of: Mapping[str, str],
) -> tuple[list[str], list[str]]:
    return [source_of.get(f, UNKNOWN) for f in source_fields], [target_of.get(p, UNKNOWN) for p in target_params]


def axis(name: str) -> str:
    """ "x" for a longitude or easting domain, "y" for a latitude or northing, "" otherwise."""
    if name.endswith((".lon", ".x", ".nx")):
        return "x"
    if name.endswith((".lat", ".y", ".ny")):
        return "y"
    return ""


def pair_domains(frame: str) -> tuple[str, str]:
    """The two domains of a coordinate pair in a frame (x first)."""
    return {
        "wgs84": ("wgs84.lon", "wgs84.lat"),
        "tm": ("tm.x", "tm.y"),
        "utmk": ("utmk.x", "utmk.y"),
        "kma": ("kma.nx", "kma.ny"),
    }.get(frame, (UNKNOWN, UNKNOWN))


def is_negative(record: Mapping[str, object]) -> bool:
    """True when a record is a "no" written as a record (NTS validate 02, an unregistered business number)."""
    for key, value in record.items():
        norm = normalize(str(key))
        for field, pattern in NEGATIVE_ANSWERS:
            if norm == field and value is not None and re.fullmatch(pattern, str(value)):
                return True
    return False


def normal_value(value: object) -> str:
    """A value as compared across APIs: stripped; digits without leading zeros kept as written."""
    return str(value).strip()


def values_agree(a: Iterable[str], b: Iterable[str]) -> bool:
    left = {normal_value(v) for v in a if normal_value(v)}
    return bool(left & {normal_value(v) for v in b if normal_value(v)})
