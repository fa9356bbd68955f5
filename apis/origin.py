"""Checks, before a command spends its work, that the place its calls go to answers.

A verification or synthesis run against a closed port would otherwise record every call as
env.connection and carry on; these checks stop it at once with one line saying what to start or set.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import httpx
from django.conf import settings

SANDBOX_HINT = (
    "start the site (./kopa up) or a standalone sandbox (./kopa manage sandbox_serve --port 8765, "
    "then --sandbox-origin http://127.0.0.1:8765 or KOPA_SANDBOX_ORIGIN)"
)


class OriginUnreachable(Exception):
    """The sandbox or live origin of a run does not answer; the message names what to start or set."""


def sandbox_origin(origin: str | None = None) -> str:
    """The origin sandbox-mode calls go to: the one given, else KOPA_SANDBOX_ORIGIN."""
    return (origin or getattr(settings, "KOPA_SANDBOX_ORIGIN", "") or "").rstrip("/")


def sandbox_origin_check(origin: str | None = None, *, timeout_s: float = 3.0) -> str:
    """Raise OriginUnreachable unless `<origin>/sandbox/` answers as the sandbox's index does; return the origin."""
    origin = sandbox_origin(origin)
    if not origin.startswith(("http://", "https://")):
        raise OriginUnreachable(f"no sandbox origin is set (got {origin!r}): {SANDBOX_HINT}")
    try:
        response = httpx.get(f"{origin}/sandbox/", timeout=timeout_s, follow_redirects=False)
    except httpx.HTTPError as exc:
        reason = type(exc).__name__ if not str(exc) else str(exc).splitlines()[0]
        raise OriginUnreachable(f"the sandbox at {origin} does not answer ({reason}): {SANDBOX_HINT}") from None
    if response.status_code != 200 or "json" not in response.headers.get("content-type", ""):
        raise OriginUnreachable(
            f"{origin}/sandbox/ answered HTTP {response.status_code}, not the sandbox's index: {SANDBOX_HINT}"
        )
    return origin


def live_hosts_check(hosts: list[str], *, timeout_s: float = 3.0) -> None:
    """Raise OriginUnreachable unless each live API host resolves and accepts a TCP connection on its port."""
    for base in sorted(set(hosts)):
        parts = urlsplit(base if "://" in base else f"https://{base}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            with socket.create_connection((parts.hostname or "", port), timeout=timeout_s):
                pass
        except OSError as exc:
            raise OriginUnreachable(
                f"the live API host {parts.hostname}:{port} cannot be reached ({exc.strerror or exc}): "
                "check this machine's network and proxy, or run with --mode sandbox (or replay)"
            ) from None


def origin_check(*, mode: str, sandbox: str | None = None, live_base_urls: list[str] | None = None) -> None:
    """The check for a run in `mode`: sandbox (and record to the sandbox) asks the sandbox, live asks each host,
    replay needs nothing."""
    record_target = getattr(settings, "KOPA_EXECUTOR", {}).get("record_target", "live")
    if mode == "sandbox" or (mode == "record" and record_target == "sandbox"):
        sandbox_origin_check(sandbox)
    elif mode in ("live", "record"):
        live_hosts_check(live_base_urls or [])


def origin_check_for_run(*, mode: str | None, sandbox: str | None = None) -> None:
    """The check a command runs before a run of `mode` (None: sandbox); live mode asks every catalogued host."""
    from apis.models import ApiService

    mode = mode or "sandbox"
    hosts = list(ApiService.objects.values_list("base_url", flat=True).distinct()) if mode != "sandbox" else []
    origin_check(mode=mode, sandbox=sandbox, live_base_urls=hosts)
