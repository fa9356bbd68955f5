"""Load KOPA-Bench task files into Task rows: create, update, restore and retire, idempotently."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from benchmarks.services import TASK_DIR, BenchError, task_files, tasks_sync


class Command(BaseCommand):
    help = "Validate task files (default benchmarks/tasks/) and sync the Task rows with them; reports the diff."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", help="task files or folders (default: benchmarks/tasks/)")
        parser.add_argument(
            "--no-catalog-check", action="store_true", help="do not check tool names against the catalog"
        )

    def handle(self, *args, paths, no_catalog_check, **options):
        if not paths:
            if not task_files(TASK_DIR):
                self.stdout.write(f"skip: no task files in {TASK_DIR}")
                return
            paths = [str(TASK_DIR)]
        missing = [p for p in paths if not Path(p).exists()]
        if missing:
            raise CommandError(f"no such file or folder: {', '.join(missing)}")
        try:
            report = tasks_sync(paths=paths, check_catalog=not no_catalog_check)
        except BenchError as exc:
            raise CommandError(str(exc)) from None
        for label, codes in (
            ("created", report.created),
            ("updated", report.updated),
            ("restored", report.restored),
            ("retired", report.retired),
        ):
            if codes:
                self.stdout.write(f"  {label}: {', '.join(codes)}")
        self.stdout.write(self.style.SUCCESS(f"{report.summary()}; checksum {report.checksum[:12]}"))
