"""The importer as a service: the bundled catalog, re-imports reported as diffs, broken specs refused whole."""

from __future__ import annotations

import copy
import json
import shutil

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from apis.models import ApiCall, ApiService, Provider, Tool
from apis.selectors import catalog_toolset, tool_for_function_call, tool_function_schema
from apis.services import (
    BUNDLED_SPEC_DIR,
    CatalogError,
    SpecImportError,
    catalog_import,
    catalog_import_bundled,
)
from kopa_site.jobs import job_start
from kopa_site.management.commands.bootstrap import STEPS
from kopa_site.models import Job
from tests.support.fixture_server import Canned, FixtureServer

pytestmark = pytest.mark.django_db

BUNDLED = sorted(BUNDLED_SPEC_DIR.glob("*.json"))


def _imports_cleanly(path) -> bool:
    from apis.engine.spec_import import import_spec

    return import_spec(path).ok


# The sandbox's specs are still being written; these tests count only the ones the importer accepts today.
GOOD_BUNDLED = [path for path in BUNDLED if _imports_cleanly(path)]

ITEM = {
    "type": "object",
    "properties": {
        "parkNm": {"type": "string", "description": "주차장명", "example": "세종로 공영주차장"},
        "capacity": {"type": "integer", "description": "주차면수", "example": 120},
    },
}


def parking_spec() -> dict:
    """A small data.go.kr-style Swagger 2.0 spec with two operations."""
    key = {"name": "serviceKey", "in": "query", "required": True, "type": "string", "description": "인증키"}
    fmt = {"name": "_type", "in": "query", "type": "string", "enum": ["xml", "json"], "description": "응답형식"}
    envelope = {
        "type": "object",
        "properties": {
            "response": {
                "type": "object",
                "properties": {
                    "header": {"type": "object", "properties": {"resultCode": {"type": "string"}}},
                    "body": {
                        "type": "object",
                        "properties": {"items": {"type": "object", "properties": {"item": ITEM}}},
                    },
                },
            }
        },
    }
    return {
        "swagger": "2.0",
        "info": {"title": "테스트_주차장 정보", "version": "1.0"},
        "host": "apis.data.go.kr",
        "basePath": "/B552584/ParkingTest",
        "schemes": ["https"],
        "paths": {
            "/getParkingList": {
                "get": {
                    "summary": "주차장 목록 조회",
                    "operationId": "getParkingList",
                    "parameters": [
                        key,
                        fmt,
                        {
                            "name": "sido",
                            "in": "query",
                            "required": True,
                            "type": "string",
                            "description": "시도명",
                            "x-example": "서울특별시",
                        },
                        {
                            "name": "kind",
                            "in": "query",
                            "type": "string",
                            "enum": ["public", "private"],
                            "description": "구분",
                        },
                    ],
                    "responses": {"200": {"description": "성공", "schema": envelope}},
                }
            },
            "/getParkingDetail": {
                "get": {
                    "summary": "주차장 상세 조회",
                    "operationId": "getParkingDetail",
                    "parameters": [key, {"name": "parkId", "in": "query", "required": True, "type": "string"}],
                    "responses": {"200": {"description": "성공", "schema": envelope}},
                }
            },
        },
    }


def broken_spec() -> dict:
    spec = parking_spec()
    operation = spec["paths"]["/getParkingList"]["get"]
    operation["parameters"][2] = {"name": "sido", "type": "string"}  # no "in"
    operation["parameters"][3]["type"] = "strnig"
    operation["responses"]["200"]["schema"] = {"$ref": "#/definitions/Nope"}
    return spec


# --- The bundled catalog ------------------------------------------------------------------------------


@pytest.mark.smoke
def test_it_imports_every_bundled_spec_as_a_service_with_typed_tools():
    report = catalog_import_bundled()

    assert len(GOOD_BUNDLED) > 0
    assert ApiService.objects.count() == len(GOOD_BUNDLED) == len(report.services)
    assert len(report.refused) == len(BUNDLED) - len(GOOD_BUNDLED)
    assert {s.status for s in report.services} == {"created"}
    assert Tool.objects.count() == report.counts()["added"] >= len(BUNDLED)
    tool = Tool.objects.get(function_name="get_rtms_data_svc_apt_trade")
    assert tool.service.provider.name == "국토교통부"
    assert tool.service.family == "datagokr"
    assert tool.parameters["properties"]["LAWD_CD"]["example"] == "11680"
    assert tool.key_slot == {"name": "serviceKey", "location": "query", "prefix": ""}
    assert "serviceKey" not in tool.parameters["properties"]
    fields = {f["path"]: f for f in tool.record_fields}
    assert fields["dealAmount"]["type"] and "example" in fields["dealAmount"]
    assert tool.record_path == "response.body.items.item"


def test_a_second_bundled_import_changes_nothing_and_says_so():
    catalog_import_bundled()
    names = dict(Tool.objects.values_list("pk", "function_name"))

    report = catalog_import_bundled()

    assert {s.status for s in report.services} == {"unchanged"}
    assert report.counts()["unchanged"] == len(names) and report.counts()["added"] == 0
    assert dict(Tool.objects.values_list("pk", "function_name")) == names


def test_a_broken_bundled_spec_is_left_out_whole_and_reported(tmp_path):
    for spec in GOOD_BUNDLED[:2]:
        shutil.copy(spec, tmp_path / spec.name)
    (tmp_path / "Broken.json").write_text(json.dumps(broken_spec()), encoding="utf-8")

    report = catalog_import_bundled(spec_dir=tmp_path)

    (refused,) = report.refused
    assert "Broken.json#/paths/~1getParkingList/get/parameters/2" in refused.report()
    assert report.summary().endswith("; 1 spec(s) refused")
    assert ApiService.objects.count() == 2
    assert not Tool.objects.filter(path__startswith="/getParking").exists()


def test_a_strict_bundled_import_imports_nothing_when_one_spec_is_broken(tmp_path):
    for spec in GOOD_BUNDLED[:2]:
        shutil.copy(spec, tmp_path / spec.name)
    (tmp_path / "Broken.json").write_text(json.dumps(broken_spec()), encoding="utf-8")

    with pytest.raises(SpecImportError, match="Broken.json#/paths/~1getParkingList/get/parameters/3/type"):
        catalog_import_bundled(spec_dir=tmp_path, strict=True)
    assert ApiService.objects.count() == Tool.objects.count() == Provider.objects.count() == 0


# --- One spec, any source -------------------------------------------------------------------------------


def test_it_imports_spec_text_and_reports_required_and_optional_names():
    report = catalog_import(spec=json.dumps(parking_spec(), ensure_ascii=False))

    (service,) = report.to_dict()["services"]
    assert service["status"] == "created" and service["base_url"] == "https://apis.data.go.kr/B552584/ParkingTest"
    tools = {t["function_name"]: t for t in service["tools"]}
    assert tools["get_parking_list"]["required"] == ["sido"]
    assert tools["get_parking_list"]["optional"] == ["kind"]
    assert tools["get_parking_detail"]["status"] == "added"
    listed = Tool.objects.get(function_name="get_parking_list")
    assert listed.json_switch == {"_type": "json"}
    assert listed.parameters["properties"]["kind"]["enum"] == ["public", "private"]
    assert listed.service.provider.name == "한국환경공단"


def test_it_imports_yaml_a_parsed_dict_and_a_url_alike():
    catalog_import(spec=yaml.safe_dump(parking_spec(), allow_unicode=True))
    assert catalog_import(spec=parking_spec()).services[0].status == "unchanged"

    with FixtureServer({"/spec.json": Canned(json.dumps(parking_spec()))}) as server:
        report = catalog_import(url=f"{server.url}/spec.json")
    assert report.services[0].status == "unchanged"
    assert ApiService.objects.get().source.endswith("/spec.json")


def test_a_base_url_override_sets_the_live_url_but_not_the_services_identity():
    catalog_import(spec=parking_spec(), base_url="http://127.0.0.1:9/mirror/ParkingTest/")
    service = ApiService.objects.get()
    assert service.base_url == "http://127.0.0.1:9/mirror/ParkingTest"
    assert service.spec_base_url == "https://apis.data.go.kr/B552584/ParkingTest"

    report = catalog_import(spec=parking_spec())

    assert report.services[0].status == "unchanged"
    assert ApiService.objects.get().base_url == "http://127.0.0.1:9/mirror/ParkingTest"


def test_a_broken_spec_is_refused_with_every_problem_and_its_pointer():
    with pytest.raises(SpecImportError) as caught:
        catalog_import(spec=broken_spec())

    pointers = {p["pointer"] for p in caught.value.problem_dicts()}
    assert pointers == {
        "/paths/~1getParkingList/get/parameters/2",
        "/paths/~1getParkingList/get/parameters/3/type",
        "/paths/~1getParkingList/get/responses/200/schema/$ref",
    }
    assert caught.value.report().startswith("Import refused: 3 problem(s); nothing was imported.")
    assert ApiService.objects.count() == Tool.objects.count() == Provider.objects.count() == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"spec": "{not json"}, "not valid JSON"),
        ({"spec": "[1, 2]"}, "must be an object"),
        ({"spec": parking_spec(), "url": "https://x.example/spec.json"}, "exactly one"),
        ({"url": "ftp://x.example/spec.json"}, "http:// or https://"),
        ({"spec": parking_spec(), "base_url": "not a url"}, "base_url must be"),
    ],
)
def test_unreadable_sources_get_one_clear_error(kwargs, message):
    with pytest.raises(CatalogError, match=message):
        catalog_import(**kwargs)
    assert ApiService.objects.count() == 0


# --- Re-imports -------------------------------------------------------------------------------------


def test_a_reimport_updates_tools_in_place_and_reports_the_diff(apt_trade):
    catalog_import(spec=parking_spec())
    listed = Tool.objects.get(function_name="get_parking_list")
    detail = Tool.objects.get(function_name="get_parking_detail")
    ApiCall.objects.create(tool=detail, mode="sandbox")
    changed = parking_spec()
    changed["paths"]["/getParkingList"]["get"]["parameters"].append(
        {"name": "gugun", "in": "query", "type": "string", "description": "구군"}
    )
    del changed["paths"]["/getParkingDetail"]

    report = catalog_import(spec=changed)

    (service,) = report.services
    by_name = {t.tool.function_name: t for t in service.tools}
    assert by_name["get_parking_list"].status == "changed"
    assert {"field": "parameters.properties.gugun", "old": None, "new": {"type": "string", "description": "구군"}} in (
        by_name["get_parking_list"].changes
    )
    assert by_name["get_parking_detail"].status == "removed"
    assert Tool.objects.get(pk=listed.pk).optional_params == ["kind", "gugun"]
    detail.refresh_from_db()
    assert detail.is_active is False and detail.calls.count() == 1

    assert catalog_import(spec=parking_spec()).services[0].tools[-1].status in ("reactivated", "changed")
    assert Tool.objects.get(pk=detail.pk).is_active


def test_a_clashing_operation_id_gets_a_new_name_and_the_old_tool_keeps_its_own():
    catalog_import(spec=parking_spec())
    other = copy.deepcopy(parking_spec())
    other["basePath"] = "/B552584/ParkingOther"

    catalog_import(spec=other)

    names = set(Tool.objects.values_list("function_name", flat=True))
    assert {"get_parking_list", "get_parking_detail"} <= names
    assert len(names) == 4
    assert all(len(name) <= 64 for name in names)


# --- Function schemas -------------------------------------------------------------------------------


def test_every_tool_exports_as_a_function_and_maps_back_to_itself(catalog):
    tools = list(Tool.objects.select_related("service__provider"))
    toolset, rows = catalog_toolset(tools)

    assert len({s["function"]["name"] for s in toolset.schemas}) == len(tools)
    for tool in tools:
        schema = tool_function_schema(tool)
        function = schema["function"]
        assert schema["type"] == "function" and function["name"] == tool.function_name
        assert function["parameters"]["required"] == tool.required_params
        assert tool.name_ko in function["description"]
        example_args = {name: prop.get("example", "x") for name, prop in tool.parameters["properties"].items()}
        back, params = tool_for_function_call(function["name"], json.dumps(example_args), toolset=toolset, rows=rows)
        assert back == tool and params == example_args


def test_a_parameter_name_a_model_cannot_use_is_aliased_and_mapped_back():
    spec = parking_spec()
    spec["paths"]["/getParkingList"]["get"]["parameters"].append(
        {"name": "cond[sido::EQ]", "in": "query", "type": "string", "description": "시도 조건"}
    )
    catalog_import(spec=spec)
    tool = Tool.objects.select_related("service__provider").get(function_name="get_parking_list")
    toolset, rows = catalog_toolset([tool])
    (alias,) = [name for name in tool_function_schema(tool)["function"]["parameters"]["properties"] if "cond" in name]
    assert alias != "cond[sido::EQ]"

    _, params = tool_for_function_call("get_parking_list", {alias: "서울", "sido": "서울"}, toolset=toolset, rows=rows)

    assert params == {"cond[sido::EQ]": "서울", "sido": "서울"}


# --- Commands and jobs ------------------------------------------------------------------------------


def test_the_command_imports_the_bundled_catalog_a_file_and_refuses_a_broken_one(tmp_path, capsys):
    call_command("catalog_import", "--bundled")
    assert ApiService.objects.count() == len(GOOD_BUNDLED)

    good, bad = tmp_path / "parking.yaml", tmp_path / "broken.json"
    good.write_text(yaml.safe_dump(parking_spec(), allow_unicode=True), encoding="utf-8")
    bad.write_text(json.dumps(broken_spec()), encoding="utf-8")
    call_command("catalog_import", "--file", str(good))
    assert "get_parking_list" in capsys.readouterr().out

    with pytest.raises(CommandError, match=r"broken.json#/paths/~1getParkingList/get/parameters/3/type"):
        call_command("catalog_import", "--file", str(bad))
    with pytest.raises(CommandError, match="--base-url applies to one spec"):
        call_command("catalog_import", "--bundled", "--base-url", "https://x.example")


def test_bootstrap_loads_the_bundled_catalog():
    assert ("catalog_import", ["--bundled"]) in STEPS


def test_the_import_job_imports_and_reports(reviewer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = job_start(kind="catalog.import_bundled", user=reviewer)

    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["counts"]["added"] == Tool.objects.count()
    assert len(job.result["services"]) == len(GOOD_BUNDLED)
    assert any("created" in line["msg"] for line in job.log)


def test_services_that_share_a_base_url_stay_apart_across_reimports():
    coords = parking_spec()
    coords["info"]["title"] = "테스트_좌표 정보"
    coords["paths"] = {"/getCoords": coords["paths"].pop("/getParkingDetail")}
    coords["paths"]["/getCoords"]["get"]["operationId"] = "getCoords"
    catalog_import(spec=parking_spec())
    catalog_import(spec=coords)

    again = [catalog_import(spec=parking_spec()), catalog_import(spec=coords)]

    assert [r.services[0].status for r in again] == ["unchanged", "unchanged"]
    assert ApiService.objects.filter(spec_base_url="https://apis.data.go.kr/B552584/ParkingTest").count() == 2
    assert Tool.objects.filter(is_active=True).count() == 3

    renamed = copy.deepcopy(coords)
    renamed["info"]["title"] = "테스트_좌표 정보 v2"
    report = catalog_import(spec=renamed)
    assert report.services[0].status == "changed" and report.services[0].changes == ["title"]
    assert ApiService.objects.count() == 2
