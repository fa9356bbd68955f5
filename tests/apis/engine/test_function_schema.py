"""Tool export as OpenAI/Hermes function schemas: safe unique names and an exact way back to the tool."""

from __future__ import annotations

import json
import re

import pytest

from apis.engine.function_schema import UnknownFunction, build_toolset, snake_case
from apis.engine.model import KeySlot, ToolSpec

NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def tool(operation_id: str, base_url: str = "https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade", **extra) -> ToolSpec:
    return ToolSpec(
        method="GET",
        path=f"/{operation_id}",
        base_url=base_url,
        operation_id=operation_id,
        name_ko=extra.pop("name_ko", "아파트 매매 실거래가 공개 자료"),
        description_ko=extra.pop("description_ko", "지역코드와 계약월로 조회합니다."),
        parameters=extra.pop(
            "parameters",
            {
                "type": "object",
                "properties": {
                    "LAWD_CD": {"type": "string", "description": "지역코드", "example": "11110"},
                    "DEAL_YMD": {"type": "string", "description": "계약월"},
                },
                "required": ["LAWD_CD", "DEAL_YMD"],
            },
        ),
        key_param=KeySlot("serviceKey"),
        **extra,
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("getRTMSDataSvcAptTrade", "get_rtms_data_svc_apt_trade"),
        ("getDtlInfo2.7", "get_dtl_info2_7"),
        ("selectStdgPpltnHhStus", "select_stdg_ppltn_hh_stus"),
        ("areaBasedList2", "area_based_list2"),
        ("아파트", ""),
    ],
)
def test_it_makes_snake_case_ascii(text, expected):
    assert snake_case(text) == expected


def test_it_exports_an_openai_function_with_korean_description_and_parameters():
    toolset = build_toolset([tool("getRTMSDataSvcAptTrade", record_fields=[{"path": "aptNm"}, {"path": "dealAmount"}])])
    (schema,) = toolset.schemas
    assert schema["type"] == "function"
    function = schema["function"]
    assert function["name"] == "get_rtms_data_svc_apt_trade"
    assert (
        function["description"]
        == "아파트 매매 실거래가 공개 자료. 지역코드와 계약월로 조회합니다. 응답 필드: aptNm, dealAmount"
    )
    assert function["parameters"] == {
        "type": "object",
        "properties": {
            "LAWD_CD": {"type": "string", "description": "지역코드 (예: 11110)"},
            "DEAL_YMD": {"type": "string", "description": "계약월"},
        },
        "required": ["LAWD_CD", "DEAL_YMD"],
    }
    json.dumps(toolset.schemas)  # serializable as is


def test_it_keeps_names_unique_across_services_and_maps_them_back():
    tools = [
        tool("getCtyCodeList", "https://apis.data.go.kr/1613000/BusSttnInfoInqireService"),
        tool("getCtyCodeList", "https://apis.data.go.kr/1613000/ArvlInfoInqireService"),
        tool("getCtyCodeList", "https://apis.data.go.kr/1613000/BusRouteInfoInqireService"),
        tool("getRestDeInfo", "https://apis.data.go.kr/B090041/openapi/service/SpcdeInfoService"),
    ]
    toolset = build_toolset(tools)
    names = [s["function"]["name"] for s in toolset.schemas]
    assert len(set(names)) == 4
    assert all(NAME.match(n) for n in names)
    assert "arvl_info_inqire_service_get_cty_code_list" in names
    assert "get_rest_de_info" in names
    for original in tools:
        name = toolset.name_for(original)
        assert toolset.tool_for(name) is original or toolset.tool_for(name) == original
    # The same set in another order gets the same names.
    assert [s["function"]["name"] for s in build_toolset(list(reversed(tools))).schemas] == names


def test_it_caps_names_at_64_characters_and_still_keeps_them_unique():
    long_id = "get" + "VeryLongOperationName" * 5
    tools = [tool(long_id, f"https://apis.data.go.kr/1613000/Service{'X' * 60}{i}") for i in range(3)]
    names = [s["function"]["name"] for s in build_toolset(tools).schemas]
    assert len(set(names)) == 3
    assert all(len(n) <= 64 and NAME.match(n) for n in names)


def test_it_gives_unsafe_parameter_names_aliases_and_maps_calls_back():
    odcloud = tool(
        "getAPTLttotPblancDetail",
        "https://api.odcloud.kr/api/ApplyhomeInfoDetailSvc/v1",
        parameters={
            "type": "object",
            "properties": {
                "page": {"type": "integer"},
                "cond[HOUSE_NM::LIKE]": {"type": "string", "description": "주택명"},
                "cond[SUBSCRPT_AREA_CODE_NM::EQ]": {"type": "string"},
            },
            "required": ["cond[HOUSE_NM::LIKE]"],
        },
    )
    toolset = build_toolset([odcloud])
    function = toolset.schemas[0]["function"]
    assert set(function["parameters"]["properties"]) == {"page", "cond_house_nm_like", "cond_subscrpt_area_code_nm_eq"}
    assert function["parameters"]["required"] == ["cond_house_nm_like"]
    found, params = toolset.to_call(function["name"], json.dumps({"page": 1, "cond_house_nm_like": "래미안"}))
    assert found == odcloud
    assert params == {"page": 1, "cond[HOUSE_NM::LIKE]": "래미안"}


def test_it_refuses_unknown_function_names():
    toolset = build_toolset([tool("getRTMSDataSvcAptTrade")])
    with pytest.raises(UnknownFunction):
        toolset.to_call("get_weather", {})


def test_it_renders_a_hermes_tools_block():
    toolset = build_toolset([tool("getRTMSDataSvcAptTrade")])
    block = toolset.hermes_prompt()
    assert block.startswith("<tools>\n") and block.endswith("\n</tools>")
    assert json.loads(block.splitlines()[1])["function"]["name"] == "get_rtms_data_svc_apt_trade"
