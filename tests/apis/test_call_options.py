"""The tool_execute* entry points take one CallOptions (none is CallOptions()); its fields are not keywords of theirs."""

from __future__ import annotations

import pytest

from apis.models import ApiCall
from apis.services import CallOptions, tool_execute, tool_execute_async, tool_execute_many, tool_execute_submit
from tests.apis.conftest import APT_TRADE_PARAMS

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_the_options_object_says_how_the_call_is_made_and_logged(apt_trade, executor_settings, reviewer):
    options = CallOptions(mode="sandbox", user=reviewer, source_kind="job", source_id=7)
    execution = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS, options=options)
    row = ApiCall.objects.get(pk=execution.call.pk)
    assert (row.mode, row.source_kind, row.source_id, row.created_by_id, row.ok) == (
        "sandbox",
        "job",
        "7",
        reviewer.pk,
        True,
    )


def test_no_options_is_the_default_options(apt_trade, executor_settings):
    execution = tool_execute(tool=apt_trade, params=APT_TRADE_PARAMS)
    assert (execution.call.mode, execution.call.source_kind) == (CallOptions().mode, "")


def test_many_and_submit_take_the_same_options(apt_trade, executor_settings):
    options = CallOptions(source_kind="walk", source_id="3")
    [first, second] = tool_execute_many(calls=[(apt_trade, APT_TRADE_PARAMS)] * 2, options=options)
    pending = tool_execute_submit(tool=apt_trade, params=APT_TRADE_PARAMS, options=options)
    third = pending.result()
    assert [e.call.source_kind for e in (first, second, third)] == ["walk"] * 3


@pytest.mark.parametrize("entry", [tool_execute, tool_execute_submit, tool_execute_async])
def test_an_option_given_as_a_keyword_is_refused(entry, apt_trade):
    with pytest.raises(TypeError, match="mode"):
        entry(tool=apt_trade, mode="replay")  # the async entry point refuses it before a coroutine is made
    with pytest.raises(TypeError, match="source_kind"):
        tool_execute_many(calls=[(apt_trade, APT_TRADE_PARAMS)], source_kind="walk")
    assert not ApiCall.objects.exists()


def test_the_options_never_show_a_one_off_key():
    assert "Secret" not in repr(CallOptions(service_key="OneOffKey+Secret/Value7=="))
