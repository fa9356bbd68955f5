"""Take a snapshot of the verified graph, and optionally write it out as node-link JSON or GraphML."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from graphs.models import VerificationRun
from graphs.selectors import snapshot_export
from graphs.services import graph_snapshot_create
from kopa_site.progress import ProgressBar


class Command(BaseCommand):
    help = "Freeze the verified edges as a new graph version with its statistics."

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, help="the verification run it follows")
        parser.add_argument("--note", default="", help="a short note")
        parser.add_argument("--export", type=Path, help="also write the snapshot to this .json or .graphml file")

    def handle(self, *args, run, note, export, **options):
        bar = ProgressBar(self.stderr, label="snapshot", quiet=options["verbosity"] == 0)
        if export is not None and export.suffix not in (".json", ".graphml"):
            raise CommandError("--export must end in .json or .graphml")
        run_row = None
        if run is not None:
            run_row = VerificationRun.objects.filter(pk=run).first()
            if run_row is None:
                raise CommandError(f"no verification run #{run}")
        bar.progress(0, 1, "building the graph")
        snap = graph_snapshot_create(run=run_row, note=note)
        bar.progress(1, 1, f"version {snap.version}")
        stats = snap.stats
        self.stdout.write(
            f"v{snap.version}: {stats['nodes']} tools, {stats['edges']} links, {stats['bindings']} bindings, "
            f"{stats['components']} component(s), longest chain {stats['longest_chain']}"
        )
        if export is not None:
            body, _, _ = snapshot_export(snap, export.suffix.lstrip("."))
            export.write_text(body, encoding="utf-8")
            self.stdout.write(f"wrote {export}")
        self.stdout.write(self.style.SUCCESS(f"snapshot v{snap.version} taken"))
