"""BFCL v4 through our own runner backends, scored with bfcl-eval's shipped data and its AST checker.

bfcl-eval is installed without its dependencies (requirements-nodeps.txt): its data files and
`eval_checker.ast_eval.ast_checker` need only the standard library, but the checker imports
`bfcl_eval.constants.model_config`, which imports every vendor SDK. When that import fails, a stand-in module
holding only MODEL_CONFIG_MAPPING is installed (the checker reads one attribute of it, `underscore_to_dot`).

One entry is one model turn: the entry's question (its first turn) and its functions as OpenAI tools go to
the backend, and the turn's tool calls are recorded in BFCL's own result format for FC models, a list of
`{name: "<arguments JSON>"}` (or the reply text when the model called nothing). Scoring mirrors bfcl-eval's
eval_runner step by step (decode, format check, ast_checker; for relevance and irrelevance, "a decodable,
non-empty call") and is checked against bfcl-eval's own runner in tests/benchmarks/test_bfcl.py.

Function names with a dot are sent with "_" (OpenAI-style names), as bfcl-eval's FC handlers do; the checker
then compares names with dots turned into underscores (its `underscore_to_dot` models). Prompt-mode models
see the names unchanged.

Categories: the single-turn AST ones (simple_*, multiple, parallel, parallel_multiple and their live_
versions) and relevance / irrelevance. Multi-turn needs bfcl-eval's API simulation and a multi-turn driver;
it is not offered here.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import hashlib
import importlib
import json
import re
import sys
import time
import types
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata, resources
from typing import Any

from benchmarks.engine.backends.base import Backend, BackendError, ModelRequest, ModelTurn, ParsedCall, SamplingParams
from benchmarks.engine.metrics import bootstrap_interval, pass_at_k, pass_hat_k, wilson_interval

PACKAGE = "bfcl-eval"
DATA_VERSION = "v4"
AST_CATEGORIES = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
)
RELEVANCE_CATEGORIES = ("irrelevance", "live_irrelevance", "live_relevance")
CATEGORIES = AST_CATEGORIES + RELEVANCE_CATEGORIES
DEFAULT_CATEGORIES = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
)
# Names the checker is called with; registered in MODEL_CONFIG_MAPPING with the name handling they need.
CHECKER_FC = "kopa-fc"
CHECKER_PROMPT = "kopa-prompt"
STOP_ANSWER = "answer"
STOP_BACKEND_ERROR = "backend_error"
GREEDY = SamplingParams()


class BfclError(Exception):
    """bfcl-eval is missing, a category is unknown or one of its data files is not in the installed package."""


# ------------------------------------------------------------------------------------------ the package


@functools.cache
def version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        raise BfclError(
            f"{PACKAGE} is not installed; install it without its dependencies: "
            "pip install --no-deps -r requirements-nodeps.txt"
        ) from None


def label() -> str:
    """The benchmark version a run records, e.g. "BFCL v4 (bfcl-eval 2026.3.23)"."""
    return f"BFCL {DATA_VERSION} ({PACKAGE} {version()})"


class _CheckerConfig:
    def __init__(self, underscore_to_dot: bool):
        self.underscore_to_dot = underscore_to_dot


class _ConfigMapping(dict):
    def __missing__(self, key):
        return _CheckerConfig(False)


@functools.cache
def _checker():
    """bfcl-eval's ast_checker and Language, with our two checker names registered (once per process)."""
    version()
    try:
        config = importlib.import_module("bfcl_eval.constants.model_config")
    except ImportError:  # the SDKs it imports are not installed (--no-deps): a stand-in with the mapping only
        config = types.ModuleType("bfcl_eval.constants.model_config")
        config.MODEL_CONFIG_MAPPING = _ConfigMapping()
        sys.modules["bfcl_eval.constants.model_config"] = config
    config.MODEL_CONFIG_MAPPING.setdefault(CHECKER_FC, _CheckerConfig(True))
    config.MODEL_CONFIG_MAPPING.setdefault(CHECKER_PROMPT, _CheckerConfig(False))
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    return ast_checker, Language


def _data_dir():
    version()
    return resources.files("bfcl_eval") / "data"


def data_files(category: str) -> tuple[str, str | None]:
    """(questions, possible answers) file names inside bfcl_eval/data for a category."""
    if category not in CATEGORIES:
        raise BfclError(f"unknown BFCL category {category!r}; offline categories: {', '.join(CATEGORIES)}")
    name = f"BFCL_{DATA_VERSION}_{category}.json"
    return name, (None if category in RELEVANCE_CATEGORIES else f"possible_answer/{name}")


def _read_lines(path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise BfclError(f"the BFCL data file bfcl_eval/data/{path.name} is missing from the installed {PACKAGE}")
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# ------------------------------------------------------------------------------------------ entries


@dataclass(frozen=True)
class Entry:
    id: str
    category: str
    question: list[dict[str, Any]]  # the first (only) turn's messages
    functions: list[dict[str, Any]]  # as bfcl-eval ships them
    ground_truth: list[dict[str, Any]] | None  # [{fn: {arg: [accepted values]}}]; None for (ir)relevance

    @property
    def language(self) -> str:
        return "JAVA" if self.category.endswith("java") else "JAVASCRIPT" if "javascript" in self.category else "PYTHON"

    @property
    def file(self) -> str:
        return "bfcl_eval/data/" + data_files(self.category)[0]

    @property
    def request_text(self) -> str:
        users = [m.get("content", "") for m in self.question if m.get("role") == "user"]
        return users[-1] if users else ""

    def checksum(self) -> str:
        payload = [self.id, self.question, self.functions, self.ground_truth]
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def to_spec(self) -> dict[str, Any]:
        return {"question": self.question, "function": self.functions, "language": self.language}

    @classmethod
    def from_spec(cls, code: str, category: str, spec: Mapping[str, Any], gold: Any) -> Entry:
        return cls(code, category, spec["question"], spec["function"], gold if gold else None)


def load_category(category: str, *, limit: int | None = None) -> list[Entry]:
    """The category's entries (the first `limit` of them), with their ground truth; BfclError names a missing
    data file."""
    questions, answers = data_files(category)
    root = _data_dir()
    rows = _read_lines(root / questions)
    truths = {}
    if answers:
        truths = {row["id"]: row["ground_truth"] for row in _read_lines(root / answers)}
    if limit is not None:
        rows = rows[:limit]
    entries = []
    for row in rows:
        if answers and row["id"] not in truths:
            raise BfclError(f"bfcl_eval/data/{answers} has no answer for {row['id']}")
        entries.append(Entry(row["id"], category, row["question"][0], row["function"], truths.get(row["id"])))
    return entries


def entries_checksum(entries: Iterable[Entry]) -> str:
    digest = hashlib.sha256()
    for entry in entries:
        digest.update(entry.checksum().encode())
    return digest.hexdigest()


# ------------------------------------------------------------------------------------------ tools


_OPENAPI_TYPES = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "string": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "dict": "object",
    "object": "object",
    "tuple": "array",
    "any": "string",
}


def _openapi(properties: dict[str, Any]) -> dict[str, Any]:
    """bfcl-eval's _cast_to_openai_type for OpenAI-style tools (types mapped, unknown ones as string)."""
    for spec in properties.values():
        kind = spec.get("type")
        if kind == "float":
            spec["format"] = "float"
            spec["description"] = spec.get("description", "") + " This is a float type value."
        spec["type"] = _OPENAPI_TYPES.get(kind, "string") if kind else "string"
        if spec["type"] in ("array", "object"):
            if "properties" in spec:
                spec["properties"] = _openapi(spec["properties"])
            elif isinstance(spec.get("items"), dict) and "type" in spec["items"]:
                items = spec["items"]
                items["type"] = _OPENAPI_TYPES.get(items["type"], "string")
                if items["type"] == "object" and "properties" in items:
                    items["properties"] = _openapi(items["properties"])
                elif items["type"] == "array" and isinstance(items.get("items"), dict) and "type" in items["items"]:
                    items["items"]["type"] = _OPENAPI_TYPES.get(items["items"]["type"], "string")
    return properties


def fc_name(name: str) -> str:
    return re.sub(r"\.", "_", name)


def tools_for(entry: Entry, *, fc: bool = True) -> list[dict[str, Any]]:
    """The entry's functions as OpenAI tools, prepared as bfcl-eval prepares them (its language hint, Java and
    JavaScript parameters as strings, dotted names with "_" for FC)."""
    from bfcl_eval.utils import _func_doc_language_specific_pre_processing

    functions = _func_doc_language_specific_pre_processing(copy.deepcopy(entry.functions), entry.category)
    tools = []
    for function in functions:
        if fc:
            function["name"] = fc_name(function["name"])
        function.setdefault("parameters", {})
        function["parameters"]["type"] = "object"
        function["parameters"]["properties"] = _openapi(function["parameters"].get("properties") or {})
        tools.append({"type": "function", "function": function})
    return tools


# ------------------------------------------------------------------------------------------ scoring


@dataclass(frozen=True)
class Verdict:
    valid: bool
    error_type: str = ""
    errors: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"valid": self.valid, "error_type": self.error_type, "errors": list(self.errors)}


def record(turn: ModelTurn) -> list[dict[str, str]] | str:
    """A model turn in bfcl-eval's result format for FC models: [{name: arguments JSON}], or the reply text."""
    if not turn.tool_calls:
        return turn.content or ""
    return [{call.name or "": call.raw_arguments or ""} for call in turn.tool_calls]


def decode(result: Any) -> list[dict[str, Any]]:
    """bfcl-eval's FC decode_ast: each {name: arguments JSON} becomes {name: arguments}; raises on anything
    else (reply text, unreadable JSON)."""
    decoded = []
    for call in result:
        name = list(call.keys())[0]
        decoded.append({name: json.loads(call[name])})
    return decoded


def _call_format(decoded: Any) -> bool:
    """bfcl-eval's is_function_calling_format_output."""
    return isinstance(decoded, list) and all(
        isinstance(item, dict) and len(item) == 1 and isinstance(list(item.values())[0], dict) for item in decoded
    )


def _empty(decoded: Any) -> bool:
    """bfcl-eval's is_empty_output."""
    return not _call_format(decoded) or len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)


def score(entry: Entry, result: Any, *, fc: bool = True) -> Verdict:
    """The entry's verdict for one recorded model output, as bfcl-eval's evaluation gives it."""
    if entry.category in RELEVANCE_CATEGORIES:
        try:
            called = not _empty(decode(result))
        except Exception:  # bfcl-eval: a failed decode means no call
            called = False
        if "irrelevance" in entry.category:
            if called:
                return Verdict(False, "irrelevance_error:decoder_success", ("a call was made where none applies",))
            return Verdict(True)
        if not called:
            return Verdict(False, "relevance_error:decoder_failed", ("no decodable call was made",))
        return Verdict(True)
    try:
        decoded = decode(result)
    except Exception as error:
        return Verdict(False, "ast_decoder:decoder_failed", (f"Invalid syntax. Failed to decode AST. {error}",))
    if not _call_format(decoded):
        return Verdict(False, "ast_decoder:decoder_wrong_output_format", ("not a list of {name: {arguments}}",))
    ast_checker, language = _checker()
    checked = ast_checker(
        entry.functions,
        decoded,
        entry.ground_truth,
        getattr(language, entry.language),
        entry.category,
        CHECKER_FC if fc else CHECKER_PROMPT,
    )
    if checked["valid"]:
        return Verdict(True)
    errors = tuple(str(e) for e in checked.get("error", []))
    return Verdict(False, checked.get("error_type", ""), errors)


# ------------------------------------------------------------------------------------------ running


@dataclass
class Outcome:
    """One (entry, seed): what the model returned, its verdict and its cost."""

    entry: Entry
    seed: int
    result: Any
    verdict: Verdict
    content: str = ""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    wall_s: float = 0.0
    stop_reason: str = STOP_ANSWER
    error: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)

    def transcript(self) -> dict[str, Any]:
        return {
            "benchmark": "bfcl",
            "id": self.entry.id,
            "category": self.entry.category,
            "messages": self.messages,
            "result": self.result,
            "content": self.content,
            "verdict": self.verdict.to_dict(),
            "stop_reason": self.stop_reason,
            "error": self.error,
            "latency_s": self.latency_s,
        }


async def run_entry(
    entry: Entry, backend: Backend, *, seed: int = 0, fc: bool = True, sampling: SamplingParams = GREEDY
) -> Outcome:
    """One model turn on the entry and its verdict; a backend error is the entry's (invalid) outcome."""
    messages = [dict(m) for m in entry.question]
    request = ModelRequest(entry, messages, tools_for(entry, fc=fc), 0, seed, sampling)
    started = time.perf_counter()
    try:
        turn = await backend.complete(request)
    except Exception as error:
        text = str(error) if isinstance(error, BackendError) else f"{type(error).__name__}: {error}"
        verdict = Verdict(False, "backend_error", (text[:500],))
        wall = time.perf_counter() - started
        return Outcome(entry, seed, "", verdict, stop_reason=STOP_BACKEND_ERROR, error=text, wall_s=wall)
    wall = time.perf_counter() - started
    result = record(turn)
    return Outcome(
        entry,
        seed,
        result,
        score(entry, result, fc=fc),
        content=turn.content or "",
        calls=len(turn.tool_calls),
        prompt_tokens=turn.usage.prompt_tokens,
        completion_tokens=turn.usage.completion_tokens,
        latency_s=turn.latency_s or wall,
        wall_s=wall,
        messages=messages,
    )


async def run_entries(
    entries: Sequence[Entry],
    backend: Backend,
    *,
    seeds: Sequence[int] = (0,),
    concurrency: int = 8,
    fc: bool = True,
    sampling: SamplingParams = GREEDY,
    on_result: Callable[[Outcome], Any] | None = None,
) -> list[Outcome]:
    """Every (entry, seed), at most `concurrency` at a time; outcomes in entry order, then seed."""
    limiter = asyncio.Semaphore(max(1, concurrency))
    jobs = [(entry, seed) for entry in entries for seed in seeds]
    outcomes: list[Outcome | None] = [None] * len(jobs)

    async def one(index: int, entry: Entry, seed: int) -> None:
        async with limiter:
            outcome = await run_entry(entry, backend, seed=seed, fc=fc, sampling=sampling)
        outcomes[index] = outcome
        if on_result is not None:
            on_result(outcome)

    await asyncio.gather(*(one(i, e, s) for i, (e, s) in enumerate(jobs)))
    return [o for o in outcomes if o is not None]


class OracleBackend(Backend):
    """Replays each entry's ground truth (the first accepted value of every argument; an optional argument
    whose first accepted value is "" is left out); answers in words where no call applies (irrelevance), and
    calls the first function where one is wanted but no answer is shipped (live_relevance)."""

    name = "oracle"
    model = "bfcl-oracle"

    async def complete(self, request: ModelRequest) -> ModelTurn:
        entry: Entry = request.task
        offered = {tool["function"]["name"] for tool in request.tools}

        def name_of(function: str) -> str:
            return function if function in offered else fc_name(function)

        if entry.category in RELEVANCE_CATEGORIES:
            if "irrelevance" in entry.category:
                return ModelTurn(content="None of the functions applies to this request.", finish_reason="stop")
            first = entry.functions[0]["name"]
            return ModelTurn(tool_calls=[ParsedCall("oracle_0", name_of(first), {}, "{}")], finish_reason="tool_calls")
        calls = []
        for index, item in enumerate(entry.ground_truth or []):
            function, accepted = next(iter(item.items()))
            args = _first_accepted(accepted)
            if entry.language != "PYTHON":  # Java and JavaScript arguments are sent in their string form
                args = {arg: _source_text(value) for arg, value in args.items()}
            raw = json.dumps(args, ensure_ascii=False)
            calls.append(ParsedCall(f"oracle_{index}", name_of(function), args, raw))
        return ModelTurn(tool_calls=calls, finish_reason="tool_calls")


def _first_accepted(accepted: Mapping[str, Any]) -> dict[str, Any]:
    """Each argument's first accepted value (nested objects hold accepted-value lists too); an optional
    argument whose first accepted value is "" is left out."""
    args = {}
    for arg, values in accepted.items():
        if not isinstance(values, list) or not values or values[0] == "":
            continue
        value = values[0]
        if isinstance(value, dict):
            value = _first_accepted(value)
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            value = [_first_accepted(item) for item in value]
        args[arg] = value
    return args


def _source_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False)


# ------------------------------------------------------------------------------------------ summary


def _estimate(value: float, low: float, high: float, method: str) -> dict[str, Any]:
    return {"value": value, "low": low, "high": high, "method": method}


def _group(rows: Sequence[Mapping[str, Any]], ks: Sequence[int]) -> dict[str, Any]:
    """rows: {"id", "seed", "valid", "calls", "prompt_tokens", "completion_tokens"}; accuracy with its Wilson
    interval, pass@k and pass^k over entries with bootstrap intervals, calls and tokens per entry."""
    per_entry: dict[str, list[bool]] = {}
    for row in rows:
        per_entry.setdefault(row["id"], []).append(bool(row["valid"]))
    n_min = min((len(v) for v in per_entry.values()), default=0)
    hits = sum(bool(row["valid"]) for row in rows)
    episodes = len(rows)
    pass_at, pass_hat = {}, {}
    for k in ks:
        if not 1 <= k <= n_min:
            continue
        at = [pass_at_k(len(v), sum(v), k) for v in per_entry.values()]
        hat = [pass_hat_k(len(v), sum(v), k) for v in per_entry.values()]
        pass_at[str(k)] = _estimate(sum(at) / len(at), *bootstrap_interval(at), "bootstrap")
        pass_hat[str(k)] = _estimate(sum(hat) / len(hat), *bootstrap_interval(hat), "bootstrap")
    errors = Counter(row.get("error_type") or "" for row in rows if not row["valid"])
    return {
        "tasks": len(per_entry),
        "episodes": episodes,
        "seeds_per_task": n_min,
        "success": _estimate(hits / episodes if episodes else 0.0, *wilson_interval(hits, episodes), "wilson"),
        "pass_at": pass_at,
        "pass_hat": pass_hat,
        "efficiency": {"calls_per_episode": sum(row["calls"] for row in rows) / episodes if episodes else None},
        "cost": {
            "prompt_tokens_per_episode": sum(row["prompt_tokens"] for row in rows) / episodes if episodes else 0.0,
            "completion_tokens_per_episode": sum(row["completion_tokens"] for row in rows) / episodes
            if episodes
            else 0.0,
        },
        "errors": {"by_type": dict(errors)},
    }


def summarize(rows: Sequence[Mapping[str, Any]], ks: Sequence[int] = (1, 2, 4, 8)) -> dict[str, Any]:
    """A BFCL run's summary: overall accuracy over entries (and BFCL's unweighted mean of the category
    accuracies), each category's accuracy, pass@k / pass^k; rows also carry "category"."""
    categories: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        categories.setdefault(row["category"], []).append(row)
    per_category = {name: _group(items, ks) for name, items in sorted(categories.items())}
    overall = _group(rows, ks)
    accuracies = [group["success"]["value"] for group in per_category.values()]
    overall["category_mean"] = sum(accuracies) / len(accuracies) if accuracies else 0.0
    return {"benchmark": "bfcl", "overall": overall, "categories": per_category}
