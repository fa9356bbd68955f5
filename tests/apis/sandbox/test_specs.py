"""The committed Swagger 2.0 files match the registry and follow data.go.kr's layout."""

from __future__ import annotations

import json

import pytest

from apis.sandbox.registry import load_families
from apis.sandbox.swagger import SPEC_DIR, stale_specs

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
