"""The sandbox engine: one request in, one response out. Plain Python, no Django.

Order of work, like the live stack: host -> route -> retired? -> injected fault -> key (gateway) ->
required parameters -> handler -> envelope (paging and rendering). Latency and transport faults are
returned as instructions (delay_s, fault) for the server layer to act out.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from apis.sandbox import faults
from apis.sandbox.auth import QUOTA, RETIRED
from apis.sandbox.config import ALL_FAULTS, SandboxConfig, parse_now
from apis.sandbox.errors import ServiceError
from apis.sandbox.rand import stable_int
from apis.sandbox.registry import Context, Params, Result, load_families
from apis.sandbox.state import SandboxState
from apis.sandbox.wire import TEXT_UTF8, SandboxRequest, SandboxResponse, respond

DEFAULT_STATE = SandboxState()


class KnobError(ValueError):
    """An X-Sandbox-* header that cannot be read; answered with HTTP 400 naming the header."""


def effective_config(req: SandboxRequest, config: SandboxConfig) -> SandboxConfig:
    """The configuration with this request's X-Sandbox-* overrides applied (when allowed)."""
    if not config.header_overrides:
        return config
    headers = req.headers
    changes: dict[str, object] = {}
    readers = (
        ("x-sandbox-latency-ms", "latency_ms", float),
        ("x-sandbox-jitter-ms", "jitter_ms", float),
        ("x-sandbox-fault-rate", "fault_rate", float),
        ("x-sandbox-seed", "seed", int),
        ("x-sandbox-daily-quota", "daily_quota", int),
        ("x-sandbox-timeout-hold-s", "timeout_hold_s", float),
    )
    for header, name, kind in readers:
        if header in headers:
            try:
                changes[name] = kind(headers[header])
            except ValueError:
                raise KnobError(f"{header}: expected a number; got {headers[header]!r}") from None
    if "x-sandbox-faults" in headers:
        changes["faults"] = tuple(f.strip() for f in headers["x-sandbox-faults"].split(",") if f.strip())
    if "x-sandbox-now" in headers:
        try:
            changes["now"] = parse_now(headers["x-sandbox-now"])
        except ValueError as exc:
            raise KnobError(f"x-sandbox-now: {exc}") from None
    if "x-sandbox-gateway-variant" in headers:
        changes["gateway_variant"] = headers["x-sandbox-gateway-variant"].strip().upper()
    if not changes:
        return config
    updated = config.with_(**changes)
    try:
        updated.validate()
    except ValueError as exc:
        raise KnobError(str(exc)) from None
    return updated


def request_rng(req: SandboxRequest, config: SandboxConfig, state: SandboxState) -> random.Random:
    """Fault and latency dice. With X-Sandbox-Seed the roll depends on the request alone (reproducible);
    otherwise on the configured seed and the process's request counter (varies call to call)."""
    if "x-sandbox-seed" in req.headers and config.header_overrides:
        return random.Random(stable_int(config.seed, req.method, req.host, req.path, req.raw_query))
    return random.Random(stable_int(config.seed, state.next_request_number()))


def choose_fault(rnd: random.Random, config: SandboxConfig) -> str | None:
    roll = rnd.random()
    kinds: Sequence[str] = [f for f in config.faults if f in ALL_FAULTS]
    if config.fault_rate <= 0 or not kinds or roll >= config.fault_rate:
        return None
    return kinds[int(rnd.random() * len(kinds)) % len(kinds)]


def handle(req: SandboxRequest, *, config: SandboxConfig, state: SandboxState | None = None) -> SandboxResponse:
    state = state or DEFAULT_STATE
    try:
        config = effective_config(req, config)
    except KnobError as exc:
        return respond(str(exc), TEXT_UTF8, 400)
    rnd = request_rng(req, config, state)
    fault = choose_fault(rnd, config)
    response = _dispatch(req, config, state, fault)
    if config.latency_ms or config.jitter_ms:
        jitter = (rnd.random() * 2 - 1) * config.jitter_ms
        response.delay_s = max(0.0, config.latency_ms + jitter) / 1000.0
    if response.fault == "timeout":
        response.delay_s += config.timeout_hold_s
    return response


def _dispatch(req: SandboxRequest, config: SandboxConfig, state: SandboxState, fault: str | None) -> SandboxResponse:
    registry = load_families()
    ctx = Context(req=req, config=config, state=state, now=config.now)
    host = registry.hosts.get(req.host)
    if host is None:
        return respond("Not Found", TEXT_UTF8, 404)
    found = registry.find(req.host, req.path, req.query)
    if found is None:
        if host.unknown_path is not None:
            return host.unknown_path(ctx)
        return respond("Not Found", TEXT_UTF8, 404)
    op, path_params = found
    ctx.service, ctx.op, ctx.path_params = op.service, op, path_params
    envelope, auth = op.service.envelope, op.service.auth
    ctx.fmt = envelope.response_format(ctx)

    if op.service.retired:
        return auth.render(ctx, RETIRED)
    if req.method not in (op.method, *op.other_methods) and not (req.method == "HEAD" and op.method == "GET"):
        return respond("Method Not Allowed", TEXT_UTF8, 405, Allow=op.method)
    if fault in ("500", "502", "503"):
        return faults.error_page(int(fault))
    if fault in ("timeout", "reset"):
        timed_out = faults.error_page(504)
        timed_out.fault = fault
        return timed_out
    if fault == "quota":
        return auth.render(ctx, QUOTA)

    denied = auth.check(ctx)
    if denied is not None:
        return denied
    response = _serve(ctx)
    return faults.malformed(response) if fault == "malformed" else response


def _serve(ctx: Context) -> SandboxResponse:
    op, envelope = ctx.op, ctx.service.envelope
    ctx.params = collect_params(ctx)
    try:
        for param in op.params:
            # A JSON body's properties are the handler's to check: it alone reads the body.
            if param.required and param.location != "body" and not ctx.params.present(param.name):
                raise ServiceError(op.missing_param_code)
        request = envelope.page_request(ctx)
        result = op.handler(ctx, ctx.params)
        if not isinstance(result, Result):
            result = Result(result)
        page = envelope.paginate(ctx, result, request)
    except ServiceError as error:
        return envelope.render_error(ctx, error)
    return envelope.render(ctx, page)


def collect_params(ctx: Context) -> Params:
    """First value of every form field (POST) and query parameter (query wins), plus path parameters (path wins,
    as it is the route)."""
    params = Params({name: values[0] for name, values in ctx.req.form().items() if values})
    params.update({name: values[0] for name, values in ctx.req.query.items() if values})
    params.update(ctx.path_params)
    return params
