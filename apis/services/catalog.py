"""Importing specs into the catalog (services and tools), the bundled specs, and a service's live base URL."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction

from apis.engine.function_schema import build_toolset, tool_identity
from apis.engine.model import Problem, ServiceSpec, ToolSpec
from apis.engine.outbound import OutboundPolicy, OutboundRefused, check_url
from apis.engine.spec_import import SpecLimits, SpecSourceError, convert, diff_tools, load_document
from apis.models import ApiService, Provider, Tool
from apis.services.errors import CatalogError, SpecImportError

logger = logging.getLogger(__name__)


BUNDLED_SPEC_DIR = Path(__file__).resolve().parent.parent / "sandbox" / "specs"


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
