"""The site shell: login and logout, the layout and its navigation, the home counts, the part pages."""

from __future__ import annotations

import re

import pytest
from django.contrib import messages
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.template import RequestContext, Template
from django.test import Client

from kopa_site import navigation
from kopa_site.navigation import Part, nav_links

pytestmark = pytest.mark.django_db

NAV_LABELS = ["Catalog", "Graph", "Review", "Benchmark", "Leaderboard", "Training", "API docs"]


def _nav(html: str) -> list[str]:
    nav = re.search(r'<nav class="site-nav".*?</nav>', html, re.S)
    return re.findall(r"<a [^>]*>([^<]+)</a>", nav.group(0)) if nav else []


# --- login and logout ----------------------------------------------------------------------------------


@pytest.mark.smoke
def test_anonymous_visitors_are_sent_to_the_login_page(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/"


def test_the_login_page_has_a_form_and_no_navigation(client):
    response = client.get("/accounts/login/")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="username"' in html and 'name="password"' in html
    assert _nav(html) == []


def test_logging_in_leads_home_and_a_bad_password_says_so(client, annotator):
    bad = client.post("/accounts/login/", {"username": "annotator", "password": "wrong"})
    assert bad.status_code == 200
    assert 'class="errorlist"' in bad.content.decode()

    good = client.post("/accounts/login/", {"username": "annotator", "password": "pw-annotator"})
    assert good.status_code == 302 and good["Location"] == "/"
    assert client.get("/").status_code == 200


def test_logging_out_takes_a_post_and_ends_the_session(client_as, annotator):
    client = client_as(annotator)
    assert client.get("/accounts/logout/").status_code == 405
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    assert client.get("/").status_code == 302


def test_logout_is_csrf_protected():
    client = Client(enforce_csrf_checks=True)
    assert client.post("/accounts/logout/").status_code == 403


# --- layout --------------------------------------------------------------------------------------------


@pytest.mark.smoke
def test_the_layout_shows_the_parts_the_user_and_the_role(client_as, reviewer):
    html = client_as(reviewer).get("/").content.decode()
    assert [label for label in _nav(html) if label in NAV_LABELS] == NAV_LABELS
    assert "Admin" not in _nav(html)
    assert '<span class="badge role-reviewer"' in html
    assert 'action="/accounts/logout/"' in html


def test_admins_also_see_the_admin_link(client_as, admin):
    assert "Admin" in _nav(client_as(admin).get("/").content.decode())


def test_a_user_without_a_role_is_told_so(client_as, outsider):
    assert ">no role</span>" in client_as(outsider).get("/").content.decode()


def test_the_current_part_is_marked(client_as, annotator):
    html = client_as(annotator).get("/graph/").content.decode()
    assert re.search(r'<a href="/graph/" aria-current="page">Graph</a>', html)
    assert html.count('aria-current="page"') == 1


def test_every_page_loads_the_stylesheet_and_htmx_from_our_own_static_files(client_as, annotator):
    html = client_as(annotator).get("/").content.decode()
    assert '<link rel="stylesheet" href="/static/css/kopa.css">' in html
    assert '<script src="/static/vendor/htmx.min.js" defer></script>' in html
    assert "plotly" not in html
    assert not re.search(r'(src|href)="(https?:)?//', html)


def test_htmx_requests_carry_the_csrf_token(client_as, annotator):
    html = client_as(annotator).get("/").content.decode()
    assert re.search(r"""<body hx-headers='\{"X-CSRFToken": "[A-Za-z0-9]{32,}"\}'>""", html)


def test_messages_are_shown(rf, annotator):
    request = rf.get("/")
    request.user = annotator
    SessionMiddleware(lambda r: None).process_request(request)
    MessageMiddleware(lambda r: None).process_request(request)
    messages.success(request, "Edge verified.")
    html = Template('{% extends "base.html" %}').render(RequestContext(request))
    assert '<li class="success">Edge verified.</li>' in html


def test_unknown_addresses_get_the_site_404_page(client_as, annotator):
    response = client_as(annotator).get("/no/such/page/")
    assert response.status_code == 404
    assert "No page lives at this address" in response.content.decode()


def test_the_server_error_page_renders_without_any_context():
    from django.template.loader import render_to_string

    html = render_to_string("500.html")
    assert "Something went wrong on our side" in html
    assert '<link rel="stylesheet" href="/static/css/kopa.css">' in html


def test_a_page_that_draws_charts_loads_plotly_from_our_static_files(rf, annotator):
    request = rf.get("/")
    request.user = annotator
    template = Template(
        '{% extends "base.html" %}{% block scripts %}{% include "partials/plotly.html" %}{% endblock %}'
    )
    html = template.render(RequestContext(request))
    assert '<script src="/static/vendor/plotly.min.js"></script>' in html
    assert html.index("plotly.min.js") > html.index("</main>")


# --- navigation ------------------------------------------------------------------------------------------


def test_links_whose_pages_do_not_exist_are_left_out(monkeypatch, annotator):
    monkeypatch.setattr(
        navigation,
        "PARTS",
        (Part("Catalog", ("apis:index",)), Part("Later", ("later:index",)), Part("Fallback", ("nope", "graphs:index"))),
    )
    links = nav_links(user=annotator, path="/")
    assert [(link["label"], link["url"]) for link in links] == [("Catalog", "/catalog/"), ("Fallback", "/graph/")]


def test_the_longest_matching_link_is_the_current_one(monkeypatch, annotator):
    monkeypatch.setattr(navigation, "PARTS", (Part("Bench", ("benchmarks:index",)), Part("Docs", ("api-docs",))))
    monkeypatch.setattr(
        navigation, "resolve_first", lambda names: {"benchmarks:index": "/bench/"}.get(names[0], "/bench/board/")
    )
    links = nav_links(user=annotator, path="/bench/board/2/")
    assert [link["current"] for link in links] == [False, True]


# --- home ------------------------------------------------------------------------------------------------


def test_home_shows_the_counts_by_part_with_links(client_as, annotator, reviewer, admin, outsider):
    html = client_as(annotator).get("/").content.decode()
    for app_label, url in [
        ("apis", "/catalog/"),
        ("graphs", "/graph/"),
        ("datasets", "/trajectories/"),
        ("benchmarks", "/bench/"),
        ("training", "/training/"),
    ]:
        card = re.search(rf'<li class="card" id="part-{app_label}">.*?</li>', html, re.S).group(0)
        assert f'<a href="{url}">' in card
    users = re.search(r'<li class="card" id="part-users">.*?</li>', html, re.S).group(0)
    numbers = re.findall(r'<td class="num">(\d+)</td>', users)
    assert numbers == ["1", "1", "1", "1"]


def test_home_counts_the_jobs_model_under_its_part(client_as, annotator):
    html = client_as(annotator).get("/").content.decode()
    card = re.search(r'<li class="card" id="part-kopa_site">.*?</li>', html, re.S).group(0)
    assert re.search(r'<th scope="row">Jobs</th><td class="num">0</td>', card)


def test_home_takes_a_fixed_number_of_queries(client_as, annotator, django_assert_num_queries):
    client = client_as(annotator)
    # session, user, the user's role, all model counts in one UNION, users by role
    with django_assert_num_queries(5):
        assert client.get("/").status_code == 200


# --- the part pages ---------------------------------------------------------------------------------------

EMPTY_STATES = [
    ("/catalog/", "API catalog", "No tools imported yet"),
    ("/graph/", "EDGE graph", "No candidate edges yet"),
    ("/trajectories/", "Trajectories and review", "No trajectories to review yet"),
    ("/bench/", "KOPA-Bench", "No evaluation runs yet"),
    ("/training/", "Training", "No training runs yet"),
]


@pytest.mark.parametrize(("url", "heading", "empty"), EMPTY_STATES)
def test_an_empty_part_says_so_without_made_up_numbers(client_as, annotator, url, heading, empty):
    from kopa_site.selectors import site_counts

    response = client_as(annotator).get(url)
    html = response.content.decode()
    assert response.status_code == 200
    assert f"<h1>{heading}</h1>" in html
    app_label = response.resolver_match.app_name
    if sum(row.count for row in site_counts(app_labels=(app_label,))) == 0:
        assert empty in html
    else:
        assert '<table aria-label="Rows per kind">' in html


def test_part_pages_need_a_login(client):
    for url, _, _ in EMPTY_STATES:
        assert client.get(url).status_code == 302
