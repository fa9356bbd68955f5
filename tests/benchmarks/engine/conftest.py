"""Fixtures for the KOPA-Bench engine tests: the sandbox catalog as a toolset, the demo tasks, the tiny model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from apis.engine.function_schema import FunctionToolset, build_toolset
from apis.engine.spec_import import import_spec
from benchmarks.engine.task import TaskSet, load_tasks

ROOT = Path(__file__).resolve().parents[3]
SPECS = ROOT / "apis" / "sandbox" / "specs"
DEMO_TASKS = ROOT / "tests" / "fixtures" / "bench" / "demo_tasks.yaml"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="session")
def catalog() -> FunctionToolset:
    """Every sandbox operation as a tool, imported from the sandbox's own Swagger specs."""
    tools = []
    for spec in sorted(SPECS.glob("*.json")):
        result = import_spec(spec)
        assert result.ok, result.report()
        tools.extend(result.tools)
    return build_toolset(tools)


@pytest.fixture(scope="session")
def demo_tasks(catalog) -> TaskSet:
    return load_tasks(DEMO_TASKS, catalog=catalog.tools)


@pytest.fixture(scope="session")
def tiny_model_path() -> Path:
    """The tiny Qwen3 model, built once and cached under var/test-cache; the hub is never asked."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    pytest.importorskip("transformers")
    from tests.support.tiny_model import cached_tiny_model

    return cached_tiny_model()
