"""The tool_execute* entry points take one CallOptions, or its fields as keywords: the same call either way."""

from __future__ import annotations

import pytest

from apis.models import ApiCall
from apis.services import CallOptions, tool_execute, tool_execute_many, tool_execute_submit
from tests.apis.conftest import APT_TRADE_PARAMS

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_an_options_object_and_keywords_make_the_same_call(apt_trade, executor_settings, reviewer):
    options = CallOptions(mode="sandbox", user=reviewer, source_kind="job", source_id=7)
    by_object = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=options)
    by_keywords = tool_execute(
        tool=apt_trade, params=APT_TRADE_PARAMS, mode="sandbox", user=reviewer, source_kind="job", source_id=7
    )
    rows = ApiCall.objects.filter(pk__in=[by_object.call.pk, by_keywords.call.pk])
    assert {(r.mode, r.source_kind, r.source_id, r.created_by_id, r.ok) for r in rows} == {
        ("sandbox", "job", "7", reviewer.pk, True)
    }


def test_many_and_submit_take_the_same_options(apt_trade, executor_settings):
    options = CallOptions(source_kind="walk", source_id="3")
    [first, second] = tool_execute_many(calls=[(apt_trade, APT_TRADE_PARAMS)] * 2, options=options)
    pending = tool_execute_submit(tool=apt_trade, params=APT_TRADE_PARAMS, options=options)
    third = pending.result()
    assert [e.call.source_kind for e in (first, second, third)] == ["walk"] * 3


def test_options_and_keywords_together_or_an_unknown_keyword_are_refused(apt_trade):
    with pytest.raises(TypeError, match="either options or keywords"):
        tool_execute(tool=apt_trade, options=CallOptions(), mode="replay")
    with pytest.raises(TypeError, match="moed"):
        tool_execute(tool=apt_trade, moed="replay")
    assert not ApiCall.objects.exists()


def test_the_options_never_show_a_one_off_key():
    assert "Secret" not in repr(CallOptions(service_key="OneOffKey+Secret/Value7=="))
