"""The commands: synthesize (a run with a progress bar) and export_trajectories (OpenAI JSONL + HF folder)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from datasets.models import SynthesisRun, Trajectory

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_synthesize_runs_with_a_progress_bar_and_export_writes_the_folders(snapshot, tmp_path):
    out, err = run("synthesize", "--count", "3", "--max-length", "3", "--seed", "4", "--junctions", "SEQ,FAN,SEM,DRV")
    run_row = SynthesisRun.objects.get()
    assert f"run #{run_row.pk} over graph v{snapshot.version}" in out and "3 kept" in out
    assert "synthesize [" in err and run_row.params["junctions"] == ["SEQ", "FAN", "DRV", "SEM"]
    assert json.loads(out.splitlines()[1]).keys() == {"discarded", "failed_filters"}

    target = tmp_path / "export"
    out, _ = run("export_trajectories", str(target), "--validation", "0.3", "--run", str(run_row.pk))
    assert "wrote" in out and (target / "hf" / "README.md").exists() and (target / "manifest.json").exists()
    manifest = json.loads((target / "manifest.json").read_text())
    exported = {i for ids in manifest["ids"].values() for i in ids}
    assert exported == {
        str(pk) for pk in Trajectory.objects.filter(status="pending_review").values_list("pk", flat=True)
    }


def test_commands_refuse_clearly(snapshot, tmp_path):
    with pytest.raises(CommandError, match="no graph snapshot v99"):
        run("synthesize", "--snapshot", "99")
    with pytest.raises(CommandError, match="junctions must be"):
        run("synthesize", "--junctions", "SEQ,LOOP")
    with pytest.raises(CommandError, match="nothing to export"):
        run("export_trajectories", str(tmp_path / "none"))
    with pytest.raises(CommandError, match="--validation"):
        run("export_trajectories", str(tmp_path / "none"), "--validation", "1.5")


def test_trajectory_sample_draws_the_same_items_for_a_seed_and_hides_internals_when_blind(snapshot, tmp_path):
    run("synthesize", "--count", "6", "--max-length", "3", "--seed", "4")
    run_row = SynthesisRun.objects.get()
    kept = set(Trajectory.objects.filter(status="pending_review").values_list("pk", flat=True))
    out, _ = run("trajectory_sample", "-n", "3", "--seed", "9", "--run", str(run_row.pk))
    again, _ = run("trajectory_sample", "-n", "3", "--seed", "9")
    assert out.replace(f"run #{run_row.pk}", "all runs") == again  # one run holds every item: the same draw
    shown = [int(line.split("item ")[1].split()[0]) for line in out.splitlines() if line.startswith("## ")]
    assert len(shown) == 3 and set(shown) <= kept
    assert out.count("**Request:**") == 3 and out.count("**Answer:**") == 3 and "**Chain length:**" in out
    assert "need `" in out
    target = tmp_path / "sample.md"
    blind, _ = run("trajectory_sample", "-n", "50", "--seed", "9", "--blind", "--out", str(target))
    text = target.read_text(encoding="utf-8")
    assert f"wrote {len(kept)} items" in blind and "need `" not in text and text.count("**Request:**") == len(kept)


def test_trajectory_sample_refuses_clearly(db, tmp_path):
    with pytest.raises(CommandError, match="no kept trajectories"):
        run("trajectory_sample")
    with pytest.raises(CommandError, match="no synthesis run #99"):
        run("trajectory_sample", "--run", "99")
    with pytest.raises(CommandError, match="--count must be at least 1"):
        run("trajectory_sample", "-n", "0")
