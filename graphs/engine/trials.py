"""The plain steps of one edge trial: inputs for the source tool, values taken from its records, the
target's parameters, a mismatched control value, and the outcome class of what came back.

A trial of A.F -> B.P runs A with valid inputs, takes a value of F from A's records, applies the edge's
transform, runs B with P bound (B's other required parameters come from sibling links out of the same record,
else from B's examples) and succeeds when B returns records. A control trial binds a mismatched value of the
same shape: if B then returns the very same records, P carries no information.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphs.engine import transforms as T
from graphs.engine.candidates import ParamInfo
from graphs.engine.names import is_control_param
from graphs.engine.posterior import ENVIRONMENTAL, SKIPPED, STRUCTURAL, SUCCESS

MISSING_FIELD = "binding.missing_field"
TRANSFORM_FAILED = "binding.transform"
MISSING_REQUIRED = "target.missing_required"
SOURCE_NO_RECORDS = "source.no_records"
UNINFORMATIVE = "control.uninformative"
MAX_ENUM_VARIANTS = 6


def param_infos(schema: Mapping[str, Any]) -> list[ParamInfo]:
    """ParamInfo for each property of a tool's JSON Schema: example, default and enum values as examples."""
    required = set(schema.get("required") or ())
    infos = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        examples = []
        for key in ("example", "default"):
            if prop.get(key) not in (None, ""):
                examples.append(str(prop[key]))
        examples.extend(str(v) for v in prop.get("enum") or ())
        infos.append(
            ParamInfo(
                name=name,
                required=name in required,
                description=str(prop.get("description") or ""),
                examples=tuple(dict.fromkeys(examples)),
            )
        )
    return infos


def _example(schema_prop: Mapping[str, Any]) -> str | None:
    for key in ("example", "default"):
        value = schema_prop.get(key)
        if value not in (None, ""):
            return str(value)
    enum = schema_prop.get("enum") or ()
    return str(enum[0]) if enum else None


def example_params(schema: Mapping[str, Any], *, required_only: bool) -> dict[str, str] | None:
    """The tool's example parameters; None when a required one has no example."""
    props = schema.get("properties") or {}
    required = list(schema.get("required") or ())
    params: dict[str, str] = {}
    for name in required:
        value = _example(props.get(name) or {})
        if value is None:
            return None
        params[name] = value
    if not required_only:
        for name, prop in props.items():
            if name not in params and (value := _example(prop or {})) is not None:
                params[name] = value
    return params


def source_inputs(schema: Mapping[str, Any], recorded: Iterable[Mapping[str, Any]] = ()) -> list[dict[str, str]]:
    """Inputs to try a tool with, in order: all examples, required examples only, inputs of recorded calls
    that returned records, then enum variants of the required examples."""
    pool: list[dict[str, str]] = []

    def add(params: Mapping[str, Any] | None) -> None:
        if params is None:
            return
        clean = {str(k): str(v) for k, v in params.items() if v not in (None, "")}
        if clean not in pool:
            pool.append(clean)

    add(example_params(schema, required_only=False))
    base = example_params(schema, required_only=True)
    add(base)
    for params in recorded:
        add(params)
    if base is not None:
        variants = 0
        for name, prop in (schema.get("properties") or {}).items():
            for value in (prop or {}).get("enum") or ():
                if variants >= MAX_ENUM_VARIANTS or is_control_param(name):
                    break
                if str(value) != base.get(name) and (name in base or name in (schema.get("required") or ())):
                    add({**base, name: str(value)})
                    variants += 1
    return pool


def record_value(record: Mapping[str, Any], path: str) -> Any:
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value)
    return text if text.strip() else None


def field_tuples(records: Sequence[Mapping[str, Any]], paths: Sequence[str]) -> list[tuple[int, tuple[str, ...]]]:
    """(record index, values) for records where every path has a non-empty scalar value."""
    found = []
    for index, record in enumerate(records):
        values = tuple(_text(record_value(record, path)) for path in paths)
        if all(v is not None for v in values):
            found.append((index, values))  # type: ignore[arg-type]
    return found


@dataclass(frozen=True)
class Binding:
    """What a trial takes from one source record: the values read and the values bound into the target."""

    record_index: int
    source_values: dict[str, str]
    bound: dict[str, str]


def bind(
    records: Sequence[Mapping[str, Any]],
    source_fields: Sequence[str],
    target_params: Sequence[str],
    transform: str,
    rng: random.Random,
) -> Binding | str:
    """A binding from one record chosen by rng, or the failure class (missing field, transform failure)."""
    tuples = field_tuples(records, source_fields)
    if not tuples:
        return MISSING_FIELD
    rng.shuffle(tuples)
    last_error = TRANSFORM_FAILED
    for index, values in tuples[:5]:
        try:
            out = T.apply(transform, list(values))
        except T.TransformError:
            continue
        if len(out) != len(target_params):
            return last_error
        return Binding(index, dict(zip(source_fields, values, strict=True)), dict(zip(target_params, out, strict=True)))
    return last_error


def target_params(
    schema: Mapping[str, Any], bound: Mapping[str, str], siblings: Mapping[str, str]
) -> dict[str, str] | str:
    """The target's parameters: bound values, then siblings from the same record, then required examples.

    Returns MISSING_REQUIRED when a required parameter has none of these.
    """
    props = schema.get("properties") or {}
    params = dict(bound)
    for name in schema.get("required") or ():
        if name in params:
            continue
        if name in siblings:
            params[name] = siblings[name]
            continue
        value = _example(props.get(name) or {})
        if value is None:
            return MISSING_REQUIRED
        params[name] = value
    return params


def perturb(value: str, rng: random.Random) -> str:
    """A value of the same shape that should not match: other digits, a shifted number, changed letters."""
    text = str(value)
    stripped = text.strip()
    if stripped.isdigit():
        digits = list(stripped)
        # Keep the first digit class (a leading zero stays) and change the rest so the code is foreign.
        for i in range(1 if len(digits) > 1 else 0, len(digits)):
            digits[i] = str((int(digits[i]) + rng.randint(3, 7)) % 10)
        changed = "".join(digits)
        return changed if changed != stripped else str(int(stripped) + 1)
    try:
        number = float(stripped)
    except ValueError:
        pass
    else:
        decimals = len(stripped.split(".", 1)[1]) if "." in stripped else 0
        shifted = number * 0.5 if number else 1.0
        return f"{shifted:.{decimals}f}"
    letters = [c for c in stripped]
    for i, c in enumerate(letters):
        if c.isalpha() and c.isascii():
            letters[i] = chr((ord(c.upper()) - 65 + rng.randint(5, 20)) % 26 + 65)
    changed = "".join(letters)
    return changed if changed != stripped else stripped + "X"


def fingerprint(records: Sequence[Mapping[str, Any]]) -> str:
    canonical = json.dumps(list(records), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _is_env(error_class: str | None) -> bool:
    return bool(error_class) and error_class.startswith("env.")


def source_outcome(ok: bool, error_class: str | None, records: Sequence) -> tuple[str, str] | None:
    """None when the source gave records to bind from; else (outcome, failure class) of the whole trial."""
    if ok and records:
        return None
    if _is_env(error_class):
        return ENVIRONMENTAL, f"source:{error_class}"
    # The source's own inputs failed: that says nothing about the link.
    return SKIPPED, f"source:{error_class}" if error_class else SOURCE_NO_RECORDS


def target_outcome(ok: bool, error_class: str | None, records: Sequence) -> tuple[str, str]:
    if ok and records:
        return SUCCESS, ""
    if _is_env(error_class):
        return ENVIRONMENTAL, error_class or ""
    if error_class and error_class.startswith("struct."):
        return STRUCTURAL, error_class
    if ok:
        return STRUCTURAL, "struct.no_data"
    return SKIPPED, error_class or "unknown"


def control_outcome(main_fingerprint: str, ok: bool, error_class: str | None, records: Sequence) -> tuple[str, str]:
    """SUCCESS when the mismatched value changed what the target returned; STRUCTURAL when it did not."""
    if _is_env(error_class):
        return ENVIRONMENTAL, error_class or ""
    if ok and records and fingerprint(records) == main_fingerprint:
        return STRUCTURAL, UNINFORMATIVE
    return SUCCESS, ""
