"""Shortcuts for services behind the apis.data.go.kr gateway (most families): host, key policy, unknown paths."""

from __future__ import annotations

from apis.sandbox.auth import RETIRED, DataGoKrGateway
from apis.sandbox.envelopes.base import Envelope
from apis.sandbox.envelopes.gateway import gateway_error
from apis.sandbox.registry import REGISTRY, Context, HostDef, ServiceDef, service

HOST = "apis.data.go.kr"


def _unknown_service(ctx: Context):
    # The gateway treats a path it has no service for like a retired one.
    return gateway_error("12", variant="A", as_json=False, status=400)


REGISTRY.add_host(HostDef(HOST, unknown_path=_unknown_service))


def datagokr_service(
    *,
    id: str,
    org: str,
    provider_ko: str,
    provider_en: str,
    title_ko: str,
    envelope: Envelope,
    family: str | None = None,
    base_path: str | None = None,
    missing_key_code: str = "30",
    gateway_json_errors: bool = True,
    host: str = HOST,
    **extra,
) -> ServiceDef:
    """Register a gateway service at /{org}/{id} (or base_path when the live path differs)."""
    return service(
        id=id,
        provider_ko=provider_ko,
        provider_en=provider_en,
        family=family or envelope.family,
        host=host,
        base_path=base_path if base_path is not None else f"/{org}/{id}",
        title_ko=title_ko,
        envelope=envelope,
        auth=DataGoKrGateway(missing_key_code=missing_key_code, json_errors=gateway_json_errors),
        **extra,
    )


__all__ = ["HOST", "RETIRED", "datagokr_service"]
