"""Engine objects as plain JSON and back, for stores such as database rows.

`task_from_dict` is the inverse of `Task.to_dict()`: a stored task becomes the same engine Task, with the same
checksum, that its file gave. `episode_score_from_dict` is the inverse of `EpisodeScore.to_dict()`, so a run's
report can be aggregated again from the scores stored when its episodes ran.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from benchmarks.engine.accounting import EpisodeAccount, Usage
from benchmarks.engine.metrics import ActionScore, Efficiency, EnvironmentScore, EpisodeScore, ErrorBreakdown
from benchmarks.engine.task import ALL_TOOLS, AnswerSpec, Binding, GoldCall, Paging, Task


def task_from_dict(data: Mapping[str, Any]) -> Task:
    """The Task that `Task.to_dict()` produced `data` from. Raises KeyError/TypeError on a malformed dict."""
    tools = data["tools"]
    return Task(
        id=data["id"],
        request=data["request"],
        tools=ALL_TOOLS if tools == ALL_TOOLS else tuple(tools),
        calls=tuple(gold_call_from_dict(call) for call in data["calls"]),
        answer=answer_from_dict(data["answer"]),
        categories=tuple(data["categories"]),
        difficulty=data["difficulty"],
        clock=data["clock"],
        toolset=data.get("toolset", ""),
        notes=data.get("notes", ""),
        ignore_args=tuple(data.get("ignore_args", ())),
        source=data.get("source", ""),
    )


def gold_call_from_dict(data: Mapping[str, Any]) -> GoldCall:
    return GoldCall(
        id=data["id"],
        tool=data["tool"],
        args=dict(data["args"]),
        alternatives=dict(data.get("alternatives", {})),
        after=tuple(data.get("after", ())),
        bindings=tuple(Binding(**binding) for binding in data.get("bindings", ())),
        answer_bearing=data.get("answer_bearing", True),
        all_pages=data.get("all_pages", True),
        pages=data.get("pages", 1),
        paging=Paging(**data["paging"]) if data.get("paging") else Paging(),
    )


def answer_from_dict(data: Mapping[str, Any]) -> AnswerSpec:
    return AnswerSpec(
        checker=data["checker"],
        value=data["value"],
        text=data["text"],
        aliases=tuple(data.get("aliases", ())),
        unit=data.get("unit"),
        tolerance=float(data.get("tolerance", 0.0)),
        rel_tolerance=float(data.get("rel_tolerance", 0.0)),
        forbid=tuple(data.get("forbid", ())),
    )


def episode_score_from_dict(data: Mapping[str, Any]) -> EpisodeScore:
    """The EpisodeScore that `EpisodeScore.to_dict()` produced `data` from."""
    action = {k: v for k, v in data["action"].items() if k != "passed"}  # passed is derived from f1
    account = dict(data["account"])
    usage = account.pop("usage")
    return EpisodeScore(
        task_id=data["task_id"],
        seed=data["seed"],
        categories=tuple(data["categories"]),
        difficulty=data["difficulty"],
        response=data["response"],
        response_detail=data["response_detail"],
        environment=EnvironmentScore(**data["environment"]),
        action=ActionScore(**action),
        success=data["success"],
        stop_reason=data["stop_reason"],
        efficiency=Efficiency(**data["efficiency"]),
        errors=ErrorBreakdown(**data["errors"]),
        account=EpisodeAccount(
            **{
                **account,
                "usage": Usage(usage["prompt_tokens"], usage["completion_tokens"]),
                "invalid_by_kind": Counter(account.get("invalid_by_kind", {})),
                "failed_by_class": Counter(account.get("failed_by_class", {})),
            }
        ),
    )
