"""Concurrent edits of one object keep both changes, and an edit made on stale data is refused (issue 17,
point 8): kopa_site.concurrency.save_changed, on a catalog row."""

from __future__ import annotations

import pytest

from apis.models import Provider
from kopa_site.concurrency import StaleEdit, save_changed

pytestmark = pytest.mark.django_db


def test_two_editors_of_different_fields_both_keep_their_change():
    Provider.objects.create(code="p1", name="Before")
    first, second = Provider.objects.get(code="p1"), Provider.objects.get(code="p1")  # both read the same row
    save_changed(first, {"name": "Renamed"})
    save_changed(second, {"rate_limit_per_s": 5.0})
    stored = Provider.objects.get(code="p1")
    assert (stored.name, stored.rate_limit_per_s) == ("Renamed", 5.0)


def test_a_full_save_of_a_stale_copy_is_what_lost_updates():
    Provider.objects.create(code="p2", name="Before")
    first, second = Provider.objects.get(code="p2"), Provider.objects.get(code="p2")
    first.name = "Renamed"
    first.save()
    second.rate_limit_per_s = 5.0
    second.save()  # writes every column back, the old name included
    assert Provider.objects.get(code="p2").name == "Before"


def test_an_edit_made_on_a_stale_version_is_refused_and_nothing_is_written():
    Provider.objects.create(code="p3", name="Before")
    seen = Provider.objects.get(code="p3")
    version = seen.updated_at
    save_changed(Provider.objects.get(code="p3"), {"name": "First"}, expected_version=version)
    with pytest.raises(StaleEdit):
        save_changed(seen, {"name": "Second"}, expected_version=version)
    assert Provider.objects.get(code="p3").name == "First"


def test_unknown_fields_are_refused():
    provider = Provider.objects.create(code="p4", name="x")
    with pytest.raises(ValueError, match="unknown field"):
        save_changed(provider, {"nope": 1})
