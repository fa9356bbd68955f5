"""A verification run's page lists its parameters by name, not as a Python dict (issue 18)."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_a_verification_run_lists_its_parameters(client_as, annotator, graph_data):
    run = graph_data.run
    html = client_as(annotator).get(reverse("graphs:run", args=[run.pk])).content.decode()
    assert "{&#x27;" not in html and "{'" not in html
    assert '<ul class="params">' in html
    assert f"<li><code>rounds</code> {run.params['rounds']}</li>" in html and "<li><code>seed</code> 1</li>" in html
