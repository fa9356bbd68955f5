"""Reads of the EDGE graph: edge and trial lists for pages and the API, the network figure, exports, and the
tools, run counters and graph rows that the services hand to the engines."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext

from apis.models import ApiCall, Tool
from apis.selectors import call_result
from graphs.engine import domains as value_domains
from graphs.engine import graph as graph_engine
from graphs.engine import posterior
from graphs.engine import trials as trial_engine
from graphs.engine.candidates import FieldInfo, ParamInfo, ToolInfo
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


# --- Tools and runs as the services see them ---------------------------------------------------------------

TRIAL_SOURCE_KIND = "edge_trial"  # the ApiCall.source_kind of a verification trial's calls
OBSERVED_CALLS = 20  # recent successful calls per tool that feed observed values


def _observed(tools: Sequence[Tool]) -> tuple[dict[int, dict[str, list[str]]], dict[int, dict[str, list[str]]]]:
    """Values of record fields and of parameters in each tool's recent successful calls."""
    fields: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    params: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for tool in tools:
        calls = ApiCall.objects.filter(tool=tool, ok=True, record_count__gt=0).order_by("-id")[:OBSERVED_CALLS]
        paths = [trial_engine.field_path(f) for f in tool.record_fields]
        for call in calls:
            for name, value in (call.params or {}).items():
                if value not in (None, "") and not isinstance(value, dict | list):
                    params[tool.pk][name].append(str(value))
            result = call_result(call)
            if result is None:
                continue
            for record in result.records[:50]:
                for path in paths:
                    value = trial_engine.record_value(record, path)
                    if value not in (None, "") and not isinstance(value, dict | list):
                        fields[tool.pk][path].append(str(value))
    return fields, params


def tool_infos(tools: Sequence[Tool]) -> list[ToolInfo]:
    """The catalog's tools as plain ToolInfo, with values observed in recorded calls."""
    observed_fields, observed_params = _observed(tools)
    infos = []
    for tool in tools:
        params = tuple(
            ParamInfo(
                name=p.name,
                required=p.required,
                description=p.description,
                examples=p.examples,
                observed=tuple(dict.fromkeys(observed_params[tool.pk].get(p.name, ()))),
            )
            for p in trial_engine.param_infos(tool.parameters)
        )
        fields = []
        for row in tool.record_fields:
            path = trial_engine.field_path(row)
            if not path:
                continue
            example = row.get("example")
            fields.append(
                FieldInfo(
                    path=path,
                    description=str(row.get("description") or ""),
                    examples=(str(example),) if example not in (None, "") else (),
                    observed=tuple(dict.fromkeys(observed_fields[tool.pk].get(path, ()))),
                )
            )
        infos.append(
            ToolInfo(
                id=tool.pk,
                name=tool.function_name,
                provider=tool.service.provider.code,
                title=f"{tool.name_ko} {tool.description_en}".strip(),
                params=params,
                fields=tuple(fields),
            )
        )
    return infos


def active_tools(tool_ids: Iterable[int] | None = None) -> list[Tool]:
    """The active tools (all, or those of tool_ids) with their service and provider, in id order."""
    tools = Tool.objects.filter(is_active=True).select_related("service__provider").defer("service__spec_document")
    if tool_ids is not None:
        tools = tools.filter(pk__in=list(tool_ids))
    return list(tools.order_by("pk"))


def tool_field_domains(tool: Tool) -> dict[str, str]:
    """{record field path: domain} of a tool (graphs/engine/domains.py)."""
    provider = tool.service.provider.code
    return {
        trial_engine.field_path(row): value_domains.infer(
            trial_engine.field_path(row), provider=provider, side="field", tool=tool.function_name
        )
        for row in tool.record_fields
        if trial_engine.field_path(row)
    }


def tool_param_domains(tool: Tool) -> dict[str, str]:
    """{parameter: domain} of a tool, fields of array items included (graphs/engine/domains.py)."""
    provider = tool.service.provider.code
    return {
        info.name: value_domains.infer(info.name, provider=provider, side="param", tool=tool.function_name)
        for info in trial_engine.param_infos(tool.parameters)
    }


def run_counters(run: VerificationRun) -> dict[str, Any]:
    """A run's trials by kind and outcome, its calls, and the statuses of the edges it tried."""
    rows = EdgeTrial.objects.filter(run=run).values("kind", "outcome").annotate(n=Count("id"))
    counters: dict[str, Any] = {"trials": 0, "main": {}, "control": {}, "confusion": {}}
    for row in rows:
        counters.setdefault(row["kind"], {})[row["outcome"]] = row["n"]
        counters["trials"] += row["n"]
    counters["calls"] = ApiCall.objects.filter(source_kind=TRIAL_SOURCE_KIND, source_id=str(run.pk)).count()
    tried = EdgeTrial.objects.filter(run=run).values("edge_id")
    counters["edges"] = dict(
        CandidateEdge.objects.filter(pk__in=tried).order_by().values_list("status").annotate(n=Count("id"))
    )
    return counters


# --- Snapshots -------------------------------------------------------------------------------------------


def graph_rows(statuses: Iterable[str]) -> tuple[list[dict], list[dict]]:
    """The edges of these statuses as (nodes, rows) for graphs/engine/graph.py: one node per tool, one row per
    edge with its binding, its conditions and its posterior."""
    edges = CandidateEdge.objects.filter(status__in=list(statuses)).select_related(
        "source_tool__service__provider", "target_tool__service__provider"
    )
    nodes: dict[int, dict[str, Any]] = {}
    rows = []
    for edge in edges:
        for tool in (edge.source_tool, edge.target_tool):
            nodes.setdefault(
                tool.pk,
                {
                    "id": tool.pk,
                    "name": tool.function_name,
                    "label": tool.name_ko or tool.function_name,
                    "provider": tool.service.provider.code,
                    "provider_name": tool.service.provider.display_name,
                },
            )
        rows.append(
            {
                "source": edge.source_tool_id,
                "target": edge.target_tool_id,
                "edge_id": edge.pk,
                "field": edge.source_field,
                "param": edge.target_param,
                "transform": edge.transform,
                "domains": edge.domains,
                # The field holds a value for B only when A's call had none of these (areaCode2's code), or
                # not with these values (select_stdg's stdgCd is no 동 code with lv 1 or 2).
                **_request_conditions(edge),
                # Parameters of B bound beside it from the same record, and values it never binds (a 동 part 00000).
                **_binding_conditions(edge),
                "status": edge.status,
                "alpha": round(edge.alpha, 4),
                "beta": round(edge.beta, 4),
                "mean": round(edge.posterior_mean, 4),
                "successes": edge.trials_success,
                "structural": edge.trials_structural,
                "environmental": edge.trials_environmental,
            }
        )
    return list(nodes.values()), rows


def _binding_conditions(edge: CandidateEdge) -> dict[str, Any]:
    """The edge's companions (B's parameters bound beside it from the same record) and invalid patterns. Where
    a candidate from the same source fills a companion and held in trials (verified, or an echo: a value the
    source's input already said is still the right one beside a new one), "companion_links" says how to read it
    (select_stdg's stdgCd through slice:0:5 as sigunguCd beside its slice:5:10 as bjdongCd)."""
    params = tool_param_domains(edge.target_tool)
    targets = (edge.domains or {}).get("target") or [params.get(p, value_domains.UNKNOWN) for p in edge.target_params]
    own = set(edge.target_params)
    conditions = value_domains.binding_conditions(targets, {p: d for p, d in params.items() if p not in own})
    links = []
    held = (CandidateEdge.Status.VERIFIED, CandidateEdge.Status.ECHO)
    for param in conditions["companions"]:
        sibling = (
            CandidateEdge.objects.filter(
                source_tool_id=edge.source_tool_id, target_tool_id=edge.target_tool_id, target_param=param
            )
            .filter(status__in=held)
            .order_by("-posterior_mean", "id")
            .first()
        )
        if sibling is not None:
            invalid = value_domains.domain(params.get(param, value_domains.UNKNOWN)).invalid
            links.append(
                {"param": param, "field": sibling.source_field, "transform": sibling.transform, "invalid": invalid}
            )
    return {**conditions, "companion_links": links}


def _request_conditions(edge: CandidateEdge) -> dict[str, Any]:
    """A binding's conditions on the source call: "without" (parameters it must not have) and "unless"
    (parameter -> values it must not have)."""
    provider = edge.source_tool.service.provider.code
    targets = (edge.domains or {}).get("target") or [None] * len(edge.source_fields)
    without: list[str] = []
    unless: dict[str, list[str]] = {}
    for name, target in zip(edge.source_fields, targets, strict=False):
        for param, values in value_domains.request_condition(name, provider=provider, target=target).items():
            if values:
                unless[param] = values
            elif param not in without:
                without.append(param)
    return {"without": without, "unless": unless}


def refinement_summary() -> dict[str, Any]:
    """Trial success rates of the candidates by status (graphs/engine/graph.py), for snapshots and the index page."""
    rows = CandidateEdge.objects.values("status", "trials_success", "trials_structural")
    return graph_engine.refinement_stats(
        {"status": r["status"], "success": r["trials_success"], "structural": r["trials_structural"]} for r in rows
    )


def snapshot_graph(snapshot: GraphSnapshot):
    """A snapshot's graph as networkx, from its node-link JSON."""
    return graph_engine.from_node_link(snapshot.node_link)


def snapshot_export(snapshot: GraphSnapshot, fmt: str) -> tuple[str, str, str]:
    """(body, content type, file name) of a snapshot as node-link JSON or GraphML."""
    if fmt == "graphml":
        return (
            graph_engine.to_graphml(snapshot_graph(snapshot)),
            "application/graphml+xml",
            f"edge-graph-v{snapshot.version}.graphml",
        )
    if fmt == "json":
        body = json.dumps(snapshot.node_link, ensure_ascii=False, indent=1)
        return body, "application/json", f"edge-graph-v{snapshot.version}.json"
    raise ValueError(f"unknown export format {fmt!r}; use json or graphml")
