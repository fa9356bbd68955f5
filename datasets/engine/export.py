"""Trajectories as training data: OpenAI chat-messages JSONL and a folder Hugging Face `datasets` loads.

Each record is one conversation: the system prompt the benchmark's runner uses (with the trajectory's clock),
the user's request, one assistant turn per round of calls (parallel calls share a turn) followed by a tool message
per call carrying the observation in the runner's shape, and the final answer ending in "정답: ...". The tools
list holds the schemas of the trajectory's tools. Train and validation are split by chain template, so no
template appears in both. The Hugging Face folder stores `tools` as a JSON string (schemas differ per row, which
Arrow cannot hold as one struct) and every message with the same keys.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from apis.engine.function_schema import AGENT_SYSTEM_PROMPT as DEFAULT_SYSTEM_PROMPT
from datasets.engine.filters import aliased
from graphs.engine.sampling import rng_for

MAX_RECORDS = 100  # as the benchmark's tool environment
MAX_CHARS = 24_000
ANSWER_MARKER = "정답:"
MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")


def observation_content(observation: Mapping[str, Any]) -> str:
    """The tool message text: the runner's payload, records dropped from the end until it fits."""
    payload = dict(observation)
    records = list(payload.get("records") or [])[:MAX_RECORDS]
    total = int(payload.get("record_count") or len(records))
    payload["records"] = records
    payload["records_omitted"] = total - len(records)
    content = json.dumps(payload, ensure_ascii=False, default=str)
    while len(content) > MAX_CHARS and payload["records"]:
        cut = max(1, len(payload["records"]) // 4)
        payload["records"] = payload["records"][:-cut]
        payload["records_omitted"] = total - len(payload["records"])
        content = json.dumps(payload, ensure_ascii=False, default=str)
    return content


def _system(item: Mapping[str, Any], prompt: str | None) -> str | None:
    if not prompt:
        return None
    clock = item.get("clock")
    try:
        now = datetime.fromisoformat(clock).strftime("%Y-%m-%d %H:%M") if clock else ""
    except ValueError:
        now = str(clock)
    return prompt.replace("{now}", now)


def final_answer(item: Mapping[str, Any]) -> str:
    answer = str(item["answer"]).strip()
    short = str(item.get("short_answer") or "").strip()
    if ANSWER_MARKER in answer or not short:
        return answer
    return f"{answer}\n{ANSWER_MARKER} {short}"


def messages(item: Mapping[str, Any], *, system_prompt: str | None = DEFAULT_SYSTEM_PROMPT) -> list[dict[str, Any]]:
    """The conversation of one trajectory, in OpenAI's chat format with tool calls."""
    out: list[dict[str, Any]] = []
    system = _system(item, system_prompt)
    if system:
        out.append({"role": "system", "content": system})
    out.append({"role": "user", "content": item["request"]})
    aliases = item.get("aliases") or {}
    rounds: dict[int, list[Mapping[str, Any]]] = {}
    for call in sorted(item["calls"], key=lambda c: c["seq"]):
        rounds.setdefault(int(call["round"]), []).append(call)
    for number in sorted(rounds):
        calls = rounds[number]
        out.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": f"call_{call['seq']}",
                        "type": "function",
                        "function": {
                            "name": call["name"],
                            "arguments": json.dumps(
                                aliased(call["arguments"], aliases.get(call["name"], {})), ensure_ascii=False
                            ),
                        },
                    }
                    for call in calls
                ],
            }
        )
        for call in calls:
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": f"call_{call['seq']}",
                    "name": call["name"],
                    "content": observation_content(call["observation"]),
                }
            )
    out.append({"role": "assistant", "content": final_answer(item)})
    return out


def openai_record(item: Mapping[str, Any], **options: Any) -> dict[str, Any]:
    """A line of OpenAI's fine-tuning format: {"messages": [...], "tools": [...]}."""
    return {"messages": messages(item, **options), "tools": list(item.get("schemas") or [])}


def hf_record(item: Mapping[str, Any], **options: Any) -> dict[str, Any]:
    """A row of the Hugging Face folder: uniform message keys, tools as JSON text, and the metadata columns."""
    rows = [{key: message.get(key) for key in MESSAGE_KEYS} for message in messages(item, **options)]
    return {
        "id": str(item["id"]),
        "messages": rows,
        "tools": json.dumps(list(item.get("schemas") or []), ensure_ascii=False),
        "request": item["request"],
        "answer": item["answer"],
        "template_id": item.get("template_id", ""),
        "junctions": list(item.get("junctions") or []),
        "length": int(item.get("length") or 0),
        "tool_names": list(item.get("tools") or []),
        "providers": list(item.get("providers") or []),
        "generator": item.get("generator", ""),
    }


def split_by_template(
    items: Sequence[Mapping[str, Any]], *, validation: float = 0.1, seed: object = 0
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """(train, validation): whole templates go to validation, in a seeded order, while they fit in its share;
    with two or more templates and a positive share, validation gets at least the smallest one."""
    if not 0 <= validation < 1:
        raise ValueError("validation must be a share in [0, 1)")
    by_template: dict[str, list[Mapping[str, Any]]] = {}
    for item in items:
        by_template.setdefault(str(item.get("template_id") or ""), []).append(item)
    order = sorted(by_template, key=lambda t: (rng_for("split", seed, t).random(), t))
    wanted = validation * len(items)
    held: set[str] = set()
    size = 0
    for template in order:
        if len(held) == len(by_template) - 1:
            break
        if size + len(by_template[template]) <= wanted:
            held.add(template)
            size += len(by_template[template])
    if not held and validation > 0 and len(by_template) > 1:
        held.add(min(order, key=lambda t: len(by_template[t])))
    train = [i for i in items if str(i.get("template_id") or "") not in held]
    valid = [i for i in items if str(i.get("template_id") or "") in held]
    return train, valid


def _write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> tuple[int, str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            line = json.dumps(row, ensure_ascii=False) + "\n"
            handle.write(line)
            digest.update(line.encode("utf-8"))
            count += 1
    return count, digest.hexdigest()


@dataclass
class ExportReport:
    folder: Path
    counts: dict[str, int] = field(default_factory=dict)
    templates: dict[str, int] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # relative path -> sha256

    def to_dict(self) -> dict[str, Any]:
        return {"folder": str(self.folder), "counts": self.counts, "templates": self.templates, "files": self.files}


def _card(name: str, splits: Mapping[str, int], templates: Mapping[str, int], info: Mapping[str, Any]) -> str:
    files = "\n".join(f"  - split: {split}\n    path: data/{split}.jsonl" for split, n in splits.items() if n)
    rows = "\n".join(f"| {split} | {n} | {templates.get(split, 0)} |" for split, n in splits.items())
    diversity = info.get("diversity") or {}
    lines = [
        "---",
        "language:",
        "- ko",
        "license: other",
        f"pretty_name: {name}",
        "task_categories:",
        "- text-generation",
        "tags:",
        "- tool-calling",
        "- function-calling",
        "- korean",
        "- public-api",
        "configs:",
        "- config_name: default",
        "  data_files:",
        files,
        "---",
        "",
        f"# {name}",
        "",
        "Executed multi-step tool-calling trajectories over Korean public APIs, synthesized by typed walks "
        "(SEQ, FAN, DRV, SEM, CMP, COND) over an execution-verified tool graph (EDGE). Every call was really "
        "executed; requests are in Korean and never state a value passed between calls.",
        "",
        "| split | rows | chain templates |",
        "|---|---|---|",
        rows,
        "",
        "Train and validation share no chain template.",
        "",
        "## Columns",
        "",
        "- `messages`: system, user request, assistant tool calls (parallel calls in one turn), tool results, answer; "
        "every message has the keys role, content, tool_calls, tool_call_id and name (null when absent);",
        "- `tools`: the OpenAI function schemas of the row's tools, as a JSON string (`json.loads` it);",
        "- `request`, `answer`, `template_id`, `junctions`, `length`, `tool_names`, `providers`, `generator`.",
        "",
        "```python",
        "from datasets import load_dataset",
        f'ds = load_dataset("path/to/this/folder")  # {", ".join(s for s, n in splits.items() if n)}',
        "```",
        "",
        "## Provenance",
        "",
        json_block(
            {k: v for k, v in info.items() if k != "diversity"}
            | {
                "junctions": diversity.get("junctions"),
                "providers": diversity.get("providers"),
                "lengths": diversity.get("lengths"),
            }
        ),
        "",
        "Licence: code MIT; data from Korean public APIs under the KOGL terms of each provider.",
        "",
    ]
    return "\n".join(lines)


def json_block(data: Mapping[str, Any]) -> str:
    return "```json\n" + json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n```"


def write_export(
    items: Sequence[Mapping[str, Any]],
    folder: Path | str,
    *,
    validation: float = 0.1,
    seed: object = 0,
    name: str = "KOPA EDGE trajectories",
    info: Mapping[str, Any] | None = None,
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
) -> ExportReport:
    """Write openai/{train,validation}.jsonl, hf/data/{train,validation}.jsonl, hf/README.md and manifest.json."""
    folder = Path(folder)
    if not items:
        raise ValueError("nothing to export: no trajectory matched")
    train, valid = split_by_template(items, validation=validation, seed=seed)
    splits = {"train": train, "validation": valid}
    report = ExportReport(folder)
    for split, rows in splits.items():
        report.counts[split] = len(rows)
        report.templates[split] = len({r.get("template_id") for r in rows})
        for kind, build in (("openai", openai_record), ("hf/data", hf_record)):
            if not rows and kind == "hf/data":
                continue
            relative = f"{kind}/{split}.jsonl"
            _, digest = _write_jsonl(folder / relative, (build(r, system_prompt=system_prompt) for r in rows))
            report.files[relative] = digest
    card = _card(name, report.counts, report.templates, info or {})
    (folder / "hf").mkdir(parents=True, exist_ok=True)
    (folder / "hf" / "README.md").write_text(card, encoding="utf-8")
    report.files["hf/README.md"] = hashlib.sha256(card.encode("utf-8")).hexdigest()
    manifest = {
        **report.to_dict(),
        "folder": None,
        "validation_share": validation,
        "seed": str(seed),
        "ids": {split: [str(r["id"]) for r in rows] for split, rows in splits.items()},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2), encoding="utf-8")
    return report
