"""The importer on data.go.kr-style Swagger 2.0, OpenAPI 3.0/3.1, portal pages, URLs, broken and skeleton specs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import httpx
import pytest
import yaml

from apis.engine.model import KeySlot
from apis.engine.spec_import import diff_tools, import_spec

from .conftest import fixture_bytes

SANDBOX_SPECS = sorted((Path(__file__).resolve().parents[3] / "apis" / "sandbox" / "specs").glob("*.json"))


def rtms_spec() -> dict:
    return json.loads(fixture_bytes("spec_datagokr_rtms.json"))


def test_it_imports_a_datagokr_swagger_spec():
    result = import_spec(rtms_spec())
    assert result.ok, result.report()
    (service,) = result.services
    (tool,) = result.tools
    assert service.base_url == "https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade"
    assert (service.provider, service.provider_name, service.family) == (
        "apis.data.go.kr/1613000",
        "국토교통부",
        "datagokr",
    )
    assert service.key_param == KeySlot("serviceKey", "query")
    assert service.json_switch == {}
    assert (tool.method, tool.path, tool.operation_id) == ("GET", "/getRTMSDataSvcAptTrade", "getRTMSDataSvcAptTrade")
    assert tool.name_ko == "아파트 매매 실거래가 공개 자료"
    assert tool.description_ko == "지역코드와 계약월로 아파트 매매 신고 자료를 조회합니다."
    assert tool.response_formats == ["xml"]
    assert tool.record_path == "response.body.items.item"


def test_it_merges_path_and_operation_parameters_and_moves_the_key_out():
    tool = import_spec(rtms_spec()).tools[0]
    props = tool.parameters["properties"]
    assert list(props) == ["LAWD_CD", "DEAL_YMD", "pageNo", "numOfRows"]
    assert "serviceKey" not in props
    assert tool.parameters["required"] == ["LAWD_CD", "DEAL_YMD"]
    # The operation's numOfRows (integer, default 10) wins over the path-level $ref one.
    assert props["numOfRows"] == {"type": "integer", "default": 10, "description": "한 페이지 결과 수"}
    assert props["LAWD_CD"]["example"] == "11110"
    assert props["pageNo"]["description"] == "페이지번호"  # a $ref'd parameter, resolved
    assert tool.param_locations == {"LAWD_CD": "query", "DEAL_YMD": "query", "pageNo": "query", "numOfRows": "query"}
    assert tool.key_param == KeySlot("serviceKey", "query")


def test_it_reads_the_nested_item_schema_as_the_record():
    tool = import_spec(rtms_spec()).tools[0]
    assert tool.record_fields == [
        {"path": "aptNm", "name": "aptNm", "type": "string", "description": "단지명", "example": "종로중흥S클래스"},
        {
            "path": "dealAmount",
            "name": "dealAmount",
            "type": "string",
            "description": "거래금액(만원)",
            "example": "12,000",
        },
        {"path": "umdCd", "name": "umdCd", "type": "string", "description": "법정동읍면동코드", "example": "17500"},
        {"path": "buildYear", "name": "buildYear", "type": "integer", "description": "건축년도", "example": None},
    ]


def test_it_handles_the_service_path_in_host():
    spec = rtms_spec()
    spec["host"] = "apis.data.go.kr/1613000/RTMSDataSvcAptTrade"
    spec["basePath"] = "/"
    result = import_spec(spec)
    assert result.services[0].base_url == "https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade"
    assert result.services[0].provider == "apis.data.go.kr/1613000"


def test_it_finds_json_switches_and_portal_keys():
    spec = {
        "swagger": "2.0",
        "info": {"title": "KMA", "version": "1"},
        "host": "apis.data.go.kr",
        "basePath": "/1360000/VilageFcstInfoService_2.0",
        "paths": {
            "/getUltraSrtNcst": {
                "get": {
                    "summary": "초단기실황조회",
                    "parameters": [
                        {"name": "ServiceKey", "in": "query", "type": "string", "required": True},
                        {"name": "dataType", "in": "query", "type": "string", "description": "응답자료형식(XML/JSON)"},
                        {"name": "nx", "in": "query", "type": "integer", "required": True},
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    result = import_spec(spec)
    tool = result.tools[0]
    assert tool.json_switch == {"dataType": "JSON"}
    assert tool.key_param == KeySlot("ServiceKey", "query")
    assert list(tool.parameters["properties"]) == ["nx"]
    assert tool.operation_id == "getUltraSrtNcst"  # derived from the path when there is none
    assert any(p.level == "warning" and "no response schema" in p.message for p in result.problems)


def test_it_imports_openapi_3_yaml_with_security_schemes_and_a_json_body():
    result = import_spec(fixture_bytes("spec_odcloud.yaml").decode())
    assert result.ok, result.report()
    service, tool = result.services[0], result.tools[0]
    assert service.base_url == "https://api.odcloud.kr/api/nts-businessman/v1"
    assert (service.family, service.provider) == ("odcloud", "api.odcloud.kr")
    assert service.key_param == KeySlot("serviceKey", "query")  # query preferred over the Infuser header
    assert tool.method == "POST"
    assert tool.json_switch == {"returnType": "JSON"}
    assert tool.parameters["properties"]["b_no"]["type"] == "array"
    assert tool.parameters["required"] == ["b_no"]
    assert tool.param_locations == {"b_no": "body"}
    assert [f["path"] for f in tool.record_fields] == ["b_no", "b_stt", "b_stt_cd", "tax_type"]
    assert tool.record_path == "data"
    assert tool.response_formats == ["json", "xml"]


def test_it_uses_the_infuser_header_when_that_is_the_only_scheme():
    spec = yaml.safe_load(fixture_bytes("spec_odcloud.yaml"))
    del spec["components"]["securitySchemes"]["ApiKeyAuth2"]
    result = import_spec(spec)
    assert result.services[0].key_param == KeySlot("Authorization", "header", "Infuser ")


def test_it_imports_openapi_3_1_type_lists_and_examples():
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Juso", "version": "2"},
        "servers": [{"url": "https://business.juso.go.kr/addrlink"}],
        "paths": {
            "/addrLinkApi.do": {
                "get": {
                    "summary": "도로명주소 검색",
                    "parameters": [
                        {"name": "confmKey", "in": "query", "required": True, "schema": {"type": "string"}},
                        {
                            "name": "keyword",
                            "in": "query",
                            "required": True,
                            "schema": {"type": ["string", "null"], "examples": ["세종대로 209"]},
                        },
                        {"name": "resultType", "in": "query", "schema": {"type": "string", "enum": ["xml", "json"]}},
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "results": {
                                                "type": "object",
                                                "properties": {
                                                    "common": {
                                                        "type": "object",
                                                        "properties": {"errorCode": {"type": "string"}},
                                                    },
                                                    "juso": {
                                                        "type": "array",
                                                        "items": {
                                                            "type": "object",
                                                            "properties": {
                                                                "roadAddr": {"type": ["string", "null"]},
                                                                "admCd": {"type": "string"},
                                                            },
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    }
                                }
                            },
                        }
                    },
                }
            }
        },
    }
    tool = import_spec(spec).tools[0]
    assert tool.operation_id == "addrLinkApi"
    assert tool.key_param == KeySlot("confmKey", "query")
    assert tool.json_switch == {"resultType": "json"}
    assert tool.parameters["properties"]["keyword"] == {"type": "string", "example": "세종대로 209"}
    assert [(f["path"], f["type"]) for f in tool.record_fields] == [("roadAddr", "string"), ("admCd", "string")]
    assert tool.family == "juso"


def test_it_reads_seoul_path_keys_and_format_segments():
    spec = {
        "swagger": "2.0",
        "info": {"title": "서울시 실시간 도시데이터", "version": "1"},
        "host": "openapi.seoul.go.kr:8088",
        "schemes": ["http"],
        "paths": {
            "/{KEY}/{TYPE}/citydata/{START_INDEX}/{END_INDEX}/{AREA_NM}": {
                "get": {
                    "summary": "실시간 도시데이터",
                    "parameters": [
                        {"name": "KEY", "in": "path", "required": True, "type": "string"},
                        {"name": "TYPE", "in": "path", "required": True, "type": "string", "enum": ["xml", "json"]},
                        {"name": "START_INDEX", "in": "path", "required": True, "type": "integer"},
                        {"name": "END_INDEX", "in": "path", "required": True, "type": "integer"},
                        {"name": "AREA_NM", "in": "path", "required": True, "type": "string"},
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    result = import_spec(spec)
    tool = result.tools[0]
    assert result.services[0].base_url == "http://openapi.seoul.go.kr:8088"
    assert tool.key_param == KeySlot("KEY", "path")
    assert tool.json_switch == {"TYPE": "json"}
    assert tool.parameters["required"] == ["START_INDEX", "END_INDEX", "AREA_NM"]
    assert tool.operation_id == "citydata"
    assert tool.family == "seoul_open_data"


def test_it_reads_the_spec_embedded_in_a_datagokr_page():
    result = import_spec(fixture_bytes("page_datagokr.html").decode())
    assert result.ok, result.report()
    assert result.tools[0].description_ko == "역슬래시 \\ 와 `백틱` 을 담은 설명"


def test_it_follows_a_swagger_url_on_a_page_and_fetches_urls_through_the_transport():
    spec_text = fixture_bytes("spec_datagokr_rtms.json")
    page = "<html><script>var swaggerUrl = 'https://infuser.odcloud.kr/oas/docs?namespace=15094058/v1';</script></html>"
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if request.url.host == "www.data.go.kr":
            return httpx.Response(200, text=page)
        return httpx.Response(200, content=spec_text, headers={"Content-Type": "application/json"})

    result = import_spec("https://www.data.go.kr/data/15094058/openapi.do", transport=httpx.MockTransport(handler))
    assert result.ok, result.report()
    assert seen == [
        "https://www.data.go.kr/data/15094058/openapi.do",
        "https://infuser.odcloud.kr/oas/docs?namespace=15094058/v1",
    ]
    assert result.services[0].source == "https://infuser.odcloud.kr/oas/docs?namespace=15094058/v1"


def test_it_reports_a_url_that_cannot_be_fetched():
    transport = httpx.MockTransport(lambda request: httpx.Response(404, text="nope"))
    result = import_spec("https://example.org/spec.json", transport=transport)
    assert not result.ok
    # What answered (a status, a closed port, a timeout) is never told: the error text is no port scanner.
    assert "could not fetch" in result.problems[0].message
    assert "404" not in result.problems[0].message


def test_it_reads_a_file_path(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(rtms_spec(), allow_unicode=True), encoding="utf-8")
    assert import_spec(str(path)).ok
    assert import_spec(path).services[0].source == str(path)


def test_it_reports_a_missing_file_as_such(tmp_path):
    result = import_spec(str(tmp_path / "gone.json"))
    assert result.problems[0].message.startswith("neither a spec nor an existing file or URL")


def test_it_reports_a_skeleton_spec_clearly():
    spec = rtms_spec()
    spec["paths"] = {}
    result = import_spec(spec)
    assert not result.ok and result.tools == [] and result.services == []
    assert [p.pointer for p in result.problems] == ["/paths"]
    assert "skeleton" in result.report()


def test_it_reports_a_page_without_an_embedded_spec():
    result = import_spec("<html><body><table><tr><td>요청변수</td></tr></table></body></html>")
    assert not result.ok
    assert "no `var swaggerJson`" in result.problems[0].message


def test_it_reports_text_that_is_neither_json_nor_yaml():
    result = import_spec('{"swagger": "2.0", "paths": {')
    assert not result.ok
    assert "not valid JSON" in result.problems[0].message and "line 1" in result.problems[0].message
    assert import_spec("swagger: [2.0").problems[0].message.startswith("neither JSON nor valid YAML")


def test_it_lists_every_problem_of_a_malformed_spec_with_pointers_and_imports_nothing():
    spec = rtms_spec()
    get = spec["paths"]["/getRTMSDataSvcAptTrade"]["get"]
    get["parameters"].append({"name": "sigungu", "in": "querystring", "type": "string"})
    get["parameters"].append({"in": "query", "type": "string"})
    get["parameters"].append({"name": "when", "in": "query", "type": "strng"})
    get["responses"]["200"]["schema"] = {"$ref": "#/definitions/Missing"}
    spec["paths"]["/getOther/{id}"] = {"get": {"operationId": "getRTMSDataSvcAptTrade", "responses": {}}}
    spec["paths"]["noslash"] = {"get": {"responses": {}}}
    result = import_spec(spec)
    assert not result.ok
    assert result.services == [] and result.tools == []
    found = {(p.pointer, p.message.split(" ")[0]) for p in result.errors}
    ops = "/paths/~1getRTMSDataSvcAptTrade/get"
    assert {
        (f"{ops}/parameters/1/in", "'in'"),
        (f"{ops}/parameters/2", "a"),
        (f"{ops}/parameters/3/type", "type"),
        (f"{ops}/responses/200/schema/$ref", "$ref"),
        ("/paths/~1getOther~1{id}/get/operationId", "operationId"),
        ("/paths/~1getOther~1{id}/get", "path"),
        ("/paths/noslash", "path"),
    } <= found
    assert len(result.errors) == 7
    assert result.report().startswith("Import refused: 7 problem(s); nothing was imported.")


def test_it_survives_cyclic_refs():
    spec = rtms_spec()
    spec["definitions"]["AptTrade"]["properties"]["parent"] = {"$ref": "#/definitions/AptTrade"}
    spec["definitions"]["Loop"] = {"$ref": "#/definitions/Loop"}
    spec["paths"]["/getRTMSDataSvcAptTrade"]["get"]["responses"]["400"] = {
        "description": "x",
        "schema": {"$ref": "#/definitions/Loop"},
    }
    result = import_spec(spec)
    assert [p.pointer for p in result.errors] == ["/definitions/Loop/$ref"]
    del spec["definitions"]["Loop"]
    del spec["paths"]["/getRTMSDataSvcAptTrade"]["get"]["responses"]["400"]
    result = import_spec(spec)
    assert result.ok, result.report()
    fields = {f["path"]: f for f in result.tools[0].record_fields}
    assert fields["parent"]["type"] == "object"  # the cycle is cut where it closes
    assert fields["parent"]["description"] == "(recursive: #/definitions/AptTrade)"


def test_it_refuses_unsupported_versions_and_external_refs():
    assert import_spec({"swagger": "1.2", "paths": {}}).problems[0].pointer == "/swagger"
    assert import_spec({"openapi": "4.0.0"}).problems[0].pointer == "/openapi"
    assert import_spec({"info": {}}).problems[0].message.startswith("neither a 'swagger' nor an 'openapi'")
    spec = rtms_spec()
    spec["definitions"]["AptTrade"] = {"$ref": "https://example.org/schemas.json#/AptTrade"}
    (problem,) = import_spec(spec).errors
    assert problem.pointer == "/definitions/AptTrade/$ref"
    assert "external $ref" in problem.message


def test_it_diffs_a_reimport_field_by_field():
    old = import_spec(rtms_spec()).tools
    spec = rtms_spec()
    path = spec["paths"]["/getRTMSDataSvcAptTrade"]
    path["parameters"][1]["type"] = "number"
    spec["definitions"]["AptTrade"]["properties"]["dealingGbn"] = {"type": "string", "description": "거래유형"}
    spec["paths"]["/getRTMSDataSvcAptTradeDev"] = copy.deepcopy(path)
    spec["paths"]["/getRTMSDataSvcAptTradeDev"]["get"]["operationId"] = "getRTMSDataSvcAptTradeDev"
    new = import_spec(spec).tools
    diff = diff_tools(old, new)
    assert [t.key for t in diff.added] == ["GET /getRTMSDataSvcAptTradeDev"]
    assert diff.removed == []
    (change,) = diff.changed
    fields = {c.field: (c.old, c.new) for c in change.changes}
    assert fields["parameters.properties.LAWD_CD.type"] == ("string", "number")
    assert fields["record_fields.dealingGbn"][0] is None
    assert diff.summary() == "1 added, 1 changed, 0 removed, 0 unchanged"
    back = diff_tools(new, old)
    assert [t.key for t in back.removed] == ["GET /getRTMSDataSvcAptTradeDev"]
    assert diff_tools(old, import_spec(rtms_spec()).tools).is_empty


def test_it_round_trips_tools_through_dicts():
    from apis.engine.model import ToolSpec

    tool = import_spec(fixture_bytes("spec_odcloud.yaml").decode()).tools[0]
    assert ToolSpec.from_dict(json.loads(json.dumps(tool.to_dict()))) == tool


@pytest.mark.skipif(not SANDBOX_SPECS, reason="the sandbox has not written its specs yet")
@pytest.mark.parametrize("path", SANDBOX_SPECS, ids=[p.name for p in SANDBOX_SPECS])
def test_it_imports_every_sandbox_spec(path):
    result = import_spec(path)
    assert result.ok, result.report()
    assert result.tools
    service = result.services[0]
    assert service.key_param is not None, f"{path.name}: no key slot found"
    for tool in result.tools:
        assert tool.key_param is not None
        names = {n.lower() for n in tool.parameters["properties"]}
        assert not names & {"servicekey", "confmkey", "apikey"}, f"{tool.operation_id}: key left in parameters"
        assert tool.record_fields or tool.deprecated, f"{tool.operation_id}: no record fields"


def test_it_reads_a_schemaless_body_parameter_as_one_body_field_with_a_warning():
    spec = rtms_spec()
    spec["paths"]["/getRTMSDataSvcAptTrade"]["post"] = {
        "operationId": "postStatus",
        "parameters": [{"name": "b_no", "in": "body", "type": "string", "description": "사업자등록번호 배열"}],
        "responses": {"200": {"description": "ok"}},
    }
    result = import_spec(spec)
    assert result.ok
    (warning,) = [p for p in result.warnings if "body parameter" in p.message]
    assert warning.pointer == "/paths/~1getRTMSDataSvcAptTrade/post/parameters/0"
    post = next(t for t in result.tools if t.method == "POST")
    assert post.param_locations["b_no"] == "body"  # beside the path-level query parameters


def test_it_keeps_required_fields_of_objects_inside_arrays():
    spec = {
        "swagger": "2.0",
        "info": {"title": "진위확인", "version": "1"},
        "host": "api.odcloud.kr",
        "basePath": "/api/nts-businessman/v1",
        "paths": {
            "/validate": {
                "post": {
                    "operationId": "validate",
                    "parameters": [
                        {
                            "name": "body",
                            "in": "body",
                            "required": True,
                            "schema": {
                                "type": "object",
                                "required": ["businesses"],
                                "properties": {
                                    "businesses": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["b_no", "start_dt"],
                                            "properties": {
                                                "b_no": {"type": "string"},
                                                "start_dt": {"type": "string"},
                                                "p_nm": {"type": "string"},
                                            },
                                        },
                                    }
                                },
                            },
                        }
                    ],
                    "responses": {"200": {"description": "OK"}},
                }
            }
        },
    }
    result = import_spec(spec)
    assert result.ok, result.report()
    (tool,) = result.tools
    assert tool.parameters["required"] == ["businesses"]
    assert tool.parameters["properties"]["businesses"]["items"]["required"] == ["b_no", "start_dt"]
