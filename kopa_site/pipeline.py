"""The main job: everything `./kopa up` runs before it serves, idempotent and resumable.

bootstrap (migrate, demo users, bundled catalog, KOPA-Bench tasks) → propose and verify edges → snapshot the
graph → synthesize trajectories → evaluate on KOPA-Bench the oracle, the locally built tiny model where one is present
(`--tiny` builds it) and any model the user configured.

Each step is a management command run by name, preceded by a check of what is already there, so a
second run skips finished work in seconds and an interrupted one carries on where it stopped. Like
`kopa_site/urls.py`, this module is a composition root: it names the apps' commands and counts their
rows (by app label, never importing their modules), and no app imports it.

Calls go to the sandbox origin the settings name; when nothing answers there, the job starts the
standalone sandbox (`sandbox_serve`) as a child process on a free port for its own calls and stops it
at the end.
"""

from __future__ import annotations

import io
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.db.models import Max

from kopa_site.env import env_bool, env_choice, env_int, env_str
from kopa_site.errors import DomainError
from kopa_site.jobs import JobContext, JobError, job_kind
from kopa_site.roles import ADMIN

ROOT = Path(__file__).resolve().parent.parent
SANDBOX_START_TIMEOUT_S = 120.0
TINY_MODEL_NAME = "tiny-qwen3"
# The tiny model writes words, not tool calls, until it is trained; short turns keep its evaluation in minutes.
TINY_MODEL_LIMITS = ["--max-tokens", "96", "--max-steps", "4"]


def tiny_model_dir() -> Path:
    """Where the main job looks for the locally built tiny model (KOPA_PIPELINE_TINY_MODEL, else var/models/)."""
    return Path(env_str("KOPA_PIPELINE_TINY_MODEL", "") or settings.VAR_DIR / "models" / TINY_MODEL_NAME)


class PipelineError(DomainError):
    """A step cannot run; the message says what to start or set."""


@dataclass
class PipelineOptions:
    trajectories: int = 200  # trajectories to hold after synthesis (tops up, never adds more than needed)
    mode: str = "sandbox"  # executor mode of every step that calls APIs: sandbox or live
    sandbox_origin: str = ""  # empty: KOPA_SANDBOX_ORIGIN, or a sandbox the job starts itself
    verify_rounds: int | None = None  # None: the verification default
    synth_concurrency: int | None = None
    tasks: list[str] = field(default_factory=list)  # KOPA-Bench task ids for the evaluations (empty: all)
    model_name: str = ""  # a model the user configured: an OpenAI-compatible endpoint or a local checkpoint
    model_url: str = ""
    model_key_env: str = ""
    model_checkpoint: str = ""
    skip_pipeline: bool = False  # only the set-up step (bootstrap)
    tiny: bool = False  # build the tiny Qwen3 model from config when it is not there yet, then evaluate it


@dataclass
class StepOutcome:
    name: str
    label: str
    status: str  # "done" (ran now), "skipped" (already done) or "failed"
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Step:
    name: str
    label: str
    calls_apis: bool
    done: Callable[[PipelineOptions], str]  # why the step can be skipped, or "" to run it
    run: Callable[[PipelineOptions, Callable[..., None]], None]  # (options, command runner)


def _model(label: str, name: str):
    return apps.get_model(label, name)


# --- checks: what is already there ----------------------------------------------------------------------


def _never(options: PipelineOptions) -> str:
    return ""  # bootstrap is idempotent and quick: migrations, schedules, catalog and tasks change only what differs


def _candidates_done(options: PipelineOptions) -> str:
    count = _model("graphs", "CandidateEdge").objects.count()
    return f"{count} candidate edges already proposed" if count else ""


UNDECIDED_EDGE_STATES = ("proposed", "verifying")


def _verification_done(options: PipelineOptions) -> str:
    Run = _model("graphs", "VerificationRun")
    Edge = _model("graphs", "CandidateEdge")
    if not Run.objects.filter(status="finished").exists():
        return ""
    undecided = Edge.objects.filter(status__in=UNDECIDED_EDGE_STATES).count()
    if undecided and Run.objects.filter(status__in=("stopped", "pending", "running")).exists():
        return ""  # an interrupted run: carry on
    verified = Edge.objects.filter(status="verified").count()
    return f"a verification run has finished ({verified} verified edges, {undecided} undecided)"


def _snapshot_done(options: PipelineOptions) -> str:
    Snapshot = _model("graphs", "GraphSnapshot")
    Run = _model("graphs", "VerificationRun")
    latest = Snapshot.objects.order_by("-version").first()
    if latest is None:
        return ""
    last_run = Run.objects.filter(status="finished").aggregate(at=Max("finished_at"))["at"]
    if last_run and latest.created_at < last_run:
        return ""
    return f"graph v{latest.version} is up to date"


def _trajectories_done(options: PipelineOptions) -> str:
    have = _model("datasets", "Trajectory").objects.count()
    return f"{have} trajectories already (target {options.trajectories})" if have >= options.trajectories else ""


def _eval_done(name: str) -> Callable[[PipelineOptions], str]:
    def check(options: PipelineOptions) -> str:
        model = name or options.model_name
        run = _model("benchmarks", "EvalRun").objects.filter(model__name=model, status="finished").first()
        return f"{model} already evaluated (run #{run.pk})" if run else ""

    return check


# --- steps ----------------------------------------------------------------------------------------------


def _origin_args(options: PipelineOptions) -> list[str]:
    args = ["--mode", options.mode]
    if options.mode == "sandbox":
        args += ["--sandbox-origin", options.sandbox_origin]
    return args


def _run_setup(options, command):
    command("bootstrap")


def _run_propose(options, command):
    command("edges_propose")


def _run_verify(options, command):
    Run = _model("graphs", "VerificationRun")
    stopped = Run.objects.filter(status="stopped").order_by("-pk").first()
    if stopped is not None:
        command("edges_verify", "--resume", str(stopped.pk))
        return
    args = _origin_args(options)
    if options.verify_rounds:
        args += ["--rounds", str(options.verify_rounds)]
    command("edges_verify", *args)


def _run_snapshot(options, command):
    command("graph_snapshot", "--note", "main job")


def _run_synthesize(options, command):
    missing = options.trajectories - _model("datasets", "Trajectory").objects.count()
    args = ["--count", str(missing), *_origin_args(options)]
    if options.synth_concurrency:
        args += ["--concurrency", str(options.synth_concurrency)]
    command("synthesize", *args)


def _tiny_present() -> bool:
    return (tiny_model_dir() / "config.json").is_file()


def _run_tiny_model(options, command):
    folder = tiny_model_dir()
    if not _tiny_present():
        # The training engine builds it in its own process: it imports transformers and HF `datasets`,
        # which the app `datasets/` would shadow here.
        script = ROOT / "training" / "engine" / "tiny.py"
        done = subprocess.run(
            [sys.executable, "-P", str(script), str(folder)], capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0 or not _tiny_present():
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise PipelineError(f"building the tiny model in {folder} failed: {tail[0]}")
    command(
        "bench_run",
        "--model",
        TINY_MODEL_NAME,
        "--backend",
        "transformers",
        "--checkpoint",
        str(folder),
        "--device",
        "cpu",
        *TINY_MODEL_LIMITS,
        *_bench_args(options),
    )


def _bench_args(options: PipelineOptions) -> list[str]:
    args = ["--seeds", "0"]
    if options.tasks:
        args += ["--tasks", *options.tasks]
    return args


def _run_oracle(options, command):
    command("bench_run", "--model", "oracle", "--backend", "oracle", *_bench_args(options))


def _run_user_model(options, command):
    if options.model_url:
        args = ["--backend", "openai", "--base-url", options.model_url]
        if options.model_key_env:
            args += ["--api-key-env", options.model_key_env]
    else:
        args = ["--backend", "transformers", "--checkpoint", options.model_checkpoint]
    command("bench_run", "--model", options.model_name, *args, *_bench_args(options))


def steps_for(options: PipelineOptions) -> list[Step]:
    steps = [Step("setup", "database, demo users, bundled catalog, KOPA-Bench tasks", False, _never, _run_setup)]
    if options.skip_pipeline:
        return steps
    steps += [
        Step("propose", "propose candidate edges", False, _candidates_done, _run_propose),
        Step("verify", "verify edges by execution", True, _verification_done, _run_verify),
        Step("snapshot", "snapshot the verified graph", False, _snapshot_done, _run_snapshot),
        Step("synthesize", "synthesize trajectories", True, _trajectories_done, _run_synthesize),
        Step("oracle", "KOPA-Bench: the oracle", True, _eval_done("oracle"), _run_oracle),
    ]
    if options.tiny or _tiny_present():
        steps.append(
            Step("tiny", "KOPA-Bench: the local tiny model", True, _eval_done(TINY_MODEL_NAME), _run_tiny_model)
        )
    if options.model_name and (options.model_url or options.model_checkpoint):
        steps.append(Step("model", f"KOPA-Bench: {options.model_name}", True, _eval_done(""), _run_user_model))
    return steps


# --- the sandbox the job may start ----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _SandboxChild:
    """A standalone sandbox server in a child process, for the job's own calls."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.origin = ""

    def start(self, log) -> str:
        from apis.origin import OriginUnreachable, sandbox_origin_check

        port = _free_port()
        self.origin = f"http://127.0.0.1:{port}"
        log_path = Path(settings.VAR_DIR) / "log" / "pipeline-sandbox.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, str(ROOT / "manage.py"), "sandbox_serve", "--port", str(port)],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + SANDBOX_START_TIMEOUT_S
        while True:
            try:
                return sandbox_origin_check(self.origin, timeout_s=2.0)
            except OriginUnreachable as exc:
                if self.process.poll() is not None:
                    raise PipelineError(f"the sandbox server exited at start; see {log_path}") from None
                if time.monotonic() > deadline:
                    self.stop()
                    raise PipelineError(f"the sandbox server did not answer within 120 s: {exc}") from None
                time.sleep(0.3)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


# --- the job --------------------------------------------------------------------------------------------


@dataclass
class PipelineReport:
    steps: list[StepOutcome] = field(default_factory=list)
    sandbox_origin: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def site_counts() -> dict[str, int]:
    """What the console now holds, for the summary."""
    counts = {
        "tools": _model("apis", "Tool").objects.count(),
        "api calls": _model("apis", "ApiCall").objects.count(),
        "candidate edges": _model("graphs", "CandidateEdge").objects.count(),
        "verified edges": _model("graphs", "CandidateEdge").objects.filter(status="verified").count(),
        "graph versions": _model("graphs", "GraphSnapshot").objects.count(),
        "trajectories": _model("datasets", "Trajectory").objects.count(),
        "benchmark tasks": _model("benchmarks", "Task").objects.count(),
        "evaluation runs": _model("benchmarks", "EvalRun").objects.filter(status="finished").count(),
    }
    return counts


def _ensure_origin(options: PipelineOptions, child: _SandboxChild, log) -> None:
    from apis.origin import OriginUnreachable, origin_check, sandbox_origin_check

    if options.mode == "live":
        hosts = list(_model("apis", "ApiService").objects.values_list("base_url", flat=True).distinct())
        try:
            origin_check(mode="live", live_base_urls=hosts)
        except OriginUnreachable as exc:
            raise PipelineError(str(exc)) from None
        return
    if options.sandbox_origin:
        try:
            options.sandbox_origin = sandbox_origin_check(options.sandbox_origin)
        except OriginUnreachable as exc:
            raise PipelineError(str(exc)) from None
        return
    try:
        options.sandbox_origin = sandbox_origin_check(None, timeout_s=1.0)
        log(f"calls go to the sandbox at {options.sandbox_origin}")
    except OriginUnreachable:
        log("no sandbox answers at KOPA_SANDBOX_ORIGIN; starting one for this job (sandbox_serve)")
        options.sandbox_origin = child.start(log)
        log(f"calls go to the sandbox at {options.sandbox_origin}")


def pipeline_run(
    *,
    options: PipelineOptions,
    progress: Callable[[int, int, str], None],
    log: Callable[[str], None],
    stdout=None,
    stderr=None,
    check_cancelled: Callable[[], None] = lambda: None,
) -> PipelineReport:
    """Run every step that is not already done, in order; stop at the first failure (its outcome says why)."""
    started = time.monotonic()
    steps = steps_for(options)
    report = PipelineReport()
    child = _SandboxChild()
    stdout = stdout if stdout is not None else io.StringIO()
    stderr = stderr if stderr is not None else io.StringIO()

    def command(name: str, *args: str) -> None:
        call_command(name, *args, stdout=stdout, stderr=stderr)

    previous_origin = getattr(settings, "KOPA_SANDBOX_ORIGIN", "")
    try:
        for number, step in enumerate(steps, 1):
            check_cancelled()
            progress(number - 1, len(steps), step.label)
            skip = step.done(options)
            if skip:
                report.steps.append(StepOutcome(step.name, step.label, "skipped", skip))
                log(f"[{number}/{len(steps)}] {step.label}: skipped, {skip}")
                continue
            if step.calls_apis and not report.sandbox_origin:
                _ensure_origin(options, child, log)
                report.sandbox_origin = options.sandbox_origin
                if options.mode == "sandbox":
                    # The evaluation runner reads the origin from the settings.
                    settings.KOPA_SANDBOX_ORIGIN = options.sandbox_origin
            log(f"[{number}/{len(steps)}] {step.label}")
            step_started = time.monotonic()
            try:
                step.run(options, command)
            except Exception as exc:  # a command's error: the outcome and the message say which step
                report.steps.append(
                    StepOutcome(step.name, step.label, "failed", str(exc), round(time.monotonic() - step_started, 1))
                )
                raise PipelineError(f"step {step.name} ({step.label}) failed: {exc}") from exc
            report.steps.append(
                StepOutcome(step.name, step.label, "done", "", round(time.monotonic() - step_started, 1))
            )
        progress(len(steps), len(steps), "done")
    finally:
        child.stop()
        settings.KOPA_SANDBOX_ORIGIN = previous_origin
        report.counts = site_counts() if apps.ready else {}
        report.seconds = round(time.monotonic() - started, 1)
    return report


def options_from_env() -> PipelineOptions:
    """The options `./kopa up` takes from its environment (README: configuration)."""
    return PipelineOptions(
        trajectories=env_int("KOPA_PIPELINE_TRAJECTORIES", 200, minimum=0),
        mode=env_choice("KOPA_PIPELINE_MODE", ("sandbox", "live"), "sandbox"),
        model_name=env_str("KOPA_PIPELINE_MODEL", "") or "",
        model_url=env_str("KOPA_PIPELINE_MODEL_URL", "") or "",
        model_key_env=env_str("KOPA_PIPELINE_MODEL_KEY_ENV", "") or "",
        model_checkpoint=env_str("KOPA_PIPELINE_CHECKPOINT", "") or "",
        skip_pipeline=env_bool("KOPA_SKIP_PIPELINE", False),
        tiny=env_bool("KOPA_PIPELINE_TINY", False),
    )


@job_kind("pipeline.run", title="Run the main job (verify, snapshot, synthesize, evaluate)", startable_by=ADMIN)
def pipeline_job(ctx: JobContext, trajectories: int = 200, sandbox_origin: str = "", tasks: list[str] | None = None):
    """The main job from the console: the same steps as `./kopa up`, skipping what is done."""
    if not isinstance(trajectories, int) or isinstance(trajectories, bool) or trajectories < 0:
        raise JobError("trajectories must be a whole number, 0 or more")
    options = PipelineOptions(trajectories=trajectories, sandbox_origin=sandbox_origin or "", tasks=list(tasks or []))
    try:
        report = pipeline_run(options=options, progress=ctx.progress, log=ctx.log, check_cancelled=ctx.check_cancelled)
    except PipelineError as exc:
        raise JobError(str(exc)) from None
    return report.to_dict()
