"""The parts of the console as the top navigation and the home page show them.

A link is built from the first of its URL names that resolves, so a part whose pages are not wired
yet (or a later, more specific page such as the leaderboard) needs no template change.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Part:
    label: str  # translated lazily: the page's language decides
    url_names: tuple[str, ...]
    app_label: str | None = None  # whose models the home page counts under this part
    summary: str = ""  # ditto
    staff_only: bool = False


PARTS: tuple[Part, ...] = (
    Part(_("Catalog"), ("apis:index",), "apis", _("Korean public APIs as typed tools, and every call made to them.")),
    Part(
        _("Graph"),
        ("graphs:index",),
        "graphs",
        _("Which tool output feeds which tool input, kept where trials prove it."),
    ),
    Part(_("Review"), ("datasets:index",), "datasets", _("Executed multi-step trajectories, reviewed and versioned.")),
    Part(_("Benchmark"), ("benchmarks:index",), "benchmarks", _("KOPA-Bench tasks, models and evaluation runs.")),
    Part(_("Leaderboard"), ("benchmarks:leaderboard", "benchmarks:index")),
    Part(_("Training"), ("training:index",), "training", _("GRPO fine-tuning runs on curated data.")),
    Part(_("Jobs"), ("jobs:list",), "kopa_site", _("Background work with its progress and logs.")),
    Part(_("Admin"), ("admin:index",), staff_only=True),
    Part(_("API docs"), ("api-docs",)),
)


def resolve_first(url_names: tuple[str, ...]) -> str | None:
    for name in url_names:
        try:
            return reverse(name)
        except NoReverseMatch:
            continue
    return None


def nav_links(*, user, path: str) -> list[dict]:
    """The links the signed-in `user` sees; the one holding `path` is marked current."""
    links = []
    for part in PARTS:
        if part.staff_only and not user.is_staff:
            continue
        url = resolve_first(part.url_names)
        if url is not None:
            links.append({"label": part.label, "url": url, "current": False})
    # The longest matching prefix wins, so /bench/leaderboard/ marks Leaderboard, not Benchmark.
    matching = [link for link in links if path.startswith(link["url"]) and link["url"] != "/"]
    if matching:
        max(matching, key=lambda link: len(link["url"]))["current"] = True
    return links


def part_for_app(app_label: str) -> Part | None:
    return next((part for part in PARTS if part.app_label == app_label), None)
