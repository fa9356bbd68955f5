"""Every metric on hand-made episodes, and the estimators on hand-computed numbers."""

from __future__ import annotations

import math

import pytest

from benchmarks.engine.metrics import (
    aggregate,
    bootstrap_interval,
    pass_at_k,
    pass_hat_k,
    score_episode,
    score_run,
    seed_interval,
    wilson_interval,
)
from benchmarks.engine.runner import CallRecord, EpisodeResult, StepRecord
from benchmarks.engine.task import parse_tasks

DOCUMENT = {
    "format": "kopa-bench/tasks",
    "version": 1,
    "data_version": "metrics-test",
    "tasks": [
        {
            "id": "deals",
            "request": "종로구 거래 총액과 서울 날씨",
            "tools": "*",
            "categories": ["real-estate", "chain"],
            "difficulty": "medium",
            "gold": {
                "calls": [
                    {"id": "c1", "tool": "lookup_region", "args": {"name": "종로구"}, "answer_bearing": False},
                    {
                        "id": "c3",
                        "tool": "weather",
                        "args": {"city": "서울"},
                        "alternatives": {"unit": "*"},
                        "all_pages": False,
                    },
                    {
                        "id": "c2",
                        "tool": "list_deals",
                        "args": {"code": "11110", "month": "202610", "numOfRows": 10},
                        "bindings": [{"arg": "code", "from": "c1", "field": "code"}],
                        "pages": 3,
                    },
                ],
                "answer": {"checker": "numeric", "value": 120, "unit": "만원", "text": "120만원"},
            },
        },
        {
            "id": "holiday",
            "request": "제헌절은 공휴일?",
            "tools": "*",
            "categories": ["calendar"],
            "difficulty": "easy",
            "gold": {
                "calls": [{"id": "c1", "tool": "holidays", "args": {"year": "2026"}}],
                "answer": {"checker": "boolean", "value": True, "text": "예"},
            },
        },
    ],
}
TASKS = parse_tasks(DOCUMENT)
DEALS, HOLIDAY = TASKS.tasks


def rec(step, name, args, *, status="ok", total=None, page=None, delivered=0, error_class=None) -> CallRecord:
    return CallRecord(
        id=f"{name}-{step}-{sorted(args.items()) if args else ''}",
        step=step,
        name=name,
        arguments=args,
        raw_arguments="",
        status=status,
        ok=status == "ok",
        error_class=error_class,
        total_count=total,
        page=page or {},
        records_returned=delivered,
        records_delivered=delivered,
    )


def episode(task, calls, answer="정답: 120만원", seed=0, stop="answer") -> EpisodeResult:
    steps = {}
    for call in calls:
        steps.setdefault(call.step, []).append(call)
    last = max(steps, default=-1) + 1
    records = [StepRecord(i, "", steps.get(i, [])) for i in range(last)] + [StepRecord(last, answer or "")]
    return EpisodeResult(task.id, seed, "test", "test", stop, answer, records)


def deals_page(step, page, *, rows=10, delivered=None, code="11110", total=25):
    shown = delivered if delivered is not None else max(0, min(rows, total - (page - 1) * rows))
    args = {"code": code, "month": "202610", "numOfRows": rows, "pageNo": page}
    return rec(step, "list_deals", args, total=total, page={"page_no": page, "num_of_rows": rows}, delivered=shown)


def gold_run():
    return [
        rec(0, "lookup_region", {"name": "종로구"}, total=1, delivered=1),
        rec(0, "weather", {"city": "서울"}, total=24, page={"page_no": 1, "num_of_rows": 10}, delivered=10),
        deals_page(1, 1),
        deals_page(1, 2),
        deals_page(1, 3),
    ]


def test_the_gold_trajectory_scores_full_marks():
    score = score_episode(DEALS, episode(DEALS, gold_run()))
    assert score.response and score.environment.passed and score.action.passed and score.success
    assert score.environment.calls == {"c3": "ok", "c2": "ok"}  # the lookup is not answer-bearing
    action = score.action
    assert (action.precision, action.recall, action.f1, action.matched, action.predicted, action.gold) == (
        1,
        1,
        1,
        3,
        3,
        3,
    )
    assert (action.argument_accuracy, action.binding_accuracy, action.order_accuracy) == (1, 1, 1)
    assert (score.efficiency.calls, score.efficiency.gold_calls, score.efficiency.call_ratio) == (5, 5, 1.0)
    assert (score.efficiency.redundant_calls, score.efficiency.steps, score.efficiency.gold_steps) == (0, 3, 3)
    assert score.errors.prerequisite_skipped == score.errors.first_page_only == score.errors.invalid_calls == 0


def test_reading_only_the_first_page_fails_environment_and_is_flagged():
    calls = gold_run()[:3]
    score = score_episode(DEALS, episode(DEALS, calls))
    assert not score.environment.passed and score.environment.calls["c2"] == "incomplete_pages"
    assert score.environment.coverage == 0.5
    assert score.errors.first_page_only == 1 and score.errors.incomplete_pages == 1
    assert score.action.passed  # the right call was made; only its pages were missing
    assert score.response and not score.success


def test_one_large_page_covers_everything():
    calls = [*gold_run()[:2], deals_page(1, 1, rows=100)]
    score = score_episode(DEALS, episode(DEALS, calls))
    assert score.environment.passed and score.action.passed and score.success
    assert score.efficiency.call_ratio == 1.0  # fewer requests than gold is no penalty


def test_records_the_environment_did_not_deliver_do_not_count():
    calls = [*gold_run()[:2], deals_page(1, 1, rows=100, delivered=20)]
    score = score_episode(DEALS, episode(DEALS, calls))
    assert score.environment.calls["c2"] == "incomplete_pages"


def test_pages_out_of_order_and_a_gap():
    gap = [*gold_run()[:2], deals_page(1, 1), deals_page(1, 3)]
    assert score_episode(DEALS, episode(DEALS, gap)).environment.calls["c2"] == "incomplete_pages"
    assert score_episode(DEALS, episode(DEALS, gap)).errors.first_page_only == 0
    reversed_pages = [*gold_run()[:2], deals_page(1, 3), deals_page(2, 2), deals_page(3, 1)]
    assert score_episode(DEALS, episode(DEALS, reversed_pages)).environment.passed


def test_skipping_the_prerequisite_lookup_is_flagged():
    calls = [gold_run()[1], deals_page(0, 1), deals_page(0, 2), deals_page(0, 3)]
    score = score_episode(DEALS, episode(DEALS, calls))
    assert score.errors.prerequisite_skipped == 1
    assert score.environment.passed  # the data was still all retrieved
    assert (score.action.precision, score.action.recall) == (1.0, pytest.approx(2 / 3))
    assert score.action.binding_accuracy == 1.0 and score.action.order_accuracy is None


def test_a_wrong_binding():
    calls = [
        *gold_run()[:2],
        deals_page(1, 1, code="11140"),
        deals_page(1, 2, code="11140"),
        deals_page(1, 3, code="11140"),
    ]
    score = score_episode(DEALS, episode(DEALS, calls))
    assert score.action.binding_accuracy == 0.0
    assert score.action.argument_accuracy == 0.75  # name, city, month right, code wrong (page size is paging)
    assert (score.action.precision, score.action.recall) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert score.environment.calls["c2"] == "not_retrieved"


def test_repeating_a_page_is_redundant_and_costs_precision():
    calls = [*gold_run(), deals_page(2, 1)]
    score = score_episode(DEALS, episode(DEALS, calls))
    assert score.efficiency.redundant_calls == 1
    assert score.action.predicted == 4 and score.action.precision == 0.75 and score.action.recall == 1.0
    assert score.efficiency.call_ratio == pytest.approx(5 / 6)


def test_environmental_failures_are_not_the_models_fault_but_are_counted():
    timeout = rec(0, "weather", {"city": "서울"}, status="error", error_class="env.timeout")
    calls = [timeout, *gold_run()]
    score = score_episode(DEALS, episode(DEALS, calls))
    assert score.action.passed and score.efficiency.redundant_calls == 0
    assert score.errors.execution_errors == 1 and score.errors.execution_by_class == {"env.timeout": 1}


def test_structural_failures_and_invalid_calls_cost_precision():
    wrong = rec(0, "weather", {"city": "서울시"}, status="error", error_class="struct.invalid_param")
    invalid = rec(0, "teleport", {}, status="invalid", error_class="call.unknown_tool")
    score = score_episode(DEALS, episode(DEALS, [wrong, invalid, *gold_run()]))
    assert (score.action.matched, score.action.predicted, score.action.recall) == (3, 5, 1.0)
    assert score.errors.invalid_calls == 1 and score.errors.invalid_by_kind == {"call.unknown_tool": 1}
    assert score.errors.execution_by_class == {"struct.invalid_param": 1}
    assert score.errors.executed_calls == 6


def test_an_invalid_call_never_matches_even_with_gold_arguments():
    invalid = rec(0, "holidays", {"year": "2026"}, status="invalid", error_class="call.invalid_arguments")
    score = score_episode(HOLIDAY, episode(HOLIDAY, [invalid], answer="예"))
    assert (score.action.matched, score.action.predicted) == (0, 1)
    assert not score.environment.passed and score.response and not score.success


def test_calls_out_of_dependency_order():
    calls = [
        deals_page(0, 1, rows=100),
        rec(1, "lookup_region", {"name": "종로구"}, total=1, delivered=1),
        gold_run()[1],
    ]
    score = score_episode(DEALS, episode(DEALS, calls))
    assert score.action.order_accuracy == 0.0 and score.errors.prerequisite_skipped == 1
    assert score.action.passed  # the multiset is right; the order metric says what went wrong


def test_parallel_group_members_may_come_in_any_order_and_alternatives_apply():
    calls = [
        rec(0, "lookup_region", {"name": "종로구"}),
        rec(1, "weather", {"city": "서울", "unit": "F"}, total=1, delivered=1),
    ]
    calls += [deals_page(2, 1, rows=30)]
    score = score_episode(DEALS, episode(DEALS, calls))
    assert score.action.passed and score.action.order_accuracy == 1.0 and score.success


def test_values_compare_in_canonical_form():
    calls = [rec(0, "holidays", {"year": 2026}, total=1, delivered=1)]
    assert score_episode(HOLIDAY, episode(HOLIDAY, calls, answer="예")).success
    spaced = [rec(0, "holidays", {"year": " ２０２６ "}, total=1, delivered=1)]
    assert score_episode(HOLIDAY, episode(HOLIDAY, spaced, answer="예")).success
    extra = [rec(0, "holidays", {"year": "2026", "month": "07"}, total=1, delivered=1)]
    assert not score_episode(HOLIDAY, episode(HOLIDAY, extra, answer="예")).action.passed


def test_no_calls_and_no_answer():
    score = score_episode(DEALS, episode(DEALS, [], answer=None, stop="max_steps"))
    assert (score.action.precision, score.action.recall, score.action.f1) == (0.0, 0.0, 0.0)
    assert score.action.argument_accuracy == 0.0 and score.action.binding_accuracy == 0.0
    assert not score.response and score.response_detail == "no answer (max_steps)"
    assert score.efficiency.call_ratio == 0.0


def test_success_can_require_action():
    calls = [*gold_run(), rec(2, "teleport", {}, status="invalid", error_class="call.unknown_tool")]
    result = episode(DEALS, calls)
    assert score_episode(DEALS, result).success
    assert not score_episode(DEALS, result, require_action=True).success


def test_it_refuses_an_episode_of_another_task():
    with pytest.raises(ValueError, match="scored against task"):
        score_episode(HOLIDAY, episode(DEALS, []))


# ------------------------------------------------------------------------------------------ estimators


@pytest.mark.parametrize(
    ("n", "c", "k", "at", "hat"),
    [
        (5, 2, 1, 0.4, 0.4),
        (5, 2, 2, 1 - 3 / 10, 1 / 10),  # 1 − C(3,2)/C(5,2); C(2,2)/C(5,2)
        (4, 0, 2, 0.0, 0.0),
        (4, 4, 4, 1.0, 1.0),
        (4, 3, 4, 1.0, 0.0),
        (8, 3, 4, 1 - 5 / 70, 0.0),  # C(5,4) = 5, C(8,4) = 70; C(3,4) = 0
        (8, 6, 4, 1.0, 15 / 70),  # n − c = 2 < k; C(6,4) = 15
    ],
)
def test_pass_at_k_and_pass_hat_k(n, c, k, at, hat):
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


def test_pass_at_k_rejects_impossible_counts():
    with pytest.raises(ValueError):
        pass_at_k(4, 5, 1)
    with pytest.raises(ValueError):
        pass_hat_k(4, 2, 5)
    with pytest.raises(ValueError):
        pass_at_k(4, 2, 0)


def test_wilson_interval():
    low, high = wilson_interval(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_bootstrap_interval_is_deterministic_and_brackets_the_mean():
    values = [0, 0, 1, 1, 1, 0.5, 0.25, 1, 0, 1]
    low, high = bootstrap_interval(values)
    assert (low, high) == bootstrap_interval(values)
    assert low < sum(values) / len(values) < high
    assert bootstrap_interval([0.5, 0.5]) == (0.5, 0.5)


def test_seed_interval():
    mean, low, high = seed_interval([0.4, 0.6])
    half = 1.96 * math.sqrt(0.02) / math.sqrt(2)
    assert (mean, low, high) == (pytest.approx(0.5), pytest.approx(0.5 - half), pytest.approx(0.5 + half))
    assert seed_interval([0.3]) == (0.3, 0.3, 0.3)


# ------------------------------------------------------------------------------------------ aggregation


def test_aggregate_per_category_with_pass_k():
    episodes = []
    for seed in range(4):
        deals_ok = seed < 1  # 1 of 4
        episodes.append(episode(DEALS, gold_run() if deals_ok else gold_run()[:3], seed=seed))
        holiday_ok = seed < 3  # 3 of 4
        calls = [rec(0, "holidays", {"year": "2026"}, total=1, delivered=1)]
        episodes.append(episode(HOLIDAY, calls, answer="예" if holiday_ok else "아니오", seed=seed))
    scores, report = score_run(list(TASKS), episodes, ks=(1, 2, 4, 8))
    assert [s.success for s in scores] == [True, True, False, True, False, True, False, False]
    overall = report.overall
    assert (overall.tasks, overall.episodes, overall.seeds_per_task) == (2, 8, 4)
    assert sorted(overall.pass_at) == [1, 2, 4]  # k = 8 > 4 seeds is left out
    assert overall.pass_at[1].value == pytest.approx((0.25 + 0.75) / 2)
    assert overall.pass_at[2].value == pytest.approx((pass_at_k(4, 1, 2) + pass_at_k(4, 3, 2)) / 2)
    assert overall.pass_hat[2].value == pytest.approx((0 + 3 / 6) / 2)
    assert overall.pass_at[4].value == 1.0 and overall.pass_hat[4].value == 0.0
    assert overall.success.value == 0.5 and overall.success.method == "wilson"
    assert overall.pass1_seeds.value == pytest.approx(0.5)  # per-seed rates 1, .5, .5, 0
    assert overall.errors["first_page_only_rate"] == pytest.approx(3 / 4)  # only deals is paginated
    assert overall.errors["prerequisite_skip_rate"] == 0.0
    assert overall.efficiency["call_ratio_successful"] == 1.0
    assert set(report.categories) == {"real-estate", "chain", "calendar"}
    assert report.categories["calendar"].pass_at[1].value == 0.75
    assert report.categories["calendar"].errors["first_page_only_rate"] is None
    assert report.categories["real-estate"].environment.value == 0.25
    assert set(report.difficulties) == {"easy", "medium"}
    assert report.to_dict()["overall"]["pass_at"][1]["method"] == "bootstrap"


def test_aggregate_refuses_unknown_tasks():
    stray = episode(DEALS, [])
    stray.task_id = "elsewhere"
    with pytest.raises(ValueError, match="not in the task list"):
        score_run(list(TASKS), [stray])
    with pytest.raises(ValueError, match="not in the task list"):
        aggregate([HOLIDAY], [score_episode(DEALS, episode(DEALS, []))])


def _oracle_calls(task):
    from benchmarks.engine.backends.oracle import OracleBackend

    return [
        rec(step, call.name, call.arguments, total=1, delivered=1)
        for step, turn in enumerate(OracleBackend().turns(task))
        for call in turn
    ]


def test_a_chain_through_one_tool_is_not_a_skipped_prerequisite():
    """The oracle on the real suite skips no prerequisite. Tasks that call one tool twice (area_code2 for the
    province, then for its districts; get_hosp_basis_list by name, then by district) counted the prerequisite
    itself as the dependent call's first attempt: 12 of 86 tasks, "14.0 %" beside 100 % success (issue 18)."""
    from pathlib import Path

    from benchmarks.engine.task import load_tasks

    tasks = load_tasks(Path(__file__).resolve().parents[3] / "benchmarks" / "tasks")
    flagged = [
        task.id
        for task in tasks
        if score_episode(task, episode(task, _oracle_calls(task), answer=task.answer.text)).errors.prerequisite_skipped
    ]
    assert flagged == []
    chained = next(task for task in tasks if task.id == "tour-001")
    dependent = next(call for call in chained.calls if call.depends_on)
    assert dependent.tool == chained.call(dependent.depends_on[0]).tool  # the shape this test is about
    # The same two calls of the tool in the other order (the dependent one first): now it is skipped.
    calls = _oracle_calls(chained)
    first, second = [i for i, c in enumerate(calls) if c.name == dependent.tool][:2]
    swapped = list(calls)
    swapped[first] = rec(calls[second].step, calls[first].name, calls[first].arguments, total=1, delivered=1)
    swapped[second] = rec(calls[first].step, calls[second].name, calls[second].arguments, total=1, delivered=1)
    assert score_episode(chained, episode(chained, swapped)).errors.prerequisite_skipped == 1
