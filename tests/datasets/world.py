"""A small, deterministic fake API world for the walk, synthesis, phrasing, filter and export engine tests.

Tools: a 법정동 list (paged), population by 법정동 code, apartment trades by 시군구 code (paged, 23 records), the
building register by 단지 id, and a tool that always fails. Edges: dong.code -> population.code, dong.code ->
trades.lawd [slice:0:5], trades.aptSeq -> building.aptSeq, dong.code -> broken.code.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from datasets.engine.phrasing import tool_meta
from graphs.engine.graph import build_graph

PAGING = {
    "pageNo": {"type": "integer", "description": "페이지번호", "example": "1"},
    "numOfRows": {"type": "integer", "description": "한 페이지 결과 수", "example": "10"},
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "dong_list": {
        "label": "법정동 목록 조회",
        "parameters": {
            "type": "object",
            "properties": {"sido": {"type": "string", "description": "시도명", "example": "서울특별시"}, **PAGING},
            "required": ["sido"],
        },
        "fields": [
            {"path": "code", "type": "string", "description": "법정동코드", "example": "1111010100"},
            {"path": "dongName", "type": "string", "description": "법정동명", "example": "청운동"},
            {"path": "rank", "type": "integer", "description": "순위", "example": "1"},
            {"path": "kind", "type": "string", "description": "구분", "example": "동"},
        ],
    },
    "population": {
        "label": "인구 현황 조회",
        "parameters": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "법정동코드 (10자리)"},
                "ym": {"type": "string", "description": "조회년월 (YYYYMM)", "example": "202610"},
                "sido": {"type": "string", "description": "시도명"},
            },
            "required": ["code", "ym", "sido"],
        },
        "fields": [
            {"path": "ym", "type": "string", "description": "통계년월", "example": "202610"},
            {"path": "code", "type": "string", "description": "법정동코드"},
            {"path": "total", "type": "integer", "description": "총인구수", "example": "1234"},
            {"path": "households", "type": "integer", "description": "세대수", "example": "600"},
        ],
    },
    "trades": {
        "label": "아파트 거래 조회",
        "parameters": {
            "type": "object",
            "properties": {
                "lawd": {"type": "string", "description": "시군구코드 (5자리)"},
                "ym": {"type": "string", "description": "계약년월 (YYYYMM)", "example": "202610"},
                **PAGING,
            },
            "required": ["lawd", "ym"],
        },
        "fields": [
            {"path": "aptNm", "type": "string", "description": "단지명", "example": "청운아파트"},
            {"path": "amount", "type": "string", "description": "거래금액 (만원)", "example": "120,000"},
            {"path": "floor", "type": "integer", "description": "층", "example": "3"},
            {"path": "dealDate", "type": "string", "description": "계약일자", "example": "2026-10-03"},
            {"path": "dealType", "type": "string", "description": "거래유형", "example": "중개거래"},
            {"path": "aptSeq", "type": "string", "description": "단지 일련번호", "example": "11110-1"},
        ],
    },
    "building": {
        "label": "건축물대장 조회",
        "parameters": {
            "type": "object",
            "properties": {"aptSeq": {"type": "string", "description": "단지 일련번호"}},
            "required": ["aptSeq"],
        },
        "fields": [
            {"path": "bldNm", "type": "string", "description": "건물명", "example": "청운아파트"},
            {"path": "floors", "type": "integer", "description": "지상층수", "example": "15"},
            {"path": "households", "type": "integer", "description": "세대수", "example": "300"},
        ],
    },
    "broken": {
        "label": "고장난 조회",
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "법정동코드"}},
            "required": ["code"],
        },
        "fields": [{"path": "value", "type": "string", "description": "값"}],
    },
}

IDS = {name: index for index, name in enumerate(SCHEMAS, start=1)}
NAMES = {index: name for name, index in IDS.items()}

DONGS = [
    {"code": f"11110{101 + i:03d}00", "dongName": name, "rank": i + 1, "kind": "동" if i % 3 else "리"}
    for i, name in enumerate(
        [
            "청운동",
            "신교동",
            "궁정동",
            "효자동",
            "창성동",
            "통의동",
            "적선동",
            "통인동",
            "누상동",
            "누하동",
            "옥인동",
            "체부동",
        ]
    )
]
TRADES = [
    {
        "aptNm": f"단지{i:02d}",
        "amount": f"{100_000 + (i * 7919) % 90_000:,}",
        "floor": 1 + i % 20,
        "dealDate": f"2026-10-{1 + i % 28:02d}",
        "dealType": "직거래" if i % 4 == 0 else "중개거래",
        "aptSeq": f"11110-{i}",
    }
    for i in range(23)
]

EDGES = [
    ("dong_list", "code", "population", "code", "identity", 101),
    ("dong_list", "code", "trades", "lawd", "slice:0:5", 102),
    ("trades", "aptSeq", "building", "aptSeq", "identity", 103),
    ("dong_list", "code", "broken", "code", "identity", 104),
]


def tools(entries: dict[str, list[dict]] | None = None) -> dict:
    entries = entries or {}
    return {
        IDS[name]: tool_meta(
            id=IDS[name],
            name=name,
            label=spec["label"],
            provider="fake.example" if name != "building" else "other.example",
            parameters=spec["parameters"],
            record_fields=spec["fields"],
            entries=entries.get(name, ()),
        )
        for name, spec in SCHEMAS.items()
    }


def graph(edges=EDGES):
    nodes = [{"id": IDS[name], "name": name} for name in SCHEMAS]
    rows = [
        {"source": IDS[a], "target": IDS[b], "field": f, "param": p, "transform": t, "edge_id": e, "mean": 0.9}
        for a, f, b, p, t, e in edges
    ]
    return build_graph(nodes, rows)


def _page(records: list[dict], args: dict) -> SimpleNamespace:
    number = int(args.get("pageNo", 1))
    size = int(args.get("numOfRows", 10))
    chunk = records[(number - 1) * size : number * size]
    return result(
        chunk,
        total=len(records),
        page={"page_no": number, "num_of_rows": size, "has_more": number * size < len(records)},
    )


def result(records, *, ok=True, total=None, page=None, error_class=None, msg="OK") -> SimpleNamespace:
    return SimpleNamespace(
        ok=ok,
        records=list(records),
        total_count=len(records) if total is None else total,
        page=page or {},
        error_class=error_class,
        result_msg=msg,
        http_status=200,
        result_code="00" if ok else "10",
        latency_ms=1.0,
    )


class FakeApi:
    """An async `execute(tool, args)` over the fake world that records every call it gets."""

    def __init__(self):
        self.calls: list[tuple[str, dict]] = []

    async def __call__(self, tool, args: dict):
        self.calls.append((tool.name, dict(args)))
        name = tool.name
        if name == "dong_list":
            return _page(DONGS if args.get("sido") == "서울특별시" else [], args)
        if name == "population":
            dong = next((d for d in DONGS if d["code"] == args["code"]), None)
            if dong is None:
                return result([])
            rank = dong["rank"]
            return result(
                [{"ym": args["ym"], "code": dong["code"], "total": 1000 + 37 * rank, "households": 500 + 11 * rank}]
            )
        if name == "trades":
            return _page(TRADES if args["lawd"] == "11110" else [], args)
        if name == "building":
            index = int(str(args["aptSeq"]).split("-")[1])
            return result([{"bldNm": f"단지{index:02d}", "floors": 5 + index, "households": 100 + 10 * index}])
        if name == "broken":
            return result([], ok=False, error_class="struct.invalid_param", msg="INVALID_REQUEST_PARAMETER_ERROR")
        raise AssertionError(f"unknown tool {name}")
