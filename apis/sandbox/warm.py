"""Build the sandbox's lazily built world ahead of requests: the nationwide lists (HIRA facilities, pharmacies,
tourism places, 청약 notices) with their indexes, every bus network, and whatever each operation's example
request touches. A cold piece costs its first request seconds; a warmed server answers in milliseconds.

The standalone server runs this with --warm; the Django-mounted sandbox builds lazily (tests and one-off calls
should not pay for the whole country).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import time
from collections.abc import Callable
from dataclasses import replace

from apis.sandbox.config import SandboxConfig
from apis.sandbox.index import example_request
from apis.sandbox.registry import load_families
from apis.sandbox.serving import serve_path
from apis.sandbox.state import SandboxState
from apis.sandbox.world import regions


def warm(config: SandboxConfig | None = None, *, log: Callable[[str], None] | None = None) -> dict[str, float]:
    """Build every lazily built piece for the configured clock; returns the seconds each step took.

    Families with a large lazy build define warm(now); every other piece is reached by sending each live
    operation's example requests through the engine (with a state of its own, so no quota is spent)."""
    config = config or SandboxConfig()
    seconds: dict[str, float] = {}

    def step(name: str, build: Callable[[], object]) -> None:
        started = time.perf_counter()
        build()
        seconds[name] = time.perf_counter() - started
        if log is not None:
            log(f"  {name}: {seconds[name]:.1f} s")

    step("families", lambda: (load_families(), regions.regions()))
    from apis.sandbox import families

    for module_info in sorted(pkgutil.iter_modules(families.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{families.__name__}.{module_info.name}")
        build = getattr(module, "warm", None)
        if callable(build):
            step(module_info.name, lambda build=build: build(config.now))
    step("examples", lambda: _send_examples(config))
    return seconds


def _send_examples(config: SandboxConfig) -> None:
    state = SandboxState()
    quiet = config.with_(latency_ms=0.0, jitter_ms=0.0, fault_rate=0.0, daily_quota=0)
    for op in load_families().live_operations():
        for example in (op.example, *op.more_examples):
            # example_request reads op.example: a copy of the operation carries each of its examples in turn.
            request = example_request(replace(op, example=dict(example)), key=config.service_keys[0])
            path, _, query = request["url"].removeprefix("/sandbox/").partition("?")
            body = request.get("body")
            headers = {"content-type": "application/json"} if body is not None else {}
            payload = b"" if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
            serve_path(request["method"], path, query, headers, payload, config=quiet, state=state)
