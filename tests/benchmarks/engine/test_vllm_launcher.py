"""The vLLM launcher: the exact command, and start / health wait / stop against a fake `vllm` executable."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx
import pytest

from benchmarks.engine.vllm_launcher import (
    VllmConfig,
    VllmLaunchError,
    VllmServer,
    build_command,
    display_command,
    endpoint,
    wait_for_models,
)

ROOT = Path(__file__).resolve().parents[3]
FAKE_VLLM = (sys.executable, "-m", "tests.support.fake_vllm")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_it_builds_the_vllm_serve_command():
    config = VllmConfig(
        checkpoint="/models/kor-tool-9b",
        served_model_name="kor-tool-9b",
        port=8001,
        max_model_len=16384,
        gpu_memory_utilization=0.85,
        tensor_parallel_size=2,
        dtype="bfloat16",
        lora_modules={"edge-grpo": "/adapters/edge"},
        max_lora_rank=64,
        extra_args=("--enforce-eager",),
    )
    assert build_command(config) == [
        "vllm", "serve", "/models/kor-tool-9b",
        "--served-model-name", "kor-tool-9b",
        "--host", "127.0.0.1", "--port", "8001",
        "--enable-auto-tool-choice", "--tool-call-parser", "hermes",
        "--max-model-len", "16384",
        "--gpu-memory-utilization", "0.85",
        "--tensor-parallel-size", "2",
        "--dtype", "bfloat16",
        "--max-lora-rank", "64",
        "--enable-lora", "--lora-modules", "edge-grpo=/adapters/edge",
        "--enforce-eager",
    ]  # fmt: skip
    assert config.base_url == "http://127.0.0.1:8001/v1"


def test_qwen35_uses_the_xml_parser_and_the_key_is_masked():
    config = VllmConfig("/m/qwen3.5-4b", "q", tool_call_parser="qwen3_coder", host="0.0.0.0", api_key="s3cret-key-1")
    command = build_command(config)
    assert command[command.index("--tool-call-parser") + 1] == "qwen3_coder"
    assert command[-2:] == ["--api-key", "s3cret-key-1"]
    assert "s3cret" not in display_command(config) and "--api-key '***'" in display_command(config)
    assert "s3cret" not in repr(config)
    assert config.base_url == "http://127.0.0.1:8000/v1"  # a wildcard bind is reached on loopback


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"checkpoint": ""}, "checkpoint"),
        ({"served_model_name": "two words"}, "served_model_name"),
        ({"tool_call_parser": "hermes; rm -rf /"}, "not a parser name"),
        ({"port": 0}, "port"),
        ({"gpu_memory_utilization": 1.5}, "fraction"),
    ],
)
def test_it_rejects_bad_configs(changes, message):
    values = {"checkpoint": "/m", "served_model_name": "m", **changes}
    with pytest.raises(ValueError, match=message):
        VllmConfig(**values)


@pytest.mark.slow
def test_it_starts_waits_for_health_serves_and_stops(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_VLLM_STARTUP_S", "0.5")
    config = VllmConfig("/models/tiny", "tiny-served", port=free_port(), executable=FAKE_VLLM)
    log = tmp_path / "vllm.log"
    with VllmServer(config, log_path=log, cwd=ROOT, poll_s=0.1, startup_timeout_s=30) as server:
        assert server.ready_after_s >= 0.4
        models = httpx.get(server.base_url + "/models").json()
        assert [m["id"] for m in models["data"]] == ["tiny-served"]
        pid = server.process.pid
    assert server.process.returncode is not None
    with pytest.raises(ProcessLookupError):
        import os

        os.kill(pid, 0)
    assert "fake vllm: serving /models/tiny as tiny-served" in log.read_text()


@pytest.mark.slow
def test_a_crash_at_start_reports_the_log(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_VLLM_EXIT_CODE", "3")
    config = VllmConfig("/models/missing", "m", port=free_port(), executable=FAKE_VLLM)
    server = VllmServer(config, log_path=tmp_path / "vllm.log", cwd=ROOT, poll_s=0.1, startup_timeout_s=30)
    server.start()
    with pytest.raises(VllmLaunchError) as caught:
        server.wait_ready()
    text = str(caught.value)
    assert "vLLM exited with code 3 before it was ready" in text
    assert "last log lines:" in text and "failing on purpose with 3" in text


@pytest.mark.slow
def test_a_server_that_never_gets_ready_is_stopped(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_VLLM_STARTUP_S", "60")
    config = VllmConfig("/models/slow", "m", port=free_port(), executable=FAKE_VLLM)
    server = VllmServer(config, log_path=tmp_path / "vllm.log", cwd=ROOT, poll_s=0.1, startup_timeout_s=1)
    started = time.monotonic()
    with pytest.raises(VllmLaunchError, match="was not ready within 1 s"), server:
        pass
    assert time.monotonic() - started < 20
    assert server.process.poll() is not None


def test_a_missing_executable_is_a_launch_error():
    config = VllmConfig("/m", "m", executable=("/nonexistent/vllm",))
    with pytest.raises(VllmLaunchError, match="could not start '/nonexistent/vllm'"):
        VllmServer(config).start()


def test_wait_for_models_until_the_name_is_listed():
    answers = iter([httpx.Response(503), httpx.Response(200, json={"data": [{"id": "other"}]})])

    def respond(request):
        return next(answers, httpx.Response(200, json={"data": [{"id": "other"}, {"id": "mine"}]}))

    waited = wait_for_models("http://llm.invalid/v1", "mine", poll_s=0.01, transport=httpx.MockTransport(respond))
    assert waited >= 0
    with pytest.raises(VllmLaunchError, match="lists \\['other'\\], not 'mine'"):
        wait_for_models(
            "http://llm.invalid/v1",
            "mine",
            timeout_s=0.05,
            poll_s=0.01,
            transport=httpx.MockTransport(lambda r: httpx.Response(200, json={"data": [{"id": "other"}]})),
        )
    with pytest.raises(VllmLaunchError, match="gone"):
        wait_for_models("http://llm.invalid/v1", "mine", alive=lambda: "gone")


def test_endpoint_uses_a_given_server_or_refuses_ambiguity():
    with endpoint(base_url="http://gpu-box:8000/v1", model="kor-tool-9b") as (url, model):
        assert (url, model) == ("http://gpu-box:8000/v1", "kor-tool-9b")
    with pytest.raises(ValueError, match="either base_url"), endpoint():
        pass
    with pytest.raises(ValueError, match="needs the model name"), endpoint(base_url="http://gpu-box:8000/v1"):
        pass
