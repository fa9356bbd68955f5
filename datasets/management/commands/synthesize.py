"""Run a synthesis run in this process: walk a graph snapshot, execute, phrase, filter, store; with a progress bar."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apis.origin import OriginUnreachable, origin_check_for_run
from datasets.services import (
    ALL_STRATEGIES,
    RUN_DEFAULTS,
    SynthesisError,
    synthesis_run_create,
    synthesis_run_execute,
)
from graphs.engine.walk import JUNCTIONS
from graphs.models import CandidateEdge, GraphSnapshot
from graphs.services import graph_snapshot_create
from kopa_site.progress import ProgressBar


class Command(BaseCommand):
    help = "Synthesize executed multi-step trajectories with Korean requests from a verified graph snapshot."

    def add_arguments(self, parser):
        parser.add_argument("--snapshot", type=int, metavar="VERSION", help="graph version (default: the latest)")
        parser.add_argument("--count", type=int, help=f"trajectories to keep (default {RUN_DEFAULTS['count']})")
        parser.add_argument("--max-attempts", type=int, help="walks tried at most (default 5 x count)")
        parser.add_argument("--min-length", type=int, help=f"default {RUN_DEFAULTS['min_length']}")
        parser.add_argument("--max-length", type=int, help=f"default {RUN_DEFAULTS['max_length']}")
        parser.add_argument(
            "--strategy",
            choices=ALL_STRATEGIES,
            help=f"needs: need-first (default); coverage, random: walks over the graph (default {RUN_DEFAULTS['strategy']})",
        )
        parser.add_argument("--junctions", help=f"comma-separated subset of {','.join(JUNCTIONS)}")
        parser.add_argument("--seed", help="walk seed (default: the run's id)")
        parser.add_argument("--mode", choices=["sandbox", "live", "record", "replay"], help="executor mode")
        parser.add_argument("--sandbox-origin", help="sandbox origin (default KOPA_SANDBOX_ORIGIN)")
        parser.add_argument("--concurrency", type=int, help=f"walks at once (default {RUN_DEFAULTS['concurrency']})")
        parser.add_argument("--generator", choices=["auto", "template", "llm"], help="who writes requests")
        parser.add_argument("--judge", choices=["auto", "rules", "llm"], help="who runs the semantic filter")

    def handle(self, *args, snapshot, **options):
        bar = ProgressBar(self.stderr, label="synthesize", quiet=options["verbosity"] == 0)
        names = (
            "count",
            "max_attempts",
            "min_length",
            "max_length",
            "strategy",
            "junctions",
            "seed",
            "mode",
            "sandbox_origin",
            "concurrency",
            "generator",
            "judge",
        )
        params = {name: options[name] for name in names if options.get(name) is not None}
        snap = None
        if snapshot is not None:
            snap = GraphSnapshot.objects.filter(version=snapshot).first()
            if snap is None:
                raise CommandError(f"no graph snapshot v{snapshot}")
        elif not GraphSnapshot.objects.exists():
            # Verified edges but no snapshot yet: take one rather than stop after the user's verification run.
            if not CandidateEdge.objects.filter(status=CandidateEdge.Status.VERIFIED).exists():
                raise CommandError("no verified edges yet: run edges_propose and edges_verify first (docs/edge.md)")
            snap = graph_snapshot_create(note="taken by synthesize")
            self.stdout.write(f"took graph snapshot v{snap.version} of the verified edges")
        try:
            origin_check_for_run(mode=params.get("mode"), sandbox=params.get("sandbox_origin"))
            run = synthesis_run_create(params=params, snapshot=snap)
            self.stdout.write(f"run #{run.pk} over graph v{run.snapshot.version}")
            counters = synthesis_run_execute(run=run, reporter=bar)
        except (SynthesisError, OriginUnreachable) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps({k: counters[k] for k in ("discarded", "failed_filters")}, ensure_ascii=False))
        self.stdout.write(
            self.style.SUCCESS(
                f"run #{run.pk}: {counters['kept']} kept, {counters['filtered']} filtered, "
                f"{counters['duplicates']} duplicate(s) from {counters['attempts']} walks and {counters['calls']} calls "
                f"in {counters['seconds']} s"
            )
        )
