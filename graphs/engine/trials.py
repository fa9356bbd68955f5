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
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphs.engine import domains as value_domains
from graphs.engine import transforms
from graphs.engine.candidates import ParamInfo
from graphs.engine.names import is_control_param
from graphs.engine.posterior import ENVIRONMENTAL, SKIPPED, STRUCTURAL, SUCCESS

MISSING_FIELD = "binding.missing_field"
COMPANIONS_MISSING = "binding.companions_missing"  # a 0/1 flag bound without the key it qualifies
FIELD_ABSENT = "source.field_absent"
NO_VALID_VALUE = "source.no_valid_value"  # every record's value names nothing of the target's kind (a 동 00000)  # with this input A's records lack the field: a skip, not a failure
TRANSFORM_FAILED = "binding.transform"
MISSING_REQUIRED = "target.missing_required"
SOURCE_NO_RECORDS = "source.no_records"
UNINFORMATIVE = "control.uninformative"
NEGATIVE_ANSWER = "target.negative_answer"  # records that say "no" (NTS validate 02, an unregistered number)
NEGATIVE_WITH_EXAMPLES = "target.negative_needs_user_values"  # a "no" about values that came from examples
INCONSISTENT = "consistency.mismatch"  # B's records contradict A's record on a shared domain
CONFUSION_ACCEPTED = "confusion.accepted"  # B answered a value of another domain as if it were right
DOMAIN_BY_REQUEST = "source.domain_by_request"  # with this input the field holds another kind of value
CONSISTENT, INCONSISTENT_CHECK, UNCHECKED = "consistent", "inconsistent", "unchecked"
MAX_ENUM_VARIANTS = 6


ITEM = "[]."  # "businesses[].b_no": field b_no of the items of the array parameter businesses


def _object_items(prop: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The item schema of an array-of-objects property (NTS validate's businesses), else None."""
    items = prop.get("items") if prop.get("type") == "array" else None
    return items if isinstance(items, Mapping) and isinstance(items.get("properties"), Mapping) else None


def _param_info(name: str, prop: Mapping[str, Any], required: bool) -> ParamInfo:
    examples = []
    for key in ("example", "default"):
        value = prop.get(key)
        if isinstance(value, list):
            examples.extend(str(v) for v in value if not isinstance(v, list | dict))
        elif value not in (None, "") and not isinstance(value, dict):
            examples.append(str(value))
    item_example = (prop.get("items") or {}).get("example") if prop.get("type") == "array" else None
    if item_example not in (None, "") and not isinstance(item_example, list | dict):
        examples.append(str(item_example))
    examples.extend(str(v) for v in prop.get("enum") or ())
    return ParamInfo(
        name=name,
        required=required,
        description=str(prop.get("description") or ""),
        examples=tuple(dict.fromkeys(examples)),
    )


def param_infos(schema: Mapping[str, Any]) -> list[ParamInfo]:
    """ParamInfo for each property of a tool's JSON Schema: example, default and enum values as examples. The
    fields of an array-of-objects property are parameters of their own ("businesses[].b_no"), required when
    both the array and the field are."""
    required = set(schema.get("required") or ())
    infos = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        items = _object_items(prop)
        if items is None:
            infos.append(_param_info(name, prop, name in required))
            continue
        item_required = set(items.get("required") or ())
        for child, child_prop in items["properties"].items():
            child_prop = child_prop if isinstance(child_prop, dict) else {}
            infos.append(_param_info(f"{name}{ITEM}{child}", child_prop, name in required and child in item_required))
    return infos


def required_names(schema: Mapping[str, Any]) -> set[str]:
    """Names of the required parameters, fields of required array items included."""
    return {info.name for info in param_infos(schema) if info.required}


def param_enum(schema: Mapping[str, Any], name: str) -> tuple[Any, ...]:
    """The allowed values of a parameter (or of an item field "parent[].field"); () when it has no enum."""
    props = schema.get("properties") or {}
    parent, _, child = name.partition(ITEM)
    prop = props.get(parent) or {}
    if child:
        prop = ((_object_items(prop) or {}).get("properties") or {}).get(child) or {}
    return tuple(prop.get("enum") or ())


def _example(schema_prop: Mapping[str, Any]) -> Any:
    """The property's example (else default, else first enum value): text, or a JSON list/object as given
    (an array parameter such as NTS's b_no takes ["2208162517"], not its printed form). An array of objects
    without an example of its own gets one item made of its fields' examples."""
    for key in ("example", "default"):
        value = schema_prop.get(key)
        if value not in (None, ""):
            return value if isinstance(value, list | dict) else str(value)
    enum = schema_prop.get("enum") or ()
    if enum:
        return str(enum[0])
    item = _item(schema_prop, {})
    return [item] if item is not None else None


def _item(prop: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any] | None:
    """One item of an array-of-objects parameter: the given fields, then examples for the other fields that
    have one; None when a required field has neither (or the parameter is not such an array)."""
    items = _object_items(prop)
    if items is None:
        return None
    item = dict(given)
    for child, child_prop in items["properties"].items():
        if child in item:
            continue
        value = _example(child_prop if isinstance(child_prop, dict) else {})
        if value is not None:
            item[child] = value
        elif child in (items.get("required") or ()):
            return None
    return item


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
        clean = {str(k): v if isinstance(v, list | dict) else str(v) for k, v in params.items() if v not in (None, "")}
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


# Values that make a source tool list every item of a kind rather than look one up (KOSIS's itmId=ALL).
LIST_ALL: dict[str, str] = {"kosis.itm": "ALL", "kosis.obj_value": "ALL"}
# A parameter that names the level a region code is listed at, by how many digits of the 10-digit code stay:
# select_stdg's lv 2 lists the 시군구 of a 시도 code (2 digits), lv 3 the 읍면동 of a 시군구 code (5 digits).
LEVEL_PARAMS: dict[str, dict[int, str]] = {"lv": {2: "2", 5: "3"}}
REGION_CODES = ("bjd10", "bjd10.upper")


def _slice_start(transform: str) -> int:
    """Where the edge's transform starts reading a 10-digit code (5, the 동 part, for anything but a slice)."""
    parts = transform.split(":")
    if parts[0] == "slice" and len(parts) == 3 and parts[1].isdigit():
        return int(parts[1])
    return 5


def listing_input(
    inputs: Mapping[str, Any], schema: Mapping[str, Any], param_domains: Mapping[str, str], transform: str
) -> dict[str, Any] | None:
    """A source input whose answer the input does not already determine, so an echo is told from a link:
    optional code filters dropped (청약 cond[HOUSE_MANAGE_NO::EQ]), KOSIS items ALL, and a 10-digit region code
    raised above the part the edge reads where the request names the level to list (select_stdg's stdgCd
    1111010300 with lv 3 becomes 1111000000 with lv 3 for a 동 slice, 1100000000 with lv 2 for a 시군구 slice).
    None when nothing changes."""
    required = set(schema.get("required") or ())
    level = next((name for name in inputs if name in LEVEL_PARAMS), None)
    keep = 2 if _slice_start(transform) < 5 else 5
    out: dict[str, Any] = {}
    for name, value in inputs.items():
        domain = param_domains.get(name, value_domains.UNKNOWN)
        if name in LEVEL_PARAMS:
            out.setdefault(name, value)  # set already where the code before it was raised
        elif is_control_param(name) or domain == value_domains.UNKNOWN:
            out[name] = value
        elif name not in required and value_domains.chainable(domain) and not value_domains.is_coordinate(domain):
            continue  # an optional filter: without it the tool lists
        elif domain in LIST_ALL:
            out[name] = LIST_ALL[domain]
        elif domain in REGION_CODES and level and isinstance(value, str) and len(value) == 10 and value.isdigit():
            raised = value[:keep] + "0" * (10 - keep)
            out[name] = raised
            if raised != value:
                out[level] = LEVEL_PARAMS[level][keep]
        else:
            out[name] = value
    return out if out != dict(inputs) else None


def field_path(row: Mapping[str, Any]) -> str:
    """The path of one of a tool's record fields (a row of Tool.record_fields): its name where it has none."""
    return str(row.get("path") or row.get("name") or "")


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
    target_domains: Sequence[str] = (),
) -> Binding | str:
    """A binding from one record chosen by rng, or the failure class (missing field, transform failure, no
    record whose value is a valid one of the target's domains: the 시군구 rows of a 법정동 list give 00000 as a
    동 part)."""
    tuples = field_tuples(records, source_fields)
    if not tuples:
        return MISSING_FIELD
    if target_domains:
        tuples = [(i, v) for i, v in tuples if _valid(transform, v, target_domains)]
        if not tuples:
            return NO_VALID_VALUE
    rng.shuffle(tuples)
    last_error = TRANSFORM_FAILED
    for index, values in tuples[:5]:
        try:
            out = transforms.apply(transform, list(values))
        except transforms.TransformError:
            continue
        if len(out) != len(target_params):
            return last_error
        return Binding(index, dict(zip(source_fields, values, strict=True)), dict(zip(target_params, out, strict=True)))
    return last_error


def _valid(transform: str, values: Sequence[str], target_domains: Sequence[str]) -> bool:
    try:
        out = transforms.apply(transform, list(values))
    except transforms.TransformError:
        return True  # the binding reports the transform's failure itself
    return all(value_domains.valid_value(name, value) for name, value in zip(target_domains, out, strict=False))


def target_params(
    schema: Mapping[str, Any],
    bound: Mapping[str, Any],
    siblings: Mapping[str, Any],
    *,
    provider: str = "",
    send: Iterable[str] = (),
) -> dict[str, Any] | str:
    """The target's parameters: bound values, then siblings from the same record (required ones, and the
    optional ones named in `send`: companions such as lDongRegnCd beside lDongSignguCd), then required examples,
    and the optional parameters a bound one only works with (HIRA's radius beside xPos, yPos) from examples.
    Item fields ("businesses[].b_no") are gathered into one item of their array, its other fields from examples.

    Returns MISSING_REQUIRED when a required parameter has none of these.
    """
    props = schema.get("properties") or {}
    params: dict[str, Any] = {}
    items: dict[str, dict[str, Any]] = {}
    for source in (bound, siblings):
        for name, value in source.items():
            parent, _, child = name.partition(ITEM)
            if child:
                items.setdefault(parent, {}).setdefault(child, value)
            elif source is bound:
                params[name] = value
    for parent, given in items.items():
        item = _item(props.get(parent) or {}, given)
        if item is None:
            return MISSING_REQUIRED
        params[parent] = [item]
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
    for name in send:
        if name not in params and name in siblings:
            params[name] = siblings[name]
    for name in value_domains.param_companions(bound, provider=provider):
        if name not in params:
            value = siblings.get(name, _example(props.get(name) or {}))
            if value is None:
                return MISSING_REQUIRED
            params[name] = value
    for name, value in bound.items():
        # One value bound into an array parameter (NTS status's b_no) is sent as a one-item array.
        if (props.get(name) or {}).get("type") == "array" and not isinstance(value, list):
            params[name] = [value]
    return params


def perturb(value: Any, rng: random.Random, choices: Sequence[Any] = ()) -> Any:
    """A value of the same shape that should not match: another of the parameter's allowed values when it has
    an enum (a 0/1 flag becomes the other flag, not an invalid 2), else other digits, a shifted number,
    changed letters; each item of a list."""
    if isinstance(value, list):
        return [perturb(item, rng, choices) for item in value]
    others = [str(c) for c in choices if str(c) != str(value)]
    if others:
        return others[rng.randrange(len(others))]
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
        if all(isinstance(r, Mapping) and value_domains.is_negative(r) for r in records):
            return STRUCTURAL, NEGATIVE_ANSWER
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


# --- Echoes, consistency and the two controls -------------------------------------------------------------


def _scalars(value: Any) -> list[str]:
    """Every scalar inside a request value (NTS validate's businesses list of objects included)."""
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _scalars(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _scalars(item)]
    text = _text(value)
    return [text.strip()] if text else []


def _same(a: str, b: str) -> bool:
    a, b = a.strip(), b.strip()
    if a == b:
        return True
    return a.isdigit() and b.isdigit() and int(a) == int(b)


def is_echo(
    source_values: Mapping[str, str],
    source_params: Mapping[str, Any] | None,
    transform: str = "identity",
    bound: Mapping[str, Any] | None = None,
) -> bool:
    """True when what the link hands on is the call's own input: every value read from the source record is
    an input (the same value, or a slice of a 10-digit input), or every bound value is the edge's transform
    applied to an input. RTMS's sggCd is its LAWD_CD, Juso's addrCoordApi admCd its admCd, a forecast's nx its
    nx; and a 동 of 종로구 listed for stdgCd=1111000000 gives, through slice:0:2, the 11 the request already
    said. Such a field proves nothing about a link."""
    inputs = [
        text
        for name, value in (source_params or {}).items()
        if not is_control_param(str(name))  # a page number 1 is no 부번 1
        for text in _scalars(value)
    ]
    if not inputs or not source_values:
        return False
    if bound and transforms.arity(transform) == 1 and _bound_from_inputs(bound, inputs, transform):
        return True
    for value in source_values.values():
        text = str(value).strip()
        if not text:
            return False
        if not any(
            _same(text, given) or (len(given) == 10 and given.isdigit() and text in (given[:5], given[5:]))
            for given in inputs
        ):
            return False
    return True


def _bound_from_inputs(bound: Mapping[str, Any], inputs: Sequence[str], transform: str) -> bool:
    """Every bound value equals the transform of one of the source call's inputs."""
    projected = set()
    for given in inputs:
        try:
            projected.update(str(v).strip() for v in transforms.apply(transform, [given]))
        except transforms.TransformError:
            continue
    return all(any(_same(text, p) for p in projected) for v in bound.values() for text in _scalars(v))


@dataclass(frozen=True)
class Check:
    """What decided a trial's consistency: the verdict, and the evidence in words."""

    verdict: str  # consistent | inconsistent | unchecked
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"verdict": self.verdict, "detail": self.detail}


def _domain_values(records: Sequence[Mapping[str, Any]], domains: Mapping[str, str]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path, domain in domains.items():
        if (
            not value_domains.chainable(domain)
            or value_domains.is_coordinate(domain)
            or domain == value_domains.UNKNOWN
        ):
            continue
        for record in records:
            text = _text(record_value(record, path))
            if text:
                found.setdefault(domain, set()).add(text.strip())
    return found


def consistency(
    bound: Mapping[str, Any],
    bound_domains: Mapping[str, str],
    source_record: Mapping[str, Any],
    source_domains: Mapping[str, str],
    target_records: Sequence[Mapping[str, Any]],
    target_domains: Mapping[str, str],
    *,
    complete: bool = True,
) -> Check:
    """Are B's records about what A's record is about? B echoes the bound value in a field of its domain
    (consistent), or fields of a domain present on both sides agree (consistent) or all disagree
    (inconsistent); with neither, unchecked. A disagreement counts only when B's records are its whole answer
    (`complete`): areaCode2 lists 서울's 시군구 ten to a page, and 종로구 (23) is not on the first."""
    records = [r for r in target_records if isinstance(r, Mapping)]
    theirs = _domain_values(records, target_domains)
    for param, value in bound.items():
        domain = bound_domains.get(param, value_domains.UNKNOWN)
        seen = theirs.get(domain, set())
        given = _scalars(value)
        if given and any(_same(g, v) for g in given for v in seen):
            return Check(CONSISTENT, f"B echoes the bound {param}={given[0]} ({domain})")
    ours = _domain_values([source_record], source_domains)
    agree, disagree = [], []
    for domain, values in ours.items():
        other = theirs.get(domain)
        if not other:
            continue
        if any(_same(a, b) for a in values for b in other):
            agree.append(domain)
        else:
            disagree.append(f"{domain} {sorted(values)[0]} vs {sorted(other)[0]}")
        # A 10-digit 법정동 code on one side and its 시군구 prefix on the other agree through the slice.
    for (src, dst), specs in value_domains.LINKS.items():
        if src in ours and dst in theirs and src != dst:
            projected = set()
            for value in ours[src]:
                for spec in specs:
                    try:
                        projected.add(transforms.apply(spec, [value])[0])
                    except transforms.TransformError:
                        continue
            if projected & theirs[dst]:
                agree.append(f"{src}->{dst}")
    if agree:
        return Check(CONSISTENT, "A and B agree on " + ", ".join(sorted(agree)))
    if disagree and not complete:
        return Check(UNCHECKED, "B answered one page of more; no agreement on it: " + "; ".join(sorted(disagree)))
    if disagree:
        return Check(INCONSISTENT_CHECK, "A and B disagree on " + "; ".join(sorted(disagree)))
    return Check(UNCHECKED, "no field of a shared domain to compare; controls decide")


def specificity_value(
    records: Sequence[Mapping[str, Any]],
    source_fields: Sequence[str],
    transform: str,
    bound: Mapping[str, Any],
    target_domains: Sequence[str],
    rng: random.Random,
) -> tuple[list[Any], str] | None:
    """Another valid value of the same domain: first from A's other records (another district, another
    station), else from the domain's reference samples. None when there is none."""
    current = [str(v) for v in bound.values()]
    others = []
    for _, values in field_tuples(records, source_fields):
        try:
            out = list(transforms.apply(transform, list(values)))
        except transforms.TransformError:
            continue
        if not all(value_domains.valid_value(name, value) for name, value in zip(target_domains, out, strict=False)):
            continue  # a 시도 row's 00000 is no other 동
        if [str(v) for v in out] != current and out not in others:
            others.append(out)
    if others and len(current) > 1 and (far := _farthest(current, others)) is not None:
        # A point (x with y): a neighbour a few metres off answers like the point itself, which says nothing about
        # the binding; the record farthest away is another place.
        return far, "the farthest point among A's records"
    if others:
        return others[rng.randrange(len(others))], "another value from A's records"
    if len(target_domains) == 1:
        samples = [v for v in value_domains.domain(target_domains[0]).samples if not _same(v, current[0])]
        if samples:
            return [samples[rng.randrange(len(samples))]], f"another {target_domains[0]} from the reference table"
    return None


def _farthest(current: Sequence[str], others: Sequence[Sequence[Any]]) -> list[Any] | None:
    """Of `others`, the tuple of numbers farthest (Euclidean) from `current`; None unless all are numbers."""
    try:
        here = [float(v) for v in current]
        points = [[float(v) for v in other] for other in others]
    except (TypeError, ValueError):
        return None
    distances = [math.dist(here, point) for point in points]
    return list(others[distances.index(max(distances))])


def confusion_value(target_domains: Sequence[str], rng: random.Random) -> tuple[list[str], str] | None:
    """A valid value of the domain most easily mistaken for the target's (a 시군구 code where a TourAPI
    areaCode belongs); None for coordinates and for domains without a confusable one."""
    if len(target_domains) != 1:
        return None
    confusable = value_domains.domain(target_domains[0]).confusable
    samples = value_domains.domain(confusable).samples if confusable else ()
    if not samples:
        return None
    return [samples[rng.randrange(len(samples))]], f"a {confusable} ({value_domains.domain(confusable).label})"


def confusion_outcome(ok: bool, error_class: str | None, records: Sequence, check: Check | None) -> tuple[str, str]:
    """SUCCESS (the control held) when B failed, found nothing, said no, or answered about something else;
    STRUCTURAL when B answered the other domain's value as if it were right."""
    if _is_env(error_class):
        return ENVIRONMENTAL, error_class or ""
    if not (ok and records):
        return SUCCESS, ""
    if all(isinstance(r, Mapping) and value_domains.is_negative(r) for r in records):
        return SUCCESS, ""
    if check is not None and check.verdict == INCONSISTENT_CHECK:
        return SUCCESS, ""
    return STRUCTURAL, CONFUSION_ACCEPTED
