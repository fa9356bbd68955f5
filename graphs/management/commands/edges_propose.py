"""Propose candidate edges across the active catalog (optionally probing every tool first)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from graphs.services import EdgeError, edges_propose
from kopa_site.progress import ProgressBar


class Command(BaseCommand):
    help = "Score output-field x input-parameter pairs across the catalog and store the candidate edges."

    def add_arguments(self, parser):
        parser.add_argument("--probe", action="store_true", help="execute every tool with its examples first")
        parser.add_argument("--mode", default="sandbox", help="executor mode for --probe (default sandbox)")
        parser.add_argument("--sandbox-origin", default=None, help="sandbox origin for --probe")
        parser.add_argument("--llm", action="store_true", help="also use the configured LLM scorer (KOPA_EDGE_LLM_*)")
        parser.add_argument("--tool", type=int, action="append", dest="tool_ids", help="limit to these tool ids")

    def handle(self, *args, probe, mode, sandbox_origin, llm, tool_ids, **options):
        bar = ProgressBar(self.stderr, label="propose", quiet=options["verbosity"] == 0)
        try:
            report = edges_propose(
                tool_ids=tool_ids,
                probe=probe,
                mode=mode,
                sandbox_origin=sandbox_origin,
                use_llm=True if llm else None,
                reporter=bar,
            )
        except EdgeError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(report.summary()))
