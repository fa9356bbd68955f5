"""Reading tool calls out of generated text: Hermes/Qwen3 `<tool_call>{json}</tool_call>` blocks, and the
Qwen3.5/Qwen3-Coder XML form `<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>`.

A block that cannot be read still becomes a ParsedCall, with error "call.bad_json", so a malformed call is
recorded and answered with an error instead of being mistaken for the final answer.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from benchmarks.engine.backends.base import ParsedCall

BAD_JSON = "call.bad_json"
UNPARSED = "call.unparsed"
TOOL_CALL_OPEN = "<tool_call>"

_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_FUNCTION = re.compile(r"<function=([^>\s]+)>(.*?)(?:</function>|\Z)", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([^>\s]+)>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.DOTALL)
_NAME_GUESS = re.compile(r'"name"\s*:\s*"([^"]+)"')


def strip_thinking(text: str) -> str:
    """The text without <think> blocks; a template that opens <think> in the prompt leaves only </think>."""
    if "</think>" in text and "<think>" not in text.split("</think>", 1)[0]:
        text = text.split("</think>", 1)[1]
    return _THINK.sub("", text)


def parse_tool_calls(text: str, *, id_prefix: str = "call") -> tuple[str, list[ParsedCall]]:
    """(content without think and tool-call blocks, the calls in order)."""
    text = strip_thinking(text or "")
    calls = []
    for index, match in enumerate(_BLOCK.finditer(text)):
        calls.append(_parse_block(match.group(1).strip(), f"{id_prefix}_{index}"))
    content = _BLOCK.sub("", text).strip()
    return content, calls


def _parse_block(body: str, call_id: str) -> ParsedCall:
    if body.startswith("<function="):
        return _parse_xml(body, call_id)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as error:
        guess = _NAME_GUESS.search(body)
        return ParsedCall(call_id, guess.group(1) if guess else None, None, body, f"{BAD_JSON}: {error.msg}")
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
        return ParsedCall(call_id, None, None, body, f'{BAD_JSON}: expected {{"name": ..., "arguments": {{...}}}}')
    return call_from_parts(call_id, data["name"], data.get("arguments", data.get("parameters", {})))


def call_from_parts(call_id: str, name: str, arguments: Any) -> ParsedCall:
    """A ParsedCall from a name and arguments given as an object or as JSON text (possibly double-encoded)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    if isinstance(arguments, str):
        text = arguments.strip()
        if not text:
            return ParsedCall(call_id, name, {}, raw)
        try:
            arguments = json.loads(text)
        except json.JSONDecodeError as error:
            return ParsedCall(call_id, name, None, raw, f"{BAD_JSON}: {error.msg}")
        if isinstance(arguments, str):  # double-encoded: "{\"a\": 1}"
            with contextlib.suppress(json.JSONDecodeError):
                arguments = json.loads(arguments)
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return ParsedCall(call_id, name, None, raw, f"{BAD_JSON}: arguments must be a JSON object")
    return ParsedCall(call_id, name, arguments, raw)


def _parse_xml(body: str, call_id: str) -> ParsedCall:
    function = _FUNCTION.search(body)
    if function is None:
        return ParsedCall(call_id, None, None, body, f"{BAD_JSON}: no <function=NAME> in the call")
    arguments: dict[str, Any] = {}
    for name, value in _PARAMETER.findall(function.group(2)):
        text = value.strip("\n")
        try:
            arguments[name] = json.loads(text)
        except json.JSONDecodeError:
            arguments[name] = text
    return ParsedCall(call_id, function.group(1), arguments, json.dumps(arguments, ensure_ascii=False))
