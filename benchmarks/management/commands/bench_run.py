"""Evaluate a model on KOPA-Bench from the command line: create an EvalRun and run it here with a progress bar
(or queue it with --async), or run an existing one (--run ID: resume, or the job's fresh process)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from apis.origin import OriginUnreachable, sandbox_origin_check
from benchmarks.engine.bfcl import DEFAULT_CATEGORIES
from benchmarks.management.progress import ProgressLines
from benchmarks.models import EvalRun, ModelEntry
from benchmarks.services import (
    PROGRESS_PREFIX,
    RUN_DEFAULTS,
    BenchError,
    bfcl_run_create,
    eval_run_create,
    eval_run_execute,
    eval_run_start,
    model_entry_create,
    model_entry_update,
)
from kopa_site.progress import ProgressBar


class Command(BaseCommand):
    help = "Run a model on the benchmark tasks and store every episode with its scores (see docs/bench.md)."

    def add_arguments(self, parser):
        parser.add_argument("--model", help="model entry name (created when new, with --backend)")
        parser.add_argument("--backend", choices=ModelEntry.Backend.values)
        parser.add_argument("--base-url", help="OpenAI-compatible endpoint ending in /v1")
        parser.add_argument("--served-name", help="model name the endpoint serves (default: --model)")
        parser.add_argument("--api-key-env", help="environment variable holding the endpoint's key")
        parser.add_argument("--checkpoint", help="local checkpoint (transformers; vLLM for openai without --base-url)")
        parser.add_argument("--seeds", type=int, nargs="+", default=RUN_DEFAULTS["seeds"])
        parser.add_argument("--concurrency", type=int, default=RUN_DEFAULTS["concurrency"])
        parser.add_argument("--max-steps", type=int, default=RUN_DEFAULTS["max_steps"])
        parser.add_argument("--tool-mode", choices=EvalRun.ToolMode.values, default=RUN_DEFAULTS["tool_mode"])
        parser.add_argument("--temperature", type=float, default=RUN_DEFAULTS["sampling"]["temperature"])
        parser.add_argument("--top-p", type=float, default=RUN_DEFAULTS["sampling"]["top_p"])
        parser.add_argument("--max-tokens", type=int, default=RUN_DEFAULTS["sampling"]["max_tokens"])
        parser.add_argument("--episode-timeout", type=float, help="seconds per episode")
        parser.add_argument("--tasks", nargs="+", help="task ids (default: every active task)")
        parser.add_argument(
            "--bfcl",
            nargs="*",
            metavar="CATEGORY",
            help=f"run BFCL instead of KOPA-Bench, on these categories (none given: {' '.join(DEFAULT_CATEGORIES)})",
        )
        parser.add_argument("--limit", type=int, help="BFCL: the first N entries of each category")
        parser.add_argument("--async", action="store_true", dest="queue", help="queue the run as a job and return")
        parser.add_argument("--run", type=int, help="run (or resume) this existing run in this process")
        parser.add_argument("--device", help="transformers device (default KOPA_BENCH_DEVICE, else cuda when present)")
        parser.add_argument("--progress-lines", action="store_true", help="plain progress lines (for the job)")

    def handle(self, *args, **options):
        try:
            run = self._existing(options["run"]) if options["run"] else self._create(options)
            if options["queue"]:
                job = eval_run_start(run=run)
                self.stdout.write(self.style.SUCCESS(f"run #{run.pk} queued as job #{job.pk}"))
                return
            if run.benchmark != "bfcl" and run.tool_mode == EvalRun.ToolMode.SANDBOX:
                sandbox_origin_check()  # KOPA-Bench tasks call the catalog's tools in the sandbox; stop before any episode
            self._execute(run, options)
        except (BenchError, OriginUnreachable) as exc:
            raise CommandError(str(exc)) from None

    def _existing(self, run_id: int) -> EvalRun:
        run = EvalRun.objects.select_related("model").filter(pk=run_id).first()
        if run is None:
            raise BenchError(f"no evaluation run #{run_id}")
        return run

    def _create(self, options) -> EvalRun:
        name = options["model"]
        if not name:
            raise BenchError("give --model NAME (and --backend for a new model), or --run ID")
        fields = {
            key: options[option]
            for key, option in (
                ("backend", "backend"),
                ("base_url", "base_url"),
                ("served_name", "served_name"),
                ("api_key_env", "api_key_env"),
                ("checkpoint", "checkpoint"),
            )
            if options[option] is not None
        }
        entry = ModelEntry.objects.filter(name=name).first()
        if entry is None:
            if "backend" not in fields:
                raise BenchError(f"no model named {name!r}; give --backend (and its endpoint) to register it")
            entry = model_entry_create(name=name, **fields)
            self.stdout.write(f"registered model {entry.name} ({entry.backend})")
        elif fields:
            entry = model_entry_update(entry=entry, **fields)
        sampling = {
            "temperature": options["temperature"],
            "top_p": options["top_p"],
            "max_tokens": options["max_tokens"],
        }
        if options["bfcl"] is not None:
            return bfcl_run_create(
                model=entry,
                categories=options["bfcl"] or DEFAULT_CATEGORIES,
                limit=options["limit"],
                seeds=options["seeds"],
                concurrency=options["concurrency"],
                sampling=sampling,
            )
        return eval_run_create(
            model=entry,
            task_codes=options["tasks"],
            seeds=options["seeds"],
            concurrency=options["concurrency"],
            max_steps=options["max_steps"],
            tool_mode=options["tool_mode"],
            sampling=sampling,
            episode_timeout_s=options["episode_timeout"],
        )

    def _execute(self, run: EvalRun, options) -> None:
        if options["progress_lines"]:
            reporter = ProgressLines(PROGRESS_PREFIX, self.stdout)
        else:
            reporter = ProgressBar(self.stderr, label=f"run #{run.pk}", quiet=options["verbosity"] == 0)
        try:
            summary = eval_run_execute(run=run, reporter=reporter, device=options["device"])
        except KeyboardInterrupt:
            reporter.close()
            raise CommandError(f"run #{run.pk} stopped; its stored episodes stay: resume with --run {run.pk}") from None
        reporter.close()
        self._report(run, summary)

    def _report(self, run: EvalRun, summary: dict) -> None:
        run.refresh_from_db()
        if run.status == EvalRun.Status.FAILED:
            raise CommandError(f"run #{run.pk} failed: {run.error}")
        overall = summary["overall"]
        write = self.stdout.write
        write(self.style.SUCCESS(f"run #{run.pk}: {summary['episodes']} episode(s), {overall['tasks']} task(s)"))
        axes = ("success",) if run.benchmark == "bfcl" else ("response", "environment", "action", "success")
        for name, group in sorted(summary.get("categories", {}).items()) if run.benchmark == "bfcl" else ():
            write(f"  {name:<24} {group['success']['value']:.3f}  ({group['episodes']} episode(s))")
        for axis in axes:
            estimate = overall[axis]
            write(f"  {axis:<12} {estimate['value']:.3f}  [{estimate['low']:.3f}, {estimate['high']:.3f}]")
        for k, estimate in overall["pass_at"].items():
            hat = overall["pass_hat"][k]
            write(
                f"  pass@{k} {estimate['value']:.3f} [{estimate['low']:.3f}, {estimate['high']:.3f}]  "
                f"pass^{k} {hat['value']:.3f} [{hat['low']:.3f}, {hat['high']:.3f}]"
            )
