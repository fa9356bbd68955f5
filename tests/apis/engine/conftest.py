"""Shared fixtures for the engine tests: fixture bodies, the anyio backend, a real-socket fixture server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixture_server import FixtureServer

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def fixture_server():
    server = FixtureServer(timeout_hold_s=2.0)
    server.start()
    yield server
    server.stop()
