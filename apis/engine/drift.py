"""Drift check: re-run a recorded call and say what changed, from status and codes down to fields and types.

Severity, highest first: "status" (ok, error class, result code or HTTP status changed), "schema" (a record
field appeared, disappeared or changed type), "data" (record count, total or values changed), "none".
Values change all the time for live data (forecasts, arrivals), so only the first record's values are
compared, and that counts as data drift, never schema drift.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apis.engine.executor import CallStore, Executor, Mode, ToolCall
from apis.engine.normalize import NormalizedResult, normalize

SEVERITY_ORDER = ("none", "data", "schema", "status")


@dataclass(frozen=True)
class DriftChange:
    kind: str  # ok | error_class | result_code | http_status | field_added | field_removed | field_type | count | total | value
    field: str
    old: Any
    new: Any

    @property
    def severity(self) -> str:
        if self.kind in ("ok", "error_class", "result_code", "http_status"):
            return "status"
        if self.kind.startswith("field_"):
            return "schema"
        return "data"


@dataclass(frozen=True)
class DriftReport:
    request_hash: str
    recorded: bool  # False: nothing was recorded for this request, so nothing was compared
    changes: list[DriftChange] = field(default_factory=list)
    before: NormalizedResult | None = None
    after: NormalizedResult | None = None

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def severity(self) -> str:
        return max((c.severity for c in self.changes), key=SEVERITY_ORDER.index, default="none")

    def summary(self) -> str:
        if not self.recorded:
            return "no recorded call to compare with"
        if not self.changes:
            return "no drift"
        return f"{self.severity} drift: " + "; ".join(
            f"{c.kind} {c.field}: {c.old!r} -> {c.new!r}" for c in self.changes
        )


def value_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list):
        return "array"
    return "string"


def field_types(records: list[dict[str, Any]]) -> dict[str, str]:
    """Each field's type across the records; null is ignored when a field also has real values."""
    seen: dict[str, set[str]] = {}
    for record in records:
        for name, value in record.items():
            seen.setdefault(name, set()).add(value_type(value))
    out: dict[str, str] = {}
    for name, kinds in seen.items():
        real = kinds - {"null"}
        out[name] = "|".join(sorted(real)) if real else "null"
    return out


def compare_results(before: NormalizedResult, after: NormalizedResult) -> list[DriftChange]:
    changes: list[DriftChange] = []
    for attr in ("ok", "error_class", "result_code", "http_status"):
        old, new = getattr(before, attr), getattr(after, attr)
        if old != new:
            changes.append(DriftChange(attr, attr, old, new))
    old_types, new_types = field_types(before.records), field_types(after.records)
    if before.records and after.records:  # an empty side says nothing about the schema
        for name in sorted(set(new_types) - set(old_types)):
            changes.append(DriftChange("field_added", name, None, new_types[name]))
        for name in sorted(set(old_types) - set(new_types)):
            changes.append(DriftChange("field_removed", name, old_types[name], None))
        for name in sorted(set(old_types) & set(new_types)):
            old, new = old_types[name], new_types[name]
            if old != new and "null" not in (old, new):
                changes.append(DriftChange("field_type", name, old, new))
    if len(before.records) != len(after.records):
        changes.append(DriftChange("count", "records", len(before.records), len(after.records)))
    if before.total_count != after.total_count:
        changes.append(DriftChange("total", "total_count", before.total_count, after.total_count))
    if before.records and after.records:
        first_old, first_new = before.records[0], after.records[0]
        for name in sorted(set(first_old) & set(first_new)):
            if first_old[name] != first_new[name]:
                changes.append(DriftChange("value", f"records.0.{name}", first_old[name], first_new[name]))
    return changes


async def check_drift(executor: Executor, call: ToolCall, store: CallStore) -> DriftReport:
    """Replay the stored answer for call, run the call again through executor (live or sandbox), compare."""
    if executor.mode is Mode.REPLAY:
        raise ValueError("a drift check needs an executor that really calls the service, not a replaying one")
    prepared = executor.prepare(call)
    record = await store.get(prepared.request_hash)
    if record is None:
        return DriftReport(request_hash=prepared.request_hash, recorded=False)
    before = normalize(
        record.body,
        http_status=record.http_status,
        content_type=record.content_type,
        expect_records=call.expect_records,
    )
    after = await executor.execute(call, use_cache=False)
    return DriftReport(
        request_hash=prepared.request_hash,
        recorded=True,
        changes=compare_results(before, after),
        before=before,
        after=after,
    )
