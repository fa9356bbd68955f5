"""Executor throughput against a server with a fixed latency, as a ratio to the bound C/L.

With latency L and C calls in flight, no client can beat C/L calls per second; the ratio says how much
of that the executor (httpx, limits, normalization, redaction) keeps. The server runs in its own process
so it does not share the client's interpreter: the standalone sandbox (default) or the engine's fixture
server (--server fixture).

    .venv/bin/python -m tests.perf.executor_throughput            # C = 1, 8, 32, 64; L = 100 ms
    .venv/bin/python -m tests.perf.executor_throughput --concurrency 32 --seconds 5 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

from apis.engine.executor import Executor, ProviderLimits, RetryPolicy, ToolCall
from apis.engine.model import KeySlot, ToolSpec
from apis.engine.spec_import import import_spec

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "apis" / "sandbox" / "specs" / "RTMSDataSvcAptTrade.json"
PARAMS = {"LAWD_CD": "11110", "DEAL_YMD": "202407", "numOfRows": "10"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(kind: str, latency_ms: float, *, warm: bool = False) -> tuple[subprocess.Popen, str]:
    """The standalone sandbox (warm: every lazily built world piece built before it listens) or the fixture
    server, on a free port, once it answers."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if kind == "sandbox":
        env["KOPA_SANDBOX_LATENCY_MS"] = str(latency_ms)
        command = [sys.executable, "-m", "apis.sandbox.server", "--port", str(port), *(["--warm"] if warm else [])]
        probe = f"http://127.0.0.1:{port}/sandbox/"
    else:
        command = [
            sys.executable,
            "-m",
            "tests.support.fixture_server",
            "--port",
            str(port),
            "--latency-ms",
            str(latency_ms),
        ]
        probe = f"http://127.0.0.1:{port}/"
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the {kind} server exited: {process.stderr.read().decode()[-2000:]}")
        try:
            httpx.get(probe, timeout=2.0)
            return process, f"http://127.0.0.1:{port}"
        except httpx.HTTPError:
            time.sleep(0.2)
    process.terminate()
    raise RuntimeError(f"the {kind} server did not answer within 180 s")


def benchmark_tool(kind: str) -> tuple[ToolSpec, str]:
    if kind == "sandbox":
        result = import_spec(SPEC)
        if not result.ok:
            raise RuntimeError(result.report())
        return result.tools[0], "sandbox"
    # The fixture server answers any path; it stands in for a live origin.
    tool = ToolSpec(
        method="GET",
        path="/getRTMSDataSvcAptTrade",
        base_url="http://placeholder/1613000/RTMSDataSvcAptTrade",
        operation_id="getRTMSDataSvcAptTrade",
        key_param=KeySlot("serviceKey"),
        provider="apis.data.go.kr/1613000",
    )
    return tool, "live"


async def run_level(origin: str, kind: str, concurrency: int, calls: int, latency_s: float) -> dict:
    tool, mode = benchmark_tool(kind)
    if mode == "live":
        tool = ToolSpec(**{**tool.__dict__, "base_url": f"{origin}/1613000/RTMSDataSvcAptTrade"})
    options = {"sandbox_origin": origin} if mode == "sandbox" else {}
    key = "6b6f706173616e64626f7864656d6f6b65792026111800000000000000000000"  # the sandbox's demo key
    executor = Executor(
        mode,
        limits=ProviderLimits(concurrency=concurrency),
        retry=RetryPolicy(max_attempts=1),
        timeout=30.0,
        **options,
    )
    batch = [ToolCall(tool, PARAMS, service_key=key) for _ in range(calls)]
    async with executor:
        await executor.execute_many(batch[: min(calls, concurrency)])  # open the connections first
        started = time.perf_counter()
        results = await executor.execute_many(batch, concurrency=concurrency)
        elapsed = time.perf_counter() - started
    failed = [r for r in results if not r.ok]
    rate = calls / elapsed
    bound = concurrency / latency_s
    latencies = sorted(r.latency_ms for r in results)
    return {
        "concurrency": concurrency,
        "calls": calls,
        "seconds": round(elapsed, 3),
        "calls_per_s": round(rate, 1),
        "bound_per_s": round(bound, 1),
        "ratio": round(rate / bound, 3),
        "p50_ms": round(statistics.median(latencies), 1),
        "p95_ms": round(latencies[int(len(latencies) * 0.95) - 1], 1),
        "failed": len(failed),
        "failure_classes": sorted({r.error_class for r in failed}),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("sandbox", "fixture"), default="sandbox")
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--seconds", type=float, default=3.0, help="ideal duration of each level at the bound")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)

    latency_s = args.latency_ms / 1000
    load_before = os.getloadavg()
    process, origin = start_server(args.server, args.latency_ms)
    try:
        rows = []
        for concurrency in args.concurrency:
            calls = max(concurrency, int(args.seconds * concurrency / latency_s))
            rows.append(asyncio.run(run_level(origin, args.server, concurrency, calls, latency_s)))
    finally:
        process.terminate()
        process.wait(10)

    load = ", ".join(f"{x:.2f}" for x in load_before)
    print(f"executor throughput: {args.server} server, latency {args.latency_ms:.0f} ms, ratio = calls/s / (C/L)")
    print(f"machine: {os.cpu_count()} CPUs, load average before the run {load}")
    print(f"{'C':>4} {'calls':>6} {'calls/s':>9} {'C/L':>7} {'ratio':>6} {'p50 ms':>7} {'p95 ms':>7} {'failed':>6}")
    for row in rows:
        print(
            f"{row['concurrency']:>4} {row['calls']:>6} {row['calls_per_s']:>9} {row['bound_per_s']:>7} "
            f"{row['ratio']:>6} {row['p50_ms']:>7} {row['p95_ms']:>7} {row['failed']:>6}"
        )
    if args.json:
        summary = {"server": args.server, "latency_ms": args.latency_ms, "load_average": load_before, "levels": rows}
        args.json.write_text(json.dumps(summary, indent=2))
    return 1 if any(row["failed"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
