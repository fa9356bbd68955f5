"""The leaderboard's figures from fixed results (ranks, intervals, pass^k, base-vs-tuned pairs), its default
board, filters, sorting, exports, the public switch, and its cost in queries."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from benchmarks.engine import leaderboard as board
from benchmarks.engine.metrics import pass_hat_k
from benchmarks.models import EvalRun, LeaderboardSettings, Task
from benchmarks.services import model_entry_create


def _digest(success: float, low: float, high: float, **extra) -> dict:
    estimate = {"value": success, "low": low, "high": high}
    return {
        "success": estimate,
        "pass_at": {"1": estimate, "4": extra.pop("pass4", estimate)},
        "pass_hat": {"4": extra.pop("hat4", estimate)},
        "categories": extra.pop("categories", {}),
        "calls": extra.pop("calls", 2.0),
        "prompt_tokens": 1000.0,
        "completion_tokens": 200.0,
        "latency_mean": 1.5,
        "latency_p95": 3.0,
        "tasks": extra.pop("tasks", 145),
        "episodes": 580,
        "backend_error_rate": extra.pop("backend_error_rate", 0.0),
        "complete": True,
    }


def _run(run_id, model_id, name, success, low, high, *, finished="2026-12-01", **identity) -> dict:
    return {
        "id": run_id,
        "model_id": model_id,
        "identity": {"id": model_id, "name": name, **identity},
        "board": _digest(success, low, high),
        "finished_at": finished,
        "seeds": [0, 1, 2, 3],
    }


# --- from fixed results (no database) ---------------------------------------------------------------------


def test_ranks_share_ties_and_the_interval_rank_counts_models_wholly_above():
    runs = [
        _run(1, 1, "a", 0.80, 0.75, 0.85),
        _run(2, 2, "b", 0.80, 0.70, 0.88),
        _run(3, 3, "c", 0.60, 0.55, 0.72),  # its interval overlaps b's, not a's
        _run(4, 4, "d", 0.30, 0.20, 0.40),
    ]
    rows = board.rank_rows(board.pick_rows(runs))
    assert [(r["identity"]["name"], r["rank"], r["rank_ub"]) for r in rows] == [
        ("a", 1, 1),
        ("b", 1, 1),
        ("c", 3, 2),  # a's low 0.75 > c's high 0.72; b's low 0.70 is not
        ("d", 4, 4),
    ]


def test_one_row_per_model_best_or_latest_and_unreached_runs_never_count():
    runs = [
        _run(1, 1, "m", 0.50, 0.4, 0.6, finished="2026-12-01"),
        _run(2, 1, "m", 0.70, 0.6, 0.8, finished="2026-11-01"),
        _run(3, 1, "m", 0.40, 0.3, 0.5, finished="2026-12-02"),
        {**_run(4, 2, "down", 0.0, 0.0, 0.1), "board": _digest(0.0, 0.0, 0.1, backend_error_rate=1.0)},
    ]
    assert [r["run_id"] for r in board.pick_rows(runs, pick="best")] == [2]
    assert [r["run_id"] for r in board.pick_rows(runs, pick="latest")] == [3]


def test_pass_hat_k_and_cost_come_through_from_the_digest():
    hat = pass_hat_k(4, 3, 4)  # one of four tries failed: pass^4 is 0
    run = _run(1, 1, "m", 0.75, 0.6, 0.9, price_in_per_mtok=0.5, price_out_per_mtok=2.0)
    run["board"]["pass_hat"]["4"] = {"value": hat, "low": hat, "high": hat}
    (row,) = board.pick_rows([run])
    assert row["pass_hat"]["4"]["value"] == 0.0
    assert row["cost"] == pytest.approx((1000 * 0.5 + 200 * 2.0) / 1e6)
    assert board.pick_rows([_run(1, 1, "m", 0.5, 0.4, 0.6)])[0]["cost"] is None  # price unknown


def test_base_vs_tuned_pairs_and_the_share_of_the_gap_to_the_larger_model_closed():
    base9 = _run(1, 1, "Qwen3.5-9B", 0.40, 0.35, 0.45, family="Qwen3.5", params_b=9, tuned=False)
    base27 = _run(2, 2, "Qwen3.5-27B", 0.60, 0.55, 0.65, family="Qwen3.5", params_b=27, tuned=False)
    tuned9 = _run(
        3,
        3,
        "Qwen3.5-9B-EDGE",
        0.55,
        0.50,
        0.60,
        family="Qwen3.5",
        params_b=9,
        tuned=True,
        base_model={"id": 1, "name": "Qwen3.5-9B"},
    )
    orphan = _run(4, 4, "other-tuned", 0.5, 0.4, 0.6, family="X", tuned=True, base_model={"id": 99, "name": "gone"})
    rows = board.rank_rows(board.pick_rows([base9, base27, tuned9, orphan]))
    (pair,) = board.base_tuned_pairs(rows)
    assert pair["base"]["identity"]["name"] == "Qwen3.5-9B" and pair["tuned"]["identity"]["name"] == "Qwen3.5-9B-EDGE"
    assert pair["reference"]["identity"]["name"] == "Qwen3.5-27B"
    assert pair["delta"] == pytest.approx(0.15) and pair["gap_closed"] == pytest.approx(0.75)
    figure = board.pairs_figure([pair])
    assert [trace["y"] for trace in figure["data"]] == [[40.0], [55.0], [60.0]]


def test_filters_and_sorting_work_on_the_identity_at_run_time():
    runs = [
        _run(1, 1, "small", 0.5, 0.4, 0.6, family="A", params_b=3, backend="openai", tuned=False),
        _run(2, 2, "mid", 0.7, 0.6, 0.8, family="A", params_b=9, backend="transformers", tuned=True),
        _run(3, 3, "big", 0.6, 0.5, 0.7, family="B", params_b=27, backend="openai", tuned=False),
    ]
    rows = board.rank_rows(board.pick_rows(runs))
    names = lambda rs: [r["identity"]["name"] for r in rs]  # noqa: E731
    assert names(board.filter_rows(rows, family="A")) == ["mid", "small"]
    assert names(board.filter_rows(rows, min_b=5, max_b=30)) == ["mid", "big"]
    assert names(board.filter_rows(rows, tuned="tuned")) == ["mid"]
    assert names(board.filter_rows(rows, backend="openai")) == ["big", "small"]
    assert names(board.sort_rows(rows, "params")) == ["big", "mid", "small"]
    assert names(board.sort_rows(rows, "model")) == ["big", "mid", "small"]
    assert names(board.sort_rows(rows, "success", descending=False)) == ["small", "big", "mid"]


def test_the_scores_chart_holds_each_interval_as_whiskers():
    rows = board.rank_rows(board.pick_rows([_run(1, 1, "a", 0.8, 0.7, 0.85), _run(2, 2, "b", 0.5, 0.45, 0.6)]))
    trace = board.scores_figure(rows, {1: "/bench/runs/1/"})["data"][0]
    assert trace["y"] == ["b", "a"] and trace["x"] == [50.0, 80.0]
    assert trace["error_x"]["array"] == [10.0, 5.0] and trace["error_x"]["arrayminus"] == [5.0, 10.0]
    assert trace["customdata"] == ["", "/bench/runs/1/"]


# --- the page ---------------------------------------------------------------------------------------------


def _suite_tasks(n: int) -> None:
    Task.objects.bulk_create(
        Task(
            code=f"s-{i:03}",
            request="q",
            difficulty="easy",
            clock="2026-11-18T14:20:00+09:00",
            data_version="2026-11",
            file="benchmarks/tasks/suite.yaml",
            checksum=str(i),
        )
        for i in range(n)
    )


def _stored_run(model, checksum: str, success: float, *, tasks: int, benchmark="kopa", version="KOPA-Bench 2026-11"):
    return EvalRun.objects.create(
        model=model,
        model_snapshot=model.snapshot(),
        benchmark=benchmark,
        benchmark_version=version,
        backend=model.backend,
        task_codes=[],
        task_checksum=checksum,
        seeds=[0, 1, 2, 3],
        git_commit="abc123def4567890",
        status=EvalRun.Status.FINISHED,
        finished_at=timezone.now(),
        score=success,
        task_count=tasks,
        board=_digest(
            success,
            max(0.0, success - 0.05),
            min(1.0, success + 0.05),
            tasks=tasks,
            categories={"chain": {"value": success, "low": 0.0, "high": 1.0}},
        ),
    )


@pytest.fixture
def boards(db):
    """Three models on the canonical 6-task suite, one on a newer 4-task set, and two on BFCL."""
    _suite_tasks(6)
    base = model_entry_create(name="Qwen3.5-9B", backend="oracle", family="Qwen3.5", params_b=9)
    big = model_entry_create(name="Qwen3.5-27B", backend="oracle", family="Qwen3.5", params_b=27)
    tuned = model_entry_create(
        name="Qwen3.5-9B-EDGE", backend="oracle", family="Qwen3.5", params_b=9, base_model=base, tuned_from_run=7
    )
    for model, score in ((base, 0.40), (big, 0.60), (tuned, 0.55)):
        _stored_run(model, "c" * 64, score, tasks=6)
    _stored_run(base, "d" * 64, 0.9, tasks=4)
    for model, score in ((base, 0.7), (tuned, 0.8)):
        _stored_run(model, "b" * 64, score, tasks=2000, benchmark="bfcl", version="BFCL v4 (bfcl-eval 2026.3.23)")
    return {"base": base, "big": big, "tuned": tuned}


@pytest.mark.django_db
def test_the_board_opens_on_the_canonical_suite_with_pairs_and_kopa_against_bfcl(client_as, annotator, boards):
    response = client_as(annotator).get(reverse("benchmarks:leaderboard"))
    html = response.content.decode()
    names = re.findall(r'data-model="([^"]+)"', html)
    assert names == ["Qwen3.5-27B", "Qwen3.5-9B-EDGE", "Qwen3.5-9B"]
    assert "canonical suite" in html and "6 tasks" in html
    assert "Qwen3.5-9B-EDGE: 55.0 %" in html and "75.0 %" in html  # the pair and the gap it closed
    for figure in ("fig-scores", "fig-size", "fig-heatmap", "fig-pairs", "fig-cross"):
        assert f'id="{figure}"' in html
    cross = html[html.index('id="fig-cross-caption"') :]
    assert "BFCL v4" in cross and "80.0 %" in cross
    # pages render with no network: every script and stylesheet is served by the site itself
    assert not re.findall(r'(?:src|href)="(?:https?:)?//', html)
    other = client_as(annotator).get(reverse("benchmarks:leaderboard"), {"board": "d" * 12}).content.decode()
    assert re.findall(r'data-model="([^"]+)"', other) == ["Qwen3.5-9B"]


@pytest.mark.django_db
def test_filters_sorting_and_later_edits_of_a_model(client_as, annotator, boards):
    browser = client_as(annotator)
    url = reverse("benchmarks:leaderboard")
    tuned = browser.get(url, {"tuned": "tuned"}).content.decode()
    assert re.findall(r'data-model="([^"]+)"', tuned) == ["Qwen3.5-9B-EDGE"] and "1 of 3 models" in tuned
    sized = browser.get(url, {"min_b": "10"}).content.decode()
    assert re.findall(r'data-model="([^"]+)"', sized) == ["Qwen3.5-27B"]
    ascending = browser.get(url, {"sort": "success", "dir": "asc"}).content.decode()
    assert re.findall(r'data-model="([^"]+)"', ascending) == ["Qwen3.5-9B", "Qwen3.5-9B-EDGE", "Qwen3.5-27B"]
    boards["big"].name, boards["big"].params_b = "renamed", -1  # an edit after the runs (even a bad one)
    boards["big"].save()
    again = browser.get(url).content.decode()
    assert "Qwen3.5-27B" in again and "renamed" not in again


@pytest.mark.django_db
def test_csv_and_json_exports_hold_the_same_rows_with_provenance(client_as, annotator, boards):
    browser = client_as(annotator)
    url = reverse("benchmarks:leaderboard")
    data = json.loads(browser.get(url, {"format": "json", "family": "Qwen3.5"}).content)
    assert [row["model"] for row in data["rows"]] == ["Qwen3.5-27B", "Qwen3.5-9B-EDGE", "Qwen3.5-9B"]
    first = data["rows"][0]
    assert first["rank"] == 1 and first["success"] == 0.6 and first["pass4"] == 0.6 and first["pass_hat_k"] == 4
    assert first["git_commit"] == "abc123def4567890" and first["benchmark_version"] == "KOPA-Bench 2026-11"
    assert first["seeds"] == "0 1 2 3" and first["cat:chain"] == 0.6
    assert data["rows"][1]["tuned"] is True and data["rows"][1]["base_model"] == "Qwen3.5-9B"
    response = browser.get(url, {"format": "csv"})
    assert response["Content-Type"].startswith("text/csv") and "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["model"] for row in rows] == ["Qwen3.5-27B", "Qwen3.5-9B-EDGE", "Qwen3.5-9B"]
    assert rows[1]["tuned_from_run"] == "7" and float(rows[0]["success_low"]) == pytest.approx(0.55)


@pytest.mark.django_db
def test_the_board_is_readable_without_login_only_when_an_admin_makes_it_public(client, outsider, client_as, boards):
    url = reverse("benchmarks:leaderboard")
    assert client.get(url).status_code == 302
    assert client.get(url, {"format": "json"}).status_code == 302
    assert client_as(outsider).get(url).status_code == 403
    LeaderboardSettings.objects.create(pk=1, public=True)
    page = client.get(url)
    assert page.status_code == 200 and "Qwen3.5-27B" in page.content.decode()
    assert "Add a model" not in page.content.decode() and '<form method="post"' not in page.content.decode()
    assert client.get(url, {"format": "csv"}).status_code == 200
    assert client.post(url).status_code == 405  # read-only
    assert client.get(reverse("benchmarks:runs")).status_code == 302  # runs stay behind the login


@pytest.mark.django_db
def test_the_board_costs_the_same_queries_for_three_models_or_forty(
    client_as, annotator, boards, django_assert_num_queries
):
    browser = client_as(annotator)
    url = reverse("benchmarks:leaderboard")
    browser.get(url)
    cache.clear()
    # session, user, role; settings; the stamp (runs, suite size); boards, suite size; per board (this one, and
    # BFCL for the page's models) which runs, then those runs
    with django_assert_num_queries(12):
        browser.get(url, {"cols": "all"})
    # the same board again comes from the cache under the same stamp, and so do the page's KOPA-vs-BFCL points
    with django_assert_num_queries(6):
        browser.get(url, {"cols": "all"})
    for index in range(37):
        model = model_entry_create(name=f"extra-{index}", backend="oracle", family="F", params_b=index + 1)
        _stored_run(model, "c" * 64, index / 40, tasks=6)
    with django_assert_num_queries(12):  # new runs, a new stamp: computed afresh, in as many queries
        html = browser.get(url, {"cols": "all"}).content.decode()
    assert len(re.findall(r'data-model="', html)) == 40
