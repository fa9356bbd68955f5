"""BFCL v4 through our own runner backends, scored with bfcl-eval's shipped data and its AST and multi-turn
checkers.

bfcl-eval is installed without its dependencies (requirements-nodeps.txt): its data files and
`eval_checker.ast_eval.ast_checker` need only the standard library, but the checker imports
`bfcl_eval.constants.model_config`, which imports every vendor SDK. When that import fails, a stand-in module
holding only MODEL_CONFIG_MAPPING is installed (the checker reads one attribute of it, `underscore_to_dot`).

A single-turn entry is one model turn: the entry's question (its first turn) and its functions as OpenAI tools go to
the backend, and the turn's tool calls are recorded in BFCL's own result format for FC models, a list of
`{name: "<arguments JSON>"}` (or the reply text when the model called nothing). Scoring mirrors bfcl-eval's
eval_runner step by step (decode, format check, ast_checker; for relevance and irrelevance, "a decodable,
non-empty call") and is checked against bfcl-eval's own runner in tests/benchmarks/test_bfcl.py.

Function names with a dot are sent with "_" (OpenAI-style names), as bfcl-eval's FC handlers do; the checker
then compares names with dots turned into underscores (its `underscore_to_dot` models). Prompt-mode models
see the names unchanged.

Categories: the single-turn AST ones (simple_*, multiple, parallel, parallel_multiple and their live_
versions), relevance / irrelevance, and the four multi-turn ones (base, miss_func, miss_param, long_context),
whose APIs bfcl-eval simulates offline (its func_source_code classes). A multi-turn entry is driven as
bfcl-eval's FC handler drives it (`inference_multi_turn_FC`): each turn's user message, then model steps whose
calls run against the simulated APIs until the model calls nothing (at most MAXIMUM_STEP_LIMIT + 1 steps a
turn); it is scored by bfcl-eval's own `multi_turn_checker` (state and execution-response checks), and the
driver and the scoring are checked against bfcl-eval's own handler and runner in
tests/benchmarks/test_bfcl_multi_turn.py. The memory, web-search and format-sensitivity categories need packages or the network and are not offered.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import copy
import functools
import hashlib
import importlib
import inspect
import json
import keyword
import re
import sys
import time
import types
import uuid
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
MULTI_TURN_CATEGORIES = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
CATEGORIES = AST_CATEGORIES + RELEVANCE_CATEGORIES + MULTI_TURN_CATEGORIES
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
STOP_FORCE_QUIT = "max_steps"  # a multi-turn turn ran past bfcl-eval's step limit; the entry ends there
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


def _read_lines(path, name: str | None = None) -> list[dict[str, Any]]:
    if not path.is_file():
        raise BfclError(
            f"the BFCL data file bfcl_eval/data/{name or path.name} is missing from the installed {PACKAGE}"
        )
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# ------------------------------------------------------------------------------------------ entries


@dataclass(frozen=True)
class Entry:
    id: str
    category: str
    question: list[dict[str, Any]]  # the first turn's messages
    functions: list[dict[str, Any]]  # as bfcl-eval ships them (multi-turn: its classes' docs less the held-out ones)
    # single-turn: [{fn: {arg: [accepted values]}}]; None for (ir)relevance. Multi-turn: each turn's calls as
    # Python call text, ["cd(folder='document')", ...]
    ground_truth: list[Any] | None
    # multi-turn only: every turn's messages (a held-out turn is empty), the simulated APIs and their state,
    # and the function docs held out until a turn ({"3": [doc, ...]})
    turns: list[list[dict[str, Any]]] = field(default_factory=list)
    involved_classes: list[str] = field(default_factory=list)
    initial_config: dict[str, Any] = field(default_factory=dict)
    missed_function: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def multi_turn(self) -> bool:
        return self.category in MULTI_TURN_CATEGORIES

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
        if self.multi_turn:
            payload += [self.turns, self.involved_classes, self.initial_config, self.missed_function]
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def to_spec(self) -> dict[str, Any]:
        spec = {"question": self.question, "function": self.functions, "language": self.language}
        if self.multi_turn:
            spec |= {
                "turns": self.turns,
                "involved_classes": self.involved_classes,
                "initial_config": self.initial_config,
                "missed_function": self.missed_function,
            }
        return spec

    @classmethod
    def from_spec(cls, code: str, category: str, spec: Mapping[str, Any], gold: Any) -> Entry:
        extra = {
            key: spec[key] for key in ("turns", "involved_classes", "initial_config", "missed_function") if key in spec
        }
        return cls(code, category, spec["question"], spec["function"], gold if gold else None, **extra)


def load_category(category: str, *, limit: int | None = None) -> list[Entry]:
    """The category's entries (the first `limit` of them), with their ground truth; BfclError names a missing
    data file."""
    questions, answers = data_files(category)
    root = _data_dir()
    rows = _read_lines(root / questions)
    truths = {}
    if answers:
        truths = {row["id"]: row["ground_truth"] for row in _read_lines(root / answers, answers)}
    if limit is not None:
        rows = rows[:limit]
    entries = []
    for row in rows:
        if answers and row["id"] not in truths:
            raise BfclError(f"bfcl_eval/data/{answers} has no answer for {row['id']}")
        if category in MULTI_TURN_CATEGORIES:
            entries.append(_multi_turn_entry(row, category, truths[row["id"]]))
            continue
        entries.append(Entry(row["id"], category, row["question"][0], row["function"], truths.get(row["id"])))
    return entries


def _multi_turn_entry(row: Mapping[str, Any], category: str, truth: list[list[str]]) -> Entry:
    """bfcl-eval's populate_test_cases_with_predefined_functions: the function docs of the entry's classes, less
    the held-out ones (miss_func), which come back at their turn."""
    from bfcl_eval.constants.executable_backend_config import MULTI_TURN_FUNC_DOC_FILE_MAPPING

    functions = []
    for name in row["involved_classes"]:
        if name not in MULTI_TURN_FUNC_DOC_FILE_MAPPING:
            raise BfclError(f"{row['id']}: bfcl-eval has no function docs for the class {name!r}")
        doc = f"multi_turn_func_doc/{MULTI_TURN_FUNC_DOC_FILE_MAPPING[name]}"
        functions.extend(_read_lines(_data_dir() / doc, doc))
    missed = {}
    for turn, names in (row.get("missed_function") or {}).items():
        missed[turn] = []
        for name in names:
            index = next((i for i, doc in enumerate(functions) if doc["name"] == name), None)
            if index is not None:
                missed[turn].append(functions.pop(index))
    turns = row["question"]
    return Entry(
        row["id"],
        category,
        turns[0],
        functions,
        truth,
        turns=turns,
        involved_classes=list(row["involved_classes"]),
        initial_config=row.get("initial_config") or {},
        missed_function=missed,
    )


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


def tools_for(entry: Entry, *, fc: bool = True, held_out: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """The entry's functions as OpenAI tools, prepared as bfcl-eval prepares them (its language hint, Java and
    JavaScript parameters as strings, dotted names with "_" for FC). `held_out`: multi-turn docs given back at a
    turn, which bfcl-eval adds as shipped, without the language hint."""
    from bfcl_eval.utils import _func_doc_language_specific_pre_processing

    functions = _func_doc_language_specific_pre_processing(copy.deepcopy(entry.functions), entry.category)
    functions += copy.deepcopy(list(held_out))
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
    if entry.multi_turn:
        return score_multi_turn(entry, result)
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
    """One model turn on the entry (a multi-turn entry: its whole conversation) and its verdict; a backend error
    is the entry's (invalid) outcome."""
    if entry.multi_turn:
        return await run_multi_turn(entry, backend, seed=seed, fc=fc, sampling=sampling)
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
        if entry.multi_turn:
            return _oracle_turn(entry, request.messages)
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


# ------------------------------------------------------------------------------------------ multi-turn


@functools.cache
def _executor() -> types.ModuleType:
    """bfcl-eval's multi-turn executor (execute_multi_turn_func_call, is_empty_execute_response)."""
    version()
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    return multi_turn_utils


@functools.cache
def _handler_constants() -> tuple[int, str]:
    """bfcl-eval's step limit per turn and the user message of a turn that gives held-out functions back."""
    from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC, MAXIMUM_STEP_LIMIT

    return MAXIMUM_STEP_LIMIT, DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC


def steps_per_turn() -> int:
    """The most model steps bfcl-eval's handler takes in one multi-turn turn: its limit, and the step past it."""
    return _handler_constants()[0] + 1


@functools.cache
def _api_class(name: str) -> type:
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    if name not in CLASS_FILE_PATH_MAPPING:
        raise BfclError(f"bfcl-eval simulates no API class {name!r}")
    return getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[name]), name)


@functools.cache
def _method_names(classes: tuple[str, ...]) -> frozenset[str]:
    """The public methods of the simulated classes: the names bfcl-eval's executor binds to their instances."""
    return frozenset(
        name
        for cls in classes
        for name, _ in inspect.getmembers(_api_class(cls), inspect.isfunction)
        if not name.startswith("_")
    )


class _Simulation:
    """The entry's simulated APIs for one episode (or one check). bfcl-eval keeps each instance in a global of its
    executor module, named after the model and the entry: a fresh name per simulation keeps concurrent episodes
    and repeated seeds apart, and close() drops the instances again."""

    def __init__(self, entry: Entry):
        self.entry = entry
        self.name = f"kopa_{uuid.uuid4().hex}"

    def execute(self, calls: list[str]) -> list[str]:
        results, _ = _executor().execute_multi_turn_func_call(
            calls,
            self.entry.initial_config,
            self.entry.involved_classes,
            self.name,
            self.entry.id,
            long_context="long_context" in self.entry.category,
            is_evaL_run=False,
        )
        return results

    def close(self) -> None:
        module = vars(_executor())
        for key in [key for key in module if key.startswith(self.name + "_")]:
            del module[key]

    def __enter__(self) -> _Simulation:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


REFUSED_CALL = "kopa_refused_call"


def _identifier(name: Any) -> bool:
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def _executable(name: Any, arguments: Mapping[str, Any], methods: frozenset[str]) -> bool:
    """Whether bfcl-eval's eval of the call text can reach only the simulated APIs: plain identifiers, and a
    name that is one of their methods or resolves to nothing (builtins such as open, the executor's globals)."""
    if not _identifier(name) or not all(_identifier(key) for key in arguments):
        return False
    return name in methods or not (name in vars(builtins) or name in vars(_executor()))


def decode_execute(result: Any, methods: frozenset[str]) -> list[str]:
    """bfcl-eval's FC decode_execute (convert_to_function_call): each {name: arguments JSON} becomes the call text
    `name(arg=repr(value), ...)` its executor evaluates; raises on anything else (reply text, unreadable JSON,
    arguments that are not an object). The executor runs that text with eval, so a call that could reach more than
    the simulated APIs (see _executable) becomes a call to a name that does not exist: it evaluates to the same
    "Error during execution" as any unknown function, and nothing runs."""
    if isinstance(result, dict):
        result = [result]
    calls = []
    for call in result:
        for name, arguments in call.items():
            if isinstance(arguments, str):
                arguments = json.loads(arguments)
            text = ",".join(f"{key}={value!r}" for key, value in arguments.items())
            if not _executable(name, arguments, methods):
                name, text = REFUSED_CALL, ""
            calls.append(f"{name}({text})")
    return calls


def _assistant_message(turn: ModelTurn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.content or ""}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name or "", "arguments": call.raw_arguments}}
            for call in turn.tool_calls
        ]
    return message


async def run_multi_turn(
    entry: Entry, backend: Backend, *, seed: int = 0, fc: bool = True, sampling: SamplingParams = GREEDY
) -> Outcome:
    """The entry's conversation as bfcl-eval's inference_multi_turn_FC drives it: each turn's user message (a
    held-out turn: its functions given back with bfcl-eval's prompt), then model steps whose calls run against
    the simulated APIs, their results sent back as tool messages, until a step calls nothing or cannot be
    decoded; past the step limit the entry stops there. The result is bfcl-eval's: per turn, per step, the
    model's output in its FC format."""
    limit, additional_prompt = _handler_constants()
    methods = _method_names(tuple(entry.involved_classes))
    tools = tools_for(entry, fc=fc)
    held_out: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    result: list[list[Any]] = []
    outcome = Outcome(entry, seed, result, Verdict(True), messages=messages)
    started = time.perf_counter()
    step_index = 0
    with _Simulation(entry) as simulation:
        simulation.execute([])  # bfcl-eval sets the instances up before the first turn
        for turn_index, turn_messages in enumerate(entry.turns):
            if str(turn_index) in entry.missed_function:
                held_out += entry.missed_function[str(turn_index)]
                tools = tools_for(entry, fc=fc, held_out=held_out)
                turn_messages = [{"role": "user", "content": additional_prompt}]
            messages.extend(dict(m) for m in turn_messages)
            steps: list[Any] = []
            result.append(steps)
            count = 0
            while True:
                request = ModelRequest(entry, [dict(m) for m in messages], tools, step_index, seed, sampling)
                step_index += 1
                asked = time.perf_counter()
                try:
                    turn = await backend.complete(request)
                except Exception as error:
                    text = str(error) if isinstance(error, BackendError) else f"{type(error).__name__}: {error}"
                    outcome.verdict = Verdict(False, "backend_error", (text[:500],))
                    outcome.stop_reason, outcome.error = STOP_BACKEND_ERROR, text
                    outcome.wall_s = time.perf_counter() - started
                    return outcome
                outcome.latency_s += turn.latency_s or (time.perf_counter() - asked)
                outcome.prompt_tokens += turn.usage.prompt_tokens
                outcome.completion_tokens += turn.usage.completion_tokens
                outcome.calls += len(turn.tool_calls)
                output = record(turn)
                steps.append(output)
                messages.append(_assistant_message(turn))
                try:
                    decoded = decode_execute(output, methods)
                except Exception:  # bfcl-eval: an undecodable step ends the turn
                    break
                if _executor().is_empty_execute_response(decoded):
                    break
                for text, call in zip(simulation.execute(decoded), turn.tool_calls, strict=False):
                    messages.append({"role": "tool", "content": text, "tool_call_id": call.id})
                count += 1
                if count > limit:
                    outcome.stop_reason = STOP_FORCE_QUIT
                    break
            if outcome.stop_reason == STOP_FORCE_QUIT:
                break
    outcome.wall_s = time.perf_counter() - started
    outcome.content = next((m["content"] for m in reversed(messages) if m["role"] == "assistant"), "")
    outcome.verdict = score_multi_turn(entry, result)
    return outcome


def score_multi_turn(entry: Entry, result: Any) -> Verdict:
    """bfcl-eval's _evaluate_single_multi_turn_entry: every turn present (else force-terminated), each step
    decoded (undecodable and empty steps skipped), then its multi_turn_checker (state and execution results
    after each turn against the ground truth's)."""
    if not isinstance(result, list):
        message = "Error during inference phase. Model did not output a list of model responses."
        return Verdict(False, "multi_turn:inference_error", (message,))
    truth = entry.ground_truth or []
    if len(result) != len(truth):
        message = (
            "Model was force-terminated during inference phase. The length of the model result turns "
            f"({len(result)}) does not match the length of the ground truth turns ({len(truth)})."
        )
        return Verdict(False, "multi_turn:force_terminated", (message,))
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    methods = _method_names(tuple(entry.involved_classes))
    decoded_turns = []
    for steps in result:
        decoded_steps = []
        for output in steps:
            try:
                decoded = decode_execute(output, methods)
            except Exception:
                continue
            if not _executor().is_empty_execute_response(decoded):
                decoded_steps.append(decoded)
        decoded_turns.append(decoded_steps)
    prompt = {"id": entry.id, "initial_config": entry.initial_config, "involved_classes": entry.involved_classes}
    with _Simulation(entry) as simulation:
        try:
            checked = multi_turn_checker(decoded_turns, truth, prompt, entry.category, simulation.name)
        except Exception as error:  # bfcl-eval's checker asserts on states it cannot compare
            return Verdict(False, "multi_turn:checker_error", (f"{type(error).__name__}: {error}"[:500],))
    if checked["valid"]:
        return Verdict(True)
    return Verdict(False, checked.get("error_type", ""), (str(checked.get("error_message", "")),))


def _oracle_turn(entry: Entry, messages: Sequence[Mapping[str, Any]]) -> ModelTurn:
    """The ground truth's calls of the current turn (every turn holds one user message) in its first step, then
    an answer in words; a turn without ground truth (a function is missing) is answered in words at once."""
    turn = sum(1 for m in messages if m.get("role") == "user") - 1
    truth = (entry.ground_truth or [])[turn] if 0 <= turn < len(entry.ground_truth or []) else []
    if messages[-1].get("role") != "user" or not truth:
        return ModelTurn(content="Done.", finish_reason="stop")
    calls = []
    for index, text in enumerate(truth):
        name, args = _call_arguments(entry, text)
        calls.append(ParsedCall(f"oracle_{turn}_{index}", name, args, json.dumps(args, ensure_ascii=False)))
    return ModelTurn(tool_calls=calls, finish_reason="tool_calls")


def _call_arguments(entry: Entry, text: str) -> tuple[str, dict[str, Any]]:
    """A ground-truth call text, "sort('final_report.pdf')", as a name and keyword arguments (positional ones
    named after the method's signature)."""
    node = ast.parse(text, mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise BfclError(f"{entry.id}: the ground-truth call {text!r} is not a plain call")
    name = node.func.id
    method = next((getattr(_api_class(c), name) for c in entry.involved_classes if hasattr(_api_class(c), name)), None)
    if method is None:
        raise BfclError(f"{entry.id}: no simulated class has the ground truth's method {name!r}")
    parameters = [p for p in inspect.signature(method).parameters if p != "self"]
    args = {parameters[i]: ast.literal_eval(value) for i, value in enumerate(node.args)}
    args |= {item.arg: ast.literal_eval(item.value) for item in node.keywords}
    return name, args


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
