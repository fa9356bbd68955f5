"""The engines' command line: validate task files, run the oracle against a sandbox it starts, score the run."""

from __future__ import annotations

import json

import pytest

from benchmarks.engine.cli import main

from .conftest import DEMO_TASKS


def test_validate_reports_the_task_count_and_checksum(capsys, demo_tasks):
    assert main(["validate", str(DEMO_TASKS)]) == 0
    assert f"5 tasks OK, checksum {demo_tasks.checksum}" in capsys.readouterr().out


def test_validate_lists_problems_and_fails(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text(
        json.dumps({"format": "kopa-bench/tasks", "version": 1, "data_version": "x", "tasks": [{"id": "a"}]})
    )
    with pytest.raises(SystemExit) as caught:
        main(["validate", str(broken)])
    assert caught.value.code == 1
    assert "broken.json: task a at /tasks/0/request: required" in capsys.readouterr().err


@pytest.mark.slow
def test_run_then_score_the_oracle(tmp_path, capsys):
    out = tmp_path / "oracle.jsonl"
    command = ["run", "--tasks", str(DEMO_TASKS), "--backend", "oracle", "--start-sandbox"]
    assert main([*command, "--seeds", "0", "1", "--concurrency", "4", "--out", str(out)]) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 10
    report = tmp_path / "report.json"
    assert (
        main(
            ["score", "--tasks", str(DEMO_TASKS), "--results", str(out), "--k", "1", "--k", "2", "--json", str(report)]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "5 tasks, 10 episodes, 2 seeds per task" in printed and "pass@2 1.000" in printed
    assert json.loads(report.read_text(encoding="utf-8"))["overall"]["success"]["value"] == 1.0
