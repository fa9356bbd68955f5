"""Writes of the API catalog: import specs, set service keys, execute tools (one ApiCall per call), drift checks.

Every execution runs the async engine (apis/engine/executor.py) on one event-loop thread per process, so pages,
the API, jobs and the MCP server share connection pools and per-provider rate limits; database work stays in
the caller's thread (sync callers) or goes through sync_to_async (async callers). Service keys are redacted
from everything stored, logged or raised here, in every wire form (apis.engine.errors.redact).

One module per seam: `errors`, `catalog` (import), `credentials`, `runtime` (the event loop and the call store),
`execution`, `drift`. Import from `apis.services`; the names below are its public surface.
"""

from __future__ import annotations

from apis.services.catalog import (
    BUNDLED_SPEC_DIR,
    CatalogImportReport,
    ServiceImport,
    ToolImport,
    catalog_import,
    catalog_import_bundled,
    outbound_check_url,
    outbound_policy,
    service_set_base_url,
    spec_limits,
)
from apis.services.credentials import (
    MIN_KEY_LENGTH,
    RotationReport,
    credential_clear,
    credential_rotate,
    credential_set,
)
from apis.services.drift import (
    DriftOutcome,
    drift_check,
    error_class_label,
)
from apis.services.errors import (
    INTERNAL_ERROR,
    MODES,
    CatalogError,
    ExecutorFault,
    MissingCredential,
    ParamsInvalid,
    SpecImportError,
    ToolExecutionError,
)
from apis.services.execution import (
    CallLog,
    CallOptions,
    Execution,
    PendingExecution,
    tool_execute,
    tool_execute_async,
    tool_execute_many,
    tool_execute_submit,
    tool_params_check,
)
from apis.services.runtime import (
    ApiCallStore,
    recording_for,
)

__all__ = [
    "CatalogError",
    "ExecutorFault",
    "INTERNAL_ERROR",
    "MODES",
    "MissingCredential",
    "ParamsInvalid",
    "SpecImportError",
    "ToolExecutionError",
    "BUNDLED_SPEC_DIR",
    "CatalogImportReport",
    "ServiceImport",
    "ToolImport",
    "catalog_import",
    "catalog_import_bundled",
    "outbound_check_url",
    "outbound_policy",
    "service_set_base_url",
    "spec_limits",
    "MIN_KEY_LENGTH",
    "RotationReport",
    "credential_clear",
    "credential_rotate",
    "credential_set",
    "ApiCallStore",
    "recording_for",
    "CallLog",
    "CallOptions",
    "Execution",
    "PendingExecution",
    "tool_execute",
    "tool_execute_async",
    "tool_execute_many",
    "tool_execute_submit",
    "tool_params_check",
    "DriftOutcome",
    "drift_check",
    "error_class_label",
]
