"""The OpenAPI schema and its two doc pages, and the static files behind them, with no network at all."""

from __future__ import annotations

import ipaddress
import re
import socket
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import override_settings
from drf_spectacular.validation import validate_schema

from kopa_site.staticfinders import PackageFileFinder, package_file

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Refuse every connection that leaves the machine (the test database may be on loopback)."""
    real_connect = socket.socket.connect

    def guarded(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0]
            try:
                local = ipaddress.ip_address(host).is_loopback
            except ValueError:
                local = host == "localhost"
            if not local:
                raise OSError(f"test tried to reach the network: {address!r}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


class _Refs(HTMLParser):
    """Collects every URL a page makes the browser fetch: script src, link href, img src."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img", "iframe") and attrs.get("src"):
            self.urls.append(attrs["src"])
        if tag == "link" and attrs.get("href"):
            self.urls.append(attrs["href"])


def _fetched_urls(html: str) -> list[str]:
    parser = _Refs()
    parser.feed(html)
    return parser.urls


def _assert_served_by_us(urls: list[str]) -> None:
    assert urls, "the page references no assets at all"
    for url in urls:
        assert not re.match(r"^([a-z]+:)?//", url), f"{url} leaves the site"
        assert url.startswith("/static/"), url
        assert finders.find(url.removeprefix("/static/")), f"{url} is not found by the staticfiles finders"


# --- schema ------------------------------------------------------------------------------------------------


@pytest.mark.smoke
def test_the_schema_is_a_valid_openapi_document(annotator_api):
    response = annotator_api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    validate_schema(schema)
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "KOPA Console API"
    assert "/api/v1/stats/" in schema["paths"]
    assert "/api/v1/auth/token/" in schema["paths"]


def test_the_schema_describes_the_stats_body(annotator_api):
    schema = yaml.safe_load(annotator_api.get("/api/v1/schema/").content)
    ok = schema["paths"]["/api/v1/stats/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    body = schema["components"]["schemas"][ok["$ref"].rsplit("/", 1)[-1]]
    assert set(body["properties"]) == {"models", "users_by_role", "users"}


def test_the_schema_generates_without_warnings(tmp_path):
    """Every endpoint registered on the router must be describable; a warning here is a bug there."""
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").stat().st_size > 0


# --- doc pages ---------------------------------------------------------------------------------------------


@pytest.mark.smoke
@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_the_doc_pages_fetch_only_files_we_serve(annotator_api, url):
    response = annotator_api.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    _assert_served_by_us(_fetched_urls(html))
    assert "googleapis" not in html and "jsdelivr" not in html


@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_the_doc_pages_forbid_the_browser_to_fetch_from_other_origins(annotator_api, url):
    """Redoc's bundle shows a logo from cdn.redoc.ly; the page's policy must block it."""
    html = annotator_api.get(url).content.decode()
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html).group(1)
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'"
    for name in ("img-src", "connect-src", "font-src", "script-src", "style-src"):
        sources = directives[name].split()
        assert all(source in ("'self'", "'unsafe-inline'", "data:", "blob:") for source in sources), (name, sources)


def test_the_token_endpoint_is_documented_as_needing_no_credentials(annotator_api):
    schema = annotator_api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/v1/auth/token/"]["post"]
    # The schema sets no global requirement, so an operation without `security` needs none.
    assert "security" not in schema and "security" not in operation
    assert "security" in schema["paths"]["/api/v1/stats/"]["get"]


def test_swagger_ui_does_not_send_the_schema_to_an_online_validator(annotator_api):
    html = annotator_api.get("/api/v1/docs/").content.decode()
    assert '"validatorUrl": null' in html


def test_the_doc_pages_point_at_our_schema(annotator_api):
    assert "/api/v1/schema/" in annotator_api.get("/api/v1/redoc/").content.decode()
    assert "/api/v1/schema/" in annotator_api.get("/api/v1/docs/").content.decode()


def test_anonymous_visitors_get_a_login_link_instead_of_the_docs(client):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 401
    assert 'href="/accounts/login/?next=/api/v1/docs/"' in response.content.decode()


def test_the_assets_of_the_doc_pages_are_served(client_as, annotator):
    client = client_as(annotator)
    for url in _fetched_urls(client.get("/api/v1/redoc/").content.decode()):
        response = client.get(url)
        assert response.status_code == 200, url
        response.close()


# --- our static files --------------------------------------------------------------------------------------


@pytest.mark.smoke
def test_htmx_and_plotly_resolve_through_the_finders():
    htmx = Path(finders.find("vendor/htmx.min.js"))
    plotly = Path(finders.find("vendor/plotly.min.js"))
    assert htmx.read_bytes().startswith(b"var htmx=function()")
    assert plotly == package_file("plotly", "package_data/plotly.min.js")
    assert plotly.stat().st_size > 1_000_000


def test_plotly_js_is_the_copy_shipped_with_the_python_package():
    import plotly.offline

    served = Path(finders.find("vendor/plotly.min.js")).read_text(encoding="utf-8")
    assert served == plotly.offline.get_plotlyjs()


@pytest.mark.parametrize(
    ("url", "media_type"),
    [("vendor/htmx.min.js", "javascript"), ("vendor/plotly.min.js", "javascript"), ("css/kopa.css", "text/css")],
)
def test_the_site_serves_its_static_files_itself(client, url, media_type):
    response = client.get(f"/static/{url}")
    assert response.status_code == 200
    assert media_type in response["Content-Type"]
    response.close()


def test_collectstatic_gathers_plotly_from_the_package(tmp_path):
    with override_settings(STATIC_ROOT=tmp_path):
        call_command("collectstatic", "--noinput", verbosity=0)
    assert (tmp_path / "vendor" / "plotly.min.js").stat().st_size > 1_000_000
    assert (tmp_path / "vendor" / "htmx.min.js").exists()
    assert (tmp_path / "drf_spectacular_sidecar" / "redoc" / "bundles" / "redoc.standalone.js").exists()


def test_the_package_finder_reports_a_missing_package():
    finder = PackageFileFinder(files={"vendor/nothing.js": ("no_such_package_kopa", "x.js")})
    assert [error.id for error in finder.check()] == ["kopa_site.E002"]
    assert finder.find("vendor/nothing.js") == []  # as Django's finders answer: never None
    assert finder.find("vendor/nothing.js", find_all=True) == []
    assert list(finder.list(None)) == []


def test_the_package_finder_ignores_other_paths_and_honours_ignore_patterns():
    finder = PackageFileFinder()
    assert finder.find("vendor/htmx.min.js") == []
    assert [(path, storage.prefix) for path, storage in finder.list(None)] == [("plotly.min.js", "vendor")]
    assert list(finder.list(["*.js"])) == []
