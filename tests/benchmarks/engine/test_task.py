"""Task files: the demo file loads; broken files fail with every problem located by file, task id and pointer."""

from __future__ import annotations

import copy
import json

import pytest

from benchmarks.engine.task import (
    ALL_TOOLS,
    TaskFileError,
    apply_transform,
    load_tasks,
    parse_clock,
    parse_tasks,
)

from .conftest import DEMO_TASKS


def minimal(**task_changes) -> dict:
    task = {
        "id": "t-1",
        "request": "2026년 10월 공휴일은?",
        "tools": ["get_rest_de_info"],
        "categories": ["calendar"],
        "difficulty": "easy",
        "gold": {
            "calls": [{"id": "c1", "tool": "get_rest_de_info", "args": {"solYear": "2026", "solMonth": "10"}}],
            "answer": {"checker": "numeric", "value": 3, "unit": "일", "text": "3일"},
        },
    }
    task.update(task_changes)
    return {"format": "kopa-bench/tasks", "version": 1, "data_version": "t.1", "tasks": [task]}


def problems_of(document, **kwargs) -> list[str]:
    with pytest.raises(TaskFileError) as caught:
        parse_tasks(document, name="f.yaml", **kwargs)
    return [str(p) for p in caught.value.problems]


def test_it_loads_the_demo_tasks(demo_tasks):
    assert [t.id for t in demo_tasks] == [
        "demo-holiday-oct",
        "demo-apt-max-jongno",
        "demo-pm25-compare",
        "demo-population-yeoksam",
        "demo-jeheonjeol",
    ]
    apartment = demo_tasks.get("demo-apt-max-jongno")
    assert apartment.tools == ("get_stan_regin_cd_list", "get_rtms_data_svc_apt_trade", "get_rtms_data_svc_apt_rent")
    assert apartment.toolset == "realestate"
    assert [[c.id for c in layer] for layer in apartment.layers()] == [["c1"], ["c2"]]
    assert apartment.gold_call_count == 4  # the lookup plus three pages
    assert apartment.call("c2").depends_on == ("c1",)
    assert [a["pageNo"] for a in apartment.call("c2").page_calls()] == [1, 2, 3]
    assert not apartment.call("c1").answer_bearing and not apartment.call("c1").all_pages
    pm = demo_tasks.get("demo-pm25-compare")
    assert [[c.id for c in layer] for layer in pm.layers()] == [["c1", "c2"]]  # one parallel group
    assert demo_tasks.get("demo-jeheonjeol").tools == ALL_TOOLS
    assert demo_tasks.get("demo-jeheonjeol").clock == "2026-07-01T09:00:00+09:00"
    assert demo_tasks.get("demo-holiday-oct").clock == "2026-11-18T14:20:00+09:00"
    assert demo_tasks.data_versions == {str(DEMO_TASKS): "2026.11-demo.1"}
    assert demo_tasks.categories == sorted(demo_tasks.categories) and "pagination" in demo_tasks.categories


def test_the_checksum_pins_the_task_content(demo_tasks, catalog):
    again = load_tasks(DEMO_TASKS, catalog=catalog.tools)
    assert again.checksum == demo_tasks.checksum and len(demo_tasks.checksum) == 64
    document = minimal()
    first = parse_tasks(document).checksum
    document["tasks"][0]["request"] += "?"
    assert parse_tasks(document).checksum != first


def test_it_reads_json_files_and_directories(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(minimal()), encoding="utf-8")
    other = minimal(id="t-2")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.json").write_text(json.dumps(other), encoding="utf-8")
    assert [t.id for t in load_tasks(tmp_path)] == ["t-1", "t-2"]


def test_it_reports_duplicate_ids_across_files(tmp_path):
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(minimal()), encoding="utf-8")
    with pytest.raises(
        TaskFileError, match=r"b\.json: task t-1 at /tasks/0/id: duplicate id \(also in .*a\.json#/tasks/0\)"
    ):
        load_tasks(tmp_path)


def test_it_locates_syntax_errors_by_line(tmp_path):
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("format: kopa-bench/tasks\ntasks: [\n  - id: x\n", encoding="utf-8")
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"format": "kopa-bench/tasks",\n "tasks": [}', encoding="utf-8")
    with pytest.raises(TaskFileError) as caught:
        load_tasks([bad_yaml, bad_json])
    text = str(caught.value)
    assert "2 problem(s)" in text
    assert "bad.yaml: /: invalid YAML at line" in text
    assert "bad.json: /: invalid JSON at line 2 column" in text


def test_it_reports_a_missing_file_and_an_empty_folder(tmp_path):
    with pytest.raises(TaskFileError, match="cannot read the file"):
        load_tasks(tmp_path / "nope.yaml")
    with pytest.raises(TaskFileError, match="no task files"):
        load_tasks(tmp_path)


def test_it_checks_the_header():
    document = minimal()
    document.update(format="other", version=9, data_version="", extra=1)
    found = problems_of(document)
    assert "f.yaml: /format: must be 'kopa-bench/tasks'; got 'other'" in found
    assert any(p.startswith("f.yaml: /version: unsupported format version 9") for p in found)
    assert any(p.startswith("f.yaml: /data_version: required") for p in found)
    assert any(p.startswith("f.yaml: /extra: unknown field") for p in found)


def test_it_collects_every_problem_of_a_task_with_its_pointer():
    document = minimal(
        request="",
        categories=[],
        difficulty="trivial",
        clock="yesterday",
        colour="red",
    )
    gold = document["tasks"][0]["gold"]
    gold["calls"] = [
        {"id": "c1", "tool": "get_rest_de_info", "args": {"solYear": "2026"}},
        {
            "id": "c1",
            "tool": "get_holi_de_info",
            "args": {"solYear": "2026"},
            "after": ["c9"],
            "bindings": [{"arg": "solMonth", "from": "c3", "field": "", "transform": "reverse"}],
            "pages": 0,
        },
    ]
    gold["answer"] = {"checker": "numeric", "value": "three", "text": "3"}
    found = problems_of(document)
    prefix = "f.yaml: task t-1 at /tasks/0"
    expected = [
        f"{prefix}/colour: unknown field",
        f"{prefix}/request: required",
        f"{prefix}/categories: required: a non-empty list of text",
        f"{prefix}/difficulty: required: one of easy, medium, hard",
        f"{prefix}/clock: not an ISO 8601 time: 'yesterday'",
        f"{prefix}/gold/calls/1/id: duplicate call id 'c1'",
        f"{prefix}/gold/calls/1/tool: 'get_holi_de_info' is not in the task's tool set",
        f"{prefix}/gold/calls/1/after/0: unknown call 'c9'",
        f"{prefix}/gold/calls/1/bindings/0/arg: 'solMonth' is not one of the call's args",
        f"{prefix}/gold/calls/1/bindings/0/from: unknown call 'c3'",
        f"{prefix}/gold/calls/1/bindings/0/field: required",
        f"{prefix}/gold/calls/1/bindings/0/transform: unknown transform 'reverse'",
        f"{prefix}/gold/calls/1/pages: a whole number of pages",
        f"{prefix}/gold/answer/value: a numeric answer's value is a number",
    ]
    for line in expected:
        assert any(p.startswith(line) for p in found), (line, found)


def test_it_checks_tools_against_the_catalog_and_toolsets():
    document = minimal(tools="calendar")
    assert any("unknown toolset 'calendar'" in p for p in problems_of(document))
    document = minimal()
    document["toolsets"] = {"calendar": ["get_rest_de_info", "no_such_tool"]}
    document["tasks"][0]["tools"] = "calendar"
    found = problems_of(document, catalog={"get_rest_de_info"})
    assert "f.yaml: /toolsets/calendar/1: no tool named 'no_such_tool' in the catalog" in found


def test_it_rejects_an_answer_text_that_fails_its_own_checker():
    document = minimal()
    document["tasks"][0]["gold"]["answer"] = {"checker": "numeric", "value": 3, "unit": "일", "text": "사흘"}
    [problem] = problems_of(document)
    assert problem.startswith("f.yaml: task t-1 at /tasks/0/gold/answer/text: the answer text fails its own checker")


def test_it_validates_paging_and_pages():
    document = minimal()
    call = document["tasks"][0]["gold"]["calls"][0]
    call.update(pages=2, args={"solYear": "2026", "pageNo": 1})
    found = problems_of(document)
    assert any("leave out the paging arguments" in p for p in found)
    assert any("states its page size ('numOfRows')" in p for p in found)
    call.update(args={"solYear": "2026"}, paging={"start": "START_INDEX", "end": "END_INDEX", "per_page": 5})
    task = parse_tasks(document).tasks[0]
    assert task.calls[0].page_calls() == [
        {"solYear": "2026", "START_INDEX": 1, "END_INDEX": 5},
        {"solYear": "2026", "START_INDEX": 6, "END_INDEX": 10},
    ]
    call["paging"] = {"first": "a"}
    assert any("either {page, size}" in p for p in problems_of(document))


def test_defaults_apply_to_every_task():
    document = minimal()
    document["defaults"] = {
        "clock": "2026-12-05T09:00",
        "ignore_args": ["ver"],
        "paging": {"page": "currentPage", "size": "countPerPage"},
    }
    task = parse_tasks(document).tasks[0]
    assert task.clock == "2026-12-05T09:00:00+09:00"  # KST when no offset is given
    assert task.ignore_args == ("ver",)
    assert task.calls[0].paging.params == ("currentPage", "countPerPage")


def test_a_task_may_need_no_tool():
    document = minimal()
    document["tasks"][0]["gold"] = {"calls": [], "answer": {"checker": "exact", "value": "모름", "text": "모름"}}
    task = parse_tasks(document).tasks[0]
    assert task.layers() == [] and task.gold_call_count == 0


def test_it_rejects_a_document_that_is_not_an_object():
    assert problems_of([1, 2]) == ["f.yaml: /: a task file is an object with format, version, data_version and tasks"]


def test_binding_transforms():
    assert apply_transform("slice:0:5", "1111000000") == "11110"
    assert apply_transform("digits", "11-110") == "11110"
    assert apply_transform("int", "0023") == "23"
    assert apply_transform("zfill:4", "23") == "0023"
    assert apply_transform("identity", 7) == 7
    with pytest.raises(ValueError):
        apply_transform("upper", "x")


def test_parse_clock():
    assert parse_clock("2026-11-18T14:20") == "2026-11-18T14:20:00+09:00"
    assert parse_clock("2026-11-18T05:20:00+00:00") == "2026-11-18T05:20:00+00:00"
    with pytest.raises(ValueError):
        parse_clock(20261118)


def test_parsing_does_not_change_the_document():
    document = minimal()
    before = copy.deepcopy(document)
    parse_tasks(document)
    assert document == before
