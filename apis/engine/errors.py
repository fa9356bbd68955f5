"""Error classes of a normalized API call, split into environmental and structural, plus key redaction.

EDGE trials rely on the split: an environmental failure (the network, the gateway, a quota) says nothing
about whether a call was well formed and may be retried; a structural one (a missing or invalid parameter,
a retired service, a rejected key, data that was expected and not there) is the call's own fault and is
never retried.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, unquote

# Environmental: transient or outside the caller's control; retried with backoff.
ENV_TIMEOUT = "env.timeout"  # no answer within the timeout
ENV_CONNECTION = "env.connection"  # refused, reset or dropped before a full response
ENV_HTTP_5XX = "env.http_5xx"  # a 5xx status with no envelope that says more
ENV_HTML_ERROR = "env.html_error"  # an HTML error page where data was due (a proxy or WAS page)
ENV_QUOTA = "env.quota"  # 22/23, HTTP 429, KOSIS 40/42: call limits
ENV_GATEWAY = "env.gateway"  # the data.go.kr gateway failed (cmmMsgHeader 01/02/04/05/99) or sent nothing
ENV_PROVIDER = "env.provider"  # the service's own envelope reports a server-side fault (01, 02, 04, 05, 99, -999)
ENV_TRUNCATED = "env.truncated"  # the body stops before the document closes: a cut-off transfer

# Structural: the request (or the contract) is wrong; never retried.
STRUCT_MISSING_PARAM = "struct.missing_param"
STRUCT_INVALID_PARAM = "struct.invalid_param"
STRUCT_NO_DATA = "struct.no_data"  # only when the caller said records were expected
STRUCT_SCHEMA = "struct.schema"  # parsed, but not in any envelope this engine knows
STRUCT_RETIRED = "struct.retired"  # 12 NO_OPENAPI_SERVICE_ERROR
STRUCT_AUTH = "struct.auth"  # 20, 21, 30-33, odcloud -4/-401, Juso E0001/E0014, Seoul INFO-100 ...
STRUCT_NOT_FOUND = "struct.not_found"  # HTTP 404 or "no such service" without an envelope
STRUCT_MALFORMED = "struct.malformed_response"  # a complete body that is not valid XML/JSON
STRUCT_HTTP_4XX = "struct.http_4xx"  # any other 4xx without an envelope that says more
STRUCT_SERVICE_ERROR = "struct.service_error"  # a non-success code this engine cannot place more precisely

# Neither: replay mode found no recorded call for the request.
REPLAY_MISS = "replay.miss"

ERROR_CLASSES: dict[str, str] = {
    ENV_TIMEOUT: "no answer within the timeout",
    ENV_CONNECTION: "connection refused, reset or dropped",
    ENV_HTTP_5XX: "HTTP 5xx without a recognizable envelope",
    ENV_HTML_ERROR: "an HTML error page instead of data",
    ENV_QUOTA: "call limit reached (22/23, HTTP 429, KOSIS 40/42)",
    ENV_GATEWAY: "the data.go.kr gateway failed or answered nothing",
    ENV_PROVIDER: "the service reported a server-side fault",
    ENV_TRUNCATED: "the body was cut off before the document closed",
    STRUCT_MISSING_PARAM: "a required parameter is missing",
    STRUCT_INVALID_PARAM: "a parameter value was rejected",
    STRUCT_NO_DATA: "no records, and the caller expected some",
    STRUCT_SCHEMA: "a parseable body in no known envelope",
    STRUCT_RETIRED: "the service is retired or does not exist (12)",
    STRUCT_AUTH: "the key was rejected, expired or not approved for this service",
    STRUCT_NOT_FOUND: "HTTP 404 or no such service",
    STRUCT_MALFORMED: "a complete body that is not valid XML or JSON",
    STRUCT_HTTP_4XX: "HTTP 4xx without a recognizable envelope",
    STRUCT_SERVICE_ERROR: "a non-success code with no closer class",
    REPLAY_MISS: "replay mode has no recorded call for this request",
}


def is_environmental(error_class: str | None) -> bool:
    return bool(error_class) and error_class.startswith("env.")


def is_structural(error_class: str | None) -> bool:
    return bool(error_class) and error_class.startswith("struct.")


class EngineError(Exception):
    """Base of the engine's exceptions. Messages are built from redacted text only."""


REDACTED = "***"
# Shorter strings are not treated as secrets: blanking every "ab" in a body would destroy it, and no
# real service key is that short.
MIN_SECRET_LENGTH = 4


class Secret:
    """A secret that does not show itself: repr and str are masked, so a frame or a dataclass that holds one
    shows nothing on an error page or in a log. `reveal()` gives the value to the code that must send it.

    kopa_site's exception reporter also masks any variable whose value contains a revealed secret.
    """

    __slots__ = ("_value",)
    is_secret = True

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __reduce__(self):
        raise TypeError("a Secret is not pickled")


def reveal(value: Secret | str | None) -> str | None:
    """The plain value of a Secret (or of a plain string, passed through)."""
    return value.reveal() if isinstance(value, Secret) else value


def secret_forms(secret: str) -> set[str]:
    """The spellings a key can take on the wire: as pasted, decoded, encoded once (both styles), twice,
    and with JSON's escaped slash."""
    forms: set[str] = set()
    decoded = unquote(secret)
    for base in {secret, decoded}:
        once = quote(base, safe="")
        forms.update({base, once, quote_plus(base, safe=""), quote(base, safe="/"), quote(once, safe="")})
    forms |= {form.replace("/", "\\/") for form in forms if "/" in form}
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


def _pattern_for(form: str) -> str:
    # Percent escapes match in either hex case: %2B and %2b are the same byte.
    parts = re.split(r"(%[0-9A-Fa-f]{2})", form)
    return "".join(
        f"%(?i:{part[1:]})" if part.startswith("%") and len(part) == 3 else re.escape(part) for part in parts
    )


@functools.lru_cache(maxsize=256)
def redaction_pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    """One compiled pattern for all wire forms of the secrets (cached: the executor redacts every field)."""
    forms: set[str] = set()
    for secret in secrets:
        forms |= secret_forms(secret)
    if not forms:
        return None
    # Longest first, so an encoded form is not half-replaced by a decoded one it contains.
    return re.compile("|".join(_pattern_for(form) for form in sorted(forms, key=len, reverse=True)))


def redact(text: str | None, secrets: Iterable[str | None]) -> str:
    """text with every wire form of every secret replaced by ***; safe on None and on empty secrets."""
    if not text:
        return text or ""
    pattern = redaction_pattern(tuple(sorted({s for s in secrets if s})))
    return pattern.sub(REDACTED, text) if pattern is not None else text
