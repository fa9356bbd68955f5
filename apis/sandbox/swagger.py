"""Swagger 2.0 documents in data.go.kr's own style, generated from the registry (one per service)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from apis.sandbox.registry import Operation, Param, ServiceDef, load_families

SPEC_DIR = Path(__file__).resolve().parent / "specs"


def _parameter(param: Param, op: Operation) -> dict[str, Any]:
    # The operation's example request wins over a parameter list shared by several operations (KMA's
    # base_time is 1400 for 초단기실황 but 1330 for 초단기예보), so every spec example is one that answers.
    example = op.example.get(param.name, param.example)
    spec: dict[str, Any] = {
        "name": param.name,
        "in": param.location,
        "description": param.description,
        "required": param.required,
        "type": param.type,
    }
    if example not in (None, ""):
        spec["x-example"] = example
    if param.enum:
        spec["enum"] = list(param.enum)
    if param.default is not None:
        spec["default"] = param.default
    return spec


def _body_parameter(op: Operation, params: list[Param]) -> dict[str, Any]:
    """Swagger 2.0 allows one body parameter: the JSON object whose properties are the operation's body params."""
    properties: dict[str, Any] = {}
    for param in params:
        prop: dict[str, Any] = {"description": param.description, **(param.schema or {"type": param.type})}
        if param.schema is None and param.example not in (None, ""):
            prop["example"] = param.example
        properties[param.name] = prop
    required = [p.name for p in params if p.required]
    schema: dict[str, Any] = {
        "type": "object",
        **({"required": required} if required else {}),
        "properties": properties,
    }
    if op.example_body is not None:
        schema["example"] = op.example_body
    return {
        "name": "body",
        "in": "body",
        "description": "요청 본문 (JSON)",
        "required": bool(required),
        "schema": schema,
    }


def operation_id(op: Operation) -> str:
    """The live operation name: the last literal path segment (never a {param}), without a servlet's .do."""
    literal = [segment for segment in op.path.split("/") if segment and not segment.startswith("{")]
    return re.sub(r"\.do$", "", literal[-1]) if literal else op.id


def _path_item(op: Operation) -> dict[str, Any]:
    envelope = op.service.envelope
    description = op.summary_ko + (f"\n\n{op.notes}" if op.notes else "")
    operation = {
        "tags": [op.service.title_ko],
        "summary": op.summary_ko,
        "description": description,
        "operationId": operation_id(op),
        "x-sandbox-id": op.id,
        "produces": envelope.spec_produces(op),
        "responses": {"200": {"description": "성공", "schema": envelope.spec_response_schema(op)}},
    }
    if op.example_body is not None:
        operation["consumes"] = ["application/json"]
    params = op.all_params()
    body = [p for p in params if p.location == "body"]
    parameters = [_parameter(p, op) for p in params if p.location != "body"]
    if body:
        parameters.append(_body_parameter(op, body))
    # data.go.kr puts parameters at the path level, not under the operation.
    return {"parameters": parameters, op.method.lower(): operation}


def build_spec(svc: ServiceDef) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for op in svc.operations:
        path = op.path or "/"
        if op.match_query:
            path += "?" + "&".join(f"{k}={v}" for k, v in op.match_query.items())
        paths[path] = _path_item(op)
    return {
        "swagger": "2.0",
        "info": {
            "title": svc.title_ko,
            "description": svc.description_ko or svc.title_ko,
            "version": "1.0",
            "x-provider": svc.provider_ko,
            "x-provider-en": svc.provider_en,
        },
        "host": svc.host,
        "basePath": svc.base_path or "/",
        "schemes": list(svc.schemes),
        "paths": paths,
    }


def render(spec: dict[str, Any]) -> str:
    return json.dumps(spec, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def expected_files() -> dict[str, str]:
    """spec file name -> its text, for every service still in operation (retired ones publish none)."""
    registry = load_families()
    return {svc.spec_file: render(build_spec(svc)) for svc in registry.services.values() if not svc.retired}


def write_specs(directory: Path = SPEC_DIR) -> list[str]:
    """Write every spec; remove files of services that no longer exist. Returns the names written."""
    directory.mkdir(parents=True, exist_ok=True)
    files = expected_files()
    for stale in directory.glob("*.json"):
        if stale.name not in files:
            stale.unlink()
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return sorted(files)


def stale_specs(directory: Path = SPEC_DIR) -> list[str]:
    """Names of spec files that are missing, different or left over."""
    files = expected_files()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in directory.glob("*.json")}
    wrong = [name for name, text in files.items() if on_disk.get(name) != text]
    return sorted(wrong + [name for name in on_disk if name not in files])
