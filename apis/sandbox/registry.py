"""What the sandbox emulates: services (one per live base URL), their operations, parameters and records.

A family module declares a ServiceDef with service(...) and decorates one handler per operation with
@svc.operation(...). Every module under apis/sandbox/families/ is imported by load_families().
"""

from __future__ import annotations

import importlib
import pkgutil
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from apis.sandbox.errors import InvalidParam
from apis.sandbox.rand import rng

if TYPE_CHECKING:
    from apis.sandbox.auth import Auth
    from apis.sandbox.config import SandboxConfig
    from apis.sandbox.envelopes.base import Envelope
    from apis.sandbox.state import SandboxState
    from apis.sandbox.wire import SandboxRequest, SandboxResponse


@dataclass(frozen=True)
class Param:
    """One request parameter, named exactly as live (case included)."""

    name: str
    description: str  # Korean, as the portal writes it
    required: bool = False
    type: str = "string"  # Swagger type: string | integer | number
    example: str | None = None
    enum: tuple[str, ...] = ()
    default: str | None = None
    location: str = "query"  # query | path | header | body (a property of the operation's one JSON body)
    schema: Mapping[str, Any] | None = None  # JSON Schema of a body property that is not a plain string


@dataclass(frozen=True)
class Field:
    """One field of the item record. type says how JSON writes it: string (most) | integer | number."""

    name: str
    description: str
    type: str = "string"
    example: str = ""


@dataclass
class Result:
    """What a handler returns. records is the whole result set unless total is given (already one page)."""

    records: Sequence[Mapping[str, Any]]
    total: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class LazyRecords(Sequence):
    """Records built only when sliced: return LazyRecords(rows, build) in a Result so that a large result
    set costs only the page the envelope renders (len() is the total)."""

    def __init__(self, items: Sequence[Any], build: Callable[[Any], Mapping[str, Any]]):
        self._items = items
        self._build = build

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._build(item) for item in self._items[index]]
        return self._build(self._items[index])


class Params(dict):
    """The operation's parameters as sent (first value of each name), with validating readers."""

    def text(self, name: str, default: str = "") -> str:
        value = self.get(name)
        return default if value is None else value

    def present(self, name: str) -> bool:
        value = self.get(name)
        return value is not None and value.strip() != ""

    def int(self, name: str, default: int | None = None, *, minimum: int | None = None, code: str = "10") -> int | None:
        value = self.get(name)
        if value is None or value.strip() == "":
            return default
        try:
            number = int(value.strip())
        except ValueError:
            raise InvalidParam(name, code) from None
        if minimum is not None and number < minimum:
            raise InvalidParam(name, code)
        return number

    def digits(self, name: str, length: int | tuple[int, ...], *, code: str = "10") -> str:
        """A required all-digit value of the given length(s), e.g. LAWD_CD (5) or DEAL_YMD (6)."""
        value = self.text(name).strip()
        lengths = (length,) if isinstance(length, int) else length
        if not value.isdigit() or len(value) not in lengths:
            raise InvalidParam(name, code)
        return value


@dataclass
class Context:
    """Everything a handler or envelope may look at for one request."""

    req: SandboxRequest
    config: SandboxConfig
    state: SandboxState
    now: datetime  # the sandbox clock, KST
    service: ServiceDef | None = None
    op: Operation | None = None
    params: Params = field(default_factory=Params)
    path_params: dict[str, str] = field(default_factory=dict)
    fmt: str = "xml"  # "xml" | "json", decided by the service's envelope

    def rng(self, *parts: object) -> random.Random:
        """Deterministic randomness for data: same parts, same numbers, whatever the request order."""
        return rng(*parts)


Handler = Callable[[Context, Params], "Result | Sequence[Mapping[str, Any]]"]


@dataclass
class Operation:
    id: str  # matches korean_apis.json where the operation is listed there
    service: ServiceDef
    path: str  # relative to the service's base_path; "{name}" segments are path parameters
    method: str
    summary_ko: str
    summary_en: str
    params: tuple[Param, ...]
    fields: tuple[Field, ...]
    example: dict[str, str]  # query (or path) parameters of a request that succeeds, key excluded
    handler: Handler
    example_body: Any = None  # JSON body for POST operations
    missing_param_code: str = "11"  # how this API reports a missing required parameter
    match_query: dict[str, str] = field(default_factory=dict)  # e.g. KOSIS ?method=getList
    notes: str = ""  # what differs from live, shown in docs and the spec description
    other_methods: tuple[str, ...] = ()  # also accepted, e.g. Juso's POST form next to GET
    # Further requests that succeed, for operations whose record shape follows a parameter (KOSIS meta type,
    # TourAPI contentTypeId): with example, their records show every declared field.
    more_examples: tuple[dict[str, str], ...] = ()

    @property
    def full_path(self) -> str:
        return self.service.base_path + self.path

    @property
    def live_url(self) -> str:
        return f"{self.service.schemes[0]}://{self.service.host}{self.full_path}"

    def all_params(self) -> list[Param]:
        """Auth and envelope parameters (serviceKey, pageNo, _type …) followed by the operation's own."""
        merged: dict[str, Param] = {}
        for param in (*self.service.auth.spec_params(), *self.service.envelope.spec_params(self), *self.params):
            merged[param.name] = param
        return list(merged.values())

    def match(self, path: str, query: Mapping[str, list[str]]) -> dict[str, str] | None:
        """Path parameters when path (and match_query) fit this operation, else None."""
        for name, value in self.match_query.items():
            if (query.get(name) or [None])[0] != value:
                return None
        template = self.full_path
        if "{" not in template:
            return {} if path == template else None
        want = template.strip("/").split("/")
        got = path.strip("/").split("/")
        values: dict[str, str] = {}
        for index, segment in enumerate(want):
            optional = segment.endswith("?}")
            if index >= len(got):
                if optional:
                    continue
                return None
            if segment.startswith("{") and segment.endswith("}"):
                values[segment.strip("{}?")] = got[index]
            elif segment != got[index]:
                return None
        return values if len(got) <= len(want) else None


@dataclass
class ServiceDef:
    """One live service (a base URL): who runs it, where it lives, its envelope and its key policy."""

    id: str  # the live service name, e.g. "RTMSDataSvcAptTrade"; also the spec file name
    provider_ko: str
    provider_en: str
    family: str  # envelope family, e.g. "datagokr_standard", "stanregincd", "odcloud"
    host: str  # live host, with port where live has one
    base_path: str  # e.g. "/1613000/RTMSDataSvcAptTrade" (no trailing slash; "" for none)
    title_ko: str
    envelope: Envelope
    auth: Auth
    title_en: str = ""
    schemes: tuple[str, ...] = ("https", "http")
    retired: bool = False  # answers every call with the gateway's 12 NO_OPENAPI_SERVICE_ERROR
    description_ko: str = ""
    operations: list[Operation] = field(default_factory=list)

    @property
    def spec_file(self) -> str:
        return f"{self.id}.json"

    def operation(
        self,
        *,
        id: str,
        path: str,
        summary_ko: str,
        summary_en: str = "",
        params: Sequence[Param] = (),
        fields: Sequence[Field] = (),
        example: Mapping[str, str] | None = None,
        example_body: Any = None,
        method: str = "GET",
        missing_param_code: str = "11",
        notes: str = "",
        other_methods: Sequence[str] = (),
        more_examples: Sequence[Mapping[str, str]] = (),
    ) -> Callable[[Handler], Handler]:
        """Register the decorated function as the handler of one operation of this service."""

        def decorate(handler: Handler) -> Handler:
            op_path, _, query = path.partition("?")
            op = Operation(
                id=id,
                service=self,
                path=op_path,
                method=method.upper(),
                summary_ko=summary_ko,
                summary_en=summary_en,
                params=tuple(params),
                fields=tuple(fields),
                example=dict(example or {}),
                handler=handler,
                example_body=example_body,
                missing_param_code=missing_param_code,
                match_query=dict(parse_qsl(query)),
                notes=notes,
                other_methods=tuple(m.upper() for m in other_methods),
                more_examples=tuple(dict(e) for e in more_examples),
            )
            REGISTRY.add_operation(op)
            return handler

        return decorate


@dataclass
class HostDef:
    """How a live host answers a path it does not know (the data.go.kr gateway differs from a 404 page)."""

    host: str
    unknown_path: Callable[[Context], SandboxResponse] | None = None


class Registry:
    def __init__(self):
        self.services: dict[str, ServiceDef] = {}
        self.operations: dict[str, Operation] = {}
        self.hosts: dict[str, HostDef] = {}
        self._by_host: dict[str, list[Operation]] = {}

    def add_service(self, svc: ServiceDef) -> ServiceDef:
        if svc.id in self.services and self.services[svc.id] is not svc:
            raise ValueError(f"sandbox service {svc.id!r} is registered twice")
        self.services[svc.id] = svc
        self.hosts.setdefault(svc.host, HostDef(svc.host))
        return svc

    def add_operation(self, op: Operation) -> None:
        if op.id in self.operations:
            raise ValueError(f"sandbox operation {op.id!r} is registered twice")
        self.operations[op.id] = op
        op.service.operations.append(op)
        # Literal paths before templates, so "/getX" wins over "/{KEY}".
        ops = self._by_host.setdefault(op.service.host, [])
        ops.append(op)
        ops.sort(key=lambda o: ("{" in o.full_path, -len(o.full_path)))

    def add_host(self, host: HostDef) -> None:
        self.hosts[host.host] = host

    def find(self, host: str, path: str, query: Mapping[str, list[str]]) -> tuple[Operation, dict[str, str]] | None:
        for op in self._by_host.get(host, ()):
            values = op.match(path, query)
            if values is not None:
                return op, values
        return None

    def live_operations(self) -> list[Operation]:
        return [op for op in self.operations.values() if not op.service.retired]


REGISTRY = Registry()
_loaded = False
_load_lock = threading.Lock()


def service(**kwargs) -> ServiceDef:
    """Declare and register a ServiceDef (same arguments as the dataclass)."""
    return REGISTRY.add_service(ServiceDef(**kwargs))


def load_families() -> Registry:
    """Import every module in apis.sandbox.families once, so their services register themselves."""
    global _loaded
    if _loaded:
        return REGISTRY
    with _load_lock:
        if not _loaded:
            from apis.sandbox import families

            for module in sorted(pkgutil.iter_modules(families.__path__), key=lambda m: m.name):
                importlib.import_module(f"{families.__name__}.{module.name}")
            _loaded = True
    return REGISTRY
