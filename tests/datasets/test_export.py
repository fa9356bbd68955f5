"""Exports: OpenAI chat records with parallel tool calls per round, a split by chain template, and a folder that
Hugging Face `datasets` loads in a separate process (the app `datasets/` would shadow it here) with the tool
calls intact."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap

import pytest

from datasets.engine.export import (
    final_answer,
    messages,
    observation_content,
    openai_record,
    split_by_template,
    write_export,
)
from datasets.engine.items import build_item
from datasets.engine.phrasing import compose
from datasets.engine.synthesis import execute_plan
from graphs.engine.walk import WalkConfig, Walker
from tests.datasets import world

TOOLS = world.tools()


@pytest.fixture(scope="module")
def items():
    walker = Walker(world.graph(), TOOLS, WalkConfig(min_length=1, max_length=3, strategy="coverage"), seed=5)
    found = []
    for number, plan in enumerate(walker.plans(40)):
        execution = asyncio.run(execute_plan(plan, TOOLS, world.FakeApi(), seed=number, page_size=10))
        if execution.ok:
            item = build_item(
                plan, execution, compose(plan, execution, TOOLS), TOOLS, clock="2026-11-18T14:20:00+09:00"
            )
            item["id"] = f"t{number}"
            found.append(item)
    assert len({i["template_id"] for i in found}) >= 5
    return found


def _expected_calls(item):
    return [[c["name"], c["arguments"]] for c in sorted(item["calls"], key=lambda c: c["seq"])]


def test_a_record_has_one_assistant_turn_per_round_with_its_parallel_calls(items):
    fan = next(i for i in items if "FAN" in i["junctions"])
    record = openai_record(fan)
    roles = [m["role"] for m in record["messages"]]
    assert roles[:2] == ["system", "user"] and roles[-1] == "assistant"
    assert "2026-11-18 14:20" in record["messages"][0]["content"]
    turns = [m for m in record["messages"] if m.get("tool_calls")]
    rounds = sorted({c["round"] for c in fan["calls"]})
    assert len(turns) == len(rounds)
    assert max(len(t["tool_calls"]) for t in turns) >= 2  # the fanned-out calls share a turn
    ids = [tc["id"] for t in turns for tc in t["tool_calls"]]
    answered = [m["tool_call_id"] for m in record["messages"] if m["role"] == "tool"]
    assert ids == answered
    assert record["tools"] == fan["schemas"]
    assert record["messages"][-1]["content"].endswith(f"정답: {fan['short_answer']}")


def test_observations_and_answers_follow_the_benchmark_format():
    big = {"ok": True, "records": [{"text": "가" * 500} for _ in range(100)], "record_count": 130}
    content = json.loads(observation_content(big))
    assert len(observation_content(big)) <= 24_000 and content["records_omitted"] == 130 - len(content["records"])
    assert final_answer({"answer": "정답: 5건", "short_answer": "5건"}) == "정답: 5건"
    assert final_answer({"answer": "모두 5건입니다.", "short_answer": ""}) == "모두 5건입니다."


def test_arguments_go_out_under_the_schema_aliases():
    item = {
        "request": "요청",
        "answer": "답",
        "calls": [
            {
                "seq": 1,
                "round": 0,
                "name": "mdl",
                "arguments": {"cond[HOUSE_MANAGE_NO::EQ]": "2026"},
                "observation": {"ok": True},
            }
        ],
        "aliases": {"mdl": {"cond_house_manage_no_eq": "cond[HOUSE_MANAGE_NO::EQ]"}},
    }
    call = messages(item, system_prompt=None)[1]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"cond_house_manage_no_eq": "2026"}


def test_the_split_keeps_every_template_on_one_side(items):
    train, valid = split_by_template(items, validation=0.3, seed=1)
    assert train and valid and len(train) + len(valid) == len(items) and len(valid) <= 0.3 * len(items)
    assert not {i["template_id"] for i in train} & {i["template_id"] for i in valid}
    assert split_by_template(items, validation=0.3, seed=1) == (train, valid)
    assert split_by_template(items, validation=0.0)[1] == []
    with pytest.raises(ValueError):
        split_by_template(items, validation=1.0)


def test_the_export_loads_with_hugging_face_datasets_in_its_own_process(items, tmp_path):
    out = tmp_path / "export"
    report = write_export(items, out, validation=0.3, seed=2, info={"runs": [1]})
    assert set(report.files) >= {"openai/train.jsonl", "openai/validation.jsonl", "hf/data/train.jsonl", "hf/README.md"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"] == report.counts and sum(report.counts.values()) == len(items)

    script = textwrap.dedent(
        """
        import json, sys
        from datasets import load_dataset
        folder = sys.argv[1]
        hf = load_dataset(folder + "/hf")
        openai = load_dataset("json", data_files={"train": folder + "/openai/train.jsonl"})
        def calls(messages):
            return [[tc["function"]["name"], json.loads(tc["function"]["arguments"])]
                    for m in messages if m["role"] == "assistant" and m.get("tool_calls") for tc in m["tool_calls"]]
        out = {split: {row["id"]: {"calls": calls(row["messages"]), "tools": [t["function"]["name"] for t in json.loads(row["tools"])],
                                   "junctions": row["junctions"], "template": row["template_id"]}
                       for row in hf[split]} for split in hf}
        out["openai"] = [calls(row["messages"]) for row in openai["train"]]
        print(json.dumps(out, ensure_ascii=False))
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
    env.update(HF_HOME=str(tmp_path / "hf-home"), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    loaded = subprocess.run(
        [sys.executable, "-c", script, str(out)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    data = json.loads(loaded.stdout.strip().splitlines()[-1])
    assert set(data) == {"train", "validation", "openai"}
    by_id = {i["id"]: i for i in items}
    for split in ("train", "validation"):
        assert len(data[split]) == report.counts[split]
        for row_id, row in data[split].items():
            item = by_id[row_id]
            assert row["calls"] == _expected_calls(item)
            assert row["tools"] == [s["function"]["name"] for s in item["schemas"]]
            assert row["junctions"] == item["junctions"] and row["template"] == item["template_id"]
    assert not {r["template"] for r in data["train"].values()} & {r["template"] for r in data["validation"].values()}
    assert sorted(map(json.dumps, data["openai"])) == sorted(json.dumps(r["calls"]) for r in data["train"].values())
