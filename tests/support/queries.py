"""Query counts that must not grow with the rows a page lists (STYLE: no N+1 in list views)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db import connection
from django.test.utils import CaptureQueriesContext


def query_counts(fetch: Callable[[str], int], urls: Iterable[str]) -> dict[str, int]:
    """The number of queries each URL costs; `fetch` requests it and returns the HTTP status (200 expected)."""
    counts = {}
    for url in urls:
        with CaptureQueriesContext(connection) as queries:
            status = fetch(url)
        assert status == 200, f"{url} answered {status}"
        counts[url] = len(queries)
    return counts


def assert_queries_do_not_grow(fetch: Callable[[str], int], urls: list[str], add_rows: Callable[[], None]) -> None:
    """Count every URL's queries, add rows, count again: a list view that queries per row shows up as growth."""
    fetch(urls[0])  # warm the session and content-type caches
    before = query_counts(fetch, urls)
    add_rows()
    after = query_counts(fetch, urls)
    grew = {url: (before[url], after[url]) for url in urls if after[url] > before[url]}
    assert not grew, f"queries grew with the rows listed (before, after): {grew}"
