"""Reading tool calls from generated text: Hermes JSON blocks, the Qwen3.5 XML form, and broken ones."""

from __future__ import annotations

from benchmarks.engine.backends.parsing import call_from_parts, parse_tool_calls, strip_thinking


def test_it_reads_hermes_blocks_and_keeps_the_rest_as_content():
    text = (
        "<think>\n코드를 먼저 찾자\n</think>\n\n조회하겠습니다.\n"
        '<tool_call>\n{"name": "get_stan_regin_cd_list", "arguments": {"locatadd_nm": "서울특별시 종로구"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_rest_de_info", "arguments": "{\\"solYear\\": \\"2026\\"}"}\n</tool_call>'
    )
    content, calls = parse_tool_calls(text, id_prefix="call_0")
    assert content == "조회하겠습니다."
    assert [(c.id, c.name, c.arguments, c.error) for c in calls] == [
        ("call_0_0", "get_stan_regin_cd_list", {"locatadd_nm": "서울특별시 종로구"}, None),
        ("call_0_1", "get_rest_de_info", {"solYear": "2026"}, None),
    ]


def test_broken_blocks_become_bad_json_calls():
    text = (
        '<tool_call>\n{"name": "get_rest_de_info", "arguments": {"solYear": 2026\n</tool_call>'
        "<tool_call>[1, 2]</tool_call>"
        '<tool_call>{"name": "cut_off", "arguments": {'  # generation stopped mid-call
    )
    _, calls = parse_tool_calls(text)
    assert [c.name for c in calls] == ["get_rest_de_info", None, "cut_off"]
    assert all(c.arguments is None and c.error.startswith("call.bad_json") for c in calls)
    assert calls[0].raw_arguments.startswith('{"name": "get_rest_de_info"')


def test_it_reads_the_qwen_xml_form():
    text = (
        "<tool_call>\n<function=get_rtms_data_svc_apt_trade>\n<parameter=LAWD_CD>\n11110\n</parameter>\n"
        "<parameter=DEAL_YMD>\n202610\n</parameter>\n<parameter=bun>\n0023\n</parameter>\n</function>\n</tool_call>"
    )
    _, [call] = parse_tool_calls(text)
    assert call.name == "get_rtms_data_svc_apt_trade"
    assert call.arguments == {"LAWD_CD": 11110, "DEAL_YMD": 202610, "bun": "0023"}


def test_thinking_is_stripped_even_when_the_prompt_opened_it():
    assert strip_thinking("생각 중...\n</think>\n\n정답: 3") == "\n\n정답: 3"
    assert strip_thinking("<think>a</think>b<think>unfinished") == "b"
    assert parse_tool_calls("정답: 3") == ("정답: 3", [])


def test_call_from_parts():
    assert call_from_parts("x", "f", "").arguments == {}
    assert call_from_parts("x", "f", None).arguments == {}
    assert call_from_parts("x", "f", "[1]").error == "call.bad_json: arguments must be a JSON object"
    assert call_from_parts("x", "f", {"a": "서울"}).raw_arguments == '{"a": "서울"}'
