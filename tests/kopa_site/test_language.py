"""One UI language (Korean) with English as a full translation, and one date format on every page (issue 18)."""

from __future__ import annotations

import ast
import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation

from kopa_site.language import language_of

pytestmark = pytest.mark.django_db

LOCALE = Path(settings.BASE_DIR) / "locale" / "ko" / "LC_MESSAGES"
TEMPLATES = Path(settings.BASE_DIR) / "templates"
HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture
def korean(settings):
    """The console's real default (tests otherwise read the English source strings, settings_test)."""
    settings.LANGUAGE_CODE = "ko"
    return settings


def _po_entries() -> list[tuple[str, str]]:
    """(msgid, first msgstr) of every entry of the Korean catalog, read without gettext tools."""
    text = (LOCALE / "django.po").read_text(encoding="utf-8")
    entries = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        current = None
        for line in block.splitlines():
            match = re.match(r"(msgid|msgid_plural|msgstr|msgstr\[0\]) (\".*\")$", line)
            if match:
                current = match.group(1)
                fields[current] = _unquote(match.group(2))
            elif line.startswith('"') and current:
                fields[current] += _unquote(line)
        if fields.get("msgid"):
            entries.append((fields["msgid"], fields.get("msgstr") or fields.get("msgstr[0]", "")))
    return entries


def _unquote(quoted: str) -> str:
    return ast.literal_eval(quoted)  # makemessages writes C-style escapes: \" \\ \n


def test_the_console_speaks_korean_by_default_and_english_on_request():
    from kopa_site import settings as production

    assert production.LANGUAGE_CODE == "ko"
    assert [code for code, _ in production.LANGUAGES] == ["ko", "en"]


def test_every_message_has_korean_and_the_compiled_catalog_is_current():
    entries = _po_entries()
    assert len(entries) > 900
    missing = [msgid for msgid, msgstr in entries if not msgstr]
    assert missing == []
    with translation.override("ko"):
        compiled = [msgid for msgid, msgstr in entries if translation.gettext(msgid) != msgstr]
    assert compiled == []  # django.mo holds what django.po says


def test_the_language_comes_from_the_switcher_cookie_never_the_browser(rf, settings):
    request = rf.get("/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert language_of(request) == settings.LANGUAGE_CODE
    request.COOKIES[settings.LANGUAGE_COOKIE_NAME] = "en"
    assert language_of(request) == "en"
    request.COOKIES[settings.LANGUAGE_COOKIE_NAME] = "xx"  # a language the console does not have
    assert language_of(request) == settings.LANGUAGE_CODE


def test_pages_are_korean_by_default_and_english_after_switching(korean, client_as, annotator):
    client = client_as(annotator)
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en-US").content.decode()
    assert '<html lang="ko">' in html and "로그아웃" in html and "카탈로그" in html
    assert "Log out" not in html
    response = client.post(reverse("set_language"), {"language": "en", "next": reverse("home")})
    assert response.status_code == 302
    html = client.get(reverse("home")).content.decode()
    assert '<html lang="en">' in html and "Log out" in html and "Catalog" in html
    assert "로그아웃" not in html


def test_the_login_page_and_the_api_errors_follow_the_same_language(korean, client):
    html = client.get(reverse("login")).content.decode()
    assert "비밀번호" in html and "Password" not in html
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(reverse("login")).content.decode()
    assert "Password" in html and "비밀번호" not in html
    assert "Authentication credentials" in client.get("/api/v1/jobs/").json()["detail"]


@pytest.mark.parametrize("language", ["ko", "en"])
def test_one_date_format_in_both_languages(language):
    moment = datetime(2026, 12, 3, 16, 16, 23, tzinfo=ZoneInfo("Asia/Seoul"))
    template = Template("{{ moment }}|{{ moment|date }}|{{ moment|time }}|{{ moment|date:'SHORT_DATETIME_FORMAT' }}")
    with translation.override(language):
        shown = template.render(Context({"moment": moment}))
    assert shown == "2026-12-03 16:16:23|2026-12-03|16:16:23|2026-12-03 16:16:23"


def test_no_template_formats_a_date_its_own_way():
    """Pages print datetimes as they are ({{ x }}, |date, |time), so the one format applies; only the
    machine-readable <time datetime="..."> attribute uses 'c'."""
    ad_hoc = []
    for path in TEMPLATES.rglob("*.html"):
        for match in re.finditer(r"\|(date|time):(['\"])([^'\"]*)\2", path.read_text(encoding="utf-8")):
            if match.group(3) not in ("c", "DATE_FORMAT", "DATETIME_FORMAT", "TIME_FORMAT"):
                ad_hoc.append(f"{path.relative_to(TEMPLATES)}: {match.group(0)}")
    assert ad_hoc == []


def test_every_site_model_has_a_translatable_name():
    from kopa_site.model_names import MODEL_NAMES_PLURAL
    from kopa_site.selectors import site_models

    labels = {model._meta.label_lower for model in site_models()}
    assert labels == set(MODEL_NAMES_PLURAL), labels ^ set(MODEL_NAMES_PLURAL)
    with translation.override("ko"):
        assert str(MODEL_NAMES_PLURAL["apis.tool"]) == "도구"


def test_the_switcher_names_each_language_in_itself(korean, client_as, annotator):
    html = client_as(annotator).get(reverse("home")).content.decode()
    switcher = html.split('class="language-switch"', 1)[1].split("</form>", 1)[0]
    assert (
        'aria-current="true">한국어</span>' in switcher
        and 'value="en" class="link" lang="en">English</button>' in switcher
    )
