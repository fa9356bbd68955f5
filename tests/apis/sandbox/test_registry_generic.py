"""Checks every registered operation gets for free: its example works in each format, paging past the end
is empty, key and parameter errors come in the right form, and answers are deterministic."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from apis.engine.normalize import normalize
from apis.sandbox.auth import DataGoKrGateway
from apis.sandbox.config import DEMO_KEY, DEMO_KEY_LEGACY
from apis.sandbox.registry import Operation, load_families

from .conftest import call, parse

OPERATIONS = sorted(load_families().live_operations(), key=lambda op: op.id)


def _target(op: Operation, params: dict[str, str]) -> tuple[str, dict[str, str]]:
    """host/path with path parameters filled in, and the remaining query parameters."""
    path = op.full_path
    query = dict(op.match_query)
    for name, value in params.items():
        if "{" + name + "}" in path or "{" + name + "?}" in path:
            path = path.replace("{" + name + "}", quote(value, safe="")).replace(
                "{" + name + "?}", quote(value, safe="")
            )
        else:
            query[name] = value
    return f"{op.service.host}{path}", query


def _uses_gateway(op: Operation) -> bool:
    return isinstance(op.service.auth, DataGoKrGateway)


def _get(op: Operation, params: dict[str, str], **kwargs):
    host_path, query = _target(op, params)
    if not _uses_gateway(op):
        kwargs.setdefault("service_key", None)  # other portals carry their key elsewhere (set in params)
    if op.example_body is not None and "body" not in kwargs:
        kwargs["body"] = json.dumps(op.example_body).encode("utf-8")
    return call(host_path, query, method=op.method, **kwargs)


def _example(op: Operation, example: dict[str, str] | None = None) -> dict[str, str]:
    params = dict(op.example if example is None else example)
    key_params = op.service.auth.key_params
    if not _uses_gateway(op) and key_params and not any(name in params for name in key_params):
        params[key_params[0]] = DEMO_KEY
    return params


def _format_switch(op: Operation) -> tuple[str, str, str] | None:
    """(param, xml value, json value) when the envelope has a JSON switch."""
    for param in op.service.envelope.spec_params(op):
        values = [v for v in param.enum if v.lower() == "json"]
        if values:
            return param.name, next((v for v in param.enum if v.lower() == "xml"), "xml"), values[0]
    return None


def _has_record(op: Operation, body: bytes) -> bool:
    text = body.decode("utf-8", "replace")
    first = op.fields[0].name
    return f"<{first}>" in text or f'"{first}"' in text


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.id)
def test_it_answers_the_example_with_records(op):
    response = _get(op, _example(op))
    assert response.status == 200, response.text()[:300]
    assert "OpenAPI_ServiceResponse" not in response.text()
    parse(response)
    assert _has_record(op, response.body), f"{op.id}: example returned no records: {response.text()[:300]}"
    success = getattr(op.service.envelope, "success_code", None)
    if success:
        assert success in response.text()


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.id)
def test_it_answers_in_xml_and_json_where_the_api_has_a_switch(op):
    switch = _format_switch(op)
    if switch is None:
        pytest.skip("XML only, like the live API")
    name, xml_value, json_value = switch
    as_xml = _get(op, {**_example(op), name: xml_value})
    as_json = _get(op, {**_example(op), name: json_value})
    assert as_xml.text().lstrip().startswith("<")
    assert as_json.text().lstrip().startswith(("{", "["))
    assert _has_record(op, as_xml.body) and _has_record(op, as_json.body)


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.id)
def test_it_gives_the_same_bytes_for_the_same_request(op):
    first, second = _get(op, _example(op)), _get(op, _example(op))
    assert first.body == second.body
    assert first.headers == second.headers


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.id)
def test_it_returns_no_records_past_the_last_page(op):
    names = {p.name for p in op.all_params()}
    if "pageNo" not in names:
        pytest.skip("this family pages differently; covered by its own tests")
    response = _get(op, {**_example(op), "pageNo": "99999", "numOfRows": "10"})
    assert response.status == 200
    assert not _has_record(op, response.body)


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.id)
def test_it_answers_a_missing_key_like_the_portal(op):
    params = {k: v for k, v in _example(op).items() if k not in op.service.auth.key_params}
    response = _get(op, params, service_key=None)
    assert not _has_record(op, response.body)
    if _uses_gateway(op):
        assert "OpenAPI_ServiceResponse" in response.text() or "cmmMsgHeader" in response.text()
        assert (
            "30" in parse(response).get("OpenAPI_ServiceResponse", parse(response))["cmmMsgHeader"]["returnReasonCode"]
        )


@pytest.mark.parametrize("op", [op for op in OPERATIONS if _uses_gateway(op)], ids=lambda op: op.id)
def test_it_answers_30_to_a_double_encoded_key(op):
    host_path, query = _target(op, _example(op))
    encoded_once = quote(DEMO_KEY_LEGACY, safe="")
    raw = f"serviceKey={quote(encoded_once, safe='')}&" + "&".join(f"{k}={quote(v, safe='')}" for k, v in query.items())
    response = call(host_path, raw_query=raw, method=op.method)
    body = parse(response)
    assert body.get("OpenAPI_ServiceResponse", body)["cmmMsgHeader"]["returnReasonCode"] == "30"


@pytest.mark.parametrize(
    ("op", "param"),
    [
        (op, p.name)
        for op in OPERATIONS
        for p in op.params
        if p.required and p.location == "query" and p.name not in op.service.auth.key_params
    ],
    ids=lambda value: value if isinstance(value, str) else value.id,
)
def test_it_reports_a_missing_required_parameter_with_the_apis_code(op, param):
    params = {k: v for k, v in _example(op).items() if k != param}
    response = _get(op, params)
    assert not _has_record(op, response.body)
    assert op.missing_param_code in response.text()


def _record_keys(op: Operation, example: dict[str, str]) -> set[str]:
    """Top-level keys of the records a request returns, read as a client reads them (JSON where there is a
    switch); nested values count once, under their own key (validate's request_param)."""
    params = _example(op, example)
    switch = _format_switch(op)
    if switch is not None:
        params[switch[0]] = switch[2]
    response = _get(op, params)
    result = normalize(response.body, http_status=response.status, expect_records=True)
    assert result.ok, f"{op.id} {example}: {result.error_class} {response.text()[:300]}"
    return {key.split(".")[0] for record in result.records for key in record}


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.id)
def test_it_returns_exactly_the_fields_it_declares(op):
    """The spec's record schema is the truth an importer builds tools from: a field the records carry but the
    spec does not list is invisible to it, and a listed field that never comes back is a broken promise."""
    declared = [f.name for f in op.fields]
    assert len(set(declared)) == len(declared), f"{op.id} declares a field twice"
    returned: set[str] = set()
    for example in (op.example, *op.more_examples):
        returned |= _record_keys(op, example)
    undeclared, missing = sorted(returned - set(declared)), sorted(set(declared) - returned)
    assert not undeclared and not missing, (
        f"{op.id}: returned but not declared {undeclared}; declared but never returned {missing}"
    )
