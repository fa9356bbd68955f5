"""Serving a local checkpoint with vLLM for an evaluation run, or using an endpoint that already exists.

build_command() makes the `vllm serve CKPT --served-model-name NAME --enable-auto-tool-choice
--tool-call-parser hermes|qwen3_coder …` command; VllmServer starts it in its own process group with its
output in a log file, waits until GET /v1/models lists the served name, and stops the whole group (SIGTERM,
then SIGKILL). endpoint() yields a base URL and model name either way, so a run does not care which it got.
vLLM itself is only installed on GPU boxes (requirements-gpu.txt); nothing here imports it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

# Parsers for the model families we serve; vLLM has more (vllm serve --help lists them).
KNOWN_TOOL_PARSERS = ("hermes", "qwen3_coder", "qwen3_xml", "qwen3_json", "llama3_json", "mistral", "openai", "hf")
_PARSER_NAME = re.compile(r"^[a-z0-9_]+$")


class VllmLaunchError(RuntimeError):
    """vLLM did not come up (it exited, or was not ready in time); the message ends with its last log lines."""


@dataclass(frozen=True)
class VllmConfig:
    checkpoint: str  # a local folder (or a hub id on a box that has the weights cached)
    served_model_name: str
    tool_call_parser: str = "hermes"  # hermes for Qwen2.5/Qwen3 <tool_call>{json}; qwen3_coder for Qwen3.5 XML
    host: str = "127.0.0.1"
    port: int = 8000
    max_model_len: int | None = None
    gpu_memory_utilization: float | None = None
    tensor_parallel_size: int | None = None
    dtype: str | None = None
    chat_template: str | None = None  # a .jinja file, when the checkpoint's own template is not the one to use
    reasoning_parser: str | None = None
    lora_modules: Mapping[str, str] = field(default_factory=dict)  # adapter name -> path; served beside the base
    max_lora_rank: int | None = None
    seed: int | None = None
    api_key: str | None = field(default=None, repr=False)
    extra_args: Sequence[str] = ()
    executable: Sequence[str] = ("vllm",)

    def __post_init__(self):
        if not self.checkpoint:
            raise ValueError("checkpoint is required")
        if not self.served_model_name or any(c.isspace() for c in self.served_model_name):
            raise ValueError("served_model_name is required and has no spaces")
        if not _PARSER_NAME.match(self.tool_call_parser):
            raise ValueError(
                f"tool_call_parser {self.tool_call_parser!r} is not a parser name (e.g. {', '.join(KNOWN_TOOL_PARSERS)})"
            )
        if not 0 < self.port < 65536:
            raise ValueError(f"port must be 1-65535; got {self.port}")
        if self.gpu_memory_utilization is not None and not 0 < self.gpu_memory_utilization <= 1:
            raise ValueError("gpu_memory_utilization is a fraction in (0, 1]")

    @property
    def base_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}/v1"


def build_command(config: VllmConfig) -> list[str]:
    command = [*config.executable, "serve", config.checkpoint, "--served-model-name", config.served_model_name]
    command += ["--host", config.host, "--port", str(config.port)]
    command += ["--enable-auto-tool-choice", "--tool-call-parser", config.tool_call_parser]
    options = {
        "--max-model-len": config.max_model_len,
        "--gpu-memory-utilization": config.gpu_memory_utilization,
        "--tensor-parallel-size": config.tensor_parallel_size,
        "--dtype": config.dtype,
        "--chat-template": config.chat_template,
        "--reasoning-parser": config.reasoning_parser,
        "--max-lora-rank": config.max_lora_rank,
        "--seed": config.seed,
    }
    for flag, value in options.items():
        if value is not None:
            command += [flag, str(value)]
    if config.lora_modules:
        command += [
            "--enable-lora",
            "--lora-modules",
            *(f"{name}={path}" for name, path in config.lora_modules.items()),
        ]
    if config.api_key:
        command += ["--api-key", config.api_key]
    return command + list(config.extra_args)


def display_command(config: VllmConfig) -> str:
    """The command as text for logs and pages, with the API key masked."""
    parts = build_command(config)
    if config.api_key:
        parts = ["***" if part == config.api_key else part for part in parts]
    return shlex.join(parts)


def wait_for_models(
    base_url: str,
    model: str,
    *,
    timeout_s: float = 900.0,
    poll_s: float = 2.0,
    alive: Callable[[], str | None] = lambda: None,
    api_key: str | None = None,
    transport: httpx.BaseTransport | None = None,
) -> float:
    """Poll GET {base_url}/models until `model` is listed; returns the seconds waited.

    alive() returns None while the server process runs, or why it stopped, which ends the wait at once.
    """
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    started = time.monotonic()
    last = "no answer yet"
    with httpx.Client(transport=transport, timeout=min(10.0, max(1.0, poll_s * 2)), headers=headers) as client:
        while True:
            gone = alive()
            if gone is not None:
                raise VllmLaunchError(gone)
            try:
                response = client.get(base_url.rstrip("/") + "/models")
                if response.status_code == 200:
                    served = [m.get("id") for m in response.json().get("data", [])]
                    if model in served:
                        return time.monotonic() - started
                    last = f"/models lists {served}, not {model!r}"
                else:
                    last = f"/models answered HTTP {response.status_code}"
            except (httpx.HTTPError, ValueError) as error:
                last = f"{type(error).__name__}: {error}"
            if time.monotonic() - started >= timeout_s:
                raise VllmLaunchError(f"{base_url} was not ready within {timeout_s:.0f} s ({last})")
            time.sleep(poll_s)


class VllmServer:
    """`with VllmServer(config, log_path=...) as server: ... server.base_url ...`"""

    def __init__(
        self,
        config: VllmConfig,
        *,
        log_path: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        startup_timeout_s: float = 900.0,
        poll_s: float = 2.0,
    ):
        self.config = config
        self.log_path = Path(log_path) if log_path else None
        self.env = {**os.environ, **(env or {})}
        self.cwd = str(cwd) if cwd else None
        self.startup_timeout_s = startup_timeout_s
        self.poll_s = poll_s
        self.process: subprocess.Popen | None = None
        self._log = None
        self.ready_after_s: float | None = None

    @property
    def base_url(self) -> str:
        return self.config.base_url

    def start(self) -> VllmServer:
        if self.process is not None:
            raise VllmLaunchError("this server was already started")
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = self.log_path.open("ab")
        output = self._log if self._log is not None else subprocess.DEVNULL
        try:
            self.process = subprocess.Popen(
                build_command(self.config),
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env,
                cwd=self.cwd,
                start_new_session=True,  # its own process group: stop() ends vLLM's workers too
            )
        except OSError as error:
            self._close_log()
            raise VllmLaunchError(f"could not start {self.config.executable[0]!r}: {error.strerror or error}") from None
        return self

    def wait_ready(self) -> float:
        try:
            self.ready_after_s = wait_for_models(
                self.base_url,
                self.config.served_model_name,
                timeout_s=self.startup_timeout_s,
                poll_s=self.poll_s,
                alive=self._exit_reason,
                api_key=self.config.api_key,
            )
        except VllmLaunchError as error:
            self.stop()
            raise VllmLaunchError(f"{error}{self._log_tail()}") from None
        return self.ready_after_s

    def _exit_reason(self) -> str | None:
        if self.process is None:
            return "not started"
        code = self.process.poll()
        return None if code is None else f"vLLM exited with code {code} before it was ready"

    def _log_tail(self, lines: int = 30) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
        if self.config.api_key:
            text = [line.replace(self.config.api_key, "***") for line in text]
        return "\nlast log lines:\n" + "\n".join(text) if text else ""

    def stop(self, timeout_s: float = 30.0) -> int | None:
        """Stop the process group; returns the exit code (None if it was never started)."""
        process = self.process
        if process is None:
            return None
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        self._close_log()
        return process.returncode

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> VllmServer:
        self.start()
        self.wait_ready()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


@contextlib.contextmanager
def endpoint(
    *, base_url: str | None = None, model: str | None = None, vllm: VllmConfig | None = None, **server_options
) -> Iterator[tuple[str, str]]:
    """(base_url, model) of a given endpoint, or of a vLLM server started for the duration of the block."""
    if (base_url is None) == (vllm is None):
        raise ValueError("give either base_url (and model) for an existing endpoint, or vllm to start one")
    if base_url is not None:
        if not model:
            raise ValueError("an existing endpoint needs the model name it serves")
        yield base_url, model
        return
    with VllmServer(vllm, **server_options) as server:
        yield server.base_url, vllm.served_model_name
