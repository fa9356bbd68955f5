"""Snapshots: the verified edges frozen as a new GraphSnapshot version (node-link JSON, graph statistics and
refinement figures; the graph is built by graphs/engine/graph.py from graphs.selectors.graph_rows)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Max

from graphs.engine import graph as graph_engine
from graphs.models import CandidateEdge, GraphSnapshot, VerificationRun
from graphs.selectors import graph_rows, refinement_summary


@transaction.atomic
def graph_snapshot_create(*, run: VerificationRun | None = None, user=None, note: str = "") -> GraphSnapshot:
    """Freeze the verified edges as a new version: node-link JSON, graph statistics, refinement figures."""
    nodes, rows = graph_rows([CandidateEdge.Status.VERIFIED])
    graph = graph_engine.build_graph(nodes, rows)
    stats = graph_engine.graph_stats(graph)
    stats["candidates"] = dict(CandidateEdge.objects.values_list("status").annotate(n=Count("id")))
    version = (GraphSnapshot.objects.select_for_update().aggregate(v=Max("version"))["v"] or 0) + 1
    return GraphSnapshot.objects.create(
        version=version,
        run=run,
        node_link=graph_engine.to_node_link(graph),
        stats=stats,
        refinement=refinement_summary(),
        note=note[:300],
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
