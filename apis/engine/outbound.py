"""Outbound fetches on behalf of a user (spec imports, model endpoints): public addresses only, capped.

A URL a person typed must not turn the server into a proxy for its own network. Every connection this module
opens is checked when it is made, after DNS resolution, on the first request and on every redirect alike:
only http(s) to globally routable addresses, unless the operator allowed a host or network explicitly
(`OutboundPolicy.allow`: host names, addresses or CIDR networks, e.g. "127.0.0.1" for local use and tests).
The whole fetch has one deadline, enforced on every socket read and write (a server that trickles one byte
at a time is cut off when the deadline passes), and the body is capped in bytes.

Errors say what the policy refused, or only that the fetch failed: never which answer came back from where,
so the error text cannot be used to scan ports or tell a closed port from an open one.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

logger = logging.getLogger(__name__)

FETCH_FAILED = "could not fetch a document from that URL (no answer, a timeout, an error status or a redirect loop)"


@dataclass(frozen=True)
class OutboundPolicy:
    """What outbound fetches may reach and how much they may take."""

    allow: tuple[str, ...] = ()  # host names, IP addresses or CIDR networks allowed besides public addresses
    max_bytes: int = 5_000_000
    total_timeout_s: float = 30.0
    max_redirects: int = 5

    def networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        nets = []
        for entry in self.allow:
            try:
                nets.append(ipaddress.ip_network(entry.strip().strip("[]"), strict=False))
            except ValueError:
                continue  # a host name
        return nets

    def hosts(self) -> set[str]:
        return {entry.strip().lower().rstrip(".") for entry in self.allow if not _is_network(entry)}


class OutboundRefused(Exception):
    """The policy refused the URL or the address it resolved to; the message is safe to show."""


class OutboundFailed(Exception):
    """The fetch failed (network, timeout, status, size); the message is safe to show, `detail` is for logs."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.detail = detail


@dataclass(frozen=True)
class Fetched:
    url: str
    status: int
    content_type: str
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8-sig", errors="replace")


def _is_network(entry: str) -> bool:
    try:
        ipaddress.ip_network(entry.strip().strip("[]"), strict=False)
        return True
    except ValueError:
        return False


def _normalise(ip: ipaddress.IPv4Address | ipaddress.IPv6Address):
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
    return ip


def address_allowed(host: str, address: str, policy: OutboundPolicy) -> bool:
    """Whether a connection to `address` (which `host` resolved to) is allowed."""
    if host.strip("[]").lower().rstrip(".") in policy.hosts():
        return True
    try:
        ip = _normalise(ipaddress.ip_address(address.split("%", 1)[0]))
    except ValueError:
        return False
    if any(ip in net for net in policy.networks()):
        return True
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


def check_url(url: str, policy: OutboundPolicy, *, resolve: bool = True) -> None:
    """Refuse a URL that is not http(s), carries credentials, or (resolve=True) resolves to a refused address."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise OutboundRefused("the URL cannot be parsed") from None
    if parts.scheme not in ("http", "https"):
        raise OutboundRefused("only http:// and https:// URLs can be fetched")
    if not host:
        raise OutboundRefused("the URL names no host")
    if parts.username or parts.password:
        raise OutboundRefused("URLs with a user name or password are not fetched")
    if resolve and host.strip("[]").lower().rstrip(".") not in policy.hosts():
        _resolve_allowed(host, port, policy)


def _resolve_allowed(host: str, port: int, policy: OutboundPolicy) -> list[str]:
    """The host's addresses, all of them allowed; OutboundRefused when any is not (or none resolves)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise OutboundRefused("the URL's host name does not resolve") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    refused = [a for a in addresses if not address_allowed(host, a, policy)]
    if refused or not addresses:
        logger.warning("outbound fetch refused: %s resolves to %s", host, ", ".join(refused or ["nothing"]))
        raise OutboundRefused(
            "the URL's host is not a public internet address; an administrator can allow it with "
            "KOPA_OUTBOUND_ALLOW (host names, addresses or networks)"
        )
    return addresses


class _DeadlineStream(httpcore.NetworkStream):
    """A socket stream whose every read and write ends by the fetch's deadline."""

    def __init__(self, stream: httpcore.NetworkStream, deadline: float):
        self._stream = stream
        self._deadline = deadline

    def _left(self, timeout: float | None) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise httpcore.ReadTimeout("the fetch's total time is up")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._left(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        return _DeadlineStream(
            self._stream.start_tls(ssl_context, server_hostname, self._left(timeout)), self._deadline
        )

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class _GuardedBackend(httpcore.SyncBackend):
    """Resolves the host itself and connects only to an allowed address (no DNS rebinding between check and use)."""

    def __init__(self, policy: OutboundPolicy, deadline: float):
        self.policy = policy
        self.deadline = deadline

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        address = _resolve_allowed(host, port, self.policy)[0]
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise httpcore.ConnectTimeout("the fetch's total time is up")
        stream = super().connect_tcp(address, port, min(timeout or left, left), local_address, socket_options)
        return _DeadlineStream(stream, self.deadline)

    def connect_unix_socket(self, *args, **kwargs):
        raise OutboundRefused("unix sockets are not fetched")


class _GuardedTransport(httpx.HTTPTransport):
    def __init__(self, policy: OutboundPolicy, deadline: float):
        super().__init__(trust_env=False)  # no proxy from the environment: the check is on the real address
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=2,
            network_backend=_GuardedBackend(policy, deadline),
        )


def fetch(
    url: str,
    policy: OutboundPolicy,
    *,
    transport: httpx.BaseTransport | None = None,
    headers: dict[str, str] | None = None,
) -> Fetched:
    """GET `url` under the policy, following up to max_redirects redirects, each checked like the first.

    `transport` replaces the network (tests with httpx.MockTransport); the address check is then the
    transport's business, the scheme, size and redirect rules still apply.
    """
    deadline = time.monotonic() + policy.total_timeout_s
    transport = transport or _GuardedTransport(policy, deadline)
    timeout = httpx.Timeout(policy.total_timeout_s)
    current = url
    try:
        with httpx.Client(transport=transport, follow_redirects=False, timeout=timeout, trust_env=False) as client:
            for _ in range(policy.max_redirects + 1):
                check_url(current, policy, resolve=False)
                with client.stream("GET", current, headers=headers) as response:
                    if response.is_redirect:
                        current = urljoin(current, response.headers.get("location", ""))
                        continue
                    if response.status_code >= 400:
                        raise OutboundFailed(FETCH_FAILED, f"HTTP {response.status_code}")
                    return Fetched(
                        url=current,
                        status=response.status_code,
                        content_type=response.headers.get("content-type", ""),
                        body=_read_capped(response, policy, deadline),
                    )
            raise OutboundFailed(FETCH_FAILED, "too many redirects")
    except OutboundFailed as error:
        logger.info("outbound fetch of %s failed: %s", url, error.detail)
        raise
    except (httpx.HTTPError, httpcore.TimeoutException, OSError) as error:
        logger.info("outbound fetch of %s failed: %s: %s", url, type(error).__name__, error)
        raise OutboundFailed(FETCH_FAILED, type(error).__name__) from None


def _read_capped(response: httpx.Response, policy: OutboundPolicy, deadline: float) -> bytes:
    too_large = f"the document is larger than the {policy.max_bytes:,}-byte limit"
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > policy.max_bytes:
        raise OutboundFailed(too_large, "declared length")
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > policy.max_bytes:
            raise OutboundFailed(too_large, "body")
        if time.monotonic() > deadline:
            raise OutboundFailed(FETCH_FAILED, "total time")
    return bytes(body)
