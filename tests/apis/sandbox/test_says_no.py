"""The sandbox says no where the live API does, so an EDGE trial that binds a valid-looking value of the wrong
kind fails (issue 12): a code that matches nothing gives no records, a base time that is no issuance gives KMA
03 NO_DATA, a number the registry does not know gives NTS's "not registered" record, a mismatch gives
validate 02."""

from __future__ import annotations

import json

import pytest

from tests.apis.sandbox.conftest import parse

TOUR = "apis.data.go.kr/B551011/KorService2/areaBasedList2"
KMA = "apis.data.go.kr/1360000/VilageFcstInfoService_2.0"


def _body(response) -> str:
    return response.body.decode() if isinstance(response.body, bytes) else str(response.body)


@pytest.mark.parametrize(
    ("path", "params"),
    [
        # A 시군구 code sent as a TourAPI areaCode, a 시군구 number that no area has.
        (TOUR, {"MobileOS": "ETC", "MobileApp": "a", "areaCode": "11110", "_type": "json"}),
        (TOUR, {"MobileOS": "ETC", "MobileApp": "a", "areaCode": "1", "sigunguCode": "99", "_type": "json"}),
        # A 시군구 code as 심평원's sgguCd, a 시군구 prefix as the 법정동 suffix, a date outside the data.
        ("apis.data.go.kr/B551182/hospInfoServicev2/getHospBasisList", {"sgguCd": "11110", "_type": "json"}),
        ("apis.data.go.kr/1613000/BldRgstHubService/getBrTitleInfo", {"sigunguCd": "11110", "bjdongCd": "11110"}),
        (
            "apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade",
            {"LAWD_CD": "11110", "DEAL_YMD": "199001"},
        ),
        # A district name as a 읍면동 name, a route number as a stop name, a TAGO stop number as a Seoul arsId.
        ("apis.data.go.kr/B552584/MsrstnInfoInqireSvc/getTMStdrCrdnt", {"umdName": "종로구", "returnType": "json"}),
        ("apis.data.go.kr/1613000/BusSttnInfoInqireService/getSttnNoList", {"cityCode": "25", "nodeNm": "102"}),
        ("ws.bus.go.kr/api/rest/stationinfo/getStationByUid", {"arsId": "44810", "resultType": "json"}),
    ],
)
def test_a_valid_looking_value_that_matches_nothing_gives_no_records(sandbox_get, path, params):
    response = sandbox_get(path, params)
    body = _body(response)
    assert response.status == 200
    assert (
        '"totalCount":0' in body
        or "<totalCount>0</totalCount>" in body
        or '"items":[]' in body
        or "결과가 없습니다" in body
    ), body[:300]


def test_a_base_time_that_is_no_issuance_hour_is_kma_no_data(sandbox_get):
    params = {"base_date": "20261118", "nx": "60", "ny": "127", "dataType": "JSON"}
    for operation, base_time in [("getVilageFcst", "1330"), ("getUltraSrtNcst", "1330"), ("getUltraSrtFcst", "1400")]:
        data = parse(sandbox_get(f"{KMA}/{operation}", {**params, "base_time": base_time}))
        assert data["response"]["header"]["resultCode"] == "03", operation
    served = parse(sandbox_get(f"{KMA}/getVilageFcst", {**params, "base_time": "1400"}))
    assert served["response"]["header"]["resultCode"] == "00"


def test_nts_answers_an_unknown_number_and_a_mismatch_with_records_that_say_no(sandbox_get):
    headers = {"Content-Type": "application/json"}
    status = sandbox_get(
        "api.odcloud.kr/api/nts-businessman/v1/status",
        None,
        method="POST",
        body=json.dumps({"b_no": ["1234567890"]}).encode(),
        headers=headers,
    )
    record = json.loads(_body(status))["data"][0]
    assert record["b_stt_cd"] == "" and "등록되지 않은" in record["tax_type"]
    validate = sandbox_get(
        "api.odcloud.kr/api/nts-businessman/v1/validate",
        None,
        method="POST",
        body=json.dumps({"businesses": [{"b_no": "2208162517", "start_dt": "19000101", "p_nm": "없는사람"}]}).encode(),
        headers=headers,
    )
    assert json.loads(_body(validate))["data"][0]["valid"] == "02"
