"""Object key order survives a round trip through the database (PostgreSQL's jsonb sorts keys)."""

import pytest

from apis.models import Tool
from kopa_site.fields import mark_order, restore_order


def test_marking_and_restoring_is_lossless():
    value = {"zeta": 1, "alpha": {"y": [{"b": 1, "a": 2}], "x": None}, "mid": [3, 2, 1]}
    restored = restore_order(mark_order(value))
    assert restored == value
    assert list(restored) == ["zeta", "alpha", "mid"] and list(restored["alpha"]["y"][0]) == ["b", "a"]


def test_values_without_the_marker_read_as_they_are():
    assert restore_order({"b": 1, "a": [1, {"d": 0, "c": 1}]}) == {"b": 1, "a": [1, {"d": 0, "c": 1}]}


@pytest.mark.django_db
def test_a_tools_parameters_keep_their_spec_order(settings):
    from apis.services import catalog_import_bundled

    catalog_import_bundled()
    tool = Tool.objects.get(function_name="get_br_title_info")
    names = list(Tool.objects.get(pk=tool.pk).parameters["properties"])
    assert names.index("sigunguCd") < names.index("bjdongCd")
