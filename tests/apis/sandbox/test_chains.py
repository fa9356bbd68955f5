"""Research §5 chains 1, 3 and 13 over a real socket: a client written for the live URLs works against the
standalone sandbox by swapping the origin, and values from one API find data in the next."""

from __future__ import annotations

import httpx
import pytest
import xmltodict

from apis.sandbox.config import DEMO_KEY

pytestmark = pytest.mark.slow


@pytest.fixture
def live_client(sandbox_server):
    """Calls live-style URLs (https://apis.data.go.kr/…) on the sandbox: only the origin changes."""

    class Client:
        def __init__(self):
            self.http = httpx.Client(timeout=10)

        def get(self, live_url: str, **params):
            url = f"{sandbox_server.url}/sandbox/{live_url.split('://', 1)[1]}"
            response = self.http.get(url, params={"serviceKey": DEMO_KEY, **params})
            response.raise_for_status()
            return response

    client = Client()
    yield client
    client.http.close()


def items(xml_text: str) -> list[dict]:
    body = xmltodict.parse(xml_text, strip_whitespace=False)["response"]["body"]
    if not body["items"]:
        return []
    item = body["items"]["item"]
    return item if isinstance(item, list) else [item]


def test_chain_1_region_code_to_apartment_trades(live_client):
    regions = live_client.get(
        "https://apis.data.go.kr/1741000/StanReginCd/getStanReginCdList",
        locatadd_nm="서울특별시 종로구",
        type="json",
        numOfRows=100,
    ).json()
    rows = regions["StanReginCd"][1]["row"]
    lawd_cd = rows[0]["region_cd"][:5]
    dong_names = {r["locallow_nm"] for r in rows}
    trades = items(
        live_client.get(
            "https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade",
            LAWD_CD=lawd_cd,
            DEAL_YMD="202609",
            numOfRows=1000,
        ).text
    )
    assert lawd_cd == "11110" and trades
    assert {t["sggCd"] for t in trades} == {"11110"}
    assert {t["umdNm"] for t in trades} <= dong_names


def test_chain_3_detailed_trade_to_building_register(live_client):
    trades = items(
        live_client.get(
            "http://apis.data.go.kr/1613000/RTMSDataSvcAptTradeDev/getRTMSDataSvcAptTradeDev",
            LAWD_CD="11680",
            DEAL_YMD="202609",
            numOfRows=30,
        ).text
    )
    assert trades
    for trade in trades[:10]:
        titles = items(
            live_client.get(
                "https://apis.data.go.kr/1613000/BldRgstHubService/getBrTitleInfo",
                sigunguCd=trade["sggCd"],
                bjdongCd=trade["umdCd"],
                platGbCd=str(int(trade["landCd"]) - 1),
                bun=trade["bonbun"],
                ji=trade["bubun"],
                numOfRows=100,
            ).text
        )
        assert titles, trade
        assert {t["bldNm"] for t in titles} == {trade["aptNm"]}
        assert titles[0]["useAprDay"][:4] == trade["buildYear"]
        assert max(int(t["grndFlrCnt"]) for t in titles) >= int(trade["floor"])


def test_chain_13_region_code_to_population(live_client):
    regions = live_client.get(
        "https://apis.data.go.kr/1741000/StanReginCd/getStanReginCdList",
        locatadd_nm="서울특별시 강남구 역삼동",
        type="json",
    ).json()
    region = regions["StanReginCd"][1]["row"][0]
    population = live_client.get(
        "https://apis.data.go.kr/1741000/stdgPpltnHhStus/selectStdgPpltnHhStus",
        stdgCd=region["region_cd"],
        srchFrYm="202610",
        srchToYm="202610",
        lv="3",
        regSeCd="1",
        type="json",
    ).json()["Response"]
    item = population["items"]["item"]
    assert population["head"]["resultCode"] == "0"
    assert item["stdgCd"] == region["region_cd"] and item["dongNm"] == region["locallow_nm"]
    assert int(item["totNmprCnt"]) > 0
