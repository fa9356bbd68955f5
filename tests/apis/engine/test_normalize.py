"""The normalizer against every envelope family and quirk in the research notes (fixtures are hand-written
from the bodies quoted there)."""

from __future__ import annotations

import pytest

from apis.engine import errors
from apis.engine.normalize import flatten, normalize

from .conftest import fixture_bytes

# (fixture, HTTP status, ok, error_class, result_code, number of records, total_count)
CASES = [
    ("datagokr_kma_list.json", 200, True, None, "00", 2, 2),
    ("datagokr_kasi_single.json", 200, True, None, "00", 1, 1),
    ("datagokr_tour_empty.json", 200, True, None, "0000", 0, 0),
    ("datagokr_airkorea_bare.json", 200, True, None, "00", 2, 2),
    ("datagokr_counts_as_strings.json", 200, True, None, "00", 1, 3),
    ("mfds_bare.json", 200, True, None, "00", 1, 1),
    ("mfds_item_wrapped.json", 200, True, None, "00", 2, 2),
    ("molit_rtms.xml", 200, True, None, "000", 1, 40),
    ("datagokr_xml_list.xml", 200, True, None, "00", 3, 3),
    ("datagokr_xml_empty.xml", 200, True, None, "00", 0, 0),
    ("kma_nodata.json", 200, True, None, "03", 0, None),
    ("datagokr_xml_bare_item.xml", 200, True, None, "00", 1, None),
    ("datagokr_xml_bare_items.xml", 200, True, None, "00", 2, None),
    ("datagokr_json_bare_item.json", 200, True, None, "00", 1, None),
    ("datagokr_json_bare_items.json", 200, True, None, "00", 2, 2),
    ("datagokr_json_items_empty_string.json", 200, True, None, "00", 0, 0),
    ("datagokr_json_single_item_string_counts.json", 200, True, None, "00", 1, 1),
    ("datagokr_xml_single_item_string_counts.xml", 200, True, None, "00", 1, 1),
    ("gateway_variant_a.xml", 200, False, errors.STRUCT_AUTH, "30", 0, None),
    ("gateway_variant_b.xml", 200, False, errors.STRUCT_AUTH, "30", 0, None),
    ("gateway_variant_b.json", 403, False, errors.STRUCT_AUTH, "30", 0, None),
    ("gateway_retired_no_root.json", 400, False, errors.STRUCT_RETIRED, "12", 0, None),
    ("gateway_quota.xml", 200, False, errors.ENV_QUOTA, "22", 0, None),
    ("gateway_access_denied.xml", 200, False, errors.STRUCT_AUTH, "20", 0, None),
    ("stanregincd.json", 200, True, None, "INFO-0", 1, 1),
    ("stanregincd_nodata.json", 200, True, None, "INFO-3", 0, None),
    ("mois_population.json", 200, True, None, "0", 1, 1),
    ("odcloud_applyhome.json", 200, True, None, None, 2, 14),
    ("odcloud_auth_missing.json", 401, False, errors.STRUCT_AUTH, "-401", 0, None),
    ("odcloud_auth_invalid.json", 401, False, errors.STRUCT_AUTH, "-4", 0, None),
    ("nts_status.json", 200, True, None, "OK", 1, 1),
    ("nts_validate.json", 200, True, None, "OK", 1, 0),
    ("juso.json", 200, True, None, "0", 2, 2),
    ("juso_e0001.json", 200, False, errors.STRUCT_AUTH, "E0001", 0, 0),
    ("juso_e0005.json", 200, False, errors.STRUCT_MISSING_PARAM, "E0005", 0, 0),
    ("seoul_bus.json", 200, True, None, "0", 1, 1),
    ("seoul_bus.xml", 200, True, None, "0", 1, 1),
    ("seoul_bus_nodata.json", 200, True, None, "4", 0, 0),
    ("kosis_array.json", 200, True, None, None, 2, 2),
    ("kosis_unquoted.json", 200, True, None, None, 1, 1),
    ("kosis_error.json", 200, False, errors.STRUCT_MISSING_PARAM, "20", 0, None),
    ("kosis_nodata.json", 200, True, None, "30", 0, None),
    ("seoul_open_data.json", 200, True, None, "INFO-000", 1, 3200),
    ("seoul_service.xml", 200, True, None, "INFO-000", 2, 3200),
    ("seoul_info200.json", 200, True, None, "INFO-200", 0, None),
    ("seoul_info100.xml", 200, False, errors.STRUCT_AUTH, "INFO-100", 0, None),
    ("seoul_error336.json", 200, False, errors.STRUCT_INVALID_PARAM, "ERROR-336", 0, None),
    ("seoul_citydata.json", 200, True, None, "INFO-000", 1, 1),
    ("seoul_subway.json", 200, True, None, "INFO-000", 2, 2),
    ("rone.json", 200, True, None, "INFO-000", 2, 2),
    ("rone_error290.json", 200, False, errors.STRUCT_AUTH, "ERROR-290", 0, None),
    ("html_502.html", 502, False, errors.ENV_HTTP_5XX, None, 0, None),
    ("html_was_error.html", 200, False, errors.ENV_HTML_ERROR, None, 0, None),
    ("truncated.json", 200, False, errors.ENV_TRUNCATED, None, 0, None),
    ("truncated.xml", 200, False, errors.ENV_TRUNCATED, None, 0, None),
    ("malformed.json", 200, False, errors.STRUCT_MALFORMED, None, 0, None),
    ("malformed.xml", 200, False, errors.STRUCT_MALFORMED, None, 0, None),
]


@pytest.mark.parametrize(
    ("name", "status", "ok", "error_class", "code", "count", "total"), CASES, ids=[c[0] for c in CASES]
)
def test_it_normalizes_every_family(name, status, ok, error_class, code, count, total):
    result = normalize(fixture_bytes(name), http_status=status)
    assert (result.ok, result.error_class, result.result_code) == (ok, error_class, code)
    assert len(result.records) == count
    assert result.total_count == total
    assert result.http_status == status
    assert result.bytes == len(fixture_bytes(name))
    assert all(isinstance(r, dict) and not any(isinstance(v, dict) for v in r.values()) for r in result.records)


def test_it_keeps_json_numbers_and_strings_as_sent():
    result = normalize(fixture_bytes("datagokr_kma_list.json"))
    assert result.records[0] == {
        "baseDate": "20261118",
        "baseTime": "1400",
        "category": "T1H",
        "nx": 60,
        "ny": 127,
        "obsrValue": "14.2",
    }
    assert result.page == {"page_no": 1, "num_of_rows": 10, "has_more": False}


def test_it_reads_a_single_item_object_as_one_record():
    result = normalize(fixture_bytes("datagokr_kasi_single.json"))
    assert result.records == [{"dateKind": "01", "dateName": "추석", "isHoliday": "Y", "locdate": 20260924, "seq": 1}]


def test_it_strips_whitespace_and_reads_empty_xml_elements_as_empty_strings():
    record = normalize(fixture_bytes("molit_rtms.xml")).records[0]
    assert record["dealAmount"] == "12,000"
    assert record["cdealType"] == ""
    assert record["bonbun"] == "0202"  # leading zeros survive: values stay text


def test_it_reads_counts_written_as_strings_and_says_whether_more_pages_exist():
    result = normalize(fixture_bytes("datagokr_counts_as_strings.json"))
    assert result.page == {"page_no": 2, "num_of_rows": 1, "has_more": True}
    assert result.total_count == 3
    assert result.result_msg == "NORMAL_CODE"


def test_it_keeps_missing_value_markers_and_nulls_from_json():
    records = normalize(fixture_bytes("datagokr_airkorea_bare.json")).records
    assert records[0]["pm25Value"] == "-"
    assert records[0]["khaiGrade"] is None
    assert records[0]["dataTime"] == "2026-09-21 24:00"


def test_it_unwraps_mfds_items_that_wrap_each_record_in_item():
    records = normalize(fixture_bytes("mfds_item_wrapped.json")).records
    assert [r["itemName"] for r in records] == ["타이레놀정500밀리그람", "게보린정"]


def test_it_reports_no_data_as_ok_with_zero_records_unless_records_were_expected():
    relaxed = normalize(fixture_bytes("kma_nodata.json"))
    assert (relaxed.ok, relaxed.error_class, relaxed.result_msg, relaxed.records) == (True, None, "NO_DATA", [])

    strict = normalize(fixture_bytes("kma_nodata.json"), expect_records=True)
    assert (strict.ok, strict.error_class, strict.result_code) == (False, errors.STRUCT_NO_DATA, "03")
    assert not errors.is_environmental(strict.error_class)


@pytest.mark.parametrize(
    "name", ["datagokr_tour_empty.json", "datagokr_xml_empty.xml", "stanregincd_nodata.json", "seoul_info200.json"]
)
def test_it_treats_every_empty_form_as_no_data(name):
    assert normalize(fixture_bytes(name)).ok is True
    assert normalize(fixture_bytes(name), expect_records=True).error_class == errors.STRUCT_NO_DATA


def test_it_names_the_gateway_error_in_both_text_variants():
    variant_a = normalize(fixture_bytes("gateway_variant_a.xml"))
    variant_b = normalize(fixture_bytes("gateway_variant_b.xml"))
    assert variant_a.result_msg == "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"
    assert variant_b.result_msg == "SERVICE_KEY_IS_NOT_REGISTERED_ERROR / 등록되지 않은 서비스키"


@pytest.mark.parametrize(
    ("code", "error_class"),
    [
        ("01", errors.ENV_PROVIDER),
        ("02", errors.ENV_PROVIDER),
        ("04", errors.ENV_PROVIDER),
        ("05", errors.ENV_PROVIDER),
        ("99", errors.ENV_PROVIDER),
        ("10", errors.STRUCT_INVALID_PARAM),
        ("11", errors.STRUCT_MISSING_PARAM),
        ("12", errors.STRUCT_RETIRED),
        ("20", errors.STRUCT_AUTH),
        ("22", errors.ENV_QUOTA),
        ("23", errors.ENV_QUOTA),
        ("30", errors.STRUCT_AUTH),
        ("31", errors.STRUCT_AUTH),
        ("32", errors.STRUCT_AUTH),
        ("030", errors.STRUCT_AUTH),  # MOLIT's three-digit generation
        ("3", None),  # HIRA writes codes without zero padding
    ],
)
def test_it_maps_the_portal_result_codes(code, error_class):
    body = f'{{"response":{{"header":{{"resultCode":"{code}","resultMsg":"X"}},"body":{{"items":""}}}}}}'
    result = normalize(body)
    assert result.error_class == error_class
    assert result.result_code == code


def test_it_calls_transient_gateway_failures_gateway_errors():
    body = "<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>HTTP_ERROR</returnAuthMsg><returnReasonCode>04</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>"
    assert normalize(body).error_class == errors.ENV_GATEWAY


def test_it_lets_the_envelope_outrank_the_http_status():
    assert normalize(fixture_bytes("gateway_variant_b.json"), http_status=403).error_class == errors.STRUCT_AUTH
    assert (
        normalize(fixture_bytes("gateway_retired_no_root.json"), http_status=400).error_class == errors.STRUCT_RETIRED
    )


def test_it_reports_a_success_envelope_under_an_error_status_by_the_status():
    assert normalize(fixture_bytes("datagokr_kma_list.json"), http_status=503).error_class == errors.ENV_HTTP_5XX


def test_it_reads_json_sent_as_text_html():
    result = normalize(fixture_bytes("stanregincd.json"), content_type="text/html;charset=UTF-8")
    assert result.ok and result.records[0]["region_cd"] == "1171000000"
    assert result.records[0]["locat_order"] == 1


def test_it_flattens_nested_objects_with_dotted_keys():
    nested = normalize(fixture_bytes("nts_validate.json")).records[0]
    assert nested["request_param.start_dt"] == "20000101"
    assert nested["valid"] == "02"
    city = normalize(fixture_bytes("seoul_citydata.json")).records[0]
    assert city["AREA_NM"] == "광화문·덕수궁"
    assert city["LIVE_PPLTN_STTS.0.AREA_CONGEST_LVL"] == "보통"
    assert flatten({"a": {"b": {"c": 1}}, "d": [1, 2], "e": {}}) == {"a.b.c": 1, "d": [1, 2], "e": None}


def test_it_uses_the_filtered_match_count_for_odcloud():
    result = normalize(fixture_bytes("odcloud_applyhome.json"))
    assert result.total_count == 14
    assert result.page == {"page_no": 1, "num_of_rows": 2, "has_more": True}


def test_it_repairs_kosis_unquoted_keys_and_tabs():
    assert normalize(fixture_bytes("kosis_unquoted.json")).records == [
        {"ORG_ID": "101", "TBL_ID": "DT_1IN1502", "TBL_NM": "인구 총조사"}
    ]


def test_it_strips_the_trailing_spaces_of_seoul_bus_fields():
    assert normalize(fixture_bytes("seoul_bus.json")).records[0]["lastTm"] == "2340"


def test_it_reads_juso_paging_from_strings():
    result = normalize(fixture_bytes("juso.json"))
    assert result.page == {"page_no": 1, "num_of_rows": 10, "has_more": False}
    assert result.records[0]["admCd"] == "1111011900"


@pytest.mark.parametrize(
    ("body", "status", "error_class"),
    [
        (b"", 200, errors.ENV_GATEWAY),
        (b"", 503, errors.ENV_HTTP_5XX),
        (b"403 Forbidden", 403, errors.STRUCT_AUTH),
        (b"Too Many Requests", 429, errors.ENV_QUOTA),
        (b"<html><body>Not Found</body></html>", 404, errors.STRUCT_NOT_FOUND),
        (b'{"message": "whatever"}', 200, errors.STRUCT_SCHEMA),
        (b'{"message": "whatever"}', 500, errors.ENV_HTTP_5XX),
        (b"API not found", 200, errors.STRUCT_SCHEMA),
    ],
)
def test_it_classifies_bodies_without_an_envelope(body, status, error_class):
    result = normalize(body, http_status=status)
    assert (result.ok, result.error_class) == (False, error_class)


def test_it_decodes_euc_kr_xml():
    body = '<?xml version="1.0" encoding="EUC-KR"?><response><header><resultCode>00</resultCode><resultMsg>정상</resultMsg></header><body><items><item><name>종로구</name></item></items></body></response>'
    result = normalize(body.encode("euc-kr"))
    assert result.records == [{"name": "종로구"}]
    assert result.result_msg == "정상"


def test_it_refuses_xml_entity_declarations():
    body = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "boom">]><response><header><resultCode>00</resultCode></header></response>'
    assert normalize(body).error_class == errors.STRUCT_MALFORMED


def test_it_redacts_the_key_from_raw():
    key = "abc+def/ghi=="
    body = '{"response":{"header":{"resultCode":"30","resultMsg":"key abc%2Bdef%2Fghi%3D%3D is bad: abc+def/ghi=="}}}'
    result = normalize(body, secrets=[key])
    assert "abc" not in result.raw
    assert result.raw.count("***") == 2
    assert result.result_msg == "key *** is bad: ***"


def test_it_reads_an_item_straight_under_body_with_no_items_wrapper_or_counts():
    """A real transit answer: one <item> directly in <body>, no <items>, no totalCount."""
    result = normalize(fixture_bytes("datagokr_xml_bare_item.xml"), expect_records=True)
    assert result.ok
    assert result.records == [
        {
            "arrprevstationcnt": "3",
            "arrtime": "412",
            "nodeid": "DJB8001793",
            "nodenm": "대전역",
            "routeid": "DJB30300002",
            "routeno": "102",
            "routetp": "간선버스",
            "vehicletp": "저상버스",
        }
    ]
    assert result.total_count is None
    json_result = normalize(fixture_bytes("datagokr_json_bare_item.json"))
    assert json_result.records == [{"nodeid": "DJB8001793", "nodenm": "대전역", "routeno": 102, "arrtime": 412}]


def test_it_reads_string_counts_around_a_single_item_in_both_formats():
    for name in ("datagokr_json_single_item_string_counts.json", "datagokr_xml_single_item_string_counts.xml"):
        result = normalize(fixture_bytes(name))
        assert result.records[0]["stationName"] == "종로구"
        assert (result.total_count, result.page["has_more"]) == (1, False)
