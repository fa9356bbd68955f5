"""Run a verification run in this process (a new one, or --resume a stopped one), with a progress bar."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apis.origin import OriginUnreachable, origin_check_for_run
from graphs.models import VerificationRun
from graphs.services import RUN_DEFAULTS, EdgeError, verification_run_create, verification_run_execute
from kopa_site.progress import ProgressBar


class Command(BaseCommand):
    help = "Try candidate edges through the executor and update their posteriors (see docs/edge.md)."

    def add_arguments(self, parser):
        parser.add_argument("--resume", type=int, metavar="RUN", help="continue a stopped run by id")
        parser.add_argument("--rounds", type=int, help=f"rounds at most (default {RUN_DEFAULTS['rounds']})")
        parser.add_argument("--batch-size", type=int, help=f"edges per round (default {RUN_DEFAULTS['batch_size']})")
        parser.add_argument("--n-max", type=int, help=f"main trials per edge (default {RUN_DEFAULTS['n_max']})")
        parser.add_argument("--concurrency", type=int, help=f"calls in flight (default {RUN_DEFAULTS['concurrency']})")
        parser.add_argument("--seed", help="Thompson-sampling seed (default: the run's id)")
        parser.add_argument("--mode", choices=["sandbox", "live", "record", "replay"], help="executor mode")
        parser.add_argument("--sandbox-origin", help="sandbox origin (default KOPA_SANDBOX_ORIGIN)")
        parser.add_argument("--edge", type=int, action="append", dest="edge_ids", help="only these edge ids")

    def handle(self, *args, resume, **options):
        bar = ProgressBar(self.stderr, label="verify", quiet=options["verbosity"] == 0)
        try:
            if resume:
                run = VerificationRun.objects.filter(pk=resume).first()
                if run is None:
                    raise CommandError(f"no verification run #{resume}")
                if run.status == VerificationRun.Status.FINISHED:
                    raise CommandError(f"run #{resume} has finished")
                origin_check_for_run(mode=run.params.get("mode"), sandbox=run.params.get("sandbox_origin"))
            else:
                names = ("rounds", "batch_size", "n_max", "concurrency", "seed", "mode", "sandbox_origin", "edge_ids")
                params = {name: options[name] for name in names if options.get(name) not in (None, [])}
                run = verification_run_create(params=params)  # checks the parameters first
                try:
                    origin_check_for_run(mode=run.params.get("mode"), sandbox=run.params.get("sandbox_origin"))
                except OriginUnreachable:
                    run.delete()  # never started: no row is left behind for a run that could not begin
                    raise
            self.stdout.write(f"run #{run.pk}")
            counters = verification_run_execute(run=run, reporter=bar)
        except (EdgeError, OriginUnreachable) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(counters, ensure_ascii=False, sort_keys=True))
        self.stdout.write(self.style.SUCCESS(f"run #{run.pk} finished: {counters['trials']} trial(s)"))
