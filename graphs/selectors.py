"""Reads of the EDGE graph: edge and trial lists for pages and the API, the network figure, exports."""

from __future__ import annotations

import json
import math
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext

from graphs.engine import domains as value_domains
from graphs.engine import graph as graph_engine
from graphs.engine import posterior
from graphs.models import CandidateEdge, EdgeTrial, GraphSnapshot, VerificationRun

STATUS_COLOURS = {
    CandidateEdge.Status.VERIFIED: "#1a7f37",
    CandidateEdge.Status.VERIFYING: "#bf8700",
    CandidateEdge.Status.PROPOSED: "#57606a",
    CandidateEdge.Status.PRUNED: "#cf222e",
    CandidateEdge.Status.ECHO: "#8250df",
    CandidateEdge.Status.UNTESTABLE: "#afb8c1",
}
EDGE_ORDERINGS = {
    "posterior": ("-posterior_mean", "-score", "id"),
    "-posterior": ("posterior_mean", "score", "id"),
    "score": ("-score", "id"),
    "trials": ("-trials_success", "-trials_structural", "id"),
    "recent": ("-updated_at", "-id"),
}


def edge_list() -> QuerySet[CandidateEdge]:
    return CandidateEdge.objects.select_related(
        "source_tool__service__provider", "target_tool__service__provider"
    ).defer("source_tool__service__spec_document", "target_tool__service__spec_document")


def edge_trials(*, edge: CandidateEdge) -> QuerySet[EdgeTrial]:
    return (
        EdgeTrial.objects.filter(edge=edge)
        .select_related("run", "source_call", "target_call")
        .defer("source_call__body_gz", "target_call__body_gz", "source_call__request", "target_call__request")
        .order_by("-run_id", "seq")
    )


def trial_list() -> QuerySet[EdgeTrial]:
    return EdgeTrial.objects.select_related("edge__source_tool", "edge__target_tool", "run").order_by("-id")


def run_list() -> QuerySet[VerificationRun]:
    return (
        VerificationRun.objects.select_related("job", "created_by")
        .annotate(trial_count=Count("trials"))
        .order_by("-created_at", "-id")
    )


def snapshot_list() -> QuerySet[GraphSnapshot]:
    return GraphSnapshot.objects.select_related("run", "created_by").defer("node_link")


def status_counts() -> dict[str, int]:
    counts = dict(CandidateEdge.objects.order_by().values_list("status").annotate(n=Count("id")))
    return {status: counts.get(status, 0) for status in CandidateEdge.Status.values}


def providers() -> list[str]:
    return sorted(
        set(CandidateEdge.objects.values_list("source_tool__service__provider__code", flat=True))
        | set(CandidateEdge.objects.values_list("target_tool__service__provider__code", flat=True))
    )


def posterior_curve(alpha: float, beta: float, points: int = 101) -> tuple[list[float], list[float]]:
    """The Beta density on a grid, for the edge page's figure."""
    log_b = math.lgamma(alpha) + math.lgamma(beta) - math.lgamma(alpha + beta)
    xs, ys = [], []
    for i in range(points):
        x = min(max(i / (points - 1), 1e-4), 1 - 1e-4)
        xs.append(round(x, 4))
        ys.append(round(math.exp((alpha - 1) * math.log(x) + (beta - 1) * math.log1p(-x) - log_b), 5))
    return xs, ys


def edge_posterior(edge: CandidateEdge) -> dict[str, Any]:
    policy = posterior.DEFAULT_POLICY
    return {
        "mean": edge.posterior_mean,
        "p_viable": posterior.prob_above(policy.theta_verify, edge.alpha, edge.beta),
        "p_broken": posterior.cdf(policy.theta_prune, edge.alpha, edge.beta),
        "policy": policy.to_dict(),
    }


# --- The network figure ------------------------------------------------------------------------------


def _flat_domains(domains: dict | None) -> set[str]:
    return {d for side in (domains or {}).values() for d in (side or [])}


def edge_domains() -> list[tuple[str, str]]:
    """The domains that some edge's ends have, with their labels, for the network's filter."""
    seen: set[str] = set()
    for domains in CandidateEdge.objects.values_list("domains", flat=True):
        seen |= _flat_domains(domains)
    return [(name, value_domains.domain(name).label) for name in sorted(seen)]


def domain_rows(edge: CandidateEdge) -> list[tuple[str, str, str, str]]:
    """(end, name, domain, label) for both ends of an edge."""
    rows = []
    domains = edge.domains or {}
    for end, names, key in (("source", edge.source_fields, "source"), ("target", edge.target_params, "target")):
        found = list(domains.get(key) or [])
        for index, name in enumerate(names):
            domain = found[index] if index < len(found) else value_domains.UNKNOWN
            rows.append((end, name, domain, value_domains.domain(domain).label))
    return rows


def trial_outcome_text(trial: EdgeTrial) -> str:
    """What a trial's outcome means in words; a control's success is the control holding."""
    if trial.kind == EdgeTrial.Kind.CONTROL:
        return {
            posterior.SUCCESS: "control held: another valid value changed B's result, as expected",
            posterior.STRUCTURAL: "control failed: B returned the same records for another value (it ignores the parameter)",
        }.get(trial.outcome, trial.outcome)
    if trial.kind == EdgeTrial.Kind.CONFUSION:
        return {
            posterior.SUCCESS: "control held: B failed or answered about something else for a confusable value, as expected",
            posterior.STRUCTURAL: "control failed: B accepted a value of another domain as if it were right",
        }.get(trial.outcome, trial.outcome)
    verdict = ((trial.values or {}).get("checks") or {}).get("consistency", {}).get("verdict")
    if trial.outcome == posterior.SUCCESS:
        echo = " (an echo of the source call's input)" if (trial.values or {}).get("echo") else ""
        return f"success: B found records, {verdict or 'unchecked'}{echo}"
    return trial.outcome


def network_edges(*, statuses: list[str] | None = None, provider: str = "", tool: int | None = None, domain: str = ""):
    edges = edge_list()
    if statuses:
        edges = edges.filter(status__in=statuses)
    if provider:
        edges = edges.filter(
            Q(source_tool__service__provider__code=provider) | Q(target_tool__service__provider__code=provider)
        )
    if tool:
        edges = edges.filter(Q(source_tool_id=tool) | Q(target_tool_id=tool))
    if domain:
        # JSON containment is not portable across SQLite and PostgreSQL; the edges are few, so filter here.
        keep = [pk for pk, domains in edges.values_list("pk", "domains") if domain in _flat_domains(domains)]
        edges = edges.filter(pk__in=keep)
    return edges


def network_figure(edges) -> dict[str, Any]:
    """A plotly network (as a dict ready for plotly.io.to_json): tools placed by a seeded spring layout,
    one line trace per status, and a clickable marker at each edge's midpoint carrying its URL."""
    import networkx as nx
    import plotly.graph_objects as go

    edges = list(edges)
    graph = nx.DiGraph()
    tools = {}
    for edge in edges:
        for t in (edge.source_tool, edge.target_tool):
            tools[t.pk] = t
        graph.add_edge(edge.source_tool_id, edge.target_tool_id)
    # Tools sit in one column per provider, the columns in a grid: every label has its own line, none stacks on
    # another in a dense centre as a spring layout's did.
    positions, blocks = _provider_grid(graph, tools)
    figure = go.Figure()
    for status, colour in STATUS_COLOURS.items():
        xs, ys, mx, my, text, urls = [], [], [], [], [], []
        for edge in edges:
            if edge.status != status:
                continue
            (x0, y0), (x1, y1) = positions[edge.source_tool_id], positions[edge.target_tool_id]
            xs += [x0, x1, None]
            ys += [y0, y1, None]
            mx.append((x0 + x1) / 2)
            my.append((y0 + y1) / 2)
            text.append(
                f"{edge.source_tool.function_name}.{edge.source_field} → {edge.target_tool.function_name}."
                f"{edge.target_param}<br>[{edge.transform}] {status}, mean {edge.posterior_mean:.2f}"
            )
            urls.append(reverse("graphs:edge", args=[edge.pk]))
        if not xs:
            continue
        figure.add_trace(
            go.Scatter(x=xs, y=ys, mode="lines", line={"color": colour, "width": 1.2}, hoverinfo="skip", name=status)
        )
        figure.add_trace(
            go.Scatter(
                x=mx,
                y=my,
                mode="markers",
                marker={"color": colour, "size": 7, "symbol": "diamond"},
                text=text,
                customdata=urls,
                hovertemplate="%{text}<extra></extra>",
                name=f"{status} edges",
                showlegend=False,
            )
        )
    node_ids = list(graph.nodes)
    figure.add_trace(
        go.Scatter(
            x=[positions[n][0] for n in node_ids],
            y=[positions[n][1] for n in node_ids],
            mode="markers",
            text=[tools[n].function_name for n in node_ids],
            marker={"size": 12, "color": "#0969da", "line": {"color": "#fff", "width": 1}},
            customdata=[f"{reverse('graphs:edges')}?tool={n}" for n in node_ids],
            hovertemplate="%{text}<br>%{customdata}<extra></extra>",
            name=gettext("tools"),
        )
    )
    # Labels as annotations on a white ground, so the lines that leave a column pass under them, not through.
    for n in node_ids:
        figure.add_annotation(
            x=positions[n][0],
            y=positions[n][1],
            text=tools[n].function_name,
            showarrow=False,
            xanchor="left",
            xshift=9,
            font={"size": 10},
            bgcolor="rgba(255,255,255,0.85)",
        )
    for name, (x, y) in blocks.items():
        figure.add_annotation(
            x=x, y=y, text=f"<b>{name}</b>", showarrow=False, xanchor="left", yanchor="bottom", font={"size": 11}
        )
    rows = max((-y for _, y in positions.values()), default=0.0)
    figure.update_layout(
        height=max(420, int(60 + 22 * (rows + 2))),
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"visible": False, "range": [-0.1, max((x for x, _ in positions.values()), default=0.0) + 1.0]},
        yaxis={"visible": False, "range": [-(rows + 1), 1.5]},
        plot_bgcolor="#fff",
        legend={"orientation": "h"},
        clickmode="event",
    )
    return json.loads(figure.to_json())


GRID_COLUMNS = 4  # provider columns per row of the network plot


def _provider_grid(graph, tools: dict) -> tuple[dict, dict[str, tuple[float, float]]]:
    """Positions of the tools: one column per provider (its tools one line apart, in name order), providers in
    a grid of GRID_COLUMNS columns, the largest first, each row as tall as its tallest column; and where each
    provider's title goes. One unit of y is one line of text, one unit of x one column."""
    groups: dict[str, list] = {}
    for n in graph.nodes:
        tool = tools[n]
        groups.setdefault(tool.service.provider.display_name, []).append(n)
    order = sorted(groups, key=lambda name: (-len(groups[name]), name))
    positions: dict = {}
    blocks: dict[str, tuple[float, float]] = {}
    top = 0.0
    for start in range(0, len(order), GRID_COLUMNS):
        row = order[start : start + GRID_COLUMNS]
        for column, name in enumerate(row):
            blocks[name] = (float(column), top + 0.2)
            for line, n in enumerate(sorted(groups[name], key=lambda n: tools[n].function_name)):
                positions[n] = (float(column), top - 1.0 - line)
        top -= max(len(groups[name]) for name in row) + 2.5
    return positions, blocks


def refinement_figure(refinement: dict[str, Any]) -> dict[str, Any]:
    import plotly.graph_objects as go

    names = ["before", "after", "verified", "pruned"]
    labels = [
        gettext("all tried candidates (before)"),
        gettext("not pruned (after)"),
        gettext("verified"),
        gettext("pruned"),
    ]
    rates = [round(100 * (refinement.get(name, {}).get("success_rate") or 0.0), 1) for name in names]
    figure = go.Figure(go.Bar(x=labels, y=rates, marker_color=["#57606a", "#1a7f37", "#2da44e", "#cf222e"]))
    figure.update_layout(
        height=320,
        margin={"l": 40, "r": 10, "t": 10, "b": 40},
        yaxis={"title": gettext("trial success %"), "range": [0, 100]},
    )
    return json.loads(figure.to_json())


def posterior_figure(edge: CandidateEdge) -> dict[str, Any]:
    import plotly.graph_objects as go

    xs, ys = posterior_curve(edge.alpha, edge.beta)
    px, py = posterior_curve(edge.prior_alpha, edge.prior_beta)
    figure = go.Figure()
    figure.add_trace(
        go.Scatter(x=px, y=py, mode="lines", name=gettext("prior"), line={"dash": "dot", "color": "#57606a"})
    )
    figure.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=gettext("posterior"), line={"color": "#0969da"}))
    figure.add_vline(x=posterior.DEFAULT_POLICY.theta_verify, line_dash="dash", line_color="#1a7f37")
    figure.update_layout(
        height=260, margin={"l": 40, "r": 10, "t": 10, "b": 40}, xaxis={"title": gettext("θ (success probability)")}
    )
    return json.loads(figure.to_json())


def snapshot_export(snapshot: GraphSnapshot, fmt: str) -> tuple[str, str, str]:
    """(body, content type, file name) of a snapshot as node-link JSON or GraphML."""
    if fmt == "graphml":
        graph = graph_engine.from_node_link(snapshot.node_link)
        return graph_engine.to_graphml(graph), "application/graphml+xml", f"edge-graph-v{snapshot.version}.graphml"
    if fmt == "json":
        body = json.dumps(snapshot.node_link, ensure_ascii=False, indent=1)
        return body, "application/json", f"edge-graph-v{snapshot.version}.json"
    raise ValueError(f"unknown export format {fmt!r}; use json or graphml")
