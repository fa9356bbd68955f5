"""Key policies: where a service takes its key and how a bad, missing, re-encoded or over-quota key is answered.

DataGoKrGateway is the apis.data.go.kr behaviour; other portals (Juso confmKey, odcloud, Seoul path key,
KOSIS apiKey) subclass Auth and override extract() and render().
"""

from __future__ import annotations

from apis.sandbox.envelopes.gateway import gateway_error
from apis.sandbox.registry import Context, Param
from apis.sandbox.wire import SandboxResponse

# The reasons check() can fail with; render() turns each into the portal's own answer.
MISSING, INVALID, DOUBLE_ENCODED, QUOTA, RETIRED = "missing", "invalid", "double_encoded", "quota", "retired"


class Auth:
    key_params: tuple[str, ...] = ()

    def extract(self, ctx: Context) -> tuple[str | None, str] | None:
        """(raw text as sent or None, decoded key) or None when no key was sent."""
        for name in self.key_params:
            value = ctx.req.arg(name)
            if value is not None and value != "":
                return ctx.req.raw_arg(name), value
        return None

    def check(self, ctx: Context) -> SandboxResponse | None:
        """None when the call may go on; otherwise the answer to send instead."""
        found = self.extract(ctx)
        if found is None:
            return self.render(ctx, MISSING)
        raw, key = found
        if raw is not None and "%25" in raw:
            return self.render(ctx, DOUBLE_ENCODED)
        if key not in ctx.config.service_keys:
            return self.render(ctx, INVALID)
        if not ctx.state.take_quota(key, ctx.service.id, ctx.now.date(), ctx.config.daily_quota):
            return self.render(ctx, QUOTA)
        return None

    def render(self, ctx: Context, reason: str) -> SandboxResponse:
        raise NotImplementedError

    def spec_params(self) -> list[Param]:
        return []


class DataGoKrGateway(Auth):
    """apis.data.go.kr: serviceKey (or ServiceKey) in the query; errors in OpenAPI_ServiceResponse."""

    key_params = ("serviceKey", "ServiceKey")
    codes = {MISSING: "30", INVALID: "30", DOUBLE_ENCODED: "30", QUOTA: "22", RETIRED: "12"}

    def __init__(self, *, missing_key_code: str = "30", json_errors: bool = True):
        self.codes = {**self.codes, MISSING: missing_key_code}
        self.json_errors = json_errors  # False: this service answers gateway errors in XML whatever was asked

    def render(self, ctx: Context, reason: str) -> SandboxResponse:
        config = ctx.config
        as_json = ctx.fmt == "json" and config.gateway_json_errors and self.json_errors
        if reason == RETIRED:
            return gateway_error("12", variant="A", as_json=as_json, status=400, json_root=False)
        status = config.gateway_json_status if as_json else config.gateway_xml_status
        return gateway_error(self.codes[reason], variant=config.gateway_variant, as_json=as_json, status=status)

    def spec_params(self) -> list[Param]:
        return [
            Param(
                "serviceKey",
                "공공데이터포털에서 받은 인증키 (URL 인코딩은 한 번만)",
                required=True,
                example="인증키 (URL Encode)",
            )
        ]
