"""Command line for the engines, without Django: validate task files, run a model on them, score a run.

    python -m benchmarks.engine.cli validate benchmarks/tasks/
    python -m benchmarks.engine.cli stats benchmarks/tasks/
    python -m benchmarks.engine.cli run --tasks benchmarks/tasks/ --backend oracle --start-sandbox --out var/bench/oracle.jsonl
    python -m benchmarks.engine.cli run --tasks benchmarks/tasks/ --backend openai --base-url http://gpu:8000/v1 \
        --model kor-tool-9b --sandbox-url http://127.0.0.1:8765 --seeds 0 1 2 3 --concurrency 16 --out var/bench/run.jsonl
    python -m benchmarks.engine.cli run ... --backend openai --vllm-checkpoint /models/ckpt --served-model-name kor-tool-9b
    python -m benchmarks.engine.cli score --tasks benchmarks/tasks/ --results var/bench/run.jsonl --k 1 --k 4

The tools are the catalog built from the sandbox's Swagger specs (apis/sandbox/specs); an API key for the
endpoint is read from the environment variable named by --api-key-env, never from the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from pathlib import Path

from apis.engine.function_schema import FunctionToolset, build_toolset
from apis.engine.spec_import import import_spec
from benchmarks.engine.backends.base import Backend, SamplingParams
from benchmarks.engine.metrics import score_run
from benchmarks.engine.runner import (
    ClockedExecutors,
    RunConfig,
    catalog_environment_factory,
    read_results_jsonl,
    run_tasks,
    write_results_jsonl,
)
from benchmarks.engine.suite import suite_stats
from benchmarks.engine.task import TaskFileError, load_tasks
from benchmarks.engine.vllm_launcher import VllmConfig, endpoint

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "apis" / "sandbox" / "specs"


def sandbox_catalog(specs: Path = SPECS) -> FunctionToolset:
    tools = []
    for spec in sorted(Path(specs).glob("*.json")):
        result = import_spec(spec)
        if not result.ok:
            raise SystemExit(f"{spec}: {result.report()}")
        tools.extend(result.tools)
    return build_toolset(tools)


def catalog_arguments(catalog: FunctionToolset) -> dict[str, list[str]]:
    """{function name: the argument names its schema shows a model}: what gold calls may use."""
    return {
        schema["function"]["name"]: list(schema["function"]["parameters"]["properties"]) for schema in catalog.schemas
    }


def _load(paths, catalog: FunctionToolset):
    try:
        return load_tasks(paths, catalog=catalog_arguments(catalog))
    except TaskFileError as error:
        print(error, file=sys.stderr)
        raise SystemExit(1) from None


def cmd_validate(args) -> int:
    tasks = _load(args.paths, sandbox_catalog(args.specs))
    print(f"{len(tasks)} tasks OK, checksum {tasks.checksum}")
    for path, version in tasks.data_versions.items():
        print(f"  {path}: data_version {version}")
    return 0


def cmd_stats(args) -> int:
    catalog = sandbox_catalog(args.specs)
    tasks = _load(args.paths, catalog)
    provider_of = {name: tool.provider or tool.base_url for name, tool in catalog.tools.items()}
    stats = suite_stats(tasks, provider_of=provider_of)
    print(json.dumps(stats.as_dict(), ensure_ascii=False, indent=2))
    return 0


def _backend(args, base_url: str | None, model: str | None) -> Backend:
    if args.backend == "oracle":
        from benchmarks.engine.backends.oracle import OracleBackend

        return OracleBackend()
    if args.backend == "transformers":
        from benchmarks.engine.backends.transformers_local import TransformersBackend

        return TransformersBackend(args.checkpoint, device=args.device)
    from benchmarks.engine.backends.openai_http import OpenAIChatBackend, OpenAIConfig

    api_key = os.environ.get(args.api_key_env) if args.api_key_env else None
    extra = json.loads(args.extra_body) if args.extra_body else {}
    return OpenAIChatBackend(OpenAIConfig(base_url, model, api_key=api_key, extra_body=extra))


@contextlib.contextmanager
def _sandbox(args):
    if args.start_sandbox:
        from apis.sandbox.server import start_sandbox_server

        url, stop = start_sandbox_server(port=0)
        try:
            yield url
        finally:
            stop()
    else:
        yield args.sandbox_url


@contextlib.contextmanager
def _endpoint(args):
    if args.backend != "openai":
        yield None, None
        return
    if args.vllm_checkpoint:
        config = VllmConfig(
            checkpoint=args.vllm_checkpoint,
            served_model_name=args.served_model_name or Path(args.vllm_checkpoint).name,
            tool_call_parser=args.tool_call_parser,
            port=args.vllm_port,
            max_model_len=args.max_model_len,
            extra_args=tuple(args.vllm_arg or ()),
        )
        log = Path(args.out).with_suffix(".vllm.log")
        with endpoint(vllm=config, log_path=log) as served:
            yield served
    else:
        if not args.base_url or not args.model:
            raise SystemExit("--backend openai needs --base-url and --model, or --vllm-checkpoint")
        yield args.base_url, args.model


def cmd_run(args) -> int:
    from apis.sandbox.config import DEMO_KEY

    catalog = sandbox_catalog(args.specs)
    tasks = list(_load(args.tasks, catalog))
    if args.only:
        wanted = set(args.only)
        tasks = [t for t in tasks if t.id in wanted]
    config = RunConfig(
        max_steps=args.max_steps,
        concurrency=args.concurrency,
        sampling=SamplingParams(temperature=args.temperature, max_tokens=args.max_tokens),
        episode_timeout_s=args.episode_timeout,
    )

    def progress(result, done, total):
        print(
            f"[{done}/{total}] {result.task_id} seed {result.seed}: {result.stop_reason}", file=sys.stderr, flush=True
        )

    with _sandbox(args) as sandbox_url, _endpoint(args) as (base_url, model):
        if not sandbox_url:
            raise SystemExit("give --sandbox-url or --start-sandbox")

        async def main():
            executors = ClockedExecutors(
                "sandbox", sandbox_origin=sandbox_url, sandbox_key=args.sandbox_key or DEMO_KEY
            )
            backend = _backend(args, base_url, model)
            try:
                return await run_tasks(
                    tasks,
                    backend,
                    catalog_environment_factory(catalog, executors),
                    seeds=args.seeds,
                    config=config,
                    on_result=progress,
                )
            finally:
                await backend.aclose()
                await executors.aclose()

        started = time.perf_counter()
        episodes = asyncio.run(main())
        wall = time.perf_counter() - started
    path = write_results_jsonl(args.out, episodes)
    print(f"{len(episodes)} episodes in {wall:.1f} s -> {path}")
    return 0


def cmd_score(args) -> int:
    catalog = sandbox_catalog(args.specs)
    tasks = list(_load(args.tasks, catalog))
    episodes = read_results_jsonl(args.results)
    ids = {e.task_id for e in episodes}
    _, report = score_run(
        [t for t in tasks if t.id in ids], episodes, ks=args.k or (1,), require_action=args.require_action
    )
    data = report.to_dict()
    if args.json:
        Path(args.json).write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    overall = report.overall
    print(f"{overall.tasks} tasks, {overall.episodes} episodes, {overall.seeds_per_task} seeds per task")
    for name in ("response", "environment", "action", "success"):
        estimate = getattr(overall, name)
        print(f"  {name:<12} {estimate.value:.3f}  [{estimate.low:.3f}, {estimate.high:.3f}]")
    for k, estimate in overall.pass_at.items():
        hat = overall.pass_hat[k]
        print(f"  pass@{k} {estimate.value:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]  pass^{k} {hat.value:.3f}")
    for category, group in report.categories.items():
        print(f"  {category:<24} success {group.success.value:.3f} over {group.episodes} episodes")
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="benchmarks.engine.cli", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    root.add_argument("--specs", type=Path, default=SPECS, help="folder of Swagger specs that make the tool catalog")
    commands = root.add_subparsers(dest="command", required=True)

    validate = commands.add_parser("validate", help="check task files")
    validate.add_argument("paths", nargs="+")
    validate.set_defaults(func=cmd_validate)

    stats = commands.add_parser("stats", help="what a suite covers: providers, domains, calls, shapes")
    stats.add_argument("paths", nargs="+")
    stats.set_defaults(func=cmd_stats)

    run = commands.add_parser("run", help="run a backend on tasks and store the episodes as JSON lines")
    run.add_argument("--tasks", nargs="+", required=True)
    run.add_argument("--only", nargs="*", help="task ids to run (default: all)")
    run.add_argument("--backend", choices=["oracle", "openai", "transformers"], required=True)
    run.add_argument("--base-url", help="OpenAI-compatible endpoint, ending in /v1")
    run.add_argument("--model", help="model name the endpoint serves")
    run.add_argument("--api-key-env", help="environment variable holding the endpoint's API key")
    run.add_argument(
        "--extra-body",
        help='JSON merged into every request, e.g. \'{"chat_template_kwargs": {"enable_thinking": false}}\'',
    )
    run.add_argument("--vllm-checkpoint", help="start vLLM for this checkpoint (GPU box) instead of --base-url")
    run.add_argument("--served-model-name")
    run.add_argument("--tool-call-parser", default="hermes")
    run.add_argument("--vllm-port", type=int, default=8000)
    run.add_argument("--max-model-len", type=int)
    run.add_argument("--vllm-arg", action="append", help="extra argument for vllm serve (repeatable)")
    run.add_argument("--checkpoint", help="local checkpoint for --backend transformers")
    run.add_argument("--device", default="cpu")
    run.add_argument("--sandbox-url", help="standalone sandbox origin, e.g. http://127.0.0.1:8765")
    run.add_argument("--start-sandbox", action="store_true", help="start a sandbox server in this process")
    run.add_argument("--sandbox-key", help="service key for the sandbox (default: its demo key)")
    run.add_argument("--seeds", type=int, nargs="+", default=[0])
    run.add_argument("--concurrency", type=int, default=8)
    run.add_argument("--max-steps", type=int, default=8)
    run.add_argument("--temperature", type=float, default=0.0)
    run.add_argument("--max-tokens", type=int, default=1024)
    run.add_argument("--episode-timeout", type=float)
    run.add_argument("--out", required=True)
    run.set_defaults(func=cmd_run)

    score = commands.add_parser("score", help="score stored episodes")
    score.add_argument("--tasks", nargs="+", required=True)
    score.add_argument("--results", required=True)
    score.add_argument("--k", type=int, action="append")
    score.add_argument("--require-action", action="store_true")
    score.add_argument("--json", help="write the full report here")
    score.set_defaults(func=cmd_score)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
