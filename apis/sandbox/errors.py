"""Typed failures a handler raises; each envelope renders them in its own family's form."""

from __future__ import annotations


class ServiceError(Exception):
    """A service-level error (inside the API's own envelope), e.g. code "11" for a missing parameter.

    message=None lets the envelope use its own text for the code; http_status is what the live API sends.
    """

    def __init__(self, code: str, message: str | None = None, *, http_status: int = 200, detail: str = ""):
        super().__init__(f"{code} {message or ''}".strip())
        self.code = code
        self.message = message
        self.http_status = http_status
        self.detail = detail


class NoData(ServiceError):
    """The live API reports "no data" as an error (e.g. KMA 03 NO_DATA) rather than an empty list."""

    def __init__(self, code: str = "03", message: str | None = None, *, http_status: int = 200):
        super().__init__(code, message, http_status=http_status)


class InvalidParam(ServiceError):
    """A parameter value the live API rejects; code defaults to the portal's 10."""

    def __init__(self, param: str, code: str = "10", message: str | None = None, *, http_status: int = 200):
        super().__init__(code, message, http_status=http_status, detail=param)
        self.param = param
