"""Reads of training runs: lists, the curves of a run (plotly figures with the same numbers as tables), its
checkpoints on disk and its log, and the base-against-tuned comparison once both are evaluated."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext

from training.models import TrainingMetric, TrainingRun

# (title, [(metric key, label)]) per chart; every chart has a table of the same numbers.
CHARTS = (
    ("loss", "Loss", [("loss", "loss")]),
    (
        "rewards",
        "Reward components (mean per step)",
        [
            ("reward", "weighted total"),
            ("rewards/format/mean", "format"),
            ("rewards/tool_name/mean", "tool name"),
            ("rewards/arguments/mean", "arguments"),
            ("rewards/execution/mean", "execution"),
            ("rewards/answer/mean", "answer"),
            ("rewards/binary/mean", "binary"),
        ],
    ),
    ("kl", "KL to the reference model", [("kl", "KL")]),
    (
        "tools",
        "Tool use",
        [("tools/call_frequency", "call frequency"), ("tools/failure_frequency", "failure frequency")],
    ),
    (
        "speed",
        "Completion length and throughput",
        [("completions/mean_length", "mean completion length (tokens)"), ("tokens_per_s", "tokens/s")],
    ),
)
SAFE_COLOURS = ["#88CCEE", "#CC6677", "#DDCC77", "#117733", "#332288", "#AA4499", "#44AA99", "#999933"]


def run_list() -> QuerySet[TrainingRun]:
    return TrainingRun.objects.select_related("job", "model_entry", "base_entry", "created_by", "dataset_version")


def metric_rows(run: TrainingRun, phase: str) -> list[dict[str, Any]]:
    return [
        {"step": step, **values}
        for step, values in TrainingMetric.objects.filter(run=run, phase=phase)
        .order_by("step")
        .values_list("step", "values")
    ]


def _figure(rows: list[dict[str, Any]], series: list[tuple[str, str]], title: str) -> dict[str, Any] | None:
    import plotly.graph_objects as go

    figure = go.Figure()
    drawn = False
    for index, (key, label) in enumerate(series):
        points = [(row["step"], row[key]) for row in rows if isinstance(row.get(key), int | float)]
        if not points:
            continue
        drawn = True
        figure.add_trace(
            go.Scatter(
                x=[p[0] for p in points],
                y=[round(p[1], 5) for p in points],
                mode="lines+markers",
                name=label,
                line={"color": SAFE_COLOURS[index % len(SAFE_COLOURS)], "width": 2},
                marker={"size": 5},
            )
        )
    if not drawn:
        return None
    figure.update_layout(
        height=300,
        margin={"l": 55, "r": 15, "t": 30, "b": 40},
        title={"text": title, "font": {"size": 14}},
        xaxis={"title": gettext("step")},
        plot_bgcolor="#fff",
        legend={"orientation": "h", "y": -0.25},
    )
    return json.loads(figure.to_json())


def run_charts(run: TrainingRun) -> list[dict[str, Any]]:
    """One chart per CHARTS entry that has data, for GRPO, plus the SFT loss; each with its table."""
    charts = []
    for phase in ("sft", "grpo"):
        rows = metric_rows(run, phase)
        if not rows:
            continue
        for key, title, series in CHARTS:
            if phase == "sft" and key != "loss":
                continue
            label = f"{'SFT warm start' if phase == 'sft' else 'GRPO'}: {title}"
            figure = _figure(rows, series, label)
            if figure is None:
                continue
            present = [(k, name) for k, name in series if any(isinstance(r.get(k), int | float) for r in rows)]
            charts.append(
                {
                    "id": f"{phase}-{key}",
                    "data_id": f"{phase}-{key}-data",
                    "title": label,
                    "figure": figure,
                    "columns": [name for _, name in present],
                    "rows": [{"step": r["step"], "values": [r.get(k) for k, _ in present]} for r in rows],
                }
            )
    return charts


def run_checkpoints(run: TrainingRun) -> list[dict[str, Any]]:
    """The model folders a run wrote (base, sft, grpo/checkpoint-N, final), with their size."""
    folder = run.folder
    if not run.output_dir or not folder.is_dir():
        return []
    found = []
    candidates = [folder / "base", folder / "sft"]
    grpo = folder / "grpo"
    if grpo.is_dir():
        candidates += sorted(grpo.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[-1]))
    candidates.append(folder / "final")
    for path in candidates:
        if (path / "config.json").is_file():
            size = sum(f.stat().st_size for f in path.iterdir() if f.is_file())
            found.append({"name": str(path.relative_to(folder)), "path": str(path), "mb": round(size / 1e6, 2)})
    return found


def run_log(run: TrainingRun, lines: int = 200) -> str:
    from training.services import log_tail

    return log_tail(run, lines) or run.log_tail


def comparison(run: TrainingRun) -> list[dict[str, Any]]:
    """Base against tuned: each evaluation's success and its interval, when evaluations exist."""
    rows = []
    for role, entry, evaluation in (
        ("base", run.base_entry, run.base_eval),
        ("tuned", run.model_entry, run.tuned_eval),
    ):
        if entry is None:
            continue
        overall = evaluation.overall if evaluation else {}
        success = overall.get("success") or {}
        rows.append(
            {
                "role": role,
                "entry": entry,
                "eval": evaluation,
                "success": success.get("value"),
                "low": success.get("low"),
                "high": success.get("high"),
            }
        )
    return rows
