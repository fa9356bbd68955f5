"""KOPA-Bench tasks: the data model and the loader/validator of versioned task files (JSON or YAML).

The file format is documented in docs/bench.md ("Task files"). The loader reads every problem in a file before
it gives up and reports each one with the file, the task id and a JSON pointer, e.g.

    bench/tasks/realestate.yaml: task re-007 at /tasks/6/gold/calls/1/bindings/0/from: unknown call 'c9'
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from benchmarks.engine.canonical import ANY, canonical_value
from benchmarks.engine.checkers import CHECKERS, boolean_value, check_answer, is_finite_number

FORMAT = "kopa-bench/tasks"
FORMAT_VERSIONS = (1,)
DIFFICULTIES = ("easy", "medium", "hard")
KST = timezone(timedelta(hours=9), "KST")
DEFAULT_CLOCK = "2026-11-18T14:20:00+09:00"  # the sandbox's own default clock
ALL_TOOLS = "*"
TRANSFORMS = ("identity", "digits", "int", "slice:A:B", "zfill:N")

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
_TOP_KEYS = {"format", "version", "data_version", "description", "defaults", "toolsets", "tasks"}
_DEFAULT_KEYS = {"clock", "tools", "paging", "ignore_args"}
_TASK_KEYS = {"id", "request", "tools", "categories", "difficulty", "clock", "gold", "notes"}
_GOLD_KEYS = {"calls", "answer"}
_CALL_KEYS = {"id", "tool", "args", "alternatives", "after", "bindings", "answer_bearing", "all_pages", "pages"}
_CALL_KEYS |= {"paging"}
_BINDING_KEYS = {"arg", "from", "field", "transform"}
_ANSWER_KEYS = {"checker", "value", "text", "aliases", "unit", "tolerance", "rel_tolerance", "forbid"}


# ------------------------------------------------------------------------------------------ the model


@dataclass(frozen=True)
class Paging:
    """How a tool pages: by page number and size (data.go.kr pageNo/numOfRows) or by a 1-based index range
    (Seoul START_INDEX/END_INDEX, with `size` records per page)."""

    style: str = "page"  # page | index
    page: str = "pageNo"  # style page: the page-number parameter
    size: str = "numOfRows"  # style page: the page-size parameter
    start: str = ""  # style index: the first-record parameter
    end: str = ""  # style index: the last-record parameter
    per_page: int = 0  # style index: records per page the gold trajectory asks for

    @property
    def params(self) -> tuple[str, ...]:
        return (self.page, self.size) if self.style == "page" else (self.start, self.end)

    def page_args(self, number: int) -> dict[str, Any]:
        """The paging arguments of page `number` (1-based); a page-style call states its size in its args."""
        if self.style == "page":
            return {self.page: number}
        first = (number - 1) * self.per_page + 1
        return {self.start: first, self.end: first + self.per_page - 1}


DEFAULT_PAGING = Paging()


@dataclass(frozen=True)
class Binding:
    """An argument whose gold value was read from an earlier call's records: `field` of one of them, transformed."""

    arg: str
    source: str  # id of the earlier gold call
    field: str  # record key as the normalizer flattens it ("region_cd", "items.0.code")
    transform: str = "identity"

    def apply(self, value: Any) -> Any:
        return apply_transform(self.transform, value)


@dataclass(frozen=True)
class GoldCall:
    id: str
    tool: str
    args: Mapping[str, Any]
    alternatives: Mapping[str, Any] = field(default_factory=dict)  # arg -> ANY or [accepted values, None = omit]
    after: tuple[str, ...] = ()  # ordering-only dependencies besides the bindings' sources
    bindings: tuple[Binding, ...] = ()
    answer_bearing: bool = True  # the answer is read from its records (ENVIRONMENT checks it was retrieved)
    all_pages: bool = True  # every record matters, so every page must be fetched (answer-bearing calls only)
    pages: int = 1  # pages the gold trajectory fetches
    paging: Paging = DEFAULT_PAGING

    @property
    def depends_on(self) -> tuple[str, ...]:
        sources = [b.source for b in self.bindings]
        return tuple(dict.fromkeys([*self.after, *sources]))

    @property
    def bound_args(self) -> tuple[str, ...]:
        return tuple(b.arg for b in self.bindings)

    def page_calls(self) -> list[dict[str, Any]]:
        """The argument sets of every page the gold trajectory fetches, in order."""
        if self.pages <= 1:
            return [dict(self.args)]
        return [{**self.args, **self.paging.page_args(n)} for n in range(1, self.pages + 1)]


@dataclass(frozen=True)
class AnswerSpec:
    checker: str  # exact | set | numeric | contains | boolean
    value: Any  # text, number, bool, or (set) a list of items, each a text or a list of spellings
    text: str  # the answer as a person would write it; the oracle replies with it
    aliases: tuple[str, ...] = ()
    unit: str | None = None
    tolerance: float = 0.0
    rel_tolerance: float = 0.0
    forbid: tuple[str, ...] = ()


@dataclass(frozen=True)
class Task:
    id: str
    request: str
    tools: tuple[str, ...] | str  # ALL_TOOLS or function names (a named toolset is resolved on load)
    calls: tuple[GoldCall, ...]
    answer: AnswerSpec
    categories: tuple[str, ...]
    difficulty: str
    clock: str = DEFAULT_CLOCK  # ISO 8601 with offset; the sandbox clock during the task (X-Sandbox-Now)
    toolset: str = ""  # the toolset name the file used, if any
    notes: str = ""
    ignore_args: tuple[str, ...] = ()  # arguments no call is judged on (file defaults)
    source: str = ""  # "file#/tasks/3"

    @property
    def uses_all_tools(self) -> bool:
        return self.tools == ALL_TOOLS

    def call(self, call_id: str) -> GoldCall:
        for call in self.calls:
            if call.id == call_id:
                return call
        raise KeyError(call_id)

    def layers(self) -> list[list[GoldCall]]:
        """Gold calls grouped by depth in the dependency graph. A layer is a parallel group: its calls do not
        depend on each other and may run in one turn, in any order."""
        depth: dict[str, int] = {}
        for call in self.calls:  # the file lists calls in dependency order (validated)
            depth[call.id] = 1 + max((depth[d] for d in call.depends_on), default=-1)
        grouped: dict[int, list[GoldCall]] = {}
        for call in self.calls:
            grouped.setdefault(depth[call.id], []).append(call)
        return [grouped[d] for d in sorted(grouped)]

    @property
    def gold_call_count(self) -> int:
        """Requests the gold trajectory makes, every page counted."""
        return sum(call.pages for call in self.calls)

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass(frozen=True)
class TaskSet:
    tasks: tuple[Task, ...]
    data_versions: Mapping[str, str]  # file -> its data_version
    checksum: str  # sha256 of the tasks' canonical JSON: pins exactly which tasks a run used

    def __iter__(self):
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)

    def get(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(task_id)

    @property
    def categories(self) -> list[str]:
        return sorted({c for task in self.tasks for c in task.categories})


# ------------------------------------------------------------------------------------------ transforms


def apply_transform(name: str, value: Any) -> Any:
    """identity | digits (keep 0-9) | int (drop leading zeros) | slice:A:B (Python slice of the text) | zfill:N."""
    text = "" if value is None else str(value)
    if name == "identity":
        return value
    if name == "digits":
        return re.sub(r"\D", "", text)
    if name == "int":
        return str(int(float(text)))
    kind, _, rest = name.partition(":")
    if kind == "slice":
        start, _, stop = rest.partition(":")
        return text[int(start) if start else None : int(stop) if stop else None]
    if kind == "zfill":
        return text.zfill(int(rest))
    raise ValueError(f"unknown transform {name!r}")


def _valid_transform(name: Any) -> bool:
    if not isinstance(name, str):
        return False
    if name in ("identity", "digits", "int"):
        return True
    return bool(re.fullmatch(r"slice:-?\d*:-?\d*", name) or re.fullmatch(r"zfill:\d+", name))


# ------------------------------------------------------------------------------------------ the loader


@dataclass(frozen=True)
class TaskProblem:
    file: str
    task_id: str | None
    pointer: str
    message: str

    def __str__(self) -> str:
        where = f"task {self.task_id} at " if self.task_id else ""
        return f"{self.file}: {where}{self.pointer or '/'}: {self.message}"


class TaskFileError(ValueError):
    """One or more task files are invalid; `problems` lists every one found."""

    def __init__(self, problems: Sequence[TaskProblem]):
        self.problems = list(problems)
        shown = "\n".join(f"  {p}" for p in self.problems[:50])
        more = f"\n  … and {len(self.problems) - 50} more" if len(self.problems) > 50 else ""
        super().__init__(f"{len(self.problems)} problem(s) in task files:\n{shown}{more}")


Catalog = Iterable[str] | Mapping[str, Iterable[str]]


def _catalog(catalog: Catalog | None) -> dict[str, set[str] | None] | None:
    """{function name: its argument names, or None when unknown}."""
    if catalog is None:
        return None
    if isinstance(catalog, Mapping):
        return {name: _parameter_names(params) for name, params in catalog.items()}
    return dict.fromkeys(catalog)


def _parameter_names(params: Any) -> set[str] | None:
    if isinstance(params, Mapping) and "function" in params:  # an OpenAI tool schema
        params = params["function"].get("parameters", {}).get("properties", {})
    if isinstance(params, Mapping) or isinstance(params, Iterable) and not isinstance(params, str):
        return set(params)
    return None


def load_tasks(paths: str | Path | Iterable[str | Path], *, catalog: Catalog | None = None) -> TaskSet:
    """Read and validate task files (a file, a directory of *.json/*.yaml/*.yml, or several).

    catalog, when given, is every function name the benchmark may offer (tool names outside it are errors), or
    a mapping of function name to the argument names its schema shows the model (arguments outside it are
    errors too: a gold call must use the names a model sees). Raises TaskFileError listing every problem.
    """
    files = _expand(paths)
    known = _catalog(catalog)
    problems: list[TaskProblem] = []
    tasks: list[Task] = []
    versions: dict[str, str] = {}
    seen: dict[str, str] = {}
    if not files:
        raise TaskFileError([TaskProblem(str(paths), None, "", "no task files (*.json, *.yaml, *.yml) found")])
    for path in files:
        document, problem = _read(path)
        if problem is not None:
            problems.append(problem)
            continue
        reader = _FileReader(str(path), known)
        file_tasks, data_version = reader.read(document)
        problems.extend(reader.problems)
        versions[str(path)] = data_version
        for pointer, task in file_tasks:
            if task.id in seen:
                problems.append(
                    TaskProblem(str(path), task.id, f"{pointer}/id", f"duplicate id (also in {seen[task.id]})")
                )
                continue
            seen[task.id] = f"{path}#{pointer}"
            tasks.append(task)
    if problems:
        raise TaskFileError(problems)
    return TaskSet(tasks=tuple(tasks), data_versions=versions, checksum=tasks_checksum(tasks))


def parse_tasks(document: Any, *, name: str = "<memory>", catalog: Catalog | None = None) -> TaskSet:
    """Validate an already parsed task document (a dict as a task file holds)."""
    reader = _FileReader(name, _catalog(catalog))
    file_tasks, data_version = reader.read(document)
    if reader.problems:
        raise TaskFileError(reader.problems)
    tasks = [task for _, task in file_tasks]
    ids = [t.id for t in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise TaskFileError([TaskProblem(name, d, "/tasks", "duplicate id") for d in duplicates])
    return TaskSet(tasks=tuple(tasks), data_versions={name: data_version}, checksum=tasks_checksum(tasks))


def tasks_checksum(tasks: Iterable[Task]) -> str:
    payload = [task.to_dict() | {"source": ""} for task in tasks]
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _expand(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    files: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.suffix in (".json", ".yaml", ".yml")))
        else:
            files.append(path)
    return files


def _read(path: Path) -> tuple[Any, TaskProblem | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        return None, TaskProblem(str(path), None, "", f"cannot read the file: {error.strerror or error}")
    except UnicodeDecodeError as error:
        return None, TaskProblem(str(path), None, "", f"not UTF-8 text: {error}")
    if path.suffix == ".json":
        try:
            return json.loads(text), None
        except json.JSONDecodeError as error:
            return None, TaskProblem(
                str(path), None, "", f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}"
            )
    import yaml  # PyYAML is a site dependency; imported here so JSON-only callers never need it

    try:
        return yaml.safe_load(text), None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        return None, TaskProblem(str(path), None, "", f"invalid YAML{where}: {problem}")


def _escape(token: Any) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


class _FileReader:
    """Validates one parsed document, collecting problems instead of stopping at the first."""

    def __init__(self, name: str, catalog: dict[str, set[str] | None] | None):
        self.name = name
        self.catalog = catalog
        self.problems: list[TaskProblem] = []
        self.task_id: str | None = None

    def problem(self, pointer: str, message: str) -> None:
        self.problems.append(TaskProblem(self.name, self.task_id, pointer, message))

    def unknown_keys(self, data: Mapping, allowed: set[str], pointer: str) -> None:
        for key in sorted(set(data) - allowed, key=str):
            self.problem(f"{pointer}/{_escape(key)}", f"unknown field; expected one of {', '.join(sorted(allowed))}")

    # ---- the file

    def read(self, doc: Any) -> tuple[list[tuple[str, Task]], str]:
        if not isinstance(doc, Mapping):
            self.problem("", "a task file is an object with format, version, data_version and tasks")
            return [], ""
        self.unknown_keys(doc, _TOP_KEYS, "")
        if doc.get("format") != FORMAT:
            self.problem("/format", f"must be {FORMAT!r}; got {doc.get('format')!r}")
        if doc.get("version") not in FORMAT_VERSIONS:
            self.problem(
                "/version", f"unsupported format version {doc.get('version')!r}; this loader reads {FORMAT_VERSIONS}"
            )
        data_version = doc.get("data_version")
        if not isinstance(data_version, str | int) or not str(data_version).strip():
            self.problem("/data_version", "required: the version of these tasks (e.g. '2026.11.1')")
            data_version = ""
        defaults = self.defaults(doc.get("defaults") or {})
        toolsets = self.toolsets(doc.get("toolsets") or {})
        raw_tasks = doc.get("tasks")
        if not isinstance(raw_tasks, list) or not raw_tasks:
            self.problem("/tasks", "required: a non-empty list of tasks")
            return [], str(data_version)
        out = []
        for index, raw in enumerate(raw_tasks):
            pointer = f"/tasks/{index}"
            task = self.task(raw, pointer, defaults, toolsets)
            if task is not None:
                out.append((pointer, task))
        return out, str(data_version)

    def defaults(self, raw: Any) -> dict[str, Any]:
        if not isinstance(raw, Mapping):
            self.problem("/defaults", "must be an object")
            return {}
        self.unknown_keys(raw, _DEFAULT_KEYS, "/defaults")
        out: dict[str, Any] = {"clock": DEFAULT_CLOCK, "tools": ALL_TOOLS, "paging": DEFAULT_PAGING, "ignore_args": ()}
        if "clock" in raw:
            out["clock"] = self.clock(raw["clock"], "/defaults/clock") or DEFAULT_CLOCK
        if "tools" in raw:
            out["tools"] = raw["tools"]
        if "paging" in raw:
            out["paging"] = self.paging(raw["paging"], "/defaults/paging") or DEFAULT_PAGING
        if "ignore_args" in raw:
            out["ignore_args"] = tuple(self.strings(raw["ignore_args"], "/defaults/ignore_args"))
        return out

    def toolsets(self, raw: Any) -> dict[str, tuple[str, ...]]:
        if not isinstance(raw, Mapping):
            self.problem("/toolsets", "must be an object of name: [function names]")
            return {}
        out = {}
        for name, names in raw.items():
            pointer = f"/toolsets/{_escape(name)}"
            tools = self.strings(names, pointer, non_empty=True)
            for index, tool in enumerate(tools):
                self.known_tool(tool, f"{pointer}/{index}")
            out[str(name)] = tuple(tools)
        return out

    # ---- one task

    def task(self, raw: Any, pointer: str, defaults: Mapping[str, Any], toolsets: Mapping) -> Task | None:
        self.task_id = None
        if not isinstance(raw, Mapping):
            self.problem(pointer, "a task is an object")
            return None
        task_id = raw.get("id")
        if not isinstance(task_id, str) or not _ID.match(task_id):
            self.problem(f"{pointer}/id", "required: letters, digits, '.', '_' or '-' (at most 100), e.g. 're-001'")
            task_id = None
        self.task_id = task_id
        before = len(self.problems)
        self.unknown_keys(raw, _TASK_KEYS, pointer)
        request = raw.get("request")
        if not isinstance(request, str) or not request.strip():
            self.problem(f"{pointer}/request", "required: the user's request, as text")
        tools, toolset = self.tool_selection(raw.get("tools", defaults["tools"]), f"{pointer}/tools", toolsets)
        categories = self.strings(raw.get("categories"), f"{pointer}/categories", non_empty=True)
        difficulty = raw.get("difficulty")
        if difficulty not in DIFFICULTIES:
            self.problem(f"{pointer}/difficulty", f"required: one of {', '.join(DIFFICULTIES)}")
        clock = defaults["clock"]
        if "clock" in raw:
            clock = self.clock(raw["clock"], f"{pointer}/clock") or clock
        notes = raw.get("notes", "")
        if not isinstance(notes, str):
            self.problem(f"{pointer}/notes", "must be text")
        gold = raw.get("gold")
        calls: list[GoldCall] = []
        answer = None
        if not isinstance(gold, Mapping):
            self.problem(f"{pointer}/gold", "required: an object with calls and answer")
        else:
            self.unknown_keys(gold, _GOLD_KEYS, f"{pointer}/gold")
            calls = self.calls(gold.get("calls"), f"{pointer}/gold/calls", tools, defaults["paging"])
            answer = self.answer(gold.get("answer"), f"{pointer}/gold/answer")
        if len(self.problems) > before or answer is None or task_id is None:
            return None
        return Task(
            id=task_id,
            request=request.strip(),
            tools=tools,
            calls=tuple(calls),
            answer=answer,
            categories=tuple(categories),
            difficulty=difficulty,
            clock=clock,
            toolset=toolset,
            notes=notes,
            ignore_args=tuple(defaults["ignore_args"]),
            source=f"{self.name}#{pointer}",
        )

    def tool_selection(self, raw: Any, pointer: str, toolsets: Mapping) -> tuple[tuple[str, ...] | str, str]:
        if raw == ALL_TOOLS:
            return ALL_TOOLS, ""
        if isinstance(raw, str):
            if raw not in toolsets:
                self.problem(
                    pointer, f"unknown toolset {raw!r}; define it under /toolsets or use '*' (the whole catalog)"
                )
                return (), raw
            return toolsets[raw], raw
        names = self.strings(raw, pointer, non_empty=True)
        for index, name in enumerate(names):
            self.known_tool(name, f"{pointer}/{index}")
        return tuple(dict.fromkeys(names)), ""

    def known_tool(self, name: str, pointer: str) -> bool:
        if self.catalog is not None and name not in self.catalog:
            self.problem(pointer, f"no tool named {name!r} in the catalog")
            return False
        return True

    def calls(self, raw: Any, pointer: str, tools, paging: Paging) -> list[GoldCall]:
        if not isinstance(raw, list):
            self.problem(pointer, "required: a list of gold calls (empty when the task needs no tool)")
            return []
        calls: list[GoldCall] = []
        ids: set[str] = set()
        for index, item in enumerate(raw):
            call = self.call(item, f"{pointer}/{index}", index, ids, tools, paging)
            if call is not None:
                ids.add(call.id)
                calls.append(call)
        return calls

    def call(self, raw: Any, pointer: str, index: int, earlier: set[str], tools, paging: Paging) -> GoldCall | None:
        if not isinstance(raw, Mapping):
            self.problem(pointer, "a gold call is an object with tool and args")
            return None
        before = len(self.problems)
        self.unknown_keys(raw, _CALL_KEYS, pointer)
        call_id = raw.get("id", f"c{index + 1}")
        if not isinstance(call_id, str) or not _ID.match(call_id):
            self.problem(f"{pointer}/id", "letters, digits, '.', '_' or '-'")
        elif call_id in earlier:
            self.problem(f"{pointer}/id", f"duplicate call id {call_id!r}")
        tool = raw.get("tool")
        if not isinstance(tool, str) or not tool:
            self.problem(f"{pointer}/tool", "required: the function name of the tool")
        elif tools != ALL_TOOLS and tool not in tools:
            self.problem(f"{pointer}/tool", f"{tool!r} is not in the task's tool set")
        else:
            self.known_tool(tool, f"{pointer}/tool")
        args = raw.get("args", {})
        if not isinstance(args, Mapping):
            self.problem(f"{pointer}/args", "must be an object of argument: value")
            args = {}
        for name, value in args.items():
            if not _plain_json(value):
                self.problem(f"{pointer}/args/{_escape(name)}", "values are text, numbers, booleans, lists or objects")
        alternatives = raw.get("alternatives", {})
        if not isinstance(alternatives, Mapping):
            self.problem(f"{pointer}/alternatives", "must be an object of argument: '*' or [accepted values]")
            alternatives = {}
        for name, options in alternatives.items():
            if options != ANY and not isinstance(options, list):
                self.problem(f"{pointer}/alternatives/{_escape(name)}", "'*' (any value or none) or a list of values")
        known_args = self.catalog.get(tool) if self.catalog is not None and isinstance(tool, str) else None
        if known_args is not None:
            for field_name, names in (("args", args), ("alternatives", alternatives)):
                for name in names:
                    if name not in known_args:
                        self.problem(
                            f"{pointer}/{field_name}/{_escape(name)}",
                            f"{tool} has no argument {name!r}; its schema shows: {', '.join(sorted(known_args))}",
                        )
        after = self.strings(raw.get("after", []), f"{pointer}/after")
        for position, dependency in enumerate(after):
            if dependency not in earlier:
                self.problem(
                    f"{pointer}/after/{position}",
                    f"unknown call {dependency!r}; list calls before the calls that need them",
                )
        bindings = self.bindings(raw.get("bindings", []), f"{pointer}/bindings", args, earlier)
        answer_bearing = raw.get("answer_bearing", True)
        if not isinstance(answer_bearing, bool):
            self.problem(f"{pointer}/answer_bearing", "true or false")
        all_pages = raw.get("all_pages", bool(answer_bearing))
        if not isinstance(all_pages, bool):
            self.problem(f"{pointer}/all_pages", "true or false")
        call_paging = paging
        if "paging" in raw:
            call_paging = self.paging(raw["paging"], f"{pointer}/paging") or paging
        pages = raw.get("pages", 1)
        if not isinstance(pages, int) or isinstance(pages, bool) or pages < 1:
            self.problem(f"{pointer}/pages", "a whole number of pages, at least 1")
            pages = 1
        if pages > 1:
            generated = call_paging.page if call_paging.style == "page" else call_paging.start
            if generated in args or (call_paging.style == "index" and call_paging.end in args):
                self.problem(
                    f"{pointer}/args", f"leave out the paging arguments {call_paging.params}: pages generates them"
                )
            if call_paging.style == "page" and call_paging.size not in args:
                self.problem(f"{pointer}/args", f"a call with pages > 1 states its page size ({call_paging.size!r})")
        if len(self.problems) > before:
            return None
        return GoldCall(
            id=call_id,
            tool=tool,
            args=dict(args),
            alternatives=dict(alternatives),
            after=tuple(after),
            bindings=tuple(bindings),
            answer_bearing=answer_bearing,
            all_pages=all_pages and answer_bearing,
            pages=pages,
            paging=call_paging,
        )

    def bindings(self, raw: Any, pointer: str, args: Mapping, earlier: set[str]) -> list[Binding]:
        if not isinstance(raw, list):
            self.problem(pointer, "a list of {arg, from, field, transform}")
            return []
        out = []
        for index, item in enumerate(raw):
            here = f"{pointer}/{index}"
            if not isinstance(item, Mapping):
                self.problem(here, "a binding is an object with arg, from and field")
                continue
            before = len(self.problems)
            self.unknown_keys(item, _BINDING_KEYS, here)
            if item.get("arg") not in args:
                self.problem(f"{here}/arg", f"{item.get('arg')!r} is not one of the call's args")
            if item.get("from") not in earlier:
                self.problem(f"{here}/from", f"unknown call {item.get('from')!r}; it must be listed before this call")
            if not isinstance(item.get("field"), str) or not item.get("field"):
                self.problem(f"{here}/field", "required: the record field the value comes from")
            transform = item.get("transform", "identity")
            if not _valid_transform(transform):
                self.problem(
                    f"{here}/transform", f"unknown transform {transform!r}; expected one of {', '.join(TRANSFORMS)}"
                )
            if len(self.problems) == before:
                out.append(Binding(item["arg"], item["from"], item["field"], transform))
        return out

    def paging(self, raw: Any, pointer: str) -> Paging | None:
        if not isinstance(raw, Mapping):
            self.problem(pointer, "an object: {page, size} or {start, end, per_page}")
            return None
        if set(raw) <= {"page", "size"} and raw:
            page, size = raw.get("page", "pageNo"), raw.get("size", "numOfRows")
            if not isinstance(page, str) or not isinstance(size, str):
                self.problem(pointer, "page and size are parameter names")
                return None
            return Paging("page", page=page, size=size)
        if set(raw) == {"start", "end", "per_page"}:
            per_page = raw["per_page"]
            if not isinstance(per_page, int) or isinstance(per_page, bool) or per_page < 1:
                self.problem(f"{pointer}/per_page", "a whole number of records, at least 1")
                return None
            return Paging("index", page="", size="", start=str(raw["start"]), end=str(raw["end"]), per_page=per_page)
        self.problem(pointer, "either {page, size} (page number and size) or {start, end, per_page} (record range)")
        return None

    def answer(self, raw: Any, pointer: str) -> AnswerSpec | None:
        if not isinstance(raw, Mapping):
            self.problem(pointer, "required: an object with checker, value and text")
            return None
        before = len(self.problems)
        self.unknown_keys(raw, _ANSWER_KEYS, pointer)
        checker = raw.get("checker")
        if checker not in CHECKERS:
            self.problem(f"{pointer}/checker", f"required: one of {', '.join(CHECKERS)}")
            return None
        value = raw.get("value")
        if checker == "numeric" and not is_finite_number(value):
            self.problem(f"{pointer}/value", "a numeric answer's value is a number")
        elif checker in ("exact", "contains") and (
            not isinstance(value, str | int | float) or isinstance(value, bool) or str(value).strip() == ""
        ):
            self.problem(f"{pointer}/value", f"a {checker} answer's value is non-empty text")
        elif checker == "boolean" and boolean_value(value) is None:
            self.problem(f"{pointer}/value", "a boolean answer's value is true/false (or Y/N, 예/아니오)")
        elif checker == "set":
            if not isinstance(value, list) or not value:
                self.problem(f"{pointer}/value", "a set answer's value is a non-empty list of items")
            else:
                for index, item in enumerate(value):
                    spellings = [item] if isinstance(item, str) else item
                    if (
                        not isinstance(spellings, list)
                        or not spellings
                        or not all(isinstance(s, str) and s.strip() for s in spellings)
                    ):
                        self.problem(f"{pointer}/value/{index}", "an item is text or a non-empty list of its spellings")
        text = raw.get("text", "" if value is None else str(value))
        if not isinstance(text, str) or not text.strip():
            self.problem(f"{pointer}/text", "required: the answer as a person would write it")
        aliases = self.strings(raw.get("aliases", []), f"{pointer}/aliases")
        forbid = self.strings(raw.get("forbid", []), f"{pointer}/forbid")
        unit = raw.get("unit")
        if unit is not None and (not isinstance(unit, str) or not unit.strip()):
            self.problem(f"{pointer}/unit", "a unit such as 원, 만원, ℃, ㎍/㎥, 명")
        tolerances = {}
        for name in ("tolerance", "rel_tolerance"):
            number = raw.get(name, 0.0)
            if not is_finite_number(number) or number < 0:
                self.problem(f"{pointer}/{name}", "a number, zero or more")
                number = 0.0
            tolerances[name] = float(number)
        if len(self.problems) > before:
            return None
        spec = AnswerSpec(
            checker=checker,
            value=value,
            text=text.strip(),
            aliases=tuple(aliases),
            unit=unit,
            forbid=tuple(forbid),
            **tolerances,
        )
        verdict = check_answer(spec, spec.text)
        if not verdict.passed:
            self.problem(f"{pointer}/text", f"the answer text fails its own checker ({verdict.detail})")
            return None
        return spec

    def strings(self, raw: Any, pointer: str, *, non_empty: bool = False) -> list[str]:
        if raw is None and not non_empty:
            return []
        if not isinstance(raw, list) or (non_empty and not raw):
            self.problem(pointer, "required: a non-empty list of text" if non_empty else "a list of text")
            return []
        out = []
        for index, item in enumerate(raw):
            if not isinstance(item, str) or not item.strip():
                self.problem(f"{pointer}/{index}", "must be non-empty text")
            else:
                out.append(item.strip())
        return out

    def clock(self, raw: Any, pointer: str) -> str | None:
        try:
            return parse_clock(raw)
        except ValueError as error:
            self.problem(pointer, str(error))
            return None


def parse_clock(value: Any) -> str:
    """An ISO 8601 time ('2026-11-18T14:20', '+09:00' assumed when no offset is given) in canonical form."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"not an ISO 8601 time: {value!r} (e.g. '2026-11-18T14:20:00+09:00')") from None
    else:
        raise ValueError(f"a time as ISO 8601 text; got {value!r}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=KST)
    return moment.isoformat()


def _plain_json(value: Any) -> bool:
    if value is None or isinstance(value, str | bool | int):
        return True
    if isinstance(value, float):
        return is_finite_number(value)
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _plain_json(v) for k, v in value.items())
    return False


def _plain(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def canonical_gold_args(call: GoldCall, ignore: Iterable[str] = ()) -> dict[str, Any]:
    """The gold call's judged arguments in canonical form (paging and ignored arguments left out)."""
    skip = set(call.paging.params) | set(ignore)
    return {k: canonical_value(v) for k, v in call.args.items() if k not in skip and canonical_value(v) is not None}
