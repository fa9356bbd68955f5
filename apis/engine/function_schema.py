"""Tools as OpenAI/Hermes function schemas: safe unique names, Korean descriptions, and an exact way back.

Names are snake_case ASCII, at most 64 characters, unique within a toolset and stable for the same tool set:
the operationId first, the service name in front when two tools share it, a short hash of the tool's identity
when that still collides or is too long. Parameter names that a function-calling API would reject
(odcloud's cond[FIELD::OP]) get safe aliases too, and to_call() maps a model's call back to the tool and
the original parameter names.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from apis.engine.model import ToolSpec

MAX_NAME = 64
MAX_DESCRIPTION = 1024
_SAFE_PARAM = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
_SCHEMA_KEEP = ("type", "description", "enum", "default", "format", "items", "minimum", "maximum", "properties")
_SCHEMA_KEEP += ("minLength", "maxLength", "pattern", "minItems", "maxItems", "required")


class UnknownFunction(KeyError):
    """A model called a function name that is not in the toolset."""


def tool_identity(tool: ToolSpec) -> str:
    return f"{tool.method.upper()} {tool.base_url.rstrip('/')}{tool.path}"


def snake_case(text: str) -> str:
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"[^A-Za-z0-9]+", "_", text)
    return re.sub(r"_+", "_", text).strip("_").lower()


def _short_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def _fit(name: str, identity: str) -> str:
    if not name or not name[0].isalpha():
        name = f"op_{name}" if name else "tool"
    if len(name) <= MAX_NAME:
        return name
    return f"{name[: MAX_NAME - 9].rstrip('_')}_{_short_hash(identity)}"


def _service_segment(tool: ToolSpec) -> str:
    segments = [s for s in tool.base_url.split("://", 1)[-1].split("/")[1:] if s]
    return snake_case(segments[-1]) if segments else snake_case(tool.base_url.split("://", 1)[-1].split(".")[0])


@dataclass(frozen=True)
class FunctionToolset:
    schemas: list[dict[str, Any]]  # [{"type": "function", "function": {name, description, parameters}}]
    tools: dict[str, ToolSpec]  # function name -> tool
    param_aliases: dict[str, dict[str, str]]  # function name -> {schema parameter name: original name}

    def tool_for(self, name: str) -> ToolSpec:
        try:
            return self.tools[name]
        except KeyError:
            raise UnknownFunction(f"no function named {name!r} in this toolset") from None

    def name_for(self, tool: ToolSpec) -> str:
        identity = tool_identity(tool)
        for name, candidate in self.tools.items():
            if tool_identity(candidate) == identity:
                return name
        raise UnknownFunction(f"tool {identity} is not in this toolset")

    def to_call(self, name: str, arguments: Mapping[str, Any] | str | None) -> tuple[ToolSpec, dict[str, Any]]:
        """The tool and its parameters under their original names, from a model's function call."""
        tool = self.tool_for(name)
        if isinstance(arguments, str):
            arguments = json.loads(arguments) if arguments.strip() else {}
        aliases = self.param_aliases.get(name, {})
        return tool, {aliases.get(k, k): v for k, v in (arguments or {}).items()}

    def hermes_prompt(self) -> str:
        """The <tools> block Hermes-style chat templates put in the system prompt."""
        lines = [json.dumps(schema, ensure_ascii=False) for schema in self.schemas]
        return "<tools>\n" + "\n".join(lines) + "\n</tools>"


def build_toolset(tools: Iterable[ToolSpec]) -> FunctionToolset:
    ordered = sorted(tools, key=tool_identity)
    base = {tool_identity(t): snake_case(t.operation_id) or snake_case(t.path) for t in ordered}
    counts: dict[str, int] = {}
    for name in base.values():
        counts[name] = counts.get(name, 0) + 1
    chosen: dict[str, ToolSpec] = {}
    for tool in ordered:
        identity = tool_identity(tool)
        name = base[identity]
        if counts[name] > 1:
            name = f"{_service_segment(tool)}_{name}"
        name = _fit(name, identity)
        if name in chosen:
            name = _fit(f"{name[: MAX_NAME - 9]}_{_short_hash(identity)}", identity)
        chosen[name] = tool
    schemas = []
    aliases: dict[str, dict[str, str]] = {}
    for name, tool in chosen.items():
        schema, alias = function_schema(tool, name)
        schemas.append(schema)
        if alias:
            aliases[name] = alias
    return FunctionToolset(schemas=schemas, tools=chosen, param_aliases=aliases)


def function_schema(tool: ToolSpec, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """(OpenAI tool schema, {alias: original parameter name} for renamed parameters)."""
    properties: dict[str, Any] = {}
    aliases: dict[str, str] = {}
    renamed: dict[str, str] = {}
    for original, schema in (tool.parameters.get("properties") or {}).items():
        safe = original if _SAFE_PARAM.match(original) else (snake_case(original) or "param")
        if not safe[0].isalpha() and safe[0] != "_":
            safe = f"p_{safe}"
        while safe in properties:
            safe = f"{safe}_{_short_hash(original)[:4]}"
        if safe != original:
            aliases[safe] = original
        renamed[original] = safe
        properties[safe] = _parameter(schema)
    required = [renamed[r] for r in tool.parameters.get("required") or [] if r in renamed]
    function = {
        "name": name,
        "description": _description(tool),
        "parameters": {"type": "object", "properties": properties, "required": required},
    }
    return {"type": "function", "function": function}, aliases


def _parameter(schema: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: schema[k] for k in _SCHEMA_KEEP if k in schema}
    if isinstance(out.get("items"), Mapping):
        out["items"] = _parameter(out["items"])
    if isinstance(out.get("properties"), Mapping):
        out["properties"] = {k: _parameter(v) for k, v in out["properties"].items() if isinstance(v, Mapping)}
    example = schema.get("example")
    if example not in (None, ""):
        # Examples guide a model better in the text than as a schema keyword some APIs reject.
        text = out.get("description", "")
        out["description"] = f"{text} (예: {example})".strip()
    out.setdefault("type", "string")
    return out


def _description(tool: ToolSpec) -> str:
    parts = [tool.name_ko.strip()]
    if tool.description_ko and tool.description_ko.strip() not in parts[0]:
        parts.append(tool.description_ko.strip())
    text = ". ".join(p.rstrip(".") for p in parts if p)
    if tool.record_fields:
        fields = ", ".join(f["path"] for f in tool.record_fields[:20])
        more = " …" if len(tool.record_fields) > 20 else ""
        text += f". 응답 필드: {fields}{more}"
    return text[:MAX_DESCRIPTION]


# What an agent is told before the tools: shared by KOPA-Bench's runner, the training data and dataset exports,
# so a model trains on the prompt it is evaluated with. {now} becomes the clock of the task or trajectory.
AGENT_SYSTEM_PROMPT = (
    "당신은 한국 공공데이터 API 도구로 사용자의 질문에 답하는 조수입니다. 현재 시각은 {now} (KST)입니다.\n"
    "필요한 도구를 호출해 실제 데이터를 확인한 뒤 답하세요. 결과가 여러 페이지이면 필요한 페이지를 모두 조회하세요.\n"
    "도구 없이 답할 수 있으면 바로 답하세요. 마지막 줄은 '정답: <답>' 형식으로 쓰세요."
)
