"""The committed Swagger 2.0 files match the registry and follow data.go.kr's layout."""

from __future__ import annotations

import json
import re

import pytest

from apis.engine.spec_import import import_spec
from apis.sandbox.registry import load_families
from apis.sandbox.swagger import SPEC_DIR, build_spec, operation_id, stale_specs

SERVICES = sorted((s for s in load_families().services.values() if not s.retired), key=lambda s: s.id)


def test_the_committed_specs_are_up_to_date():
    assert stale_specs() == [], "run: .venv/bin/python manage.py sandbox_specs"


@pytest.mark.parametrize("svc", SERVICES, ids=lambda s: s.id)
def test_each_spec_has_path_level_parameters_and_the_record(svc):
    spec = json.loads((SPEC_DIR / svc.spec_file).read_text(encoding="utf-8"))
    assert spec["swagger"] == "2.0" and spec["host"] == svc.host and spec["basePath"] == (svc.base_path or "/")
    for op in svc.operations:
        path_item = spec["paths"][op.path or "/"] if not op.match_query else next(iter(spec["paths"].values()))
        names = [p["name"] for p in path_item["parameters"]]
        bodies = [p for p in path_item["parameters"] if p["in"] == "body"]
        assert len(bodies) <= 1, "Swagger 2.0 allows one body parameter"
        names += [name for body in bodies for name in body["schema"]["properties"]]
        assert {p.name for p in op.params} <= set(names)
        assert all(p["description"] for p in path_item["parameters"])
        text = json.dumps(path_item[op.method.lower()]["responses"]["200"]["schema"], ensure_ascii=False)
        assert all(f'"{f.name}"' in text for f in op.fields)


def test_gateway_specs_carry_the_service_key_parameter():
    spec = json.loads((SPEC_DIR / "RTMSDataSvcAptTrade.json").read_text(encoding="utf-8"))
    params = spec["paths"]["/getRTMSDataSvcAptTrade"]["parameters"]
    assert params[0]["name"] == "serviceKey" and params[0]["required"] is True
    item = spec["paths"]["/getRTMSDataSvcAptTrade"]["get"]["responses"]["200"]["schema"]["properties"]["response"]
    record = item["properties"]["body"]["properties"]["items"]["properties"]["item"]["properties"]
    assert record["dealAmount"]["description"] == "거래금액 (만원)"


def _spec_operations(svc):
    spec = build_spec(svc)
    for path, item in spec["paths"].items():
        for method in ("get", "post"):
            if method in item:
                yield path, item, item[method]


@pytest.mark.parametrize("svc", SERVICES, ids=lambda s: s.id)
def test_each_operation_id_is_the_live_operation_name_not_a_path_parameter(svc):
    ids = [operation for _, _, operation in _spec_operations(svc)]
    for operation in ids:
        assert re.fullmatch(r"[A-Za-z][\w.]*", operation["operationId"]), operation["operationId"]
        assert not operation["operationId"].endswith(".do")
    assert len({o["operationId"] for o in ids}) == len(ids)


def test_seoul_operations_are_named_after_their_live_service():
    ops = load_families().operations
    assert operation_id(ops["seoul_subway_station_master"]) == "subwayStationMaster"
    assert operation_id(ops["seoul_subway_arrival"]) == "realtimeStationArrival"
    assert operation_id(ops["juso_addrlink"]) == "addrLinkApi"
    assert operation_id(ops["hira_dtl_info"]) == "getDtlInfo2.7"


@pytest.mark.parametrize("svc", SERVICES, ids=lambda s: s.id)
def test_a_json_body_is_one_body_parameter_with_an_object_schema(svc):
    for _, item, operation in _spec_operations(svc):
        bodies = [p for p in item["parameters"] if p["in"] == "body"]
        if "consumes" not in operation:
            assert not bodies
            continue
        (body,) = bodies
        assert body["schema"]["type"] == "object" and body["schema"]["properties"]
        assert "type" not in body  # a body parameter carries a schema, never a simple type
        assert set(body["schema"].get("required", [])) <= set(body["schema"]["properties"])


def test_nts_status_body_declares_b_no_as_a_required_array_of_strings():
    spec = json.loads((SPEC_DIR / "nts-businessman.json").read_text(encoding="utf-8"))
    (body,) = [p for p in spec["paths"]["/status"]["parameters"] if p["in"] == "body"]
    assert body["required"] is True and body["schema"]["required"] == ["b_no"]
    b_no = body["schema"]["properties"]["b_no"]
    assert b_no["type"] == "array" and b_no["items"]["type"] == "string" and b_no["maxItems"] == 100
    assert body["schema"]["example"] == {"b_no": ["2208162517", "1234567890"]}


def test_the_importer_turns_the_nts_bodies_into_required_array_parameters():
    result = import_spec(SPEC_DIR / "nts-businessman.json")
    assert result.ok and not result.warnings, result.report()
    tools = {t.operation_id: t for t in result.tools}
    status, validate = tools["status"], tools["validate"]
    assert status.parameters["required"] == ["b_no"] and status.param_locations["b_no"] == "body"
    assert status.parameters["properties"]["b_no"]["type"] == "array"
    assert status.parameters["properties"]["b_no"]["items"]["type"] == "string"
    assert validate.parameters["required"] == ["businesses"] and validate.param_locations["businesses"] == "body"
    entry = validate.parameters["properties"]["businesses"]["items"]
    assert entry["type"] == "object" and {"b_no", "start_dt", "p_nm"} <= set(entry["properties"])
