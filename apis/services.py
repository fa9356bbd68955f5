"""Writes of the API catalog: import specs, set service keys, execute tools (one ApiCall per call), drift checks.

Every execution runs the async engine (apis/engine/executor.py) on one event-loop thread per process, so pages,
the API, jobs and the MCP server share connection pools and per-provider rate limits; database work stays in
the caller's thread (sync callers) or goes through sync_to_async (async callers). Service keys are redacted
from everything stored, logged or raised here, in every wire form (apis.engine.errors.redact).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import gzip
import hashlib
import json
import logging
import math
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import DatabaseError, transaction
from django.utils import timezone

from apis.crypto import CredentialDecryptError, decrypt_secret, encrypt, rotate
from apis.engine.drift import DriftReport, check_drift
from apis.engine.errors import ERROR_CLASSES, EngineError, Secret, redact
from apis.engine.executor import (
    Executor,
    InMemoryCallStore,
    Mode,
    PreparedRequest,
    ProviderLimits,
    RecordedCall,
    RetryPolicy,
    ToolCall,
)
from apis.engine.function_schema import build_toolset, tool_identity
from apis.engine.model import Problem, ServiceSpec, ToolSpec
from apis.engine.normalize import NormalizedResult, failure
from apis.engine.outbound import OutboundPolicy, OutboundRefused, check_url
from apis.engine.spec_import import SpecLimits, SpecSourceError, convert, diff_tools, load_document
from apis.models import ApiCall, ApiService, Credential, Provider, Tool
from apis.sandbox.config import SandboxConfig
from kopa_site.parsers import check_value

logger = logging.getLogger(__name__)

BUNDLED_SPEC_DIR = Path(__file__).resolve().parent / "sandbox" / "specs"
MODES = tuple(mode.value for mode in Mode)
# An exception inside the engine (not an API failure): the call is still logged, under this class.
INTERNAL_ERROR = "internal.error"
MIN_KEY_LENGTH = 4
_RESULT_MSG_LIMIT = 2000


class CatalogError(Exception):
    """A catalog request that cannot be carried out; the message says why, for the person who asked."""


class SpecImportError(CatalogError):
    """A spec with errors: every problem, each with its JSON pointer. Nothing was imported."""

    def __init__(self, problems: list[tuple[str, Problem]]):
        self.problems = problems
        super().__init__(self.report())

    def report(self) -> str:
        errors = [p for _, p in self.problems if p.level == "error"]
        lines = [f"Import refused: {len(errors)} problem(s); nothing was imported."]
        for source, problem in self.problems:
            where = f"{source}#{problem.pointer}" if source else (problem.pointer or "/")
            lines.append(f"- [{problem.level}] {where}: {problem.message}")
        return "\n".join(lines)

    def problem_dicts(self) -> list[dict[str, str]]:
        return [{"source": source, **asdict(problem)} for source, problem in self.problems]


class ToolExecutionError(CatalogError):
    """A call that could not be made as asked (bad mode, no key for live mode, an engine fault). Key-free text."""


class ParamsInvalid(ToolExecutionError):
    """Parameters that do not fit the tool's schema; nothing was sent. `problems` lists each one."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("parameters refused, nothing was sent: " + "; ".join(problems))


class MissingCredential(ToolExecutionError):
    """Live mode was asked for and no service key is known for the provider."""


class ExecutorFault(ToolExecutionError):
    """The engine itself failed (not the API): the call is still logged, under INTERNAL_ERROR."""


# --- Import ----------------------------------------------------------------------------------------


@dataclass
class ToolImport:
    tool: Tool
    status: str  # added | changed | removed | reactivated | unchanged
    changes: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.tool.pk,
            "function_name": self.tool.function_name,
            "method": self.tool.method,
            "path": self.tool.path,
            "name_ko": self.tool.name_ko,
            "status": self.status,
            "required": self.tool.required_params,
            "optional": self.tool.optional_params,
            "changes": self.changes,
        }


@dataclass
class ServiceImport:
    service: ApiService
    status: str  # created | changed | unchanged
    changes: list[str] = field(default_factory=list)
    tools: list[ToolImport] = field(default_factory=list)

    @property
    def touched_tools(self) -> list[ToolImport]:
        return [t for t in self.tools if t.status != "unchanged"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.service.pk,
            "title": self.service.title,
            "provider": self.service.provider.code,
            "base_url": self.service.base_url,
            "spec_base_url": self.service.spec_base_url,
            "status": self.status,
            "changes": self.changes,
            "tools": [t.to_dict() for t in self.touched_tools],
            "unchanged_tools": len(self.tools) - len(self.touched_tools),
        }


@dataclass
class CatalogImportReport:
    services: list[ServiceImport]
    warnings: list[tuple[str, Problem]] = field(default_factory=list)
    refused: list[SpecImportError] = field(default_factory=list)  # specs left out whole (bundled import)

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(("added", "changed", "removed", "reactivated", "unchanged"), 0)
        for service in self.services:
            for tool in service.tools:
                counts[tool.status] += 1
        return counts

    def summary(self) -> str:
        counts = self.counts()
        created = sum(1 for s in self.services if s.status == "created")
        tools = ", ".join(f"{n} {status}" for status, n in counts.items() if n) or "no tools"
        refused = f"; {len(self.refused)} spec(s) refused" if self.refused else ""
        return f"{len(self.services)} service(s) ({created} new): {tools}{refused}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "counts": self.counts(),
            "services": [s.to_dict() for s in self.services],
            "warnings": [{"source": src, **asdict(p)} for src, p in self.warnings],
            "refused": [{"report": error.report(), "problems": error.problem_dicts()} for error in self.refused],
        }


@dataclass
class _ParsedSpec:
    label: str
    document: dict[str, Any]
    origin: str
    services: list[ServiceSpec]
    tools: list[ToolSpec]
    warnings: list[Problem]


def outbound_policy() -> OutboundPolicy:
    """What fetches on a user's behalf may reach (settings.KOPA_OUTBOUND; docs/security.md)."""
    config = getattr(settings, "KOPA_OUTBOUND", {}) or {}
    return OutboundPolicy(
        allow=tuple(config.get("allow", ())),
        max_bytes=int(config.get("max_bytes", 5_000_000)),
        total_timeout_s=float(config.get("total_timeout_s", 30.0)),
        max_redirects=int(config.get("max_redirects", 5)),
    )


def spec_limits() -> SpecLimits:
    config = getattr(settings, "KOPA_OUTBOUND", {}) or {}
    defaults = SpecLimits()
    return SpecLimits(
        max_bytes=int(config.get("max_bytes", defaults.max_bytes)),
        max_nodes=int(config.get("spec_max_nodes", defaults.max_nodes)),
        max_depth=int(config.get("spec_max_depth", defaults.max_depth)),
        max_expanded_nodes=int(config.get("spec_max_expanded_nodes", defaults.max_expanded_nodes)),
    )


def outbound_check_url(url: str) -> None:
    """Refuse (CatalogError) a URL that the outbound rules would not let a fetch reach: scheme, then every
    address its host resolves to. For endpoints stored now and called later (model entries)."""
    try:
        check_url(url, outbound_policy())
    except OutboundRefused as error:
        raise CatalogError(str(error)) from None


def _parse_spec(
    source: Any, *, label: str, transport=None, source_url: str | None = None, text_only: bool = False
) -> _ParsedSpec:
    limits = spec_limits()
    try:
        document, origin = load_document(
            source,
            transport=transport,
            source_url=source_url,
            text_only=text_only,
            policy=outbound_policy(),
            limits=limits,
        )
    except SpecSourceError as error:
        raise SpecImportError([(label, p) for p in error.problems]) from None
    result = convert(document, origin=origin, limits=limits)
    if not result.ok:
        raise SpecImportError([(label, p) for p in result.problems])
    if not result.services:
        raise SpecImportError([(label, Problem("", "the spec describes no service"))])
    return _ParsedSpec(label, document, origin, result.services, result.tools, result.warnings)


def _check_base_url(base_url: str) -> str:
    base_url = base_url.strip().rstrip("/")
    try:
        URLValidator(schemes=["http", "https"])(base_url)
    except ValidationError:
        raise CatalogError(f"base_url must be an http(s) URL; got {base_url!r}") from None
    return base_url


def catalog_import(
    *,
    spec: str | bytes | dict | None = None,
    url: str | None = None,
    path: str | os.PathLike | None = None,
    base_url: str | None = None,
    user=None,
    transport=None,
) -> CatalogImportReport:
    """Import one Swagger/OpenAPI document given as text (or a parsed dict), a URL or a file path.

    Re-importing updates the service and its tools in place and reports what changed; a tool the spec no
    longer has is deactivated, not deleted (its calls stay). `base_url` overrides the live base URL. A spec
    with errors raises SpecImportError listing every problem, and nothing is written.
    """
    given = [name for name, value in (("spec", spec), ("url", url), ("path", path)) if value not in (None, "")]
    if len(given) != 1:
        raise CatalogError("give exactly one of spec (text), url or path")
    if base_url:
        base_url = _check_base_url(base_url)
    if url is not None:
        if not str(url).startswith(("http://", "https://")):
            raise CatalogError(f"url must start with http:// or https://; got {url!r}")
        parsed = _parse_spec(str(url).strip(), label=str(url), transport=transport)
    elif path is not None:
        parsed = _parse_spec(Path(path), label=Path(path).name, transport=transport)
    else:
        # Text only: a one-line string is never read as a server path or fetched as a URL.
        parsed = _parse_spec(spec, label="", transport=transport, source_url="text", text_only=True)
    if base_url and len(parsed.services) != 1:
        raise CatalogError("base_url can only override a spec that describes exactly one service")
    return _write_specs([parsed], base_url=base_url, user=user)


def catalog_import_bundled(
    *, user=None, spec_dir: Path = BUNDLED_SPEC_DIR, strict: bool = False
) -> CatalogImportReport:
    """Import the sandbox's own specs (apis/sandbox/specs/*.json), each one whole or not at all.

    A broken spec is left out and listed in the report's `refused` with every problem; the others are
    imported, so one bad file does not keep the site from starting. strict=True refuses them all instead.
    """
    files = sorted(Path(spec_dir).glob("*.json"))
    if not files:
        raise CatalogError(f"no bundled specs in {spec_dir}")
    parsed, refused = [], []
    for file in files:
        try:
            parsed.append(_parse_spec(file, label=file.name))
        except SpecImportError as error:
            refused.append(error)
    if refused and strict:
        raise SpecImportError([problem for error in refused for problem in error.problems])
    report = _write_specs(parsed, base_url=None, user=user)
    report.refused = refused
    for error in refused:
        logger.error("bundled catalog: %s", error.report())
    return report


def _spec_sha256(document: dict[str, Any]) -> str:
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _tool_fields(spec: ToolSpec) -> dict[str, Any]:
    return {
        "operation_id": spec.operation_id,
        "name_ko": spec.name_ko[:300],
        "description_ko": spec.description_ko,
        "description_en": spec.description_en,
        "parameters": spec.parameters,
        "param_locations": spec.param_locations,
        "record_fields": spec.record_fields,
        "record_path": spec.record_path[:200],
        "key_slot": asdict(spec.key_param) if spec.key_param else None,
        "json_switch": spec.json_switch,
        "response_formats": spec.response_formats,
        "deprecated": spec.deprecated,
        "pointer": spec.pointer[:500],
    }


def _unique_name(name: str, identity: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    digest = hashlib.sha1(identity.encode("utf-8")).hexdigest()
    for length in (8, 12, 16, 40):
        candidate = f"{name[: 63 - length].rstrip('_')}_{digest[:length]}"
        if candidate not in taken:
            return candidate
    raise CatalogError(f"cannot find a free function name for {identity}")


def _match_service(service_spec: ServiceSpec, tool_specs: list[ToolSpec], claimed: set[int]) -> ApiService | None:
    """The service a spec re-imports: same base URL and the most shared operations, else the same title."""
    candidates = [
        s
        for s in ApiService.objects.select_related("provider").filter(spec_base_url=service_spec.base_url)
        if s.pk not in claimed
    ]
    if not candidates:
        return None
    incoming = {t.key for t in tool_specs}
    keys = {s.pk: {f"{m} {p}" for m, p in s.tools.values_list("method", "path")} & incoming for s in candidates}
    best = max(candidates, key=lambda s: (len(keys[s.pk]), s.title == service_spec.title[:300]))
    if keys[best.pk] or best.title == service_spec.title[:300]:
        return best
    return None


@transaction.atomic
def _write_specs(parsed_specs: list[_ParsedSpec], *, base_url: str | None, user) -> CatalogImportReport:
    claimed: set[int] = set()
    plans = []
    for parsed in parsed_specs:
        for service_spec in parsed.services:
            tools = [t for t in parsed.tools if t.base_url == service_spec.base_url]
            service = _match_service(service_spec, tools, claimed)
            if service is not None:
                claimed.add(service.pk)
            plans.append((parsed, service_spec, tools, service))
    # Names of tools outside this import stay as they are; new tools are named against the whole catalog.
    others = list(Tool.objects.select_related("service__provider").exclude(service_id__in=claimed))
    taken = {t.function_name for t in others}
    incoming_specs = [t for _, _, tools, _ in plans for t in tools]
    toolset = build_toolset([t.to_spec(base_url=t.service.spec_base_url) for t in others] + incoming_specs)

    reports = [
        _write_service(parsed, service_spec, tools, service, base_url=base_url, toolset=toolset, taken=taken)
        for parsed, service_spec, tools, service in plans
    ]
    warnings = [(parsed.label, w) for parsed in parsed_specs for w in parsed.warnings]
    report = CatalogImportReport(services=reports, warnings=warnings)
    logger.info("catalog import by %s: %s", getattr(user, "username", "system"), report.summary())
    return report


def _write_service(
    parsed, service_spec: ServiceSpec, tool_specs, service, *, base_url, toolset, taken
) -> ServiceImport:
    provider, _ = Provider.objects.get_or_create(code=service_spec.provider or urlsplit(service_spec.base_url).netloc)
    if service_spec.provider_name and provider.name != service_spec.provider_name:
        provider.name = service_spec.provider_name
        provider.save(update_fields=["name", "updated_at"])

    created = service is None
    if created:
        service = ApiService(spec_base_url=service_spec.base_url, base_url=base_url or service_spec.base_url)
    tracked = {
        "provider_id": provider.pk,
        "title": service_spec.title[:300],
        "description": service_spec.description,
        "family": service_spec.family,
        "json_switch": service_spec.json_switch,
        "key_slot": asdict(service_spec.key_param) if service_spec.key_param else None,
        "version": service_spec.version[:60],
        "spec_format": service_spec.spec_format,
    }
    if base_url:
        tracked["base_url"] = base_url
    changes = (
        [] if created else [name.removesuffix("_id") for name, v in tracked.items() if getattr(service, name) != v]
    )
    for name, value in tracked.items():
        setattr(service, name, value)
    service.provider = provider
    service.source = parsed.origin[:500]
    service.spec_sha256 = _spec_sha256(parsed.document)
    service.spec_document = parsed.document
    if created:
        service.save()
    else:  # only what the import sets: an admin's base URL change made meanwhile is not written back over
        written = [name.removesuffix("_id") for name in tracked]
        service.save(update_fields=[*written, "provider", "source", "spec_sha256", "spec_document", "updated_at"])

    existing = {t.key: t for t in service.tools.all()} if not created else {}
    for row in existing.values():
        row.service = service
    diff = diff_tools([row.to_spec(base_url=service.spec_base_url) for row in existing.values()], tool_specs)
    results: list[ToolImport] = []
    for spec in diff.added:
        name = _unique_name(toolset.name_for(spec), tool_identity(spec), taken)
        taken.add(name)
        tool = Tool.objects.create(
            service=service, method=spec.method.upper(), path=spec.path, function_name=name, **_tool_fields(spec)
        )
        results.append(ToolImport(tool, "added"))
    new_by_key = {t.key: t for t in tool_specs}
    for change in diff.changed:
        tool = existing[change.key]
        for name, value in _tool_fields(new_by_key[change.key]).items():
            setattr(tool, name, value)
        status = "changed"
        if not tool.is_active:
            tool.is_active, status = True, "reactivated"
        tool.save(update_fields=[*_tool_fields(new_by_key[change.key]), "is_active", "updated_at"])
        results.append(
            ToolImport(tool, status, [{"field": c.field, "old": c.old, "new": c.new} for c in change.changes])
        )
    for key in diff.unchanged:
        tool = existing[key]
        if tool.is_active:
            results.append(ToolImport(tool, "unchanged"))
        else:
            tool.is_active = True
            tool.save(update_fields=["is_active", "updated_at"])
            results.append(ToolImport(tool, "reactivated"))
    for spec in diff.removed:
        tool = existing[spec.key]
        if tool.is_active:
            tool.is_active = False
            tool.save(update_fields=["is_active", "updated_at"])
            results.append(ToolImport(tool, "removed"))
    status = "created" if created else ("changed" if changes else "unchanged")
    return ServiceImport(service, status, changes, results)


def service_set_base_url(*, service: ApiService, base_url: str, user=None) -> ApiService:
    """Point a service at another live base URL (a mirror, a new gateway); its tools and calls stay."""
    service.base_url = _check_base_url(base_url)
    service.save(update_fields=["base_url", "updated_at"])
    logger.info("service %s base URL set to %s by %s", service.pk, service.base_url, getattr(user, "username", "?"))
    return service


# --- Credentials -----------------------------------------------------------------------------------


def _checked_key(service_key: str) -> str:
    """The key, stripped, if it follows the rules every service key follows (stored or given per call)."""
    key = (service_key or "").strip()
    if len(key) < MIN_KEY_LENGTH or len(key) > 1000 or any(ch.isspace() or not ch.isprintable() for ch in key):
        raise ToolExecutionError(f"a service key is {MIN_KEY_LENGTH} to 1000 printable characters with no spaces")
    return key


def credential_set(*, provider: Provider, service_key: str, user=None) -> Credential:
    """Store (or replace) the provider's service key, encrypted. The key is never shown back."""
    key = _checked_key(service_key)
    credential, _ = Credential.objects.update_or_create(
        provider=provider, defaults={"ciphertext": encrypt(key), "updated_by": user}
    )
    logger.info("service key for %s set by %s", provider.code, getattr(user, "username", "system"))
    return credential


def credential_clear(*, provider: Provider, user=None) -> bool:
    deleted, _ = Credential.objects.filter(provider=provider).delete()
    if deleted:
        logger.info("service key for %s removed by %s", provider.code, getattr(user, "username", "system"))
    return bool(deleted)


@dataclass(frozen=True)
class RotationReport:
    rotated: list[str]  # provider codes re-encrypted with the current key
    unreadable: list[str]  # provider codes no configured key decrypts (set those keys again)


@transaction.atomic
def credential_rotate() -> RotationReport:
    """Re-encrypt every stored service key with the current KOPA_CREDENTIAL_KEY (apis/crypto.py).

    Keys are read with the current key or any in KOPA_CREDENTIAL_OLD_KEYS; one that none reads is left as it
    is and reported. Afterwards the old keys can be dropped from the settings."""
    rotated, unreadable = [], []
    for credential in Credential.objects.select_related("provider").select_for_update().order_by("pk"):
        try:
            ciphertext = rotate(credential.ciphertext)
        except CredentialDecryptError:
            unreadable.append(credential.provider.code)
            continue
        Credential.objects.filter(pk=credential.pk).update(ciphertext=ciphertext)
        rotated.append(credential.provider.code)
    logger.info("service keys re-encrypted: %d; unreadable: %d", len(rotated), len(unreadable))
    return RotationReport(rotated, unreadable)


def _credential_key(provider: Provider) -> Secret | None:
    ciphertext = Credential.objects.filter(provider=provider).values_list("ciphertext", flat=True).first()
    return decrypt_secret(ciphertext) if ciphertext else None


# --- Execution runtime -------------------------------------------------------------------------------


@dataclass
class _Slot:
    """What one execution hands to and takes from the store: a preloaded recording, a captured response."""

    request_hash: str
    recording: RecordedCall | None = None
    captured: RecordedCall | None = None


_slot: contextvars.ContextVar[_Slot | None] = contextvars.ContextVar("apis_call_slot", default=None)


class ApiCallStore:
    """The executor's CallStore on ApiCall rows.

    Replay answers from the newest recording (an ApiCall made in record mode, with its body) of the request
    hash. tool_execute preloads that row in the caller's thread and takes a record-mode response back through
    the current call's slot, so the recording lands on the call's own ApiCall row: one call, one row. Used
    without tool_execute, get() reads and put() writes rows itself.
    """

    async def get(self, request_hash: str) -> RecordedCall | None:
        slot = _slot.get()
        if slot is not None and slot.request_hash == request_hash:
            return slot.recording
        return await sync_to_async(recording_for)(request_hash)

    async def put(self, record: RecordedCall) -> None:
        slot = _slot.get()
        if slot is not None and slot.request_hash == record.request_hash:
            slot.captured = record
            return
        await sync_to_async(_recording_row)(record)


def recording_for(request_hash: str) -> RecordedCall | None:
    """The newest recording of a request, as the engine's RecordedCall; None when there is none."""
    row = (
        ApiCall.objects.filter(request_hash=request_hash, is_recording=True, body_gz__isnull=False)
        .order_by("-created_at", "-id")
        .first()
    )
    if row is None:
        return None
    return RecordedCall(
        request_hash=row.request_hash,
        request=row.request,
        http_status=row.http_status or 0,
        content_type=row.content_type,
        body=row.body_text or "",
        target=row.target or "live",
        recorded_at=row.created_at.timestamp(),
        latency_ms=row.latency_ms,
    )


def _recording_row(record: RecordedCall) -> ApiCall:
    body = record.body.encode("utf-8")
    return ApiCall.objects.create(
        mode=ApiCall.Mode.RECORD,
        target=record.target,
        request_hash=record.request_hash,
        request=record.request,
        http_status=record.http_status,
        content_type=record.content_type[:200],
        body_gz=gzip.compress(body),
        body_sha256=hashlib.sha256(body).hexdigest(),
        bytes=len(body),
        latency_ms=record.latency_ms,
        is_recording=True,
        finished_at=timezone.now(),
    )


@dataclass(frozen=True)
class _ExecutorKey:
    mode: str
    record_target: str
    sandbox_origin: str
    provider: str
    limits: ProviderLimits
    retry: RetryPolicy
    timeout: float
    headers: tuple[tuple[str, str], ...] = ()


class _Runtime:
    """One event loop on a daemon thread per process; every execution runs there, on long-lived executors."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="apis-executor", daemon=True)
        self.thread.start()
        self.store = ApiCallStore()
        self._executors: dict[_ExecutorKey, Executor] = {}
        self._lock = threading.Lock()

    def executor(self, key: _ExecutorKey) -> Executor:
        with self._lock:
            executor = self._executors.get(key)
            if executor is not None:
                return executor
            # Limits or settings changed: the executor they replace is closed, not leaked.
            stale = [
                k
                for k in self._executors
                if (k.mode, k.record_target, k.provider) == (key.mode, key.record_target, key.provider)
            ]
            for old in stale:
                asyncio.run_coroutine_threadsafe(self._executors.pop(old).aclose(), self.loop)
            executor = Executor(
                key.mode,
                sandbox_origin=key.sandbox_origin or None,
                sandbox_key=_sandbox_key(),
                record_target=key.record_target,
                store=self.store,
                limits=key.limits,
                retry=key.retry,
                timeout=key.timeout,
                headers=dict(key.headers),
            )
            self._executors[key] = executor
            return executor

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    async def arun(self, coroutine):
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self.loop))


_runtimes: dict[int, _Runtime] = {}
_runtimes_lock = threading.Lock()


def _runtime() -> _Runtime:
    # Keyed by pid: a forked queue worker must not reuse its parent's (dead) loop thread.
    pid = os.getpid()
    runtime = _runtimes.get(pid)
    if runtime is None:
        with _runtimes_lock:
            runtime = _runtimes.get(pid)
            if runtime is None:
                runtime = _runtimes[pid] = _Runtime()
    return runtime


def _sandbox_key() -> str:
    return SandboxConfig.from_mapping(getattr(settings, "SANDBOX", None)).service_keys[0]


def _executor_settings() -> dict[str, Any]:
    return {
        "timeout_s": 10.0,
        "max_attempts": 3,
        "base_delay_s": 0.25,
        "max_delay_s": 4.0,
        "concurrency": 8,
        "record_target": "live",
        "body_cap_bytes": 2_000_000,
        # Headers sent with sandbox calls only, e.g. {"X-Sandbox-Latency-Ms": "80"} for a load test.
        "sandbox_headers": {},
        **getattr(settings, "KOPA_EXECUTOR", {}),
    }


# --- Execution ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Execution:
    """One logged execution: the ApiCall row and the engine's normalized result (records included)."""

    call: ApiCall
    result: NormalizedResult


@dataclass
class _Plan:
    tool: Tool
    mode: str
    target: str  # live | sandbox | "" (replay)
    call: ToolCall
    executor: Executor
    slot: _Slot
    request: dict[str, Any]
    params: dict[str, Any]
    secrets: tuple[str, ...] = field(repr=False)
    user: Any
    source_kind: str
    source_id: str


def _plan(
    *,
    tool: Tool,
    params: dict[str, Any] | None,
    mode: str,
    service_key: str | None,
    user,
    source_kind: str,
    source_id: Any,
    expect_records: bool,
    record_target: str | None,
    sandbox_origin: str | None,
    sandbox_headers: dict[str, str] | None = None,
) -> _Plan:
    if mode not in MODES:
        raise ToolExecutionError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    if params is not None and not isinstance(params, dict):
        raise ToolExecutionError("params must be a JSON object of parameter names and values")
    config = _executor_settings()
    record_target = record_target or config["record_target"]
    if record_target not in (Mode.LIVE, Mode.SANDBOX):
        raise ToolExecutionError(f"record_target must be live or sandbox; got {record_target!r}")
    target = record_target if mode == Mode.RECORD else ("" if mode == Mode.REPLAY else mode)
    try:
        check_value(params or {}, max_depth=32)  # finite numbers, encodable text: or nothing could be logged
    except ValueError as error:
        raise ParamsInvalid([f"params: {error}"]) from None
    provider = tool.service.provider
    # A one-off key follows the stored keys' rules, and lives in a Secret: no frame shows it on an error page.
    given_key = Secret(_checked_key(service_key)) if isinstance(service_key, str) and service_key.strip() else None
    key = given_key
    if target == Mode.LIVE and key is None:
        key = _credential_key(provider)
        if key is None:
            raise MissingCredential(
                f"live mode needs a service key for {provider.display_name} ({provider.code}): an admin sets one "
                f"on the service page or in the admin, or pass service_key"
            )
    secrets = tuple(s.reveal() for s in (given_key, key) if s)
    slot_name = (tool.key_slot or {}).get("name", "")
    # The key slot in any spelling (serviceKey, SERVICEKEY) never goes out from params: only the key does.
    sent_params = {k: v for k, v in (params or {}).items() if not (slot_name and k.lower() == slot_name.lower())}
    clean_params = _redacted(sent_params, secrets)

    origin = (sandbox_origin or getattr(settings, "KOPA_SANDBOX_ORIGIN", "") or "").rstrip("/")
    needs_sandbox = target == Mode.SANDBOX
    if needs_sandbox and not origin:
        raise ToolExecutionError("sandbox mode needs KOPA_SANDBOX_ORIGIN (e.g. http://127.0.0.1:8000)")
    limits = ProviderLimits(
        concurrency=provider.max_concurrency or config["concurrency"], rate_per_s=provider.rate_limit_per_s or None
    )
    retry = RetryPolicy(
        max_attempts=config["max_attempts"], base_delay=config["base_delay_s"], max_delay=config["max_delay_s"]
    )
    key_tuple = _ExecutorKey(
        mode=mode,
        record_target=record_target,
        sandbox_origin=origin if needs_sandbox else "",
        provider=provider.code,
        limits=limits,
        retry=retry,
        timeout=float(config["timeout_s"]),
        headers=tuple(sorted(config["sandbox_headers"].items())) if needs_sandbox else (),
    )
    runtime = _runtime()
    executor = runtime.executor(key_tuple)
    spec = tool.to_spec()
    call = ToolCall(
        spec,
        sent_params,
        service_key=key,
        expect_records=expect_records,
        sandbox_headers=dict(sandbox_headers or {}) if needs_sandbox else {},
    )
    try:
        prepared: PreparedRequest | None = executor.prepare(call)
    except EngineError:
        prepared = None  # e.g. a missing path parameter: the engine answers it as a structural failure
    if prepared is not None:
        request, request_hash = prepared.normalized(), prepared.request_hash
    else:
        request = {"method": spec.method.upper(), "url": spec.url, "params": sorted(clean_params.items(), key=str)}
        request_hash = hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()
    slot = _Slot(request_hash)
    if mode == Mode.REPLAY and prepared is not None:
        slot.recording = recording_for(request_hash)
    return _Plan(
        tool=tool,
        mode=mode,
        target=target,
        call=call,
        executor=executor,
        slot=slot,
        request=_redacted(request, secrets),
        params=clean_params,
        secrets=secrets,
        user=user,
        source_kind=(source_kind or "")[:40],
        source_id=str(source_id)[:64] if source_id not in (None, "") else "",
    )


# Paging parameters of the Korean public APIs: a page from 1, and no more rows than any gateway serves.
_PAGING = {"pageno": 1_000_000, "page": 1_000_000, "numofrows": 10_000, "perpage": 10_000, "pagesize": 10_000}
_INT64 = 2**63
_TRUTHY = {"true", "false", "1", "0", "y", "n"}


def _number(value: Any, integer: bool) -> float | int | None:
    """The number a parameter value stands for (JSON number or its text), None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if integer and value.is_integer() else (None if integer else value)
    if isinstance(value, str):
        text = value.strip()
        if integer:
            return int(text) if re.fullmatch(r"[+-]?\d{1,30}", text) else None
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _value_problem(name: str, value: Any, schema: dict[str, Any]) -> str | None:
    declared = schema.get("type")
    kinds = declared if isinstance(declared, list) else [declared] if declared else []
    if not kinds:
        return None
    for kind in kinds:
        if kind in ("integer", "number"):
            number = _number(value, kind == "integer")
            if number is None:
                continue
            if abs(number) >= _INT64:
                return f"{name}: {value!r} is out of range"
            low, high = schema.get("minimum"), schema.get("maximum")
            cap = _PAGING.get(name.lower())
            if cap is not None:
                low, high = max(_number(low, False) or 1, 1), min(_number(high, False) or cap, cap)
            if (low := _number(low, False)) is not None and number < low:
                return f"{name}: {number} is below the minimum {low:g}"
            if (high := _number(high, False)) is not None and number > high:
                return f"{name}: {number} is above the maximum {high:g}"
            return None
        if kind == "boolean" and (isinstance(value, bool) or str(value).strip().lower() in _TRUTHY):
            return None
        if kind == "string" and isinstance(value, str | int | float) and not isinstance(value, bool):
            return None
        if kind == "array" and isinstance(value, list | tuple | str):
            return None
        if kind == "object" and isinstance(value, dict):
            return None
        if kind in ("null", "file"):
            return None
    return f"{name}: expected {' or '.join(map(str, kinds))}, got {type(value).__name__} {str(value)[:40]!r}"


def tool_params_check(*, tool: Tool, params: dict[str, Any] | None) -> None:
    """Refuse (ParamsInvalid) parameters that do not fit the tool's schema: a missing required one, a wrong
    type, a number out of its range or a page out of the gateways' range. Nothing is sent for a refused call.
    Unknown names pass: the API itself answers them, as it does for a model's mistaken call."""
    if params is not None and not isinstance(params, dict):
        raise ParamsInvalid(["params must be an object of parameter names and values"])
    params = params or {}
    schema = tool.parameters if isinstance(tool.parameters, dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    slot = str((tool.key_slot or {}).get("name", "")).lower()
    problems = [
        f"{name}: required"
        for name in (schema.get("required") or [])
        if params.get(name) in (None, "") and not (slot and str(name).lower() == slot)
    ]
    for name, value in params.items():
        if value is None or (slot and name.lower() == slot) or not isinstance(properties.get(name), dict):
            continue
        if problem := _value_problem(name, value, properties[name]):
            problems.append(problem)
    if problems:
        raise ParamsInvalid(problems)


def _redacted(value: Any, secrets: Sequence[str]) -> Any:
    """A JSON value with every wire form of every secret masked, wherever it hides."""
    if not secrets:
        return value
    return json.loads(redact(json.dumps(value, ensure_ascii=False, default=str), secrets))


async def _run(plan: _Plan) -> NormalizedResult:
    token = _slot.set(plan.slot)
    try:
        return await plan.executor.execute(plan.call, use_cache=False)
    finally:
        _slot.reset(token)


async def _run_many(plans: list[_Plan], concurrency: int | None) -> list[NormalizedResult | EngineError]:
    limiter = asyncio.Semaphore(concurrency) if concurrency else None

    async def one(plan: _Plan) -> NormalizedResult | EngineError:
        try:
            if limiter is None:
                return await _run(plan)
            async with limiter:
                return await _run(plan)
        except EngineError as error:
            return error

    return list(await asyncio.gather(*(one(plan) for plan in plans)))


def _log(plan: _Plan, result: NormalizedResult) -> ApiCall:
    """Write the call's ApiCall row: key-free request, outcome, body (gzip up to the cap) and its source."""
    body_text = redact(result.raw, plan.secrets)
    body = body_text.encode("utf-8")
    captured = plan.slot.captured
    content_type = (
        captured.content_type if captured else (plan.slot.recording.content_type if plan.slot.recording else "")
    )
    keep = bool(body) and (captured is not None or len(body) <= _executor_settings()["body_cap_bytes"])
    fields = dict(
        tool=plan.tool,
        mode=plan.mode,
        target=plan.target,
        request_hash=plan.slot.request_hash,
        request=plan.request,
        params=plan.params,
        ok=result.ok,
        http_status=result.http_status,
        result_code=redact(result.result_code or "", plan.secrets)[:40],
        result_msg=redact(result.result_msg or "", plan.secrets)[:_RESULT_MSG_LIMIT],
        error_class=(result.error_class or "")[:40],
        record_count=len(result.records),
        total_count=max(0, result.total_count) if result.total_count is not None else None,
        latency_ms=round(result.latency_ms, 2),
        bytes=result.bytes or len(body),
        attempts=result.attempts,
        content_type=content_type[:200],
        body_gz=gzip.compress(body) if keep else None,
        body_sha256=hashlib.sha256(body).hexdigest() if body else "",
        is_recording=captured is not None and keep,
        source_kind=plan.source_kind,
        source_id=plan.source_id,
        created_by=plan.user if getattr(plan.user, "is_authenticated", False) else None,
        finished_at=timezone.now(),
    )
    try:
        with transaction.atomic():
            row = ApiCall.objects.create(**fields)
    except (DatabaseError, ValueError, TypeError) as error:
        # The call went out, so it is logged whatever its values: the ones that cannot be stored go in as text.
        logger.warning("api call of %s: values stored as text (%s)", plan.tool.function_name, type(error).__name__)
        fields.update(
            request={"unstorable": ascii(plan.request)[:10_000]}, params={"unstorable": ascii(plan.params)[:10_000]}
        )
        row = ApiCall.objects.create(**fields)
    service = plan.tool.service
    if result.ok and result.result_code and result.result_code not in service.success_codes:
        service.success_codes = [*service.success_codes, result.result_code[:40]]
        ApiService.objects.filter(pk=service.pk).update(success_codes=service.success_codes)
    logger.info(
        "api call #%s %s [%s] %s %s -> %s in %.0f ms",
        row.pk,
        plan.tool.function_name,
        plan.mode,
        plan.request.get("method", ""),
        plan.request.get("url", ""),
        "ok" if result.ok else (result.error_class or "failed"),
        result.latency_ms,
    )
    return row


def _failure_of(plan: _Plan, error: Exception) -> NormalizedResult:
    return failure(INTERNAL_ERROR, redact(str(error) or type(error).__name__, plan.secrets))


def tool_execute(
    *,
    tool: Tool,
    params: dict[str, Any] | None = None,
    mode: str = "sandbox",
    service_key: str | None = None,
    user=None,
    source_kind: str = "",
    source_id: Any = None,
    expect_records: bool = False,
    record_target: str | None = None,
    sandbox_origin: str | None = None,
    sandbox_headers: dict[str, str] | None = None,
) -> Execution:
    """Execute a tool through the one executor and log it as an ApiCall.

    mode: live (the service's base URL with the provider's key, or `service_key`), sandbox (the same URL on
    the sandbox origin), record (call `record_target` and keep the body for replay) or replay (answer from
    a recording; none is error_class replay.miss). API failures come back as a result with its error class;
    ToolExecutionError means the call could not be made as asked (its text never holds the key).
    sandbox_headers go to the sandbox with this call only, e.g. {"X-Sandbox-Now": a task's clock}.
    """
    plan = _plan(
        tool=tool,
        params=params,
        mode=mode,
        service_key=service_key,
        user=user,
        source_kind=source_kind,
        source_id=source_id,
        expect_records=expect_records,
        record_target=record_target,
        sandbox_origin=sandbox_origin,
        sandbox_headers=sandbox_headers,
    )
    try:
        result = _runtime().run(_run(plan))
    except EngineError as error:
        row = _log(plan, _failure_of(plan, error))
        raise ExecutorFault(f"call #{row.pk} failed inside the executor: {row.result_msg}") from None
    return Execution(_log(plan, result), result)


class PendingExecution:
    """A call handed to the executor's loop by tool_execute_submit; result() waits and writes its ApiCall."""

    def __init__(self, plan: _Plan):
        self._plan = plan
        self.future: concurrent.futures.Future = asyncio.run_coroutine_threadsafe(_run(plan), _runtime().loop)

    def done(self) -> bool:
        return self.future.done()

    def result(self) -> Execution:
        """The logged execution (an engine fault comes back as the call's INTERNAL_ERROR result, as in
        tool_execute_many); call it from a thread that may use the database."""
        try:
            outcome = self.future.result()
        except EngineError as error:
            outcome = _failure_of(self._plan, error)
        return Execution(_log(self._plan, outcome), outcome)


def tool_execute_submit(
    *,
    tool: Tool,
    params: dict[str, Any] | None = None,
    mode: str = "sandbox",
    user=None,
    source_kind: str = "",
    source_id: Any = None,
    expect_records: bool = False,
    record_target: str | None = None,
    sandbox_origin: str | None = None,
    sandbox_headers: dict[str, str] | None = None,
) -> PendingExecution:
    """Start one call without waiting for it, for callers that keep many in flight and act on each as it
    finishes (the EDGE verifier's pipeline). Wait with concurrent.futures.wait on .future; result() logs it.
    Raises ToolExecutionError at once when the call cannot be made as asked."""
    plan = _plan(
        tool=tool,
        params=params,
        mode=mode,
        service_key=None,
        user=user,
        source_kind=source_kind,
        source_id=source_id,
        expect_records=expect_records,
        record_target=record_target,
        sandbox_origin=sandbox_origin,
        sandbox_headers=sandbox_headers,
    )
    return PendingExecution(plan)


async def tool_execute_async(**kwargs) -> Execution:
    """tool_execute for async callers (the MCP server): the same arguments, database work off the loop."""
    plan = await sync_to_async(_plan)(
        **{
            "params": None,
            "mode": "sandbox",
            "service_key": None,
            "user": None,
            "source_kind": "",
            "source_id": None,
            "expect_records": False,
            "record_target": None,
            "sandbox_origin": None,
            "sandbox_headers": None,
            **kwargs,
        }
    )
    try:
        result = await _runtime().arun(_run(plan))
    except EngineError as error:
        row = await sync_to_async(_log)(plan, _failure_of(plan, error))
        raise ExecutorFault(f"call #{row.pk} failed inside the executor: {row.result_msg}") from None
    return Execution(await sync_to_async(_log)(plan, result), result)


def tool_execute_many(
    *,
    calls: Sequence[tuple[Tool, dict[str, Any]]],
    mode: str = "sandbox",
    concurrency: int | None = None,
    user=None,
    source_kind: str = "",
    source_id: Any = None,
    expect_records: bool = False,
    record_target: str | None = None,
    sandbox_origin: str | None = None,
    sandbox_headers: dict[str, str] | None = None,
) -> list[Execution]:
    """Execute many calls at once (provider rate and concurrency limits still apply); results in order.

    An engine fault in one call is logged as that call's INTERNAL_ERROR result; the others go on.
    """
    plans = [
        _plan(
            tool=tool,
            params=params,
            mode=mode,
            service_key=None,
            user=user,
            source_kind=source_kind,
            source_id=source_id,
            expect_records=expect_records,
            record_target=record_target,
            sandbox_origin=sandbox_origin,
            sandbox_headers=sandbox_headers,
        )
        for tool, params in calls
    ]
    outcomes = _runtime().run(_run_many(plans, concurrency))
    executions = []
    for plan, outcome in zip(plans, outcomes, strict=True):
        result = _failure_of(plan, outcome) if isinstance(outcome, EngineError) else outcome
        executions.append(Execution(_log(plan, result), result))
    return executions


# --- Drift -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DriftOutcome:
    original: ApiCall
    rerun: ApiCall | None
    report: DriftReport

    def to_dict(self) -> dict[str, Any]:
        return {
            "call": self.original.pk,
            "rerun_call": self.rerun.pk if self.rerun else None,
            "changed": self.report.changed,
            "severity": self.report.severity,
            "summary": self.report.summary(),
            "changes": [
                {"kind": c.kind, "field": c.field, "old": c.old, "new": c.new, "severity": c.severity}
                for c in self.report.changes
            ],
        }


def drift_check(*, call: ApiCall, mode: str | None = None, user=None, service_key: str | None = None) -> DriftOutcome:
    """Re-run a stored call (live or sandbox) and report what changed: status, schema, then data.

    The re-run is logged as its own ApiCall (source "drift_check", the original's id).
    """
    if call.tool is None:
        raise CatalogError(f"call #{call.pk} has no tool any more; it cannot be re-run")
    body = call.body_text
    if body is None:
        raise CatalogError(f"call #{call.pk} kept only its body's hash (over the size cap); it cannot be compared")
    mode = mode or call.target or Mode.SANDBOX
    if mode not in (Mode.LIVE, Mode.SANDBOX):
        raise CatalogError(f"a drift check re-runs the call live or in the sandbox; got {mode!r}")
    plan = _plan(
        tool=call.tool,
        params=call.params,
        mode=mode,
        service_key=service_key,
        user=user,
        source_kind="drift_check",
        source_id=call.pk,
        expect_records=False,
        record_target=None,
        sandbox_origin=None,
    )
    before = RecordedCall(
        request_hash=plan.slot.request_hash,
        request=call.request,
        http_status=call.http_status or 0,
        content_type=call.content_type,
        body=body,
        target=call.target,
        latency_ms=call.latency_ms,
    )

    async def compare() -> DriftReport:
        store = InMemoryCallStore()
        await store.put(before)
        token = _slot.set(plan.slot)
        try:
            return await check_drift(plan.executor, plan.call, store)
        finally:
            _slot.reset(token)

    try:
        report = _runtime().run(compare())
    except EngineError as error:
        _log(plan, _failure_of(plan, error))
        raise ExecutorFault(f"the drift check of call #{call.pk} failed: {redact(str(error), plan.secrets)}") from None
    rerun = _log(plan, report.after) if report.after is not None else None
    return DriftOutcome(original=call, rerun=rerun, report=report)


def error_class_label(error_class: str) -> str:
    if error_class == INTERNAL_ERROR:
        return "an exception inside the executor"
    return ERROR_CLASSES.get(error_class, "")
