"""The JSON index served at GET /sandbox/: every emulated operation with a request that succeeds."""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

from apis.sandbox.config import DEMO_KEY
from apis.sandbox.registry import Operation, load_families

SANDBOX_PREFIX = "/sandbox"


def sandbox_path(op: Operation, path_params: dict[str, str] | None = None) -> str:
    path = op.full_path
    for name, value in (path_params or {}).items():
        path = path.replace("{" + name + "}", quote(value, safe="")).replace("{" + name + "?}", quote(value, safe=""))
    return f"{SANDBOX_PREFIX}/{op.service.host}{path}"


def example_request(op: Operation, base_url: str = "", key: str = DEMO_KEY) -> dict:
    """method, url (query string with the demo key) and body of a request that succeeds."""
    key_names = op.service.auth.key_params
    path_params = {p.name: op.example.get(p.name, "") for p in op.all_params() if p.location == "path"}
    for name in key_names:  # a key carried in the path (Seoul Open Data)
        if any(p.name == name and p.location == "path" for p in op.all_params()):
            path_params[name] = key
    query = dict(op.match_query)
    if key_names and not any(p.location == "path" and p.name in key_names for p in op.all_params()):
        query[key_names[0]] = key
    query.update({k: v for k, v in op.example.items() if k not in path_params})
    url = base_url.rstrip("/") + sandbox_path(op, path_params)
    if query:
        url += "?" + urlencode(query, quote_via=quote)
    example = {"method": op.method, "url": url}
    if op.example_body is not None:
        example["body"] = op.example_body
    return example


def index(base_url: str = "") -> dict:
    registry = load_families()
    base = base_url.rstrip("/")
    operations = []
    for op in sorted(registry.live_operations(), key=lambda o: o.id):
        svc = op.service
        operations.append(
            {
                "id": op.id,
                "provider": svc.provider_ko,
                "provider_en": svc.provider_en,
                "service": svc.id,
                "title": op.summary_ko,
                "method": op.method,
                "live_url": op.live_url,
                "sandbox_url": base + sandbox_path(op),
                "spec_url": f"{base}{SANDBOX_PREFIX}/specs/{svc.spec_file}",
                "example": example_request(op, base),
            }
        )
    retired = sorted(
        {
            f"{op.service.schemes[0]}://{op.service.host}{op.full_path}"
            for op in registry.operations.values()
            if op.service.retired
        }
    )
    return {
        "operations": operations,
        "count": len(operations),
        "providers": sorted({op["provider"] for op in operations}),
        "retired": retired,
        "demo_key": DEMO_KEY,
        "docs": "docs/sandbox.md",
    }


def index_json(base_url: str = "") -> bytes:
    return json.dumps(index(base_url), ensure_ascii=False, indent=1).encode("utf-8")
