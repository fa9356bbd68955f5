"""Reads of KOPA-Bench: task lists and their facets, run reports shaped for pages, an episode beside its gold
trajectory, and the leaderboard (one row per model, its chart and the same numbers as a table)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse

from apis.models import Tool
from benchmarks.engine.metrics import call_matches
from benchmarks.engine.suite import suite_stats
from benchmarks.engine.task import TaskSet
from benchmarks.models import EvalRun, ModelEntry, Task, TaskResult

AXES = (
    ("response", "Response", "the final answer passes its checker"),
    ("environment", "Environment", "every answer-bearing record was retrieved, every page"),
    ("action", "Action", "the calls match the gold calls (F1 = 1)"),
    ("success", "Success", "response × environment"),
)
# Colour-blind-safe (plotly's Safe palette) and a marker symbol per backend, so colour is never the only cue.
SAFE_COLOURS = ("#88CCEE", "#CC6677", "#DDCC77", "#117733", "#332288", "#AA4499", "#44AA99", "#999933", "#882255")
BACKEND_SYMBOLS = {"openai": "circle", "transformers": "square", "oracle": "diamond"}
LEADERBOARD_X = {
    "calls": ("calls per episode", "mean tool calls per episode"),
    "latency": ("latency", "mean episode latency (s)"),
}


def task_list() -> QuerySet[Task]:
    """KOPA-Bench tasks (BFCL entries are Task rows too, reached through their runs)."""
    return Task.objects.filter(benchmark="kopa")


def model_list() -> QuerySet[ModelEntry]:
    return ModelEntry.objects.select_related("created_by", "base_model")


def run_list() -> QuerySet[EvalRun]:
    return EvalRun.objects.select_related("model", "job", "created_by")


def result_list() -> QuerySet[TaskResult]:
    """Results without their transcripts (the large part); a detail view loads those."""
    return TaskResult.objects.select_related("task", "run__model").defer("transcript", "scores", "api_call_ids")


# --- Tasks -------------------------------------------------------------------------------------------------


def task_facets(rows: Iterable[Task]) -> dict[str, list[tuple[str, int]]]:
    """Counts of the tasks by difficulty, domain and category, for the filter bar."""
    difficulty, domain, category = Counter(), Counter(), Counter()
    for row in rows:
        difficulty[row.difficulty] += 1
        if row.domain:
            domain[row.domain] += 1
        category.update(row.tags)
    order = {level: index for index, level in enumerate(Task.Difficulty.values)}
    return {
        "difficulty": sorted(difficulty.items(), key=lambda item: order.get(item[0], 99)),
        "domain": sorted(domain.items()),
        "category": sorted(category.items(), key=lambda item: (-item[1], item[0])),
    }


def suite_figures(rows: list[Task]) -> dict[str, Any] | None:
    """The suite's figures (benchmarks.engine.suite) for these task rows; None when there are none."""
    if not rows:
        return None
    provider_of = dict(Tool.objects.values_list("function_name", "service__provider__code"))
    taskset = TaskSet(tasks=tuple(row.to_engine() for row in rows), data_versions={}, checksum="")
    return suite_stats(taskset, provider_of=provider_of).as_dict()


def task_gold_view(task: Task) -> dict[str, Any]:
    """The gold call graph as rows in dependency order: each call's layer (parallel group), what it waits for,
    the bindings that feed it, and its pages."""
    engine = task.to_engine()
    layer_of = {call.id: index for index, layer in enumerate(engine.layers()) for call in layer}
    calls = []
    for call in engine.calls:
        calls.append(
            {
                "id": call.id,
                "tool": call.tool,
                "layer": layer_of[call.id] + 1,
                "args": call.args,
                "alternatives": call.alternatives,
                "depends_on": call.depends_on,
                "bindings": call.bindings,
                "pages": call.pages,
                "answer_bearing": call.answer_bearing,
                "all_pages": call.all_pages,
            }
        )
    return {"calls": calls, "layers": len(engine.layers()), "answer": engine.answer}


# --- Runs -------------------------------------------------------------------------------------------------


def _estimate(data: dict | None) -> dict[str, Any] | None:
    if not data:
        return None
    return {"value": data["value"], "low": data["low"], "high": data["high"], "method": data.get("method", "")}


def _pass_rows(group: dict) -> list[dict[str, Any]]:
    ks = sorted(int(k) for k in group.get("pass_at", {}))
    return [{"k": k, "at": group["pass_at"][str(k)], "hat": group["pass_hat"][str(k)]} for k in ks]


def _group_row(name: str, group: dict) -> dict[str, Any]:
    return {
        "name": name,
        "tasks": group["tasks"],
        "episodes": group["episodes"],
        **{key: _estimate(group[key]) for key, _, _ in AXES},
        "pass": _pass_rows(group),
        "pass_by_k": {row["k"]: row for row in _pass_rows(group)},
        "calls": group["efficiency"].get("calls_per_episode"),
        "invalid_rate": group["errors"].get("invalid_call_rate"),
    }


def _bfcl_report(run: EvalRun, summary: dict[str, Any]) -> dict[str, Any]:
    overall = summary["overall"]
    errors = Counter(overall.get("errors", {}).get("by_type", {}))
    return {
        "bfcl": True,
        "accuracy": overall["success"],
        "category_mean": overall.get("category_mean"),
        "pass": _pass_rows(overall),
        "tasks": overall["tasks"],
        "episodes": overall["episodes"],
        "seeds_per_task": overall["seeds_per_task"],
        "categories": [
            {
                "name": name,
                "tasks": group["tasks"],
                "episodes": group["episodes"],
                "success": group["success"],
                "pass_by_k": {row["k"]: row for row in _pass_rows(group)},
                "calls": group["efficiency"].get("calls_per_episode"),
            }
            for name, group in sorted(summary.get("categories", {}).items())
        ],
        "errors": errors.most_common(),
        "efficiency": overall["efficiency"],
        "cost": overall["cost"],
        "latency": summary.get("latency", {}),
        "complete": summary.get("complete", False),
    }


def run_report(run: EvalRun) -> dict[str, Any] | None:
    """The run's summary shaped for its page; None before any episode is stored."""
    summary = run.summary or {}
    overall = summary.get("overall")
    if not overall:
        return None
    if run.benchmark == "bfcl":
        return _bfcl_report(run, summary)
    errors = overall["errors"]
    return {
        "axes": [{"key": key, "label": label, "help": help_text, **overall[key]} for key, label, help_text in AXES],
        "pass": _pass_rows(overall),
        "pass1_seeds": overall["pass1_seeds"],
        "seeds_per_task": overall["seeds_per_task"],
        "tasks": overall["tasks"],
        "episodes": overall["episodes"],
        "categories": [_group_row(name, group) for name, group in sorted(summary.get("categories", {}).items())],
        "difficulties": [
            _group_row(name, summary["difficulties"][name])
            for name in Task.Difficulty.values
            if name in summary.get("difficulties", {})
        ],
        "action_detail": overall["action_detail"],
        "efficiency": overall["efficiency"],
        "cost": overall["cost"],
        "latency": summary.get("latency", {}),
        "errors": {key: value for key, value in errors.items() if not isinstance(value, dict)},
        "invalid_by_kind": sorted(errors["invalid_by_kind"].items(), key=lambda item: -item[1]),
        "execution_by_class": sorted(errors["execution_by_class"].items(), key=lambda item: -item[1]),
        "complete": summary.get("complete", False),
    }


@dataclass
class CallView:
    step: int
    id: str
    name: str | None
    arguments: Any
    raw_arguments: str
    status: str
    error_class: str | None
    error: str
    observation: str
    total_count: int | None
    records_delivered: int
    latency_ms: float
    api_call_id: int | None
    gold: list[str] = field(default_factory=list)  # ids of the gold calls it matches

    @property
    def observation_pretty(self) -> str:
        try:
            return json.dumps(json.loads(self.observation), ensure_ascii=False, indent=2)
        except (TypeError, ValueError):
            return self.observation


def bfcl_result_view(result: TaskResult) -> dict[str, Any]:
    """A BFCL entry's page: the question, the functions offered, what the model returned and the verdict
    beside the accepted answers."""
    transcript = result.transcript
    spec = result.task.spec or {}
    return {
        "question": spec.get("question", []),
        "functions": json.dumps(spec.get("function", []), ensure_ascii=False, indent=2),
        "result": json.dumps(transcript.get("result"), ensure_ascii=False, indent=2),
        "content": transcript.get("content", ""),
        "verdict": transcript.get("verdict", {}),
        "ground_truth": json.dumps(result.task.gold, ensure_ascii=False, indent=2) if result.task.gold else "",
        "category": transcript.get("category", ""),
        "error": transcript.get("error", ""),
        "latency_s": transcript.get("latency_s", 0.0),
    }


def result_view(result: TaskResult) -> dict[str, Any]:
    """An episode beside its task's gold trajectory: each step's text and calls (with observation, ApiCall and
    the gold calls it matches), and each gold call with whether the episode retrieved it."""
    task = result.task.to_engine()
    transcript = result.transcript
    ids = list(result.api_call_ids)
    steps, matched_by = [], {call.id: [] for call in task.calls}
    position = 0
    for step in transcript.get("steps", []):
        views = []
        for call in step.get("calls", []):
            api_call_id = ids[position] if position < len(ids) else None
            position += 1
            view = CallView(
                step=call["step"],
                id=call["id"],
                name=call.get("name"),
                arguments=call.get("arguments"),
                raw_arguments=call.get("raw_arguments", ""),
                status=call["status"],
                error_class=call.get("error_class"),
                error=call.get("error", ""),
                observation=call.get("observation", ""),
                total_count=call.get("total_count"),
                records_delivered=call.get("records_delivered", 0),
                latency_ms=call.get("latency_ms", 0.0),
                api_call_id=api_call_id,
            )
            if call["status"] != "invalid":
                for gold in task.calls:
                    if call_matches(gold, view.name, view.arguments, task.ignore_args):
                        view.gold.append(gold.id)
                        matched_by[gold.id].append(view.step + 1)
            views.append(view)
        steps.append(
            {
                "index": step["index"] + 1,
                "content": step.get("content", ""),
                "latency_s": step.get("latency_s", 0.0),
                "usage": step.get("usage", {}),
                "finish_reason": step.get("finish_reason", ""),
                "calls": views,
            }
        )
    scores = result.scores
    environment = scores["environment"]["calls"]
    gold_rows = []
    for row in task_gold_view(result.task)["calls"]:
        turns = Counter(matched_by[row["id"]])
        labels = [f"turn {turn}" + (f" ({n} calls)" if n > 1 else "") for turn, n in sorted(turns.items())]
        gold_rows.append({**row, "retrieved": environment.get(row["id"]), "matched_by": labels})
    return {
        "steps": steps,
        "gold": gold_rows,
        "answer": task.answer,
        "final_answer": transcript.get("answer"),
        "stop_reason": transcript.get("stop_reason"),
        "error": transcript.get("error", ""),
        "scores": scores,
    }


# --- Leaderboard ---------------------------------------------------------------------------------------------


def _short(checksum: str) -> str:
    return checksum[:12]


def task_sets() -> list[dict[str, Any]]:
    """The task sets that finished runs used, newest first: checksum, tasks, runs, data versions."""
    seen: dict[str, dict[str, Any]] = {}
    rows = EvalRun.objects.filter(status=EvalRun.Status.FINISHED).order_by("-finished_at", "-id")
    for checksum, codes, versions in rows.values_list("task_checksum", "task_codes", "data_versions"):
        entry = seen.setdefault(
            checksum,
            {"checksum": checksum, "short": _short(checksum), "tasks": len(codes), "runs": 0, "versions": versions},
        )
        entry["runs"] += 1
    return list(seen.values())


def leaderboard(*, pick: str = "best", task_checksum: str | None = None, x: str = "calls") -> dict[str, Any]:
    """One row per model over one task set: its best (highest success) or latest finished run, ranked by
    success, with per-axis and per-category scores, pass@k, calls, latency and tokens, and a chart of the same
    numbers (success vs calls or latency)."""
    sets = task_sets()
    if not sets:
        return {"rows": [], "sets": [], "set": None, "categories": [], "figure": None, "pick": pick, "x": x}
    chosen = next((s for s in sets if task_checksum and s["checksum"].startswith(task_checksum)), sets[0])
    runs = (
        EvalRun.objects.filter(status=EvalRun.Status.FINISHED, task_checksum=chosen["checksum"])
        .select_related("model")
        .order_by("-finished_at", "-id")
    )
    best: dict[int, EvalRun] = {}
    for run in runs:
        if not run.overall:
            continue
        current = best.get(run.model_id)
        if current is None or pick == "best" and run.overall["success"]["value"] > current.overall["success"]["value"]:
            best[run.model_id] = run
    categories = sorted({c for run in best.values() for c in run.summary.get("categories", {})})
    rows = [_leaderboard_row(run, categories) for run in best.values()]
    rows.sort(key=lambda row: (-row["success"]["value"], row["model"].name))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return {
        "rows": rows,
        "sets": sets,
        "set": chosen,
        "categories": categories,
        "figure": leaderboard_figure(rows, x=x) if rows else None,
        "pick": pick,
        "x": x,
        "ks": sorted({p["k"] for row in rows for p in row["pass"]}),
    }


def _leaderboard_row(run: EvalRun, categories: list[str]) -> dict[str, Any]:
    summary = run.summary
    overall = summary["overall"]
    per_category = summary.get("categories", {})
    latency = summary.get("latency", {})
    cost = overall["cost"]
    return {
        "model": run.model,
        "run": run,
        "url": reverse("benchmarks:run", args=[run.pk]),
        **{key: _estimate(overall[key]) for key, _, _ in AXES},
        "pass": _pass_rows(overall),
        "pass_by_k": {p["k"]: p for p in _pass_rows(overall)},
        "categories": [_estimate(per_category[c]["success"]) if c in per_category else None for c in categories],
        "calls": overall["efficiency"].get("calls_per_episode") or 0.0,
        "call_ratio": overall["efficiency"].get("call_ratio_successful"),
        "latency_mean": latency.get("episode_mean_s", 0.0),
        "latency_p95": latency.get("episode_p95_s", 0.0),
        "tokens": cost["prompt_tokens_per_episode"] + cost["completion_tokens_per_episode"],
        "episodes": summary.get("episodes", overall["episodes"]),
        "seeds": len(run.seeds),
    }


def leaderboard_figure(rows: list[dict[str, Any]], *, x: str = "calls") -> dict[str, Any]:
    """Success (with its 95 % interval) against calls per episode or latency: one trace per model, so each
    has its own colour and legend entry, and a marker symbol per backend."""
    import plotly.graph_objects as go

    key = "latency_mean" if x == "latency" else "calls"
    figure = go.Figure()
    for index, row in enumerate(rows):
        success = row["success"]
        figure.add_trace(
            go.Scatter(
                x=[round(row[key], 3)],
                y=[round(100 * success["value"], 1)],
                error_y={
                    "type": "data",
                    "array": [round(100 * (success["high"] - success["value"]), 1)],
                    "arrayminus": [round(100 * (success["value"] - success["low"]), 1)],
                    "thickness": 1.2,
                },
                mode="markers+text",
                text=[row["model"].name],
                textposition="top center",
                marker={
                    "size": 13,
                    "color": SAFE_COLOURS[index % len(SAFE_COLOURS)],
                    "symbol": BACKEND_SYMBOLS.get(row["run"].backend, "circle"),
                    "line": {"color": "#24292f", "width": 1},
                },
                customdata=[row["url"]],
                hovertemplate=(
                    f"{row['model'].name}<br>success %{{y}}% [{100 * success['low']:.1f}, {100 * success['high']:.1f}]"
                    f"<br>{LEADERBOARD_X[x][1]}: %{{x}}<extra></extra>"
                ),
                name=row["model"].name,
            )
        )
    figure.update_layout(
        height=420,
        margin={"l": 60, "r": 20, "t": 20, "b": 50},
        xaxis={"title": LEADERBOARD_X[x][1], "rangemode": "tozero"},
        yaxis={"title": "success (%), 95 % interval", "range": [-5, 115]},
        plot_bgcolor="#fff",
        legend={"orientation": "h", "y": -0.2},
    )
    return json.loads(figure.to_json())
