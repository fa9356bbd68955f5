"""The leaderboard's figures, from plain data (no Django): a run's digest of its summary, one row per model
(its best or latest run), ranks with their interval-aware upper bound, cost, filters, sorting, base-vs-tuned
pairs and the charts (plotly figure dicts, drawn by the locally served plotly.js).

A digest keeps only what the board shows, so the page reads a few hundred bytes per run instead of the whole
summary: overall success and pass@k / pass^k with their intervals, each category's success, calls, tokens
and latency per task.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# Colour-blind-safe (plotly's Safe palette); base and tuned models also differ by marker shape.
SAFE_COLOURS = ("#88CCEE", "#CC6677", "#DDCC77", "#117733", "#332288", "#AA4499", "#44AA99", "#999933", "#882255")
TUNED_SYMBOL = {False: "circle", True: "diamond"}
SORT_KEYS = {
    "rank": lambda row: row["rank"],
    "model": lambda row: row["identity"].get("name", "").lower(),
    "params": lambda row: row["identity"].get("params_b") or 0.0,
    "success": lambda row: row["success"]["value"],
    "pass1": lambda row: _value(row["pass_at"].get("1")),
    "pass4": lambda row: _value(row["pass_at"].get("4")),
    "calls": lambda row: row["calls"] if row["calls"] is not None else float("inf"),
    "tokens": lambda row: row["tokens"],
    "latency": lambda row: row["latency_mean"] or 0.0,
    "p95": lambda row: row["latency_p95"] or 0.0,
    "cost": lambda row: row["cost"] if row["cost"] is not None else float("inf"),
    "date": lambda row: row["finished_at"] or "",
}


def _value(estimate: Mapping[str, Any] | None) -> float:
    return estimate["value"] if estimate else -1.0


def _estimate(data: Mapping[str, Any] | None) -> dict[str, float] | None:
    if not data:
        return None
    return {"value": round(data["value"], 4), "low": round(data["low"], 4), "high": round(data["high"], 4)}


def digest(summary: Mapping[str, Any]) -> dict[str, Any]:
    """What the board shows of a run's summary (KOPA-Bench or BFCL); {} before any episode is stored."""
    overall = (summary or {}).get("overall")
    if not overall:
        return {}
    latency = summary.get("latency", {})
    cost = overall.get("cost", {})
    return {
        "success": _estimate(overall["success"]),
        "pass_at": {str(k): _estimate(v) for k, v in overall.get("pass_at", {}).items()},
        "pass_hat": {str(k): _estimate(v) for k, v in overall.get("pass_hat", {}).items()},
        "categories": {name: _estimate(group["success"]) for name, group in summary.get("categories", {}).items()},
        "calls": overall.get("efficiency", {}).get("calls_per_episode"),
        "prompt_tokens": cost.get("prompt_tokens_per_episode", 0.0),
        "completion_tokens": cost.get("completion_tokens_per_episode", 0.0),
        "latency_mean": latency.get("episode_mean_s"),
        "latency_p95": latency.get("episode_p95_s"),
        "tasks": overall.get("tasks", 0),
        "episodes": summary.get("episodes", overall.get("episodes", 0)),
        "backend_error_rate": overall.get("errors", {}).get("backend_error_rate"),
        "complete": bool(summary.get("complete", False)),
    }


def score_of(board: Mapping[str, Any]) -> float | None:
    """The run's overall success for ranking, or None when it has none to rank (no episode, model unreached)."""
    return board["success"]["value"] if reached_model(board) else None


def task_cost(identity: Mapping[str, Any], prompt_tokens: float, completion_tokens: float) -> float | None:
    """USD per task from the model's prices per million tokens; None when a price is unknown."""
    price_in, price_out = identity.get("price_in_per_mtok"), identity.get("price_out_per_mtok")
    if price_in is None or price_out is None:
        return None
    return (prompt_tokens * price_in + completion_tokens * price_out) / 1_000_000


def row_of(run: Mapping[str, Any]) -> dict[str, Any]:
    """A board row from a run's fields: id, model_id, identity (the snapshot), board (the digest), and its
    provenance (benchmark_version, task_checksum, git_commit, finished_at, seeds, ran_by)."""
    board = run["board"]
    identity = run["identity"]
    tokens = board["prompt_tokens"] + board["completion_tokens"]
    return {
        "run_id": run["id"],
        "model_id": run["model_id"],
        "identity": identity,
        "tuned": bool(identity.get("tuned")),
        "success": board["success"],
        "pass_at": board["pass_at"],
        "pass_hat": board["pass_hat"],
        "categories": board["categories"],
        "calls": board["calls"],
        "tokens": tokens,
        "prompt_tokens": board["prompt_tokens"],
        "completion_tokens": board["completion_tokens"],
        "latency_mean": board["latency_mean"],
        "latency_p95": board["latency_p95"],
        "cost": task_cost(identity, board["prompt_tokens"], board["completion_tokens"]),
        "tasks": board["tasks"],
        "episodes": board["episodes"],
        "seeds": list(run.get("seeds") or []),
        "benchmark_version": run.get("benchmark_version", ""),
        "task_checksum": run.get("task_checksum", ""),
        "git_commit": run.get("git_commit", ""),
        "finished_at": run.get("finished_at") or "",
        "ran_by": run.get("ran_by") or "",
    }


def reached_model(board: Mapping[str, Any]) -> bool:
    """False for a run that never reached its model (every episode a backend error): it has no place here."""
    return bool(board) and board.get("backend_error_rate") != 1.0


def pick_rows(runs: Iterable[Mapping[str, Any]], *, pick: str = "best") -> list[dict[str, Any]]:
    """One row per model: its best (highest success, then newest) or latest finished run."""
    chosen: dict[int, dict[str, Any]] = {}
    for run in runs:
        if not reached_model(run["board"]):
            continue
        row = row_of(run)
        current = chosen.get(row["model_id"])
        if current is None:
            chosen[row["model_id"]] = row
            continue
        newer = (row["finished_at"], row["run_id"]) > (current["finished_at"], current["run_id"])
        if pick == "latest":
            better = newer
        else:
            better = row["success"]["value"] > current["success"]["value"] or (
                row["success"]["value"] == current["success"]["value"] and newer
            )
        if better:
            chosen[row["model_id"]] = row
    return list(chosen.values())


def rank_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows by success (then name), each with `rank` (1, 2, 2, 4: ties share a rank) and `rank_ub` (1 + the
    number of models whose interval lies wholly above this one's, as LMArena ranks)."""
    rows.sort(key=lambda row: (-row["success"]["value"], row["identity"].get("name", "")))
    lows = sorted(row["success"]["low"] for row in rows)
    previous, rank = None, 0
    for position, row in enumerate(rows, 1):
        value = row["success"]["value"]
        if value != previous:
            rank, previous = position, value
        row["rank"] = rank
        row["rank_ub"] = 1 + len(lows) - bisect_right(lows, row["success"]["high"])
    return rows


def filter_rows(
    rows: Iterable[dict[str, Any]],
    *,
    family: str = "",
    min_b: float | None = None,
    max_b: float | None = None,
    tuned: str = "",
    backend: str = "",
) -> list[dict[str, Any]]:
    """The rows matching every given filter (on the model's identity when its run was made)."""
    kept = []
    for row in rows:
        identity = row["identity"]
        size = identity.get("params_b")
        if family and (identity.get("family") or "") != family:
            continue
        if min_b is not None and (size is None or size < min_b):
            continue
        if max_b is not None and (size is None or size > max_b):
            continue
        if tuned in ("base", "tuned") and row["tuned"] != (tuned == "tuned"):
            continue
        if backend and identity.get("backend") != backend:
            continue
        kept.append(row)
    return kept


def sort_rows(rows: list[dict[str, Any]], key: str = "rank", descending: bool | None = None) -> list[dict[str, Any]]:
    """Rows sorted by a column; scores sort high first and everything else low first unless told."""
    if key not in SORT_KEYS:
        key = "rank"
    if descending is None:
        descending = key in ("success", "pass1", "pass4", "params", "date")
    return sorted(rows, key=SORT_KEYS[key], reverse=descending)


def base_tuned_pairs(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each tuned model beside its base model on the same board, and beside the family's largest base model
    (the paper's question: does tuned-9B close the gap to an untuned 27B?)."""
    by_model = {row["model_id"]: row for row in rows}
    largest: dict[str, dict[str, Any]] = {}
    for row in rows:
        family = row["identity"].get("family") or ""
        if row["tuned"] or not family:
            continue
        current = largest.get(family)
        if current is None or (row["identity"].get("params_b") or 0) > (current["identity"].get("params_b") or 0):
            largest[family] = row
    pairs = []
    for row in rows:
        base_ref = row["identity"].get("base_model")
        if not row["tuned"] or not base_ref or base_ref.get("id") not in by_model:
            continue
        base = by_model[base_ref["id"]]
        family = row["identity"].get("family") or base["identity"].get("family") or ""
        reference = largest.get(family)
        if reference is not None and reference["model_id"] == base["model_id"]:
            reference = None
        pairs.append(
            {
                "family": family or "—",
                "base": base,
                "tuned": row,
                "delta": row["success"]["value"] - base["success"]["value"],
                "reference": reference,
                "gap_closed": _gap_closed(base, row, reference),
            }
        )
    pairs.sort(key=lambda pair: (pair["family"], pair["tuned"]["identity"].get("name", "")))
    return pairs


def _gap_closed(base, tuned, reference) -> float | None:
    """The share of the base→reference gap the tuning closed (1.0: it reaches the larger model)."""
    if reference is None:
        return None
    gap = reference["success"]["value"] - base["success"]["value"]
    if gap <= 0:
        return None
    return (tuned["success"]["value"] - base["success"]["value"]) / gap


# --------------------------------------------------------------------------------------------- charts


def _layout(**extra: Any) -> dict[str, Any]:
    # Generous margins so long model names and axis titles are never clipped; automargin grows them further.
    layout = {
        "margin": {"l": 60, "r": 20, "t": 10, "b": 60},
        "plot_bgcolor": "#fff",
        "font": {"size": 12},
        "hoverlabel": {"align": "left"},
        "showlegend": False,
    }
    layout.update(extra)
    return layout


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 1)


def scores_figure(rows: Sequence[dict[str, Any]], urls: Mapping[int, str]) -> dict[str, Any]:
    """Success per model with its 95 % interval as whiskers, best at the top."""
    ordered = sorted(rows, key=lambda row: row["success"]["value"])
    names = [row["identity"].get("name", "") for row in ordered]
    trace = {
        "type": "scatter",
        "mode": "markers",
        "x": [_pct(row["success"]["value"]) for row in ordered],
        "y": names,
        "error_x": {
            "type": "data",
            "array": [_pct(row["success"]["high"] - row["success"]["value"]) for row in ordered],
            "arrayminus": [_pct(row["success"]["value"] - row["success"]["low"]) for row in ordered],
            "thickness": 1.5,
        },
        "marker": {
            "size": 10,
            "color": [SAFE_COLOURS[4] if row["tuned"] else SAFE_COLOURS[0] for row in ordered],
            "symbol": [TUNED_SYMBOL[row["tuned"]] for row in ordered],
            "line": {"color": "#24292f", "width": 1},
        },
        "customdata": [urls.get(row["run_id"], "") for row in ordered],
        "hovertemplate": "%{y}: %{x:.1f} %<extra></extra>",
    }
    height = max(260, 60 + 22 * len(ordered))
    return {
        "data": [trace],
        "layout": _layout(
            height=height,
            xaxis={"title": {"text": "success (%), 95 % interval"}, "range": [-3, 103]},
            yaxis={"automargin": True, "type": "category"},
        ),
    }


def size_figure(rows: Sequence[dict[str, Any]], urls: Mapping[int, str]) -> dict[str, Any]:
    """Parameter count (log axis) against success; diamonds are tuned models."""
    sized = [row for row in rows if row["identity"].get("params_b")]
    traces = []
    for tuned in (False, True):
        group = [row for row in sized if row["tuned"] == tuned]
        if not group:
            continue
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "tuned" if tuned else "base",
                "x": [row["identity"]["params_b"] for row in group],
                "y": [_pct(row["success"]["value"]) for row in group],
                "text": [row["identity"].get("name", "") for row in group],
                "marker": {
                    "size": 11,
                    "symbol": TUNED_SYMBOL[tuned],
                    "color": SAFE_COLOURS[4] if tuned else SAFE_COLOURS[0],
                    "line": {"color": "#24292f", "width": 1},
                },
                "customdata": [urls.get(row["run_id"], "") for row in group],
                "hovertemplate": "%{text}: %{x} B, %{y:.1f} %<extra></extra>",
            }
        )
    return {
        "data": traces,
        "layout": _layout(
            height=360,
            showlegend=True,
            legend={"orientation": "h", "y": -0.25},
            xaxis={"title": {"text": "parameters (billions, log scale)"}, "type": "log"},
            yaxis={"title": {"text": "success (%)"}, "range": [0, 105]},
        ),
    }


def heatmap_figure(rows: Sequence[dict[str, Any]], categories: Sequence[str]) -> dict[str, Any]:
    """Success per model (rows, best first) and category (columns)."""
    names = [row["identity"].get("name", "") for row in rows]
    z = [[_pct((row["categories"].get(c) or {}).get("value")) for c in categories] for row in rows]
    return {
        "data": [
            {
                "type": "heatmap",
                "x": list(categories),
                "y": names,
                "z": z,
                "zmin": 0,
                "zmax": 100,
                "colorscale": "Viridis",
                "colorbar": {"title": {"text": "%"}},
                "hovertemplate": "%{y} · %{x}: %{z:.1f} %<extra></extra>",
            }
        ],
        "layout": _layout(
            height=max(260, 120 + 22 * len(rows)),
            margin={"l": 60, "r": 20, "t": 10, "b": 120},
            xaxis={"automargin": True, "tickangle": -40},
            yaxis={"automargin": True, "autorange": "reversed", "type": "category"},
        ),
    }


def pairs_figure(pairs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Base, tuned and the family's largest base model side by side for each tuned model."""
    labels = [f"{pair['family']}: {pair['tuned']['identity'].get('name', '')}" for pair in pairs]
    series = (
        ("base", "base", SAFE_COLOURS[0]),
        ("tuned", "tuned", SAFE_COLOURS[4]),
        ("reference", "largest base in family", SAFE_COLOURS[2]),
    )
    traces = []
    for key, name, colour in series:
        values = [_pct(pair[key]["success"]["value"]) if pair[key] else None for pair in pairs]
        if all(v is None for v in values):
            continue
        traces.append(
            {
                "type": "bar",
                "name": name,
                "x": labels,
                "y": values,
                "marker": {"color": colour, "line": {"color": "#24292f", "width": 1}},
                "text": [pair[key]["identity"].get("name", "") if pair[key] else "" for pair in pairs],
                "hovertemplate": "%{text}: %{y:.1f} %<extra>" + name + "</extra>",
            }
        )
    return {
        "data": traces,
        "layout": _layout(
            height=360,
            barmode="group",
            showlegend=True,
            legend={"orientation": "h", "y": -0.3},
            xaxis={"automargin": True},
            yaxis={"title": {"text": "success (%)"}, "range": [0, 105]},
        ),
    }


def cross_rows(kopa: Sequence[dict[str, Any]], bfcl: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Models on both boards (matched by model entry): their KOPA-Bench success and BFCL accuracy."""
    theirs = {row["model_id"]: row for row in bfcl}
    pairs = [
        {"identity": row["identity"], "tuned": row["tuned"], "kopa": row, "bfcl": theirs[row["model_id"]]}
        for row in kopa
        if row["model_id"] in theirs
    ]
    return sorted(pairs, key=lambda pair: pair["identity"].get("name", ""))


def cross_figure(pairs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """KOPA-Bench success (x) against BFCL accuracy (y), one point per model, with both intervals."""
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "markers+text",
                "x": [_pct(p["kopa"]["success"]["value"]) for p in pairs],
                "y": [_pct(p["bfcl"]["success"]["value"]) for p in pairs],
                "error_x": {
                    "type": "data",
                    "array": [_pct(p["kopa"]["success"]["high"] - p["kopa"]["success"]["value"]) for p in pairs],
                    "arrayminus": [_pct(p["kopa"]["success"]["value"] - p["kopa"]["success"]["low"]) for p in pairs],
                    "thickness": 1,
                },
                "error_y": {
                    "type": "data",
                    "array": [_pct(p["bfcl"]["success"]["high"] - p["bfcl"]["success"]["value"]) for p in pairs],
                    "arrayminus": [_pct(p["bfcl"]["success"]["value"] - p["bfcl"]["success"]["low"]) for p in pairs],
                    "thickness": 1,
                },
                "text": [p["identity"].get("name", "") for p in pairs],
                "textposition": "top center",
                "cliponaxis": False,
                "marker": {
                    "size": 11,
                    "symbol": [TUNED_SYMBOL[p["tuned"]] for p in pairs],
                    "color": [SAFE_COLOURS[4] if p["tuned"] else SAFE_COLOURS[0] for p in pairs],
                    "line": {"color": "#24292f", "width": 1},
                },
                "hovertemplate": "%{text}: KOPA %{x:.1f} %, BFCL %{y:.1f} %<extra></extra>",
            }
        ],
        "layout": _layout(
            height=380,
            xaxis={"title": {"text": "KOPA-Bench success (%)"}, "range": [-5, 105]},
            yaxis={"title": {"text": "BFCL accuracy (%)"}, "range": [-5, 110]},
        ),
    }
