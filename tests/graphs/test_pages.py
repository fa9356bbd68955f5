"""The EDGE graph pages: the network with its filters, the edge list (htmx), an edge's trials, runs, snapshots."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from graphs.models import GraphSnapshot, VerificationRun
from kopa_site.models import Job

pytestmark = pytest.mark.django_db


def _edge(edge) -> str:
    return reverse("graphs:edge", args=[edge.pk])


def _figure(response, name: str) -> dict:
    html = response.content.decode()
    start = html.index(f'id="{name}"')
    body = html[html.index(">", start) + 1 : html.index("</script>", start)]
    return json.loads(body)


def test_the_network_draws_edges_as_clickable_markers_with_the_numbers_in_tables(client_as, annotator, graph_data):
    response = client_as(annotator).get(reverse("graphs:index"), {"status": ["verified", "pruned"]})
    assert response.status_code == 200
    figure = _figure(response, "network-data")
    urls = [url for trace in figure["data"] for url in trace.get("customdata") or []]
    assert reverse("graphs:edge", args=[graph_data.verified.pk]) in urls
    assert reverse("graphs:edge", args=[graph_data.pruned.pk]) in urls
    assert f"{reverse('graphs:edges')}?tool={graph_data.verified.source_tool_id}" in urls
    html = response.content.decode()
    assert "<figure>" in html and "figcaption" in html and 'src="/static/vendor/plotly.min.js"' in html
    assert "Candidates by status" in html and "before (all tried)" in html


def test_the_network_filters_by_provider_and_status(client_as, annotator, graph_data):
    verified_only = client_as(annotator).get(reverse("graphs:index"), {"status": "verified"})
    urls = [u for t in _figure(verified_only, "network-data")["data"] for u in t.get("customdata") or []]
    assert reverse("graphs:edge", args=[graph_data.pruned.pk]) not in urls
    elsewhere = client_as(annotator).get(reverse("graphs:index"), {"status": "verified", "provider": "kosis.kr"})
    assert "No edge matches" in elsewhere.content.decode()


def test_an_empty_graph_says_what_to_do(client_as, annotator, db):
    assert "No candidate edges yet" in client_as(annotator).get(reverse("graphs:index")).content.decode()


def test_pages_need_a_role(client_as, outsider, client, graph_data):
    assert client_as(outsider).get(reverse("graphs:edges")).status_code == 403
    assert client.get(reverse("graphs:index")).status_code == 302


def test_the_edge_list_filters_sorts_and_swaps_its_table_with_htmx(client_as, annotator, graph_data):
    browser = client_as(annotator)
    page = browser.get(reverse("graphs:edges"), {"status": "pruned"})
    html = page.content.decode()
    assert _edge(graph_data.pruned) in html and _edge(graph_data.verified) not in html
    ordered = browser.get(reverse("graphs:edges"), {"order": "-posterior"}).content.decode()
    assert ordered.index(_edge(graph_data.pruned)) < ordered.index(_edge(graph_data.verified))
    partial = browser.get(reverse("graphs:edges"), {"q": "stdgCd"}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and _edge(graph_data.proposed) in partial
    assert _edge(graph_data.verified) not in partial


def test_an_edge_page_lists_every_trial_with_calls_values_and_outcome(client_as, annotator, graph_data):
    html = client_as(annotator).get(reverse("graphs:edge", args=[graph_data.verified.pk])).content.decode()
    assert "slice:0:5" in html and "characters [start:stop]" in html
    assert "LAWD_CD=11110" in html and "LAWD_CD=16665" in html and "region_cd=1111000000" in html
    assert reverse("apis:call", args=[graph_data.source.pk]) in html
    assert reverse("apis:call", args=[graph_data.target.pk]) in html
    assert "posterior-data" in html and "outcome-success" in html
    pruned = client_as(annotator).get(reverse("graphs:edge", args=[graph_data.pruned.pk])).content.decode()
    assert "struct.invalid_param" in pruned


def test_runs_and_their_counters(client_as, annotator, graph_data):
    assert f"#{graph_data.run.pk}" in client_as(annotator).get(reverse("graphs:runs")).content.decode()
    html = client_as(annotator).get(reverse("graphs:run", args=[graph_data.run.pk])).content.decode()
    assert "Trials by outcome" in html and "Resume" not in html  # annotators cannot resume; it finished anyway


def test_reviewers_start_runs_annotators_cannot_and_bad_numbers_start_nothing(
    client_as, annotator, reviewer, graph_data
):
    assert client_as(annotator).post(reverse("graphs:run_start"), {"rounds": "3"}).status_code == 403
    response = client_as(reviewer).post(reverse("graphs:run_start"), {"rounds": "3", "batch_size": "5"})
    run = VerificationRun.objects.exclude(pk=graph_data.run.pk).get()
    assert response.status_code == 302 and response["Location"] == reverse("graphs:run", args=[run.pk])
    assert run.params["rounds"] == 3 and run.job.kind == "edge.verify"
    bad = client_as(reviewer).post(reverse("graphs:run_start"), {"rounds": "many"}, follow=True)
    assert "rounds must be a whole number" in bad.content.decode()
    assert VerificationRun.objects.count() == 2


def test_reviewers_propose_and_snapshot_from_the_pages(client_as, reviewer, graph_data):
    browser = client_as(reviewer)
    response = browser.post(reverse("graphs:propose"), {"probe": "on"})
    job = Job.objects.get(kind="edge.propose")
    assert response["Location"] == reverse("jobs:detail", args=[job.pk]) and job.params == {"probe": True}
    taken = browser.post(reverse("graphs:snapshot_take"), {"note": "after run 1"})
    snap = GraphSnapshot.objects.get()
    assert taken["Location"] == reverse("graphs:snapshot", args=[snap.pk])
    html = browser.get(taken["Location"]).content.decode()
    assert "after run 1" in html and "Chain lengths" in html and "refinement-data" in html
    graphml = browser.get(reverse("graphs:snapshot_download", args=[snap.pk, "graphml"]))
    assert graphml["Content-Type"].startswith("application/graphml+xml")
    assert browser.get(reverse("graphs:snapshot_download", args=[snap.pk, "csv"])).status_code == 404
    assert "v1" in browser.get(reverse("graphs:snapshots")).content.decode()


def test_an_edge_page_shows_the_domains_of_both_ends_and_what_decided_each_trial(client_as, annotator, graph_data):
    from graphs.models import EdgeTrial

    main = EdgeTrial.objects.get(edge=graph_data.verified, kind="main")
    main.values = {
        **main.values,
        "checks": {"consistency": {"verdict": "consistent", "detail": "A and B agree on sgg5"}},
    }
    main.save()
    html = client_as(annotator).get(_edge(graph_data.verified)).content.decode()
    assert "Domains" in html and "<code>bjd10</code>" in html and "<code>sgg5</code>" in html
    assert "consistent</strong> – A and B agree on sgg5" in html
    # A control's success is said for what it is: the control held.
    assert "control held: another valid value changed B&#x27;s result" in html
    assert "specificity control" in html and "Confusion controls" in html


def test_the_network_filters_by_domain_and_keeps_echoes_out_of_the_default_view(client_as, annotator, graph_data):
    from graphs.models import CandidateEdge

    browser = client_as(annotator)
    html = browser.get(reverse("graphs:index")).content.decode()
    assert '<option value="sgg5"' in html and '<option value="bjd10"' in html
    by_domain = browser.get(reverse("graphs:index"), {"status": ["verified", "proposed"], "domain": "sgg5"})
    urls = [u for t in _figure(by_domain, "network-data")["data"] for u in t.get("customdata") or []]
    assert _edge(graph_data.verified) in urls and _edge(graph_data.proposed) not in urls  # stdgCd is bjd10
    CandidateEdge.objects.filter(pk=graph_data.verified.pk).update(status="echo", reason="returns its input")
    default = browser.get(reverse("graphs:index")).content.decode()
    assert _edge(graph_data.verified) not in default and "No edge matches" in default


def test_a_running_run_refreshes_itself_and_offers_no_resume_until_its_job_stops(client_as, reviewer, graph_data):
    run = graph_data.run
    job = Job.objects.create(kind="edge.verify", params={"run_id": run.pk}, status="running")
    VerificationRun.objects.filter(pk=run.pk).update(status="running", job=job, finished_at=None)
    browser = client_as(reviewer)
    page = browser.get(reverse("graphs:run", args=[run.pk])).content.decode()
    assert f'hx-get="{reverse("graphs:run_live", args=[run.pk])}"' in page and 'hx-trigger="every 2s"' in page
    assert "Resume" not in page
    live = browser.get(reverse("graphs:run_live", args=[run.pk])).content.decode()
    assert "<html" not in live and "Trials by outcome" in live
    Job.objects.filter(pk=job.pk).update(status="failed")
    VerificationRun.objects.filter(pk=run.pk).update(status="stopped")
    stopped = browser.get(reverse("graphs:run_live", args=[run.pk])).content.decode()
    assert "hx-trigger" not in stopped and "Resume" in stopped


def test_the_network_places_each_provider_in_a_column_so_no_label_sits_on_another():
    from types import SimpleNamespace

    import networkx as nx

    from graphs.selectors import GRID_COLUMNS, _provider_grid

    def tool(name, provider):
        return SimpleNamespace(
            function_name=name, service=SimpleNamespace(provider=SimpleNamespace(display_name=provider))
        )

    tools = {i: tool(f"t{i:02d}", f"p{i % 6}") for i in range(40)}
    graph = nx.DiGraph()
    graph.add_edges_from((i, (i * 7 + 3) % 40) for i in range(40))
    positions, blocks = _provider_grid(graph, tools)
    assert len(positions) == 40 and len(blocks) == 6
    assert len(set(positions.values())) == 40  # one line per tool: no two share a spot
    for provider in {t.service.provider.display_name for t in tools.values()}:
        columns = {positions[n][0] for n, t in tools.items() if t.service.provider.display_name == provider}
        assert len(columns) == 1 and min(columns) < GRID_COLUMNS
    # Each title sits above its own column.
    for provider, (x, y) in blocks.items():
        ys = [positions[n][1] for n, t in tools.items() if t.service.provider.display_name == provider]
        assert max(ys) < y and {
            positions[n][0] for n, t in tools.items() if t.service.provider.display_name == provider
        } == {x}
