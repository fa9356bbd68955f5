"""Rewards for tool-use GRPO, in plain Python: each component scores one episode against its gold in [0, 1].

An episode is what the rollout did (training/engine/environment.py builds it):

    {"turns": [{"text": raw model text, "calls": [{"name", "arguments", "error"}]}],
     "executed": [{"name", "arguments", "ok", "records": [...]}],   # what the sandbox answered
     "answer": the final reply (the last turn without calls) or None}

and its gold comes from the trajectory (training/engine/data.py):

    {"calls": [{"name", "arguments", "alternatives"}], "records": [[...] per gold call or None],
     "answer": the short answer, "answer_spec": an optional KOPA-Bench answer spec}

Components (the same rules KOPA-Bench scores with, where they measure the same thing):

- format: ToolRL-style structure, graded: each tool-call block earns 0.5 when its tags are closed
  (<tool_call>...</tool_call>) and 0.5 when its content parses as a call (Hermes JSON or Qwen XML); the mean over
  blocks. With no block, 1 only when the gold needs no call and the model answered;
- tool_name: multiset Jaccard of called names against gold names (ToolRL's name match);
- arguments: per gold call, the best same-named call's share of argument names whose value matches
  (canonical values and the gold's alternatives, benchmarks.engine.canonical), over max(#gold, #called);
- execution: the share of gold calls whose records some executed call returned (the same records,
  compared canonically), so a differently spelled but equivalent call earns it;
- answer: the benchmark's checker (benchmarks.engine.checkers) on the final reply, which must state its answer
  after a marker ("정답: ..."), as the system prompt asks: the numeric checker passes when any number in the
  answer part matches, so an unmarked ramble full of numbers would otherwise be rewarded;
- binary: Tool-N1's all-or-nothing: 1 only when format, names and arguments are all perfect.

Presets weight them: `graded` (ToolRL-style sum of graded parts) and `binary` (Tool-N1-style); the other
components are still computed with weight 0, so their curves are logged.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from apis.engine.korean_text import ANSWER_MARKER as _MARKER
from benchmarks.engine.backends.parsing import _BLOCK, parse_tool_calls, strip_thinking
from benchmarks.engine.canonical import canonical_value, value_matches
from benchmarks.engine.checkers import check_answer, check_contains, check_numeric, extract_answer, read_quantities
from benchmarks.engine.codec import answer_from_dict

COMPONENTS = ("format", "tool_name", "arguments", "execution", "answer", "binary")

PRESETS: dict[str, dict[str, float]] = {
    # ToolRL (Qian et al. 2025): graded format + correctness (names, parameter names and values), here with
    # execution-grounded and final-answer terms from KOPA-Bench.
    "graded": {"format": 0.5, "tool_name": 1.0, "arguments": 1.0, "execution": 1.0, "answer": 1.0, "binary": 0.0},
    # Tool-N1 (Zhang et al. 2025): 1 when the format and every call are right, else 0.
    "binary": {"format": 0.0, "tool_name": 0.0, "arguments": 0.0, "execution": 0.0, "answer": 0.0, "binary": 1.0},
}

_SINGLE_QUANTITY = re.compile(r"^\s*-?[\d,.]+\s*\S{0,6}\s*$")


class RewardError(ValueError):
    """A reward preset or weight table that cannot be used."""


def reward_weights(preset: str, overrides: Mapping[str, float] | None = None) -> dict[str, float]:
    """The weights of a preset, with overrides; unknown presets or components raise RewardError."""
    if preset not in PRESETS:
        raise RewardError(f"unknown reward preset {preset!r}; expected one of {', '.join(PRESETS)}")
    weights = dict(PRESETS[preset])
    for name, value in (overrides or {}).items():
        if name not in COMPONENTS:
            raise RewardError(f"unknown reward component {name!r}; expected one of {', '.join(COMPONENTS)}")
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise RewardError(f"reward weight {name} must be a number")
        weights[name] = float(value)
    if not any(weights.values()):
        raise RewardError("every reward weight is 0: nothing to learn from")
    return weights


# ------------------------------------------------------------------------------------------- episodes


def parse_turn(text: str) -> tuple[str, list[dict[str, Any]]]:
    """(content, calls) of one model turn; each call says whether its block was closed by </tool_call>."""
    content, calls = parse_tool_calls(text or "")
    closed = [m.group(0).rstrip().endswith("</tool_call>") for m in _BLOCK.finditer(strip_thinking(text or ""))]
    return content, [
        {"name": c.name, "arguments": c.arguments, "error": c.error, "closed": closed[i] if i < len(closed) else False}
        for i, c in enumerate(calls)
    ]


def episode_from_text(text: str) -> dict[str, Any]:
    """A one-turn episode from raw model text (no execution): for scoring plain completions."""
    content, calls = parse_turn(text)
    return {"turns": [{"text": text, "calls": calls}], "executed": [], "answer": None if calls else content}


def _calls(episode: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [call for turn in episode.get("turns") or [] for call in turn.get("calls") or []]


def _valid_calls(episode: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [c for c in _calls(episode) if not c.get("error") and c.get("name") and c.get("arguments") is not None]


# ----------------------------------------------------------------------------------------- components


def format_reward(episode: Mapping[str, Any], gold: Mapping[str, Any] | None = None) -> float:
    calls = _calls(episode)
    if not calls:
        # Answering without a call is well-formed only when the gold needs none.
        needs_calls = bool((gold or {}).get("calls"))
        return 1.0 if episode.get("answer") and not needs_calls else 0.0
    parsed = [not c.get("error") and bool(c.get("name")) for c in calls]
    closed = [bool(c.get("closed", ok)) for c, ok in zip(calls, parsed, strict=True)]
    return sum(0.5 * c + 0.5 * p for c, p in zip(closed, parsed, strict=True)) / len(calls)


def tool_name_reward(episode: Mapping[str, Any], gold: Mapping[str, Any]) -> float:
    called = Counter(c["name"] for c in _valid_calls(episode))
    wanted = Counter(c["name"] for c in gold.get("calls") or [])
    if not called and not wanted:
        return 1.0
    union = sum((called | wanted).values())
    return sum((called & wanted).values()) / union


def _argument_score(gold_call: Mapping[str, Any], args: Mapping[str, Any]) -> float:
    alternatives = gold_call.get("alternatives") or {}
    wanted = gold_call.get("arguments") or {}
    names = {n for n, v in wanted.items() if canonical_value(v) is not None}
    names |= {n for n, v in args.items() if canonical_value(v) is not None}
    names |= set(alternatives)
    if not names:
        return 1.0
    return sum(value_matches(wanted.get(n), args.get(n), alternatives.get(n)) for n in names) / len(names)


def arguments_reward(episode: Mapping[str, Any], gold: Mapping[str, Any]) -> float:
    calls = list(_valid_calls(episode))
    gold_calls = list(gold.get("calls") or [])
    if not gold_calls:
        return 1.0 if not calls else 0.0
    total = 0.0
    used: set[int] = set()
    for gold_call in gold_calls:
        best, best_index = 0.0, None
        for index, call in enumerate(calls):
            if index in used or call["name"] != gold_call["name"]:
                continue
            score = _argument_score(gold_call, call["arguments"])
            if best_index is None or score > best:
                best, best_index = score, index
        if best_index is not None:
            used.add(best_index)
            total += best
    return total / max(len(gold_calls), len(calls))


def records_key(records: Sequence[Any] | None) -> tuple:
    """Records compared canonically and as a multiset (order and number spelling do not matter)."""
    return tuple(sorted(json.dumps(canonical_value(r), ensure_ascii=False, default=str) for r in records or []))


def execution_reward(episode: Mapping[str, Any], gold: Mapping[str, Any]) -> float:
    gold_records = [r for r in gold.get("records") or [] if r]
    if not gold_records:
        return 0.0
    returned = {records_key(e.get("records")) for e in episode.get("executed") or [] if e.get("ok")}
    return sum(1 for records in gold_records if records_key(records) in returned) / len(gold_records)


def answer_spec(gold: Mapping[str, Any]):
    """The KOPA-Bench AnswerSpec of a gold answer: the stated spec, or numeric for one quantity, else contains."""
    if gold.get("answer_spec"):
        return answer_from_dict(gold["answer_spec"])
    short = extract_answer(str(gold.get("answer") or ""))
    quantities = read_quantities(short)
    if len(quantities) == 1 and _SINGLE_QUANTITY.match(short):
        return answer_from_dict(
            {"checker": "numeric", "value": quantities[0].value, "text": short, "unit": None, "rel_tolerance": 0.0}
        )
    return answer_from_dict({"checker": "contains", "value": short, "text": short})


def answer_reward(episode: Mapping[str, Any], gold: Mapping[str, Any]) -> float:
    reply = episode.get("answer")
    if not reply or not gold.get("answer") or not _MARKER.search(reply):
        return 0.0
    spec = answer_spec(gold)
    if spec.checker == "numeric":
        return float(bool(check_numeric(reply, float(spec.value))) or bool(check_contains(reply, spec.text)))
    return float(bool(check_answer(spec, reply)))


def binary_reward(episode: Mapping[str, Any], gold: Mapping[str, Any]) -> float:
    ok = (
        format_reward(episode, gold) == 1.0
        and tool_name_reward(episode, gold) == 1.0
        and arguments_reward(episode, gold) == 1.0
    )
    return 1.0 if ok else 0.0


SCORERS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], float]] = {
    "format": format_reward,
    "tool_name": tool_name_reward,
    "arguments": arguments_reward,
    "execution": execution_reward,
    "answer": answer_reward,
    "binary": binary_reward,
}


def score(episode: Mapping[str, Any], gold: Mapping[str, Any]) -> dict[str, float]:
    """Every component of one episode."""
    return {name: float(scorer(episode, gold)) for name, scorer in SCORERS.items()}


def total(scores: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """The weighted sum a preset trains on."""
    return sum(weights.get(name, 0.0) * value for name, value in scores.items())


def tool_call_valid(episode: Mapping[str, Any]) -> bool:
    """At least one call, and every call parsed: the validity rate of the research check."""
    calls = _calls(episode)
    return bool(calls) and all(not c.get("error") and c.get("name") for c in calls)
