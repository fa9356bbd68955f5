"""Writes of the EDGE graph: propose candidates, run verification trials, take snapshots.

Services load rows (reads are graphs.selectors), hand plain data to the engines (graphs/engine/) and store what
comes back. Every trial's calls go through the catalog's executor service (apis.services.tool_execute_submit), so
each one leaves an ApiCall with source_kind "edge_trial". A verification run is resumable: each round's plan is
stored before it runs, each trial has a deterministic attempt key (run, edge, seq), and a trial's row and its
edge's posterior change are written in one transaction, so a killed worker loses no finished trial and a restart
counts nothing twice.

One module per seam: `errors`, `proposal` (candidates to CandidateEdge rows, the probe, edges by hand),
`domains` (value domains of tools and edges), `verification` (the run's lifecycle), `rounds` (the scheduler of
one round), `trials` (a trial and how it is stored), `snapshots`. Import from `graphs.services`; the names below
are its public surface.
"""

from __future__ import annotations

from graphs.services.errors import EdgeError
from graphs.services.proposal import (
    ProposeReport,
    edge_create,
    edge_reset,
    edges_propose,
    tools_probe,
)
from graphs.services.snapshots import graph_snapshot_create
from graphs.services.verification import (
    RUN_DEFAULTS,
    verification_run_create,
    verification_run_execute,
    verification_run_resume,
    verification_run_start,
)

__all__ = [
    "EdgeError",
    "ProposeReport",
    "edge_create",
    "edge_reset",
    "edges_propose",
    "tools_probe",
    "RUN_DEFAULTS",
    "verification_run_create",
    "verification_run_execute",
    "verification_run_resume",
    "verification_run_start",
    "graph_snapshot_create",
]
