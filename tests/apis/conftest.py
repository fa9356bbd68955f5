"""Fixtures of the catalog tests: a standalone sandbox on a real socket, the bundled catalog, fast executor settings."""

from __future__ import annotations

import asyncio
import threading

import pytest

from apis.models import Tool
from apis.sandbox.config import DEMO_KEY, DEMO_KEY_LEGACY, SandboxConfig
from apis.sandbox.server import start_sandbox_server
from apis.services import catalog_import_bundled

# A key the catalog sandbox accepts as well as the demo ones, spelled so that its encoded forms differ from it.
SECRET_KEY = "KopaTestSecret+Key/Zx9Q=="
APT_TRADE = "get_rtms_data_svc_apt_trade"
APT_TRADE_PARAMS = {"LAWD_CD": "11680", "DEAL_YMD": "202407"}
FAST_EXECUTOR = {
    "timeout_s": 0.6,
    "max_attempts": 3,
    "base_delay_s": 0.01,
    "max_delay_s": 0.02,
    "concurrency": 8,
    "record_target": "sandbox",
    "body_cap_bytes": 2_000_000,
    "sandbox_headers": {},
}


@pytest.fixture(scope="session")
def catalog_sandbox():
    """A standalone sandbox for the catalog tests; it also accepts SECRET_KEY. Base URL http://127.0.0.1:PORT."""
    config = SandboxConfig(timeout_hold_s=2.0, service_keys=(DEMO_KEY, DEMO_KEY_LEGACY, SECRET_KEY))
    url, stop = start_sandbox_server(port=0, config=config)
    yield url
    stop()


@pytest.fixture
def executor_settings(settings, catalog_sandbox):
    """Sandbox mode pointed at catalog_sandbox, with quick retries and a short timeout."""
    settings.KOPA_SANDBOX_ORIGIN = catalog_sandbox
    settings.KOPA_EXECUTOR = dict(FAST_EXECUTOR)
    return settings


@pytest.fixture
def catalog(db):
    """The bundled catalog (the sandbox's own specs), imported."""
    return catalog_import_bundled()


@pytest.fixture
def apt_trade(catalog) -> Tool:
    return Tool.objects.select_related("service__provider").get(function_name=APT_TRADE)


def in_thread(coroutine_function, timeout: float = 60.0):
    """Run an async function on a fresh event loop in a thread of its own and return (or raise) its outcome.

    Playwright's sync API (the browser tests) may hold an event loop in the main thread of the test process,
    where asyncio.run and async_to_sync would then refuse to start. Database rows the coroutine reads must be
    committed: use django_db(transaction=True).
    """
    outcome = {}

    def target():
        try:
            outcome["value"] = asyncio.run(coroutine_function())
        except BaseException as exc:  # handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the coroutine did not finish in time"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
