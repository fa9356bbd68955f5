"""MFDS e약은요 (getDrbEasyDrugList): the root-less JSON with a bare items array, nulls and "<\\/p>", the XML
form, partial-match searches, paging and the companies' business numbers that NTS knows."""

from __future__ import annotations

import json

from apis.sandbox.families import mfds, nts

from .conftest import parse

DRUGS = "apis.data.go.kr/1471000/DrbEasyDrugInfoService/getDrbEasyDrugList"


def drugs(sandbox_get, **params) -> dict:
    return json.loads(sandbox_get(DRUGS, {"type": "json", **params}).text())


def test_it_answers_json_without_a_response_root_and_with_a_bare_items_array(sandbox_get):
    body = drugs(sandbox_get, itemName="타이레놀")
    assert list(body) == ["header", "body"]
    assert body["header"] == {"resultCode": "00", "resultMsg": "NORMAL SERVICE."}
    assert list(body["body"]) == ["pageNo", "totalCount", "numOfRows", "items"]
    items = body["body"]["items"]
    assert isinstance(items, list) and items and all("타이레놀" in i["itemName"] for i in items)
    assert "타이레놀정500밀리그람(아세트아미노펜)" in {i["itemName"] for i in items}


def test_it_writes_leaflet_html_escaped_like_the_live_serializer(sandbox_get):
    text = sandbox_get(DRUGS, {"itemName": "타이레놀", "type": "json"}).text()
    assert "<\\/p>" in text and "</p>" not in text
    first = json.loads(text)["body"]["items"][0]
    assert first["efcyQesitm"].startswith("<p>이 약은") and first["efcyQesitm"].endswith("</p>")
    assert first["openDe"].endswith(" 00:00:00") and len(first["updateDe"]) == 8


def test_it_writes_missing_texts_as_null(sandbox_get):
    digestives = drugs(sandbox_get, efcyQesitm="소화불량", numOfRows=100)["body"]["items"]
    assert digestives and all(i["atpnWarnQesitm"] is None and i["intrcQesitm"] is None for i in digestives)
    assert any(i["itemImage"] is None for i in drugs(sandbox_get, numOfRows=100)["body"]["items"])


def test_it_searches_by_company_and_item_code(sandbox_get):
    body = drugs(sandbox_get, entpName="한미약품", numOfRows=100)["body"]
    assert body["totalCount"] >= 5 and all(i["entpName"] == "한미약품(주)" for i in body["items"])
    seq = body["items"][0]["itemSeq"]
    exact = drugs(sandbox_get, itemSeq=seq)["body"]
    assert exact["totalCount"] == 1 and exact["items"][0]["itemSeq"] == seq
    assert drugs(sandbox_get, itemSeq=seq[:-1])["body"]["totalCount"] == 0


def test_it_pages_a_few_hundred_drugs(sandbox_get):
    total = drugs(sandbox_get, numOfRows=1)["body"]["totalCount"]
    assert 300 <= total <= 600
    seen = [
        i["itemSeq"]
        for page in range(1, total // 100 + 2)
        for i in drugs(sandbox_get, numOfRows=100, pageNo=page)["body"]["items"]
    ]
    assert len(seen) == len(set(seen)) == total


def test_it_answers_empty_results_and_xml(sandbox_get):
    empty = drugs(sandbox_get, itemName="존재하지않는약")
    assert empty["body"]["totalCount"] == 0 and empty["body"]["items"] == []
    xml = parse(sandbox_get(DRUGS, {"itemName": "타이레놀"}))["response"]
    assert xml["header"]["resultCode"] == "00"
    item = xml["body"]["items"]["item"][0]
    assert item["efcyQesitm"].startswith("<p>")  # escaped in XML, read back as text
    assert "<items/>" in sandbox_get(DRUGS, {"itemName": "존재하지않는약"}).text()
    bad = drugs(sandbox_get, pageNo="x")
    assert bad == {"header": {"resultCode": "10", "resultMsg": "INVALID_REQUEST_PARAMETER_ERROR"}}


def test_each_company_number_is_a_live_business_for_nts():
    numbers = {d.bizrno for d in mfds.catalogue()}
    assert len(numbers) == len({d.entp_name for d in mfds.catalogue()})
    for number in numbers:
        record = nts.status_record(number, nts.date(2026, 11, 18))
        assert record["b_stt_cd"] == "01" and record["tax_type"] == "부가가치세 일반과세자"
