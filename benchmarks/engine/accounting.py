"""Token, latency and call accounting for agent episodes and whole runs.

Model usage is what the backend reports (an OpenAI-compatible server's `usage`, or the token counts of a local
generation); latency is wall time measured around each model turn and each tool call. Oracle and scripted
backends report no tokens.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)


@dataclass
class EpisodeAccount:
    """What one episode cost: model turns, tokens, time, and tool calls by outcome."""

    model_turns: int = 0
    usage: Usage = field(default_factory=Usage)
    model_latency_s: float = 0.0
    tool_latency_s: float = 0.0
    wall_s: float = 0.0
    tool_calls: int = 0
    valid_calls: int = 0
    invalid_calls: int = 0
    failed_calls: int = 0  # valid, executed, and the API reported an error
    ok_calls: int = 0
    invalid_by_kind: Counter = field(default_factory=Counter)
    failed_by_class: Counter = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["usage"]["total_tokens"] = self.usage.total_tokens
        data["invalid_by_kind"] = dict(self.invalid_by_kind)
        data["failed_by_class"] = dict(self.failed_by_class)
        return data


def episode_account(episode: Any) -> EpisodeAccount:
    """Tally an EpisodeResult (benchmarks.engine.runner) from its steps."""
    account = EpisodeAccount(wall_s=episode.wall_s)
    for step in episode.steps:
        account.model_turns += 1
        account.usage = account.usage + step.usage
        account.model_latency_s += step.latency_s
        for call in step.calls:
            account.tool_calls += 1
            if call.status == "invalid":
                account.invalid_calls += 1
                account.invalid_by_kind[call.error_class or "call.invalid"] += 1
                continue
            account.valid_calls += 1
            account.tool_latency_s += call.latency_ms / 1000
            if call.ok:
                account.ok_calls += 1
            else:
                account.failed_calls += 1
                account.failed_by_class[call.error_class or "unknown"] += 1
    return account


@dataclass
class RunAccount:
    episodes: int
    wall_s: float  # the run's own wall time (episodes overlap under concurrency)
    model_turns: int
    prompt_tokens: int
    completion_tokens: int
    tool_calls: int
    invalid_calls: int
    failed_calls: int
    episodes_per_s: float
    tokens_per_episode: float
    turn_latency_p50_s: float
    turn_latency_p95_s: float
    tool_latency_p50_ms: float
    tool_latency_p95_ms: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_account(episodes: Sequence[Any], *, wall_s: float | None = None) -> RunAccount:
    """Totals and latency percentiles over a run. wall_s defaults to the longest episode (a sequential lower bound)."""
    accounts = [episode_account(e) for e in episodes]
    turn_latencies = [step.latency_s for e in episodes for step in e.steps]
    tool_latencies = [c.latency_ms for e in episodes for s in e.steps for c in s.calls if c.status != "invalid"]
    wall = wall_s if wall_s is not None else max((a.wall_s for a in accounts), default=0.0)
    tokens = sum(a.usage.total_tokens for a in accounts)
    return RunAccount(
        episodes=len(accounts),
        wall_s=wall,
        model_turns=sum(a.model_turns for a in accounts),
        prompt_tokens=sum(a.usage.prompt_tokens for a in accounts),
        completion_tokens=sum(a.usage.completion_tokens for a in accounts),
        tool_calls=sum(a.tool_calls for a in accounts),
        invalid_calls=sum(a.invalid_calls for a in accounts),
        failed_calls=sum(a.failed_calls for a in accounts),
        episodes_per_s=len(accounts) / wall if wall > 0 else 0.0,
        tokens_per_episode=tokens / len(accounts) if accounts else 0.0,
        turn_latency_p50_s=percentile(turn_latencies, 50),
        turn_latency_p95_s=percentile(turn_latencies, 95),
        tool_latency_p50_ms=percentile(tool_latencies, 50),
        tool_latency_p95_ms=percentile(tool_latencies, 95),
    )


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile by linear interpolation (0.0 for no values)."""
    data = sorted(values)
    if not data:
        return 0.0
    if len(data) == 1:
        return float(data[0])
    return float(statistics.quantiles(data, n=100, method="inclusive")[max(0, min(98, round(q) - 1))])
