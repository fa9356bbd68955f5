"""Reads of KOPA-Bench: task lists and their facets, run reports shaped for pages, an episode beside its gold
trajectory, and the leaderboard (one row per model, its chart and the same numbers as a table)."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max, QuerySet
from django.urls import reverse

from apis.models import Tool
from benchmarks.engine import leaderboard as board_engine
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
    question = spec.get("question", [])
    if "turns" in spec:  # multi-turn: the whole conversation, each step's calls and the simulated APIs' answers
        question = [_bfcl_message(m) for m in transcript.get("messages", [])] or question
    return {
        "question": question,
        "functions": json.dumps(spec.get("function", []), ensure_ascii=False, indent=2),
        "result": json.dumps(transcript.get("result"), ensure_ascii=False, indent=2),
        "content": transcript.get("content", ""),
        "verdict": transcript.get("verdict", {}),
        "ground_truth": json.dumps(result.task.gold, ensure_ascii=False, indent=2) if result.task.gold else "",
        "category": transcript.get("category", ""),
        "error": transcript.get("error", ""),
        "latency_s": transcript.get("latency_s", 0.0),
    }


def _bfcl_message(message: dict[str, Any]) -> dict[str, str]:
    calls = [f"{call['function']['name']}({call['function']['arguments']})" for call in message.get("tool_calls") or []]
    return {"role": message.get("role", ""), "content": "\n".join(filter(None, [message.get("content") or "", *calls]))}


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

BOARD_FIELDS = (
    "id",
    "model_id",
    "model_snapshot",
    "board",
    "benchmark",
    "benchmark_version",
    "task_checksum",
    "git_commit",
    "finished_at",
    "seeds",
    "created_by__username",
)


@dataclass
class BoardQuery:
    """What the leaderboard page, its exports and the API were asked for."""

    board: str = ""  # a task set's checksum prefix; empty: the canonical KOPA-Bench suite
    pick: str = "best"
    family: str = ""
    min_b: float | None = None
    max_b: float | None = None
    tuned: str = ""  # base | tuned
    backend: str = ""
    sort: str = "rank"
    descending: bool | None = None

    @classmethod
    def from_params(cls, params) -> BoardQuery:
        def number(name: str) -> float | None:
            try:
                value = float(params.get(name, "") or "nan")
            except ValueError:
                return None
            return None if value != value else value  # NaN: not given

        order = params.get("dir", "")
        return cls(
            board=(params.get("board") or params.get("tasks") or "").strip(),
            pick="latest" if params.get("pick") == "latest" else "best",
            family=(params.get("family") or "").strip(),
            min_b=number("min_b"),
            max_b=number("max_b"),
            tuned=params.get("tuned") if params.get("tuned") in ("base", "tuned") else "",
            backend=params.get("backend") if params.get("backend") in ModelEntry.Backend.values else "",
            sort=params.get("sort") if params.get("sort") in board_engine.SORT_KEYS else "rank",
            descending={"asc": False, "desc": True}.get(order),
        )

    def filters(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "min_b": self.min_b,
            "max_b": self.max_b,
            "tuned": self.tuned,
            "backend": self.backend,
        }


def _finished_runs() -> QuerySet[EvalRun]:
    """Finished runs with a score (a run that never reached its model has none)."""
    return EvalRun.objects.filter(status=EvalRun.Status.FINISHED, score__isnull=False)


def board_sets() -> list[dict[str, Any]]:
    """The boards (benchmark version + task set) that finished runs used, the canonical KOPA-Bench suite first,
    then KOPA-Bench sets by size, then BFCL sets by runs. One grouped query: no run's JSON is read."""
    grouped = (
        _finished_runs()
        .values("task_checksum", "benchmark")
        .annotate(runs=Count("id"), tasks=Max("task_count"), version=Max("benchmark_version"), last=Max("id"))
        .order_by("-last")
    )
    seen = [
        {
            "checksum": row["task_checksum"],
            "short": row["task_checksum"][:12],
            "benchmark": row["benchmark"],
            "version": row["version"],
            "tasks": int(row["tasks"] or 0),
            "runs": row["runs"],
            "canonical": False,
        }
        for row in grouped
    ]
    suite = Task.objects.filter(benchmark="kopa", is_active=True, file__startswith="benchmarks/tasks/").count()
    canonical = [entry for entry in seen if entry["benchmark"] == "kopa" and suite and entry["tasks"] == suite]
    for entry in canonical[:1]:
        entry["canonical"] = True
    ordered = sorted(
        seen,
        key=lambda e: (
            not e["canonical"],
            e["benchmark"] != "kopa",
            -e["tasks"] if e["benchmark"] == "kopa" else -e["runs"],
        ),
    )
    for entry in ordered:
        name = "KOPA-Bench" if entry["benchmark"] == "kopa" else "BFCL"
        unit = "tasks" if entry["benchmark"] == "kopa" else "entries"
        entry["label"] = f"{entry['version'] or name} · {entry['tasks']} {unit} · {entry['short']}" + (
            " · canonical suite" if entry["canonical"] else ""
        )
    return ordered


def _board_rows(checksum: str, pick: str, models: set[int] | None = None) -> list[dict[str, Any]]:
    """The board's rows (only these models' when given): which run per model is picked from a narrow first
    query (scores and dates only), and only the picked runs' snapshots and digests are read."""
    runs = _finished_runs().filter(task_checksum=checksum)
    chosen: dict[int, tuple] = {}
    narrow = runs.order_by().values_list("id", "model_id", "finished_at", "score")  # from the index alone
    for run_id, model_id, finished, score in narrow:
        when = finished.isoformat() if finished else ""
        key = (score, when, run_id) if pick == "best" else (when, run_id)
        if model_id not in chosen or key > chosen[model_id]:
            chosen[model_id] = key
    picked = [key[-1] for model_id, key in chosen.items() if models is None or model_id in models]
    rows = []
    for values in runs.filter(id__in=picked).order_by().values(*BOARD_FIELDS):
        values["identity"] = values.pop("model_snapshot") or {"id": values["model_id"], "name": str(values["model_id"])}
        values["ran_by"] = values.pop("created_by__username") or ""
        finished = values["finished_at"]
        values["finished_at"] = finished.isoformat(timespec="seconds") if finished else ""
        rows.append(board_engine.row_of(values))
    rows = board_engine.rank_rows(rows)
    url = reverse("benchmarks:run", args=[0])
    for row in rows:
        row["url"] = url.replace("/0/", f"/{row['run_id']}/")
    return rows


BOARD_CACHE_S = 300


def _board_stamp() -> tuple:
    """What changes whenever the board can: a run finishing with a score, or the canonical suite's size. Read
    from the covering index (finished runs never change their scores or snapshots afterwards)."""
    stamp = _finished_runs().order_by().aggregate(n=Count("id"), last=Max("id"), at=Max("finished_at"))
    suite = Task.objects.filter(benchmark="kopa", is_active=True, file__startswith="benchmarks/tasks/").count()
    return stamp["n"], stamp["last"], stamp["at"].isoformat() if stamp["at"] else "", suite


class _Memo:
    """Boards this process built or read lately, beside the shared cache: reading one back from the shared cache
    unpickles every row (a third of a cached page's time with 200 models). An entry counts only while the shared
    cache still holds its key (so a cleared cache, or one expired, is a miss here too) and for BOARD_CACHE_S."""

    size = 32

    def __init__(self):
        self._items: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, compute) -> Any:
        with self._lock:
            held = self._items.get(key)
        if held is not None and time.monotonic() - held[0] < BOARD_CACHE_S and cache.has_key(key):
            return held[1]
        value = cache.get(key)
        if value is None:
            value = compute()
            cache.set(key, value, BOARD_CACHE_S)
        with self._lock:
            self._items[key] = (time.monotonic(), value)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


_memo = _Memo()


def leaderboard(query: BoardQuery | None = None, *, charts: bool = True, cross: bool = True) -> dict[str, Any]:
    """One row per model on one board (a benchmark version and its task set; by default the canonical
    KOPA-Bench suite): its best or latest finished run, ranked by success over the whole board, then
    filtered and sorted; with base-vs-tuned pairs, KOPA-vs-BFCL pairs and the charts of the same numbers.
    Kept in the cache for a few minutes under a stamp of the finished runs, so a new result shows at once.
    The board comes as a fresh dict (callers may set its keys; its rows are shared, read them only), with the
    stamp it was read under."""
    query = query or BoardQuery()
    stamp = _board_stamp()
    asked = json.dumps([query.__dict__, charts, cross, stamp], sort_keys=True, default=str)
    key = "bench-board:" + hashlib.sha256(asked.encode()).hexdigest()
    board = _memo.get(key, lambda: _leaderboard(query, charts=charts, cross=cross))
    return {**board, "stamp": stamp}


def _leaderboard(query: BoardQuery, *, charts: bool, cross: bool) -> dict[str, Any]:
    sets = board_sets()
    empty = {"rows": [], "all_rows": 0, "sets": sets, "set": None, "categories": [], "query": query, "figures": {}}
    if not sets:
        return {**empty, "pairs": [], "cross": [], "families": [], "backends": []}
    chosen = next((s for s in sets if query.board and s["checksum"].startswith(query.board)), sets[0])
    everyone = _board_rows(chosen["checksum"], query.pick)
    shown = board_engine.filter_rows(everyone, **query.filters())
    rows = board_engine.sort_rows(shown, query.sort, query.descending)
    categories = sorted({c for row in everyone for c in row["categories"]})
    pairs = board_engine.base_tuned_pairs(shown)
    other = next((s for s in sets if s["benchmark"] != chosen["benchmark"]), None)
    pairs_across = cross_pairs(chosen, other, shown, query.pick) if cross else []
    ks = sorted({int(k) for row in everyone for k in row["pass_hat"]})
    board = {
        "rows": rows,
        "all_rows": len(everyone),
        "sets": sets,
        "set": chosen,
        "other": other,
        "categories": categories,
        "query": query,
        "pairs": pairs,
        "cross": pairs_across,
        "hat_k": str(ks[-1]) if ks else None,
        "families": sorted({row["identity"].get("family") for row in everyone if row["identity"].get("family")}),
        "backends": sorted({row["identity"].get("backend") for row in everyone if row["identity"].get("backend")}),
    }
    board["figures"] = leaderboard_figures(board) if charts and rows else {}
    return board


def cross_pairs(chosen, other, rows, pick: str, *, stamp: tuple | None = None) -> list[dict[str, Any]]:
    """KOPA-Bench against BFCL for these rows' models: the other board's runs of the same models only. Given the
    stamp the board was read under (leaderboard()'s), they are cached under it too."""
    if other is None or not rows:
        return []
    models = sorted({row["model_id"] for row in rows})

    def theirs() -> list[dict[str, Any]]:
        return _board_rows(other["checksum"], pick, models=set(models))

    if stamp is None:
        other_rows = theirs()
    else:
        asked = json.dumps([other["checksum"], pick, models, stamp], default=str)
        other_rows = _memo.get("bench-cross:" + hashlib.sha256(asked.encode()).hexdigest(), theirs)
    kopa, bfcl = (rows, other_rows) if chosen["benchmark"] == "kopa" else (other_rows, rows)
    return board_engine.cross_rows(kopa, bfcl)


def leaderboard_figures(board: dict[str, Any], rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The charts of these rows (default: all the board shows): scores, size, heatmap; pairs and KOPA-vs-BFCL
    cover the whole filtered board."""
    rows = sorted(board["rows"] if rows is None else rows, key=lambda row: row["rank"])
    urls = {row["run_id"]: row["url"] for row in rows}
    figures = {"scores": board_engine.scores_figure(rows, urls)}
    if any(row["identity"].get("params_b") for row in rows):
        figures["size"] = board_engine.size_figure(rows, urls)
    if board["categories"]:
        figures["heatmap"] = board_engine.heatmap_figure(rows, board["categories"])
    if board["pairs"]:
        figures["pairs"] = board_engine.pairs_figure(board["pairs"])
    if board["cross"]:
        figures["cross"] = board_engine.cross_figure(board["cross"])
    return figures


EXPORT_COLUMNS = (
    "rank",
    "rank_ub",
    "model",
    "family",
    "params_b",
    "tuned",
    "base_model",
    "tuned_from_run",
    "backend",
    "call_mode",
    "success",
    "success_low",
    "success_high",
    "pass1",
    "pass4",
    "pass_hat_k",
    "pass_hat",
    "calls_per_task",
    "tokens_per_task",
    "latency_mean_s",
    "latency_p95_s",
    "cost_usd_per_task",
    "tasks",
    "episodes",
    "seeds",
    "benchmark_version",
    "task_checksum",
    "git_commit",
    "finished_at",
    "ran_by",
    "run_id",
)


def export_rows(board: dict[str, Any]) -> list[dict[str, Any]]:
    """The board's rows flattened for CSV and JSON export (categories as "cat:<name>" columns)."""
    k = board.get("hat_k")
    out = []
    for row in board["rows"]:
        identity = row["identity"]
        base = identity.get("base_model") or {}
        pass1, pass4 = row["pass_at"].get("1"), row["pass_at"].get("4")
        hat = row["pass_hat"].get(str(k)) if k else None
        item = {
            "rank": row["rank"],
            "rank_ub": row["rank_ub"],
            "model": identity.get("name", ""),
            "family": identity.get("family", ""),
            "params_b": identity.get("params_b"),
            "tuned": row["tuned"],
            "base_model": base.get("name", ""),
            "tuned_from_run": identity.get("tuned_from_run"),
            "backend": identity.get("backend", ""),
            "call_mode": identity.get("call_mode", ""),
            "success": row["success"]["value"],
            "success_low": row["success"]["low"],
            "success_high": row["success"]["high"],
            "pass1": pass1["value"] if pass1 else None,
            "pass4": pass4["value"] if pass4 else None,
            "pass_hat_k": int(k) if k else None,
            "pass_hat": hat["value"] if hat else None,
            "calls_per_task": row["calls"],
            "tokens_per_task": row["tokens"],
            "latency_mean_s": row["latency_mean"],
            "latency_p95_s": row["latency_p95"],
            "cost_usd_per_task": row["cost"],
            "tasks": row["tasks"],
            "episodes": row["episodes"],
            "seeds": " ".join(str(seed) for seed in row["seeds"]),
            "benchmark_version": row["benchmark_version"],
            "task_checksum": row["task_checksum"],
            "git_commit": row["git_commit"],
            "finished_at": row["finished_at"],
            "ran_by": row["ran_by"],
            "run_id": row["run_id"],
        }
        for category in board["categories"]:
            estimate = row["categories"].get(category)
            item[f"cat:{category}"] = estimate["value"] if estimate else None
        out.append(item)
    return out
