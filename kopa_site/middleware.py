"""Input that a view could not take is a 400, not a 500 (issue 17, point 7).

Values that pass every form and serializer but fail deeper, at the database or an encoder, raised 500s: an
id above 2**63 in a filter (OverflowError from SQLite), a null where a column needs a value (IntegrityError),
text that cannot be encoded (UnicodeEncodeError). They are the request's fault: the answer is a 400 that
says so (JSON under /api/), with the traceback logged for whoever maintains the view.
"""

from __future__ import annotations

import logging

from django.db import IntegrityError
from django.http import HttpResponseBadRequest, JsonResponse

logger = logging.getLogger("kopa_site.bad_input")

_MESSAGES = (
    (OverflowError, "a number in the request is out of range"),
    (UnicodeError, "the request holds text that cannot be encoded (e.g. a lone surrogate)"),
    (IntegrityError, "the request's values were refused by the database: a required value is missing or taken"),
)


class BadInputMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        for kind, message in _MESSAGES:
            if isinstance(exception, kind):
                logger.warning(
                    "400 for %s %s: %s", request.method, request.path, type(exception).__name__, exc_info=True
                )
                if request.path.startswith("/api/"):
                    return JsonResponse({"detail": message}, status=400)
                return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
        return None
