"""Verification throughput against the sandbox with latency, as a ratio to the bound C/L.

With latency L and C calls in flight, no verifier can make more than C/L calls per second. This runs real
verification rounds (proposals over the bundled catalog, Thompson sampling, sources, targets and controls
through the executor service, every call logged as an ApiCall and every trial stored) on a throw-away SQLite
database against the standalone sandbox in its own process, and reports calls/s and trials/s with their
ratio to C/L. The sandbox is warmed (`--warm`: every lazily built world piece built before it listens), so
the figure measures the verifier and not the emulation's first-request builds; `--slack-ms` can still leave
out tools that answer slower than L + slack. The ratio to C over the mean latency actually observed is
printed as well.

    .venv/bin/python -m tests.perf.edge_verify_throughput                      # C = 8, 32; L = 50 ms
    .venv/bin/python -m tests.perf.edge_verify_throughput --concurrency 16 --latency-ms 100 --rounds 3
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


def _wipe() -> None:
    from apis.models import ApiCall
    from graphs.models import CandidateEdge, EdgeTrial, VerificationRun
    from graphs.services import edge_reset

    EdgeTrial.objects.all().delete()
    VerificationRun.objects.all().delete()
    ApiCall.objects.filter(source_kind="edge_trial").delete()
    for edge in CandidateEdge.objects.all():
        edge_reset(edge=edge)


def measure(concurrency: int, latency_ms: float, rounds: int, edge_ids: list[int]) -> dict:
    from django.conf import settings
    from django.db.models import Avg

    from apis.models import ApiCall
    from graphs.models import EdgeTrial
    from graphs.services import verification_run_create, verification_run_execute

    settings.KOPA_EXECUTOR = {**settings.KOPA_EXECUTOR, "concurrency": concurrency}
    _wipe()
    run = verification_run_create(
        params={"rounds": rounds, "batch_size": 10_000, "concurrency": concurrency, "edge_ids": edge_ids, "seed": 1}
    )
    started = time.perf_counter()
    verification_run_execute(run=run)
    seconds = time.perf_counter() - started
    calls = ApiCall.objects.filter(source_kind="edge_trial", source_id=str(run.pk))
    n_calls = calls.count()
    n_trials = EdgeTrial.objects.filter(run=run).count()
    observed = calls.aggregate(latency=Avg("latency_ms"))["latency"] or latency_ms
    bound = concurrency / (latency_ms / 1000)
    return {
        "concurrency": concurrency,
        "latency_ms": latency_ms,
        "rounds": rounds,
        "edges": len(edge_ids),
        "seconds": round(seconds, 2),
        "calls": n_calls,
        "trials": n_trials,
        "calls_per_s": round(n_calls / seconds, 1),
        "trials_per_s": round(n_trials / seconds, 1),
        "bound_calls_per_s": round(bound, 1),
        "ratio": round(n_calls / seconds / bound, 3),
        "mean_call_latency_ms": round(observed, 1),
        "ratio_to_observed_latency": round(n_calls / seconds / (concurrency / (observed / 1000)), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument(
        "--slack-ms", type=float, default=None, help="leave out tools the warmed sandbox needs longer than L + this for"
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="edge-bench-") as tmp:
        _setup_django(Path(tmp) / "bench.sqlite3")
        from django.conf import settings

        from apis.services import catalog_import_bundled
        from graphs.models import CandidateEdge
        from graphs.services import edges_propose, tools_probe
        from tests.perf.executor_throughput import start_server

        process, url = start_server("sandbox", args.latency_ms, warm=True)
        try:
            settings.KOPA_SANDBOX_ORIGIN = url.rstrip("/")
            catalog_import_bundled()
            from apis.models import ApiCall, Tool

            tools = list(Tool.objects.select_related("service__provider"))
            # Twice, one call at a time: the first call of a family also loads its data.
            tools_probe(tools=tools, concurrency=1)
            tools_probe(tools=tools, concurrency=1)
            fastest: dict[int, float] = {}
            for tool_id, latency in ApiCall.objects.filter(source_kind="edge_probe").values_list(
                "tool_id", "latency_ms"
            ):
                fastest[tool_id] = min(latency, fastest.get(tool_id, latency))
            slow = (
                {tool_id for tool_id, latency in fastest.items() if latency > args.latency_ms + args.slack_ms}
                if args.slack_ms is not None
                else set()
            )
            edges_propose()
            edge_ids = list(
                CandidateEdge.objects.exclude(source_tool_id__in=slow)
                .exclude(target_tool_id__in=slow)
                .values_list("pk", flat=True)
            )
            skipped = sorted(Tool.objects.filter(pk__in=slow).values_list("function_name", flat=True))
            print(
                f"{len(edge_ids)} candidate edges; tools left out (the sandbox answers slower than "
                f"L + {args.slack_ms} ms): {', '.join(skipped) or 'none'}"
            )
            results = []
            for concurrency in args.concurrency:
                row = measure(concurrency, args.latency_ms, args.rounds, edge_ids)
                results.append(row)
                print(
                    f"C={row['concurrency']:>3} L={row['latency_ms']:.0f} ms: {row['calls']} calls, {row['trials']} trials "
                    f"in {row['seconds']} s = {row['calls_per_s']} calls/s, {row['trials_per_s']} trials/s; "
                    f"C/L = {row['bound_calls_per_s']} -> ratio {row['ratio']} "
                    f"(mean call latency {row['mean_call_latency_ms']} ms -> {row['ratio_to_observed_latency']})"
                )
        finally:
            process.terminate()
            process.wait(timeout=10)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
