"""Holiday trajectories synthesized against the sandbox, in the export's OpenAI JSONL shape.

For the tests and the CPU research check only (labelled as synthesized): two templates over the sandbox's
공휴일 API (get_rest_de_info), every call really executed so its records are the sandbox's.

- count: "2026년 5월 공휴일은 몇 개야?" -> get_rest_de_info(solYear, solMonth) -> "정답: 4개"
- first: "2026년 5월 첫 공휴일 이름은?" -> the same call -> "정답: 노동절"
- none: "2026년 5월 다음 달은 몇 월이야?" -> no call (the system prompt says to answer directly when no tool is
  needed) -> "정답: 6월"

`write_holiday_export(path, sandbox_url, months)` writes one line per (template, year, month).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.engine.runner import DEFAULT_SYSTEM_PROMPT
from training.engine.data import Example
from training.engine.environment import ToolExecutor

CLOCK = "2026-11-18T14:20:00+09:00"
TOOL = "get_rest_de_info"
TEMPLATES = ("count", "first", "none")


def holiday_schema(*, brief: bool = False) -> dict[str, Any]:
    """The catalog's schema of the tool; `brief` keeps only the title and the parameters' first words, so a tiny
    model's prompt stays short (the sandbox executes against the catalog either way)."""
    from benchmarks.engine.cli import sandbox_catalog

    schema = next(s for s in sandbox_catalog().schemas if s["function"]["name"] == TOOL)
    if not brief:
        return schema
    function = schema["function"]
    properties = {
        name: {"type": spec.get("type", "string"), "description": str(spec.get("description", "")).split(" (")[0]}
        for name, spec in function["parameters"]["properties"].items()
        if name in ("solYear", "solMonth")
    }
    parameters = {"type": "object", "properties": properties, "required": function["parameters"].get("required", [])}
    return {"type": "function", "function": {"name": TOOL, "description": "공휴일 정보조회", "parameters": parameters}}


def _line(template: str, year: int, month: int, schema: dict[str, Any], observation: str, records: list) -> dict:
    args = {"solYear": str(year), "solMonth": f"{month:02d}"}
    system = {"role": "system", "content": DEFAULT_SYSTEM_PROMPT.replace("{now}", "2026-11-18 14:20")}
    if template == "none":
        following = month % 12 + 1
        return {
            "id": f"none-{year}-{month:02d}",
            "template_id": template,
            "messages": [
                system,
                {"role": "user", "content": f"{year}년 {month}월 다음 달은 몇 월이야?"},
                {"role": "assistant", "content": f"{month}월 다음 달은 {following}월입니다.\n정답: {following}월"},
            ],
            "tools": [schema],
        }
    if template == "count":
        request, short = f"{year}년 {month}월 공휴일은 몇 개야?", f"{len(records)}개"
        answer = f"{year}년 {month}월 공휴일은 {len(records)}개입니다.\n정답: {short}"
    else:
        name = records[0]["dateName"] if records else "없음"
        request, short = f"{year}년 {month}월 첫 공휴일 이름은?", name
        answer = f"{year}년 {month}월의 첫 공휴일은 {name}입니다.\n정답: {short}"
    return {
        "id": f"{template}-{year}-{month:02d}",
        "template_id": template,
        "messages": [
            system,
            {"role": "user", "content": request},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_0",
                        "type": "function",
                        "function": {"name": TOOL, "arguments": json.dumps(args, ensure_ascii=False)},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_0", "name": TOOL, "content": observation},
            {"role": "assistant", "content": answer},
        ],
        "tools": [schema],
    }


def holiday_lines(
    sandbox_url: str, months: Iterable[tuple[int, int]], templates=TEMPLATES, brief: bool = False
) -> list[dict[str, Any]]:
    schema = holiday_schema(brief=brief)
    executor = ToolExecutor("sandbox", sandbox_url=sandbox_url)
    probe = Example(id="probe", prompt=[], tools=[schema], messages=[], gold={}, clock=CLOCK, tool_names=[TOOL])
    lines = []
    try:
        for year, month in months:
            if set(templates) <= {"none"}:
                lines += [_line("none", year, month, schema, "", [])]
                continue
            result = executor.execute(probe, TOOL, {"solYear": str(year), "solMonth": f"{month:02d}"})
            if not result.ok:
                raise RuntimeError(f"the sandbox refused {TOOL} {year}-{month}: {result.content[:200]}")
            lines += [_line(t, year, month, schema, result.content, result.records) for t in templates]
    finally:
        executor.close()
    return lines


def write_holiday_export(path: str | Path, sandbox_url: str, months: Iterable[tuple[int, int]], **options) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for line in holiday_lines(sandbox_url, months, **options):
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path
