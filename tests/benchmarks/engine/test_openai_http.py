"""The OpenAI-compatible backend against the stand-in server over a real socket (scripted mode, no model)."""

from __future__ import annotations

import json

import httpx
import pytest

from benchmarks.engine.backends.base import BackendError, ModelRequest, SamplingParams
from benchmarks.engine.backends.openai_http import OpenAIChatBackend, OpenAIConfig
from benchmarks.engine.runner import RunConfig, StaticToolEnvironment, run_episode
from tests.support.openai_stub_server import StubServer

pytestmark = pytest.mark.anyio

TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_rest_de_info", "parameters": {"type": "object", "properties": {}, "required": []}},
    }
]


def request(task, **changes) -> ModelRequest:
    values = {
        "task": task,
        "messages": [{"role": "user", "content": "공휴일?"}],
        "tools": TOOLS,
        "step": 0,
        "seed": 7,
        "sampling": SamplingParams(temperature=0.3, max_tokens=64),
    }
    values.update(changes)
    return ModelRequest(**values)


@pytest.fixture
def task(demo_tasks):
    return demo_tasks.get("demo-holiday-oct")


async def test_it_sends_tools_and_reads_tool_calls(task):
    with StubServer(model_name="kor-tool") as server:
        config = OpenAIConfig(server.url, "kor-tool", extra_body={"chat_template_kwargs": {"enable_thinking": False}})
        async with OpenAIChatBackend(config) as backend:
            turn = await backend.complete(request(task))
    [call] = turn.tool_calls
    assert (call.name, call.arguments, call.error, turn.finish_reason) == ("get_rest_de_info", {}, None, "tool_calls")
    [body] = server.requests
    assert body["tools"] == TOOLS and body["tool_choice"] == "auto"
    assert (body["model"], body["seed"], body["temperature"], body["max_tokens"]) == ("kor-tool", 7, 0.3, 64)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}


async def test_it_retries_transient_failures(task):
    with StubServer(model_name="m", fail_first=2) as server:
        async with OpenAIChatBackend(OpenAIConfig(server.url, "m", backoff_s=0.01)) as backend:
            turn = await backend.complete(request(task, tools=[]))
    assert turn.content == "정답: 모름" and len(server.requests) == 3
    assert "tools" not in server.requests[-1]  # no tools, no tool_choice


async def test_it_gives_up_after_max_attempts_and_on_client_errors(task):
    with StubServer(model_name="m", fail_first=5) as server:
        async with OpenAIChatBackend(OpenAIConfig(server.url, "m", backoff_s=0.01, max_attempts=2)) as backend:
            with pytest.raises(BackendError, match=r"HTTP 503.*after 2 attempt"):
                await backend.complete(request(task))
    with StubServer(model_name="m") as server:
        async with OpenAIChatBackend(OpenAIConfig(server.url, "other-model", backoff_s=0.01)) as backend:
            with pytest.raises(BackendError, match=r"HTTP 404.*after 1 attempt"):
                await backend.complete(request(task))


async def test_a_down_server_is_a_backend_error(task):
    async with OpenAIChatBackend(OpenAIConfig("http://127.0.0.1:9/v1", "m", backoff_s=0.01, max_attempts=2)) as backend:
        with pytest.raises(BackendError, match="ConnectError"):
            await backend.complete(request(task))


async def test_the_api_key_never_reaches_error_text(task):
    secret = "sk-live-0123456789abcdef"

    def echo(http_request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, text=f"bad key {http_request.headers['authorization']}")

    config = OpenAIConfig("http://llm.invalid/v1", "m", api_key=secret)
    assert secret not in repr(config)
    async with OpenAIChatBackend(config, transport=httpx.MockTransport(echo)) as backend:
        with pytest.raises(BackendError) as caught:
            await backend.complete(request(task))
    assert secret not in str(caught.value) and "bad key Bearer ***" in str(caught.value)


async def test_it_reads_malformed_calls_usage_and_thinking(task):
    payload = {
        "choices": [
            {
                "message": {
                    "content": "<think>음</think>찾아볼게요",
                    "tool_calls": [
                        {"id": "a", "function": {"name": "get_rest_de_info", "arguments": '{"solYear": '}},
                        {"id": "b", "function": {"arguments": "{}"}},
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 9},
    }
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json=payload))
    async with OpenAIChatBackend(OpenAIConfig("http://llm.invalid/v1", "m"), transport=transport) as backend:
        turn = await backend.complete(request(task))
    assert turn.content == "찾아볼게요"
    assert [(c.id, c.name, c.arguments is None, c.error.split(":")[0]) for c in turn.tool_calls] == [
        ("a", "get_rest_de_info", True, "call.bad_json"),
        ("b", None, True, "call.bad_json"),
    ]
    assert (turn.usage.prompt_tokens, turn.usage.completion_tokens) == (120, 9)
    garbage = httpx.MockTransport(lambda r: httpx.Response(200, text="<html>gateway</html>"))
    async with OpenAIChatBackend(OpenAIConfig("http://llm.invalid/v1", "m"), transport=garbage) as backend:
        with pytest.raises(BackendError, match="not a chat completion"):
            await backend.complete(request(task))


async def test_an_episode_through_the_endpoint(task):
    env = StaticToolEnvironment(TOOLS, {"get_rest_de_info": lambda args: [{"locdate": 20261003}]})
    with StubServer(model_name="m", latency_s=0.01) as server:
        async with OpenAIChatBackend(OpenAIConfig(server.url, "m")) as backend:
            result = await run_episode(task, backend, env, config=RunConfig(max_steps=3))
    assert (result.stop_reason, result.answer, len(result.steps)) == ("answer", "정답: 모름", 2)
    assert result.calls[0].status == "ok"
    second = server.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
    assert json.loads(second[3]["content"])["records"] == [{"locdate": 20261003}]
