"""The main job of `./kopa up`: set up, verify the EDGE graph, synthesize, evaluate; skips what is done."""

from __future__ import annotations

import logging

from django.core.management.base import BaseCommand, CommandError
from django.urls import NoReverseMatch, reverse

from kopa_site.pipeline import PipelineError, options_from_env, pipeline_run
from kopa_site.progress import ProgressBar

# The pages to click once the job has run, in the order a newcomer would visit them.
LINKS = [
    ("Console", "home"),
    ("Review queue", "datasets:index"),
    ("EDGE graph", "graphs:index"),
    ("Leaderboard", "benchmarks:leaderboard"),
    ("Admin", "admin:index"),
    ("API docs", "api-docs"),
]


class Command(BaseCommand):
    help = (
        "Run the main job: migrate, demo users, bundled catalog, KOPA-Bench tasks, propose and verify edges, "
        "snapshot the graph, synthesize trajectories, evaluate the oracle (and a configured model). "
        "Idempotent: a second run skips finished work. Defaults come from KOPA_PIPELINE_* variables."
    )

    def add_arguments(self, parser):
        parser.add_argument("--trajectories", type=int, help="trajectories to hold after synthesis (default 200)")
        parser.add_argument("--mode", choices=["sandbox", "live"], help="where API calls go (default sandbox)")
        parser.add_argument("--sandbox-origin", help="a running sandbox (default: KOPA_SANDBOX_ORIGIN, else started)")
        parser.add_argument("--verify-rounds", type=int, help="verification rounds at most")
        parser.add_argument("--synth-concurrency", type=int, help="walks in flight during synthesis")
        parser.add_argument("--tasks", nargs="+", help="KOPA-Bench task ids to evaluate (default: all)")
        parser.add_argument("--model", dest="model_name", help="also evaluate this model (name on the leaderboard)")
        parser.add_argument("--model-url", help="its OpenAI-compatible endpoint (a vLLM server), ending in /v1")
        parser.add_argument("--model-key-env", help="variable that holds the endpoint's key (KOPA_MODEL_KEY_*)")
        parser.add_argument("--checkpoint", dest="model_checkpoint", help="or its local checkpoint folder")
        parser.add_argument(
            "--tiny", action="store_true", help="build the tiny Qwen3 model from config if absent, and evaluate it"
        )
        parser.add_argument("--skip-pipeline", action="store_true", help="only migrate, users, catalog and tasks")
        parser.add_argument("--base", default="http://127.0.0.1:8000", help="site address for the printed links")

    def handle(self, *args, base: str, **given):
        try:
            options = options_from_env()
        except Exception as exc:  # a malformed KOPA_PIPELINE_* variable: the message names it
            raise CommandError(str(exc)) from None
        for name, value in given.items():
            if hasattr(options, name) and value not in (None, False, []):
                setattr(options, name, value)
        if options.model_name and not (options.model_url or options.model_checkpoint):
            raise CommandError("--model needs --model-url (an OpenAI-compatible endpoint) or --checkpoint (a folder)")
        bar = ProgressBar(self.stderr, label="kopa up", quiet=given["verbosity"] == 0)
        if given["verbosity"] < 2:  # one line per API call would bury the progress; they stay in ApiCall rows
            logging.getLogger("apis.services").setLevel(logging.WARNING)
        try:
            report = pipeline_run(
                options=options,
                progress=bar.progress,
                log=bar.log,
                stdout=self.stdout if given["verbosity"] > 1 else None,
                stderr=self.stderr,
            )
        except PipelineError as exc:
            raise CommandError(str(exc)) from None
        write = self.stdout.write
        done = [s.name for s in report.steps if s.status == "done"]
        skipped = [s.name for s in report.steps if s.status == "skipped"]
        write(self.style.SUCCESS(f"main job finished in {report.seconds} s"))
        write(f"  ran: {', '.join(done) or 'nothing'}; already done: {', '.join(skipped) or 'nothing'}")
        for step in report.steps:
            if step.status == "done" and step.seconds >= 1:
                write(f"    {step.name:<11} {step.seconds:>7.1f} s")
        write("  " + ", ".join(f"{count} {name}" for name, count in report.counts.items()))
        base = base.rstrip("/")
        for label, name in LINKS:
            try:
                write(f"  {label:<14} {base}{reverse(name)}")
            except NoReverseMatch:
                continue
