"""Input that a view could not take is a 400, not a 500 (issue 17, point 7).

Values that pass every form and serializer but fail deeper, at the database or an encoder, raised 500s: an
id above 2**63 in a filter (OverflowError from SQLite), a null where a column needs a value (IntegrityError),
text that cannot be encoded (UnicodeEncodeError). They are the request's fault: the answer is a 400 that
says so (JSON under /api/), with the traceback logged for whoever maintains the view.
"""

from __future__ import annotations

import logging
import re

from django.db import DataError, IntegrityError
from django.http import HttpResponseBadRequest, JsonResponse

logger = logging.getLogger("kopa_site.bad_input")

_MESSAGES = (
    (OverflowError, "a number in the request is out of range"),
    (UnicodeError, "the request holds text that cannot be encoded (e.g. a lone surrogate)"),
    (IntegrityError, "the request's values were refused by the database: a required value is missing or taken"),
    # PostgreSQL refuses some values SQLite stores: a date in year 537 with a +23:44 offset, say.
    (DataError, "a value in the request is outside what the database can hold (a date, time or number)"),
)


class BadInputMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # The same answer on every database: SQLite overflows on an integer past 64 bits, PostgreSQL quietly
        # matches nothing. No id or count of ours is that large, so such a query value is refused up front.
        for values in request.GET.lists():
            if any(_BIG_INTEGER.fullmatch(value) and abs(int(value)) >= 2**63 for value in values[1]):
                return _bad(request, "a number in the request is out of range")
        return self.get_response(request)

    def process_exception(self, request, exception):
        for kind, message in _MESSAGES:
            if isinstance(exception, kind):
                logger.warning(
                    "400 for %s %s: %s", request.method, request.path, type(exception).__name__, exc_info=True
                )
                return _bad(request, message)
        return None


_BIG_INTEGER = re.compile(r"[-+]?\d{19,}")


def _bad(request, message: str):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=400)
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
