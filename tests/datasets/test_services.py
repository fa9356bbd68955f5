"""Synthesis runs as services on the sandbox: checked parameters, stored trajectories with provenance, seeded
reproducibility, dedupe across runs, the LLM writer and judge (and the templates standing in when they fail),
re-filtering after an edit, exports, and the edge.synthesize job."""

from __future__ import annotations

import json

import pytest

from apis.models import ApiCall, Tool
from datasets.models import SynthesisRun, Trajectory, TrajectoryCall
from datasets.services import (
    SynthesisError,
    dataset_usage,
    synthesis_run_create,
    synthesis_run_execute,
    synthesis_run_start,
    tool_metas,
    trajectories_export,
    trajectory_refilter,
)
from graphs.engine.graph import from_node_link
from graphs.engine.walk import WalkConfig, Walker
from kopa_site.jobs import JobCancelled
from kopa_site.models import Job
from kopa_site.progress import QuietReporter
from tests.support.openai_stub_server import StubServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def _run(snapshot, **params) -> SynthesisRun:
    run = synthesis_run_create(params={"seed": 7, "max_length": 3, "strategy": "coverage", **params}, snapshot=snapshot)
    synthesis_run_execute(run=run)
    run.refresh_from_db()
    return run


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"colour": "red"}, "unknown parameter"),
        ({"junctions": ["SEQ", "LOOP"]}, "junctions must be"),
        ({"min_length": 4, "max_length": 2}, "min_length must not exceed"),
        ({"count": 0}, "count must be"),
        ({"strategy": "dfs"}, "strategy must be"),
        ({"mode": "psychic"}, "mode must be"),
        ({"generator": "llm"}, "KOPA_SYNTH_LLM_URL"),
    ],
)
def test_bad_parameters_are_refused_and_nothing_is_stored(snapshot, params, message):
    with pytest.raises(SynthesisError, match=message):
        synthesis_run_create(params=params, snapshot=snapshot)
    assert not SynthesisRun.objects.exists()


def test_without_a_snapshot_there_is_nothing_to_walk(db, on_sandbox):
    with pytest.raises(SynthesisError, match="no graph snapshot"):
        synthesis_run_create(params={})


def test_a_run_stores_trajectories_with_steps_calls_and_provenance(snapshot, catalog):
    run = _run(snapshot, count=3, junctions="SEQ,FAN,SEM")
    assert run.status == "finished" and run.params["junctions"] == ["SEQ", "FAN", "SEM"]
    counters = run.counters
    assert counters["kept"] == 3 and counters["attempts"] == counters["planned"] + counters["discarded"].get(
        "walk.no_plan", 0
    )
    assert counters["generators"] == {"template": 3 + counters["filtered"]}
    # a chain of two or more steps, so it carries the edges that link them
    trajectory = next(
        t for t in Trajectory.objects.filter(run=run, status="pending_review").order_by("pk") if t.steps.count() > 1
    )
    calls = list(trajectory.calls.select_related("step", "api_call"))
    assert [c.seq for c in calls] == list(range(1, len(calls) + 1))
    assert all(c.api_call.source_kind == "synthesis" and c.api_call.tool_id == c.step.tool_id for c in calls)
    assert trajectory.tool_names == list(dict.fromkeys(c.tool_name for c in calls))
    assert [s["function"]["name"] for s in trajectory.schemas] == trajectory.tool_names
    assert trajectory.clock == "2026-11-18T14:20:00+09:00" and trajectory.mode == "sandbox"
    assert trajectory.snapshot_id == snapshot.pk and trajectory.edges.exists()
    assert trajectory.junction_tags.startswith(",") and trajectory.dedupe_key
    assert run.diversity["items"] == 3 and set(run.diversity["junctions"]) <= {"SEQ", "FAN", "SEM", "(none)"}
    assert ApiCall.objects.filter(source_kind="synthesis").count() == counters["calls"]


def test_the_same_seed_gives_the_same_trajectories(snapshot):
    def contents(run):
        return [
            (t.template_id, t.request, [c.arguments for c in t.calls.all()])
            for t in Trajectory.objects.filter(run=run).order_by("attempt")
        ]

    first = contents(_run(snapshot, count=3))
    Trajectory.objects.all().delete()
    assert contents(_run(snapshot, count=3)) == first


def test_duplicates_across_runs_are_counted_not_stored(snapshot):
    _run(snapshot, count=3, max_length=1, min_length=1, strategy="random")
    second = _run(snapshot, count=3, max_length=1, min_length=1, max_attempts=15, strategy="random")
    assert second.counters["duplicates"] > 0
    keys = list(Trajectory.objects.values_list("dedupe_key", flat=True))
    assert len(keys) == len(set(keys))


def _writer_and_judge(body):
    system = body["messages"][0]["content"]
    brief = json.loads(body["messages"][1]["content"])
    if "작성자" in system:
        return {
            "content": json.dumps(
                {"request": brief["draft_request"], "answer": brief["draft_answer"]}, ensure_ascii=False
            )
        }
    return {"content": '{"pass": true, "reason": "자연스럽다"}'}


def test_the_llm_writes_and_judges_when_configured(snapshot, settings):
    with StubServer(model_name="stub-writer", policy=_writer_and_judge) as llm:
        settings.KOPA_SYNTH = {"llm_url": llm.url, "llm_model": "stub-writer", "llm_key": "", "judge_model": ""}
        run = _run(snapshot, count=2)
    stored = Trajectory.objects.filter(run=run)
    assert stored.count() == 2 and run.counters["generators"] == {"llm": 2}
    for trajectory in stored:
        assert trajectory.generator == "llm" and trajectory.generator_model == "stub-writer"
        assert trajectory.filters["semantic"]["by"] == "llm:stub-writer"
    assert any("작성자" in r["messages"][0]["content"] for r in llm.requests)


def test_templates_and_rules_stand_in_when_the_llm_fails(snapshot, settings):
    with StubServer(model_name="stub-writer", fail_first=10_000) as llm:
        settings.KOPA_SYNTH = {"llm_url": llm.url, "llm_model": "stub-writer", "llm_key": "", "judge_model": ""}
        run = _run(snapshot, count=1)
    trajectory = Trajectory.objects.get(run=run, status="pending_review")
    assert trajectory.generator == "template" and "LLM writer failed" in trajectory.generator_note
    assert trajectory.filters["semantic"]["by"].startswith("rules (the judge failed")
    assert run.counters["llm_errors"] >= 2


def test_refiltering_an_edited_trajectory_moves_it_between_pending_and_filtered(snapshot):
    run = _run(snapshot, count=1, min_length=2)
    trajectory = Trajectory.objects.get(run=run, status="pending_review")
    leaked = trajectory.facts["intermediate"][0]
    original = trajectory.request
    trajectory.request = f"{original} ({leaked})"
    trajectory.save()
    trajectory_refilter(trajectory=trajectory)
    assert trajectory.status == "filtered" and trajectory.failed_stage == "semantic"
    trajectory.request = original
    trajectory.save()
    trajectory_refilter(trajectory=Trajectory.objects.prefetch_related("calls__step").get(pk=trajectory.pk))
    assert Trajectory.objects.get(pk=trajectory.pk).status == "pending_review"


def test_the_export_service_leaves_filtered_trajectories_out(snapshot, tmp_path):
    run = _run(snapshot, count=4)
    Trajectory.objects.filter(pk=Trajectory.objects.filter(run=run).first().pk).update(status="filtered")
    report = trajectories_export(
        trajectories=Trajectory.objects.all(), folder=tmp_path / "out", validation=0.25, seed=1
    )
    assert sum(report.counts.values()) == Trajectory.objects.exclude(status="filtered").count()
    lines = (tmp_path / "out" / "openai" / "train.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    assert record["messages"][1]["role"] == "user" and record["tools"]
    with pytest.raises(SynthesisError, match="nothing to export"):
        trajectories_export(trajectories=Trajectory.objects.none(), folder=tmp_path / "none")


def test_the_job_runs_the_run_and_reports_progress(snapshot, reviewer, django_capture_on_commit_callbacks):
    run = synthesis_run_create(params={"count": 2, "seed": 1, "max_length": 2}, snapshot=snapshot, user=reviewer)
    with django_capture_on_commit_callbacks(execute=True):
        job = synthesis_run_start(run=run, user=reviewer)
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.kind == "edge.synthesize" and job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["run"] == run.pk and job.result["kept"] == 2 and job.progress_done == 2
    assert run.status == "finished" and run.job_id == job.pk
    with pytest.raises(SynthesisError, match="has finished; start a new run"):
        synthesis_run_start(run=run, user=reviewer)
    assert TrajectoryCall.objects.filter(trajectory__run=run).exists()


def test_coverage_runs_favour_what_the_dataset_lacks(snapshot):
    first = _run(snapshot, count=3)
    graph = from_node_link(snapshot.node_link)
    usage = dataset_usage(graph)
    stored = Trajectory.objects.filter(run=first)
    assert sum(usage.tools.values()) == sum(len(t.plan["steps"]) for t in stored)
    assert sum(usage.junctions.values()) == sum(len(t.junctions) for t in stored)
    used = {step["tool"] for t in stored for step in t.plan["steps"]}
    tools = tool_metas(Tool.objects.filter(pk__in=list(graph.nodes)).select_related("service__provider"))
    walker = Walker(graph, tools, WalkConfig(strategy="coverage", min_length=1, max_length=1), seed=1, usage=usage)
    fresh = [walker.next_plan().steps[0].tool for _ in range(3)]
    assert not set(fresh) & used


def test_a_cancelled_run_stops_and_keeps_what_it_stored(snapshot):
    class CancelAfterOneBatch(QuietReporter):
        checks = 0

        def check_cancelled(self):
            self.checks += 1
            if self.checks == 2:
                raise JobCancelled()

    run = synthesis_run_create(params={"count": 50, "seed": 1, "concurrency": 2, "max_length": 2}, snapshot=snapshot)
    with pytest.raises(JobCancelled):
        synthesis_run_execute(run=run, reporter=CancelAfterOneBatch())
    run.refresh_from_db()
    assert run.status == "stopped" and not run.error and run.finished_at
    assert (
        run.counters["attempts"] == 4
        and Trajectory.objects.filter(run=run).count() == run.counters["kept"] + run.counters["filtered"]
    )
    with pytest.raises(SynthesisError, match="not pending"):
        synthesis_run_execute(run=run)
