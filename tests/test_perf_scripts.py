"""Every speed benchmark under tests/perf/ imports without side effects and has a command line (the scripts
themselves are run by hand and report figures; they are not timed tests)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p.stem for p in (ROOT / "tests" / "perf").glob("*.py") if p.stem not in ("__init__", "django_setup"))


def test_the_benchmarks_are_all_there():
    assert {"sandbox_rps", "executor_throughput", "synthesis_throughput", "review_console", "leaderboard"} <= set(
        SCRIPTS
    )


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_benchmark_imports_and_has_a_main(name):
    module = importlib.import_module(f"tests.perf.{name}")
    assert callable(getattr(module, "main", None)), f"tests/perf/{name}.py has no main()"


@pytest.mark.slow
def test_a_benchmark_answers_help_from_the_command_line():
    done = subprocess.run(
        [sys.executable, "-m", "tests.perf.synthesis_throughput", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "--concurrency" in done.stdout
