"""Need-first synthesis on the sandbox over a real socket: properties over a few hundred generated items.

The snapshot holds exactly the edges the need catalog travels, stored as verified; the run is the default
(`strategy` needs, the offline writer, the rule filters), as `manage.py synthesize` makes it.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from apis.engine.korean_text import find_word, numbers_match, read_quantities
from datasets.engine.diversity import blank
from datasets.engine.naturalness import CODE_TOKEN, CRITERIA
from datasets.engine.needs import NEEDS
from datasets.engine.needs.catalog import SIDES_AT_MOST
from datasets.models import SynthesisRun, Trajectory
from datasets.services import synthesis_run_create, synthesis_run_execute
from tests.datasets.sandbox import verified_snapshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

NEED_EDGES = sorted(
    {(b.source, ",".join(b.fields), b.target, ",".join(b.params), b.transform) for n in NEEDS for b in n.binds}
)
# Research §5 chains the catalog realises: 1 (법정동 -> MOLIT), 5 (TM -> station -> readings), 7 (Seoul stop ->
# arrivals), 8 (TourAPI place -> details), 9 (holiday -> pharmacies), 10 (HIRA -> details), 13 (법정동 ->
# population), 14 (청약 notice -> house types).
# Needs over providers the first catalog left out or barely used (Juso, TAGO, KASI's 국경일, the 청약 competition,
# TourAPI's details): they synthesise in a default run like the documented ones.
WIDER = {
    "weather_at_address",
    "building_at_address",
    "hospitals_near_address",
    "tago_next_bus",
    "subscription_competition",
    "national_days",
    "site_contact",
}
DOCUMENTED = {
    "apt_trades_in_dong",
    "air_in_dong",
    "next_bus",
    "site_hours",
    "holiday_pharmacy",
    "hospital_hours",
    "dong_population",
    "subscription_types",
}


@pytest.fixture
def need_snapshot(catalog, on_sandbox):
    return verified_snapshot(catalog, edges=NEED_EDGES, note="need catalog")


def _stated(value: str, answer: str) -> bool:
    if find_word(value, answer):
        return True
    try:
        return numbers_match(read_quantities(answer), float(value.replace(",", ""))) is not None
    except ValueError:
        return False


def test_a_default_run_writes_requests_users_would_type_and_answers_that_answer(need_snapshot):
    run = synthesis_run_create(params={"count": 200, "seed": 11, "concurrency": 8}, snapshot=need_snapshot)
    assert run.params["strategy"] == "needs"
    synthesis_run_execute(run=run)
    run = SynthesisRun.objects.get(pk=run.pk)
    counters = run.counters
    stored = list(Trajectory.objects.filter(run=run).prefetch_related("calls"))
    kept = [t for t in stored if t.status == Trajectory.Status.PENDING_REVIEW]
    assert run.status == "finished" and len(kept) >= 150, counters
    # The offline writer passes every stage on its own: nothing it wrote fails the naturalness stage.
    assert not [t.filters["natural"]["problems"] for t in stored if not t.filters["natural"]["passed"]]
    assert counters["filtered"] <= 0.02 * len(stored), counters["failed_filters"]

    for t in kept:
        calls = sorted(t.calls.all(), key=lambda c: c.seq)
        facts = t.facts
        # No code the user could not know: no token shaped like one, no value passed between calls.
        assert not CODE_TOKEN.search(t.request), t.request
        for value in facts["intermediate"]:
            if len(str(value)) >= 3 and not any(str(value) in n for ns in t.named for n in ns):
                assert str(value) not in t.request, (t.request, value)
        # Every pick states its criterion.
        assert all(p["criterion"] in CRITERIA for p in facts["picks"]), facts["picks"]
        # Every hop feeds a later call or the answer.
        steps = sorted({c.step.index for c in calls})
        fed = {b.get("from_step") for c in calls for b in c.bindings}
        answered = {f["step"] for f in facts["answer"]}
        assert all(s in fed or s in answered for s in steps[:-1]), (t.request, steps, fed, answered)
        assert max(steps) in answered
        # Every requested value is in the answer.
        for wanted in facts["requested"]:
            assert any(_stated(v, t.answer) for v in wanted["values"]), (t.request, t.answer, wanted)
        # Lists: whole when short, else the total is stated.
        for listing in facts["lists"]:
            assert listing["shown"] == listing["total"] or (
                listing["total"] > 10 and re.search(rf"(?<!\d){listing['total']}(?!\d)", t.answer.replace(",", ""))
            )
        assert not re.search(r"\((?:으|이|을|를|은|는|과|와|가)\)|\{|\}", t.request + t.answer)
        # A step whose list the answer counts read every page: the count is the API's, not a first page's.
        for listing in facts["lists"]:
            step_calls = [c for c in calls if c.step.index == listing["step"]]
            total_count = step_calls[0].observation.get("total_count")
            if total_count is not None:
                assert sum(c.observation["record_count"] for c in step_calls) >= total_count, (t.request, listing)
        # A name a few stops share (the two sides of a road) is answered for every one of them, each told apart by
        # its next stop (when all its buses go on to it) or by its sign's number; a name more stops share (광화문: 7)
        # is never asked.
        if calls[0].tool_name == "get_station_by_name":
            typed = facts["named"][0][0]
            same = [
                r for r in calls[0].observation["records"] if re.sub(r"[\s.]", "", r["stNm"]) == typed.replace(" ", "")
            ]
            if len(same) > 1:
                assert facts["need"] == "next_bus" and len(same) <= SIDES_AT_MOST, (t.request, len(same))
                assert len(calls) == 1 + len(same), (t.request, len(same))
                sides = [f"정류소 번호 {r['arsId']}번" in t.answer for r in same]
                assert all(sides) or (not any(sides) and t.answer.count("다음 정류장이 ") == len(same)), t.answer

        # Named lookups go through the API's own name filter, with the name as the request writes it; stops are
        # searched with a word the user typed and matched by name.
        first = calls[0]
        if facts["need"] == "hospital_hours":
            assert first.arguments["yadmNm"] in t.request and first.arguments["emdongNm"] in t.request
        if facts["need"] == "subscription_types":
            assert (
                first.arguments["cond[HOUSE_NM::LIKE]"] in t.request
                and "(" not in first.arguments["cond[HOUSE_NM::LIKE]"]
            )
        if first.tool_name == "addr_link_api":  # the road address as the user typed it, nothing else
            assert first.arguments["keyword"] == facts["named"][0][0] and first.arguments["keyword"] in t.request
        if facts["need"] == "tago_next_bus":  # the city's bus code comes from the city list, never the request
            city_code = str(calls[1].arguments["cityCode"])
            assert calls[0].tool_name == "get_cty_code_list" and city_code not in t.request, t.request
            assert calls[2].arguments["cityCode"] == calls[1].arguments["cityCode"]
        if first.tool_name == "get_station_by_name":
            typed = facts["named"][0][0]
            assert first.arguments["stSrch"] in typed.split() and f"{typed} " in t.request, (t.request, typed)
            assert facts["picks"][0]["criterion"] == "named"

    # Spread: no place gathers a need's items, and no answer is another's word for word more than once.
    for need in {t.facts["need"] for t in kept}:
        firsts = Counter(t.facts["named"][0][0] for t in kept if t.facts["need"] == need and t.facts["named"])
        assert not firsts or max(firsts.values()) <= 3, (need, firsts.most_common(3))
    assert max(Counter(t.answer for t in kept).values()) <= 2, Counter(t.answer for t in kept).most_common(2)
    needs = {t.facts["need"] for t in kept}
    assert needs >= DOCUMENTED, DOCUMENTED - needs
    assert needs >= WIDER, WIDER - needs
    # Diversity: every domain is there, no template dominates, three registers.
    diversity = run.diversity
    assert len(diversity["domains"]) >= 8 and diversity["max_per_template"] <= 0.1 * len(kept) + 2
    registers = Counter(t.generator_note.rsplit(" ", 1)[-1] for t in kept)
    assert set(registers) == {"haeyo", "banmal", "hamnida"}
    # The wording varies: with its places, dates and names blanked, no request repeats more than twice in 200,
    # and the three registers are balanced (each within a few items of a third).
    wordings = Counter(blank(t.request, t.named) for t in kept)
    assert max(wordings.values()) <= 2, wordings.most_common(3)
    assert len(wordings) >= 0.9 * len(kept), len(wordings)
    assert max(registers.values()) - min(registers.values()) <= 2, registers
    templates = Counter(t.facts["request_template"] for t in kept)  # the exact wording the writer filled
    assert diversity["max_per_request_template"] == max(templates.values()) <= 2, templates.most_common(3)
    assert diversity["registers"] == dict(registers.most_common())
    # Items per need are capped (an even share with room), and the report says so per run.
    per_need = Counter(t.facts["need"] for t in kept)
    assert max(per_need.values()) <= run.counters["cap_per_need"], per_need
    assert diversity["needs"] == {k: v for k, v in sorted(per_need.items(), key=lambda kv: (-kv[1], kv[0]))}
