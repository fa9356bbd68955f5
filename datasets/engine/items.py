"""The plain form of a trajectory that filters, dedupe, diversity and exports read, built from an execution.

The site builds the same shape from a stored trajectory (datasets.services.trajectory_item), so a trajectory
edited in review is filtered and exported exactly as a fresh one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from datasets.engine import phrasing
from datasets.engine.synthesis import Execution
from graphs.engine.walk import Plan, ToolMeta


def _unique(values: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


def units(plan: Plan, tools: Mapping[Any, ToolMeta]) -> dict[str, str]:
    """Field -> unit its description states, over the plan's tools (for reading numbers in answers)."""
    found = {}
    for step in plan.steps:
        for meta in tools[step.tool].fields:
            unit = phrasing.field_unit(meta)
            if unit:
                found[meta.path] = unit
    return found


def used_tools(plan: Plan, execution: Execution) -> list[Any]:
    """Ids of the tools that ran, in step order."""
    return _unique(step.tool for step in plan.steps if execution.steps[step.index].executed)


def schema_of(tool: ToolMeta) -> dict[str, Any]:
    """A tool's OpenAI schema straight from its JSON Schema (the site uses the catalog's function schemas)."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.label, "parameters": dict(tool.parameters)},
    }


def build_item(
    plan: Plan,
    execution: Execution,
    text: phrasing.Text,
    tools: Mapping[Any, ToolMeta],
    *,
    schemas: Sequence[Mapping[str, Any]] | None = None,
    aliases: Mapping[str, Mapping[str, str]] | None = None,
    clock: str = "",
) -> dict[str, Any]:
    used = used_tools(plan, execution)
    return {
        "id": "",
        "request": text.request,
        "answer": text.answer,
        "short_answer": text.short,
        "template_id": plan.template_id,
        "template": plan.template,
        "junctions": execution.junctions,
        "length": execution.length,
        "tools": [tools[t].name for t in used],
        "providers": _unique(tools[t].provider for t in used),
        "calls": [c.to_dict() for c in execution.calls],
        "schemas": list(schemas) if schemas is not None else [schema_of(tools[t]) for t in used],
        "aliases": dict(aliases or {}),
        "facts": execution.facts,
        "named": execution.facts["named"] if "named" in execution.facts else phrasing.named_values(execution, tools),
        "units": units(plan, tools),
        "clock": clock,
        "generator": text.generator,
        "edges": [
            f"{plan.steps[s.parent].name}>{s.name}"
            for s in plan.steps
            if s.parent is not None and execution.steps[s.index].executed
        ],
    }
