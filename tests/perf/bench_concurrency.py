"""Runner concurrency against an OpenAI-compatible endpoint with a set latency: the speed-up of running C
episodes at once over running them one by one, as a share of the ideal C.

The endpoint is the stand-in server (tests/support/openai_stub_server.py) in its own process, answering every
request after a fixed latency: a tool call first, then an answer, so each episode is two model turns and one
tool call (answered in process). 145 synthetic tasks × 4 seeds by default, the size of a KOPA-Bench run.

    .venv/bin/python -m tests.perf.bench_concurrency                       # 145 × 4, L = 50 ms, C = 16
    .venv/bin/python -m tests.perf.bench_concurrency --latency-ms 100 --concurrency 8 16 32 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from benchmarks.engine.accounting import run_account
from benchmarks.engine.backends.openai_http import OpenAIChatBackend, OpenAIConfig
from benchmarks.engine.metrics import score_run
from benchmarks.engine.runner import RunConfig, StaticToolEnvironment, run_tasks
from benchmarks.engine.task import parse_tasks

ROOT = Path(__file__).resolve().parents[2]
MODEL = "stub"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "조회",
            "parameters": {"type": "object", "properties": {}, "required": []},
        },
    }
]


def synthetic_tasks(count: int):
    tasks = [
        {
            "id": f"bench-{index:03d}",
            "request": f"요청 {index}",
            "tools": "*",
            "categories": [f"group-{index % 6}"],
            "difficulty": "easy",
            "gold": {
                "calls": [{"id": "c1", "tool": "lookup", "args": {}}],
                "answer": {"checker": "contains", "value": "모름", "text": "모름"},
            },
        }
        for index in range(count)
    ]
    document = {"format": "kopa-bench/tasks", "version": 1, "data_version": "perf", "tasks": tasks}
    return list(parse_tasks(document))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_stub(latency_ms: float) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "tests.support.openai_stub_server",
        "--port",
        str(port),
        "--latency-ms",
        str(latency_ms),
    ]
    command += ["--model-name", MODEL]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the stub server exited: {process.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(url + "/models", timeout=2.0).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the stub server did not start within 60 s")


async def measure(url: str, tasks, seeds: list[int], concurrency: int) -> dict:
    environment = StaticToolEnvironment(TOOLS, {"lookup": lambda args: [{"value": 1}]})
    config = RunConfig(max_steps=4, concurrency=concurrency)
    async with OpenAIChatBackend(OpenAIConfig(url, MODEL, max_connections=max(8, concurrency * 2))) as backend:
        started = time.perf_counter()
        episodes = await run_tasks(tasks, backend, lambda task: environment, seeds=seeds, config=config)
        wall = time.perf_counter() - started
    _, report = score_run(tasks, episodes)
    account = run_account(episodes, wall_s=wall)
    return {
        "concurrency": concurrency,
        "episodes": len(episodes),
        "model_turns": account.model_turns,
        "wall_s": round(wall, 3),
        "episodes_per_s": round(account.episodes_per_s, 2),
        "turn_latency_p50_ms": round(account.turn_latency_p50_s * 1000, 1),
        "turn_latency_p95_ms": round(account.turn_latency_p95_s * 1000, 1),
        "success": report.overall.success.value,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=145)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16])
    parser.add_argument("--json", help="write the figures here as JSON")
    args = parser.parse_args(argv)
    tasks = synthetic_tasks(args.tasks)
    seeds = list(range(args.seeds))
    process, url = start_stub(args.latency_ms)
    try:
        sequential = asyncio.run(measure(url, tasks, seeds, 1))
        runs = [asyncio.run(measure(url, tasks, seeds, c)) for c in args.concurrency]
    finally:
        process.terminate()
        process.wait(timeout=10)
    bound = 2 * args.latency_ms / 1000 * len(tasks) * len(seeds)  # two turns an episode, one after the other
    print(f"{len(tasks)} tasks × {len(seeds)} seeds, endpoint latency {args.latency_ms:g} ms, 2 turns per episode")
    print(
        f"C=1: {sequential['wall_s']:.2f} s ({sequential['episodes_per_s']} episodes/s; latency-only bound {bound:.2f} s)"
    )
    for run in runs:
        speedup = sequential["wall_s"] / run["wall_s"]
        run["speedup"] = round(speedup, 2)
        run["ratio_of_ideal"] = round(speedup / run["concurrency"], 3)
        print(
            f"C={run['concurrency']}: {run['wall_s']:.2f} s ({run['episodes_per_s']} episodes/s), speed-up "
            f"{speedup:.2f}× of an ideal {run['concurrency']}× = {run['ratio_of_ideal']:.1%}; "
            f"turn p50 {run['turn_latency_p50_ms']} ms, p95 {run['turn_latency_p95_ms']} ms"
        )
    result = {"latency_ms": args.latency_ms, "sequential": sequential, "concurrent": runs}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
