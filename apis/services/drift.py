"""Drift checks: a recorded call made again, and what changed in the answer's shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apis.engine.drift import DriftReport, check_drift
from apis.engine.errors import ERROR_CLASSES, EngineError, redact
from apis.engine.executor import (
    InMemoryCallStore,
    Mode,
    RecordedCall,
)
from apis.models import ApiCall
from apis.services.errors import INTERNAL_ERROR, CatalogError, ExecutorFault
from apis.services.execution import CallOptions, _failure_of, _log, _plan
from apis.services.runtime import _runtime, _slot


@dataclass(frozen=True)
class DriftOutcome:
    original: ApiCall
    rerun: ApiCall | None
    report: DriftReport

    def to_dict(self) -> dict[str, Any]:
        return {
            "call": self.original.pk,
            "rerun_call": self.rerun.pk if self.rerun else None,
            "changed": self.report.changed,
            "severity": self.report.severity,
            "summary": self.report.summary(),
            "changes": [
                {"kind": c.kind, "field": c.field, "old": c.old, "new": c.new, "severity": c.severity}
                for c in self.report.changes
            ],
        }


def drift_check(*, call: ApiCall, mode: str | None = None, user=None, service_key: str | None = None) -> DriftOutcome:
    """Re-run a stored call (live or sandbox) and report what changed: status, schema, then data.

    The re-run is logged as its own ApiCall (source "drift_check", the original's id).
    """
    if call.tool is None:
        raise CatalogError(f"call #{call.pk} has no tool any more; it cannot be re-run")
    body = call.body_text
    if body is None:
        raise CatalogError(f"call #{call.pk} kept only its body's hash (over the size cap); it cannot be compared")
    mode = mode or call.target or Mode.SANDBOX
    if mode not in (Mode.LIVE, Mode.SANDBOX):
        raise CatalogError(f"a drift check re-runs the call live or in the sandbox; got {mode!r}")
    options = CallOptions(mode=mode, service_key=service_key, user=user, source_kind="drift_check", source_id=call.pk)
    plan = _plan(tool=call.tool, params=call.params, options=options)
    before = RecordedCall(
        request_hash=plan.slot.request_hash,
        request=call.request,
        http_status=call.http_status or 0,
        content_type=call.content_type,
        body=body,
        target=call.target,
        latency_ms=call.latency_ms,
    )

    async def compare() -> DriftReport:
        store = InMemoryCallStore()
        await store.put(before)
        token = _slot.set(plan.slot)
        try:
            return await check_drift(plan.executor, plan.call, store)
        finally:
            _slot.reset(token)

    try:
        report = _runtime().run(compare())
    except EngineError as error:
        _log(plan, _failure_of(plan, error))
        raise ExecutorFault(f"the drift check of call #{call.pk} failed: {redact(str(error), plan.secrets)}") from None
    rerun = _log(plan, report.after) if report.after is not None else None
    return DriftOutcome(original=call, rerun=rerun, report=report)


def error_class_label(error_class: str) -> str:
    if error_class == INTERNAL_ERROR:
        return "an exception inside the executor"
    return ERROR_CLASSES.get(error_class, "")
