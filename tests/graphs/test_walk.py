"""The typed walker: plans for every junction type, lengths up to 6 and beyond, seeded reproducibility,
coverage-driven choices and restarts, all over plain networkx graphs."""

from __future__ import annotations

import pytest

from datasets.engine.phrasing import tool_meta
from graphs.engine.graph import build_graph
from graphs.engine.walk import (
    CMP,
    COND,
    DRV,
    FAN,
    JUNCTIONS,
    SEM,
    SEQ,
    Plan,
    WalkConfig,
    Walker,
    WalkError,
    edge_links,
    field_kind,
)
from tests.datasets import world


def _chain(n: int, *, extra_required: bool = False):
    """Tools t0 -> t1 -> ... -> t(n-1): each record's id feeds the next tool's id parameter."""
    tools = {}
    for i in range(n):
        props = {"id": {"type": "string", "description": "식별자", "example": "A1"}}
        required = ["id"]
        if extra_required and i == n - 1:
            props["secret"] = {"type": "string", "description": "예시가 없는 값"}
            required.append("secret")
        tools[i] = tool_meta(
            id=i,
            name=f"t{i}",
            label=f"도구{i} 조회",
            parameters={"type": "object", "properties": props, "required": required},
            record_fields=[
                {"path": "id", "description": "식별자"},
                {"path": "name", "description": "이름"},
                {"path": "score", "type": "integer", "description": "점수"},
            ],
        )
    edges = [
        {"source": i, "target": i + 1, "field": "id", "param": "id", "transform": "identity", "edge_id": i}
        for i in range(n - 1)
    ]
    return build_graph([{"id": i, "name": f"t{i}"} for i in range(n)], edges), tools


def test_each_junction_type_is_planned_when_it_is_the_only_one_allowed():
    graph, tools = world.graph(), world.tools()
    for junction in JUNCTIONS:
        low = 3 if junction == SEM else 2
        walker = Walker(graph, tools, WalkConfig(min_length=low, max_length=3, junctions=(junction,)), seed=1)
        plans = walker.plans(12)
        assert plans, junction
        assert all(junction in p.junctions for p in plans if p.length > 1), junction
        assert any(junction in p.junctions for p in plans), junction


def test_junctions_carry_what_execution_needs():
    graph, tools = world.graph(), world.tools()
    seen = {}
    walker = Walker(graph, tools, WalkConfig(min_length=2, max_length=3, strategy="coverage"), seed=3)
    for plan in walker.plans(60):
        for step in plan.steps:
            seen.setdefault(step.junction, step)
    assert set(JUNCTIONS) <= set(seen)
    assert seen[DRV].pick is not None and seen[DRV].pick.op in ("max", "min", "latest", "filter")
    assert 2 <= seen[FAN].fan <= 3
    assert seen[CMP].fan == 2 and seen[CMP].compare
    assert seen[COND].condition and seen[COND].branch in ("then", "else")
    # population's sido has no binding and no example: it comes from the earlier step that used sido.
    population = next(s for p in walker.plans(30) for s in p.steps if s.name == "population")
    assert "sido" in population.context and population.args.get("ym") == "202610"


def test_walks_reach_length_six_and_more_on_a_long_chain():
    graph, tools = _chain(8)
    walker = Walker(graph, tools, WalkConfig(min_length=6, max_length=8, junctions=(SEQ, DRV)), seed=5)
    lengths = {p.length for p in walker.plans(12)}
    assert {6, 7, 8} <= lengths


def test_the_same_seed_gives_the_same_plans_and_another_seed_differs():
    graph, tools = world.graph(), world.tools()

    def templates(seed):
        walker = Walker(graph, tools, WalkConfig(max_length=4), seed=seed)
        return [p.to_dict() for p in walker.plans(20)]

    assert templates(7) == templates(7)
    assert templates(7) != templates(8)


def test_coverage_takes_the_least_used_edges_first():
    hub = tool_meta(id=0, name="hub", parameters={"type": "object", "properties": {}}, record_fields=[{"path": "id"}])
    tools = {0: hub}
    rows = []
    for i in range(1, 6):
        tools[i] = tool_meta(
            id=i,
            name=f"leaf{i}",
            parameters={"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
            record_fields=[{"path": "name"}],
        )
        rows.append({"source": 0, "target": i, "field": "id", "param": "id", "transform": "identity"})
    graph = build_graph([{"id": i} for i in range(6)], rows)
    walker = Walker(graph, tools, WalkConfig(min_length=2, max_length=2, strategy="coverage", junctions=(SEQ,)), seed=0)
    first_five = [p.steps[1].name for p in walker.plans(5)]
    assert sorted(first_five) == [f"leaf{i}" for i in range(1, 6)]


def test_random_walks_restart_from_another_start_after_a_dead_end():
    graph, tools = _chain(4)
    graph.add_node(99, name="island")
    tools[99] = tool_meta(
        id=99, name="island", parameters={"type": "object", "properties": {"q": {"type": "string", "example": "x"}}}
    )
    walker = Walker(graph, tools, WalkConfig(min_length=3, max_length=3, junctions=(SEQ,)), seed=2)
    plans = walker.plans(20)
    assert len(plans) == 20 and all(p.length == 3 for p in plans)


def test_an_edge_whose_target_lacks_a_required_value_is_not_walked():
    graph, tools = _chain(3, extra_required=True)
    walker = Walker(graph, tools, WalkConfig(min_length=1, max_length=3, junctions=(SEQ,)), seed=0)
    assert all("t2" not in [s.name for s in p.steps] for p in walker.plans(30))


def test_a_plan_round_trips_through_its_dict():
    walker = Walker(world.graph(), world.tools(), WalkConfig(min_length=2, max_length=4, strategy="coverage"), seed=9)
    for plan in walker.plans(20):
        again = Plan.from_dict(plan.to_dict())
        assert again == plan and again.template_id == plan.template_id


def test_the_template_holds_no_value():
    walker = Walker(world.graph(), world.tools(), WalkConfig(min_length=2, max_length=3), seed=4)
    for plan in walker.plans(10):
        assert "서울특별시" not in plan.template and "202610" not in plan.template
        assert plan.steps[0].args.get("sido") == "서울특별시"


def test_bad_configurations_and_graphs_are_clear_errors():
    graph, tools = world.graph(), world.tools()
    with pytest.raises(WalkError, match="strategy"):
        Walker(graph, tools, WalkConfig(strategy="bfs"))
    with pytest.raises(WalkError, match="junctions"):
        Walker(graph, tools, WalkConfig(junctions=("LOOP",)))
    with pytest.raises(WalkError, match="lengths"):
        Walker(graph, tools, WalkConfig(min_length=4, max_length=2))
    lonely = tool_meta(
        id=1, name="needs", parameters={"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    )
    with pytest.raises(WalkError, match="no tool in the graph can start"):
        Walker(build_graph([{"id": 1}], []), {1: lonely})


def test_edge_links_keep_the_best_binding_per_parameter_and_skip_bad_specs():
    graph = build_graph(
        [{"id": 1}, {"id": 2}],
        [
            {"source": 1, "target": 2, "field": "a", "param": "p", "transform": "identity", "mean": 0.4},
            {"source": 1, "target": 2, "field": "b", "param": "p", "transform": "identity", "mean": 0.9},
            {"source": 1, "target": 2, "field": "c", "param": "q", "transform": "no_such", "mean": 0.9},
            {"source": 1, "target": 2, "field": "x,y", "param": "nx,ny", "transform": "project:utmk:kma", "mean": 0.8},
        ],
    )
    links = edge_links(graph, 1, 2)
    assert [(k.fields, k.params) for k in links] == [(("x", "y"), ("nx", "ny")), (("b",), ("p",))]


def _area_codes(entry: dict):
    """TourAPI areaCode2 (entered with `entry`) -> areaBasedList2, bound code -> areaCode only without areaCode."""
    area = tool_meta(
        id=1,
        name="area_code2",
        label="지역코드 조회",
        parameters={"type": "object", "properties": {"areaCode": {"type": "string", "description": "지역코드"}}},
        record_fields=[{"path": "code", "description": "코드"}, {"path": "name", "description": "이름"}],
        entries=[entry],
    )
    places = tool_meta(
        id=2,
        name="area_based_list2",
        label="지역기반 관광정보 조회",
        parameters={
            "type": "object",
            "properties": {"areaCode": {"type": "string", "description": "지역코드", "example": "1"}},
            "required": ["areaCode"],
        },
        record_fields=[{"path": "title", "description": "제목"}],
    )
    binding = {"source": 1, "target": 2, "field": "code", "param": "areaCode", "transform": "identity"}
    graph = build_graph([{"id": 1}, {"id": 2}], [{**binding, "edge_id": 7, "mean": 0.9, "without": ["areaCode"]}])
    return graph, {1: area, 2: places}


def test_a_binding_whose_field_changes_meaning_with_the_request_is_only_walked_without_that_parameter():
    graph, _ = _area_codes({})
    assert [k.edge_id for k in edge_links(graph, 1, 2)] == [7]
    assert edge_links(graph, 1, 2, given={"areaCode", "numOfRows"}) == ()
    # Called without areaCode, areaCode2 lists areas: its code feeds areaCode.
    graph, tools = _area_codes({"numOfRows": "20"})
    plans = Walker(graph, tools, WalkConfig(min_length=1, max_length=2, junctions=(SEQ,)), seed=3).plans(6)
    assert any(7 in p.edge_ids for p in plans)
    # Called with areaCode=1 it lists 서울's 시군구: that code is no areaCode, and no plan binds it as one.
    graph, tools = _area_codes({"areaCode": "1"})
    plans = Walker(graph, tools, WalkConfig(min_length=1, max_length=2, junctions=(SEQ,)), seed=3).plans(6)
    assert plans and all(7 not in p.edge_ids for p in plans)


def test_a_binding_that_fails_for_some_values_of_a_parameter_is_walked_only_with_other_values():
    binding = {"source": 1, "target": 2, "field": "stdgCd", "param": "bjdongCd", "transform": "slice:5:10"}
    graph = build_graph([{"id": 1}, {"id": 2}], [{**binding, "edge_id": 9, "unless": {"lv": ["1", "2"]}}])
    assert [k.edge_id for k in edge_links(graph, 1, 2, given={"stdgCd", "lv"}, args={"lv": "3"})] == [9]
    assert edge_links(graph, 1, 2, given={"stdgCd", "lv"}, args={"lv": "2"}) == ()
    assert edge_links(graph, 1, 2, given={"stdgCd", "lv"}, args={}) == ()  # lv bound by a link: not known yet
    assert [k.edge_id for k in edge_links(graph, 1, 2, given={"stdgCd"})] == [9]


def test_a_binding_needs_its_companions_bound_beside_it_and_never_binds_a_value_that_names_nothing():
    cats = [
        {"source": 1, "target": 2, "field": "cat1", "param": "cat1", "edge_id": 1, "mean": 0.9},
        {"source": 1, "target": 2, "field": "cat2", "param": "cat2", "edge_id": 2, "companions": ["cat1"]},
        {"source": 1, "target": 2, "field": "cat3", "param": "cat3", "edge_id": 3, "companions": ["cat1", "cat2"]},
    ]
    graph = build_graph([{"id": 1}, {"id": 2}], cats)
    assert [k.edge_id for k in edge_links(graph, 1, 2)] == [1, 2, 3]
    # Without cat1's edge, cat2 and cat3 name no 분류 of their own: neither is bound.
    assert edge_links(build_graph([{"id": 1}, {"id": 2}], cats[1:]), 1, 2) == ()
    # An echo that held in trials reads the companion from the same record: no hop of its own (no edge id).
    sigungu = {"param": "sigunguCd", "field": "cat1", "transform": "slice:0:1", "invalid": "x"}
    graph = build_graph(
        [{"id": 1}, {"id": 2}], [{**cats[1], "companions": ["sigunguCd"], "companion_links": [sigungu]}]
    )
    assert [(k.params, k.edge_id, k.invalid) for k in edge_links(graph, 1, 2)] == [
        (("cat2",), 2, ()),
        (("sigunguCd",), None, ("x",)),
    ]
    binding = {"source": 1, "target": 2, "field": "region_cd", "param": "bjdongCd", "transform": "slice:5:10"}
    graph = build_graph([{"id": 1}, {"id": 2}], [{**binding, "edge_id": 9, "invalid": ["0{5}"]}])
    (link,) = edge_links(graph, 1, 2)
    assert link.accepts(["10300"]) and not link.accepts(["00000"])  # a 시군구 row's 동 part names no 동
    plan = Plan.from_dict({"steps": [{"index": 0, "tool": 1, "name": "b", "links": [link.__dict__]}]})
    assert plan.steps[0].links == (link,)


@pytest.mark.parametrize(
    ("path", "type_", "description", "example", "kind"),
    [
        ("dealAmount", "string", "거래금액 (만원)", "144,240", "number"),
        ("region_cd", "string", "지역코드 (법정동코드 10자리)", "1111010100", "code"),
        ("emyDayYn", "string", "주간 응급실 운영여부 (Y/N)", "Y", "flag"),
        ("dataTime", "string", "측정일시", "2026-11-18 14:00", "date"),
        ("nodenm", "string", "정류소명", "법동전통시장", "label"),
        ("routetp", "string", "노선유형", "간선버스", "category"),
        ("gpslati", "number", "WGS84 위도", "36.35", "coord"),
    ],
)
def test_field_kinds(path, type_, description, example, kind):
    assert field_kind(path, type_, description, example) == kind
