"""Trajectory synthesis throughput on the sandbox with latency: trajectories per minute, overall and per chain length.

Runs real synthesis runs (need-first by default, or walks with --strategy coverage, over a verified graph of sandbox
links, every call through the executor service
and logged as an ApiCall, template requests, the three filters, storage) on a throw-away SQLite database against
the standalone sandbox in its own process, with L ms of latency per call. A walk's calls depend on each other
round by round, so a trajectory takes about rounds x L; walks run C at a time, so the bound is C / (rounds x L).
The sandbox is warmed first (`--warm`, as the edge verification benchmark does): cold, it builds pieces of its
world on their first request, seconds of its CPU that would count as synthesis time (--cold measures that way).

    .venv/bin/python -m tests.perf.synthesis_throughput                     # L = 50 ms, C = 4 and 16
    .venv/bin/python -m tests.perf.synthesis_throughput --count 20 --lengths 1 2 3 4 5 6 --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _setup_django(database: Path) -> None:
    from tests.perf.django_setup import setup_django

    setup_django(f"sqlite:///{database}")
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def measure(
    snapshot,
    *,
    count: int,
    concurrency: int,
    lengths: tuple[int, int],
    latency_ms: float,
    seed: int,
    strategy: str = "needs",
) -> dict:
    from django.db.models import Avg, Max

    from datasets.models import Trajectory, TrajectoryCall
    from datasets.services import synthesis_run_create, synthesis_run_execute

    # Each measurement starts from an empty dataset: earlier trajectories would turn walks into duplicates.
    Trajectory.objects.all().delete()
    run = synthesis_run_create(
        params={
            "count": count,
            "max_attempts": 6 * count,
            "min_length": lengths[0],
            "max_length": lengths[1],
            "concurrency": concurrency,
            "seed": seed,
            "strategy": strategy,
            "generator": "template",
            "judge": "rules",
        },
        snapshot=snapshot,
    )
    started = time.perf_counter()
    counters = synthesis_run_execute(run=run)
    seconds = time.perf_counter() - started
    kept = Trajectory.objects.filter(run=run, status="pending_review")
    calls = TrajectoryCall.objects.filter(trajectory__in=kept)
    rounds = [row["last"] + 1 for row in calls.values("trajectory").annotate(last=Max("round")).values("last")]
    mean_rounds = sum(rounds) / len(rounds) if rounds else 0.0
    return {
        "lengths": f"{lengths[0]}-{lengths[1]}" if lengths[0] != lengths[1] else str(lengths[0]),
        "concurrency": concurrency,
        "latency_ms": latency_ms,
        "kept": counters["kept"],
        "walks": counters["attempts"],
        "discarded": sum(counters["discarded"].values()),
        "calls": counters["calls"],
        "seconds": round(seconds, 2),
        "trajectories_per_min": round(60 * counters["kept"] / seconds, 1),
        "calls_per_s": round(counters["calls"] / seconds, 1),
        "mean_length": round(kept.aggregate(v=Avg("length"))["v"] or 0, 2),
        "mean_calls": round(calls.count() / max(1, kept.count()), 2),
        "mean_rounds": round(mean_rounds, 2),
        "bound_per_min": round(60 * concurrency / (mean_rounds * latency_ms / 1000), 1) if mean_rounds else None,
    }


def _line(row: dict) -> str:
    return (
        f"length {row['lengths']:>4} C={row['concurrency']:>2}: {row['kept']:>3} kept of {row['walks']:>3} walks, "
        f"{row['calls']:>4} calls in {row['seconds']:>6} s = {row['trajectories_per_min']:>6} trajectories/min "
        f"({row['calls_per_s']} calls/s); mean {row['mean_calls']} calls, {row['mean_rounds']} rounds "
        f"-> bound C/(rounds x L) = {row['bound_per_min']}/min"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--count", type=int, default=24, help="trajectories per measurement")
    parser.add_argument(
        "--lengths", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6], help="chain lengths measured alone"
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--cold", action="store_true", help="do not warm the sandbox before measuring")
    parser.add_argument(
        "--strategy", default="needs", choices=["needs", "coverage", "random"], help="need-first (default) or walks"
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="synth-bench-") as tmp:
        _setup_django(Path(tmp) / "bench.sqlite3")
        from django.conf import settings

        from apis.models import Tool
        from apis.services import catalog_import_bundled
        from tests.datasets.sandbox import use_sandbox, verified_snapshot
        from tests.perf.executor_throughput import start_server

        process, url = start_server("sandbox", args.latency_ms, warm=not args.cold)
        try:
            use_sandbox(settings, url.rstrip("/"))
            settings.KOPA_EXECUTOR = {**settings.KOPA_EXECUTOR, "concurrency": 64}
            catalog_import_bundled()
            catalog = {t.function_name: t for t in Tool.objects.select_related("service__provider")}
            from tests.datasets.sandbox import SANDBOX_EDGES
            from tests.datasets.test_needs_sandbox import NEED_EDGES

            snapshot = verified_snapshot(catalog, edges=sorted(set(SANDBOX_EDGES) | set(NEED_EDGES)), note="benchmark")
            results = []
            seed = 100
            for concurrency in args.concurrency:
                seed += 1
                row = measure(
                    snapshot,
                    count=args.count,
                    concurrency=concurrency,
                    lengths=(1, 6),
                    latency_ms=args.latency_ms,
                    seed=seed,
                    strategy=args.strategy,
                )
                results.append(row)
                print(_line(row), flush=True)
            for length in args.lengths:
                seed += 1
                row = measure(
                    snapshot,
                    count=max(4, args.count // 2),
                    concurrency=max(args.concurrency),
                    lengths=(length, length),
                    latency_ms=args.latency_ms,
                    seed=seed,
                    strategy=args.strategy,
                )
                results.append(row)
                print(_line(row), flush=True)
        finally:
            process.terminate()
            process.wait(timeout=10)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
