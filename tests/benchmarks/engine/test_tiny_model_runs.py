"""Real end-to-end runs with the tiny local model: in process through transformers, and through the stand-in
OpenAI-compatible server on 127.0.0.1, against the sandbox. Random weights score near zero; what these tests
check is that every stage runs and the results are stored and scored."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from apis.sandbox.config import DEMO_KEY
from benchmarks.engine.backends.base import SamplingParams
from benchmarks.engine.backends.openai_http import OpenAIChatBackend, OpenAIConfig
from benchmarks.engine.backends.transformers_local import LocalChatModel, TransformersBackend, chat_template
from benchmarks.engine.metrics import score_run
from benchmarks.engine.runner import (
    ClockedExecutors,
    RunConfig,
    catalog_environment_factory,
    initial_messages,
    read_results_jsonl,
    run_tasks,
    write_results_jsonl,
)
from tests.support.openai_stub_server import StubServer

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TASK_IDS = ("demo-holiday-oct", "demo-population-yeoksam")
CONFIG = RunConfig(max_steps=3, concurrency=2, sampling=SamplingParams(temperature=0.7, max_tokens=24))


@pytest.fixture(scope="module")
def local_model(tiny_model_path):
    return LocalChatModel(tiny_model_path, num_threads=1).load()


@pytest.fixture
async def executors(sandbox_server_url):
    pool = ClockedExecutors("sandbox", sandbox_origin=sandbox_server_url, sandbox_key=DEMO_KEY)
    yield pool
    await pool.aclose()


def test_the_chat_template_is_trls_qwen3_byte_for_byte(tiny_model_path):
    ours = chat_template("qwen3")
    assert (Path(tiny_model_path) / "chat_template.jinja").read_text(encoding="utf-8") == ours
    spec = importlib.util.find_spec("trl")
    if spec is None:
        pytest.skip("trl is not installed")
    shipped = Path(spec.submodule_search_locations[0]) / "chat_templates" / "qwen3.jinja"
    assert shipped.read_text(encoding="utf-8") == ours


def test_the_template_renders_tools_calls_and_results(local_model, demo_tasks, catalog):
    task = demo_tasks.get("demo-holiday-oct")
    tools = [s for s in catalog.schemas if s["function"]["name"] in task.tools]
    messages = initial_messages(task, CONFIG) + [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "a",
                    "type": "function",
                    "function": {"name": "get_rest_de_info", "arguments": '{"solYear": "2026"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": '{"ok": true, "records": []}'},
    ]
    prompt = local_model.render(messages, tools)
    assert "<tools>" in prompt and '"name": "get_holi_de_info"' in prompt
    assert '<tool_call>\n{"name": "get_rest_de_info", "arguments": {"solYear": "2026"}}\n</tool_call>' in prompt
    assert '<tool_response>\n{"ok": true, "records": []}\n</tool_response>' in prompt
    assert task.request in prompt and prompt.endswith("<|im_start|>assistant\n")


async def test_an_end_to_end_run_in_process(local_model, demo_tasks, catalog, executors, tmp_path):
    tasks = [demo_tasks.get(i) for i in TASK_IDS]
    episodes = await run_tasks(
        tasks,
        TransformersBackend(local_model),
        catalog_environment_factory(catalog, executors),
        seeds=[0],
        config=CONFIG,
    )
    _check_run(tasks, episodes, tmp_path, model="tiny-qwen3")


async def test_an_end_to_end_run_through_an_openai_compatible_server(
    tiny_model_path, demo_tasks, catalog, executors, tmp_path
):
    tasks = [demo_tasks.get(i) for i in TASK_IDS]
    with StubServer(model_name="tiny-qwen3", model_path=str(tiny_model_path)) as server:
        assert server.url.startswith("http://127.0.0.1:")
        async with OpenAIChatBackend(OpenAIConfig(server.url, "tiny-qwen3")) as backend:
            episodes = await run_tasks(
                tasks, backend, catalog_environment_factory(catalog, executors), seeds=[0, 1], config=CONFIG
            )
    _check_run(tasks, episodes, tmp_path, model="tiny-qwen3")
    first = server.requests[0]
    assert first["tool_choice"] == "auto" and {t["function"]["name"] for t in first["tools"]} == set(tasks[0].tools)


def _check_run(tasks, episodes, tmp_path, *, model):
    assert len(episodes) % len(tasks) == 0 and episodes
    for episode in episodes:
        assert episode.stop_reason in ("answer", "max_steps"), (episode.stop_reason, episode.error)
        assert 1 <= len(episode.steps) <= CONFIG.max_steps
        assert all(step.usage.prompt_tokens > 0 and step.usage.completion_tokens > 0 for step in episode.steps)
        assert model in episode.model
    path = write_results_jsonl(tmp_path / "results.jsonl", episodes)
    stored = read_results_jsonl(path)
    assert stored == episodes
    scores, report = score_run(tasks, stored, ks=(1,))
    assert report.overall.episodes == len(episodes)
    assert 0.0 <= report.overall.pass_at[1].value <= 1.0
    assert report.overall.cost["prompt_tokens_per_episode"] > 0
    json.dumps(report.to_dict(), ensure_ascii=False)  # the report is plain data
    json.dumps([s.to_dict() for s in scores], ensure_ascii=False)
