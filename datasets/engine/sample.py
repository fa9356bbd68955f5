"""A judging sample: trajectories as Markdown a reader can judge by the annotation rubric (request, every call with
its arguments and a compact observation, the answer, the chain length).

Observations are cut to what the item uses: the fields an answer, a pick, a condition or a later call read from
that step, plus the record's name, over the records that matter first (those holding a picked or answered value),
at most `MAX_RECORDS` of them, with the total. Plain data in, text out; no Django.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

MAX_RECORDS = 8
MAX_VALUE = 160
NAME_FIELDS = (
    "stNm",
    "stationName",
    "title",
    "yadmNm",
    "dutyName",
    "aptNm",
    "HOUSE_NM",
    "itemName",
    "locatadd_nm",
    "dateName",
    "rtNm",
    "trainLineNm",
    "category",
)


def draw(ids: Sequence[int], count: int, seed: object) -> list[int]:
    """`count` ids at random (all when fewer), in the order drawn; the same seed draws the same ids."""
    pool = sorted(ids)
    return random.Random(f"sample:{seed}").sample(pool, min(count, len(pool)))


def _field(name: str) -> str:
    return re.sub(r"\(.*\)$", "", str(name)).strip()


def used_fields(facts: Mapping[str, Any], calls: Sequence[Mapping[str, Any]]) -> dict[int, set[str]]:
    """Per step, the fields the item reads from its records."""
    used: dict[int, set[str]] = {}
    for fact in facts.get("answer") or ():
        if fact.get("field") and fact.get("step") is not None:
            used.setdefault(fact["step"], set()).add(_field(fact["field"]))
    for key in ("picks", "conditions"):
        for entry in facts.get(key) or ():
            if entry.get("field") and entry.get("step") is not None:
                used.setdefault(entry["step"], set()).update(_field(f) for f in str(entry["field"]).split("="))
    for call in calls:
        for binding in call.get("bindings") or ():
            if binding.get("source") == "edge" and binding.get("from_step") is not None:
                used.setdefault(binding["from_step"], set()).update(binding.get("fields") or ())
    return used


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def stated(value: Any, answer: str) -> bool:
    """A record's value the answer writes out as it is (a name, a label, an amount), not a digit or a code that
    turns up anywhere."""
    text = str(value if value is not None else "").strip()
    if len(text) < 2 or (text.isdigit() and len(text) < 3) or len(text) > MAX_VALUE:
        return False
    return text in answer


def compact(observation: Mapping[str, Any], fields: set[str], wanted: set[str], answer: str = "") -> list[str]:
    """Lines for one observation: its status and total, then the records that matter with the fields used and every
    field whose value the answer states (so that no value in the answer comes from a field the reader cannot see)."""
    if not observation.get("ok", True):
        return [f"error: {observation.get('error_class') or ''} {observation.get('result_msg') or ''}".strip()]
    records = [r for r in observation.get("records") or () if isinstance(r, Mapping)]
    total = observation.get("total_count")
    head = f"{len(records)} record(s)" + (f" of {total}" if total not in (None, len(records)) else "")
    keys = [f for f in NAME_FIELDS if any(f in r for r in records)][:1]
    keys += sorted(f for f in fields if f not in keys and any(f in r for r in records))
    if not keys and records:
        keys = list(records[0])[:6]

    def matters(record: Mapping[str, Any]) -> bool:
        return any(str(record.get(k, "")).strip() in wanted for k in keys if str(record.get(k, "")).strip())

    ordered = [r for r in records if matters(r)] + [r for r in records if not matters(r)]
    if answer:
        keys += sorted({k for r in ordered[:MAX_RECORDS] for k, v in r.items() if k not in keys and stated(v, answer)})
    lines = [head]
    for record in ordered[:MAX_RECORDS]:
        shown = {k: record[k] for k in keys if record.get(k) not in (None, "")}
        lines.append("- " + _short(shown))
    if len(records) > MAX_RECORDS:
        lines.append(f"- … {len(records) - MAX_RECORDS} more")
    return lines


def markdown(items: Sequence[Mapping[str, Any]], *, title: str, internals: bool = True) -> str:
    """items: {id, request, answer, length, need, calls: [{seq, tool_name, arguments, observation, bindings, step}]}
    with facts; internals: show the need id (a blind judge sees none)."""
    out = [f"# {title}", ""]
    for number, item in enumerate(items, 1):
        facts = item.get("facts") or {}
        calls = sorted(item.get("calls") or (), key=lambda c: c["seq"])
        used = used_fields(facts, calls)
        wanted = {str(f.get("value", "")).strip() for f in facts.get("answer") or ()}
        wanted |= {str(p.get("value", "")).strip() for p in facts.get("picks") or ()}
        wanted.discard("")
        out.append(f"## {number}. item {item['id']}" + (f" · need `{item.get('need')}`" if internals else ""))
        out += [
            "",
            f"**Request:** {item['request']}",
            "",
            f"**Chain length:** {item['length']} steps, {len(calls)} calls",
            "",
        ]
        for call in calls:
            arguments = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
            out.append(f"{call['seq']}. `{call['tool_name']}` {arguments}")
            for line in compact(
                call.get("observation") or {}, used.get(call.get("step"), set()), wanted, str(item["answer"])
            ):
                out.append(f"   {line}")
        out += ["", f"**Answer:** {item['answer']}", ""]
    return "\n".join(out) + "\n"
