"""The review console's text search and tag filters are LIKE '%…%'; on PostgreSQL GIN trigram indexes (migration
0003) answer them, and the planner uses them; SQLite has no such index type and keeps scanning."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from datasets.filtersets import TrajectoryFilterSet
from datasets.models import Trajectory

pytestmark = pytest.mark.django_db

INDEXES = importlib.import_module("datasets.migrations.0003_trajectory_search_trigram").INDEXES


def _indexes() -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'datasets_trajectory'")
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'datasets_trajectory'")
        return {row[0] for row in cursor.fetchall()}


def test_the_trigram_indexes_exist_on_postgresql_only():
    wanted = {name for name, _expression in INDEXES}
    if connection.vendor == "postgresql":
        assert wanted <= _indexes()
    else:
        assert not wanted & _indexes()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="trigram indexes are PostgreSQL's")
@pytest.mark.parametrize(
    "params, index",
    [
        ({"q": "visitkorea"}, "datasets_traj_request_trgm"),
        ({"provider": "kosis"}, "datasets_traj_providers_trgm"),
        ({"tool": "tool_7"}, "datasets_traj_tools_trgm"),
    ],
)
def test_the_planner_answers_search_and_filters_from_them(params, index):
    # Unordered, as the page count asks it (the page itself may walk the created-at index instead).
    queryset = TrajectoryFilterSet(params, queryset=Trajectory.objects.all()).qs.order_by()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # an empty test table: only say whether the index fits
        plan = queryset.explain()
    assert index in plan
