"""Print N random kept trajectories (of one synthesis run, or of all) as Markdown for judging."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from datasets.engine.sample import draw, markdown
from datasets.models import SynthesisRun, Trajectory

KEPT = (Trajectory.Status.PENDING_REVIEW, Trajectory.Status.APPROVED)


class Command(BaseCommand):
    help = (
        "N kept trajectories drawn at random (--seed) as Markdown: request, each call with its arguments and a "
        "compact observation, the answer, the chain length and the need id (left out with --blind)."
    )

    def add_arguments(self, parser):
        parser.add_argument("-n", "--count", type=int, default=40, help="items to draw (default 40)")
        parser.add_argument("--seed", default="0", help="the draw's seed (the same seed draws the same items)")
        parser.add_argument("--run", type=int, help="only this synthesis run (default: every run)")
        parser.add_argument("--blind", action="store_true", help="leave out the need id (for an outside judge)")
        parser.add_argument("--out", type=Path, help="write the Markdown here instead of printing it")

    def handle(self, *args, count, seed, run, blind, out, **options):
        if count < 1:
            raise CommandError("--count must be at least 1")
        kept = Trajectory.objects.filter(status__in=KEPT)
        if run is not None:
            if not SynthesisRun.objects.filter(pk=run).exists():
                raise CommandError(f"no synthesis run #{run}")
            kept = kept.filter(run_id=run)
        ids = draw(list(kept.values_list("pk", flat=True)), count, seed)
        if not ids:
            raise CommandError("no kept trajectories to draw from")
        rows = {t.pk: t for t in Trajectory.objects.filter(pk__in=ids).prefetch_related("calls__step")}
        items = [
            {
                "id": pk,
                "request": rows[pk].request,
                "answer": rows[pk].answer,
                "length": rows[pk].length,
                "need": (rows[pk].facts or {}).get("need") or rows[pk].template_id,
                "facts": rows[pk].facts or {},
                "calls": [
                    {
                        "seq": c.seq,
                        "step": c.step.index,
                        "tool_name": c.tool_name,
                        "arguments": c.arguments,
                        "observation": c.observation,
                        "bindings": c.bindings,
                    }
                    for c in rows[pk].calls.all()
                ],
            }
            for pk in ids
        ]
        scope = f"run #{run}" if run is not None else "all runs"
        text = markdown(items, title=f"{len(items)} trajectories of {scope}, seed {seed}", internals=not blind)
        if out:
            out.write_text(text, encoding="utf-8")
            self.stdout.write(f"wrote {len(items)} items to {out}")
        else:
            self.stdout.write(text, ending="")
