"""The verified graph: building it from bindings, its statistics, refinement rates and exports."""

import networkx as nx

from graphs.engine import graph as graph_engine

NODES = [{"id": i, "name": f"t{i}", "provider": "p"} for i in range(1, 6)]
EDGES = [
    {"source": 1, "target": 2, "field": "a", "param": "b", "transform": "identity", "mean": 0.8},
    {"source": 1, "target": 2, "field": "c", "param": "d", "transform": "slice:0:5", "mean": 0.9},
    {"source": 2, "target": 3, "field": "e", "param": "f", "transform": "identity", "mean": 0.7},
    {"source": 4, "target": 5, "field": "g", "param": "h", "transform": "project:utmk:kma", "mean": 0.6},
]


def test_bindings_between_two_tools_share_one_graph_edge():
    graph = graph_engine.build_graph(NODES, EDGES)
    assert graph.number_of_edges() == 3
    assert graph.edges[1, 2]["count"] == 2 and graph.edges[1, 2]["best_mean"] == 0.9


def test_stats_count_components_and_chain_lengths():
    stats = graph_engine.graph_stats(graph_engine.build_graph(NODES, EDGES))
    assert stats["nodes"] == 5 and stats["bindings"] == 4 and stats["components"] == 2
    assert stats["largest_component"] == 3 and stats["longest_chain"] == 2
    assert stats["chain_lengths"] == {"1": 3, "2": 1}


def test_refinement_rates_before_and_after_pruning():
    rows = [
        {"status": "verified", "success": 8, "structural": 0},
        {"status": "verifying", "success": 3, "structural": 3},
        {"status": "pruned", "success": 1, "structural": 9},
        {"status": "proposed", "success": 0, "structural": 0},
    ]
    stats = graph_engine.refinement_stats(rows)
    assert stats["before"] == {"success_rate": 0.5, "trials": 24, "successes": 12, "edges": 3}
    assert stats["after"]["success_rate"] == round(11 / 14, 4) and stats["pruned"]["success_rate"] == 0.1
    assert stats["verified"]["success_rate"] == 1.0


def test_node_link_and_graphml_round_trip():
    graph = graph_engine.build_graph(NODES, EDGES)
    again = graph_engine.from_node_link(graph_engine.to_node_link(graph))
    assert again.edges[1, 2]["bindings"][1]["transform"] == "slice:0:5"
    parsed = nx.parse_graphml(graph_engine.to_graphml(graph))
    assert parsed.number_of_edges() == 3 and '"slice:0:5"' in parsed.edges["1", "2"]["bindings"]
