"""Reads of the trajectories app: run and trajectory lists for pages and the API, one trajectory in full, and the\nreview console's reads (queue list, decisions, revisions, agreement, datasheets, the dashboard)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta
from typing import Any

from django.db.models import Avg, Count, Prefetch, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from datasets.engine.agreement import cohens_kappa, krippendorff_alpha, percent_agreement
from datasets.models import (
    REJECT_REASONS,
    DatasetVersion,
    ReviewDecision,
    SynthesisRun,
    Trajectory,
    TrajectoryCall,
    TrajectoryRevision,
    TrajectoryStep,
)


def run_list() -> QuerySet[SynthesisRun]:
    return (
        SynthesisRun.objects.select_related("job", "snapshot", "created_by")
        .defer("snapshot__node_link")
        .annotate(
            trajectory_count=Count("trajectories"),
            kept_count=Count("trajectories", filter=Q(trajectories__status=Trajectory.Status.PENDING_REVIEW)),
        )
        .order_by("-created_at", "-id")
    )


def trajectory_list() -> QuerySet[Trajectory]:
    """Trajectories without their heavy JSON (plan, facts, schemas), newest first."""
    return (
        Trajectory.objects.select_related("run", "snapshot")
        .defer(
            "plan",
            "facts",
            "named",
            "schemas",
            "aliases",
            "units",
            "snapshot__node_link",
            "snapshot__stats",
            "snapshot__refinement",
        )
        .order_by("-created_at", "-id")
    )


def trajectory_detail() -> QuerySet[Trajectory]:
    """Trajectories with their steps (and tools), calls (and ApiCalls) and edges, for one page or API read."""
    return (
        Trajectory.objects.select_related("run", "snapshot")
        .defer("snapshot__node_link")
        .prefetch_related(
            Prefetch("steps", queryset=TrajectoryStep.objects.select_related("tool").order_by("index")),
            Prefetch(
                "calls",
                queryset=TrajectoryCall.objects.select_related("step")
                .defer("step__links", "step__picks", "step__answer")
                .order_by("seq"),
            ),
            "edges__source_tool",
            "edges__target_tool",
        )
    )


def status_counts() -> dict[str, int]:
    counts = dict(Trajectory.objects.values_list("status").annotate(n=Count("id")))
    return {status: counts.get(status, 0) for status in Trajectory.Status.values}


# --- Review console ---------------------------------------------------------------------------------------

SAFE_COLOURS = ("#88CCEE", "#CC6677", "#DDCC77", "#117733", "#332288", "#AA4499", "#44AA99", "#999933", "#882255")
DATASHEET_BATCH = 2000


def review_list() -> QuerySet[Trajectory]:
    """The list of the review console: light columns plus who holds each item."""
    return trajectory_list().select_related("held_by")


def decisions_of(trajectory: Trajectory) -> QuerySet[ReviewDecision]:
    return trajectory.decisions.select_related("user").order_by("created_at", "id")


def revisions_of(trajectory: Trajectory) -> QuerySet[TrajectoryRevision]:
    return trajectory.revisions.select_related("user").order_by("-version", "-id")


def _standing_annotations():
    return ReviewDecision.objects.filter(kind=ReviewDecision.Kind.ANNOTATION, retracted_at__isnull=True)


def agreement_summary(rows) -> dict[str, Any]:
    """Agreement over items with two or more annotator decisions; rows are (trajectory id, decision) in the
    order the decisions were made. Kappa compares each item's first two decisions (Cohen's two raters); alpha
    uses all of them (Krippendorff, nominal)."""
    by_item: dict[int, list[str]] = {}
    for trajectory_id, decision in rows:
        by_item.setdefault(trajectory_id, []).append(decision)
    overlapping = [labels for labels in by_item.values() if len(labels) >= 2]
    return {
        "items": len(overlapping),
        "agreeing": sum(len(set(labels)) == 1 for labels in overlapping),
        "percent": percent_agreement(overlapping),
        "kappa": cohens_kappa((labels[0], labels[1]) for labels in overlapping),
        "alpha": krippendorff_alpha(overlapping),
    }


def agreement_of(trajectory_ids=None) -> dict[str, Any]:
    overlapping = Trajectory.objects.filter(decision_count__gte=2)
    if trajectory_ids is not None:
        overlapping = overlapping.filter(pk__in=trajectory_ids)
    decisions = _standing_annotations().filter(trajectory_id__in=overlapping.values("pk"))
    return agreement_summary(
        decisions.order_by("trajectory_id", "created_at", "id").values_list("trajectory_id", "decision")
    )


def datasheet_of(trajectories: QuerySet[Trajectory]) -> dict[str, Any]:
    """Providers, junctions, lengths, tools and generators of the trajectories, and their agreement."""
    counters = {name: Counter() for name in ("providers", "junctions", "lengths", "tools", "generators")}
    rows = trajectories.order_by().values_list("providers", "junctions", "length", "tool_names", "generator")
    total = 0
    for providers, junctions, length, tools, generator in rows.iterator(chunk_size=DATASHEET_BATCH):
        total += 1
        counters["providers"].update(providers or [])
        counters["junctions"].update(junctions or ["(one call)"])
        counters["lengths"][str(length)] += 1
        counters["tools"].update(tools or [])
        counters["generators"][generator] += 1
    return {
        **{name: dict(counter.most_common()) for name, counter in counters.items()},
        "trajectories": total,
        "agreement": agreement_of(trajectories.order_by().values("pk")),
    }


def version_list() -> QuerySet[DatasetVersion]:
    return DatasetVersion.objects.select_related("created_by", "export_job").order_by("-created_at", "-id")


def annotator_throughput(*, since=None) -> list[dict[str, Any]]:
    """Per annotator: standing decisions, approvals, rejections, mean seconds per item, decisions since `since`.

    Grouped by user id (no join over every decision), names read afterwards for the few users there are."""
    from django.contrib.auth import get_user_model

    since = since or timezone.now() - timedelta(days=1)
    rows = list(
        _standing_annotations()
        .order_by()
        .values("user_id")
        .annotate(
            decisions=Count("id"),
            approved=Count("id", filter=Q(decision=ReviewDecision.Decision.APPROVE)),
            rejected=Count("id", filter=Q(decision=ReviewDecision.Decision.REJECT)),
            recent=Count("id", filter=Q(created_at__gte=since)),
            mean_seconds=Avg("seconds"),
        )
    )
    names = dict(get_user_model().objects.filter(pk__in=[r["user_id"] for r in rows]).values_list("pk", "username"))
    out = [{**row, "user": names.get(row.pop("user_id")) or "(deleted user)"} for row in rows]
    return sorted(out, key=lambda row: (-row["decisions"], row["user"]))


def reject_reasons_by_day(*, days: int = 30) -> dict[str, Any]:
    """Rejections per day and reason over the last `days` days (retracted ones left out)."""
    since = timezone.localdate() - timedelta(days=days)
    rows = (
        ReviewDecision.objects.filter(
            decision=ReviewDecision.Decision.REJECT, retracted_at__isnull=True, day__gte=since
        )
        .values_list("day", "reason")
        .annotate(n=Count("id"))
        .order_by("day", "reason")
    )
    days_seen: list[str] = []
    table: dict[str, dict[str, int]] = {}
    for day, reason, n in rows:
        key = day.isoformat()
        if key not in days_seen:
            days_seen.append(key)
        table.setdefault(reason, {})[key] = n
    return {"days": days_seen, "reasons": table, "labels": {k: str(v) for k, v in REJECT_REASONS}}


def _layout(y_title: str, **extra) -> dict[str, Any]:
    return {
        "height": 300,
        "margin": {"l": 50, "r": 10, "t": 10, "b": 60},
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        "plot_bgcolor": "#fff",
        **extra,
    }


def _bar(x: list, y: list, *, y_title: str, colour: str = SAFE_COLOURS[0]) -> dict[str, Any]:
    """A plotly.js bar chart as plain JSON (no Python-side figure objects: building those cost more than the
    dashboard's queries)."""
    trace = {"type": "bar", "x": x, "y": y, "marker": {"color": colour, "line": {"color": "#24292f", "width": 1}}}
    return {"data": [trace], "layout": _layout(y_title)}


def review_dashboard() -> dict[str, Any]:
    """Progress by status, per-annotator throughput, agreement and reject reasons over time, each with a chart."""
    counts = status_counts()
    throughput = annotator_throughput()
    reasons = reject_reasons_by_day()
    reason_traces = [
        {
            "type": "bar",
            "x": reasons["days"],
            "y": [per_day.get(day, 0) for day in reasons["days"]],
            "name": reasons["labels"].get(reason, reason or "(none)"),
            "marker": {"color": SAFE_COLOURS[index % len(SAFE_COLOURS)], "pattern": {"shape": "/.x-|+"[index % 6]}},
        }
        for index, (reason, per_day) in enumerate(sorted(reasons["reasons"].items()))
    ]
    labels = {k: str(v) for k, v in Trajectory.Status.choices}
    return {
        "counts": [(labels[status], status, n) for status, n in counts.items()],
        "total": sum(counts.values()),
        "throughput": throughput,
        "agreement": agreement_of(),
        "reasons": reasons,
        "figures": {
            "status": _bar([labels[s] for s in counts], list(counts.values()), y_title=gettext("trajectories")),
            "throughput": _bar(
                [row["user"] for row in throughput],
                [row["decisions"] for row in throughput],
                y_title=gettext("decisions"),
                colour=SAFE_COLOURS[3],
            ),
            "reasons": {
                "data": reason_traces,
                "layout": _layout("rejections", barmode="stack", height=320, legend={"orientation": "h", "y": -0.25}),
            },
        },
    }


def version_jsonl_lines(version: DatasetVersion):
    """The frozen items of a version as OpenAI chat JSONL lines (the export's records, without a split)."""
    from datasets.engine.export import openai_record

    for row in version.items.order_by("id").only("item").iterator(chunk_size=200):
        yield json.dumps(openai_record(row.item), ensure_ascii=False) + "\n"


def version_export_path(*, name: str):
    """Where training reads a frozen version: its exported folder (openai/*.jsonl, hf/, manifest.json,
    version.json). Raises LookupError when there is no such version or it has not been exported yet."""
    from pathlib import Path

    version = DatasetVersion.objects.filter(name=name).first()
    if version is None:
        raise LookupError(f"no dataset version named {name!r}")
    if not version.export_path or not Path(version.export_path, "version.json").is_file():
        raise LookupError(f"dataset version {name!r} has not been exported yet; export it from its page first")
    return Path(version.export_path)
