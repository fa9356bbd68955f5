"""Run-level correctness: a run that never reached its model ends failed (with the reason) and stays off the
board; a run keeps the model's identity as it was; the registry refuses bad input; the model form."""

from __future__ import annotations

import socket

import pytest
from django.urls import reverse

from benchmarks.engine.backends.openai_http import OpenAIChatBackend, OpenAIConfig
from benchmarks.models import EvalRun, ModelEntry
from benchmarks.selectors import leaderboard
from benchmarks.services import (
    BenchConflict,
    BenchError,
    eval_run_create,
    eval_run_execute,
    eval_run_start,
    model_entry_create,
    model_entry_update,
)
from kopa_site.concurrency import version_token

pytestmark = [pytest.mark.django_db]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again when the block ends: connections are refused


@pytest.mark.slow
def test_a_run_whose_endpoint_is_unreachable_fails_with_its_reason_and_never_reaches_the_board(
    demo_tasks, executor_settings, oracle_run
):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    model = model_entry_create(name="Down 9B", backend=ModelEntry.Backend.OPENAI, base_url=url)
    run = eval_run_create(model=model, task_codes=["demo-holiday-oct", "demo-population-yeoksam"], seeds=[0])
    backend = OpenAIChatBackend(OpenAIConfig(url, "down", max_attempts=2, backoff_s=0.01))
    eval_run_execute(run=run, backend=backend)
    run.refresh_from_db()
    assert run.status == EvalRun.Status.FAILED
    assert "never reached" in run.error and "2 episode(s)" in run.error
    board = leaderboard()
    assert [row["run_id"] for row in board["rows"]] == [oracle_run.pk]
    with pytest.raises(BenchError, match="has failed; start a new run"):
        eval_run_start(run=run)


def test_a_run_keeps_the_models_identity_when_the_entry_changes_later(demo_tasks, oracle_model):
    base = model_entry_create(name="Qwen3.5-9B", backend="oracle", family="Qwen3.5", params_b=9)
    tuned = model_entry_create(
        name="Qwen3.5-9B-EDGE", backend="oracle", family="Qwen3.5", params_b=9, base_model=base, tuned_from_run=3
    )
    run = eval_run_create(model=tuned, task_codes=["demo-holiday-oct"])
    model_entry_update(entry=tuned, name="renamed", params_b=27, family="Other")
    run.refresh_from_db()
    snapshot = run.identity
    assert snapshot["name"] == "Qwen3.5-9B-EDGE" and snapshot["params_b"] == 9 and snapshot["family"] == "Qwen3.5"
    assert snapshot["tuned"] is True and snapshot["base_model"] == {"id": base.pk, "name": "Qwen3.5-9B"}
    assert snapshot["tuned_from_run"] == 3 and run.benchmark == "kopa" and run.benchmark_version.startswith("KOPA")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"params_b": -9}, "positive number of billions"),
        ({"params_b": 0}, "positive number of billions"),
        ({"tuned_from_run": 0}, "training run id"),
        ({"price_in_per_mtok": -1}, "not negative"),
        ({"backend": "openai"}, "needs a base_url"),
        ({"backend": "transformers"}, "needs a checkpoint"),
    ],
)
def test_the_registry_refuses_bad_input(db, fields, message):
    with pytest.raises(BenchError, match=message):
        model_entry_create(name="bad", **{"backend": "oracle", **fields})
    assert not ModelEntry.objects.filter(name="bad").exists()


def test_a_model_cannot_be_its_own_base(db):
    model = model_entry_create(name="loop", backend="oracle")
    with pytest.raises(BenchError, match="its own base"):
        model_entry_update(entry=model, base_model=model)


def test_a_model_without_endpoint_or_checkpoint_cannot_start_a_run(demo_tasks):
    model = model_entry_create(name="Remote", backend="openai", base_url="http://gpu:8000/v1")
    ModelEntry.objects.filter(pk=model.pk).update(base_url="")  # as an old row or a direct edit leaves it
    model.refresh_from_db()
    with pytest.raises(BenchError, match="neither an endpoint .base_url. nor a checkpoint"):
        eval_run_create(model=model, task_codes=["demo-holiday-oct"])
    assert not EvalRun.objects.exists()


def test_reviewers_add_and_edit_models_with_the_form_and_annotators_cannot(client_as, reviewer, annotator):
    assert client_as(annotator).get(reverse("benchmarks:model_new")).status_code == 403
    browser = client_as(reviewer)
    page = browser.get(reverse("benchmarks:model_new")).content.decode()
    assert 'name="family"' in page and 'name="base_model"' in page
    bad = browser.post(
        reverse("benchmarks:model_new"), {"name": "Neg", "backend": "oracle", "call_mode": "fc", "params_b": "-3"}
    )
    assert bad.status_code == 200 and "positive number of billions" in bad.content.decode()
    missing = browser.post(reverse("benchmarks:model_new"), {"name": "NoURL", "backend": "openai", "call_mode": "fc"})
    assert "needs a base_url" in missing.content.decode() and not ModelEntry.objects.filter(name="NoURL").exists()
    made = browser.post(
        reverse("benchmarks:model_new"),
        {"name": "Qwen3.5-9B", "backend": "oracle", "call_mode": "fc", "family": "Qwen3.5", "params_b": "9"},
    )
    assert made.status_code == 302
    entry = ModelEntry.objects.get(name="Qwen3.5-9B")
    assert entry.family == "Qwen3.5" and entry.params_b == 9 and entry.created_by == reviewer
    edit = browser.post(
        reverse("benchmarks:model_edit", args=[entry.pk]),
        {
            "name": "Qwen3.5-9B",
            "backend": "oracle",
            "call_mode": "fc",
            "family": "Qwen3.5",
            "params_b": "9.5",
            "version": version_token(entry),
        },
    )
    assert edit.status_code == 302
    entry.refresh_from_db()
    assert entry.params_b == 9.5
    listing = browser.get(reverse("benchmarks:models")).content.decode()
    assert "Add a model" in listing and "Qwen3.5" in listing


def test_the_model_form_shows_a_refused_save_above_the_form_and_keeps_what_was_typed(client_as, reviewer):
    response = client_as(reviewer).post(
        reverse("benchmarks:model_new"), {"name": "Remote 9B", "backend": "openai", "call_mode": "fc", "notes": "typed"}
    )
    assert response.status_code == 200 and response.context["stored_now"] is None
    assert response.context["form"].non_field_errors() == [
        "an openai model needs a base_url (an endpoint ending in /v1) or a checkpoint for vLLM"
    ]
    assert "typed</textarea>" in response.content.decode()
    assert not ModelEntry.objects.exists()


def test_a_refused_run_start_says_why_and_starts_nothing(client_as, reviewer, oracle_model):
    from django.contrib.messages import get_messages

    browser = client_as(reviewer)
    for form, reason in (
        ({"model": ""}, "Choose a model; nothing was started."),
        (
            {"model": oracle_model.pk, "concurrency": "many"},
            "Seeds, concurrency and max steps are whole numbers; nothing was started.",
        ),
        (
            {"model": oracle_model.pk, "benchmark": "bfcl", "limit": "ten"},
            "BFCL entries per category is a whole number; nothing was started.",
        ),
    ):
        response = browser.post(reverse("benchmarks:run_start"), form)
        assert response.status_code == 302 and response.url == reverse("benchmarks:runs")
        assert [str(m) for m in get_messages(response.wsgi_request)][-1] == reason
    assert not EvalRun.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_edits_of_different_fields_of_one_model_entry_both_stay():
    """Issue 17, point 8: a full save() after setattr wrote back what each editor had read."""

    entry = model_entry_create(name="edits", backend="oracle")
    first, second = ModelEntry.objects.get(pk=entry.pk), ModelEntry.objects.get(pk=entry.pk)
    model_entry_update(entry=first, notes="from the first editor")
    model_entry_update(entry=second, family="Qwen3")
    stored = ModelEntry.objects.get(pk=entry.pk)
    assert (stored.notes, stored.family) == ("from the first editor", "Qwen3")

    read = ModelEntry.objects.get(pk=entry.pk)
    model_entry_update(entry=ModelEntry.objects.get(pk=entry.pk), license="MIT")
    with pytest.raises(BenchConflict, match="changed by someone else"):
        model_entry_update(entry=read, license="Apache-2.0", expected_version=read.updated_at)
    assert ModelEntry.objects.get(pk=entry.pk).license == "MIT"


def _form_of(entry: ModelEntry, **changes) -> dict:
    return {"name": entry.name, "backend": entry.backend, "call_mode": entry.call_mode, **changes}


def test_the_model_form_refuses_a_save_over_a_change_made_since_it_was_opened_and_shows_both(client_as, reviewer):
    """Issue 17, point 8: the page carries the version it was read at; a stale save is a 409 that loses nothing."""
    entry = model_entry_create(name="Shared 9B", backend="oracle", family="Qwen3")
    browser = client_as(reviewer)
    page = browser.get(reverse("benchmarks:model_edit", args=[entry.pk])).content.decode()
    read_at = version_token(entry)
    assert f'name="version" value="{read_at}"' in page

    model_entry_update(entry=ModelEntry.objects.get(pk=entry.pk), family="Qwen3.5")  # someone else, meanwhile
    stale = browser.post(
        reverse("benchmarks:model_edit", args=[entry.pk]),
        _form_of(entry, family="Qwen3", notes="my note", version=read_at),
    )
    body = stale.content.decode()
    assert stale.status_code == 409 and "changed by someone else" in body and "reload" in body.lower()
    assert "Qwen3.5" in body and "my note" in body  # what is stored now, and what this editor typed
    stored = ModelEntry.objects.get(pk=entry.pk)
    assert (stored.family, stored.notes) == ("Qwen3.5", "")

    fresh = browser.post(
        reverse("benchmarks:model_edit", args=[entry.pk]),
        _form_of(entry, family="Qwen3.5", notes="my note", version=version_token(stored)),
    )
    assert fresh.status_code == 302 and ModelEntry.objects.get(pk=entry.pk).notes == "my note"

    for damaged in ("", "yesterday", "2026-01-01T00:00:00"):
        refused = browser.post(
            reverse("benchmarks:model_edit", args=[entry.pk]), _form_of(entry, notes="x", version=damaged)
        )
        assert refused.status_code == 200 and "reload the page" in refused.content.decode()
    assert ModelEntry.objects.get(pk=entry.pk).notes == "my note"


def test_the_api_refuses_a_change_on_a_stale_version_with_409(reviewer_api):
    entry = model_entry_create(name="Api 9B", backend="oracle")
    url = reverse("modelentry-detail", args=[entry.pk])
    read = reviewer_api.get(url).json()
    assert read["version"] == version_token(entry) and "expected_version" not in read

    saved = reviewer_api.patch(url, {"org": "KOPA", "expected_version": read["version"]}, format="json")
    assert saved.status_code == 200 and saved.json()["version"] != read["version"]
    stale = reviewer_api.patch(url, {"license": "MIT", "expected_version": read["version"]}, format="json")
    assert stale.status_code == 409 and "changed by someone else" in stale.json()["detail"]
    assert ModelEntry.objects.get(pk=entry.pk).license == ""

    bad = reviewer_api.patch(url, {"license": "MIT", "expected_version": "yesterday"}, format="json")
    assert bad.status_code == 400 and "expected_version" in bad.json()
    unversioned = reviewer_api.patch(url, {"license": "MIT"}, format="json")  # no version: only this field is written
    assert unversioned.status_code == 200 and ModelEntry.objects.get(pk=entry.pk).org == "KOPA"
