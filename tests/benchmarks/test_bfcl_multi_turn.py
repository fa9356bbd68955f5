"""BFCL multi-turn through our runner equals bfcl-eval's own handler and checker.

Scoring: the same recorded conversations (correct, a turn left empty, a wrong value, malformed JSON, an unknown
function, cut short, calls repeated, reply text only, an inference error) go to our scoring and to bfcl-eval's
own `_evaluate_single_multi_turn_entry` and `multi_turn_runner`: equal verdicts, error types and accuracies.
Driving: one scripted model answers our driver (over HTTP, through the OpenAI-compatible backend) and bfcl-eval's
own `inference_multi_turn_FC` (through its OpenAI handler with a client that calls the same script): both must
send the same conversations and tools at every step and record the same results.
"""

from __future__ import annotations

import asyncio
import copy
import json
import types
import uuid
from pathlib import Path

import pytest

from benchmarks.engine import bfcl
from benchmarks.engine.backends.base import Backend, ModelTurn, ParsedCall
from benchmarks.engine.backends.openai_http import OpenAIChatBackend, OpenAIConfig
from tests.support.openai_stub_server import StubServer

PER_CATEGORY = 4


def _drop_instances(name: str) -> None:
    """bfcl-eval's executor keeps the simulated instances in its module globals, named after the model."""
    module = vars(bfcl._executor())
    for key in [key for key in module if key.startswith(name)]:
        del module[key]


def _oracle(entries: list[bfcl.Entry]) -> list:
    outcomes = asyncio.run(bfcl.run_entries(entries, bfcl.OracleBackend(), concurrency=8))
    assert all(o.verdict.valid for o in outcomes), [o.verdict for o in outcomes if not o.verdict.valid]
    return [o.result for o in outcomes]


def _first_call(result: list) -> tuple[int, int]:
    """(turn, step) of the first step with calls."""
    for turn, steps in enumerate(result):
        for step, output in enumerate(steps):
            if isinstance(output, list) and output:
                return turn, step
    raise AssertionError("no call in the correct conversation")


def _variants(correct: list) -> dict[str, object]:
    turn, step = _first_call(correct)
    name, raw = next(iter(correct[turn][step][0].items()))
    args = json.loads(raw)

    def replaced(call: dict) -> list:
        made = copy.deepcopy(correct)
        made[turn][step] = [call, *made[turn][step][1:]]
        return made

    wrong = {key: (f"{value}-x" if isinstance(value, str) else 987654) for key, value in args.items()}
    repeated = [[output * 2 if isinstance(output, list) else output for output in steps] for steps in correct]
    return {
        "correct": correct,
        "first turn empty": [["I would rather not."], *copy.deepcopy(correct[1:])],
        "wrong value": replaced({name: json.dumps(wrong)}) if args else None,
        "malformed JSON": replaced({name: raw[:-1] + ',"'}),
        "unknown function": replaced({"no_such_function": raw}),
        "cut short": copy.deepcopy(correct[:-1]),
        "calls repeated": repeated,
        "reply text only": [["Done."] for _ in correct],
        "inference error": "Error during inference: connection refused",
    }


def _theirs(own, entry: bfcl.Entry, result) -> dict:
    name = f"own_{uuid.uuid4().hex}"
    prompt = {"id": entry.id, "initial_config": entry.initial_config, "involved_classes": entry.involved_classes}
    try:
        return own.runner._evaluate_single_multi_turn_entry(
            own.handler, entry.id, copy.deepcopy(result), entry.ground_truth, prompt, name, entry.category
        )
    finally:
        _drop_instances(name)


def test_verdicts_and_accuracies_equal_bfcl_evals_own_multi_turn_checker(bfcl_own, tmp_path):
    seen = set()
    for category in bfcl.MULTI_TURN_CATEGORIES:
        entries = bfcl.load_category(category, limit=PER_CATEGORY)
        by_kind: dict[str, list[tuple[bfcl.Entry, object, bfcl.Verdict]]] = {}
        for entry, correct in zip(entries, _oracle(entries), strict=True):
            for kind, result in _variants(correct).items():
                if result is None:
                    continue
                mine = bfcl.score(entry, result)
                own = _theirs(bfcl_own, entry, result)
                assert mine.valid == own["valid"], (entry.id, kind, mine, own)
                if not mine.valid:
                    assert mine.error_type == own["error"]["error_type"], (entry.id, kind, mine, own)
                by_kind.setdefault(kind, []).append((entry, result, mine))
                seen.add((kind, mine.valid, mine.error_type))
        for kind, rows in by_kind.items():  # bfcl-eval's category runner over one output kind per entry
            name = f"own_{uuid.uuid4().hex}"
            try:
                accuracy, total = bfcl_own.runner.multi_turn_runner(
                    bfcl_own.handler,
                    [{"id": e.id, "result": copy.deepcopy(r)} for e, r, _ in rows],
                    [
                        {"id": e.id, "initial_config": e.initial_config, "involved_classes": e.involved_classes}
                        for e, _, _ in rows
                    ],
                    [{"id": e.id, "ground_truth": e.ground_truth} for e, _, _ in rows],
                    name,
                    category,
                    Path(tmp_path),
                )
            finally:
                _drop_instances(name)
            summary = bfcl.summarize(
                [
                    {"id": e.id, "category": category, "valid": v.valid, "calls": 0}
                    | {"prompt_tokens": 0, "completion_tokens": 0}
                    for e, _, v in rows
                ]
            )
            assert summary["categories"][category]["success"]["value"] == pytest.approx(accuracy), (category, kind)
            assert total == len(rows)
    errors = {error for _, valid, error in seen if not valid}
    assert ("correct", True, "") in seen and ("calls repeated", True, "") in seen
    assert errors == {
        "multi_turn:empty_turn_model_response",
        "multi_turn:execution_response_mismatch",
        "multi_turn:force_terminated",
        "multi_turn:inference_error",
        "multi_turn:instance_state_mismatch",
    }


# ---------------------------------------------------------------------------------------------- driving

MODES = ("oracle", "wrong", "malformed", "chatty", "loop")


def _script(current: dict):
    """A scripted model on OpenAI chat bodies for the entry now driven (current["entry"]): per turn, the ground
    truth's calls in the first step and then words, bent by the mode (a wrong value or malformed JSON in the first
    turn, words in the first turn, or the same call at every step of the second turn)."""

    def policy(body: dict) -> dict:
        messages = body["messages"]
        entry, mode = current["entry"], current["mode"]
        users = [i for i, m in enumerate(messages) if m["role"] == "user"]
        turn, step = len(users) - 1, sum(1 for m in messages[users[-1] :] if m["role"] == "assistant")
        truth = entry.ground_truth[turn] if turn < len(entry.ground_truth) else []
        calls = []
        for text in truth:
            name, args = bfcl._call_arguments(entry, text)
            calls.append({"name": name, "arguments": json.dumps(args)})
        if mode == "loop" and turn == 1:
            return {"content": None, "tool_calls": calls[:1] or [{"name": "no_such_function", "arguments": "{}"}]}
        if step > 0 or not calls:
            return {"content": "Done.", "tool_calls": []}
        if turn == 0 and mode == "chatty":
            return {"content": "Which folder do you mean?", "tool_calls": []}
        if turn == 0 and mode == "wrong":
            calls[0]["arguments"] = json.dumps({key: 987654 for key in json.loads(calls[0]["arguments"])})
        if turn == 0 and mode == "malformed":
            calls[0]["arguments"] = calls[0]["arguments"][:-1] + ',"'
        return {"content": None, "tool_calls": calls}

    return policy


def _plain(message) -> dict:
    """A message as the model saw it: role, content ('' for none) and its calls; ids left out."""
    if not isinstance(message, dict):  # bfcl-eval keeps the client's message object in the history
        calls = message.tool_calls or []
        message = {
            "role": message.role,
            "content": message.content,
            "tool_calls": [{"function": {"name": c.function.name, "arguments": c.function.arguments}} for c in calls],
        }
    plain = {"role": message["role"], "content": message.get("content") or ""}
    calls = message.get("tool_calls") or []
    if calls:
        plain["calls"] = [(c["function"]["name"], c["function"]["arguments"]) for c in calls]
    return plain


class _Client:
    """bfcl-eval's OpenAI client, answered by the script in-process."""

    def __init__(self, policy):
        self.seen: list[dict] = []
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))
        self.policy = policy

    def create(self, **kwargs):
        body = {"messages": [_plain(m) for m in kwargs["messages"]], "tools": kwargs.get("tools", [])}
        self.seen.append(body)
        script_body = {"messages": [{"role": m["role"], "content": m["content"]} for m in body["messages"]]}
        planned = self.policy(script_body)
        calls = [
            types.SimpleNamespace(
                id=f"call_{i}",
                type="function",
                function=types.SimpleNamespace(name=c["name"], arguments=c["arguments"]),
            )
            for i, c in enumerate(planned.get("tool_calls") or [])
        ]
        message = types.SimpleNamespace(role="assistant", content=planned.get("content"), tool_calls=calls or None)
        usage = types.SimpleNamespace(prompt_tokens=0, completion_tokens=0)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)], usage=usage)


def test_our_driver_sends_and_records_what_bfcl_evals_own_handler_does(bfcl_own):
    entries, own_entries = [], []
    for category in bfcl.MULTI_TURN_CATEGORIES:
        shipped = {row["id"]: row for row in bfcl_own.load_dataset_entry(category)}
        for entry in bfcl.load_category(category, limit=len(MODES)):
            entries.append(entry)
            own_entries.append(copy.deepcopy(shipped[entry.id]))
    current: dict = {}
    policy = _script(current)
    with StubServer(model_name="stub", policy=policy) as server:
        for index, (entry, own_entry) in enumerate(zip(entries, own_entries, strict=True)):
            mode = current["mode"] = MODES[index % len(MODES)]
            current["entry"] = entry
            before = len(server.requests)
            backend = OpenAIChatBackend(OpenAIConfig(server.url, "stub"))
            outcome = asyncio.run(bfcl.run_multi_turn(entry, backend))
            ours = [
                {"messages": [_plain(m) for m in body["messages"]], "tools": body["tools"]}
                for body in server.requests[before:]
            ]
            name = f"own_{uuid.uuid4().hex}"
            handler = bfcl_own.handler_class(name, 0.0, name, True)
            handler.client = _Client(policy)
            try:
                result, _ = handler.inference_multi_turn_FC(own_entry, False, True)
            finally:
                _drop_instances(name)
            assert outcome.result == result, (entry.id, mode)
            assert len(ours) == len(handler.client.seen), (entry.id, mode)
            for step, (mine, theirs) in enumerate(zip(ours, handler.client.seen, strict=True)):
                assert mine["tools"] == theirs["tools"], (entry.id, mode, step)
                assert mine["messages"] == theirs["messages"], (entry.id, mode, step)
            own_verdict = _theirs(bfcl_own, entry, result)
            assert outcome.verdict.valid == own_verdict["valid"], (entry.id, mode, outcome.verdict, own_verdict)
            if mode == "loop":
                assert outcome.stop_reason == bfcl.STOP_FORCE_QUIT
            if mode == "oracle":
                assert outcome.verdict.valid, (entry.id, outcome.verdict)


def test_the_oracle_passes_every_shipped_multi_turn_entry_and_leaves_no_instances_behind():
    for category in bfcl.MULTI_TURN_CATEGORIES:
        entries = bfcl.load_category(category)
        outcomes = asyncio.run(bfcl.run_entries(entries, bfcl.OracleBackend(), seeds=[0, 1], concurrency=8))
        assert len(outcomes) == 2 * len(entries) == 400
        assert all(o.verdict.valid and o.stop_reason == "answer" for o in outcomes), category
    assert not [key for key in vars(bfcl._executor()) if key.startswith("kopa_")]


def test_held_out_functions_come_back_at_their_turn():
    entry = bfcl.load_category("multi_turn_miss_func", limit=1)[0]
    ((turn, docs),) = entry.missed_function.items()
    names = {doc["name"] for doc in docs}
    assert names and not names & {f["name"] for f in entry.functions} and entry.turns[int(turn)] == []

    class Recorder(bfcl.OracleBackend):
        def __init__(self):
            self.tools: list[set[str]] = []

        async def complete(self, request):
            self.tools.append({tool["function"]["name"] for tool in request.tools})
            return await super().complete(request)

    recorder = Recorder()
    outcome = asyncio.run(bfcl.run_multi_turn(entry, recorder))
    assert outcome.verdict.valid
    assert not names & recorder.tools[0] and names <= recorder.tools[-1]
    prompts = [m["content"] for m in outcome.messages if m["role"] == "user"]
    assert "I have updated some more functions you can choose from. What about now?" in prompts


class _Hostile(Backend):
    """Calls that would reach past the simulated APIs if bfcl-eval's eval ran them as written."""

    def __init__(self, target: Path):
        self.calls = [
            ParsedCall("a", "open", {}, json.dumps({"file": str(target), "mode": "w"})),
            ParsedCall("b", "__import__", {}, json.dumps({"name": "os"})),
            ParsedCall("c", "cd", {}, json.dumps({f"folder=open({str(target)!r},'w'),x": 1})),
            ParsedCall("d", "execute_multi_turn_func_call", {}, json.dumps({"func_call_list": []})),
        ]

    async def complete(self, request):
        if request.messages[-1]["role"] == "user":
            return ModelTurn(tool_calls=list(self.calls), finish_reason="tool_calls")
        return ModelTurn(content="Done.", finish_reason="stop")


def test_calls_that_would_reach_past_the_simulated_apis_never_run(tmp_path):
    target = tmp_path / "written"
    entry = bfcl.load_category("multi_turn_base", limit=1)[0]
    outcome = asyncio.run(bfcl.run_multi_turn(entry, _Hostile(target)))
    assert not target.exists()
    answers = [m["content"] for m in outcome.messages if m["role"] == "tool"]
    assert answers and all(f"name '{bfcl.REFUSED_CALL}' is not defined" in text for text in answers[:4])
    assert not outcome.verdict.valid
    methods = bfcl._method_names(tuple(entry.involved_classes))
    assert bfcl.decode_execute([{"cd": '{"folder": "document"}'}], methods) == ["cd(folder='document')"]
    assert bfcl.decode_execute([{"no_such_function": "{}"}], methods) == ["no_such_function()"]
    with pytest.raises(AttributeError):  # arguments that are not an object fail to decode, as in bfcl-eval
        bfcl.decode_execute([{"cd": "[1]"}], methods)


def test_a_missing_function_doc_file_is_a_clear_error_naming_it(tmp_path, monkeypatch):
    shipped = bfcl._data_dir()
    (tmp_path / "possible_answer").mkdir()
    for name in ("BFCL_v4_multi_turn_base.json", "possible_answer/BFCL_v4_multi_turn_base.json"):
        (tmp_path / name).write_text((shipped / name).read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(bfcl, "_data_dir", lambda: tmp_path)
    with pytest.raises(
        bfcl.BfclError,
        match=r"bfcl_eval/data/multi_turn_func_doc/posting_api.json is missing from the installed bfcl-eval",
    ):
        bfcl.load_category("multi_turn_base", limit=1)
