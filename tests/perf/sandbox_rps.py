"""Requests per second of the standalone sandbox for a typical list call (apt trades, numOfRows=10, latency 0).

Starts `python -m apis.sandbox.server` in a subprocess, warms it up, then drives it with wrk when installed
(`apt-get install -y wrk`) or else with N concurrent httpx clients, and prints one JSON line. A benchmark,
not a test: numbers depend on the machine.

    .venv/bin/python tests/perf/sandbox_rps.py --seconds 15 --connections 32
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apis.sandbox.config import DEMO_KEY  # noqa: E402

PATH = "/sandbox/apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
QUERY = f"serviceKey={DEMO_KEY}&LAWD_CD=11680&DEAL_YMD=202609&pageNo=1&numOfRows=10"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, cpus: str | None) -> subprocess.Popen:
    env = {
        **os.environ,
        "KOPA_SANDBOX_LATENCY_MS": "0",
        "KOPA_SANDBOX_FAULT_RATE": "0",
        "KOPA_SANDBOX_DAILY_QUOTA": "0",
    }
    command = [sys.executable, "-m", "apis.sandbox.server", "--port", str(port)]
    if cpus and shutil.which("taskset"):
        command = ["taskset", "-c", cpus, *command]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}{PATH}?{QUERY}", timeout=30).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the sandbox server did not come up: {process.stderr.read().decode()[-2000:]}")


def run_wrk(url: str, seconds: int, connections: int, threads: int) -> dict:
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = re.search(r"50%\s+([\d.]+\w+)", out)
    p99 = re.search(r"99%\s+([\d.]+\w+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "tool": "wrk",
        "rps": rps,
        "p50": p50.group(1) if p50 else None,
        "p99": p99.group(1) if p99 else None,
        "non_2xx": int(errors.group(1)) if errors else 0,
    }


async def run_httpx(url: str, seconds: int, connections: int) -> dict:
    done = errors = 0
    stop_at = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:

        async def worker():
            nonlocal done, errors
            while time.monotonic() < stop_at:
                response = await client.get(url)
                done += 1
                errors += response.status_code != 200

        started = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(connections)))
        elapsed = time.monotonic() - started
    return {"tool": "httpx", "rps": round(done / elapsed, 1), "non_2xx": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--server-cpus", default="0,1", help="taskset CPU list for the server (2 cores)")
    parser.add_argument("--tool", choices=("auto", "wrk", "httpx"), default="auto")
    args = parser.parse_args()

    port = free_port()
    server = start_server(port, args.server_cpus)
    url = f"http://127.0.0.1:{port}{PATH}?{QUERY}"
    try:
        use_wrk = args.tool == "wrk" or (args.tool == "auto" and shutil.which("wrk"))
        result = (
            run_wrk(url, args.seconds, args.connections, args.threads)
            if use_wrk
            else asyncio.run(run_httpx(url, args.seconds, args.connections))
        )
    finally:
        server.terminate()
        server.wait(10)
    result.update(
        {
            "call": "getRTMSDataSvcAptTrade LAWD_CD=11680 DEAL_YMD=202609 numOfRows=10",
            "latency_ms": 0,
            "connections": args.connections,
            "seconds": args.seconds,
            "cpus": os.cpu_count(),
        }
    )
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
