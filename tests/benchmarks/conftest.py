"""Fixtures of the KOPA-Bench app tests: the bundled catalog, the demo tasks loaded as rows, quick executor
settings on the session sandbox, model entries, and an oracle run evaluated end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from apis.services import catalog_import_bundled
from benchmarks.models import ModelEntry
from benchmarks.services import eval_run_create, eval_run_execute, model_entry_create, tasks_sync

ROOT = Path(__file__).resolve().parents[2]
DEMO_TASKS = ROOT / "tests" / "fixtures" / "bench" / "demo_tasks.yaml"
EXECUTOR = {
    "timeout_s": 10.0,
    "max_attempts": 2,
    "base_delay_s": 0.01,
    "max_delay_s": 0.02,
    "concurrency": 8,
    "record_target": "sandbox",
    "body_cap_bytes": 2_000_000,
    "sandbox_headers": {},
}


@pytest.fixture
def executor_settings(settings, sandbox_server_url):
    settings.KOPA_SANDBOX_ORIGIN = sandbox_server_url
    settings.KOPA_EXECUTOR = dict(EXECUTOR)
    return settings


@pytest.fixture
def catalog(db):
    return catalog_import_bundled()


@pytest.fixture
def demo_tasks(catalog):
    """The five demo tasks as Task rows."""
    return tasks_sync(paths=[DEMO_TASKS])


@pytest.fixture
def oracle_model(db):
    return model_entry_create(name="oracle", backend=ModelEntry.Backend.ORACLE, org="KOPA", notes="gold replay")


@pytest.fixture
def oracle_run(demo_tasks, oracle_model, executor_settings):
    """A finished oracle run over the demo tasks with two seeds."""
    run = eval_run_create(model=oracle_model, seeds=[0, 1], concurrency=4, max_steps=4)
    eval_run_execute(run=run)
    run.refresh_from_db()
    return run
