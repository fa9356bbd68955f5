"""After the main job, every page it prints (and every other page the README lists, with one of each detail page)
opens for every demo role in a real browser: no server error,
one UI language (Korean, the console's default) and one date format, nothing wider than a phone at 390 px. Screenshots land in var/screenshots/tour/
(the README's tour is taken from them: KOPA_TOUR_DIR=docs/screenshots keeps them there instead)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from apis.models import Tool
from benchmarks.models import EvalRun
from datasets.models import Trajectory
from graphs.models import CandidateEdge
from kopa_site.management.commands.pipeline import LINKS
from kopa_site.pipeline import PipelineOptions, pipeline_run
from tests.support.browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HANGUL = re.compile(r"[\uac00-\ud7a3]")
ROLES = ("annotator", "reviewer", "admin")
PASSWORD = "kopa-demo"
# Pages that show synthesized or catalogued Korean data once the job has run.
KOREAN_PAGES = {"Review queue", "EDGE graph", "Catalog", "Trajectories", "Trajectory", "Tool"}
# Pages whose body shows Korean requests, answers or task prompts (dates in their words are data, not UI).
DATA_PAGES = {"KOPA-Bench", "Trajectories", "Trajectory", "Run"}
# The console's own English source strings: none may show on a Korean page (issue 18: English UI beside
# Korean data, login and admin).
ENGLISH_UI = ("Log out", "Skip to content", "Korean public-API tool calling", "Catalog", "Benchmark", "Jobs")
# Django's Korean formats ("2026년 12월 3일 4:16 오후") or English ones ("Dec. 3, 2026, 4:16 p.m."): the console
# has one format instead (kopa_site/formats), which every <time> element and date on a page follows.
OTHER_DATES = re.compile(
    r"\d{4}년 \d{1,2}월|오[전후] \d{1,2}:\d{2}|\d{1,2}:\d{2} [ap]\.m\.|[A-Z][a-z]{2}\. \d{1,2}, \d{4}"
)
ONE_FORMAT = re.compile(r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?|\d{2}:\d{2}:\d{2}")


def _tour_dir() -> Path:
    folder = Path(os.environ.get("KOPA_TOUR_DIR") or Path(settings.VAR_DIR) / "screenshots" / "tour")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _more_pages() -> list[tuple[str, str]]:
    """The other pages the README lists, and one of each detail page a phone once saw too wide (a trajectory,
    a tool, an edge, an evaluation run)."""
    trajectory = Trajectory.objects.order_by("pk").first()
    tool = Tool.objects.filter(calls__isnull=False).order_by("pk").first()
    edge = CandidateEdge.objects.filter(status="verified").order_by("pk").first()
    run = EvalRun.objects.order_by("pk").first()
    return [
        ("Catalog", reverse("apis:index")),
        ("Trajectories", reverse("datasets:trajectories")),
        ("KOPA-Bench", reverse("benchmarks:index")),
        ("Training", reverse("training:index")),
        ("Jobs", reverse("jobs:list")),
        ("Trajectory", reverse("datasets:trajectory", args=[trajectory.pk])),
        ("Tool", reverse("apis:tool", args=[tool.pk])),
        ("Edge", reverse("graphs:edge", args=[edge.pk])),
        ("Run", reverse("benchmarks:run", args=[run.pk])),
    ]


def _page_width(page) -> int:
    return page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")


def _language_problems(page, where: str, *, console: bool, data_text: bool = False) -> list[str]:
    problems = []
    if page.evaluate("document.documentElement.lang") != "ko":
        problems.append(f"{where}: <html lang> is not ko")
    text = page.inner_text("body")
    if console:  # Django's admin is Korean too, but lists the apps' own (English) model names
        problems += [f"{where}: English UI text {phrase!r}" for phrase in ENGLISH_UI if phrase in text]
    if not data_text:  # Korean requests and task prompts say "2026년 10월" as people do; the UI's dates never do
        problems += [f"{where}: date {found!r} in another format" for found in OTHER_DATES.findall(text)]
    for shown in page.eval_on_selector_all("main time", "nodes => nodes.map(n => n.textContent.trim())"):
        if shown and not ONE_FORMAT.fullmatch(shown):
            problems.append(f"{where}: <time> shows {shown!r}")
    return problems


def test_every_page_the_main_job_prints_opens_for_every_role(
    live_server, sandbox_server_url, monkeypatch, request, settings
):
    monkeypatch.setenv("KOPA_DEMO_PASSWORD", PASSWORD)
    settings.LANGUAGE_CODE = "ko"  # the console's default (the test settings read English source strings)
    report = pipeline_run(
        options=PipelineOptions(
            trajectories=6, verify_rounds=3, sandbox_origin=sandbox_server_url, tasks=["wx-001", "hl-001"]
        ),
        progress=lambda *a: None,
        log=lambda line: None,
    )
    assert all(step.status == "done" for step in report.steps)
    # Only now: Playwright's event loop in this thread would refuse the job's own async calls.
    chromium = request.getfixturevalue("chromium")
    folder = _tour_dir()
    links = [(label, reverse(name)) for label, name in LINKS] + _more_pages()
    problems: list[str] = []
    for role in ROLES:
        context = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
        page = context.new_page()
        page.set_default_timeout(20_000)
        log_in(page, live_server.url, role, PASSWORD)
        for label, path in links:
            response = page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("networkidle")
            status = response.status if response else 0
            if status >= 500:
                problems.append(f"{role} {path}: HTTP {status}")
                continue
            if status >= 400 and not (status == 403 and label == "Admin" and role != "admin"):
                problems.append(f"{role} {path}: HTTP {status}")
            text = page.inner_text("body")
            if label in KOREAN_PAGES and not HANGUL.search(text):
                problems.append(f"{role} {path}: no Korean text")
            if label != "API docs" and status < 400:  # Swagger UI keeps its own English
                problems += _language_problems(
                    page, f"{role} {path}", console=label != "Admin", data_text=label in DATA_PAGES
                )
            if role == "admin":
                slug = re.sub(r"[^a-z]+", "-", label.lower()).strip("-")
                page.screenshot(path=str(folder / f"{slug}.png"))
        # The same pages on a phone: nothing may scroll sideways.
        page.set_viewport_size({"width": 390, "height": 844})
        for label, path in links:
            if label in ("Admin", "API docs"):
                continue  # Django's admin and Swagger UI keep their own layouts
            page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("networkidle")
            width = _page_width(page)
            if width > 390:
                problems.append(f"{role} {path}: {width} px wide at 390 px")
        context.close()
    assert not problems, "\n".join(problems)
