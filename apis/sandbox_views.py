"""Django entry point for the sandbox: /sandbox/ (index), /sandbox/specs/…, /sandbox/<live host>/<live path>.

No login and no CSRF: these URLs emulate public APIs and are keyed by service key like the originals.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from apis.sandbox.config import SandboxConfig
from apis.sandbox.engine import DEFAULT_STATE
from apis.sandbox.serving import serve_path


def sandbox_config() -> SandboxConfig:
    return SandboxConfig.from_mapping(getattr(settings, "SANDBOX", None))


@csrf_exempt
def sandbox(request, rest: str = ""):
    response = serve_path(
        request.method,
        rest,
        request.META.get("QUERY_STRING", ""),
        {k.lower(): v for k, v in request.headers.items()},
        request.body,
        config=sandbox_config(),
        state=DEFAULT_STATE,
        base_url=request.build_absolute_uri("/").rstrip("/"),
    )
    if response.delay_s:
        # A WSGI worker cannot drop its connection: "timeout" holds, then answers 504; "reset" answers 504 at once.
        time.sleep(response.delay_s)
    reply = HttpResponse(response.body, status=response.status)
    for name, value in response.headers.items():
        reply[name] = value
    return reply
