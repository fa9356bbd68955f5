"""Frozen dataset versions made from synthesized export lines (training/engine/synthetic.py), for tests that train
on a version without synthesizing and reviewing trajectories first: each line becomes an item in the shape the
exporters read, frozen with its checksum as `dataset_version_freeze` would freeze it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from datasets.models import DatasetVersion, DatasetVersionItem
from datasets.review import _checksum
from training.engine.synthetic import CLOCK


def item_of(line: Mapping[str, Any], number: int) -> dict[str, Any]:
    messages = line["messages"]
    observations = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    calls = []
    assistant_turns = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    for round_number, turn in enumerate(assistant_turns):
        for call in turn["tool_calls"]:
            calls.append(
                {
                    "seq": len(calls),
                    "round": round_number,
                    "name": call["function"]["name"],
                    "arguments": json.loads(call["function"]["arguments"]),
                    "observation": json.loads(observations[call["id"]]),
                }
            )
    return {
        "id": number,
        "request": next(m["content"] for m in messages if m["role"] == "user"),
        "answer": messages[-1]["content"],
        "short_answer": "",
        "clock": CLOCK,
        "calls": calls,
        "schemas": list(line["tools"]),
        "tools": sorted({call["name"] for call in calls}),
        "template_id": line.get("template_id", ""),
    }


def freeze_lines(lines: Iterable[Mapping[str, Any]], *, name: str, user=None) -> DatasetVersion:
    items = [item_of(line, number) for number, line in enumerate(lines, start=1)]
    version = DatasetVersion(
        name=name, item_count=len(items), checksum=_checksum(items), filter={"synthesized": "holiday"}, created_by=user
    )
    version.save()
    DatasetVersionItem.objects.bulk_create(
        [DatasetVersionItem(version=version, trajectory=None, trajectory_version=1, item=item) for item in items]
    )
    return version
