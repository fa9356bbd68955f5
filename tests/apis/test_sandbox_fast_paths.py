"""The sandbox's indexed list paths (HIRA, NMC, TourAPI, 청약홈 cond[…], nearest station, bus arrivals) give what a
plain walk over the same data gives: each reference below is the straightforward filter and sort the handler
used to run, so an index that drifts from the documented semantics fails here."""

from __future__ import annotations

import random
from datetime import datetime
from types import SimpleNamespace
from urllib.parse import urlencode

import pytest

from apis.sandbox import bus_network
from apis.sandbox.config import DEFAULT_NOW, KST, SandboxConfig
from apis.sandbox.families import _places, applyhome, hira, nmc, tago, tourapi
from apis.sandbox.families._listing import Filter, TextIndex, select
from apis.sandbox.registry import Context, Params
from apis.sandbox.state import SandboxState
from apis.sandbox.wire import SandboxRequest
from apis.sandbox.world import regions

EARLY = datetime(2020, 2, 10, 12, 0, tzinfo=KST)  # many facilities and notices are not open or out yet


def handler_call(handler, params: dict[str, str], now: datetime = DEFAULT_NOW):
    request = SandboxRequest.build("GET", "apis.data.go.kr", "/", urlencode(params))
    ctx = Context(req=request, config=SandboxConfig(now=now), state=SandboxState(), now=now)
    return handler(ctx, Params(params))


def assert_same_pages(result, expected: list, record) -> None:
    """Same total, and the same records on the first, a middle and the last page (record(item) builds one)."""
    assert len(result) == len(expected)
    for start in (0, len(expected) // 2, max(0, len(expected) - 10)):
        assert result[start : start + 10] == [record(item) for item in expected[start : start + 10]]


# --- HIRA getHospBasisList -----------------------------------------------------------------------


def hira_reference(params: dict[str, str], now: datetime) -> list[tuple[hira.Facility, float | None]]:
    sido, sggu = params.get("sidoCd", ""), params.get("sgguCd", "")
    emdong, name, subject = params.get("emdongNm", ""), params.get("yadmNm", ""), params.get("dgsbjtCd", "")
    x, y, radius = (float(params[k]) if k in params else None for k in ("xPos", "yPos", "radius"))
    near = x is not None and y is not None and radius is not None
    scope = set(hira.areas())
    if sido:
        scope &= set(hira.lawds_by_hira().get(sido, ()) if sido.endswith("0000") else ())
    if sggu:
        scope &= set(hira.lawds_by_hira().get(sggu, ()) if not sggu.endswith("0000") or sggu == "410000" else ())
    near_leaves = {leaf.code for leaf in _places.leaves_near(y, x, radius)} if near else set()
    if near:
        scope &= {code[:5] for code in near_leaves}
    kinds = set(hira.KINDS)
    if params.get("clCd"):
        kinds &= {params["clCd"]}
    if params.get("zipCd"):
        kinds &= hira.ZIP_KINDS.get(params["zipCd"], set())
    today = now.strftime("%Y%m%d")
    chosen = []
    for lawd in sorted(scope):
        for f in hira.facilities_in(lawd):
            if f.cl_cd not in kinds or f.estb_dd > today:
                continue
            if (subject and subject not in f.subjects) or (name and name not in f.name):
                continue
            if emdong and regions.region(f.leaf_code).eupmyeondong != emdong:
                continue
            distance = None
            if near:
                place = hira.place_of(f)
                if f.leaf_code not in near_leaves or place is None:
                    continue
                distance = _places.distance_m(y, x, place.lat, place.lon)
                if distance > radius:
                    continue
            chosen.append((f, distance))
    if near:
        chosen.sort(key=lambda fd: (fd[1], fd[0].name))
    else:
        chosen.sort(key=lambda fd: (hira.CL_ORDER[fd[0].cl_cd], fd[0].name, fd[0].leaf_code, fd[0].seq))
    return chosen


HIRA_CASES = [
    ({}, DEFAULT_NOW),
    ({}, EARLY),
    ({"yadmNm": "의"}, DEFAULT_NOW),
    ({"yadmNm": "치과", "clCd": "51"}, DEFAULT_NOW),
    ({"yadmNm": "서울연세"}, DEFAULT_NOW),
    ({"emdongNm": "신내동"}, DEFAULT_NOW),
    ({"zipCd": "2080"}, EARLY),
    ({"clCd": "31", "dgsbjtCd": "01", "yadmNm": "내과"}, EARLY),
    ({"sidoCd": "110000", "clCd": "31", "dgsbjtCd": "11"}, DEFAULT_NOW),
    ({"sidoCd": "390000"}, EARLY),
    ({"sgguCd": "110019", "yadmNm": "연세"}, DEFAULT_NOW),
    ({"sidoCd": "310000", "sgguCd": "110019"}, DEFAULT_NOW),
    ({"clCd": "99"}, DEFAULT_NOW),
    ({"xPos": "127.0276", "yPos": "37.4979", "radius": "1500"}, DEFAULT_NOW),
    ({"xPos": "127.0276", "yPos": "37.4979", "radius": "3000", "clCd": "31", "yadmNm": "내과"}, EARLY),
]


@pytest.mark.parametrize(("params", "now"), HIRA_CASES, ids=[f"{p}@{n:%Y%m%d}" for p, n in HIRA_CASES])
def test_hira_list_matches_a_plain_walk_over_every_facility(params, now):
    expected = hira_reference(params, now)
    result = handler_call(hira.hosp_basis_list, params, now)
    assert_same_pages(result, expected, lambda fd: hira.basis_record(*fd))


@pytest.mark.parametrize("from_nation", [True, False], ids=["picked-from-the-nation", "sorted-per-district"])
def test_hira_district_listing_orders_like_the_reference_either_way(monkeypatch, from_nation):
    lawds = tuple(sorted(hira.lawds_by_hira()["220000"]))  # 인천
    expected = [f for f, _ in hira_reference({"sidoCd": "220000"}, DEFAULT_NOW)]
    if from_nation:
        hira.nation()
    else:
        monkeypatch.setattr(hira, "nation", SimpleNamespace(cache_info=lambda: SimpleNamespace(currsize=0)))
    assert list(hira._scoped.__wrapped__(lawds).facilities) == expected


# --- NMC pharmacies ----------------------------------------------------------------------------


def nmc_reference(params: dict[str, str]) -> list[nmc.Pharmacy]:
    sido, sigungu, name = params.get("Q0", ""), params.get("Q1", ""), params.get("QN", "")
    qt = int(params["QT"]) if params.get("QT") else None
    chosen = []
    for lawd in regions.lawd_codes():
        region = regions.region(lawd + "00000")
        if region is None:
            continue
        if (sido and not nmc._sido_matches(region, sido)) or (sigungu and not nmc._sigungu_matches(region, sigungu)):
            continue
        chosen += [
            p for p in nmc.pharmacies_in(lawd) if (qt is None or nmc.is_open(p, qt)) and (not name or name in p.name)
        ]
    order = params.get("ORD", "").upper()
    if order == "NAME":
        chosen.sort(key=lambda p: (p.name, p.hpid))
    elif order == "ADDR":
        chosen.sort(key=lambda p: (regions.region(p.leaf_code).full_name, p.hpid))
    else:
        chosen.sort(key=lambda p: p.hpid)
    return chosen


NMC_CASES = [
    {},
    {"ORD": "NAME", "QT": "8"},
    {"ORD": "ADDR", "QN": "온누리"},
    {"QN": "약"},
    {"QN": "행복한우리"},
    {"Q0": "서울", "ORD": "NAME"},
    {"Q1": "중구", "QT": "7", "ORD": "ADDR"},
    {"Q0": "경기도", "Q1": "분당구", "QN": "365"},
]


@pytest.mark.parametrize("params", NMC_CASES, ids=[str(p) for p in NMC_CASES])
def test_pharmacy_list_matches_a_plain_walk_over_every_pharmacy(params):
    expected = nmc_reference(params)
    result = handler_call(nmc.pharmacy_list, params)
    assert_same_pages(result, list(enumerate(expected, start=1)), lambda np: nmc.record(np[1], np[0]))


# --- TourAPI areaBasedList2 --------------------------------------------------------------------


def tour_reference(params: dict[str, str], now: datetime) -> list[tourapi.Place]:
    arrange = params.get("arrange", "C")
    area_code, sigungu_code = params.get("areaCode", ""), params.get("sigunguCode", "")
    typeid = params.get("contentTypeId", "")
    cats = [params.get(c, "") for c in ("cat1", "cat2", "cat3")]
    regn, signgu = params.get("lDongRegnCd", ""), params.get("lDongSignguCd", "")
    found = [
        p
        for a in tourapi.sigungus()
        if (not area_code or a.area_code == area_code) and (not sigungu_code or a.sigungu_code == sigungu_code)
        for t in ([typeid] if typeid else tourapi.CONTENT_TYPES)
        for p in tourapi.places_of(a.area_code, a.sigungu_code, t)
        if all(not want or p.cats[i] == want for i, want in enumerate(cats))
        and (not regn or p.dong[:2] == regn)
        and (not signgu or p.dong[2:5] == signgu)
        and (arrange not in ("O", "Q", "R") or p.has_image)
    ]
    if arrange in ("A", "O"):
        return sorted(found, key=lambda p: (p.title, p.contentid))
    if arrange in ("D", "R"):
        return sorted(found, key=lambda p: (p.created, p.contentid), reverse=True)
    return sorted(found, key=lambda p: (tourapi._modified(p, now), p.contentid), reverse=True)


TOUR_CASES = [
    *(({"arrange": arrange}, DEFAULT_NOW) for arrange in tourapi.ARRANGES),
    ({"arrange": "C"}, EARLY),
    ({"arrange": "Q", "areaCode": "1"}, EARLY),
    ({"arrange": "A", "areaCode": "1", "sigunguCode": "23", "contentTypeId": "39"}, DEFAULT_NOW),
    ({"arrange": "D", "cat1": "A02", "lDongRegnCd": "11", "lDongSignguCd": "110"}, DEFAULT_NOW),
    ({"arrange": "R", "cat3": "A05020100", "areaCode": "6"}, DEFAULT_NOW),
    ({"arrange": "O", "contentTypeId": "12", "cat2": "A0101"}, DEFAULT_NOW),
]


@pytest.mark.parametrize(("params", "now"), TOUR_CASES, ids=[f"{p}@{n:%Y%m%d}" for p, n in TOUR_CASES])
def test_tour_list_matches_a_plain_filter_and_sort(params, now):
    expected = tour_reference(params, now)
    query = {"MobileOS": "ETC", "MobileApp": "AppTest", **params}
    result = handler_call(tourapi.area_based_list2, query, now)
    assert_same_pages(result, expected, lambda p: tourapi.list_record(p, now))


# --- 청약홈 cond[…] filters -------------------------------------------------------------------------


def cond_reference(query: dict[str, str], records: list[dict]) -> list[dict]:
    def number(text):
        try:
            return float(text)
        except ValueError:
            return None

    def keep(record):
        for name, wanted in query.items():
            field_name, op = name.removeprefix("cond[").removesuffix("]").split("::")
            value = record.get(field_name)
            if value is None:
                return False
            text = str(value)
            left, right = number(text), number(wanted)
            a, b = (left, right) if left is not None and right is not None else (text, wanted)
            ok = {"EQ": a == b, "NE": a != b, "LT": a < b, "LTE": a <= b, "GT": a > b, "GTE": a >= b}.get(op)
            if not (wanted in text if op == "LIKE" else ok):
                return False
        return True

    return [r for r in records if keep(r)]


COND_CASES = [
    {},
    {"cond[SUBSCRPT_AREA_CODE_NM::EQ]": "경기"},
    {"cond[RCRIT_PBLANC_DE::GTE]": "2025-06-01", "cond[HOUSE_DTL_SECD_NM::NE]": "국민"},
    {"cond[TOT_SUPLY_HSHLDCO::GT]": "1e3"},
    {"cond[TOT_SUPLY_HSHLDCO::LTE]": " 120 ", "cond[HOUSE_NM::LIKE]": "역"},
    {"cond[HOUSE_SECD::EQ]": "1"},  # "01" reads as the number 1
    {"cond[SUBSCRPT_AREA_CODE::LT]": "nan"},
    {"cond[NO_SUCH_FIELD::NE]": "x"},
]


@pytest.mark.parametrize("now", [DEFAULT_NOW, EARLY], ids=["today", "early"])
@pytest.mark.parametrize("query", COND_CASES, ids=[str(q) for q in COND_CASES])
def test_applyhome_conditions_match_a_plain_filter(query, now):
    records = [applyhome.detail_record(n) for n in applyhome.visible_notices(now.date())]
    result = handler_call(applyhome.apt_detail, query, now)
    assert list(result.records) == cond_reference(query, records)
    assert result.meta["totalCount"] == len(records)


def test_applyhome_competition_rows_match_a_plain_build():
    today = DEFAULT_NOW.date()
    rows = [row for n in applyhome.visible_notices(today) for row in applyhome.competition_records(n, today)]
    query = {"cond[SUPLY_HSHLDCO::GT]": "150", "cond[RESIDE_SECD::EQ]": "01"}
    result = handler_call(applyhome.apt_competition, query)
    assert list(result.records) == cond_reference(query, rows)
    assert result.meta["totalCount"] == len(rows)


# --- nearest station, bus arrivals and the index helpers ---------------------------------------


def test_nearest_station_is_the_plain_minimum_everywhere():
    stations = _places._stations()
    r = random.Random(7)
    points = [(r.uniform(33.0, 38.6), r.uniform(124.5, 131.0)) for _ in range(3000)]
    points += [(s[1], s[2]) for s in stations[:200]]  # on a station: distance 0, ties by file order
    for lat, lon in points:
        name, la, lo = min(stations, key=lambda s: (s[1] - lat) ** 2 + ((s[2] - lon) * 0.8) ** 2)
        assert _places.nearest_station(lat, lon) == (name, _places.distance_m(lat, lon, la, lo))


def approaches_reference(route, position, now, limit=2):
    clock = now.hour * 3600 + now.minute * 60 + now.second
    day = now.strftime("%Y%m%d")
    found = []
    for departure in route.departures:
        factor = bus_network._traffic(route, day, departure)
        arrival = departure + int(route.seconds[position] * factor)
        if arrival <= clock:
            continue
        started = departure <= clock
        passed = max(i for i in range(position + 1) if departure + route.seconds[i] * factor <= clock) if started else 0
        found.append((departure, arrival - clock, passed, started))
        if len(found) >= limit:
            break
    return found


def test_bus_arrivals_skip_only_buses_that_have_passed():
    net = tago.network("12")  # 세종
    clocks = [DEFAULT_NOW.replace(hour=h, minute=m) for h, m in ((5, 40), (8, 5), (14, 20), (22, 55), (23, 59))]
    for route in net.routes[:40]:
        for position in range(0, len(route.stops), 7):
            for now in clocks:
                got = [
                    (a.departure, a.seconds, a.at_position, a.started)
                    for a in bus_network.approaches(route, position, now)
                ]
                assert got == approaches_reference(route, position, now)


def test_text_index_finds_what_a_substring_scan_finds():
    r = random.Random(3)
    texts = ["".join(r.choice("가나다라마바 약국의원12") for _ in range(r.randint(0, 9))) for _ in range(2000)]
    index = TextIndex(texts)
    for fragment in ["", "가", "약국", "의원1", "가나다", "없음", " ", "2"] + [t[1:4] for t in texts[:50]]:
        assert list(index.containing(fragment)) == [i for i, t in enumerate(texts) if fragment in t]


def test_select_starts_from_the_narrowest_filter_and_applies_the_rest():
    evens = Filter(range(0, 100, 2), lambda p: p % 2 == 0)
    threes = Filter(range(0, 100, 3), lambda p: p % 3 == 0)
    assert list(select(100, [evens, threes])) == list(range(0, 100, 6))
    assert list(select(100, [])) == list(range(100))
    assert list(select(100, [threes, Filter((), lambda p: False)])) == []
