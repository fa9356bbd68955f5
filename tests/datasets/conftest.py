"""Fixtures of the trajectory tests: the bundled catalog, the session sandbox with quick executor settings,
no LLM configured, and a verified graph snapshot over links the sandbox serves."""

from __future__ import annotations

import pytest

from apis.models import Tool
from apis.services import catalog_import_bundled
from tests.datasets.sandbox import use_sandbox, verified_snapshot


@pytest.fixture
def catalog(db):
    catalog_import_bundled()
    return {tool.function_name: tool for tool in Tool.objects.select_related("service__provider")}


@pytest.fixture
def on_sandbox(settings, sandbox_server_url):
    use_sandbox(settings, sandbox_server_url)
    return settings


@pytest.fixture
def snapshot(catalog, on_sandbox):
    return verified_snapshot(catalog)


# The review console's users and stored trajectories (tests/datasets/review_world.py).
from tests.datasets.review_world import items, people  # noqa: E402, F401
