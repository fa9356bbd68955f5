"""Turns any Korean public-API response body into one NormalizedResult, whatever its envelope family.

Rules worth knowing:
- "No data" (03/NO_DATA, INFO-3, INFO-200, KOSIS 30, Seoul bus 4, empty items) is ok=True with zero records and
  the service's result_code kept. Only when the caller says records were expected (expect_records=True) does
  an empty answer become ok=False with error_class struct.no_data.
- An envelope, when one is recognized, outranks the HTTP status: a 403 carrying returnReasonCode 30 is
  struct.auth, a 400 carrying 12 is struct.retired. Without an envelope the status decides (5xx environmental,
  404 not found, 401/403 auth, 429 quota, other 4xx structural).
- A body that stops before its document closes (brackets still open, inside a string, an unclosed XML tag)
  is env.truncated: that is what a flaky gateway produces. A complete body that still fails to parse is
  struct.malformed_response. An empty body is env.gateway; an HTML page is env.html_error (404: not found).
- Records are flat dicts: nested dicts become dotted keys, lists of dicts get index segments
  ("LIVE_PPLTN_STTS.0.AREA_NM"), lists of plain values stay lists. Strings are whitespace-stripped in both
  formats ("  245,000" becomes "245,000"); an empty XML element is "" (XML has no null), JSON null stays None.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any
from xml.etree import ElementTree
from xml.parsers import expat

from apis.engine import errors
from apis.engine.errors import redact, redaction_pattern

_NO_DATA = "no_data"  # a code's meaning: success, but nothing found


@dataclass(frozen=True)
class NormalizedResult:
    ok: bool
    http_status: int | None
    result_code: str | None
    result_msg: str | None
    records: list[dict[str, Any]]
    total_count: int | None
    page: dict[str, Any]
    error_class: str | None
    raw: str
    latency_ms: float = 0.0
    bytes: int = 0
    attempts: int = 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def failure(error_class: str, message: str, *, http_status: int | None = None, raw: str = "") -> NormalizedResult:
    """A result for a call that produced no usable body (a timeout, a reset, a replay miss)."""
    return NormalizedResult(
        ok=False,
        http_status=http_status,
        result_code=None,
        result_msg=message,
        records=[],
        total_count=None,
        page={},
        error_class=error_class,
        raw=raw,
        bytes=len(raw.encode("utf-8")),
    )


@dataclass
class _Reading:
    """What a family reader found in a parsed document, before the common rules apply."""

    family: str
    code: str | None = None
    msg: str | None = None
    meaning: str | None = None  # None: success; _NO_DATA; otherwise an error class
    records: list[Any] = field(default_factory=list)
    total: int | None = None
    page_no: int | None = None
    per_page: int | None = None


def normalize(
    body: bytes | str | None,
    *,
    http_status: int | None = 200,
    content_type: str | None = None,
    expect_records: bool = False,
    secrets: Iterable[str | None] = (),
) -> NormalizedResult:
    secrets = tuple(secrets)
    text = decode_body(body, content_type)
    size = len(body) if isinstance(body, bytes) else len(text.encode("utf-8"))
    raw = redact(text, secrets)
    kind, doc, problem = parse_body(text)

    reading = read_document(doc) if kind in ("json", "xml") else None

    if reading is None:
        error_class, message = _classify_without_envelope(kind, problem, http_status, text)
        if error_class is None:  # a parseable document in an unknown shape with a 2xx status
            error_class, message = errors.STRUCT_SCHEMA, "the body is in no envelope this engine knows"
        return _result(False, http_status, None, redact(message, secrets), [], None, {}, error_class, raw, size)

    meaning = reading.meaning
    if meaning is None and http_status is not None and http_status >= 400:
        # A success envelope under an error status: trust neither, report the status.
        meaning = _status_class(http_status) or errors.STRUCT_HTTP_4XX
    records = [
        flatten(record, empty="" if kind == "xml" else None)
        for record in reading.records
        if isinstance(record, Mapping)
    ]
    records += [{"value": _clean(record)} for record in reading.records if not isinstance(record, Mapping | list)]
    if _may_hold_secret(text, secrets):  # a service that echoes the request must not echo the key
        reading.msg = redact(reading.msg, secrets) if reading.msg else reading.msg
        records = [{k: redact(v, secrets) if isinstance(v, str) else v for k, v in r.items()} for r in records]
    page = _page(reading)
    if meaning is None or meaning == _NO_DATA:
        if meaning == _NO_DATA:
            records = []
        if expect_records and not records:
            return _result(
                False, http_status, reading.code, reading.msg, [], reading.total, page, errors.STRUCT_NO_DATA, raw, size
            )
        return _result(True, http_status, reading.code, reading.msg, records, reading.total, page, None, raw, size)
    return _result(False, http_status, reading.code, reading.msg, records, reading.total, page, meaning, raw, size)


def _may_hold_secret(text: str, secrets: tuple[str | None, ...]) -> bool:
    """Whether parsed values could carry a key: it is in the text, or escapes could hide it there."""
    pattern = redaction_pattern(tuple(sorted({s for s in secrets if s})))
    if pattern is None:
        return False
    return bool(pattern.search(text)) or "&#" in text or "\\u" in text


def _result(ok, http_status, code, msg, records, total, page, error_class, raw, size) -> NormalizedResult:
    return NormalizedResult(
        ok=ok,
        http_status=http_status,
        result_code=code,
        result_msg=msg,
        records=records,
        total_count=total,
        page=page,
        error_class=error_class,
        raw=raw,
        bytes=size,
    )


def _page(reading: _Reading) -> dict[str, Any]:
    page: dict[str, Any] = {}
    if reading.page_no is not None:
        page["page_no"] = reading.page_no
    if reading.per_page is not None:
        page["num_of_rows"] = reading.per_page
    if reading.page_no is not None and reading.per_page and reading.total is not None:
        page["has_more"] = reading.page_no * reading.per_page < reading.total
    return page


# ---------------------------------------------------------------------------------------------- decoding


_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding=["']([A-Za-z0-9_-]+)["']""")
_CHARSET = re.compile(r"charset=([A-Za-z0-9_-]+)", re.IGNORECASE)


def decode_body(body: bytes | str | None, content_type: str | None = None) -> str:
    """Text of a body: UTF-8 first, then the declared charset, then CP949 (a superset of EUC-KR)."""
    if body is None:
        return ""
    if isinstance(body, str):
        return body
    candidates = ["utf-8"]
    if match := _XML_ENCODING.match(body[:200]):
        candidates.append(match.group(1).decode("ascii"))
    if content_type and (match := _CHARSET.search(content_type)):
        candidates.append(match.group(1))
    candidates.append("cp949")
    for encoding in candidates:
        try:
            return body.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
    return body.decode("utf-8", errors="replace")


# ----------------------------------------------------------------------------------------------- parsing

_HTML_START = re.compile(
    r"^\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body|title|h1)\b", re.I | re.S
)
_TRUNCATING_EXPAT_ERRORS = {  # expat's codes for "the input ended early"
    expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS],
    expat.errors.codes[expat.errors.XML_ERROR_UNCLOSED_TOKEN],
    expat.errors.codes[expat.errors.XML_ERROR_PARTIAL_CHAR],
    expat.errors.codes[expat.errors.XML_ERROR_UNCLOSED_CDATA_SECTION],
}
# KOSIS sometimes writes JavaScript-style objects: {ORG_ID:"101",TBL_NM:"..."}.
_UNQUOTED_KEY = re.compile(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*:)")


def parse_body(text: str) -> tuple[str, Any, str | None]:
    """(kind, document, problem): kind is json, xml, html, text, empty, truncated or malformed."""
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        return "empty", None, "the body is empty"
    if stripped[0] in "{[":
        return _parse_json(stripped)
    if stripped[0] == "<":
        if _HTML_START.match(stripped):
            return "html", None, _html_title(stripped)
        return _parse_xml(stripped)
    return "text", None, stripped[:200]


def _parse_json(text: str) -> tuple[str, Any, str | None]:
    try:
        return "json", json.loads(text), None
    except json.JSONDecodeError as first:
        if _json_is_unclosed(text):
            return "truncated", None, f"the JSON body ends before it closes ({first.msg})"
        repaired = _UNQUOTED_KEY.sub(r'\1"\2"\3', text.replace("\t", " "))
        try:
            return "json", json.loads(repaired, strict=False), None
        except json.JSONDecodeError:
            return "malformed", None, f"the JSON body does not parse: {first.msg} at char {first.pos}"


def _json_is_unclosed(text: str) -> bool:
    """True when brackets are still open, or a string is, at the end of the text."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return in_string or depth > 0


def _parse_xml(text: str) -> tuple[str, Any, str | None]:
    """XML to the dict shape xmltodict gives (repeated tags become lists, "@attr", "#text"), built on
    ElementTree's C parser: 2.5x faster than xmltodict on a 10-item MOLIT page, which the executor's
    throughput feels at every call."""
    if "<!ENTITY" in text:
        return "malformed", None, "the XML body declares entities, which are refused"
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        code = getattr(error, "code", None)
        reason = expat.errors.messages.get(code, str(error)) if code else str(error)
        if code in _TRUNCATING_EXPAT_ERRORS:
            return "truncated", None, f"the XML body ends before it closes ({reason})"
        line = error.position[0] if getattr(error, "position", None) else "?"
        return "malformed", None, f"the XML body does not parse: {reason} at line {line}"
    return "xml", {_tag(root.tag): _element_value(root)}, None


def _tag(tag: str) -> str:
    return tag.rsplit("}", 1)[-1] if tag[0] == "{" else tag


def _element_value(element: ElementTree.Element) -> Any:
    text = element.text.strip() if element.text else ""
    if not len(element) and not element.attrib:
        return text or None
    value: dict[str, Any] = {f"@{k}": v for k, v in element.attrib.items()}
    for child in element:
        tag = _tag(child.tag)
        if len(child) or child.attrib:
            item = _element_value(child)
        else:  # a leaf, by far the most common element: no call
            item = child.text.strip() if child.text else ""
            item = item or None
        if tag not in value:
            value[tag] = item
        elif type(value[tag]) is list:  # element values are never lists, so a list is ours
            value[tag].append(item)
        else:
            value[tag] = [value[tag], item]
    if text:
        value["#text"] = text
    return value


def _html_title(text: str) -> str:
    match = re.search(r"<title[^>]*>(.*?)</title>", text, re.I | re.S)
    if match and match.group(1).strip():
        return "HTML page: " + re.sub(r"\s+", " ", match.group(1)).strip()[:120]
    return "HTML page instead of data"


def _classify_without_envelope(kind: str, problem: str | None, status: int | None, text: str):
    """(error_class, message) for a body no family reader recognized."""
    by_status = _status_class(status)
    if kind == "truncated":
        return errors.ENV_TRUNCATED, problem
    if kind == "empty":
        return by_status or errors.ENV_GATEWAY, problem or "the body is empty"
    if kind == "html":
        if status == 404:
            return errors.STRUCT_NOT_FOUND, problem
        return (
            errors.ENV_HTTP_5XX if by_status == errors.ENV_HTTP_5XX else by_status
        ) or errors.ENV_HTML_ERROR, problem
    if by_status:
        return by_status, f"HTTP {status}: {problem or 'no recognizable envelope'}"
    if kind == "malformed":
        return errors.STRUCT_MALFORMED, problem
    if kind == "text":
        return _classify_message(text) or errors.STRUCT_SCHEMA, f"plain text instead of data: {problem}"
    return None, problem


def _status_class(status: int | None) -> str | None:
    if status is None or status < 400:
        return None
    if status >= 500:
        return errors.ENV_HTTP_5XX
    if status == 429:
        return errors.ENV_QUOTA
    if status in (401, 403):
        return errors.STRUCT_AUTH
    if status == 404:
        return errors.STRUCT_NOT_FOUND
    if status in (408,):
        return errors.ENV_TIMEOUT
    return errors.STRUCT_HTTP_4XX


# ------------------------------------------------------------------------------------------ code tables

# The data.go.kr portal table (official HIRA/MOLIT guides); codes compare as numbers, so 00, 000, 0000,
# 0 and HIRA's unpadded 3 all land in the same place.
_PORTAL = {
    0: None,
    3: _NO_DATA,
    1: errors.ENV_PROVIDER,
    2: errors.ENV_PROVIDER,
    4: errors.ENV_PROVIDER,
    5: errors.ENV_PROVIDER,
    99: errors.ENV_PROVIDER,
    10: errors.STRUCT_INVALID_PARAM,
    11: errors.STRUCT_MISSING_PARAM,
    12: errors.STRUCT_RETIRED,
    20: errors.STRUCT_AUTH,
    21: errors.STRUCT_AUTH,
    22: errors.ENV_QUOTA,
    23: errors.ENV_QUOTA,
    30: errors.STRUCT_AUTH,
    31: errors.STRUCT_AUTH,
    32: errors.STRUCT_AUTH,
    33: errors.STRUCT_AUTH,
}
# INFO-/ERROR- codes: Seoul Open Data, R-ONE, 법정동코드 (StanReginCd).
_INFO = {
    "INFO-0": None,
    "INFO-000": None,
    "INFO-3": _NO_DATA,
    "INFO-200": _NO_DATA,
    "INFO-100": errors.STRUCT_AUTH,
    "ERROR-290": errors.STRUCT_AUTH,
    "ERROR-300": errors.STRUCT_MISSING_PARAM,
    "ERROR-1": errors.STRUCT_INVALID_PARAM,
    "ERROR-301": errors.STRUCT_INVALID_PARAM,
    "ERROR-310": errors.STRUCT_NOT_FOUND,
    "ERROR-331": errors.STRUCT_INVALID_PARAM,
    "ERROR-332": errors.STRUCT_INVALID_PARAM,
    "ERROR-333": errors.STRUCT_INVALID_PARAM,
    "ERROR-334": errors.STRUCT_INVALID_PARAM,
    "ERROR-335": errors.STRUCT_INVALID_PARAM,
    "ERROR-336": errors.STRUCT_INVALID_PARAM,
    "ERROR-500": errors.ENV_PROVIDER,
    "ERROR-600": errors.ENV_PROVIDER,
    "ERROR-601": errors.ENV_PROVIDER,
}
_KOSIS = {
    10: errors.STRUCT_AUTH,
    11: errors.STRUCT_AUTH,
    20: errors.STRUCT_MISSING_PARAM,
    21: errors.STRUCT_INVALID_PARAM,
    30: _NO_DATA,
    31: errors.STRUCT_INVALID_PARAM,
    40: errors.ENV_QUOTA,
    41: errors.STRUCT_INVALID_PARAM,
    42: errors.ENV_QUOTA,
    50: errors.ENV_PROVIDER,
}
_JUSO = {
    "0": None,
    "-999": errors.ENV_PROVIDER,
    "E0001": errors.STRUCT_AUTH,
    "E0014": errors.STRUCT_AUTH,
    "E0005": errors.STRUCT_MISSING_PARAM,
}
_SEOUL_BUS = {"0": None, "4": _NO_DATA, "1": errors.ENV_PROVIDER, "2": errors.STRUCT_INVALID_PARAM}
_NTS = {
    "OK": None,
    "BAD_JSON_REQUEST": errors.STRUCT_INVALID_PARAM,
    "REQUEST_DATA_MALFORMED": errors.STRUCT_INVALID_PARAM,
    "TOO_LARGE_REQUEST": errors.STRUCT_INVALID_PARAM,
    "INTERNAL_ERROR": errors.ENV_PROVIDER,
    "HTTP_ERROR": errors.ENV_PROVIDER,
}

_MESSAGE_HINTS = (
    (re.compile(r"KEY|인증|ACCESS_DENIED|UNREGISTERED|DEADLINE|UNSIGNED", re.I), errors.STRUCT_AUTH),
    (re.compile(r"LIMITED_NUMBER|초과|제한|TOO_MANY", re.I), errors.ENV_QUOTA),
    (re.compile(r"MANDATORY|필수", re.I), errors.STRUCT_MISSING_PARAM),
    (re.compile(r"NO_?DATA|없습니다|없음", re.I), _NO_DATA),
    (re.compile(r"NO_OPENAPI_SERVICE|폐기", re.I), errors.STRUCT_RETIRED),
    (re.compile(r"INVALID|PARAMETER|잘못된", re.I), errors.STRUCT_INVALID_PARAM),
    (re.compile(r"TIMEOUT|DB_ERROR|APPLICATION_ERROR|HTTP_ERROR|시스템|서버", re.I), errors.ENV_PROVIDER),
)


def _classify_message(message: str | None) -> str | None:
    for pattern, meaning in _MESSAGE_HINTS:
        if message and pattern.search(message):
            return meaning
    return None


def _portal_meaning(code: str | None, msg: str | None, *, gateway: bool = False) -> str | None:
    if code is None or code == "":
        return _classify_message(msg) if msg and not _is_success_text(msg) else None
    text = code.strip()
    if text.upper().startswith(("INFO-", "ERROR-")):
        return _info_meaning(text, msg)
    try:
        number = int(text)
    except ValueError:
        return _classify_message(msg) or errors.STRUCT_SERVICE_ERROR
    if number in _PORTAL:
        meaning = _PORTAL[number]
        if gateway and meaning == errors.ENV_PROVIDER:
            return errors.ENV_GATEWAY
        return meaning
    return _classify_message(msg) or errors.STRUCT_SERVICE_ERROR


def _info_meaning(code: str, msg: str | None) -> str | None:
    upper = code.strip().upper()
    if upper in _INFO:
        return _INFO[upper]
    if upper.startswith("ERROR-5") or upper.startswith("ERROR-6"):
        return errors.ENV_PROVIDER
    hinted = _classify_message(msg)
    return hinted if hinted else errors.STRUCT_SERVICE_ERROR


def _is_success_text(msg: str) -> bool:
    return bool(re.search(r"NORMAL|NOMAL|정상|^OK$", msg.strip(), re.I))


# ---------------------------------------------------------------------------------------- family readers


def read_document(doc: Any) -> _Reading | None:
    """Recognize the envelope family of a parsed document, or None."""
    if isinstance(doc, list):
        return _Reading("kosis", records=doc, total=len(doc))
    if not isinstance(doc, Mapping):
        return None
    gateway = _find_gateway_header(doc)
    if gateway is not None:
        return _read_gateway(gateway)
    for reader in _READERS:
        reading = reader(doc)
        if reading is not None:
            return reading
    return None


def _find_gateway_header(doc: Mapping) -> Mapping | None:
    """cmmMsgHeader at the root, under OpenAPI_ServiceResponse, or one level further down."""
    if isinstance(doc.get("cmmMsgHeader"), Mapping):
        return doc["cmmMsgHeader"]
    for value in doc.values():
        if isinstance(value, Mapping) and isinstance(value.get("cmmMsgHeader"), Mapping):
            return value["cmmMsgHeader"]
    return None


_ERROR_NAME = re.compile(r"^[A-Z][A-Z0-9_]+$")


def _read_gateway(header: Mapping) -> _Reading:
    code = _text(header.get("returnReasonCode"))
    err_msg = _text(header.get("errMsg"))
    auth_msg = _text(header.get("returnAuthMsg"))
    # Variant A: errMsg "SERVICE ERROR", name in returnAuthMsg. Variant B: name in errMsg, Korean text beside it.
    texts = [t for t in (err_msg, auth_msg) if t and t.upper() != "SERVICE ERROR"]
    names = [t for t in texts if _ERROR_NAME.match(t)]
    others = [t for t in texts if t not in names]
    msg = " / ".join(names + others) or err_msg or auth_msg
    meaning = _portal_meaning(code, msg, gateway=True)
    if meaning is None or meaning == _NO_DATA:
        # The gateway envelope only ever carries failures; an unknown or zero code is still one.
        meaning = _classify_message(msg) or errors.ENV_GATEWAY
        meaning = errors.ENV_GATEWAY if meaning == _NO_DATA else meaning
    return _Reading("gateway", code=code, msg=msg, meaning=meaning)


def _read_standard(doc: Mapping) -> _Reading | None:
    """data.go.kr response/header/body (also 주민등록's Response/head/items, MFDS's root header/body)."""
    container = None
    for name in ("response", "Response"):
        if isinstance(doc.get(name), Mapping):
            container = doc[name]
            break
    if container is None:
        if isinstance(doc.get("header"), Mapping) and ("body" in doc or _has_code(doc["header"])):
            container = doc
        else:
            return None
    header = container.get("header") if isinstance(container.get("header"), Mapping) else container.get("head")
    header = header if isinstance(header, Mapping) else {}
    body = container.get("body")
    if not isinstance(body, Mapping):
        body = container if "items" in container else (body if isinstance(body, Mapping) else {})
    code = _text(header.get("resultCode"))
    msg = _text(header.get("resultMsg"))
    if not header and not body:
        return None
    meaning = _portal_meaning(code, msg)
    # Without an <items> wrapper, <item> may sit straight under <body>, one or many (seen in TAGO's arrivals).
    records = _unwrap_items(body.get("items")) if "items" in body else _as_list(body.get("item"))
    return _Reading(
        "datagokr",
        code=code,
        msg=msg,
        meaning=meaning,
        records=records,
        total=_int(body.get("totalCount", header.get("totalCount"))),
        page_no=_int(body.get("pageNo", header.get("pageNo"))),
        per_page=_int(body.get("numOfRows", header.get("numOfRows"))),
    )


def _has_code(header: Mapping) -> bool:
    return "resultCode" in header


def _unwrap_items(items: Any) -> list[Any]:
    """items.item as list or object, a bare array, [{item: {...}}], "" or <items/> (None)."""
    if items is None or items == "" or (isinstance(items, str) and not items.strip()):
        return []
    if isinstance(items, Mapping):
        if "item" in items:
            return _as_list(items["item"])
        if len(items) == 1:
            return _as_list(next(iter(items.values())))
        return [items]
    if isinstance(items, list):
        out: list[Any] = []
        for entry in items:
            if isinstance(entry, Mapping) and set(entry) == {"item"}:
                out.extend(_as_list(entry["item"]))
            else:
                out.append(entry)
        return out
    return []


def _as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    return value if isinstance(value, list) else [value]


def _read_head_row(doc: Mapping) -> _Reading | None:
    """{"StanReginCd":[{"head":[...]},{"row":[...]}]} (R-ONE SttsApiTblData too), JSON or XML."""
    for name, value in doc.items():
        parts: list[Mapping] = []
        if isinstance(value, list) and value and all(isinstance(p, Mapping) for p in value):
            if any("head" in p for p in value):
                parts = value
        elif isinstance(value, Mapping) and "head" in value:
            parts = [value]
        if not parts:
            continue
        head: dict[str, Any] = {}
        rows: list[Any] = []
        for part in parts:
            head_value = part.get("head")
            for entry in _as_list(head_value):
                if isinstance(entry, Mapping):
                    head.update(entry)
            if "row" in part:
                rows.extend(_as_list(part["row"]))
        result = head.get("RESULT") if isinstance(head.get("RESULT"), Mapping) else {}
        code = _text(result.get("resultCode", result.get("CODE")))
        msg = _text(result.get("resultMsg", result.get("MESSAGE")))
        return _Reading(
            f"head_row:{name}",
            code=code,
            msg=msg,
            meaning=_info_meaning(code, msg) if code else None,
            records=rows,
            total=_int(head.get("totalCount", head.get("list_total_count"))),
            page_no=_int(head.get("pageNo")),
            per_page=_int(head.get("numOfRows")),
        )
    return None


def _read_result_only(doc: Mapping) -> _Reading | None:
    """An error or no-data answer that is only {"RESULT": {...}} (StanReginCd INFO-3, Seoul, R-ONE ERROR-290)."""
    result = doc.get("RESULT")
    if not isinstance(result, Mapping):
        return None
    code = _text(result.get("CODE", result.get("resultCode", result.get("RESULT.CODE"))))
    msg = _text(result.get("MESSAGE", result.get("resultMsg", result.get("RESULT.MESSAGE"))))
    others = {k: v for k, v in doc.items() if k not in ("RESULT", "list_total_count")}
    records: list[Any] = []
    for value in others.values():  # Seoul citydata: {"list_total_count":1, "RESULT":{...}, "CITYDATA":{...}}
        records.extend(_as_list(value) if isinstance(value, list | Mapping) else [])
    return _Reading(
        "seoul",
        code=code,
        msg=msg,
        meaning=_info_meaning(code, msg) if code else None,
        records=records,
        total=_int(doc.get("list_total_count")),
    )


def _read_seoul_service(doc: Mapping) -> _Reading | None:
    """Seoul Open Data {"<SERVICE>": {"list_total_count", "RESULT": {CODE, MESSAGE}, "row": [...]}}."""
    if len(doc) != 1:
        return None
    name, value = next(iter(doc.items()))
    if not isinstance(value, Mapping) or not ("RESULT" in value or "list_total_count" in value):
        return None
    reading = _read_result_only(value) or _Reading("seoul")
    rows = _as_list(value.get("row")) if "row" in value else reading.records
    reading.family = f"seoul:{name}"
    reading.records = rows
    reading.total = _int(value.get("list_total_count"))
    return reading


def _read_odcloud(doc: Mapping) -> _Reading | None:
    if "data" not in doc or not ({"currentCount", "perPage", "matchCount", "totalCount"} & set(doc)):
        return None
    match = _int(doc.get("matchCount"))
    total = match if match is not None else _int(doc.get("totalCount"))
    return _Reading(
        "odcloud",
        records=_as_list(doc.get("data")),
        total=total,
        page_no=_int(doc.get("page")),
        per_page=_int(doc.get("perPage")),
    )


def _read_nts(doc: Mapping) -> _Reading | None:
    if "status_code" not in doc:
        return None
    code = _text(doc.get("status_code"))
    msg = _text(doc.get("message", doc.get("msg"))) or code
    meaning = _NTS.get((code or "").upper(), errors.STRUCT_SERVICE_ERROR)
    records = _as_list(doc.get("data"))
    total = _int(doc.get("match_cnt", doc.get("valid_cnt")))
    return _Reading("nts", code=code, msg=msg, meaning=meaning, records=records, total=total)


def _read_odcloud_error(doc: Mapping) -> _Reading | None:
    """{"code": -401, "msg": "인증키는 필수 항목 입니다."} and friends."""
    if "code" not in doc or "msg" not in doc or len(doc) > 3:
        return None
    code = _text(doc.get("code"))
    msg = _text(doc.get("msg"))
    if code in ("-4", "-401", "-402"):
        meaning = errors.STRUCT_AUTH
    else:
        meaning = _classify_message(msg) or errors.STRUCT_SERVICE_ERROR
        meaning = errors.STRUCT_SERVICE_ERROR if meaning == _NO_DATA else meaning
    return _Reading("odcloud_error", code=code, msg=msg, meaning=meaning)


def _read_juso(doc: Mapping) -> _Reading | None:
    results = doc.get("results")
    if not isinstance(results, Mapping) or not isinstance(results.get("common"), Mapping):
        return None
    common = results["common"]
    code = _text(common.get("errorCode"))
    msg = _text(common.get("errorMessage"))
    if code in _JUSO:
        meaning = _JUSO[code]
    elif code and code.startswith("E"):
        meaning = errors.STRUCT_INVALID_PARAM
    else:
        meaning = _classify_message(msg) or errors.STRUCT_SERVICE_ERROR
    records = [entry for name, value in results.items() if name != "common" for entry in _as_list(value)]
    return _Reading(
        "juso",
        code=code,
        msg=msg,
        meaning=meaning,
        records=records,
        total=_int(common.get("totalCount")),
        page_no=_int(common.get("currentPage")),
        per_page=_int(common.get("countPerPage")),
    )


def _read_seoul_bus(doc: Mapping) -> _Reading | None:
    """ws.bus.go.kr: {"msgHeader", "msgBody": {"itemList"}} in JSON; <ServiceResult> in XML."""
    root = doc.get("ServiceResult") if isinstance(doc.get("ServiceResult"), Mapping) else doc
    header = root.get("msgHeader")
    if not isinstance(header, Mapping):
        return None
    code = _text(header.get("headerCd"))
    msg = _text(header.get("headerMsg"))
    meaning = _SEOUL_BUS[code] if code in _SEOUL_BUS else (_classify_message(msg) or errors.STRUCT_SERVICE_ERROR)
    body = root.get("msgBody")
    records = _as_list(body.get("itemList")) if isinstance(body, Mapping) else []
    return _Reading(
        "seoul_bus",
        code=code,
        msg=msg,
        meaning=meaning,
        records=records,
        total=_int(header.get("itemCount")) or len(records),
    )


def _read_seoul_subway(doc: Mapping) -> _Reading | None:
    """swopenapi.seoul.go.kr: {"errorMessage": {status, code, message, total}, "<list>": [...]}."""
    status = doc.get("errorMessage")
    if not isinstance(status, Mapping):
        return None
    code = _text(status.get("code"))
    msg = _text(status.get("message"))
    records = [entry for name, value in doc.items() if name != "errorMessage" for entry in _as_list(value)]
    return _Reading(
        "seoul_subway",
        code=code,
        msg=msg,
        meaning=_info_meaning(code, msg) if code else None,
        records=records,
        total=_int(status.get("total")),
    )


def _read_kosis_error(doc: Mapping) -> _Reading | None:
    if "err" not in doc and "errCode" not in doc:
        return None
    code = _text(doc.get("err", doc.get("errCode")))
    msg = _text(doc.get("errMsg"))
    meaning = _KOSIS.get(_int(code) if code else -1) or _classify_message(msg) or errors.STRUCT_SERVICE_ERROR
    return _Reading("kosis", code=code, msg=msg, meaning=meaning)


_READERS = (
    _read_standard,
    _read_juso,
    _read_seoul_bus,
    _read_seoul_subway,
    _read_odcloud,
    _read_nts,
    _read_kosis_error,
    _read_odcloud_error,
    _read_head_row,
    _read_result_only,
    _read_seoul_service,
)


# ------------------------------------------------------------------------------------------------ helpers


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, Mapping):  # an XML element with attributes keeps its text in "#text"
        value = value.get("#text")
        if value is None:
            return None
    return str(value).strip()


def _int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = _text(value)
    if text is None:
        return None
    text = text.replace(",", "")
    try:
        return int(text)
    except ValueError:
        return None


def _clean(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def flatten(record: Mapping[str, Any], prefix: str = "", *, empty: Any = None) -> dict[str, Any]:
    """Nested dicts to dotted keys; lists of dicts get index segments; plain lists stay lists.

    empty replaces None: XML cannot tell an empty element from a missing value, so XML records use "".
    """
    if not prefix and not any(type(v) in (dict, list) for v in record.values()):
        # The common case, a flat record: only clean the values.
        return {k: empty if v is None else v.strip() if isinstance(v, str) else v for k, v in record.items()}
    flat: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            if value:
                flat.update(flatten(value, f"{name}.", empty=empty))
            else:
                flat[name] = empty
        elif isinstance(value, list) and any(isinstance(v, Mapping) for v in value):
            for index, entry in enumerate(value):
                if isinstance(entry, Mapping):
                    flat.update(flatten(entry, f"{name}.{index}.", empty=empty))
                else:
                    flat[f"{name}.{index}"] = _clean(entry)
        elif isinstance(value, list):
            flat[name] = [_clean(v) for v in value]
        else:
            flat[name] = empty if value is None else _clean(value)
    return flat
