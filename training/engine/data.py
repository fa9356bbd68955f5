"""Training data from an export of trajectories (datasets/engine/export.py), one conversation a line.

Both export shapes are read: `openai/*.jsonl` ({"messages", "tools": [schemas]}) and `hf/data/*.jsonl`
({"id", "messages", "tools": JSON text, "request", "answer", ...}). A frozen dataset version's export is the
same file, so the input stays a path.

Each line becomes an Example: the prompt (system and user messages, as the benchmark's runner sends them),
the tool schemas of that trajectory, the full conversation (for the SFT warm start), and the gold the rewards
compare with: the calls in order (arguments decoded; `alternatives` when a line carries them), the records each
gold call returned (from its tool message), and the final answer. The sandbox clock comes from the line's
`clock`, or from the system prompt's "현재 시각은 YYYY-MM-DD HH:MM (KST)".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_NOW = re.compile(r"현재 시각은 (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})")
MAX_ERRORS = 10


class DataError(ValueError):
    """An export file that cannot be trained on; the message names the file and line."""


@dataclass
class Example:
    id: str
    prompt: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    gold: dict[str, Any]
    clock: str | None = None
    tool_names: list[str] = field(default_factory=list)

    def key(self) -> str:
        return prompt_key(self.prompt)


def prompt_key(prompt: list[Mapping[str, Any]]) -> str:
    """How a rollout finds the example of a prompt it was handed (TRL passes only the prompt messages)."""
    return json.dumps([[m.get("role"), m.get("content")] for m in prompt], ensure_ascii=False)


def _clean(message: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in message.items() if v is not None}
    if out.get("tool_calls"):
        out["tool_calls"] = [
            {
                **call,
                "function": {
                    "name": call["function"]["name"],
                    "arguments": _arguments(call["function"].get("arguments")),
                },
            }
            for call in out["tool_calls"]
        ]
    return out


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else {}
    if not isinstance(value, dict):
        raise ValueError("tool-call arguments must be a JSON object")
    return value


def _clock(row: Mapping[str, Any], messages: list[Mapping[str, Any]]) -> str | None:
    if row.get("clock"):
        return str(row["clock"])
    for message in messages:
        if message.get("role") == "system":
            match = _NOW.search(str(message.get("content") or ""))
            if match:
                return f"{match.group(1)}T{match.group(2)}:00+09:00"
    return None


def example_from_row(row: Mapping[str, Any], index: int) -> Example:
    """One export line as an Example; ValueError/KeyError say what is missing."""
    messages = [_clean(m) for m in row["messages"]]
    tools = row.get("tools") or []
    if isinstance(tools, str):
        tools = json.loads(tools)
    if not isinstance(tools, list):
        raise ValueError("tools must be a list of function schemas")
    first_user = next((i for i, m in enumerate(messages) if m.get("role") == "user"), None)
    if first_user is None:
        raise ValueError("no user message")
    prompt = messages[: first_user + 1]
    calls, records = [], []
    by_id: dict[str, int] = {}
    for message in messages[first_user + 1 :]:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                by_id[str(call.get("id") or len(calls))] = len(calls)
                calls.append(
                    {
                        "name": call["function"]["name"],
                        "arguments": call["function"]["arguments"],
                        "alternatives": dict(call.get("alternatives") or {}),
                    }
                )
                records.append(None)
        elif message.get("role") == "tool":
            position = by_id.get(str(message.get("tool_call_id")))
            if position is None:
                position = next((i for i, r in enumerate(records) if r is None), None)
            try:
                payload = json.loads(message.get("content") or "")
            except json.JSONDecodeError:
                payload = None
            if position is not None and isinstance(payload, dict) and payload.get("ok", True):
                records[position] = list(payload.get("records") or [])
    finals = [m for m in messages if m.get("role") == "assistant" and not m.get("tool_calls")]
    answer = str(row.get("short_answer") or (finals[-1].get("content") if finals else "") or "")
    names = [t["function"]["name"] for t in tools]
    unknown = sorted({c["name"] for c in calls} - set(names))
    if unknown:
        raise ValueError(f"calls {', '.join(unknown)} that its tools list does not offer")
    return Example(
        id=str(row.get("id", index)),
        prompt=prompt,
        tools=tools,
        messages=messages,
        gold={"calls": calls, "records": records, "answer": answer, "answer_spec": row.get("answer_spec")},
        clock=_clock(row, messages),
        tool_names=names,
    )


def load_examples(path: str | Path) -> list[Example]:
    """Every line of an export file; DataError lists the first bad lines (file:line: reason)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such file (give an export's openai/train.jsonl or hf/data/train.jsonl)")
    examples, problems = [], []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                examples.append(example_from_row(json.loads(line), number))
            except (ValueError, KeyError, TypeError) as error:
                problems.append(f"{path.name}:{number}: {type(error).__name__}: {error}")
    if problems:
        more = f" (and {len(problems) - MAX_ERRORS} more)" if len(problems) > MAX_ERRORS else ""
        raise DataError(f"{path}: {len(problems)} bad line(s): " + "; ".join(problems[:MAX_ERRORS]) + more)
    if not examples:
        raise DataError(f"{path}: no trajectories in the file")
    return examples
