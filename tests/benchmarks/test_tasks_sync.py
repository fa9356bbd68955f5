"""tasks_sync: task files become Task rows idempotently, and each sync reports what it created, updated,
restored and retired; a bad file changes nothing."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmarks.engine.task import load_tasks
from benchmarks.models import Task
from benchmarks.services import BenchError, tasks_sync
from kopa_site.management.commands.bootstrap import STEPS
from tests.benchmarks.conftest import DEMO_TASKS

pytestmark = pytest.mark.django_db


def _demo() -> dict:
    return yaml.safe_load(DEMO_TASKS.read_text(encoding="utf-8"))


def _write(path: Path, document: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def test_a_second_sync_of_the_same_files_changes_nothing(catalog, tmp_path):
    folder = tmp_path / "tasks"
    _write(folder / "demo.yaml", _demo())
    first = tasks_sync(paths=[folder])
    assert len(first.created) == 5 and first.changed
    rows = {row.code: (row.pk, row.checksum, row.updated_at) for row in Task.objects.all()}
    second = tasks_sync(paths=[folder])
    assert not second.changed and sorted(second.unchanged) == sorted(first.created)
    assert second.checksum == first.checksum == load_tasks(folder).checksum
    assert {row.code: (row.pk, row.checksum, row.updated_at) for row in Task.objects.all()} == rows


def test_rows_hold_the_task_as_its_file_states_it(catalog):
    tasks_sync(paths=[DEMO_TASKS])
    row = Task.objects.get(code="demo-apt-max-jongno")
    engine = load_tasks(DEMO_TASKS).get("demo-apt-max-jongno")
    assert row.to_engine() == dataclasses.replace(engine, source="tests/fixtures/bench/demo_tasks.yaml#/tasks/1")
    assert row.file == "tests/fixtures/bench/demo_tasks.yaml" and row.data_version == "2026.11-demo.1"
    assert (
        row.categories == ["real-estate", "chain", "pagination"]
        and row.category_index == "|real-estate|chain|pagination|"
    )
    assert (row.difficulty, row.gold_calls, row.toolset) == ("medium", 4, "realestate")
    assert row.answer["value"] == 259280 and row.gold[1]["bindings"][0]["transform"] == "slice:0:5"
    assert Task.objects.get(code="demo-jeheonjeol").clock == "2026-07-01T09:00:00+09:00"


def test_it_reports_updates_and_retirements_then_restores_a_task_that_comes_back(catalog, tmp_path):
    folder = tmp_path / "tasks"
    document = _demo()
    _write(folder / "demo.yaml", document)
    tasks_sync(paths=[folder])
    before = Task.objects.get(code="demo-holiday-oct").checksum

    changed = _demo()
    changed["data_version"] = "2026.11-demo.2"
    changed["tasks"][0]["request"] = "2026년 10월 공휴일은 언제인가요?"
    removed = changed["tasks"].pop()  # demo-jeheonjeol
    _write(folder / "demo.yaml", changed)
    report = tasks_sync(paths=[folder])
    assert report.updated == [t["id"] for t in changed["tasks"]]  # the data version changed for all of them
    assert report.retired == [removed["id"]] and not report.created
    holiday = Task.objects.get(code="demo-holiday-oct")
    assert holiday.request == "2026년 10월 공휴일은 언제인가요?" and holiday.checksum != before
    assert holiday.data_version == "2026.11-demo.2"
    retired = Task.objects.get(code="demo-jeheonjeol")
    assert not retired.is_active and retired.retired_at is not None

    _write(folder / "more.yaml", {**_demo(), "tasks": [removed]})
    report = tasks_sync(paths=[folder])
    assert report.restored == ["demo-jeheonjeol"] and not report.retired
    restored = Task.objects.get(code="demo-jeheonjeol")
    assert restored.is_active and restored.retired_at is None and restored.file.endswith("more.yaml")


def test_a_sync_of_another_file_leaves_the_first_files_tasks_alone(catalog, tmp_path):
    tasks_sync(paths=[DEMO_TASKS])
    other = _demo()
    other["tasks"] = [{**other["tasks"][0], "id": "other-holiday"}]
    report = tasks_sync(paths=[_write(tmp_path / "other.yaml", other)])
    assert report.created == ["other-holiday"] and not report.retired
    assert Task.objects.filter(is_active=True).count() == 6


def test_a_bad_file_is_refused_with_every_problem_and_nothing_is_written(catalog, tmp_path):
    tasks_sync(paths=[DEMO_TASKS])
    broken = _demo()
    broken["tasks"][0]["request"] = "바뀐 요청"
    broken["tasks"][1]["gold"]["calls"][1]["bindings"][0]["from"] = "c9"
    broken["tasks"][2]["tools"] = ["no_such_tool", "get_msrstn_accto_rltm_mesure_dnsty"]
    with pytest.raises(BenchError) as raised:
        tasks_sync(paths=[_write(tmp_path / "broken.yaml", broken)])
    message = str(raised.value)
    assert "task demo-apt-max-jongno at /tasks/1/gold/calls/1/bindings/0/from: unknown call 'c9'" in message
    assert "no tool named 'no_such_tool' in the catalog" in message
    assert Task.objects.get(code="demo-holiday-oct").request != "바뀐 요청"


def test_tool_names_are_checked_against_the_catalog_that_exists(db):
    with pytest.raises(BenchError, match="catalog is empty"):
        tasks_sync(paths=[DEMO_TASKS])
    assert len(tasks_sync(paths=[DEMO_TASKS], check_catalog=False).created) == 5


def test_the_command_reports_the_diff_and_bootstrap_runs_it(catalog, tmp_path):
    out = io.StringIO()
    call_command("bench_load_tasks", str(DEMO_TASKS), stdout=out)
    assert "5 created" in out.getvalue()
    out = io.StringIO()
    call_command("bench_load_tasks", str(DEMO_TASKS), stdout=out)
    assert "0 created, 0 updated, 0 restored, 0 retired, 5 unchanged" in out.getvalue()
    with pytest.raises(CommandError, match="no such file"):
        call_command("bench_load_tasks", str(tmp_path / "missing.yaml"))
    assert ("bench_load_tasks", []) in STEPS
    assert STEPS.index(("bench_load_tasks", [])) > [name for name, _ in STEPS].index("catalog_import")


def test_the_command_skips_an_empty_task_folder(db, settings, tmp_path, monkeypatch):
    monkeypatch.setattr("benchmarks.management.commands.bench_load_tasks.TASK_DIR", tmp_path)
    out = io.StringIO()
    call_command("bench_load_tasks", stdout=out)
    assert "skip: no task files" in out.getvalue()
