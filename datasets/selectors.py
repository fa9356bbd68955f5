"""Reads of the trajectories app: run and trajectory lists for pages and the API, one trajectory in full."""

from __future__ import annotations

from django.db.models import Count, Prefetch, Q, QuerySet

from datasets.models import SynthesisRun, Trajectory, TrajectoryCall, TrajectoryStep


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
