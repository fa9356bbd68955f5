"""API pagination: limit/offset with a hard cap on page size."""

from rest_framework.pagination import LimitOffsetPagination


class CappedLimitOffsetPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500
