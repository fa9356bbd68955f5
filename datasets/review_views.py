"""Pages of the review console: the queue (filters, next item for me, bulk actions), the keyboard-first review
screen (decide, edit, re-execute, history, restore, undo, adjudicate), dataset versions, guidelines and the
dashboard. Every write goes through datasets.review; a refused action comes back as a message, a conflict as the
conflict screen (HTTP 409) with both versions."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import QueryDict, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from apis.engine.raw_body import body_kind, pretty_body
from apis.models import ApiCall
from datasets import review
from datasets.engine.jsondiff import json_diff
from datasets.filtersets import TrajectoryFilterSet
from datasets.models import REJECT_REASONS, DatasetVersion, ReviewDecision, Trajectory
from datasets.selectors import (
    decisions_of,
    review_dashboard,
    review_list,
    revisions_of,
    trajectory_detail,
    version_jsonl_lines,
    version_list,
)
from graphs.engine.walk import JUNCTIONS
from kopa_site.concurrency import version_from_token, version_token
from kopa_site.errors import parsed, refused_with, refuses_to
from kopa_site.page_helpers import query_without_page, require_role
from kopa_site.roles import ADMIN, REVIEWER, has_role

PAGE_SIZE = 50
PAST = {"approve": "approved", "reject": "rejected"}
WAITING_CAP = 1000
OBSERVATION_ROWS = 20
SHORTCUTS = (
    ("a", _("approve (or, for a reviewer on a disputed item, adjudicate: approve)")),
    ("r", _("reject: pick a reason with 1-6, Enter to send")),
    ("e", _("edit the request, answer or arguments (Ctrl+Enter saves)")),
    ("c", _("claim this item (when it is free)")),
    ("x", _("re-execute a call: jumps to the first call's arguments; Ctrl+Enter runs it")),
    ("j", _("next item of my queue")),
    ("k", _("previous item I decided")),
    ("u", _("undo my last decision or edit on this item")),
    ("h", _("history of this item")),
    ("g", _("guidelines")),
    ("?", _("this help")),
    ("Esc", _("close a dialog")),
)


def _filters(request) -> str:
    """The queue's filter query, carried from page to page: the query string on pages, a hidden field in forms."""
    if request.method == "POST":
        return request.POST.get("filters", "")
    query = request.GET.copy()
    for name in ("page", "diff"):
        query.pop(name, None)
    return query.urlencode()


def _filtered(query: str):
    return TrajectoryFilterSet(QueryDict(query), queryset=Trajectory.objects.all()).qs


def _screen_url(pk: int, filters: str, **extra) -> str:
    url = reverse("datasets:review_item", args=[pk])
    parts = [p for p in (filters, "&".join(f"{k}={v}" for k, v in extra.items())) if p]
    return url + ("?" + "&".join(parts) if parts else "")


def _with_filters(url_name: str, filters: str) -> str:
    return reverse(url_name) + (f"?{filters}" if filters else "")


def _back_to(url_name: str):
    """Where a refused action goes back to (`refuses_to`): the list page, with the filters its form carried."""
    return lambda request: _with_filters(url_name, request.POST.get("filters", ""))


def _next(request, filters: str):
    """Claim the next item of the user's queue (with the filters) and open it, or go back to the queue."""
    got = review.trajectory_claim(user=request.user, queryset=_filtered(filters))
    if got is None:
        messages.info(request, gettext("Your queue is empty for these filters: nothing is waiting for you."))
        return redirect(_with_filters("datasets:review", filters))
    return redirect(_screen_url(got.pk, filters))


# --- Queue ------------------------------------------------------------------------------------------------


@login_required
@require_GET
def queue_page(request):
    require_role(request)
    filterset = TrajectoryFilterSet(request.GET, queryset=review_list())
    page = Paginator(filterset.qs, PAGE_SIZE).get_page(request.GET.get("page"))
    filters = query_without_page(request)
    # Counted up to a cap: the exact number of a large queue costs a scan and changes nothing for the annotator.
    waiting = review.queue_for(user=request.user, queryset=filterset.qs)[: WAITING_CAP + 1].count()
    context = {
        "filterset": filterset,
        "page": page,
        "query": filters,
        "values": request.GET,
        "selected_statuses": request.GET.getlist("status"),
        "status_choices": Trajectory.Status.choices,
        "junctions": JUNCTIONS,
        "generators": Trajectory.Generator.choices,
        "waiting": min(waiting, WAITING_CAP),
        "waiting_more": waiting > WAITING_CAP,
        "held": Trajectory.objects.filter(held_by=request.user, held_until__gte=timezone.now()).first(),
        "policy": review.review_policy(),
        "is_reviewer": has_role(request.user, REVIEWER),
        "reasons": REJECT_REASONS,
        "now": timezone.now(),
    }
    template = "datasets/_review_table.html" if request.headers.get("HX-Request") else "datasets/review_queue.html"
    return render(request, template, context)


@login_required
@require_POST
@refuses_to(_back_to("datasets:review"))
def queue_next(request):
    require_role(request)
    return _next(request, request.POST.get("filters", ""))


@login_required
@refuses_to(_back_to("datasets:review"))
def bulk_decide(request):
    """Reviewers apply one decision to the filtered set: GET shows how many items it would change, POST carries
    the count they confirmed (a different count now changes nothing)."""
    require_role(request, REVIEWER)
    if request.method == "GET":
        filters = query_without_page(request)
        actionable = (
            _filtered(filters).filter(status__in=[Trajectory.Status.PENDING_REVIEW, Trajectory.Status.DISPUTED]).count()
        )
        return render(
            request,
            "datasets/bulk_confirm.html",
            {"filters": filters, "actionable": actionable, "reasons": REJECT_REASONS},
        )
    filters = request.POST.get("filters", "")
    expected = parsed(
        int,
        request.POST.get("expected_count", ""),
        refusal=gettext("Confirm the number of items first; nothing was changed."),
    )
    decision = request.POST.get("decision", "")
    done = review.trajectory_bulk_decide(
        queryset=_filtered(filters),
        user=request.user,
        decision=decision,
        expected_count=expected,
        reason=request.POST.get("reason", ""),
        note=request.POST.get("note", ""),
    )
    messages.success(
        request, gettext("%(done)s item(s) marked %(value)s.") % {"done": done, "value": PAST.get(decision, decision)}
    )
    return redirect(_with_filters("datasets:review", filters))


# --- The review screen ------------------------------------------------------------------------------------


def _labels(step) -> dict[str, str]:
    fields = (step.tool.record_fields if step.tool else None) or []
    return {f.get("path"): f.get("description") or "" for f in fields if isinstance(f, dict) and f.get("path")}


def observation_table(observation: dict, labels: dict[str, str], units: dict[str, str]) -> dict[str, Any]:
    """The records as a table: one column per field (first seen order), headed by its label and unit."""
    records = [r for r in (observation or {}).get("records") or [] if isinstance(r, dict)]
    columns: list[str] = []
    for record in records[:OBSERVATION_ROWS]:
        for key in record:
            if key not in columns:
                columns.append(key)
    header = []
    for key in columns:
        label = labels.get(key) or ""
        unit = units.get(key) or ""
        header.append({"field": key, "label": label, "unit": unit})
    rows = [[_cell(record.get(key)) for key in columns] for record in records[:OBSERVATION_ROWS]]
    return {
        "header": header,
        "rows": rows,
        "shown": len(rows),
        "count": (observation or {}).get("record_count", len(records)),
        "total": (observation or {}).get("total_count"),
    }


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _responses(calls) -> dict[int, dict[str, str]]:
    """Each call's response body exactly as the API sent it (XML or JSON), by ApiCall id, in one query."""
    ids = [call.api_call_id for call in calls if call.api_call_id]
    bodies = ApiCall.objects.filter(pk__in=ids).only("id", "body_gz", "content_type")
    out = {}
    for api_call in bodies:
        text = api_call.body_text
        if text:
            out[api_call.pk] = {"kind": body_kind(text), "text": pretty_body(text), "type": api_call.content_type}
    return out


def _steps(trajectory: Trajectory, calls) -> list[dict[str, Any]]:
    units = trajectory.units or {}
    responses = _responses(calls)
    out = []
    for step in trajectory.steps.all():
        labels = _labels(step)
        rows = []
        for call in calls:
            if call.step_id != step.pk:
                continue
            by_param = {b.get("param"): b for b in call.bindings or [] if isinstance(b, dict)}
            arguments = [
                {"param": name, "value": _cell(value), "binding": by_param.get(name)}
                for name, value in (call.arguments or {}).items()
            ]
            rows.append(
                {
                    "call": call,
                    "arguments": arguments,
                    "arguments_json": json.dumps(call.arguments, ensure_ascii=False, indent=1),
                    "table": observation_table(call.observation, labels, units),
                    "raw": json.dumps(call.observation, ensure_ascii=False, indent=1),
                    "response": responses.get(call.api_call_id),
                }
            )
        out.append({"step": step, "calls": rows})
    return out


def _previous_pk(request, trajectory: Trajectory) -> int | None:
    mine = ReviewDecision.objects.filter(user=request.user).exclude(trajectory_id=trajectory.pk)
    own = ReviewDecision.objects.filter(user=request.user, trajectory_id=trajectory.pk).order_by("-created_at").first()
    if own is not None:
        mine = mine.filter(created_at__lt=own.created_at)
    found = mine.order_by("-created_at", "-id").values_list("trajectory_id", flat=True).first()
    return found


def _history(trajectory: Trajectory) -> list[dict[str, Any]]:
    out = []
    for revision in revisions_of(trajectory)[:50]:
        out.append({"revision": revision, "changes": json_diff(revision.before, revision.after, limit=60)})
    return out


def _diff(trajectory: Trajectory, revision_pk: str | None) -> dict[str, Any] | None:
    """Each re-executed call's new observation (and arguments) against the stored ones, from the revision that
    re-executed them; calls that came back the same are left out."""
    if not revision_pk or not revision_pk.isdigit():
        return None
    revision = trajectory.revisions.filter(pk=int(revision_pk)).first()
    if revision is None:
        return None
    before = {c["seq"]: c for c in revision.before.get("calls", [])}
    calls = [
        {
            "seq": call["seq"],
            "arguments": json_diff(before[call["seq"]]["arguments"], call["arguments"]),
            "changes": json_diff(before[call["seq"]]["observation"], call["observation"], limit=200),
        }
        for call in revision.after.get("calls", [])
        if call["seq"] in before and before[call["seq"]] != call
    ]
    return {"revision": revision, "seq": calls[0]["seq"] if calls else None, "calls": calls}


def _screen_context(request, trajectory: Trajectory, **extra) -> dict[str, Any]:
    calls = list(trajectory.calls.all())
    now = timezone.now()
    decisions = list(decisions_of(trajectory))
    mine = next(
        (d for d in reversed(decisions) if d.user_id == request.user.pk and d.retracted_at is None),
        None,
    )
    held = trajectory.held_by_id == request.user.pk and trajectory.held_until and trajectory.held_until >= now
    adjudicate = trajectory.status == Trajectory.Status.DISPUTED and has_role(request.user, REVIEWER)
    filters = _filters(request)
    return {
        "t": trajectory,
        "steps": _steps(trajectory, calls),
        "calls": calls,
        "last_seq": calls[-1].seq if calls else 0,
        "decisions": decisions,
        "mine": mine,
        "held": held,
        "lease_expired": trajectory.held_by_id == request.user.pk and not held,
        "held_by_other": trajectory.held_by_id not in (None, request.user.pk)
        and trajectory.held_until
        and trajectory.held_until >= now,
        "can_decide": held or adjudicate,
        "adjudicate": adjudicate,
        "filters": filters,
        "previous_pk": _previous_pk(request, trajectory),
        "history": _history(trajectory),
        "diff": _diff(trajectory, request.GET.get("diff")),
        "reasons": REJECT_REASONS,
        "shortcuts": SHORTCUTS,
        "filter_results": [
            (stage, trajectory.filters.get(stage) or {}) for stage in ("format", "execution", "semantic")
        ],
        "is_reviewer": has_role(request.user, REVIEWER),
        **extra,
    }


@login_required
@require_GET
def review_screen(request, pk: int):
    require_role(request)
    trajectory = get_object_or_404(trajectory_detail().select_related("held_by"), pk=pk)
    return render(request, "datasets/review_screen.html", _screen_context(request, trajectory))


def _trajectory(pk: int) -> Trajectory:
    return get_object_or_404(Trajectory.objects.defer("plan", "facts", "schemas"), pk=pk)


def _conflict(request, trajectory: Trajectory, exc: review.EditConflict):
    context = _screen_context(request, trajectory, conflict=exc, changes=json_diff(exc.theirs, exc.mine, limit=200))
    context["mine_calls"] = {
        c["seq"]: json.dumps(c["arguments"], ensure_ascii=False, indent=1) for c in exc.mine["calls"]
    }
    return render(request, "datasets/review_conflict.html", context, status=409)


def _screen_refused(request, exc: Exception, pk: int, **kwargs):
    """A refused action on the review screen: a stale edit gets the conflict screen (409) with both versions;
    anything else goes back to the screen with the reason as a message."""
    if isinstance(exc, review.EditConflict):
        return _conflict(request, get_object_or_404(trajectory_detail(), pk=pk), exc)
    messages.error(request, str(exc))
    return redirect(_screen_url(pk, request.POST.get("filters", "")))


@login_required
@require_POST
@refused_with(_screen_refused)
def review_decide(request, pk: int, decision: str):
    """Approve or reject (an annotator holding the item; a reviewer on a disputed one adjudicates), then on to the
    next item of the queue."""
    require_role(request)
    trajectory = _trajectory(pk)
    filters = request.POST.get("filters", "")
    reason, note = request.POST.get("reason", ""), request.POST.get("note", "")
    if trajectory.status == Trajectory.Status.DISPUTED:
        review.trajectory_adjudicate(
            trajectory=trajectory, user=request.user, decision=decision, reason=reason, note=note
        )
        messages.success(
            request, gettext("Trajectory #%(pk)s adjudicated: %(decision)s.") % {"pk": pk, "decision": decision}
        )
        return redirect(_screen_url(pk, filters))
    if decision == ReviewDecision.Decision.APPROVE:
        review.trajectory_approve(trajectory=trajectory, user=request.user, note=note)
    else:
        review.trajectory_reject(trajectory=trajectory, user=request.user, reason=reason, note=note)
    messages.success(
        request,
        gettext("Trajectory #%(pk)s: %(value)s. Press k to go back, u there to undo.")
        % {"pk": pk, "value": PAST.get(decision, decision)},
    )
    return _next(request, filters)


@login_required
@require_POST
@refused_with(_screen_refused)
def review_claim(request, pk: int):
    require_role(request)
    review.trajectory_claim(user=request.user, trajectory=_trajectory(pk))
    return redirect(_screen_url(pk, request.POST.get("filters", "")))


@login_required
@require_POST
def review_release(request, pk: int):
    require_role(request)
    review.trajectory_release(trajectory=_trajectory(pk), user=request.user)
    messages.info(request, gettext("Trajectory #%(pk)s went back to the queue.") % {"pk": pk})
    return redirect(_with_filters("datasets:review", request.POST.get("filters", "")))


@login_required
@require_POST
@refused_with(_screen_refused)
def review_undo(request, pk: int):
    require_role(request)
    done = review.trajectory_undo(trajectory=_trajectory(pk), user=request.user)
    messages.success(request, done[0].upper() + done[1:] + ".")
    return redirect(_screen_url(pk, request.POST.get("filters", "")))


def _edit_refused(request, exc: Exception, pk: int):
    """An edit not saved: a stale one gets the conflict screen (409); otherwise the screen again with the edit
    panel open and the posted text in it (400), so nothing typed is lost."""
    trajectory = get_object_or_404(trajectory_detail().select_related("held_by"), pk=pk)
    if isinstance(exc, review.EditConflict):
        return _conflict(request, trajectory, exc)
    messages.error(request, f"{exc}; nothing was saved.")
    context = _screen_context(request, trajectory, edit_open=True, posted=request.POST)
    return render(request, "datasets/review_screen.html", context, status=400)


@login_required
@require_POST
@refused_with(_edit_refused)
def review_edit(request, pk: int):
    """Save an edit (request, answer, short answer, call arguments as JSON) against the version the form showed."""
    require_role(request)
    trajectory = get_object_or_404(trajectory_detail().select_related("held_by"), pk=pk)
    filters = request.POST.get("filters", "")
    expected = request.POST.get("expected_version", "")
    if not expected.isdecimal():  # nothing to edit against: the screen again, reloaded (not the edit panel)
        messages.error(request, gettext("The form lost its version number; reload the item. Nothing was saved."))
        return redirect(_screen_url(pk, filters))
    arguments: dict[int, Any] = {}
    current = {c.seq: c.arguments for c in trajectory.calls.all()}
    for seq, stored in current.items():
        text = request.POST.get(f"arguments_{seq}")
        if text is None:
            continue
        value = parsed(json.loads, text, refusal=f"The arguments of call {seq} are not valid JSON (%(error)s)")
        if value != stored:
            arguments[seq] = value
    fields = {}
    for name in ("request", "answer", "short_answer"):
        value = request.POST.get(name)
        if value is not None and value.strip() != getattr(trajectory, name):
            fields[name] = value
    if not fields and not arguments:
        messages.info(request, gettext("Nothing changed."))
        return redirect(_screen_url(pk, filters))
    revision = review.trajectory_edit(
        trajectory=trajectory,
        user=request.user,
        expected_version=int(expected),
        arguments=arguments or None,
        note=request.POST.get("note", ""),
        **fields,
    )
    messages.success(request, gettext("Saved as version %(version)s.") % {"version": revision.version})
    return redirect(_screen_url(pk, filters))


@login_required
@require_POST
@refused_with(_screen_refused)
def review_reexecute(request, pk: int, seq: int):
    """Run one call again through the executor (sandbox), with the arguments in the form (and with rest=1 every
    later call too), and show the diff."""
    require_role(request)
    trajectory = _trajectory(pk)
    filters = request.POST.get("filters", "")
    unreadable = gettext("The arguments are not valid JSON (or the version is missing); nothing ran.")
    expected = parsed(int, request.POST.get("expected_version", ""), refusal=unreadable)
    arguments = parsed(json.loads, request.POST.get("arguments", "") or "null", refusal=unreadable)
    rest = request.POST.get("rest") == "1"
    revision, _changes = review.trajectory_call_reexecute(
        trajectory=trajectory,
        user=request.user,
        seq=seq,
        expected_version=expected,
        arguments=arguments,
        rest=rest,
    )
    done = (
        gettext("Call %(seq)s and the calls after it ran again; saved as version %(version)s.")
        if rest
        else gettext("Call %(seq)s ran again; saved as version %(version)s.")
    )
    messages.success(request, done % {"seq": seq, "version": revision.version})
    return redirect(_screen_url(pk, filters, diff=revision.pk) + f"#call-{seq}")


@login_required
@require_POST
@refused_with(_screen_refused)
def review_restore(request, pk: int):
    require_role(request)
    trajectory = _trajectory(pk)
    which = gettext("Which version? Nothing was restored.")
    revision = review.trajectory_restore(
        trajectory=trajectory,
        user=request.user,
        version=parsed(int, request.POST.get("version", "0"), refusal=which),
        expected_version=parsed(int, request.POST.get("expected_version", "0"), refusal=which),
    )
    messages.success(request, gettext("Restored as version %(version)s.") % {"version": revision.version})
    return redirect(_screen_url(pk, request.POST.get("filters", "")))


# --- Dataset versions -------------------------------------------------------------------------------------


@login_required
@require_GET
def version_list_page(request):
    require_role(request)
    filters = query_without_page(request)
    approved = _filtered(filters).filter(status=Trajectory.Status.APPROVED).count()
    return render(
        request,
        "datasets/version_list.html",
        {
            "versions": version_list()[:200],
            "filters": filters,
            "approved": approved,
            "can_freeze": has_role(request.user, REVIEWER),
        },
    )


@login_required
@require_POST
@refuses_to(_back_to("datasets:versions"))
def version_freeze(request):
    require_role(request, REVIEWER)
    filters = request.POST.get("filters", "")
    version = review.dataset_version_freeze(
        name=request.POST.get("name", ""),
        queryset=_filtered(filters),
        user=request.user,
        filter_params={k: v if len(v) > 1 else v[0] for k, v in QueryDict(filters).lists()},
        description=request.POST.get("description", ""),
    )
    messages.success(
        request,
        gettext("Froze %(item_count)s approved trajectories as %(name)s.")
        % {"item_count": version.item_count, "name": version.name},
    )
    return redirect("datasets:version", pk=version.pk)


@login_required
@require_GET
def version_detail(request, pk: int):
    require_role(request)
    version = get_object_or_404(version_list(), pk=pk)
    sheet = version.datasheet or {}
    tables = [
        (title, sorted(((str(k), int(v)) for k, v in (sheet.get(key) or {}).items()), key=lambda kv: (-kv[1], kv[0])))
        for title, key in (
            ("Providers", "providers"),
            ("Junction types", "junctions"),
            ("Tools", "tools"),
            ("Generators", "generators"),
        )
    ]
    lengths = sorted(((int(k), v) for k, v in (sheet.get("lengths") or {}).items()))
    return render(
        request,
        "datasets/version_detail.html",
        {
            "version": version,
            "tables": tables,
            "lengths": lengths,
            "agreement": sheet.get("agreement") or {},
            "can_export": has_role(request.user, REVIEWER),
            "items": version.items.order_by("id").values_list("trajectory_id", "trajectory_version", "item__request")[
                :50
            ],
        },
    )


@login_required
@require_POST
@refuses_to("datasets:version")
def version_export(request, pk: int):
    require_role(request, REVIEWER)
    version = get_object_or_404(DatasetVersion, pk=pk)
    job = review.dataset_version_export_start(version=version, user=request.user)
    messages.success(
        request, gettext("Export started as job #%(job)s; the folder appears here when it finishes.") % {"job": job.pk}
    )
    return redirect("datasets:version", pk=pk)


@login_required
@require_GET
def version_download(request, pk: int):
    """The frozen items as OpenAI chat JSONL, streamed (the same records the export writes, without a split)."""
    require_role(request)
    version = get_object_or_404(DatasetVersion, pk=pk)
    response = StreamingHttpResponse(version_jsonl_lines(version), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{version.name}.jsonl"'
    return response


# --- Guidelines and dashboard -----------------------------------------------------------------------------


def render_markdown(text: str) -> str:
    """Guidelines Markdown as HTML: raw HTML in the text is escaped and unsafe links are refused (markdown-it)."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # pragma: no cover - markdown-it-py is pinned in requirements.txt
        return mark_safe(escape(text).replace("\n", "<br>"))
    return mark_safe(MarkdownIt("commonmark", {"html": False}).enable("table").render(text))


def _guidelines_refused(request, exc: Exception):
    """A change not saved: over someone else's later one, both versions on one page (the stored one above, theirs
    in the box, 409); otherwise back to the page with the reason."""
    if isinstance(exc, review.PolicyConflict):
        messages.error(request, f"Not saved: {exc}")
        return _guidelines(request, draft=request.POST)
    messages.error(request, gettext("Not saved: %(exc)s") % {"exc": exc})
    return redirect("datasets:guidelines")


def _whole(text: str | None) -> int | None:
    """A policy number from the form (empty: unchanged); the service checks its range."""
    return parsed(int, text) if text else None


@login_required
@refused_with(_guidelines_refused)
def guidelines_page(request):
    require_role(request)
    if request.method == "POST":
        require_role(request, ADMIN)
        review.review_policy_update(
            user=request.user,
            guidelines=request.POST.get("guidelines", ""),
            overlap=_whole(request.POST.get("overlap")),
            lease_minutes=_whole(request.POST.get("lease_minutes")),
            expected_version=parsed(version_from_token, request.POST.get("version", "")),
        )
        messages.success(request, gettext("Guidelines saved."))
        return redirect("datasets:guidelines")
    return _guidelines(request)


def _guidelines(request, *, draft=None):
    policy = review.review_policy()
    return render(
        request,
        "datasets/guidelines.html",
        {
            "policy": policy,
            "draft": draft,
            "version": version_token(policy),
            "html": render_markdown(policy.guidelines or ""),
            "can_edit": has_role(request.user, ADMIN),
            "reasons": REJECT_REASONS,
            "shortcuts": SHORTCUTS,
        },
        status=409 if draft is not None else 200,
    )


@login_required
@require_GET
def dashboard_page(request):
    require_role(request)
    data = review_dashboard()
    reasons = data["reasons"]
    reason_rows = [
        (reasons["labels"].get(reason, reason or "(none)"), [per_day.get(day, 0) for day in reasons["days"]])
        for reason, per_day in sorted(reasons["reasons"].items())
    ]
    return render(request, "datasets/dashboard.html", {**data, "reason_rows": reason_rows})
