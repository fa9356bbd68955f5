"""Fixtures of the KOPA-Bench app tests: the bundled catalog, the demo tasks loaded as rows, quick executor
settings on the session sandbox, model entries, and an oracle run evaluated end to end."""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path
from unittest import mock

import pytest

from apis.services import catalog_import_bundled
from benchmarks.engine import bfcl
from benchmarks.models import ModelEntry
from benchmarks.services import eval_run_create, eval_run_execute, model_entry_create, tasks_sync

ROOT = Path(__file__).resolve().parents[2]
DEMO_TASKS = ROOT / "tests" / "fixtures" / "bench" / "demo_tasks.yaml"
EXECUTOR = {
    "timeout_s": 10.0,
    "max_attempts": 2,
    "base_delay_s": 0.01,
    "max_delay_s": 0.02,
    "concurrency": 8,
    "record_target": "sandbox",
    "body_cap_bytes": 2_000_000,
    "sandbox_headers": {},
}


@pytest.fixture
def executor_settings(settings, sandbox_server_url):
    settings.KOPA_SANDBOX_ORIGIN = sandbox_server_url
    settings.KOPA_EXECUTOR = dict(EXECUTOR)
    return settings


@pytest.fixture
def catalog(db):
    return catalog_import_bundled()


@pytest.fixture
def demo_tasks(catalog):
    """The five demo tasks as Task rows."""
    return tasks_sync(paths=[DEMO_TASKS])


@pytest.fixture
def oracle_model(db):
    return model_entry_create(name="oracle", backend=ModelEntry.Backend.ORACLE, org="KOPA", notes="gold replay")


@pytest.fixture
def oracle_run(demo_tasks, oracle_model, executor_settings):
    """A finished oracle run over the demo tasks with two seeds."""
    run = eval_run_create(model=oracle_model, seeds=[0, 1], concurrency=4, max_steps=4)
    eval_run_execute(run=run)
    run.refresh_from_db()
    return run


def _stand_ins() -> dict[str, types.ModuleType]:
    def module(name, **attrs):
        made = types.ModuleType(name)
        made.__dict__.update(attrs)
        return made

    def passthrough(*args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda function: function

    class Parser:
        def set_language(self, language):
            return None

    class OpenAI:
        def __init__(self, **kwargs):
            return None

    return {
        "tree_sitter": module("tree_sitter", Language=lambda *a, **k: None, Parser=Parser),
        "tree_sitter_java": module("tree_sitter_java", language=lambda: None),
        "tree_sitter_javascript": module("tree_sitter_javascript", language=lambda: None),
        "tenacity": module(
            "tenacity",
            retry=passthrough,
            retry_if_exception_message=passthrough,
            retry_if_exception_type=passthrough,
            wait_random_exponential=passthrough,
            stop_after_attempt=passthrough,
        ),
        "overrides": module("overrides", final=passthrough, override=passthrough, overrides=passthrough),
        "dotenv": module("dotenv", load_dotenv=lambda *a, **k: None),
        "openai": module("openai", OpenAI=OpenAI, RateLimitError=type("RateLimitError", (Exception,), {})),
    }


@pytest.fixture(scope="module")
def bfcl_own():
    """bfcl-eval's eval_runner, its OpenAI FC handler, its convert_to_tool and its dataset loader. bfcl-eval is
    installed without its dependencies, so they are imported with inert stand-ins for the modules they import
    but never use on these paths (the vendor SDK, retry decorators, tree-sitter parsers for Java and
    JavaScript); sys.modules is restored afterwards."""
    bfcl._checker()  # registers kopa-fc (dots as underscores) in the mapping bfcl-eval's checker reads
    bfcl._executor()  # imported before the stand-ins, so the restore keeps the executor our scoring uses
    importlib.import_module("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker")
    with mock.patch.dict(sys.modules, _stand_ins()):
        from bfcl_eval.constants.enums import ModelStyle
        from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
        from bfcl_eval.eval_checker import eval_runner
        from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
        from bfcl_eval.model_handler.utils import convert_to_tool
        from bfcl_eval.utils import load_dataset_entry

        handler = OpenAICompletionsHandler(bfcl.CHECKER_FC, 0.0, bfcl.CHECKER_FC, True)
        yield types.SimpleNamespace(
            runner=eval_runner,
            handler=handler,
            handler_class=OpenAICompletionsHandler,
            tools=lambda functions: convert_to_tool(functions, GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS),
            load_dataset_entry=load_dataset_entry,
        )
