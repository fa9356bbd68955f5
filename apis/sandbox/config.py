"""Sandbox settings as one frozen value: accepted keys, clock, latency, faults, quota, gateway error form."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone

KST = timezone(timedelta(hours=9), "KST")

# The sandbox clock when nothing else is set: a Wednesday afternoon, so "today", "this month" and
# forecast issuance rules give the same answers on every machine.
DEFAULT_NOW = datetime(2026, 11, 18, 14, 20, tzinfo=KST)

# A 64-hex-character key, the shape data.go.kr issues today; it needs no percent-encoding.
DEMO_KEY = "6b6f706173616e64626f7864656d6f6b65792026111800000000000000000000"
# A legacy-style key with + / = so clients can exercise the Encoding/Decoding pitfall.
DEMO_KEY_LEGACY = "KOPA+Sandbox/Demo+Key+2026/Legacy+Form+Only+For+Tests/Ok+Thanks=="

ALL_FAULTS = ("500", "502", "503", "timeout", "reset", "quota", "malformed")


@dataclass(frozen=True)
class SandboxConfig:
    service_keys: tuple[str, ...] = (DEMO_KEY, DEMO_KEY_LEGACY)
    now: datetime = DEFAULT_NOW
    latency_ms: float = 0.0
    jitter_ms: float = 0.0
    fault_rate: float = 0.0
    faults: tuple[str, ...] = ALL_FAULTS
    seed: int = 0
    daily_quota: int = 10_000  # per key and service per sandbox day; 0 means unlimited
    gateway_variant: str = "B"  # "A": errMsg SERVICE ERROR; "B": errMsg carries the error name
    gateway_xml_status: int = 200
    gateway_json_status: int = 403
    gateway_json_errors: bool = True  # False: gateway errors are XML even when JSON was asked for
    timeout_hold_s: float = 30.0  # how long a "timeout" fault holds the connection open
    header_overrides: bool = True  # honour X-Sandbox-* request headers
    extra: Mapping[str, object] = field(default_factory=dict)

    def with_(self, **changes) -> SandboxConfig:
        return replace(self, **changes)

    @classmethod
    def from_mapping(cls, values: Mapping[str, object] | None) -> SandboxConfig:
        """Build from a plain dict such as settings.SANDBOX; unknown keys are an error, not ignored."""
        values = dict(values or {})
        extra_keys = tuple(values.pop("extra_service_keys", ()) or ())
        if extra_keys:
            values["service_keys"] = (*values.get("service_keys", cls.service_keys), *extra_keys)
        known = set(cls.__dataclass_fields__)
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown sandbox settings: {', '.join(sorted(unknown))}")
        if "now" in values and isinstance(values["now"], str):
            values["now"] = parse_now(values["now"])
        for name in ("service_keys", "faults"):
            if name in values:
                values[name] = tuple(values[name])
        config = cls(**values)
        config.validate()
        return config

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> SandboxConfig:
        """The same settings read from KOPA_SANDBOX_* variables (used by the standalone server)."""
        return cls.from_mapping(env_values(environ))

    def validate(self) -> None:
        if not 0.0 <= self.fault_rate <= 1.0:
            raise ValueError(f"fault_rate must be between 0 and 1; got {self.fault_rate}")
        bad = [f for f in self.faults if f not in ALL_FAULTS]
        if bad:
            raise ValueError(f"unknown fault kinds {bad}; expected some of {', '.join(ALL_FAULTS)}")
        if self.gateway_variant not in ("A", "B"):
            raise ValueError(f"gateway_variant must be A or B; got {self.gateway_variant!r}")
        if self.latency_ms < 0 or self.jitter_ms < 0:
            raise ValueError("latency_ms and jitter_ms must not be negative")
        if self.now.tzinfo is None:
            raise ValueError("now must carry a timezone")


def parse_now(text: str) -> datetime:
    """Accept ISO 8601 (2026-11-18T14:20, offset optional, KST assumed) or compact 202611181420."""
    text = text.strip()
    if text.isdigit() and len(text) in (8, 12, 14):
        text = f"{text[:4]}-{text[4:6]}-{text[6:8]}T{text[8:10] or '00'}:{text[10:12] or '00'}:{text[12:14] or '00'}"
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"cannot read sandbox time {text!r}; use 2026-11-18T14:20+09:00 or 202611181420") from None
    return value.replace(tzinfo=KST) if value.tzinfo is None else value.astimezone(KST)


def env_values(environ: Mapping[str, str]) -> dict[str, object]:
    """KOPA_SANDBOX_* variables as from_mapping() keys; absent variables are left out."""
    values: dict[str, object] = {}

    def text(name):
        value = environ.get(name)
        return value.strip() if value is not None and value.strip() else None

    if keys := text("KOPA_SANDBOX_KEYS"):
        values["extra_service_keys"] = tuple(k.strip() for k in keys.split(",") if k.strip())
    if now := text("KOPA_SANDBOX_NOW"):
        values["now"] = now
    for env_name, key, kind in (
        ("KOPA_SANDBOX_LATENCY_MS", "latency_ms", float),
        ("KOPA_SANDBOX_JITTER_MS", "jitter_ms", float),
        ("KOPA_SANDBOX_FAULT_RATE", "fault_rate", float),
        ("KOPA_SANDBOX_SEED", "seed", int),
        ("KOPA_SANDBOX_DAILY_QUOTA", "daily_quota", int),
        ("KOPA_SANDBOX_GATEWAY_XML_STATUS", "gateway_xml_status", int),
        ("KOPA_SANDBOX_GATEWAY_JSON_STATUS", "gateway_json_status", int),
        ("KOPA_SANDBOX_TIMEOUT_HOLD_S", "timeout_hold_s", float),
    ):
        if (raw := text(env_name)) is not None:
            try:
                values[key] = kind(raw)
            except ValueError:
                raise ValueError(f"{env_name}: expected a number; got {raw!r}") from None
    if faults := text("KOPA_SANDBOX_FAULTS"):
        values["faults"] = tuple(f.strip() for f in faults.split(",") if f.strip())
    if variant := text("KOPA_SANDBOX_GATEWAY_VARIANT"):
        values["gateway_variant"] = variant.upper()
    if (flag := text("KOPA_SANDBOX_GATEWAY_JSON_ERRORS")) is not None:
        values["gateway_json_errors"] = flag.lower() in ("1", "true", "yes", "on")
    if (flag := text("KOPA_SANDBOX_HEADER_OVERRIDES")) is not None:
        values["header_overrides"] = flag.lower() in ("1", "true", "yes", "on")
    return values
