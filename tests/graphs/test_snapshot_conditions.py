"""A snapshot's bindings carry their conditions: values never bound, companions and how to read them."""

from __future__ import annotations

from graphs.engine import domains
from graphs.models import CandidateEdge
from graphs.selectors import snapshot_graph
from graphs.services import edge_create, graph_snapshot_create


def _edge(catalog, field, param, transform, status):
    edge = edge_create(
        source_tool=catalog["select_stdg_ppltn_hh_stus"],
        source_field=field,
        target_tool=catalog["get_br_title_info"],
        target_param=param,
        transform=transform,
        score=0.8,
    )
    CandidateEdge.objects.filter(pk=edge.pk).update(status=status, posterior_mean=0.9)
    return edge


def test_a_snapshot_binding_states_its_invalid_values_and_companions(catalog):
    dong = _edge(catalog, "stdgCd", "bjdongCd", "slice:5:10", CandidateEdge.Status.VERIFIED)
    _edge(catalog, "stdgCd", "sigunguCd", "slice:0:5", CandidateEdge.Status.ECHO)
    snapshot = graph_snapshot_create(note="conditions")
    graph = snapshot_graph(snapshot)
    (binding,) = [b for _, _, data in graph.edges(data=True) for b in data["bindings"]]
    assert binding["edge_id"] == dong.pk
    # A 시군구 row's 동 part 00000 is never bound; the 시군구 goes beside it, read from the same record.
    assert binding["invalid"] == ["0{5}"] and binding["companions"] == ["sigunguCd"]
    # Nor a 시도 row's 11000 or a 시 whose 구 are the units (수원시 41110) as its 시군구.
    assert binding["companion_links"] == [
        {"param": "sigunguCd", "field": "stdgCd", "transform": "slice:0:5", "invalid": domains.domain("sgg5").invalid}
    ]
    assert all(code in binding["companion_links"][0]["invalid"] for code in ("41110", "48120"))
    assert binding["unless"] == {"lv": ["1", "2"]}
