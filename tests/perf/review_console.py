"""Review console at scale: server time (p50/p95) and query counts of the queue, the trajectory list, the review
list API and the dashboard over N generated trajectories, and C annotators claiming at once never sharing an item.

Generated fixtures: N trajectories (70 % pending review, 15 % approved, 10 % rejected, 5 % failed filters) over
several providers, junctions and lengths, with annotator decisions on the decided ones (a tenth of them by two
annotators, some disagreeing) so the dashboard's throughput and agreement have work to do. Pages are served by
Django's test client in this process, so the times are the server's (URL resolving, views, queries, templates),
without a network. Query counts are taken at a small size first and again at N: they must be equal.

Claiming: C threads, each its own annotator, claim the next item and approve it, R times each; every claimed item
must be unique (overlap 1, so a decided item leaves the queue) and each must carry exactly one decision.

    .venv/bin/python -m tests.perf.review_console                       # N = 100,000, SQLite, C = 16
    .venv/bin/python -m tests.perf.review_console --database-url postgres://user@host:port/db --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = ("molit", "kosis", "visitkorea", "airkorea", "mois", "hira")
JUNCTIONS = ("SEQ", "FAN", "COND", "CMP", "DRV")
ANNOTATORS = 10
BATCH = 2000


def _setup_django(database_url: str) -> None:
    from tests.perf.django_setup import setup_django

    setup_django(database_url)
    from django.conf import settings
    from django.core.management import call_command

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)


def _user(username: str, role: str):
    from django.contrib.auth import get_user_model

    from kopa_site.roles import user_set_role

    user = get_user_model().objects.create_user(username=username, password=None)
    user_set_role(user=user, role=role)
    return user


def _status(index: int) -> str:
    slot = index % 20
    if slot < 14:
        return "pending_review"
    if slot < 17:
        return "approved"
    if slot < 19:
        return "rejected"
    return "filtered"


def generate(start: int, stop: int, annotators: list) -> None:
    """Trajectories [start, stop) and the decisions behind the decided ones."""
    from datasets.models import ReviewDecision, Trajectory

    for low in range(start, stop, BATCH):
        rows = []
        for index in range(low, min(stop, low + BATCH)):
            provider = PROVIDERS[index % len(PROVIDERS)]
            junction = JUNCTIONS[index % len(JUNCTIONS)]
            length = 1 + (index // 6) % 6  # independent of the provider
            tools = [f"tool_{(index + k) % 40}" for k in range(length)]
            status = _status(index)
            rows.append(
                Trajectory(
                    request=f"요청 {index}: {provider} 자료에서 {junction} 단계로 조회해 알려줘",
                    answer=f"답 {index}",
                    short_answer=str(index),
                    status=status,
                    template_id=f"t{index % 500}",
                    template=f"template {index % 500}",
                    junctions=[junction] * (length - 1),
                    junction_tags=f",{junction}," if length > 1 else "",
                    length=length,
                    tool_names=tools,
                    tool_tags="," + ",".join(tools) + ",",
                    providers=[provider],
                    provider_tags=f",{provider},",
                    dedupe_key=f"perf-{index}",
                    failed_stage="semantic" if status == "filtered" else "",
                    decision_count=0 if status in ("pending_review", "filtered") else 1 + (index % 10 == 0),
                )
            )
        made = Trajectory.objects.bulk_create(rows, batch_size=BATCH)
        decisions = []
        for offset, trajectory in enumerate(made):
            index = low + offset
            if trajectory.status not in ("approved", "rejected"):
                continue
            verdict = "approve" if trajectory.status == "approved" else "reject"
            voters = [annotators[index % len(annotators)]]
            if index % 10 == 0:  # a tenth decided by two annotators; a third of those disagree
                voters.append(annotators[(index + 1) % len(annotators)])
            for number, user in enumerate(voters):
                disagree = number == 1 and index % 30 == 0
                decision = ("reject" if verdict == "approve" else "approve") if disagree else verdict
                decisions.append(
                    ReviewDecision(
                        trajectory=trajectory,
                        user=user,
                        decision=decision,
                        reason="duplicate" if decision == "reject" else "",
                        version=1,
                        previous_status="pending_review",
                        seconds=20 + index % 40,
                    )
                )
        ReviewDecision.objects.bulk_create(decisions, batch_size=BATCH)


PAGES = (
    ("queue", "/trajectories/review/"),
    ("queue, filtered", "/trajectories/review/?provider=kosis&min_length=3&status=pending_review"),
    ("queue, page 20", "/trajectories/review/?page=20"),
    ("list", "/trajectories/all/"),
    ("list, search", "/trajectories/all/?q=visitkorea"),
    ("dashboard", "/trajectories/dashboard/"),
    ("review API", "/api/v1/review/"),
)


def measure_pages(client, requests: int) -> dict[str, dict]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    out = {}
    for name, url in PAGES:
        client.get(url)  # warm
        times, queries = [], 0
        for _ in range(requests):
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                response = client.get(url)
                times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (url, response.status_code)
            queries = len(captured.captured_queries)
        times.sort()
        out[name] = {
            "url": url,
            "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(times[max(0, int(round(0.95 * len(times))) - 1)], 1),
            "max_ms": round(times[-1], 1),
            "queries": queries,
        }
    return out


def measure_claims(claimers: int, rounds: int) -> dict:
    from django.db import connection
    from django.db.models import Count

    from datasets import review
    from datasets.models import ReviewDecision, Trajectory
    from kopa_site.roles import ANNOTATOR

    users = [_user(f"claimer{i}", ANNOTATOR) for i in range(claimers)]
    got: dict[str, list[int]] = {u.username: [] for u in users}
    errors: list[str] = []
    barrier = threading.Barrier(claimers)
    waits: list[float] = []

    def work(user):
        try:
            barrier.wait()
            for _ in range(rounds):
                started = time.perf_counter()
                item = review.trajectory_claim(user=user)
                waits.append((time.perf_counter() - started) * 1000)
                if item is None:
                    errors.append(f"{user.username}: empty queue")
                    return
                got[user.username].append(item.pk)
                review.trajectory_approve(trajectory=item, user=user)
        except Exception as exc:  # reported, never swallowed: the benchmark fails below
            errors.append(f"{user.username}: {type(exc).__name__}: {exc}")
        finally:
            connection.close()  # this thread's own connection

    started = time.perf_counter()
    threads = [threading.Thread(target=work, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    claimed = [pk for pks in got.values() for pk in pks]
    duplicates = len(claimed) - len(set(claimed))
    twice = (
        ReviewDecision.objects.filter(trajectory_id__in=claimed, user__username__startswith="claimer")
        .values("trajectory_id")
        .order_by()
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    waits.sort()
    return {
        "claimers": claimers,
        "rounds": rounds,
        "claims": len(claimed),
        "duplicates": duplicates,
        "items_with_two_claimer_decisions": twice,
        "errors": errors[:5],
        "claims_per_second": round(len(claimed) / seconds, 1),
        "claim_p50_ms": round(statistics.median(waits), 1) if waits else None,
        "claim_p95_ms": round(waits[max(0, int(round(0.95 * len(waits))) - 1)], 1) if waits else None,
        "approved_now": Trajectory.objects.filter(pk__in=claimed, status="approved").count(),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000, help="trajectories to generate (default 100,000)")
    parser.add_argument("--small", type=int, default=1_000, help="the size query counts are first taken at")
    parser.add_argument("--requests", type=int, default=40, help="requests per page (default 40)")
    parser.add_argument("--claimers", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=10, help="claims (each then approved) per claimer")
    parser.add_argument("--database-url", help="default: a throw-away SQLite file")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        _setup_django(args.database_url or f"sqlite:///{Path(folder) / 'review.sqlite3'}")
        from django.db import connection
        from django.test import Client

        from datasets.models import Trajectory
        from kopa_site.roles import ANNOTATOR, REVIEWER

        if Trajectory.objects.exists():
            print("the database already holds trajectories; use an empty one", file=sys.stderr)
            return 2
        annotators = [_user(f"annotator{i}", ANNOTATOR) for i in range(ANNOTATORS)]
        reviewer = _user("perf-reviewer", REVIEWER)
        client = Client()
        client.force_login(reviewer)

        started = time.perf_counter()
        generate(0, args.small, annotators)
        small = measure_pages(client, max(5, args.requests // 4))
        generate(args.small, args.count, annotators)
        generated = time.perf_counter() - started
        if connection.vendor == "postgresql":
            # What autovacuum does to a table this size long before anyone looks: statistics, and the visibility
            # map that lets counts read the status index alone.
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
        large = measure_pages(client, args.requests)
        claims = measure_claims(args.claimers, args.rounds)

        result = {
            "database": connection.vendor,
            "trajectories": Trajectory.objects.count(),
            "generate_seconds": round(generated, 1),
            "pages": {
                name: {**large[name], "queries_at_small": small[name]["queries"], "small": args.small} for name in large
            },
            "claims": claims,
        }
    print(json.dumps(result, indent=2, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    constant = all(page["queries"] == page["queries_at_small"] for page in result["pages"].values())
    safe = claims["duplicates"] == 0 and claims["items_with_two_claimer_decisions"] == 0 and not claims["errors"]
    print(f"query counts constant: {constant}; claims never shared: {safe}")
    return 0 if constant and safe else 1


if __name__ == "__main__":
    sys.exit(main())
