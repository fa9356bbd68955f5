"""A scripted fake model for tests: it plays back given turns, so every path of the runner (answers, parallel
calls, unreadable JSON, unknown tools, wrong arguments, failing APIs, backend errors, running out of steps)
can be driven deterministically.

A turn is a ModelTurn, a dict {"content": str, "calls": [{"name", "arguments" (object or raw JSON text),
"id"}]}, or an exception instance (raised, as a failing backend would). A script is a list of turns (the same
for every task), a dict of task id -> list of turns, or a function ModelRequest -> turn.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from benchmarks.engine.backends.base import Backend, ModelRequest, ModelTurn, ParsedCall
from benchmarks.engine.backends.parsing import call_from_parts

Turn = ModelTurn | Mapping[str, Any] | BaseException
Script = Sequence[Turn] | Mapping[str, Sequence[Turn]] | Callable[[ModelRequest], Turn]


def call(name: str | None, arguments: Any = None, *, id: str = "") -> dict[str, Any]:
    """One scripted tool call; arguments may be an object or raw (possibly broken) JSON text."""
    return {"name": name, "arguments": {} if arguments is None else arguments, "id": id}


def turn(*calls: dict[str, Any], content: str = "") -> dict[str, Any]:
    return {"content": content, "calls": list(calls)}


def answer(text: str) -> dict[str, Any]:
    return {"content": text, "calls": []}


class ScriptedBackend(Backend):
    name = "scripted"

    def __init__(self, script: Script, *, model: str = "scripted"):
        self.script = script
        self.model = model
        self.requests: list[ModelRequest] = []  # every request seen, for assertions

    async def complete(self, request: ModelRequest) -> ModelTurn:
        self.requests.append(request)
        planned = self._planned(request)
        if isinstance(planned, BaseException):
            raise planned
        if isinstance(planned, ModelTurn):
            return planned
        return _to_turn(planned, request.step)

    def _planned(self, request: ModelRequest) -> Turn:
        if callable(self.script):
            return self.script(request)
        turns = self.script.get(request.task.id, ()) if isinstance(self.script, Mapping) else self.script
        return turns[request.step] if request.step < len(turns) else {"content": ""}


def _to_turn(data: Mapping[str, Any], step: int) -> ModelTurn:
    calls: list[ParsedCall] = []
    for index, item in enumerate(data.get("calls", [])):
        call_id = item.get("id") or f"scripted_{step}_{index}"
        arguments = item.get("arguments", {})
        if item.get("name") is None:
            raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
            calls.append(ParsedCall(call_id, None, None, raw, "call.bad_json: no function name"))
        else:
            calls.append(call_from_parts(call_id, item["name"], arguments))
    reason = "tool_calls" if calls else "stop"
    return ModelTurn(content=data.get("content", ""), tool_calls=calls, finish_reason=reason)
