"""The graph commands: propose, verify (new and --resume) with a progress bar, snapshot with an export."""

from __future__ import annotations

import io

import networkx as nx
import pytest
from django.core.management import CommandError, call_command

from graphs.models import CandidateEdge, GraphSnapshot, VerificationRun
from tests.graphs.conftest import find_edge

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_propose_reports_what_it_stored_and_a_rerun_changes_nothing(catalog):
    out, err = run("edges_propose")
    assert "new, 0 updated, 0 unchanged" in out and "propose [" in err
    count = CandidateEdge.objects.count()
    again, _ = run("edges_propose")
    assert f"0 new, 0 updated, {count} unchanged" in again


def test_propose_refuses_an_empty_catalog(db):
    with pytest.raises(CommandError, match="at least two active tools"):
        run("edges_propose")


@pytest.mark.slow
def test_verify_runs_a_small_run_with_a_progress_bar_and_snapshot_exports_it(catalog, executor_settings, tmp_path):
    run("edges_propose")
    edge = find_edge("get_station_by_name", "arsId", "get_station_by_uid", "arsId")
    out, err = run("edges_verify", "--edge", str(edge.pk), "--rounds", "5", "--seed", "3")
    assert "finished" in out and "verify [" in err and "round 1:" in err
    edge.refresh_from_db()
    assert edge.status == "verified"
    assert VerificationRun.objects.get().params["seed"] == "3"

    target = tmp_path / "graph.graphml"
    out, _ = run("graph_snapshot", "--note", "cli", "--export", str(target))
    assert "v1: 2 tools, 1 links, 1 bindings" in out and GraphSnapshot.objects.get().note == "cli"
    assert nx.read_graphml(target).number_of_edges() == 1


def test_verify_and_snapshot_refuse_bad_arguments(catalog, tmp_path):
    with pytest.raises(CommandError, match="no verification run #999"):
        run("edges_verify", "--resume", "999")
    with pytest.raises(CommandError, match="rounds must be"):
        run("edges_verify", "--rounds", "0")
    with pytest.raises(CommandError, match=r"must end in \.json or \.graphml"):
        run("graph_snapshot", "--export", str(tmp_path / "graph.csv"))
    assert GraphSnapshot.objects.count() == 0
