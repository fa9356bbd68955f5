"""Fixtures of the EDGE graph tests: the bundled catalog, quick executor settings on the session sandbox,
and helpers that name edges by (source tool, field, target tool, parameter, transform)."""

from __future__ import annotations

import pytest

from apis.models import Tool
from apis.services import catalog_import_bundled
from graphs.models import CandidateEdge
from graphs.services import edge_create

EXECUTOR = {
    "timeout_s": 10.0,
    "max_attempts": 3,
    "base_delay_s": 0.01,
    "max_delay_s": 0.02,
    "concurrency": 8,
    "record_target": "sandbox",
    "body_cap_bytes": 2_000_000,
    "sandbox_headers": {},
}


@pytest.fixture
def catalog(db):
    catalog_import_bundled()
    return {tool.function_name: tool for tool in Tool.objects.select_related("service__provider")}


@pytest.fixture
def executor_settings(settings, sandbox_server_url):
    settings.KOPA_SANDBOX_ORIGIN = sandbox_server_url
    settings.KOPA_EXECUTOR = dict(EXECUTOR)
    return settings


def find_edge(source: str, field: str, target: str, param: str, transform: str = "identity") -> CandidateEdge:
    found = CandidateEdge.objects.filter(
        source_tool__function_name=source,
        source_field=field,
        target_tool__function_name=target,
        target_param=param,
        transform=transform,
    ).first()
    if found is None:
        rivals = CandidateEdge.objects.filter(target_tool__function_name=target, target_param=param)
        listed = "\n".join(f"  {e} score {e.score}" for e in rivals)
        raise AssertionError(f"no candidate {source}.{field} -> {target}.{param} [{transform}]; proposed:\n{listed}")
    return found


def plant(catalog, source: str, field: str, target: str, param: str, transform: str = "identity", score: float = 0.7):
    """A false candidate that looks plausible (a high score), added as a reviewer would."""
    return edge_create(
        source_tool=catalog[source],
        source_field=field,
        target_tool=catalog[target],
        target_param=param,
        transform=transform,
        score=score,
        note="planted false candidate",
    )


@pytest.fixture
def graph_data(catalog):
    """Three edges (verified, pruned, proposed), a finished run with trials and their calls; no sandbox needed."""
    from types import SimpleNamespace

    from apis.models import ApiCall
    from graphs.models import EdgeTrial, VerificationRun
    from graphs.services import RUN_DEFAULTS

    regions, trade = catalog["get_stan_regin_cd_list"], catalog["get_rtms_data_svc_apt_trade"]
    population = catalog["select_stdg_ppltn_hh_stus"]
    verified = edge_create(
        source_tool=regions,
        source_field="region_cd",
        target_tool=trade,
        target_param="LAWD_CD",
        transform="slice:0:5",
        score=0.8,
        proposer="rules",
    )
    pruned = edge_create(
        source_tool=regions, source_field="region_cd", target_tool=trade, target_param="LAWD_CD", score=0.6
    )
    proposed = edge_create(
        source_tool=regions, source_field="region_cd", target_tool=population, target_param="stdgCd", score=0.7
    )
    run = VerificationRun.objects.create(
        params={**RUN_DEFAULTS, "seed": 1},
        status=VerificationRun.Status.FINISHED,
        state={"round": 2},
        counters={"trials": 3, "main": {"success": 1, "structural": 1}, "control": {"success": 1}, "calls": 4},
    )
    source = ApiCall.objects.create(tool=regions, mode="sandbox", request_hash="a" * 64, ok=True, record_count=10)
    target = ApiCall.objects.create(tool=trade, mode="sandbox", request_hash="b" * 64, ok=True, record_count=10)
    failed = ApiCall.objects.create(
        tool=trade, mode="sandbox", request_hash="c" * 64, error_class="struct.invalid_param", result_msg="bad LAWD_CD"
    )
    EdgeTrial.objects.create(
        edge=verified,
        run=run,
        seq=0,
        kind="main",
        outcome="success",
        source_call=source,
        target_call=target,
        values={"source_values": {"region_cd": "1111000000"}, "bound": {"LAWD_CD": "11110"}},
        alpha_delta=1.0,
    )
    EdgeTrial.objects.create(
        edge=verified,
        run=run,
        seq=1,
        kind="control",
        outcome="success",
        source_call=source,
        target_call=failed,
        values={"bound": {"LAWD_CD": "16665"}},
    )
    EdgeTrial.objects.create(
        edge=pruned,
        run=run,
        seq=0,
        kind="main",
        outcome="structural",
        failure_class="struct.invalid_param",
        source_call=source,
        target_call=failed,
        values={"bound": {"LAWD_CD": "1111000000"}},
        beta_delta=1.0,
    )
    CandidateEdge.objects.filter(pk=verified.pk).update(
        status="verified", alpha=6.8, beta=1.2, posterior_mean=0.85, trials_success=5, controls_passed=1
    )
    CandidateEdge.objects.filter(pk=pruned.pk).update(
        status="pruned", alpha=1.6, beta=6.4, posterior_mean=0.2, trials_structural=5
    )
    return SimpleNamespace(verified=verified, pruned=pruned, proposed=proposed, run=run, source=source, target=target)
