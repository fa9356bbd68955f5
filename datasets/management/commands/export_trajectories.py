"""Export trajectories as OpenAI chat JSONL and a Hugging Face datasets folder, split by chain template."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from datasets.models import Trajectory
from datasets.services import SynthesisError, trajectories_export


class Command(BaseCommand):
    help = "Write OUT/openai/*.jsonl, OUT/hf/ (data/*.jsonl + README.md) and OUT/manifest.json."

    def add_arguments(self, parser):
        parser.add_argument("out", type=Path, help="folder to write (created; files in it are replaced)")
        parser.add_argument(
            "--status",
            action="append",
            choices=[s for s in Trajectory.Status.values if s != "filtered"],
            help="only these statuses (default: pending review and approved)",
        )
        parser.add_argument("--run", type=int, action="append", dest="runs", help="only these synthesis runs")
        parser.add_argument("--validation", type=float, default=0.1, help="validation share by template (default 0.1)")
        parser.add_argument("--seed", default="0", help="split seed")
        parser.add_argument("--name", default="KOPA EDGE trajectories", help="dataset name on the card")

    def handle(self, *args, out, status, runs, validation, seed, name, **options):
        statuses = status or [Trajectory.Status.PENDING_REVIEW, Trajectory.Status.APPROVED]
        queryset = Trajectory.objects.filter(status__in=statuses)
        if runs:
            queryset = queryset.filter(run_id__in=runs)
        if not 0 <= validation < 1:
            raise CommandError("--validation must be in [0, 1)")
        try:
            report = trajectories_export(trajectories=queryset, folder=out, validation=validation, seed=seed, name=name)
        except SynthesisError as exc:
            raise CommandError(str(exc)) from None
        for path in sorted(report.files):
            self.stdout.write(f"wrote {out / path}")
        self.stdout.write(
            self.style.SUCCESS(
                f"{report.counts['train']} train ({report.templates['train']} templates), "
                f"{report.counts['validation']} validation ({report.templates['validation']} templates)"
            )
        )
