"""Swagger 2.0 / OpenAPI 3.0-3.1 importer: any source in, validated, then converted to ServiceSpec and ToolSpecs.

Sources: a dict, JSON or YAML text, a file path, a URL, or a data.go.kr dataset page that embeds its spec as
``var swaggerJson = `...`;`` (or points to one with ``var swaggerUrl``). The whole spec is validated first
and every problem is reported with its JSON pointer; only a spec without errors is built, so an import is
all or nothing. The service key parameter (serviceKey, ServiceKey, confmKey, apiKey, KEY, an Authorization
header, or a security scheme) and the JSON format switch leave the tool parameters and become the
service's key slot and json_switch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import httpx
import yaml

from apis.engine.model import KeySlot, Problem, ServiceSpec, ToolSpec
from apis.engine.outbound import OutboundFailed, OutboundPolicy, OutboundRefused, fetch

METHODS = ("get", "post", "put", "delete", "patch", "head", "options")
KEY_NAMES = {"servicekey", "confmkey", "apikey", "api_key", "key", "authkey", "crtfckey", "crtfc_key", "authorization"}
FORMAT_NAMES = {"_type", "datatype", "returntype", "type", "resulttype", "format"}
# data.go.kr organization codes (the first basePath segment) seen in the research catalog.
ORG_NAMES = {
    "1613000": "국토교통부",
    "1360000": "기상청",
    "1741000": "행정안전부",
    "1471000": "식품의약품안전처",
    "B552584": "한국환경공단",
    "B090041": "한국천문연구원",
    "B551011": "한국관광공사",
    "B552657": "국립중앙의료원",
    "B551182": "건강보험심사평가원",
    "1130000": "공정거래위원회",
    "1160100": "금융위원회",
}
HOST_FAMILIES = {
    "apis.data.go.kr": "datagokr",
    "api.odcloud.kr": "odcloud",
    "business.juso.go.kr": "juso",
    "kosis.kr": "kosis",
    "openapi.seoul.go.kr": "seoul_open_data",
    "swopenapi.seoul.go.kr": "seoul_subway",
    "ws.bus.go.kr": "seoul_bus",
    "www.reb.or.kr": "rone",
}
_V2_PARAM_IN = {"query", "header", "path", "formData", "body"}
_V3_PARAM_IN = {"query", "header", "path", "cookie"}
_TYPES = {"string", "number", "integer", "boolean", "array", "object", "file", "null"}
_SCHEMA_KEYS = ("type", "format", "description", "enum", "default", "example", "items", "minimum", "maximum")
_SCHEMA_KEYS += ("minLength", "maxLength", "pattern", "minItems", "maxItems")
_RECORD_KEYS = ("item", "row", "data", "juso", "itemList")
_SKIP_KEYS = {"header", "head", "cmmMsgHeader", "msgHeader", "comMsgHeader", "common", "RESULT", "errorMessage"}
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


@dataclass
class ImportResult:
    services: list[ServiceSpec] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.level == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.level == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def report(self) -> str:
        """One human-readable report: what was imported, or every problem that stopped it."""
        if not self.ok:
            lines = [f"Import refused: {len(self.errors)} problem(s); nothing was imported."]
        else:
            names = ", ".join(s.title or s.base_url for s in self.services)
            lines = [f"Imported {len(self.tools)} tool(s) from {names}."]
        lines += [f"- [{p.level}] {p}" for p in self.problems]
        return "\n".join(lines)


@dataclass(frozen=True)
class SpecLimits:
    """Bounds on what one spec may cost: text size, parsed nodes, nesting depth and $ref expansion."""

    max_bytes: int = 5_000_000
    max_nodes: int = 500_000  # values in the parsed document, YAML aliases counted once per use
    max_depth: int = 100
    max_expanded_nodes: int = 200_000  # values produced by expanding $refs over the whole spec (bundled: <1,500)


DEFAULT_LIMITS = SpecLimits()


class SpecSourceError(Exception):
    """The source could not be read or parsed as a spec; problems say why, with pointers."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


# ---------------------------------------------------------------------------------------------- loading


def import_spec(
    source: Any,
    *,
    transport: httpx.BaseTransport | None = None,
    source_url: str | None = None,
    policy: OutboundPolicy | None = None,
    limits: SpecLimits = DEFAULT_LIMITS,
) -> ImportResult:
    """Load, validate and convert a spec. Never raises for a bad spec: the problems are in the result."""
    try:
        doc, origin = load_document(source, transport=transport, source_url=source_url, policy=policy, limits=limits)
    except SpecSourceError as error:
        return ImportResult(problems=error.problems)
    return convert(doc, origin=origin, limits=limits)


def load_document(
    source: Any,
    *,
    transport: httpx.BaseTransport | None = None,
    source_url: str | None = None,
    text_only: bool = False,
    policy: OutboundPolicy | None = None,
    limits: SpecLimits = DEFAULT_LIMITS,
) -> tuple[dict[str, Any], str]:
    """(document, origin) from any supported source; origin is the URL or path it came from, or "text".

    text_only=True (what people send through the API and pages): a string is the spec itself, never a path
    to read or a URL to fetch, and a portal page's swaggerUrl is not followed. URLs are fetched under
    `policy` (public addresses only, capped in size and time; apis.engine.outbound).
    """
    policy = policy or OutboundPolicy(max_bytes=limits.max_bytes)
    if isinstance(source, Mapping):
        _check_shape(source, limits)
        return dict(source), source_url or "dict"
    if isinstance(source, Path) and not text_only:
        return _from_file(source, transport, policy, limits)
    if isinstance(source, bytes):
        source = source.decode("utf-8-sig", errors="replace")
    if not isinstance(source, str):
        raise SpecSourceError([Problem("", f"unsupported source type {type(source).__name__}")])
    if len(source.encode("utf-8", errors="replace")) > limits.max_bytes:
        raise SpecSourceError([Problem("", f"the spec is larger than the {limits.max_bytes:,}-byte limit")])
    text = source.strip()
    if not text_only:
        if re.match(r"^https?://\S+$", text):
            return _from_url(text, transport, policy, limits)
        if "\n" not in text and len(text) < 4096 and not text.startswith(("{", "[", "<")):
            path = Path(text).expanduser()
            if path.is_file():
                return _from_file(path, transport, policy, limits)
    follow = None if text_only else (transport, policy)
    return _from_text(source, origin=source_url or "text", follow=follow, limits=limits)


def _from_file(path: Path, transport, policy: OutboundPolicy, limits: SpecLimits) -> tuple[dict[str, Any], str]:
    try:
        if path.stat().st_size > limits.max_bytes:
            raise SpecSourceError([Problem("", f"{path.name} is larger than the {limits.max_bytes:,}-byte limit")])
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise SpecSourceError([Problem("", f"cannot read {path}: {error}")]) from None
    return _from_text(text, origin=str(path), follow=(transport, policy), limits=limits)


def _from_url(url: str, transport, policy: OutboundPolicy, limits: SpecLimits, depth: int = 0):
    try:
        fetched = fetch(url, policy, transport=transport)
    except (OutboundRefused, OutboundFailed) as error:
        raise SpecSourceError([Problem("", f"{url}: {error}")]) from None
    return _from_text(fetched.text, origin=fetched.url, follow=(transport, policy), limits=limits, depth=depth)


def _check_shape(doc: Any, limits: SpecLimits) -> None:
    """Refuse a document with too many values, too much text or too deep a nesting once expanded.

    YAML aliases count at every use: a short document whose aliases expand to megabytes (stored and served
    expanded) is refused as if it had been written out in full.
    """
    count = size = 0
    max_size = 2 * limits.max_bytes
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > limits.max_nodes:
            raise SpecSourceError(
                [Problem("", f"the spec has more than {limits.max_nodes:,} values (counting YAML aliases)")]
            )
        if depth > limits.max_depth:
            raise SpecSourceError([Problem("", f"the spec is nested deeper than {limits.max_depth} levels")])
        if isinstance(node, Mapping):
            size += sum(len(str(key)) for key in node)
            stack.extend((value, depth + 1) for value in node.values())
        elif isinstance(node, list | tuple):
            stack.extend((value, depth + 1) for value in node)
        elif isinstance(node, str):
            size += len(node)
        if size > max_size:
            raise SpecSourceError(
                [Problem("", f"the spec expands to more than {max_size:,} characters (counting YAML aliases)")]
            )


_SWAGGER_JSON = re.compile(r"var\s+swaggerJson\s*=\s*`(.*?)`\s*;", re.S)
_SWAGGER_JSON_OTHER = re.compile(r"var\s+swaggerJson\s*=\s*(['\"{])", re.S)
_SWAGGER_URL = re.compile(r"var\s+swaggerUrl\s*=\s*['\"`]([^'\"`]+)['\"`]")


def _from_text(
    text: str, *, origin: str, follow, limits: SpecLimits = DEFAULT_LIMITS, depth: int = 0
) -> tuple[dict[str, Any], str]:
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        raise SpecSourceError([Problem("", "the source is empty")])
    if stripped.startswith("<") or "var swaggerJson" in stripped or "var swaggerUrl" in stripped:
        return _from_portal_page(stripped, origin=origin, follow=follow, limits=limits, depth=depth)
    if stripped.startswith(("{", "[")):
        try:
            doc = json.loads(stripped)
        except RecursionError:
            raise SpecSourceError([Problem("", f"the spec is nested deeper than {limits.max_depth} levels")]) from None
        except json.JSONDecodeError as error:
            raise SpecSourceError(
                [Problem("", f"not valid JSON: {error.msg} at line {error.lineno} column {error.colno}")]
            ) from None
    else:
        try:
            doc = yaml.safe_load(stripped)
        except RecursionError:
            raise SpecSourceError([Problem("", f"the spec is nested deeper than {limits.max_depth} levels")]) from None
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
            reason = getattr(error, "problem", None) or str(error)
            raise SpecSourceError([Problem("", f"neither JSON nor valid YAML: {reason}{where}")]) from None
    if isinstance(doc, str) and "\n" not in stripped:
        raise SpecSourceError([Problem("", f"neither a spec nor an existing file or URL: {stripped[:120]!r}")])
    if not isinstance(doc, dict):
        raise SpecSourceError([Problem("", f"a spec must be an object at the top; got {type(doc).__name__}")])
    _check_shape(doc, limits)
    return doc, origin


def _from_portal_page(html: str, *, origin: str, follow, limits: SpecLimits, depth: int) -> tuple[dict[str, Any], str]:
    """A data.go.kr dataset page: the spec inline in a JS template literal, or a swaggerUrl to follow."""
    if match := _SWAGGER_JSON.search(html):
        body = _unescape_template_literal(match.group(1)).strip()
        if not body:
            raise SpecSourceError([Problem("", "the page's swaggerJson is empty: a skeleton with no operations")])
        try:
            doc = json.loads(body, strict=False)
        except RecursionError:
            raise SpecSourceError([Problem("", f"the spec is nested deeper than {limits.max_depth} levels")]) from None
        except json.JSONDecodeError as error:
            raise SpecSourceError(
                [Problem("", f"the page's swaggerJson is not valid JSON: {error.msg} at char {error.pos}")]
            ) from None
        if not isinstance(doc, dict):
            raise SpecSourceError([Problem("", "the page's swaggerJson is not an object")])
        _check_shape(doc, limits)
        return doc, origin
    if match := _SWAGGER_JSON_OTHER.search(html):
        start = match.start(1)
        try:
            value, _ = json.JSONDecoder(strict=False).raw_decode(html, start)
            doc = json.loads(value, strict=False) if isinstance(value, str) else value
        except RecursionError:
            raise SpecSourceError([Problem("", f"the spec is nested deeper than {limits.max_depth} levels")]) from None
        except json.JSONDecodeError as error:
            raise SpecSourceError([Problem("", f"the page's swaggerJson is not valid JSON: {error.msg}")]) from None
        if isinstance(doc, dict):
            _check_shape(doc, limits)
            return doc, origin
    if (match := _SWAGGER_URL.search(html)) and depth < 2:
        url = urljoin(origin, match.group(1)) if origin.startswith("http") else match.group(1)
        if follow is None:
            raise SpecSourceError(
                [Problem("", "the page points to its spec by URL (var swaggerUrl); import that URL instead")]
            )
        if not url.startswith("http"):
            raise SpecSourceError([Problem("", f"the page points to a spec at {url!r}, which is not a URL")])
        transport, policy = follow
        return _from_url(url, transport, policy, limits, depth + 1)
    raise SpecSourceError(
        [
            Problem(
                "",
                "an HTML page without an embedded spec (no `var swaggerJson` or `var swaggerUrl`): "
                "this dataset documents its operations only in HTML tables or attached guides",
            )
        ]
    )


def _unescape_template_literal(text: str) -> str:
    """JS template-literal escapes: \\\\ to \\, \\` to `, \\$ to $, \\n \\t \\r to the characters."""
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "`": "`", "$": "$", "'": "'", '"': '\\"'}

    def replace(match: re.Match) -> str:
        char = match.group(1)
        return simple.get(char, "\\" + char)

    return re.sub(r"\\(.)", replace, text, flags=re.S)


# ------------------------------------------------------------------------------------------ $ref resolution


def escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape_token(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


class ExpansionLimit(Exception):
    """Expanding the spec's $refs would produce more values than SpecLimits.max_expanded_nodes allows."""


class _Resolver:
    """Local $ref resolution with cycle protection and an expansion budget; records bad references as Problems.

    The budget bounds the whole spec's expansion (a few kilobytes of nested $refs can otherwise expand to
    gigabytes): past it, deep() raises ExpansionLimit and the import is refused.
    """

    def __init__(self, doc: Mapping[str, Any], budget: int = DEFAULT_LIMITS.max_expanded_nodes):
        self.doc = doc
        self.problems: list[Problem] = []
        self._reported: set[tuple[str, str]] = set()
        self.budget = budget

    def lookup(self, ref: str) -> tuple[bool, Any]:
        if not ref.startswith("#"):
            return False, None
        node: Any = self.doc
        for token in ref[1:].split("/")[1:] if ref[1:] else []:
            token = _unescape_token(token)
            if isinstance(node, Mapping) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return False, None
        return True, node

    def _report(self, pointer: str, message: str) -> None:
        if (pointer, message) not in self._reported:
            self._reported.add((pointer, message))
            self.problems.append(Problem(pointer, message))

    def shallow(self, node: Any, pointer: str) -> Any:
        """Follow $ref chains at one node; a broken or cyclic chain yields None and a problem."""
        seen: set[str] = set()
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            ref_pointer = f"{pointer}/$ref"
            if not ref.startswith("#"):
                self._report(ref_pointer, f"external $ref {ref!r} is not supported; inline it or use a local #/ ref")
                return None
            if ref in seen:
                self._report(ref_pointer, f"$ref {ref!r} refers to itself")
                return None
            seen.add(ref)
            found, target = self.lookup(ref)
            if not found:
                self._report(ref_pointer, f"$ref {ref!r} does not resolve")
                return None
            pointer, node = ref[1:], target
        return node

    def deep(self, node: Any, pointer: str, stack: tuple[str, ...] = ()) -> Any:
        """A copy with every local $ref expanded; a $ref already on the stack becomes a stub object."""
        self.budget -= 1
        if self.budget < 0:
            raise ExpansionLimit
        if isinstance(node, Mapping):
            if isinstance(node.get("$ref"), str):
                ref = node["$ref"]
                if ref in stack:
                    return {"type": "object", "description": f"(recursive: {ref})"}
                target = self.shallow({"$ref": ref}, pointer)
                if target is None:
                    return {}
                return self.deep(target, ref[1:], (*stack, ref))
            return {k: self.deep(v, f"{pointer}/{escape_pointer(str(k))}", stack) for k, v in node.items()}
        if isinstance(node, list):
            return [self.deep(v, f"{pointer}/{i}", stack) for i, v in enumerate(node)]
        return node


# ------------------------------------------------------------------------------------------- validation


@dataclass
class _Operation:
    path: str
    method: str
    pointer: str
    op: Mapping[str, Any]
    params: list[tuple[str, Mapping[str, Any]]]  # (pointer, resolved parameter), path-level merged with op-level


def _version(doc: Mapping[str, Any]) -> tuple[str | None, list[Problem]]:
    if "swagger" in doc:
        if str(doc["swagger"]).strip() == "2.0":
            return "2", []
        return None, [Problem("/swagger", f"unsupported Swagger version {doc['swagger']!r}; expected 2.0")]
    if "openapi" in doc:
        version = str(doc["openapi"]).strip()
        if re.match(r"^3\.[01](\.\d+)?(-.+)?$", version):
            return "3", []
        return None, [Problem("/openapi", f"unsupported OpenAPI version {version!r}; expected 3.0.x or 3.1.x")]
    return None, [Problem("", "neither a 'swagger' nor an 'openapi' field: this is not a Swagger/OpenAPI document")]


def _operations(doc: Mapping[str, Any], resolver: _Resolver, problems: list[Problem]) -> list[_Operation]:
    """Every operation with its merged parameters; structural problems are appended to problems."""
    paths = doc.get("paths")
    found: list[_Operation] = []
    if paths is None:
        problems.append(Problem("/paths", _SKELETON))
        return found
    if not isinstance(paths, Mapping):
        problems.append(Problem("/paths", f"'paths' must be an object; got {type(paths).__name__}"))
        return found
    if not paths:
        problems.append(Problem("/paths", _SKELETON))
        return found
    for path, item in paths.items():
        item_pointer = f"/paths/{escape_pointer(str(path))}"
        if not str(path).startswith("/"):
            problems.append(Problem(item_pointer, f"path {path!r} must start with '/'"))
        item = resolver.shallow(item, item_pointer)
        if not isinstance(item, Mapping):
            if item is not None:
                problems.append(Problem(item_pointer, "a path item must be an object"))
            continue
        shared = _parameters(item.get("parameters"), f"{item_pointer}/parameters", resolver, problems)
        for method in METHODS:
            if method not in item:
                continue
            op_pointer = f"{item_pointer}/{method}"
            op = item[method]
            if not isinstance(op, Mapping):
                problems.append(Problem(op_pointer, "an operation must be an object"))
                continue
            own = _parameters(op.get("parameters"), f"{op_pointer}/parameters", resolver, problems)
            merged: dict[tuple[str, str], tuple[str, Mapping[str, Any]]] = {}
            for pointer, param in (*shared, *own):  # operation-level wins over path-level
                merged[(param["name"], param["in"])] = (pointer, param)
            found.append(_Operation(str(path), method, op_pointer, op, list(merged.values())))
    if not found and not any(p.pointer.startswith("/paths") for p in problems):
        problems.append(Problem("/paths", _SKELETON))
    return found


_SKELETON = (
    "skeleton spec: it declares no operations, so there is nothing to import "
    "(data.go.kr publishes many such specs; document the operations from the portal's tables instead)"
)


def _parameters(raw: Any, pointer: str, resolver: _Resolver, problems: list[Problem]):
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(Problem(pointer, "'parameters' must be a list"))
        return []
    out = []
    for index, entry in enumerate(raw):
        entry_pointer = f"{pointer}/{index}"
        param = resolver.shallow(entry, entry_pointer)
        if param is None:
            continue
        if not isinstance(param, Mapping):
            problems.append(Problem(entry_pointer, "a parameter must be an object"))
            continue
        missing = [k for k in ("name", "in") if not isinstance(param.get(k), str) or not param.get(k)]
        if missing:
            problems.append(Problem(entry_pointer, f"a parameter needs {' and '.join(missing)}"))
            continue
        out.append((entry_pointer, param))
    return out


def _validate(
    doc: Mapping[str, Any], version: str, resolver: _Resolver, origin: str
) -> tuple[list[Problem], list[_Operation]]:
    problems: list[Problem] = []
    if not isinstance(doc.get("info", {}), Mapping):
        problems.append(Problem("/info", "'info' must be an object"))
    ops = _operations(doc, resolver, problems)
    _, base_problems = _base_url(doc, version, origin)
    problems += base_problems
    seen_ids: dict[str, str] = {}
    valid_in = _V2_PARAM_IN if version == "2" else _V3_PARAM_IN
    for op in ops:
        op_id = op.op.get("operationId")
        if op_id is not None:
            if not isinstance(op_id, str) or not op_id.strip():
                problems.append(Problem(f"{op.pointer}/operationId", "operationId must be a non-empty string"))
            elif op_id in seen_ids:
                problems.append(
                    Problem(f"{op.pointer}/operationId", f"operationId {op_id!r} is also used at {seen_ids[op_id]}")
                )
            else:
                seen_ids[op_id] = op.pointer
        declared_path_params = set()
        for pointer, param in op.params:
            where = param["in"]
            if where not in valid_in:
                problems.append(
                    Problem(f"{pointer}/in", f"'in' is {where!r}; expected one of {', '.join(sorted(valid_in))}")
                )
                continue
            if where == "path":
                declared_path_params.add(param["name"])
            problems += _validate_param_schema(param, pointer, version, resolver)
        for name in re.findall(r"\{([^}]+)\}", op.path):
            if name not in declared_path_params:
                problems.append(Problem(op.pointer, f"path template variable {{{name}}} has no 'in: path' parameter"))
        if version == "3" and "requestBody" in op.op:
            body = resolver.shallow(op.op["requestBody"], f"{op.pointer}/requestBody")
            if body is not None and not isinstance(body, Mapping):
                problems.append(Problem(f"{op.pointer}/requestBody", "requestBody must be an object"))
            elif isinstance(body, Mapping) and not isinstance(body.get("content"), Mapping):
                problems.append(Problem(f"{op.pointer}/requestBody", "requestBody needs a 'content' object"))
        responses = op.op.get("responses")
        if responses is not None and not isinstance(responses, Mapping):
            problems.append(Problem(f"{op.pointer}/responses", "'responses' must be an object"))
        elif isinstance(responses, Mapping):
            for status, response in responses.items():
                resolver.deep(response, f"{op.pointer}/responses/{escape_pointer(str(status))}")
    problems += resolver.problems
    return problems, ops


def _validate_param_schema(param: Mapping[str, Any], pointer: str, version: str, resolver: _Resolver) -> list[Problem]:
    problems: list[Problem] = []
    if version == "2" and param["in"] == "body":
        if "schema" not in param:
            # Swagger 2.0 requires one, but portal specs omit it; the parameter is read as one JSON body field.
            message = f"a body parameter without 'schema': read as the JSON body field {param['name']!r}"
            problems.append(Problem(pointer, message, "warning"))
        else:
            resolver.deep(param["schema"], f"{pointer}/schema")
        return problems
    if version == "2":
        declared = param.get("type")
        type_pointer = f"{pointer}/type"
    else:
        schema = param.get("schema")
        if schema is None and "content" not in param:
            return problems  # no schema means "any string" in practice; not worth refusing the spec
        schema = resolver.shallow(schema, f"{pointer}/schema") if schema is not None else {}
        declared = schema.get("type") if isinstance(schema, Mapping) else None
        type_pointer = f"{pointer}/schema/type"
    if version == "2":
        schema = param
    for holder, where in ((param, pointer), (schema, type_pointer.rsplit("/", 1)[0])):
        if isinstance(holder, Mapping) and "enum" in holder and not isinstance(holder["enum"], list):
            problems.append(Problem(f"{where}/enum", "'enum' must be a list of the allowed values"))
    types = declared if isinstance(declared, list) else [declared] if declared is not None else []
    for kind in types:
        if kind not in _TYPES:
            problems.append(
                Problem(type_pointer, f"type {kind!r} is not one of {', '.join(sorted(_TYPES - {'null'}))}")
            )
    return problems


# ------------------------------------------------------------------------------------------------ build


def convert(doc: Mapping[str, Any], *, origin: str = "dict", limits: SpecLimits = DEFAULT_LIMITS) -> ImportResult:
    """Validate the whole document, then (only when it has no errors) build the service and its tools."""
    version, problems = _version(doc)
    if version is None:
        return ImportResult(problems=problems)
    resolver = _Resolver(doc, limits.max_expanded_nodes)
    try:
        problems, ops = _validate(doc, version, resolver, origin)
        if any(p.level == "error" for p in problems):
            return ImportResult(problems=_dedupe(problems))
        return _build(doc, version, ops, resolver, origin, problems)
    except ExpansionLimit:
        message = f"expanding the spec's $refs yields more than {limits.max_expanded_nodes:,} values; inline less"
        return ImportResult(problems=[Problem("", message)])
    except RecursionError:
        return ImportResult(problems=[Problem("", f"the spec is nested deeper than {limits.max_depth} levels")])


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str, str, str]] = set()
    out = []
    for problem in problems:
        key = (problem.pointer, problem.message, problem.level)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    return out


def _base_url(doc: Mapping[str, Any], version: str, origin: str) -> tuple[str, list[Problem]]:
    origin_is_url = origin.startswith(("http://", "https://"))
    if version == "2":
        host = str(doc.get("host") or "").strip()
        base_path = str(doc.get("basePath") or "").strip()
        schemes = doc.get("schemes") if isinstance(doc.get("schemes"), list) else []
        if not host:
            if not origin_is_url:
                return "", [
                    Problem("/host", "no 'host': the base URL cannot be known (give the spec's URL as its source)")
                ]
            parts = urlsplit(origin)
            host, scheme = parts.netloc, parts.scheme
        else:
            scheme = "https" if "https" in schemes else (schemes[0] if schemes else "https")
        host = re.sub(r"^[a-z]+://", "", host)
        # Some data.go.kr specs put the service path into host ("apis.data.go.kr/1613000/X").
        host, _, host_path = host.partition("/")
        path = "/".join(p.strip("/") for p in (host_path, base_path) if p.strip("/"))
        return f"{scheme}://{host}" + (f"/{path}" if path else ""), []
    servers = doc.get("servers")
    url = ""
    if isinstance(servers, list) and servers and isinstance(servers[0], Mapping):
        url = str(servers[0].get("url") or "").strip()
        for name, variable in (servers[0].get("variables") or {}).items():
            if isinstance(variable, Mapping) and "default" in variable:
                url = url.replace("{" + name + "}", str(variable["default"]))
    elif servers is not None and not isinstance(servers, list):
        return "", [Problem("/servers", "'servers' must be a list")]
    if not url.startswith(("http://", "https://")):
        if origin_is_url:
            url = urljoin(origin, url or "/")
        else:
            return "", [
                Problem(
                    "/servers",
                    "no absolute server URL: the base URL cannot be known (give the spec's URL as its source)",
                )
            ]
    return url.rstrip("/"), []


def _build(doc, version, ops, resolver: _Resolver, origin: str, problems: list[Problem]) -> ImportResult:
    base_url, _ = _base_url(doc, version, origin)
    info = doc.get("info") if isinstance(doc.get("info"), Mapping) else {}
    parts = urlsplit(base_url)
    host = parts.netloc.lower()
    provider, provider_name = _provider(host, parts.path)
    family = HOST_FAMILIES.get(host.split(":")[0], "other")
    security_slots = _security_slots(doc, version, host)

    tools: list[ToolSpec] = []
    used_ids: set[str] = set()
    service_key: KeySlot | None = None
    service_switch: dict[str, str] = {}
    for op in ops:
        tool, tool_problems = _build_tool(op, version, resolver, base_url, provider, family, security_slots, used_ids)
        problems += tool_problems
        tools.append(tool)
        service_key = service_key or tool.key_param
        service_switch = service_switch or tool.json_switch
    standard = ("response.", "body.", "items")
    if family == "datagokr" and any(t.record_path and not t.record_path.startswith(standard) for t in tools):
        family = "datagokr_nonstandard"  # 법정동코드 head/row, 주민등록 Response/head/items
    retired = bool(info.get("x-retired") or info.get("deprecated"))
    tools = [replace(t, family=family, deprecated=t.deprecated or retired) for t in tools]
    service = ServiceSpec(
        base_url=base_url,
        title=str(info.get("title") or "").strip(),
        description=str(info.get("description") or "").strip(),
        version=str(info.get("version") or "").strip(),
        provider=provider,
        provider_name=provider_name,
        family=family,
        json_switch=service_switch,
        key_param=service_key or (security_slots[0] if security_slots else None),
        spec_format=f"swagger {doc.get('swagger')}" if version == "2" else f"openapi {doc.get('openapi')}",
        source=origin,
    )
    return ImportResult(services=[service], tools=tools, problems=_dedupe(problems))


def _provider(host: str, path: str) -> tuple[str, str]:
    bare = host.split(":")[0]
    if bare == "apis.data.go.kr":
        org = path.strip("/").split("/")[0] if path.strip("/") else ""
        return (f"{bare}/{org}" if org else bare), ORG_NAMES.get(org, "")
    return host, ""


def _security_slots(doc: Mapping[str, Any], version: str, host: str) -> list[KeySlot]:
    schemes = doc.get("securityDefinitions") if version == "2" else (doc.get("components") or {}).get("securitySchemes")
    slots: list[KeySlot] = []
    if not isinstance(schemes, Mapping):
        return slots
    for scheme in schemes.values():
        if not isinstance(scheme, Mapping) or scheme.get("type") != "apiKey":
            continue
        name, where = scheme.get("name"), scheme.get("in")
        if isinstance(name, str) and where in ("query", "header"):
            slots.append(_key_slot(name, where, host, str(scheme.get("description") or "")))
    # A query slot first: odcloud offers both and the query form needs no prefix.
    return sorted(slots, key=lambda s: s.location != "query")


def _key_slot(name: str, where: str, host: str, description: str = "") -> KeySlot:
    prefix = ""
    if where == "header" and name.lower() == "authorization" and ("odcloud" in host or "Infuser" in description):
        prefix = "Infuser "
    return KeySlot(name=name, location=where, prefix=prefix)


def _is_key_param(param: Mapping[str, Any]) -> bool:
    return str(param["name"]).lower() in KEY_NAMES and param["in"] in ("query", "header", "path")


def _switch_value(param: Mapping[str, Any], schema: Mapping[str, Any]) -> str | None:
    """The spelling of "json" this format parameter accepts, or None if it is not a JSON/XML switch."""
    if str(param["name"]).lower() not in FORMAT_NAMES and param["in"] != "path":
        return None
    enum = schema.get("enum") or param.get("enum") or []
    for value in enum:
        if str(value).lower() == "json":
            return str(value)
    hints = " ".join(
        str(x)
        for x in (
            param.get("description"),
            schema.get("default"),
            param.get("default"),
            schema.get("example"),
            param.get("example"),
            param.get("x-example"),
        )
        if x
    )
    if param["in"] == "path" and not enum:
        return None
    if re.search(r"\bjson\b", hints, re.I) and (
        re.search(r"\bxml\b", hints, re.I) or str(param["name"]).lower() in FORMAT_NAMES
    ):
        return "JSON" if re.search(r"\bJSON\b", hints) and not re.search(r"\bjson\b", hints) else "json"
    return None


def _build_tool(op: _Operation, version, resolver: _Resolver, base_url, provider, family, security_slots, used_ids):
    problems: list[Problem] = []
    host = urlsplit(base_url).netloc.lower()
    properties: dict[str, Any] = {}
    required: list[str] = []
    locations: dict[str, str] = {}
    key_param: KeySlot | None = None
    switch: dict[str, str] = {}
    for pointer, param in op.params:
        name, where = str(param["name"]), param["in"]
        if where == "cookie":
            problems.append(Problem(pointer, f"cookie parameter {name!r} is not supported and was left out", "warning"))
            continue
        if version == "2" and where == "body" and "schema" in param:
            _add_body(
                resolver.deep(param.get("schema"), f"{pointer}/schema"), name, param, properties, required, locations
            )
            continue
        schema = _param_schema(param, version, resolver, pointer)
        if _is_key_param(param):
            # Every key parameter leaves the tool; a query one wins (odcloud also takes an Authorization header).
            if key_param is None or (key_param.location != "query" and where == "query"):
                key_param = _key_slot(name, where, host, str(param.get("description") or ""))
            continue
        json_value = _switch_value(param, schema)
        if json_value is not None:
            switch[name] = json_value
            continue
        if name == "jsonVD":  # KOSIS: part of asking for JSON, never a question for the model
            switch[name] = "Y"
            continue
        properties[name] = schema
        locations[name] = "form" if where == "formData" else where
        if param.get("required") or where == "path":
            required.append(name)
    if version == "3" and "requestBody" in op.op:
        body = resolver.shallow(op.op["requestBody"], f"{op.pointer}/requestBody")
        content = body.get("content") if isinstance(body, Mapping) else {}
        for media, entry in (content or {}).items():
            schema = resolver.deep(
                (entry or {}).get("schema"), f"{op.pointer}/requestBody/content/{escape_pointer(media)}/schema"
            )
            where = "form" if "form" in media else "body"
            _add_body(
                schema, "body", {"required": body.get("required"), "in": where}, properties, required, locations, where
            )
            break
    if key_param is None:
        op_security = op.op.get("security")
        if security_slots and op_security != []:
            key_param = security_slots[0]
    summary = _clean_text(op.op.get("summary"))
    description = _clean_text(op.op.get("description"))
    operation_id = _operation_id(op, used_ids)
    name_ko = summary or description or operation_id
    texts = [t for t in (description, summary) if t]
    description_ko = next((t for t in texts if _HANGUL.search(t)), "")
    description_en = _clean_text(op.op.get("x-description-en")) or next((t for t in texts if not _HANGUL.search(t)), "")
    fields, record_path, record_problems = _record_fields(op, version, resolver)
    problems += record_problems
    tool = ToolSpec(
        method=op.method.upper(),
        path=op.path,
        base_url=base_url,
        operation_id=operation_id,
        name_ko=name_ko,
        description_ko=description_ko or name_ko,
        description_en=description_en,
        parameters={"type": "object", "properties": properties, "required": _unique(required)},
        param_locations=locations,
        record_fields=fields,
        key_param=key_param,
        json_switch=switch,
        provider=provider,
        family=family,
        response_formats=_formats(op, version, switch),
        deprecated=bool(op.op.get("deprecated")),
        record_path=record_path,
        pointer=op.pointer,
    )
    return tool, problems


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _clean_text(value: Any) -> str:
    return re.sub(r"\s+", " ", str(value)).strip() if value else ""


def _operation_id(op: _Operation, used: set[str]) -> str:
    raw = op.op.get("operationId")
    if isinstance(raw, str) and raw.strip():
        base = raw.strip()
    else:
        segments = [s for s in op.path.partition("?")[0].split("/") if s and not s.startswith("{")]
        base = segments[-1] if segments else "root"
        base = re.sub(r"\.do$", "", base)
        if op.method != "get":
            base = f"{op.method}_{base}"
    candidate, n = base, 2
    while candidate in used:
        candidate, n = f"{base}_{n}", n + 1
    used.add(candidate)
    return candidate


def _param_schema(param: Mapping[str, Any], version: str, resolver: _Resolver, pointer: str) -> dict[str, Any]:
    if version == "2":
        source = param
    else:
        source = resolver.deep(param.get("schema") or {}, f"{pointer}/schema")
        if not isinstance(source, Mapping):
            source = {}
    schema = _json_schema(source)
    if param.get("description"):  # the parameter's own words beat its schema's
        schema["description"] = _clean_text(param["description"])
    for example_key in ("example", "x-example"):
        if example_key in param and "example" not in schema:
            schema["example"] = param[example_key]
    if "examples" in param and "example" not in schema and isinstance(param["examples"], Mapping):
        first = next(iter(param["examples"].values()), None)
        if isinstance(first, Mapping) and "value" in first:
            schema["example"] = first["value"]
    schema.setdefault("type", "string")
    return schema


def _json_schema(source: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON Schema keywords a function schema can carry, with 3.1 type lists narrowed to one type."""
    schema: dict[str, Any] = {}
    for key in _SCHEMA_KEYS:
        if key in source:
            schema[key] = source[key]
    if isinstance(schema.get("type"), list):
        kinds = [k for k in schema["type"] if k != "null"]
        schema["type"] = kinds[0] if kinds else "string"
    if schema.get("type") == "file":
        schema["type"] = "string"
    if "examples" in source and "example" not in schema and isinstance(source["examples"], list) and source["examples"]:
        schema["example"] = source["examples"][0]
    if isinstance(schema.get("items"), Mapping):
        schema["items"] = _json_schema(schema["items"])
    if isinstance(schema.get("description"), str):
        schema["description"] = _clean_text(schema["description"])
    if schema.get("type") == "object" and isinstance(source.get("properties"), Mapping):
        schema["properties"] = {k: _json_schema(v) for k, v in source["properties"].items() if isinstance(v, Mapping)}
        needed = [name for name in source.get("required") or [] if name in schema["properties"]]
        if needed:
            schema["required"] = needed
    return schema


def _add_body(schema, name, param, properties, required, locations, where="body") -> None:
    """A JSON body's top-level properties become parameters located in the body; any other body is one parameter."""
    schema = schema if isinstance(schema, Mapping) else {}
    if schema.get("type", "object") == "object" and isinstance(schema.get("properties"), Mapping):
        needed = set(schema.get("required") or [])
        for prop, prop_schema in schema["properties"].items():
            properties[prop] = _json_schema(prop_schema if isinstance(prop_schema, Mapping) else {})
            properties[prop].setdefault("type", "string")
            locations[prop] = where
            if prop in needed:
                required.append(prop)
        return
    properties[name] = _json_schema(schema) or {"type": "object"}
    properties[name].setdefault("type", "object")
    locations[name] = where
    if param.get("required"):
        required.append(name)


def _formats(op: _Operation, version: str, switch: dict[str, str]) -> list[str]:
    media: list[str] = []
    if version == "2":
        media = list(op.op.get("produces") or [])
    else:
        for response in (op.op.get("responses") or {}).values():
            if isinstance(response, Mapping) and isinstance(response.get("content"), Mapping):
                media += list(response["content"])
    formats = {("json" if "json" in m else "xml" if "xml" in m else m) for m in media}
    if switch:
        formats |= {"json", "xml"}
    return sorted(formats) or (["json", "xml"] if switch else ["xml"])


# -------------------------------------------------------------------------------------------- records


def _success_schema(op: _Operation, version: str, resolver: _Resolver) -> tuple[Any, str]:
    responses = op.op.get("responses")
    if not isinstance(responses, Mapping):
        return None, f"{op.pointer}/responses"
    for status in ("200", 200, "201", "default"):
        if status in responses:
            pointer = f"{op.pointer}/responses/{status}"
            response = resolver.shallow(responses[status], pointer)
            if not isinstance(response, Mapping):
                return None, pointer
            if version == "2":
                return resolver.deep(response.get("schema"), f"{pointer}/schema"), pointer
            content = response.get("content") if isinstance(response.get("content"), Mapping) else {}
            ordered = sorted(content, key=lambda m: "json" not in m)
            for media in ordered:
                entry = content[media]
                if isinstance(entry, Mapping) and "schema" in entry:
                    return resolver.deep(entry["schema"], f"{pointer}/content/{escape_pointer(media)}/schema"), pointer
            return None, pointer
    return None, f"{op.pointer}/responses"


def _record_fields(
    op: _Operation, version: str, resolver: _Resolver
) -> tuple[list[dict[str, Any]], str, list[Problem]]:
    """(fields, dotted location of the records in the response, problems)."""
    schema, pointer = _success_schema(op, version, resolver)
    if not isinstance(schema, Mapping) or not schema:
        return [], "", [Problem(pointer, "no response schema: the tool has no record fields", "warning")]
    record, via = _find_record(schema)
    if record is None:
        return (
            [],
            "",
            [Problem(pointer, "no record schema found in the response (items.item, row, data ...)", "warning")],
        )
    return _fields_of(record), ".".join(via), []


def _object_of(schema: Any) -> Mapping[str, Any] | None:
    """The object schema of a record: the schema itself, or an array's items."""
    if not isinstance(schema, Mapping):
        return None
    if schema.get("type") == "array" or ("items" in schema and "properties" not in schema):
        return _object_of(schema.get("items"))
    if isinstance(schema.get("properties"), Mapping) and schema["properties"]:
        return schema
    for combo in ("allOf", "oneOf", "anyOf"):
        if isinstance(schema.get(combo), list):
            merged: dict[str, Any] = {}
            for part in schema[combo]:
                part_obj = _object_of(part)
                if part_obj:
                    merged.update(part_obj["properties"])
            if merged:
                return {"type": "object", "properties": merged}
    return None


def _find_record(schema: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, tuple[str, ...]]:
    """Breadth-first search for the record schema: response.body.items.item first, then row/data/juso/itemList."""
    queue: list[tuple[Any, tuple[str, ...]]] = [(schema, ())]
    while queue:
        node, via = queue.pop(0)
        obj = _object_of(node)
        if obj is None:
            continue
        props = obj["properties"]
        for key in _RECORD_KEYS:
            if key in props:
                record = _object_of(props[key])
                if record is not None:
                    # MFDS: items: [{item: {...}}] wraps each record once more.
                    inner = record["properties"]
                    if set(inner) == {"item"} and _object_of(inner["item"]) is not None:
                        return _object_of(inner["item"]), (*via, key, "item")
                    return record, (*via, key)
        if "items" in props:
            items_schema = props["items"]
            items_obj = _object_of(items_schema)
            if items_obj is not None and isinstance(items_schema, Mapping) and items_schema.get("type") == "array":
                inner = items_obj["properties"]
                if not (set(inner) & set(_RECORD_KEYS)):
                    return items_obj, (*via, "items")  # AirKorea/MFDS bare array under items
        for key, child in props.items():
            if key not in _SKIP_KEYS and len(via) < 6:
                queue.append((child, (*via, key)))
    if isinstance(schema, Mapping) and schema.get("type") == "array":
        obj = _object_of(schema)
        if obj is not None:
            return obj, ()
    return _first_object_array(schema)


def _first_object_array(schema: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, tuple[str, ...]]:
    """Fallback for envelopes with their own list name (Seoul subway's realtimeArrivalList): the
    shallowest array of objects outside the header parts."""
    queue: list[tuple[Any, tuple[str, ...]]] = [(schema, ())]
    while queue:
        node, via = queue.pop(0)
        props = node.get("properties") if isinstance(node, Mapping) else None
        if not isinstance(props, Mapping):
            continue
        for key, child in props.items():
            if key in _SKIP_KEYS or not isinstance(child, Mapping):
                continue
            if child.get("type") == "array" and _object_of(child) is not None:
                return _object_of(child), (*via, key)
            if len(via) < 6:
                queue.append((child, (*via, key)))
    return None, ()


def _fields_of(record: Mapping[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    fields: list[dict[str, Any]] = []
    for name, prop in (record.get("properties") or {}).items():
        prop = prop if isinstance(prop, Mapping) else {}
        path = f"{prefix}{name}"
        nested = _object_of(prop)
        if nested is not None and prop.get("type") != "array" and "properties" in prop:
            fields += _fields_of(nested, f"{path}.")
            continue
        if nested is not None and prop.get("type") == "array":
            fields += _fields_of(nested, f"{path}.0.")
            continue
        example = prop.get("example")
        if example is None and isinstance(prop.get("examples"), list) and prop["examples"]:
            example = prop["examples"][0]
        kind = prop.get("type", "string")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "string")
        fields.append(
            {
                "path": path,
                "name": str(name),
                "type": kind,
                "description": _clean_text(prop.get("description") or prop.get("title") or ""),
                "example": example,
            }
        )
    return fields


# ------------------------------------------------------------------------------------------------ diff


@dataclass(frozen=True)
class FieldChange:
    field: str  # dotted: "parameters.properties.LAWD_CD.type", "record_fields.dealAmount"
    old: Any
    new: Any


@dataclass(frozen=True)
class ToolChange:
    key: str
    operation_id: str
    changes: list[FieldChange]


@dataclass(frozen=True)
class ToolDiff:
    added: list[ToolSpec]
    changed: list[ToolChange]
    removed: list[ToolSpec]
    unchanged: list[str]

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.changed or self.removed)

    def summary(self) -> str:
        return f"{len(self.added)} added, {len(self.changed)} changed, {len(self.removed)} removed, {len(self.unchanged)} unchanged"


_DIFF_IGNORED = {"pointer"}


def diff_tools(old: list[ToolSpec], new: list[ToolSpec]) -> ToolDiff:
    """What a re-import changes, by tool identity (method + path), with field-level changes."""
    before = {t.key: t for t in old}
    after = {t.key: t for t in new}
    added = [after[k] for k in after if k not in before]
    removed = [before[k] for k in before if k not in after]
    changed: list[ToolChange] = []
    unchanged: list[str] = []
    for key in (k for k in after if k in before):
        changes: list[FieldChange] = []
        a, b = before[key].to_dict(), after[key].to_dict()
        for name in a:
            if name not in _DIFF_IGNORED:
                _diff_value(name, a[name], b.get(name), changes)
        if changes:
            changed.append(ToolChange(key, after[key].operation_id, changes))
        else:
            unchanged.append(key)
    return ToolDiff(added=added, changed=changed, removed=removed, unchanged=unchanged)


def _diff_value(name: str, old: Any, new: Any, out: list[FieldChange]) -> None:
    if old == new:
        return
    if isinstance(old, list) and isinstance(new, list) and _keyed_by_path(old) and _keyed_by_path(new):
        old, new = {e["path"]: e for e in old}, {e["path"]: e for e in new}
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in _unique([*old, *new]):
            if key not in new:
                out.append(FieldChange(f"{name}.{key}", old[key], None))
            elif key not in old:
                out.append(FieldChange(f"{name}.{key}", None, new[key]))
            else:
                _diff_value(f"{name}.{key}", old[key], new[key], out)
        return
    strings = isinstance(old, list) and isinstance(new, list) and all(isinstance(v, str) for v in old + new)
    if strings and sorted(old) == sorted(new):  # "required" is a set written as a list
        return
    out.append(FieldChange(name, old, new))


def _keyed_by_path(entries: list[Any]) -> bool:
    return all(isinstance(e, Mapping) and "path" in e for e in entries)
