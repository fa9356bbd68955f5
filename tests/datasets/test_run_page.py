"""A synthesis run's page: its parameters as name and value, discard examples escaped once (issue 18)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from datasets.models import SynthesisRun

pytestmark = pytest.mark.django_db


def test_a_run_page_lists_its_parameters_and_escapes_discard_examples_once(client_as, annotator):
    long_tail = "값 " * 200
    run = SynthesisRun.objects.create(
        status=SynthesisRun.Status.FINISHED,
        params={"count": 6, "strategy": "typed", "junctions": ["chain", "fan_out"], "seed": 1, "llm": None},
        counters={
            "kept": 2,
            "discarded": {"empty_result": 3},
            # An example with quotes and markup, long enough to be cut: cutting after escaping split `&#x27;`.
            "samples": {"empty_result": ["#1 'get_x' <b>없음</b> & more " + long_tail, "#2 '두 번째'"]},
        },
    )
    html = client_as(annotator).get(reverse("datasets:run", args=[run.pk])).content.decode()

    assert "{'count'" not in html and "&#x27;count&#x27;" not in html  # no Python dict
    assert '<ul class="params"><li><code>count</code> 6</li>' in html
    assert "<li><code>junctions</code> chain, fan_out</li>" in html and "<li><code>llm</code> –</li>" in html
    examples = html.split("<code>empty_result</code>", 1)[1].split("</tr>", 1)[0]
    assert "&#x27;get_x&#x27; &lt;b&gt;없음&lt;/b&gt; &amp; more" in examples
    assert "&amp;#x" not in examples and "&amp;lt;" not in examples and "&amp;amp;" not in examples
    assert "<b>" not in examples
    assert "…" in examples and len(examples) < 600  # cut to 240 characters, then escaped


def test_an_empty_run_list_tells_an_annotator_who_starts_runs(client_as, annotator, reviewer):
    html = client_as(annotator).get(reverse("datasets:index")).content.decode()
    assert "No synthesis runs yet" in html and "A reviewer or an admin starts synthesis runs" in html
    assert "Start one above" not in html
    html = client_as(reviewer).get(reverse("datasets:index")).content.decode()
    assert "Start one above" in html and "Start a synthesis run" in html
