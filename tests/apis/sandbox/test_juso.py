"""Juso (business.juso.go.kr/addrlink): the results/common envelope with string counts, every address field built
from the world's buildings, the E-codes, confmKey by GET or POST, coordinates in UTM-K, and research §5 chains
2 (Juso -> 건축물대장) and 4 (Juso -> 좌표 -> KMA grid -> 초단기실황) over HTTP."""

from __future__ import annotations

import base64
import json
from urllib.parse import urlencode

import httpx
import pytest
import xmltodict

from apis.engine import geo
from apis.sandbox.config import DEMO_KEY
from apis.sandbox.families.juso import ADDRESS_FIELDS, romanize_name
from apis.sandbox.registry import load_families
from apis.sandbox.world import buildings, regions

from .conftest import parse

SEARCH = "business.juso.go.kr/addrlink/addrLinkApi.do"
COORD = "business.juso.go.kr/addrlink/addrCoordApi.do"


def results(response) -> dict:
    text = response.text() if callable(response.text) else response.text
    return json.loads(text)["results"]


def search(sandbox_get, keyword: str, **params) -> dict:
    query = {"confmKey": DEMO_KEY, "keyword": keyword, "resultType": "json", **params}
    return results(sandbox_get(SEARCH, query, service_key=None))


def error_code(sandbox_get, keyword: str, **params) -> str:
    return search(sandbox_get, keyword, **params)["common"]["errorCode"]


def test_it_answers_the_live_envelope_with_counts_as_strings(sandbox_get):
    found = search(sandbox_get, "청운동 청운로", countPerPage="3")
    common = found["common"]
    assert list(common) == ["errorMessage", "countPerPage", "totalCount", "errorCode", "currentPage"]
    assert common["errorCode"] == "0" and common["errorMessage"] == "정상"
    assert common["countPerPage"] == "3" and common["currentPage"] == "1" and int(common["totalCount"]) >= 3
    assert len(found["juso"]) == 3
    for juso in found["juso"]:
        assert set(juso) == {f.name for f in ADDRESS_FIELDS} and all(isinstance(v, str) for v in juso.values())
        assert juso["roadAddr"] == juso["roadAddrPart1"] + juso["roadAddrPart2"]
        assert juso["rn"].startswith("청운") and juso["emdNm"] == "청운동" and juso["siNm"] == "서울특별시"


def test_every_address_is_a_building_of_the_world_on_its_real_legal_dong(sandbox_get):
    for juso in search(sandbox_get, "강남구 역삼동", countPerPage="100")["juso"]:
        region = regions.region(juso["admCd"])
        assert region is not None and region.full_name == "서울특별시 강남구 역삼동"
        b = buildings.building_at(
            juso["admCd"][:5], juso["admCd"][5:], juso["mtYn"], juso["lnbrMnnm"], juso["lnbrSlno"]
        )
        assert b is not None and b.bd_mgt_sn == juso["bdMgtSn"] and b.zip_no == juso["zipNo"]
        assert juso["rnMgtSn"] == b.road_code and len(juso["bdMgtSn"]) == 25
        assert juso["jibunAddr"].startswith(f"서울특별시 강남구 역삼동 {juso['lnbrMnnm']}")
        assert juso["engAddr"].endswith(", Gangnam-gu, Seoul")


def test_it_matches_road_numbers_and_lot_numbers(sandbox_get):
    b = buildings.buildings_in("1111010100")[0]
    by_road = search(sandbox_get, f"{b.road_name} {b.road_bonbun}")["juso"]
    assert b.bd_mgt_sn in {j["bdMgtSn"] for j in by_road}
    by_lot = search(sandbox_get, f"종로구 청운동 {b.jibun}")["juso"]
    assert [j["bdMgtSn"] for j in by_lot] == [b.bd_mgt_sn]


def test_it_answers_xml_by_default_in_the_guides_field_order(sandbox_get):
    response = sandbox_get(
        SEARCH, {"confmKey": DEMO_KEY, "keyword": "청운동 청운로", "countPerPage": "1"}, service_key=None
    )
    doc = xmltodict.parse(response.text())["results"]
    assert doc["common"]["errorCode"] == "0" and list(doc["common"])[0] == "totalCount"
    assert list(doc["juso"])[:4] == ["roadAddr", "roadAddrPart1", "roadAddrPart2", "jibunAddr"]


def test_it_pages_with_current_page_and_caps_count_per_page(sandbox_get):
    first = search(sandbox_get, "강남구 역삼동", countPerPage="10")
    second = search(sandbox_get, "강남구 역삼동", countPerPage="10", currentPage="2")
    assert int(first["common"]["totalCount"]) > 20
    assert not {j["bdMgtSn"] for j in first["juso"]} & {j["bdMgtSn"] for j in second["juso"]}
    assert search(sandbox_get, "강남구 역삼동", countPerPage="500")["common"]["countPerPage"] == "100"
    assert error_code(sandbox_get, "강남구 역삼동", currentPage="one") == "-999"


def test_it_answers_an_empty_list_when_nothing_matches(sandbox_get):
    found = search(sandbox_get, "청운동 청운로 9999")
    assert found["common"]["errorCode"] == "0" and found["common"]["totalCount"] == "0" and found["juso"] == []


@pytest.mark.parametrize(
    ("keyword", "code"),
    [
        ("", "E0005"),
        ("서울특별시", "E0006"),
        ("종로구", "E0006"),
        ("래미안", "E0006"),
        ("역", "E0008"),
        ("12345", "E0009"),
        ("가" * 41, "E0010"),
        ("청운동 123456789012", "E0011"),
        ("!!12-3", "E0012"),
        ("청운동 <script>", "E0013"),
        ("청운동 SELECT", "E0013"),
        ("서울 빌라", "E0015"),
    ],
)
def test_it_answers_the_keyword_error_codes(sandbox_get, keyword, code):
    found = search(sandbox_get, keyword)
    assert found["common"]["errorCode"] == code and found["juso"] is None
    assert found["common"]["errorMessage"]


def test_key_errors_are_e0001_and_an_old_development_key_is_e0014(sandbox_get):
    for key in ("not-a-key", None):
        query = {"keyword": "청운동 청운로", "resultType": "json", **({"confmKey": key} if key else {})}
        common = results(sandbox_get(SEARCH, query, service_key=None))["common"]
        assert common["errorCode"] == "E0001" and common["errorMessage"] == "승인되지 않은 KEY 입니다."
    expired = "dev" + base64.b64encode(b"SMS_AUTH20260101090000123456").decode()
    common = results(
        sandbox_get(SEARCH, {"confmKey": expired, "keyword": "청운동", "resultType": "json"}, service_key=None)
    )["common"]
    assert common["errorCode"] == "E0014"


def test_it_takes_a_post_form_like_a_get(sandbox_get):
    form = urlencode({"confmKey": DEMO_KEY, "keyword": "청운동 청운로", "resultType": "json", "countPerPage": "5"})
    posted = sandbox_get(
        SEARCH,
        None,
        method="POST",
        body=form.encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        service_key=None,
    )
    assert results(posted) == search(sandbox_get, "청운동 청운로", countPerPage="5")


def test_coordinates_are_the_buildings_entrance_in_utm_k(sandbox_get):
    b = buildings.buildings_in("1111010100")[0]
    query = {
        "confmKey": DEMO_KEY,
        "admCd": b.region_code,
        "rnMgtSn": b.road_code,
        "udrtYn": b.underground,
        "buldMnnm": str(b.road_bonbun),
        "buldSlno": str(b.road_bubun),
        "resultType": "json",
    }
    found = results(sandbox_get(COORD, query, service_key=None))["juso"]
    assert [j["bdMgtSn"] for j in found] == [b.bd_mgt_sn]
    lat, lon = geo.utmk_to_wgs84(float(found[0]["entX"]), float(found[0]["entY"]))
    assert abs(lat - b.lat) * 111_000 < 15 and abs(lon - b.lon) * 88_000 < 15
    missing = results(sandbox_get(COORD, {k: v for k, v in query.items() if k != "rnMgtSn"}, service_key=None))
    assert missing["common"]["errorCode"] == "-999"


def test_romanization_follows_the_revised_rules_for_names():
    assert romanize_name("종로구") == "Jongno-gu"
    assert romanize_name("세종대로") == "Sejong-daero"
    assert romanize_name("청운로3길") == "Cheongun-ro 3-gil"
    assert romanize_name("신라로") == "Silla-ro"


@pytest.fixture
def http(sandbox_server):
    with httpx.Client(timeout=30) as client:

        def get(host_path: str, **params):
            response = client.get(sandbox_server.live(host_path), params=params)
            response.raise_for_status()
            return response

        yield get


@pytest.mark.slow
def test_chain_2_juso_to_the_building_register_over_http(http):
    """admCd[:5]/[5:] -> sigunguCd/bjdongCd, mtYn -> platGbCd, lnbrMnnm/lnbrSlno zero-padded -> bun/ji."""
    found = results(http(SEARCH, confmKey=DEMO_KEY, keyword="강남구 역삼동", resultType="json", countPerPage="8"))[
        "juso"
    ]
    assert found
    for juso in found:
        register = http(
            "apis.data.go.kr/1613000/BldRgstHubService/getBrTitleInfo",
            serviceKey=DEMO_KEY,
            sigunguCd=juso["admCd"][:5],
            bjdongCd=juso["admCd"][5:],
            platGbCd=juso["mtYn"],
            bun=juso["lnbrMnnm"].zfill(4),
            ji=juso["lnbrSlno"].zfill(4),
            numOfRows="100",
        )
        body = xmltodict.parse(register.text)["response"]["body"]
        titles = body["items"]["item"]
        titles = titles if isinstance(titles, list) else [titles]
        assert titles, juso["roadAddr"]
        assert {t["bldNm"] for t in titles} == {juso["bdNm"]} or not juso["bdNm"]
        assert all(f"{juso['rn']} {juso['buldMnnm']}" in t["newPlatPlc"] for t in titles)


@pytest.mark.slow
def test_chain_4_juso_to_coordinates_to_the_kma_grid_over_http(http):
    """Juso -> addrCoordApi entX/entY (EPSG:5179) -> WGS84 -> KMA nx/ny -> 초단기실황 for that cell."""
    juso = results(http(SEARCH, confmKey=DEMO_KEY, keyword="청운동 청운로", resultType="json", countPerPage="1"))[
        "juso"
    ][0]
    coord = results(
        http(
            COORD,
            confmKey=DEMO_KEY,
            resultType="json",
            **{k: juso[k] for k in ("admCd", "rnMgtSn", "udrtYn", "buldMnnm", "buldSlno")},
        )
    )["juso"][0]
    lat, lon = geo.utmk_to_wgs84(float(coord["entX"]), float(coord["entY"]))
    nx, ny = geo.wgs84_to_kma_grid(lat, lon)
    assert (nx, ny) in {(60, 127), (59, 127), (60, 128), (59, 128)}  # 청운동, by 서울시청
    if "kma_ultra_srt_ncst" not in load_families().operations:
        pytest.skip("the KMA family is not registered in this tree yet")
    weather = http(
        "apis.data.go.kr/1360000/VilageFcstInfoService_2.0/getUltraSrtNcst",
        serviceKey=DEMO_KEY,
        dataType="JSON",
        base_date="20261118",
        base_time="1400",  # the sandbox clock is 14:20; 14:00 observations are served from 14:10
        nx=str(nx),
        ny=str(ny),
        numOfRows="20",
    ).json()
    observed = weather["response"]["body"]["items"]["item"]
    assert observed and {(o["nx"], o["ny"]) for o in observed} == {(nx, ny)}
    assert {"T1H", "REH", "PTY"} <= {o["category"] for o in observed}


def test_xml_errors_name_the_code(sandbox_get):
    response = sandbox_get(SEARCH, {"confmKey": "nope", "keyword": "청운동"}, service_key=None)
    assert parse(response)["results"]["common"]["errorCode"] == "E0001"
