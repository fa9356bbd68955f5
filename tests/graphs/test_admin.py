"""The admin's change lists: no two filters of a list share a title (issue 18: edges had two "provider")."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_no_change_list_has_two_filters_with_one_title(client_as, admin_user, graph_data):
    client = client_as(admin_user)
    checked = 0
    for model, model_admin in admin.site._registry.items():
        if not model_admin.list_filter:
            continue
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        html = client.get(url).content.decode()
        titles = re.findall(r'data-filter-title="([^"]*)"', html)
        assert len(set(titles)) == len(titles), f"{url}: {titles}"
        checked += 1
    assert checked >= 10


def test_edges_filter_by_source_and_by_target_provider(client_as, admin_user, graph_data):
    html = client_as(admin_user).get(reverse("admin:graphs_candidateedge_changelist")).content.decode()
    titles = re.findall(r'data-filter-title="([^"]*)"', html)
    assert "source provider" in titles and "target provider" in titles and "provider" not in titles
