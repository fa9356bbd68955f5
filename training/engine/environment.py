"""The rollout environment: multi-turn episodes where the model's tool calls are executed for real.

`ToolExecutor` runs a call through the sandbox over HTTP (apis.engine.executor, via the benchmark's
ExecutorToolEnvironment: the same observation payload and caps as KOPA-Bench, with the trajectory's clock sent as
X-Sandbox-Now), or in replay mode answers a call with the recorded observation of the gold call it matches
(canonical arguments and alternatives) and a `replay.miss` error otherwise.

`run_episodes` is the agent loop over token ids, with generation passed in (transformers' generate on CPU, or
TRL's vLLM engine on a GPU), so it needs no torch itself: the prompt is rendered with the example's tool
schemas by the chat template; each model turn is parsed for Hermes/Qwen tool calls; the calls are executed and
their results appended as a `<tool_response>` user turn, exactly as the qwen3 template renders tool messages;
this repeats until the model answers without a call, `max_turns` is reached or the completion budget is spent.
Environment tokens are masked out of the loss (env_mask 0).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.engine.metrics import call_matches
from benchmarks.engine.task import GoldCall
from training.engine.data import Example
from training.engine.rewards import parse_turn

MODES = ("sandbox", "replay")
TOOL_OPEN = "\n<|im_start|>user"
TOOL_CLOSE = "<|im_end|>\n<|im_start|>assistant\n"


class ToolEnvironmentError(RuntimeError):
    """The environment cannot run (no sandbox, a tool missing from the catalog)."""


@dataclass
class Executed:
    name: str | None
    arguments: dict[str, Any] | None
    ok: bool
    content: str
    records: list[Any]
    error_class: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "ok": self.ok, "records": self.records}


def _error(error_class: str, message: str) -> Executed:
    body = json.dumps({"ok": False, "error_class": error_class, "error": message}, ensure_ascii=False)
    return Executed(None, None, False, body, [], error_class)


class ToolExecutor:
    """Executes one example's calls: `execute(example, name, arguments) -> Executed`. Not thread-safe."""

    def __init__(self, mode: str = "sandbox", *, sandbox_url: str = "", sandbox_key: str = ""):
        if mode not in MODES:
            raise ToolEnvironmentError(f"tool mode must be one of {', '.join(MODES)}; got {mode!r}")
        self.mode = mode
        self._envs: dict[str, Any] = {}
        self._loop = asyncio.new_event_loop()
        if mode == "sandbox":
            if not sandbox_url:
                raise ToolEnvironmentError("sandbox mode needs the sandbox URL (tools.sandbox_url)")
            from apis.sandbox.config import DEMO_KEY
            from benchmarks.engine.cli import sandbox_catalog
            from benchmarks.engine.runner import ClockedExecutors

            self.catalog = sandbox_catalog()
            self.executors = ClockedExecutors(
                "sandbox", sandbox_origin=sandbox_url, sandbox_key=sandbox_key or DEMO_KEY
            )

    def check(self, examples: Sequence[Example]) -> None:
        """Refuse data whose tools the sandbox catalog does not have, before any training starts."""
        if self.mode != "sandbox":
            return
        missing = sorted({n for e in examples for n in e.tool_names} - set(self.catalog.tools))
        if missing:
            raise ToolEnvironmentError(f"the sandbox catalog has no tool named {', '.join(missing[:10])}")

    def _environment(self, example: Example):
        from benchmarks.engine.runner import ExecutorToolEnvironment

        key = f"{example.clock}|{','.join(example.tool_names)}"
        if key not in self._envs:
            executor = self.executors.for_clock(example.clock)
            self._envs[key] = ExecutorToolEnvironment(self.catalog, executor, names=example.tool_names)
        return self._envs[key]

    def execute(self, example: Example, name: str | None, arguments: Mapping[str, Any] | None) -> Executed:
        if not name or arguments is None:
            return _error("call.bad_json", "the call could not be read as {'name': ..., 'arguments': {...}}")
        if name not in example.tool_names:
            return _error("call.unknown_tool", f"no tool named {name!r} is offered")
        if self.mode == "replay":
            return self._replay(example, name, dict(arguments))
        observation = self._loop.run_until_complete(self._environment(example).execute(name, dict(arguments)))
        try:
            records = list(json.loads(observation.content).get("records") or [])
        except (json.JSONDecodeError, AttributeError):
            records = []
        return Executed(name, dict(arguments), observation.ok, observation.content, records, observation.error_class)

    def _replay(self, example: Example, name: str, arguments: dict[str, Any]) -> Executed:
        gold = example.gold
        for index, call in enumerate(gold["calls"]):
            spec = GoldCall(id=str(index), tool=call["name"], args=call["arguments"], alternatives=call["alternatives"])
            records = gold["records"][index]
            if records is not None and call_matches(spec, name, arguments):
                body = {"ok": True, "record_count": len(records), "records": records}
                return Executed(name, arguments, True, json.dumps(body, ensure_ascii=False), list(records))
        return _error("replay.miss", "no recorded answer for this call")

    def close(self) -> None:
        if self.mode == "sandbox":
            self._loop.run_until_complete(self.executors.aclose())
        self._loop.close()


def executor_from_config(tools: Mapping[str, Any]) -> ToolExecutor:
    """A ToolExecutor from the config's `tools` block; the sandbox key is read from the named variable."""
    key_env = tools.get("sandbox_key_env") or ""
    return ToolExecutor(
        tools.get("mode", "sandbox"),
        sandbox_url=tools.get("sandbox_url") or "",
        sandbox_key=os.environ.get(key_env, ""),
    )


# ------------------------------------------------------------------------------------------ the loop

Generate = Callable[[list[list[int]], int], list[list[int]]]


@dataclass
class Rollout:
    prompt_ids: list[int]
    completion_ids: list[int]
    env_mask: list[int]
    episode: dict[str, Any]


def tool_turn_text(contents: Sequence[str]) -> str:
    """The tokens between a model turn that called tools and the next model turn, as the qwen3 template renders."""
    return TOOL_OPEN + "".join(f"\n<tool_response>\n{c}\n</tool_response>" for c in contents) + TOOL_CLOSE


def run_episodes(
    examples: Sequence[Example],
    tokenizer,
    generate: Generate,
    executor: ToolExecutor,
    *,
    max_completion_length: int,
    max_turns: int = 4,
) -> list[Rollout]:
    """One episode per example (repeat an example for several generations), turns batched across episodes."""
    eos = tokenizer.eos_token_id
    rollouts = []
    for example in examples:
        prompt_ids = tokenizer.apply_chat_template(
            example.prompt, tools=example.tools, add_generation_prompt=True, tokenize=True, return_dict=False
        )
        if isinstance(prompt_ids, Mapping):
            prompt_ids = prompt_ids["input_ids"]
        rollouts.append(Rollout(list(prompt_ids), [], [], {"turns": [], "executed": [], "answer": None}))
    active = list(range(len(rollouts)))
    for _turn in range(max_turns):
        if not active:
            break
        contexts = [rollouts[i].prompt_ids + rollouts[i].completion_ids for i in active]
        budgets = [max_completion_length - len(rollouts[i].completion_ids) for i in active]
        outputs = generate(contexts, max(budgets))
        still = []
        for i, budget, new in zip(active, budgets, outputs, strict=True):
            rollout, example = rollouts[i], examples[i]
            new = list(new)[:budget]
            if eos in new:
                new = new[: new.index(eos) + 1]
            rollout.completion_ids += new
            rollout.env_mask += [1] * len(new)
            text = tokenizer.decode([t for t in new if t != eos], skip_special_tokens=False)
            content, calls = parse_turn(text)
            rollout.episode["turns"].append({"text": text, "calls": calls})
            ended = bool(new) and new[-1] == eos
            if not calls:
                # A reply cut off by the budget is no answer: it never said it was done.
                rollout.episode["answer"] = content if ended else None
                continue
            if not ended:
                continue  # the budget ran out inside the turn
            results = [executor.execute(example, c["name"], c["arguments"]) for c in calls]
            for call, result in zip(calls, results, strict=True):
                call["ok"] = result.ok
            rollout.episode["executed"] += [r.to_dict() for r in results]
            env_ids = tokenizer.encode(tool_turn_text([r.content for r in results]), add_special_tokens=False)
            if len(rollout.completion_ids) + len(env_ids) >= max_completion_length:
                continue  # no room for the result and another turn: the completion ends at the call
            rollout.completion_ids += env_ids
            rollout.env_mask += [0] * len(env_ids)
            still.append(i)
        active = still
    return rollouts


def episode_stats(rollouts: Sequence[Rollout]) -> dict[str, float]:
    """Tool-call frequency (share of episodes that called) and failure frequency (share of calls that could not be
    read or whose execution failed)."""
    if not rollouts:
        return {}
    calls = [c for r in rollouts for t in r.episode["turns"] for c in t["calls"]]
    called = sum(1 for r in rollouts if any(t["calls"] for t in r.episode["turns"]))
    failed = sum(1 for c in calls if c["error"] or c.get("ok") is False)
    return {
        "tools/call_frequency": called / len(rollouts),
        "tools/failure_frequency": failed / len(calls) if calls else 0.0,
        "tools/calls_per_episode": len(calls) / len(rollouts),
        "episodes/answered": sum(1 for r in rollouts if r.episode["answer"]) / len(rollouts),
    }
