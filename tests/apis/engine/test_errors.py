"""Error classes (environmental vs structural) and key redaction in every wire form."""

from __future__ import annotations

import re
from urllib.parse import quote, quote_plus

import pytest

from apis.engine import errors
from apis.engine.errors import ERROR_CLASSES, is_environmental, is_structural, redact


def test_every_class_is_exactly_one_of_environmental_structural_or_replay():
    for name in ERROR_CLASSES:
        kinds = [is_environmental(name), is_structural(name), name == errors.REPLAY_MISS]
        assert kinds.count(True) == 1, name
    assert not is_environmental(None) and not is_structural(None)


@pytest.mark.parametrize(
    "name", [errors.ENV_TIMEOUT, errors.ENV_CONNECTION, errors.ENV_HTTP_5XX, errors.ENV_QUOTA, errors.ENV_TRUNCATED]
)
def test_transient_failures_are_environmental(name):
    assert is_environmental(name)


@pytest.mark.parametrize(
    "name", [errors.STRUCT_AUTH, errors.STRUCT_RETIRED, errors.STRUCT_MISSING_PARAM, errors.STRUCT_NO_DATA]
)
def test_the_callers_own_faults_are_structural(name):
    assert is_structural(name)


KEY = "abc+DEF/ghi=="


@pytest.mark.parametrize(
    "form",
    [
        KEY,
        quote(KEY, safe=""),
        re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(KEY, safe="")),  # %2b as well as %2B
        quote_plus(KEY, safe=""),
        quote(quote(KEY, safe=""), safe=""),  # double-encoded
        KEY.replace("/", "\\/"),  # inside a JSON string
    ],
)
def test_it_redacts_every_wire_form_of_a_key(form):
    text = f"GET /x?serviceKey={form}&a=1 failed"
    assert redact(text, [KEY]) == "GET /x?serviceKey=***&a=1 failed"
    assert redact(text, [quote(KEY, safe="")]) == "GET /x?serviceKey=***&a=1 failed"  # pasted encoded


def test_it_leaves_text_alone_without_secrets_and_ignores_tiny_ones():
    assert redact("serviceKey=abc", []) == "serviceKey=abc"
    assert redact("serviceKey=abc", [None, ""]) == "serviceKey=abc"
    assert redact("a b c", ["b"]) == "a b c"
    assert redact(None, [KEY]) == ""
