"""Writes of the review console: the queue's leases, decisions (with overlap and adjudication), edits as revisions
under optimistic concurrency, restore and undo, re-executing a call, bulk decisions and frozen dataset versions.

Claiming is a conditional UPDATE on the trajectory row (held by nobody, or by a lease that has run out), so two
annotators never hold one item; on PostgreSQL the candidates are also read with SKIP LOCKED. Every content change
bumps `Trajectory.version` with a conditional UPDATE on the version the editor saw: a stale edit raises
EditConflict carrying both versions and writes nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from datasets.engine import export as export_engine
from datasets.engine.jsondiff import json_diff
from datasets.models import (
    REJECT_REASONS,
    DatasetVersion,
    DatasetVersionItem,
    ReviewDecision,
    ReviewPolicy,
    Trajectory,
    TrajectoryCall,
    TrajectoryRevision,
)
from kopa_site.errors import DomainError
from kopa_site.roles import ANNOTATOR, REVIEWER, has_role

REASONS = dict(REJECT_REASONS)
CLAIM_ROUNDS = 50
CLAIM_BATCH = 8
FREEZE_BATCH = 500
REVIEW_SOURCE = "review"
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")


class ReviewError(DomainError):
    """A review action that cannot be done as asked; the text says why."""


class ReviewPermissionError(ReviewError):
    status_code = 403


class LeaseError(ReviewError):
    """The item is not (or no longer) held by the one deciding it."""

    status_code = 409


class PolicyConflict(ReviewError):
    """The review policy changed since the admin opened it; nothing was saved."""

    status_code = 409


class EditConflict(ReviewError):
    """Someone saved the trajectory after the editor loaded it; both versions travel with the error."""

    status_code = 409

    def __init__(self, *, trajectory_id: int, expected_version: int, current_version: int, mine: dict, theirs: dict):
        super().__init__(
            f"trajectory #{trajectory_id} changed since you opened it (you edited version {expected_version}, "
            f"it is now version {current_version}); nothing was saved"
        )
        self.trajectory_id = trajectory_id
        self.expected_version = expected_version
        self.current_version = current_version
        self.mine = mine
        self.theirs = theirs

    def as_dict(self) -> dict[str, Any]:
        return {
            "detail": str(self),
            "expected_version": self.expected_version,
            "current_version": self.current_version,
            "mine": self.mine,
            "theirs": self.theirs,
        }


def _require(user, role: str, what: str) -> None:
    if not has_role(user, role):
        raise ReviewPermissionError(f"{what} needs the {role} role or higher")


def review_policy() -> ReviewPolicy:
    policy = ReviewPolicy.objects.order_by("pk").first()
    return policy if policy is not None else ReviewPolicy.objects.create()


def review_policy_update(
    *, user, overlap: int | None = None, lease_minutes: int | None = None, guidelines=None, expected_version=None
):
    """Admins set the overlap, the lease length and the guidelines. Only the given fields are written; with
    expected_version (the `updated_at` the editor read) a change made on a stale read raises PolicyConflict."""
    from kopa_site.concurrency import StaleEdit, save_changed
    from kopa_site.roles import ADMIN

    _require(user, ADMIN, "Changing the review policy")
    policy = review_policy()
    changes: dict[str, Any] = {"updated_by": user}
    if overlap is not None:
        if not 1 <= int(overlap) <= 10:
            raise ReviewError("overlap must be between 1 and 10 annotators")
        changes["overlap"] = int(overlap)
    if lease_minutes is not None:
        if not 1 <= int(lease_minutes) <= 24 * 60:
            raise ReviewError("the lease must be between 1 minute and 24 hours")
        changes["lease_minutes"] = int(lease_minutes)
    if guidelines is not None:
        changes["guidelines"] = str(guidelines)
    try:
        return save_changed(policy, changes, expected_version=expected_version)
    except StaleEdit:
        raise PolicyConflict(
            "someone changed the guidelines or the policy since you opened this page; nothing was saved. "
            "What is stored now is shown above, your text is still in the box: merge and save again"
        ) from None


# --- The queue --------------------------------------------------------------------------------------------


def _free_for(user, now) -> Q:
    return Q(held_by__isnull=True) | Q(held_until__lt=now) | Q(held_by=user)


def queue_for(*, user, queryset: QuerySet[Trajectory] | None = None, overlap: int | None = None, now=None):
    """The items `user` may claim now: pending review, short of the overlap, not decided by them, not held by
    anyone else (or held by a lease that ran out); oldest first."""
    now = now or timezone.now()
    overlap = overlap or review_policy().overlap
    mine = ReviewDecision.objects.filter(
        user=user, kind=ReviewDecision.Kind.ANNOTATION, retracted_at__isnull=True
    ).values("trajectory_id")
    base = queryset if queryset is not None else Trajectory.objects.all()
    return (
        base.filter(status=Trajectory.Status.PENDING_REVIEW, decision_count__lt=overlap)
        .filter(_free_for(user, now))
        .exclude(pk__in=mine)
        .order_by("id")
    )


def _lease(user, now, policy: ReviewPolicy) -> dict[str, Any]:
    return {"held_by": user, "held_since": now, "held_until": now + timedelta(minutes=policy.lease_minutes)}


def _release_others(user, keep: int) -> None:
    Trajectory.objects.filter(held_by=user).exclude(pk=keep).update(held_by=None, held_since=None, held_until=None)


def trajectory_claim(
    *, user, trajectory: Trajectory | None = None, queryset: QuerySet[Trajectory] | None = None
) -> Trajectory | None:
    """Lease the next item of the queue (or the given one) to `user`; None when the queue is empty.

    An annotator holds one item at a time: claiming another returns the previous one to the queue.
    """
    _require(user, ANNOTATOR, "Claiming an item")
    policy = review_policy()
    now = timezone.now()
    if trajectory is not None:
        won = (
            queue_for(user=user, overlap=policy.overlap, now=now)
            .filter(pk=trajectory.pk)
            .update(**_lease(user, now, policy))
        )
        if not won:
            raise LeaseError(
                f"trajectory #{trajectory.pk} cannot be claimed: it is held by someone else, not awaiting review, "
                "already decided by you or has its decisions"
            )
        _release_others(user, trajectory.pk)
        return Trajectory.objects.get(pk=trajectory.pk)
    current = (
        queue_for(user=user, queryset=queryset, overlap=policy.overlap, now=now)
        .filter(held_by=user, held_until__gte=now)
        .first()
    )
    if current is not None:
        return current
    # With SKIP LOCKED (PostgreSQL) each claimer locks one candidate the others pass over; elsewhere (SQLite
    # serializes writers) a batch of candidates is tried in turn. The conditional UPDATE decides either way.
    batch = 1 if connection.features.has_select_for_update_skip_locked else CLAIM_BATCH
    for _ in range(CLAIM_ROUNDS):
        with transaction.atomic():
            queue = queue_for(user=user, queryset=queryset, overlap=policy.overlap, now=now).exclude(held_by=user)
            candidates = list(queue.select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch])
            for pk in candidates:
                won = (
                    Trajectory.objects.filter(
                        pk=pk, status=Trajectory.Status.PENDING_REVIEW, decision_count__lt=policy.overlap
                    )
                    .filter(Q(held_by__isnull=True) | Q(held_until__lt=now))
                    .update(**_lease(user, now, policy))
                )
                if won:
                    _release_others(user, pk)
                    return Trajectory.objects.get(pk=pk)
        if not candidates and not queue.exists():
            return None
        now = timezone.now()
    return None


def trajectory_release(*, trajectory: Trajectory, user) -> bool:
    """Give the item back to the queue; False when `user` did not hold it."""
    return bool(
        Trajectory.objects.filter(pk=trajectory.pk, held_by=user).update(held_by=None, held_since=None, held_until=None)
    )


def leases_expire(*, now=None) -> int:
    """Clear leases that ran out (the queue already treats them as free; this tidies the holder column)."""
    now = now or timezone.now()
    return Trajectory.objects.filter(held_until__lt=now).update(held_by=None, held_since=None, held_until=None)


# --- Decisions --------------------------------------------------------------------------------------------


def _check_reason(decision: str, reason: str, note: str) -> tuple[str, str]:
    if decision == ReviewDecision.Decision.APPROVE:
        return "", note.strip()
    if decision != ReviewDecision.Decision.REJECT:
        raise ReviewError(f"unknown decision {decision!r}; use approve or reject")
    if reason not in REASONS:
        raise ReviewError(f"a rejection needs a reason: one of {', '.join(REASONS)}")
    if reason == "other" and not note.strip():
        raise ReviewError('the reason "other" needs a note saying what is wrong')
    return reason, note.strip()


def _outcome(decisions: list[str]) -> str:
    if len(set(decisions)) > 1:
        return Trajectory.Status.DISPUTED
    return Trajectory.Status.APPROVED if decisions[0] == ReviewDecision.Decision.APPROVE else Trajectory.Status.REJECTED


def _decision(
    *, trajectory_id: int, status: str, version: int, user, kind: str, verdict: tuple[str, str, str], seconds=None
):
    """An unsaved decision row; verdict is (decision, reason, note)."""
    decision, reason, note = verdict
    return ReviewDecision(
        trajectory_id=trajectory_id,
        user=user,
        kind=kind,
        decision=decision,
        reason=reason,
        note=note,
        version=version,
        previous_status=status,
        seconds=seconds,
    )


def _annotate(*, trajectory: Trajectory, user, decision: str, reason: str = "", note: str = "") -> ReviewDecision:
    _require(user, ANNOTATOR, "Deciding on an item")
    reason, note = _check_reason(decision, reason, note)
    policy = review_policy()
    now = timezone.now()
    with transaction.atomic():
        row = Trajectory.objects.select_for_update().get(pk=trajectory.pk)
        if row.held_by_id != user.pk:
            raise LeaseError(f"you do not hold trajectory #{row.pk}; claim it from the queue first")
        if row.held_until is None or row.held_until < now:
            raise LeaseError(f"your lease on trajectory #{row.pk} expired; claim it again to decide")
        if row.status != Trajectory.Status.PENDING_REVIEW:
            raise ReviewError(f"trajectory #{row.pk} is {row.get_status_display()}, not awaiting review")
        try:
            with transaction.atomic():
                made = _decision(
                    trajectory_id=row.pk,
                    status=row.status,
                    version=row.version,
                    user=user,
                    kind=ReviewDecision.Kind.ANNOTATION,
                    verdict=(decision, reason, note),
                    seconds=(now - row.held_since).total_seconds() if row.held_since else None,
                )
                made.save()
        except IntegrityError:
            raise ReviewError(f"you already decided on trajectory #{row.pk}; undo that decision first") from None
        row.decision_count = row.decision_count + 1
        row.held_by = row.held_since = row.held_until = None
        if row.decision_count >= policy.overlap:
            standing = list(
                row.decisions.filter(kind=ReviewDecision.Kind.ANNOTATION, retracted_at__isnull=True).values_list(
                    "decision", flat=True
                )
            )
            row.status = _outcome(standing)
        row.save(update_fields=["decision_count", "held_by", "held_since", "held_until", "status", "updated_at"])
    trajectory.refresh_from_db()
    return made


def trajectory_approve(*, trajectory: Trajectory, user, note: str = "") -> ReviewDecision:
    """The annotator holding the item approves it."""
    return _annotate(trajectory=trajectory, user=user, decision=ReviewDecision.Decision.APPROVE, note=note)


def trajectory_reject(*, trajectory: Trajectory, user, reason: str, note: str = "") -> ReviewDecision:
    """The annotator holding the item rejects it, with a reason from the taxonomy (REJECT_REASONS)."""
    return _annotate(
        trajectory=trajectory, user=user, decision=ReviewDecision.Decision.REJECT, reason=reason, note=note
    )


def trajectory_adjudicate(
    *, trajectory: Trajectory, user, decision: str, reason: str = "", note: str = ""
) -> ReviewDecision:
    """A reviewer settles an item whose annotators disagreed."""
    _require(user, REVIEWER, "Adjudicating")
    reason, note = _check_reason(decision, reason, note)
    with transaction.atomic():
        row = Trajectory.objects.select_for_update().get(pk=trajectory.pk)
        if row.status != Trajectory.Status.DISPUTED:
            raise ReviewError(
                f"trajectory #{row.pk} is {row.get_status_display()}; only disputed items are adjudicated"
            )
        made = _decision(
            trajectory_id=row.pk,
            status=row.status,
            version=row.version,
            user=user,
            kind=ReviewDecision.Kind.ADJUDICATION,
            verdict=(decision, reason, note),
        )
        made.save()
        row.status = _outcome([decision])
        row.save(update_fields=["status", "updated_at"])
    trajectory.refresh_from_db()
    return made


def trajectory_bulk_decide(
    *, queryset: QuerySet[Trajectory], user, decision: str, expected_count: int, reason: str = "", note: str = ""
) -> int:
    """A reviewer approves or rejects every pending or disputed item of a filtered set, after confirming how many.

    The count is checked again here: when the filter matches a different number now, nothing is written.
    """
    _require(user, REVIEWER, "Bulk review")
    reason, note = _check_reason(decision, reason, note)
    status = _outcome([decision])
    actionable = queryset.filter(status__in=[Trajectory.Status.PENDING_REVIEW, Trajectory.Status.DISPUTED])
    with transaction.atomic():
        rows = list(actionable.order_by("id").values_list("pk", "status", "version"))
        if len(rows) != expected_count:
            raise ReviewError(
                f"the filter now matches {len(rows)} item(s) awaiting a decision, not {expected_count}; "
                "nothing was changed, confirm the new count"
            )
        ReviewDecision.objects.bulk_create(
            [
                _decision(
                    trajectory_id=pk,
                    status=previous,
                    version=version,
                    user=user,
                    kind=ReviewDecision.Kind.BULK,
                    verdict=(decision, reason, note),
                )
                for pk, previous, version in rows
            ],
            batch_size=FREEZE_BATCH,
        )
        ids = [pk for pk, _, _ in rows]
        for start in range(0, len(ids), FREEZE_BATCH):
            Trajectory.objects.filter(pk__in=ids[start : start + FREEZE_BATCH]).update(
                status=status, held_by=None, held_since=None, held_until=None, updated_at=timezone.now()
            )
    return len(rows)


# --- Content, edits, revisions ----------------------------------------------------------------------------


def trajectory_content(trajectory: Trajectory) -> dict[str, Any]:
    """What an edit can change: request, answer, short answer, and each call's arguments and observation."""
    calls = TrajectoryCall.objects.filter(trajectory_id=trajectory.pk).order_by("seq")
    return {
        "request": trajectory.request,
        "answer": trajectory.answer,
        "short_answer": trajectory.short_answer,
        "calls": [
            {"seq": c.seq, "arguments": c.arguments, "observation": c.observation, "ok": c.ok}
            for c in calls.only("seq", "arguments", "observation", "ok")
        ],
    }


def _apply(
    *, trajectory: Trajectory, user, expected_version: int, content: Mapping[str, Any], kind: str, note: str = ""
) -> TrajectoryRevision:
    """Write `content` if the trajectory is still at `expected_version`, and record the change as a revision."""
    with transaction.atomic():
        fresh = Trajectory.objects.get(pk=trajectory.pk)
        before = trajectory_content(fresh)
        after = {
            "request": content.get("request", before["request"]),
            "answer": content.get("answer", before["answer"]),
            "short_answer": content.get("short_answer", before["short_answer"]),
            "calls": content.get("calls", before["calls"]),
        }
        won = Trajectory.objects.filter(pk=fresh.pk, version=expected_version).update(
            version=F("version") + 1,
            request=after["request"],
            answer=after["answer"],
            short_answer=after["short_answer"],
            updated_at=timezone.now(),
        )
        if not won:
            raise EditConflict(
                trajectory_id=fresh.pk,
                expected_version=expected_version,
                current_version=fresh.version,
                mine=after,
                theirs=before,
            )
        old_calls = {c["seq"]: c for c in before["calls"]}
        for call in after["calls"]:
            old = old_calls.get(call["seq"])
            if old is not None and old != call:
                TrajectoryCall.objects.filter(trajectory_id=fresh.pk, seq=call["seq"]).update(
                    arguments=call["arguments"], observation=call["observation"], ok=call["ok"]
                )
        revision = TrajectoryRevision.objects.create(
            trajectory_id=fresh.pk,
            version=expected_version + 1,
            kind=kind,
            user=user,
            before=before,
            after=after,
            note=note[:500],
        )
    trajectory.refresh_from_db()
    return revision


def trajectory_edit(
    *,
    trajectory: Trajectory,
    user,
    expected_version: int,
    request: str | None = None,
    answer: str | None = None,
    short_answer: str | None = None,
    arguments: Mapping[int, Mapping[str, Any]] | None = None,
    note: str = "",
) -> TrajectoryRevision:
    """Fix the request, the answer or a call's arguments; raises EditConflict when the item changed meanwhile."""
    _require(user, ANNOTATOR, "Editing")
    if trajectory.status == Trajectory.Status.FILTERED:
        raise ReviewError("a trajectory that failed the filters is not reviewed; it cannot be edited here")
    content: dict[str, Any] = {}
    for name, value in (("request", request), ("answer", answer), ("short_answer", short_answer)):
        if value is None:
            continue
        if not isinstance(value, str):
            raise ReviewError(f"{name} must be text")
        if name != "short_answer" and not value.strip():
            raise ReviewError(f"the {name} cannot be empty")
        if name == "short_answer" and len(value) > 500:
            raise ReviewError("the short answer is at most 500 characters")
        content[name] = value.strip()
    if arguments:
        try:
            wanted = {int(seq): args for seq, args in arguments.items()}
        except (TypeError, ValueError):
            raise ReviewError("arguments are keyed by call number (seq)") from None
        calls = trajectory_content(trajectory)["calls"]
        seqs = {c["seq"] for c in calls}
        for seq, args in wanted.items():
            if seq not in seqs:
                raise ReviewError(f"trajectory #{trajectory.pk} has no call {seq}")
            if not isinstance(args, Mapping):
                raise ReviewError(f"the arguments of call {seq} must be a JSON object")
        content["calls"] = [{**c, "arguments": dict(wanted[c["seq"]])} if c["seq"] in wanted else c for c in calls]
    if not content:
        raise ReviewError("nothing to change: give a request, an answer, a short answer or arguments")
    return _apply(
        trajectory=trajectory,
        user=user,
        expected_version=expected_version,
        content=content,
        kind=TrajectoryRevision.Kind.EDIT,
        note=note,
    )


def trajectory_content_at(trajectory: Trajectory, version: int) -> dict[str, Any]:
    """The content as it was at `version` (1: as synthesized), from the revisions."""
    if version == trajectory.version:
        return trajectory_content(trajectory)
    revision = trajectory.revisions.filter(version=version).first()
    if revision is not None:
        return revision.after
    following = trajectory.revisions.filter(version=version + 1).first()
    if following is not None:
        return following.before
    raise ReviewError(f"trajectory #{trajectory.pk} has no version {version}")


def trajectory_restore(*, trajectory: Trajectory, user, version: int, expected_version: int) -> TrajectoryRevision:
    """Bring back the content of an earlier version, as a new revision (the history keeps everything)."""
    _require(user, ANNOTATOR, "Restoring")
    content = trajectory_content_at(trajectory, version)
    return _apply(
        trajectory=trajectory,
        user=user,
        expected_version=expected_version,
        content=content,
        kind=TrajectoryRevision.Kind.RESTORE,
        note=f"restored version {version}",
    )


def _observation(result) -> dict[str, Any]:
    from datasets.engine.synthesis import MAX_RECORDS

    records = list(getattr(result, "records", None) or [])
    return {
        "ok": bool(getattr(result, "ok", False)),
        "error_class": getattr(result, "error_class", None),
        "http_status": getattr(result, "http_status", None),
        "result_code": getattr(result, "result_code", None),
        "result_msg": getattr(result, "result_msg", None),
        "total_count": getattr(result, "total_count", None),
        "page": dict(getattr(result, "page", None) or {}),
        "record_count": len(records),
        "records": records[:MAX_RECORDS],
        "records_omitted": max(0, len(records) - MAX_RECORDS),
    }


def _execute(trajectory: Trajectory, call: TrajectoryCall, params: dict[str, Any], user) -> tuple[dict, int]:
    """One call through the catalog's executor in sandbox mode: (the observation, the ApiCall id)."""
    from apis.models import Tool
    from apis.services import CallOptions, ToolExecutionError, tool_execute

    tool = call.step.tool or Tool.objects.filter(function_name=call.tool_name).first()
    if tool is None:
        raise ReviewError(f"the tool {call.tool_name!r} of call {call.seq} is no longer in the catalog")
    try:
        options = CallOptions(
            mode="sandbox", user=user, source_kind=REVIEW_SOURCE, source_id=f"{trajectory.pk}/{call.seq}"
        )
        execution = tool_execute(tool=tool, params=params, options=options)
    except ToolExecutionError as exc:
        raise ReviewError(f"call {call.seq} could not be made: {exc}") from None
    return _observation(execution.result), execution.call.pk


def _lost_source(call: TrajectoryCall, records_by_step: Mapping[int, list[Mapping[str, Any]]]) -> str:
    """Why a later call can no longer run as it stands: an argument fed from an earlier step's record that the
    step's new observation no longer holds ("" when every fed argument's record is still there)."""
    from datasets.engine.synthesis import scalar_text

    for binding in call.bindings or []:
        if not isinstance(binding, Mapping) or binding.get("source") != "edge":
            continue
        step = binding.get("from_step")
        if step not in records_by_step:
            continue  # that step was not re-executed: its record is as stored
        fields, values = list(binding.get("fields") or []), [str(v) for v in binding.get("source_values") or []]
        if not any([scalar_text(record.get(f)) for f in fields] == values for record in records_by_step[step]):
            shown = ", ".join(f"{f}={v}" for f, v in zip(fields, values, strict=False))
            return (
                f"call {call.seq}'s {binding.get('param')} came from step {step}'s record with {shown}, which the new "
                f"observation no longer has; edit call {call.seq}'s arguments and re-execute from it"
            )
    return ""


def trajectory_call_reexecute(
    *,
    trajectory: Trajectory,
    user,
    seq: int,
    expected_version: int,
    arguments: Mapping[str, Any] | None = None,
    rest: bool = False,
) -> tuple[TrajectoryRevision, list]:
    """Run one call again through the catalog's executor (sandbox mode), optionally with new arguments, store the
    new observation as a revision and return it with the changes against the stored observation.

    rest: also run every later call, in order, as one revision. A later call keeps its arguments; one fed from an
    earlier step's record runs only while that step's new observation still holds the record (same field values),
    otherwise nothing is stored and the reason names the call to edit. The changes are then those of every call,
    each path under "call N"."""
    _require(user, ANNOTATOR, "Re-executing a call")
    calls = list(
        TrajectoryCall.objects.select_related("step__tool").filter(trajectory_id=trajectory.pk).order_by("seq")
    )
    first = next((c for c in calls if c.seq == seq), None)
    if first is None:
        raise ReviewError(f"trajectory #{trajectory.pk} has no call {seq}")
    if arguments is not None and not isinstance(arguments, Mapping):
        raise ReviewError("the arguments must be a JSON object")
    chain = [c for c in calls if c.seq >= seq] if rest else [first]
    new: dict[int, dict[str, Any]] = {}
    records_by_step: dict[int, list[Mapping[str, Any]]] = {}
    api_calls = []
    for call in chain:
        if call is not first:
            reason = _lost_source(call, records_by_step)
            if reason:
                raise ReviewError(reason)
        params = dict(arguments if call is first and arguments is not None else call.arguments)
        observation, api_call = _execute(trajectory, call, params, user)
        new[call.seq] = {"arguments": params, "observation": observation, "ok": observation["ok"]}
        records_by_step.setdefault(call.step.index, []).extend(observation["records"])
        api_calls.append(f"#{api_call}")
    content = [{**c, **new[c["seq"]]} if c["seq"] in new else c for c in trajectory_content(trajectory)["calls"]]
    what = f"calls {seq}-{chain[-1].seq}" if len(chain) > 1 else f"call {seq}"
    revision = _apply(
        trajectory=trajectory,
        user=user,
        expected_version=expected_version,
        content={"calls": content},
        kind=TrajectoryRevision.Kind.REEXECUTE,
        note=f"re-executed {what} (ApiCall {', '.join(api_calls)})",
    )
    if not rest:
        return revision, json_diff(first.observation, new[seq]["observation"])
    changes = []
    for call in chain:
        for change in json_diff(call.observation, new[call.seq]["observation"]):
            changes.append(replace(change, path=f"call {call.seq}: {change.path}"))
    return revision, changes


# --- Undo -------------------------------------------------------------------------------------------------


def trajectory_undo(*, trajectory: Trajectory, user) -> str:
    """Undo the user's latest standing action on the item: a decision (retracted) or an edit (reverted).

    A decision is undone only while no later decision stands on the item; an edit only while it is the latest.
    Returns what was undone, in words.
    """
    _require(user, ANNOTATOR, "Undo")
    decision = trajectory.decisions.filter(user=user, retracted_at__isnull=True).order_by("-created_at", "-id").first()
    revision = (
        trajectory.revisions.filter(user=user, undone=False)
        .exclude(kind=TrajectoryRevision.Kind.UNDO)
        .order_by("-created_at", "-id")
        .first()
    )
    if decision is None and revision is None:
        raise ReviewError(f"you have nothing to undo on trajectory #{trajectory.pk}")
    if revision is None or (decision is not None and decision.created_at >= revision.created_at):
        return _undo_decision(trajectory, user, decision)
    return _undo_revision(trajectory, user, revision)


def _undo_decision(trajectory: Trajectory, user, decision: ReviewDecision) -> str:
    policy = review_policy()
    now = timezone.now()
    with transaction.atomic():
        row = Trajectory.objects.select_for_update().get(pk=trajectory.pk)
        later = row.decisions.filter(retracted_at__isnull=True, created_at__gt=decision.created_at).exclude(
            pk=decision.pk
        )
        if decision.kind != ReviewDecision.Kind.ANNOTATION:
            later = later.exclude(kind=ReviewDecision.Kind.ANNOTATION)
        elif row.decisions.filter(
            retracted_at__isnull=True, kind__in=[ReviewDecision.Kind.ADJUDICATION, ReviewDecision.Kind.BULK]
        ).exists():
            raise ReviewError(f"a reviewer already settled trajectory #{row.pk}; your decision can no longer be undone")
        if later.exclude(kind=ReviewDecision.Kind.ANNOTATION).exists():
            raise ReviewError(f"a later decision stands on trajectory #{row.pk}; it must be undone first")
        ReviewDecision.objects.filter(pk=decision.pk).update(retracted_at=now)
        fields = ["status", "updated_at"]
        if decision.kind == ReviewDecision.Kind.ANNOTATION:
            row.decision_count = max(0, row.decision_count - 1)
            row.status = Trajectory.Status.PENDING_REVIEW
            fields.append("decision_count")
            # Back to the one who undid it, so they can decide again at once (unless someone else holds it).
            if row.held_by_id in (None, user.pk) or (row.held_until and row.held_until < now):
                lease = _lease(user, now, policy)
                row.held_by, row.held_since, row.held_until = lease["held_by"], lease["held_since"], lease["held_until"]
                fields += ["held_by", "held_since", "held_until"]
        else:
            row.status = decision.previous_status
        row.save(update_fields=fields)
        if row.held_by_id == user.pk:
            _release_others(user, row.pk)
    trajectory.refresh_from_db()
    return f"your {decision.get_decision_display()} of trajectory #{trajectory.pk} was undone"


def _undo_revision(trajectory: Trajectory, user, revision: TrajectoryRevision) -> str:
    if trajectory.version != revision.version:
        raise ReviewError(
            f"trajectory #{trajectory.pk} was changed after your edit (now version {trajectory.version}); "
            f"restore version {revision.version - 1} from the history instead"
        )
    _apply(
        trajectory=trajectory,
        user=user,
        expected_version=revision.version,
        content=revision.before,
        kind=TrajectoryRevision.Kind.UNDO,
        note=f"undid version {revision.version}",
    )
    TrajectoryRevision.objects.filter(pk=revision.pk).update(undone=True)
    return f"your {revision.get_kind_display()} (version {revision.version}) of trajectory #{trajectory.pk} was undone"


# --- Dataset versions -------------------------------------------------------------------------------------


def _checksum(items: list[dict[str, Any]]) -> str:
    digest = hashlib.sha256()
    for item in items:
        digest.update(json.dumps(item, ensure_ascii=False, sort_keys=True, default=str).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def dataset_version_freeze(
    *,
    name: str,
    queryset: QuerySet[Trajectory],
    user,
    filter_params: Mapping[str, Any] | None = None,
    description: str = "",
) -> DatasetVersion:
    """Freeze the approved items of a filtered set into a named, immutable version (each item copied as it is)."""
    from datasets.selectors import datasheet_of
    from datasets.services import trajectory_item

    _require(user, REVIEWER, "Freezing a dataset version")
    name = (name or "").strip().lower()
    if not _NAME.match(name):
        raise ReviewError("a version name is 1-100 lowercase letters, digits, dots, dashes or underscores")
    if DatasetVersion.objects.filter(name=name).exists():
        raise ReviewError(f"a dataset version named {name!r} already exists; versions never change, pick a new name")
    approved = queryset.filter(status=Trajectory.Status.APPROVED).order_by("id")
    ids = list(approved.values_list("pk", flat=True))
    if not ids:
        raise ReviewError("the filter matches no approved trajectory; nothing to freeze")
    with transaction.atomic():
        items, versions = [], []
        for start in range(0, len(ids), FREEZE_BATCH):
            chunk = Trajectory.objects.filter(pk__in=ids[start : start + FREEZE_BATCH]).prefetch_related("calls__step")
            for trajectory in chunk.order_by("id"):
                items.append(trajectory_item(trajectory))
                versions.append(trajectory.version)
        version = DatasetVersion(
            name=name,
            description=description,
            filter=dict(filter_params or {}),
            item_count=len(items),
            checksum=_checksum(items),
            datasheet=datasheet_of(approved),
            created_by=user,
        )
        version.save()
        DatasetVersionItem.objects.bulk_create(
            [
                DatasetVersionItem(version=version, trajectory_id=item["id"], trajectory_version=v, item=item)
                for item, v in zip(items, versions, strict=True)
            ],
            batch_size=FREEZE_BATCH,
        )
    return version


def dataset_version_items(version: DatasetVersion) -> list[dict[str, Any]]:
    return [row.item for row in version.items.order_by("id").only("item")]


def dataset_version_verify(version: DatasetVersion) -> bool:
    """True when the stored items still hash to the checksum taken at freezing."""
    return _checksum(dataset_version_items(version)) == version.checksum


def export_folder(version: DatasetVersion) -> Path:
    return Path(settings.VAR_DIR) / "datasets" / f"{version.name}"


def dataset_version_write_export(*, version: DatasetVersion, folder: Path | str | None = None, validation=0.1):
    """Write the version as OpenAI chat JSONL and a Hugging Face folder (datasets.engine.export), from the frozen
    items, plus version.json (name, checksum, filter, who froze it, datasheet); training reads this folder."""
    items = dataset_version_items(version)
    if not dataset_version_verify(version):
        raise ReviewError(f"dataset version {version.name!r} does not match its checksum; refusing to export it")
    target = Path(folder) if folder else export_folder(version)
    info = {
        "dataset_version": version.name,
        "checksum": version.checksum,
        "trajectories": version.item_count,
        "filter": version.filter,
        "frozen_by": version.created_by.get_username() if version.created_by else None,
        "frozen_at": version.created_at.isoformat(timespec="seconds"),
        "datasheet": version.datasheet,
    }
    try:
        report = export_engine.write_export(
            items, target, validation=validation, seed=version.name, name=version.name, info=info
        )
        (target / "version.json").write_text(json.dumps(info, ensure_ascii=False, indent=2), encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise ReviewError(f"export failed: {exc}") from None
    DatasetVersion.objects.filter(pk=version.pk).update(export_path=str(target), exported_at=timezone.now())
    version.refresh_from_db()
    return report


def dataset_version_export_start(*, version: DatasetVersion, user):
    """Start the export as a job (dataset.export); the version records the job."""
    from kopa_site.jobs import job_start

    _require(user, REVIEWER, "Exporting a dataset version")
    job = job_start(kind="dataset.export", params={"version_id": version.pk}, user=user)
    DatasetVersion.objects.filter(pk=version.pk).update(export_job=job)
    version.refresh_from_db()
    return job
