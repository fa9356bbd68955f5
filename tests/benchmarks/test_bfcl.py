"""BFCL scored by our runner equals bfcl-eval's own evaluation.

The same recorded model outputs (correct, wrong and malformed, in bfcl-eval's FC result format) go to our
scoring (benchmarks.engine.bfcl.score) and to bfcl-eval's own eval_runner with its OpenAI FC handler; the
per-entry verdicts, their error types and the category accuracies must be equal. bfcl-eval's runner comes from
the `bfcl_own` fixture (conftest.py).
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path

import pytest

from benchmarks.engine import bfcl

CATEGORIES = bfcl.AST_CATEGORIES + bfcl.RELEVANCE_CATEGORIES  # multi-turn: test_bfcl_multi_turn.py
PER_CATEGORY = 12


def _outputs(entries: list[bfcl.Entry]) -> list[tuple[bfcl.Entry, object, str]]:
    """Recorded outputs per entry: the correct one (the oracle's), a wrong value, malformed JSON, reply text,
    arguments that are not an object, and an unknown function."""
    oracle = asyncio.run(bfcl.run_entries(entries, bfcl.OracleBackend(), concurrency=16))
    rows = []
    for entry, outcome in zip(entries, oracle, strict=True):
        correct = outcome.result
        rows.append((entry, correct, "correct"))
        if isinstance(correct, list) and correct:
            name, raw = next(iter(correct[0].items()))
            args = json.loads(raw)
            wrong = {key: (f"{value}-x" if isinstance(value, str) else 987654) for key, value in args.items()}
            rows.append((entry, [{name: json.dumps(wrong)}, *correct[1:]], "wrong value"))
            rows.append((entry, [{name: raw[:-1] + ',"'}], "malformed JSON"))
            rows.append((entry, [{name: "[1, 2]"}], "arguments not an object"))
            rows.append((entry, [{"no_such_function": raw}], "unknown function"))
            rows.append((entry, [*correct, *correct], "calls repeated"))
        rows.append((entry, "I cannot help with that.", "reply text"))
        rows.append((entry, [], "no calls"))
    return rows


def _theirs(own, entry: bfcl.Entry, result) -> dict:
    runner = own.runner
    prompt = {"id": entry.id, "question": [entry.question], "function": entry.functions}
    if entry.category in bfcl.RELEVANCE_CATEGORIES:
        return runner._evaluate_single_relevance_entry(
            own.handler, entry.id, result, prompt, bfcl.CHECKER_FC, entry.category
        )
    from bfcl_eval.constants.enums import Language, ReturnFormat

    return runner._evaluate_single_ast_entry(
        own.handler,
        entry.id,
        result,
        entry.ground_truth,
        prompt,
        bfcl.CHECKER_FC,
        entry.category,
        language=getattr(Language, entry.language),
        return_format=getattr(ReturnFormat, entry.language),
        has_tool_call_tag=False,
    )


def test_per_entry_verdicts_and_category_accuracies_equal_bfcl_evals_own(bfcl_own, tmp_path):
    compared = 0
    kinds = set()
    for category in CATEGORIES:
        entries = bfcl.load_category(category, limit=PER_CATEGORY)
        rows = _outputs(entries)
        ours = [bfcl.score(entry, result) for entry, result, _ in rows]
        theirs = [_theirs(bfcl_own, entry, result) for entry, result, _ in rows]
        for (entry, result, kind), mine, own in zip(rows, ours, theirs, strict=True):
            assert mine.valid == own["valid"], (entry.id, kind, result, mine, own)
            if not mine.valid:
                assert mine.error_type == own["error_type"], (entry.id, kind, mine, own)
            kinds.add((kind, mine.valid))
            compared += 1
        # bfcl-eval's file runner over the same outputs, as `bfcl evaluate` would score the category
        model_result = [{"id": entry.id, "result": result} for entry, result, _ in rows]
        prompts = [{"id": e.id, "question": [e.question], "function": e.functions} for e, _, _ in rows]
        runner = bfcl_own.runner
        if category in bfcl.RELEVANCE_CATEGORIES:
            accuracy, total = runner.relevance_file_runner(
                bfcl_own.handler, model_result, prompts, bfcl.CHECKER_FC, category, Path(tmp_path)
            )
        else:
            answers = [{"id": e.id, "ground_truth": e.ground_truth} for e, _, _ in rows]
            accuracy, total = runner.ast_file_runner(
                bfcl_own.handler, model_result, prompts, answers, category, bfcl.CHECKER_FC, Path(tmp_path)
            )
        summary = bfcl.summarize(
            [
                {"id": f"{e.id}#{i}", "category": e.category, "valid": v.valid, "calls": 0}
                | {"prompt_tokens": 0, "completion_tokens": 0}
                for i, ((e, _, _), v) in enumerate(zip(rows, ours, strict=True))
            ]
        )
        assert summary["categories"][category]["success"]["value"] == pytest.approx(accuracy)
        assert summary["categories"][category]["episodes"] == total
    assert compared > 500
    # every kind of output occurred, and correct outputs passed while wrong and malformed ones failed
    assert ("correct", True) in kinds and ("wrong value", False) in kinds and ("malformed JSON", False) in kinds
    assert ("reply text", True) in kinds and ("reply text", False) in kinds  # irrelevance vs AST


def test_tools_equal_bfcl_evals_own_openai_conversion(bfcl_own):
    from bfcl_eval.utils import _func_doc_language_specific_pre_processing

    for category in CATEGORIES:
        for entry in bfcl.load_category(category, limit=PER_CATEGORY):
            functions = _func_doc_language_specific_pre_processing(copy.deepcopy(entry.functions), category)
            assert bfcl.tools_for(entry) == bfcl_own.tools(functions), entry.id


def test_the_oracle_replays_the_ground_truth_and_passes():
    for category in ("simple_python", "multiple", "parallel", "live_parallel", "irrelevance", "live_relevance"):
        entries = bfcl.load_category(category, limit=40)
        outcomes = asyncio.run(bfcl.run_entries(entries, bfcl.OracleBackend(), seeds=[0, 1], concurrency=8))
        assert len(outcomes) == 2 * len(entries) and all(o.verdict.valid for o in outcomes), category


def test_a_missing_data_file_is_a_clear_error_naming_it(tmp_path, monkeypatch):
    (tmp_path / "possible_answer").mkdir()
    (tmp_path / "BFCL_v4_parallel.json").write_text("")  # questions there, answers missing
    monkeypatch.setattr(bfcl, "_data_dir", lambda: tmp_path)
    with pytest.raises(bfcl.BfclError, match=r"bfcl_eval/data/BFCL_v4_parallel.json is missing|possible_answer"):
        bfcl.load_category("parallel")
    with pytest.raises(bfcl.BfclError, match=r"BFCL_v4_simple_python.json is missing from the installed bfcl-eval"):
        bfcl.load_category("simple_python")
    with pytest.raises(bfcl.BfclError, match="unknown BFCL category 'web_search'"):
        bfcl.data_files("web_search")
