"""The verified graph as networkx: build it from edge rows, measure it, and export it.

Nodes are tools; a DiGraph edge A -> B stands for every verified binding from A into B (listed in its
`bindings` attribute). Statistics: size, weakly connected components, how long the chains are that one can
walk (shortest-path lengths between reachable tool pairs), and the trial success rate before and after
refinement, as EDGE reports it (all tried candidates vs. those that survived pruning).
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import networkx as nx

# Past this many nodes the chain-length statistics come from this many BFS starts, not from all of them.
CHAIN_SAMPLE = 400


def build_graph(nodes: Iterable[Mapping[str, Any]], edges: Iterable[Mapping[str, Any]]) -> nx.DiGraph:
    """nodes: {id, name, provider, ...}; edges: {source, target, field, param, transform, ...} (one per binding)."""
    graph = nx.DiGraph()
    for node in nodes:
        graph.add_node(node["id"], **{k: v for k, v in node.items() if k != "id"})
    for edge in edges:
        a, b = edge["source"], edge["target"]
        binding = {k: v for k, v in edge.items() if k not in ("source", "target")}
        if graph.has_edge(a, b):
            data = graph.edges[a, b]
            data["bindings"].append(binding)
            data["count"] += 1
            data["best_mean"] = max(data["best_mean"], binding.get("mean", 0.0))
        else:
            graph.add_edge(a, b, bindings=[binding], count=1, best_mean=binding.get("mean", 0.0))
    return graph


def chain_lengths(graph: nx.DiGraph) -> dict[int, int]:
    """How many ordered tool pairs (u, v) are linked by a shortest chain of k edges, per k."""
    lengths: Counter[int] = Counter()
    starts = sorted(graph.nodes, key=str)
    if len(starts) > CHAIN_SAMPLE:
        step = len(starts) / CHAIN_SAMPLE
        starts = [starts[int(i * step)] for i in range(CHAIN_SAMPLE)]
    for start in starts:
        for target, distance in nx.single_source_shortest_path_length(graph, start).items():
            if target != start:
                lengths[distance] += 1
    return dict(sorted(lengths.items()))


def graph_stats(graph: nx.DiGraph) -> dict[str, Any]:
    components = sorted((len(c) for c in nx.weakly_connected_components(graph)), reverse=True)
    linked = [n for n in graph.nodes if graph.degree(n) > 0]
    chains = chain_lengths(graph)
    return {
        "nodes": graph.number_of_nodes(),
        "linked_nodes": len(linked),
        "edges": graph.number_of_edges(),
        "bindings": sum(data["count"] for _, _, data in graph.edges(data=True)),
        "components": len([c for c in components if c > 1]),
        "largest_component": components[0] if components else 0,
        "component_sizes": [c for c in components if c > 1],
        "chain_lengths": {str(k): v for k, v in chains.items()},
        "longest_chain": max(chains) if chains else 0,
        "sources": len([n for n in graph.nodes if graph.out_degree(n) > 0 and graph.in_degree(n) == 0]),
        "sinks": len([n for n in graph.nodes if graph.in_degree(n) > 0 and graph.out_degree(n) == 0]),
    }


def _rate(success: int, structural: int) -> float | None:
    tried = success + structural
    return round(success / tried, 4) if tried else None


def refinement_stats(edges: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Trial success before refinement (every tried candidate) and after (the ones not pruned).

    edges: {status, success, structural} per candidate; environmental and skipped trials are not counted,
    since they say nothing about the link.
    """
    groups: dict[str, list[int]] = {"before": [0, 0, 0], "after": [0, 0, 0], "verified": [0, 0, 0], "pruned": [0, 0, 0]}
    for edge in edges:
        success, structural = int(edge.get("success", 0)), int(edge.get("structural", 0))
        if success + structural == 0:
            continue
        names = ["before"]
        names.append("pruned" if edge["status"] == "pruned" else "after")
        if edge["status"] == "verified":
            names.append("verified")
        for name in names:
            groups[name][0] += success
            groups[name][1] += structural
            groups[name][2] += 1
    return {
        name: {"success_rate": _rate(s, f), "trials": s + f, "successes": s, "edges": n}
        for name, (s, f, n) in groups.items()
    }


def to_node_link(graph: nx.DiGraph) -> dict[str, Any]:
    return nx.node_link_data(graph, edges="edges")


def from_node_link(data: Mapping[str, Any]) -> nx.DiGraph:
    return nx.node_link_graph(dict(data), directed=True, multigraph=False, edges="edges")


def to_graphml(graph: nx.DiGraph) -> str:
    """GraphML text; list attributes (an edge's bindings) become JSON strings, since GraphML holds scalars."""
    flat = nx.DiGraph()
    for node, data in graph.nodes(data=True):
        flat.add_node(node, **{k: _scalar(v) for k, v in data.items()})
    for a, b, data in graph.edges(data=True):
        flat.add_edge(a, b, **{k: _scalar(v) for k, v in data.items()})
    buffer = io.BytesIO()
    nx.write_graphml(flat, buffer, encoding="utf-8")
    return buffer.getvalue().decode("utf-8")


def _scalar(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
