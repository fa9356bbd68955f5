"""Seoul bus (ws.bus.go.kr stationinfo): the msgHeader/msgBody envelope and its XML form, all matches without
paging, headerCd 4/2/7 answers, arrival messages on the sandbox clock, and research §5 chain 7 over HTTP."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from apis.engine import geo
from apis.sandbox.config import DEMO_KEY
from apis.sandbox.world.seeds import read_csv

from .conftest import parse

BY_NAME = "ws.bus.go.kr/api/rest/stationinfo/getStationByName"
BY_UID = "ws.bus.go.kr/api/rest/stationinfo/getStationByUid"
MESSAGE = re.compile(r"^(곧 도착|출발대기|운행종료|\d+분후\[\d+번째 전\])$")


def answer(response) -> dict:
    text = response.text() if callable(response.text) else response.text
    return json.loads(text)


def item_list(response) -> list[dict]:
    return answer(response)["msgBody"]["itemList"] or []


def test_it_answers_the_live_envelope_with_every_match_and_no_paging(sandbox_get):
    response = sandbox_get(BY_NAME, {"stSrch": "강남", "resultType": "json"})
    data = answer(response)
    assert list(data) == ["comMsgHeader", "msgHeader", "msgBody"]
    assert set(data["comMsgHeader"].values()) == {None}
    assert data["msgHeader"] == {"headerCd": "0", "headerMsg": "정상적으로 처리되었습니다.", "itemCount": 0}
    expected = [row["arsId"] for row in read_csv("seoul_bus_stops.csv") if "강남" in row["stNm"]]
    assert [item["arsId"] for item in item_list(response)] == expected and len(expected) > 50
    first = item_list(response)[0]
    assert list(first) == ["stId", "stNm", "arsId", "tmX", "tmY", "posX", "posY"]
    assert all(isinstance(value, str) for value in first.values())


def test_pos_x_and_pos_y_are_the_stop_in_korea_central_tm(sandbox_get):
    for item in item_list(sandbox_get(BY_NAME, {"stSrch": "종로2가", "resultType": "json"})):
        lat, lon = geo.tm_to_wgs84(float(item["posX"]), float(item["posY"]))
        assert abs(lat - float(item["tmY"])) < 1e-6 and abs(lon - float(item["tmX"])) < 1e-6


def test_it_answers_xml_as_a_service_result_by_default(sandbox_get):
    response = sandbox_get(BY_NAME, {"stSrch": "종로2가사거리"})
    assert response.headers["Content-Type"].startswith("application/xml")
    result = parse(response)["ServiceResult"]
    assert result["msgHeader"]["headerCd"] == "0"
    rows = result["msgBody"]["itemList"]
    rows = rows if isinstance(rows, list) else [rows]
    assert {row["stNm"] for row in rows} == {"종로2가사거리"}


def test_it_answers_header_code_4_when_nothing_matches(sandbox_get):
    data = answer(sandbox_get(BY_NAME, {"stSrch": "없는정류소이름", "resultType": "json"}))
    assert data["msgHeader"]["headerCd"] == "4" and data["msgHeader"]["headerMsg"] == "결과가 없습니다."
    assert data["msgBody"]["itemList"] is None
    assert "<msgBody/>" in sandbox_get(BY_NAME, {"stSrch": "없는정류소이름"}).text()
    unknown = answer(sandbox_get(BY_UID, {"arsId": "99999", "resultType": "json"}))
    assert unknown["msgHeader"]["headerCd"] == "4"


def test_it_answers_header_code_2_for_a_missing_parameter(sandbox_get):
    data = answer(sandbox_get(BY_NAME, {"resultType": "json"}))
    assert data["msgHeader"]["headerCd"] == "2" and data["msgBody"]["itemList"] is None


def test_key_failures_come_from_the_bus_system_in_xml_even_for_json(sandbox_get):
    response = sandbox_get(BY_NAME, {"stSrch": "강남", "resultType": "json"}, service_key="not-a-key")
    assert response.status == 200 and response.text().lstrip().startswith("<?xml")
    header = parse(response)["ServiceResult"]["msgHeader"]
    assert header["headerCd"] == "7" and "인증모듈 에러코드(30)" in header["headerMsg"]
    assert "not-a-key" not in response.text()
    quota = {"X-Sandbox-Daily-Quota": "1"}
    sandbox_get(BY_NAME, {"stSrch": "강남"}, headers=quota)
    over = parse(sandbox_get(BY_NAME, {"stSrch": "강남"}, headers=quota))["ServiceResult"]["msgHeader"]
    assert over["headerCd"] == "7" and "에러코드(22)" in over["headerMsg"]


def test_arrivals_give_one_row_per_route_with_live_messages_and_quirks(sandbox_get):
    rows = item_list(sandbox_get(BY_UID, {"arsId": "01001", "resultType": "json"}))
    assert rows
    for row in rows:
        assert row["arsId"] == "01001" and row["stNm"] == "종로2가사거리"
        assert re.fullmatch(r"\d{4}  ", row["lastTm"]) and re.fullmatch(r"\d{4}  ", row["firstTm"])
        assert MESSAGE.match(row["arrmsg1"]) and MESSAGE.match(row["arrmsg2"])
        minutes = re.match(r"(\d+)분후", row["arrmsg1"])
        if minutes:
            assert int(row["traTime1"]) // 60 == int(minutes.group(1))
            assert int(row["sectOrd1"]) < int(row["staOrd"])
            assert row["congestion1"] in ("3", "4", "5")
        assert row["routeType"] in ("2", "3", "4", "5", "6")
    assert len({row["busRouteId"] for row in rows}) == len(rows)
    assert any(re.match(r"\d+분후", row["arrmsg1"]) for row in rows)


def test_arrival_messages_follow_the_clock(sandbox_get):
    def messages(now: str) -> set[str]:
        rows = item_list(sandbox_get(BY_UID, {"arsId": "01001", "resultType": "json"}, headers={"X-Sandbox-Now": now}))
        return {row["arrmsg1"] for row in rows} | {row["arrmsg2"] for row in rows}

    assert messages("2026-11-19T02:00") == {"출발대기"}
    late = messages("2026-11-18T23:58")
    assert "운행종료" in late and "출발대기" not in late


@pytest.mark.slow
def test_chain_7_stop_name_to_arrivals_over_http(sandbox_server):
    """getStationByName(stSrch) -> arsId -> getStationByUid(arsId)."""
    with httpx.Client(timeout=30) as http:

        def get(path: str, **params):
            response = http.get(
                sandbox_server.live(path), params={"serviceKey": DEMO_KEY, "resultType": "json", **params}
            )
            response.raise_for_status()
            return item_list(response)

        stops = get(BY_NAME, stSrch="신분당선강남역")
        assert stops and all(stop["stNm"] == "신분당선강남역" for stop in stops)
        for stop in stops:
            arrivals = get(BY_UID, arsId=stop["arsId"])
            assert arrivals and {row["stId"] for row in arrivals} == {stop["stId"]}
            assert all(MESSAGE.match(row["arrmsg1"]) for row in arrivals)
