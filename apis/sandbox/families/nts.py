"""국세청 사업자등록정보 진위확인 및 상태조회 (api.odcloud.kr/api/nts-businessman/v1): POST /status and
/validate over a deterministic registry of every well-formed 사업자등록번호.

A number is registered when its check digit is right (the real checksum) and a stable hash says so
(about 88 %). Its tax type follows the number's middle two digits (개인, 법인, 면세, 단체), its state
(계속 / 휴업 / 폐업) and dates move with the sandbox clock: a business opened after the clock does not
exist yet, and one closed later is still 계속사업자.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, timedelta

from apis.sandbox.envelopes.odcloud import NtsEnvelope, OdcloudAuth
from apis.sandbox.errors import ServiceError
from apis.sandbox.families._places import person_name
from apis.sandbox.rand import pick_weighted, rng, stable_int
from apis.sandbox.registry import Field, Param, Result, service

STATES = {"01": "계속사업자", "02": "휴업자", "03": "폐업자"}
TAX_TYPES = {
    "01": "부가가치세 일반과세자",
    "02": "부가가치세 간이과세자",
    "03": "부가가치세 과세특례자",
    "04": "부가가치세 면세사업자",
    "05": "수익사업을 영위하지 않는 비영리법인이거나 고유번호가 부여된 단체,국가기관 등",
    "06": "고유번호가 부여된 단체",
    "07": "부가가치세 간이과세자(세금계산서 발급사업자)",
}
UNREGISTERED = "국세청에 등록되지 않은 사업자등록번호입니다."
NOT_VALID = "확인할 수 없습니다."
MAX_NUMBERS = 100
CORPORATE = ("81", "85", "86", "87", "88", "84")
PERSONAL_TRADES = [
    (("도소매", "의류"), "상회"),
    (("음식점업", "한식"), "식당"),
    (("서비스", "미용업"), "헤어"),
    (("음식점업", "커피전문점"), "커피"),
    (("도소매", "전자상거래"), "몰"),
    (("제조업", "금속가공"), "공업사"),
    (("정보통신업", "소프트웨어 개발"), "소프트"),
    (("서비스", "사진촬영"), "스튜디오"),
    (("도소매", "편의점"), "마트"),
    (("부동산업", "부동산중개"), "공인중개사사무소"),
]
CORPORATE_TRADES = [
    (("제조업", "의약품"), "제약"),
    (("정보통신업", "응용소프트웨어 개발"), "테크"),
    (("건설업", "건축공사"), "건설"),
    (("도소매", "무역"), "물산"),
    (("제조업", "전자부품"), "전자"),
    (("서비스", "경영컨설팅"), "컨설팅"),
    (("제조업", "식품"), "푸드"),
    (("운수업", "화물운송"), "로지스"),
]
NAME_WORDS = (
    "한빛",
    "대한",
    "미래",
    "세종",
    "동방",
    "태양",
    "새한",
    "우리",
    "청솔",
    "한결",
    "다온",
    "가람",
    "누리",
    "보람",
    "선진",
    "삼원",
)
WEIGHTS = (1, 3, 7, 1, 3, 7, 1, 3, 5)


def check_digit_ok(b_no: str) -> bool:
    """The 사업자등록번호 checksum: weights 1,3,7,1,3,7,1,3,5 plus the carry of digit 9 × 5."""
    if len(b_no) != 10 or not b_no.isdigit():
        return False
    digits = [int(c) for c in b_no]
    total = sum(d * w for d, w in zip(digits, WEIGHTS, strict=False)) + digits[8] * 5 // 10
    return (10 - total % 10) % 10 == digits[9]


def with_check_digit(first_nine: str) -> str:
    """The valid 10-digit number that starts with these nine digits."""
    digits = [int(c) for c in first_nine]
    total = sum(d * w for d, w in zip(digits, WEIGHTS, strict=False)) + digits[8] * 5 // 10
    return first_nine + str((10 - total % 10) % 10)


@dataclass(frozen=True)
class Business:
    b_no: str
    tax_type_cd: str
    start_dt: date
    state_cd: str  # 01, or 02/03 once state_dt has passed
    state_dt: date | None  # when it suspended (02) or closed (03)
    p_nm: str
    b_nm: str
    corp_no: str
    b_sector: str
    b_type: str
    previous_tax_type_cd: str  # "" when it never changed
    tax_type_change_dt: date | None
    invoice_apply_dt: date | None
    utcc_yn: str


def _day(r, start: date, end: date) -> date:
    return start + timedelta(days=r.randint(0, max(0, (end - start).days)))


def business(b_no: str) -> Business | None:
    """The registry entry of a number, whatever the clock says (see state_on for that)."""
    if not check_digit_ok(b_no) or b_no[0] == "0" or stable_int("nts-registered", b_no) % 100 >= 88:
        return None
    r = rng("nts", b_no)
    middle = b_no[3:5]
    corporate = middle in CORPORATE
    if corporate or middle == "80":
        tax_type = "01"
    elif middle in ("82", "83"):
        tax_type = "05"
    elif middle == "89":
        tax_type = "06"
    elif middle >= "90":
        tax_type = "04"
    else:
        tax_type = pick_weighted(r, [("01", 0.6), ("02", 0.25), ("07", 0.15)])
    start = date(
        int(
            pick_weighted(
                r, [(r.randint(1985, 1999), 0.15), (r.randint(2000, 2015), 0.4), (r.randint(2016, 2026), 0.45)]
            )
        ),
        1,
        1,
    )
    start = _day(r, start, min(date(start.year, 12, 31), date(2026, 10, 30)))
    state_cd = pick_weighted(r, [("01", 0.82), ("02", 0.03), ("03", 0.15)])
    state_dt = _day(r, start + timedelta(days=90), date(2026, 12, 31)) if state_cd != "01" else None
    trades = CORPORATE_TRADES if corporate else PERSONAL_TRADES
    (sector, kind), suffix = trades[r.randrange(len(trades))]
    word = r.choice(NAME_WORDS)
    b_nm = f"{pick_weighted(r, [('주식회사 ', 0.5), ('(주)', 0.5)])}{word}{suffix}" if corporate else f"{word}{suffix}"
    previous, changed = "", None
    if tax_type in ("01", "02", "07") and not corporate and r.random() < 0.25:
        previous = "02" if tax_type == "01" else "01"
        changed = _day(r, start + timedelta(days=180), date(2026, 7, 1))
    return Business(
        b_no=b_no,
        tax_type_cd=tax_type,
        start_dt=start,
        state_cd=state_cd,
        state_dt=state_dt,
        p_nm=person_name(r),
        b_nm=b_nm,
        corp_no=f"1101{r.randint(10, 99)}{r.randint(0, 9999999):07d}" if corporate else "",
        b_sector=sector,
        b_type=kind,
        previous_tax_type_cd=previous,
        tax_type_change_dt=changed,
        invoice_apply_dt=_day(r, max(start, date(2024, 7, 1)), date(2026, 7, 1)) if tax_type == "07" else None,
        utcc_yn="Y" if state_cd == "03" and r.random() < 0.02 else "N",
    )


def registered_on(b_no: str, today: date) -> Business | None:
    """The entry when the business exists on the sandbox day."""
    found = business(b_no)
    return found if found is not None and found.start_dt <= today else None


def active_number(*parts: object, corporate: bool = True) -> str:
    """A deterministic number registered as 계속사업자 on any day after 2026-10-31 (for other families' data)."""
    r = rng("nts-active", *parts)
    while True:
        middle = r.choice(("81", "86", "87")) if corporate else f"{r.randint(1, 79):02d}"
        candidate = with_check_digit(f"{r.randint(101, 899)}{middle}{r.randint(0, 9999):04d}")
        found = business(candidate)
        if found is not None and found.state_cd == "01" and found.start_dt <= date(2026, 10, 31):
            return candidate


def _ymd(day: date | None) -> str:
    return day.strftime("%Y%m%d") if day else ""


def status_record(b_no: str, today: date) -> dict[str, str]:
    found = registered_on(b_no, today)
    if found is None:
        return {
            "b_no": b_no,
            "b_stt": "",
            "b_stt_cd": "",
            "tax_type": UNREGISTERED,
            "tax_type_cd": "",
            "end_dt": "",
            "utcc_yn": "",
            "tax_type_change_dt": "",
            "invoice_apply_dt": "",
            "rbf_tax_type": "",
            "rbf_tax_type_cd": "",
        }
    state = found.state_cd if found.state_dt is not None and found.state_dt <= today else "01"
    changed = found.tax_type_change_dt if found.tax_type_change_dt and found.tax_type_change_dt <= today else None
    tax_type = found.tax_type_cd if changed or not found.previous_tax_type_cd else found.previous_tax_type_cd
    previous = found.previous_tax_type_cd if changed else ""
    invoice = found.invoice_apply_dt if found.invoice_apply_dt and found.invoice_apply_dt <= today else None
    return {
        "b_no": b_no,
        "b_stt": STATES[state],
        "b_stt_cd": state,
        "tax_type": TAX_TYPES[tax_type],
        "tax_type_cd": tax_type,
        "end_dt": _ymd(found.state_dt) if state == "03" else "",
        "utcc_yn": found.utcc_yn if state == "03" else "N",
        "tax_type_change_dt": _ymd(changed),
        "invoice_apply_dt": _ymd(invoice),
        "rbf_tax_type": TAX_TYPES[previous] if previous else "해당없음",
        "rbf_tax_type_cd": previous or "99",
    }


NTS = service(
    id="nts-businessman",
    provider_ko="국세청",
    provider_en="National Tax Service (NTS)",
    family="odcloud_nts",
    host="api.odcloud.kr",
    base_path="/api/nts-businessman/v1",
    title_ko="국세청_사업자등록정보 진위확인 및 상태조회 서비스",
    envelope=NtsEnvelope(),
    auth=OdcloudAuth(),
    schemes=("https",),
)


def _json_body(ctx) -> dict:
    try:
        body = json.loads(ctx.req.body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ServiceError("BAD_JSON_REQUEST", http_status=400) from None
    if not isinstance(body, dict):
        raise ServiceError("BAD_JSON_REQUEST", http_status=400)
    return body


def _number(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ServiceError("REQUEST_DATA_MALFORMED", http_status=411)
    return str(value).strip()


def _batch(body: dict, name: str) -> list:
    items = body.get(name)
    if not isinstance(items, list) or not items:
        raise ServiceError("REQUEST_DATA_MALFORMED", http_status=411)
    if len(items) > MAX_NUMBERS:
        raise ServiceError("TOO_LARGE_REQUEST", http_status=413)
    return items


STATUS_FIELDS = [
    Field("b_no", "사업자등록번호", example="2208162517"),
    Field("b_stt", "납세자상태 (계속사업자, 휴업자, 폐업자)", example="계속사업자"),
    Field("b_stt_cd", "납세자상태 코드 (01 계속, 02 휴업, 03 폐업)", example="01"),
    Field(
        "tax_type",
        "과세유형 메시지 (미등록: 국세청에 등록되지 않은 사업자등록번호입니다.)",
        example="부가가치세 일반과세자",
    ),
    Field(
        "tax_type_cd",
        "과세유형 코드 (01 일반, 02 간이, 03 과세특례, 04 면세, 05 비영리법인·국가기관, 06 고유번호 단체, 07 간이(세금계산서 발급))",
        example="01",
    ),
    Field("end_dt", "폐업일 (YYYYMMDD)", example=""),
    Field("utcc_yn", "단위과세전환폐업여부 (Y/N)", example="N"),
    Field("tax_type_change_dt", "최근과세유형전환일자 (YYYYMMDD)", example=""),
    Field("invoice_apply_dt", "세금계산서적용일자 (YYYYMMDD)", example=""),
    Field("rbf_tax_type", "직전과세유형 메시지", example="해당없음"),
    Field("rbf_tax_type_cd", "직전과세유형 코드 (99 해당없음)", example="99"),
]


@NTS.operation(
    id="nts_business_status",
    path="/status",
    method="POST",
    summary_ko="사업자등록 상태조회",
    summary_en="Business registration status (계속/휴업/폐업, tax type) of up to 100 numbers",
    params=[
        Param(
            "b_no",
            "사업자등록번호 배열 (하이픈 없이 10자리, 최대 100개)",
            required=True,
            location="body",
            schema={
                "type": "array",
                "items": {"type": "string", "pattern": "^[0-9]{10}$", "example": "2208162517"},
                "minItems": 1,
                "maxItems": MAX_NUMBERS,
                "example": ["2208162517"],
            },
        )
    ],
    fields=STATUS_FIELDS,
    example_body={"b_no": ["2208162517", "1234567890"]},
    notes='JSON body {"b_no":[…]}; the answer keeps the request\'s order. A number that is malformed, has a wrong '
    'check digit or is not in the registry comes back with b_stt "" and tax_type "국세청에 등록되지 않은 '
    '사업자등록번호입니다." (match_cnt counts the others). Errors: body that is not JSON → 400 '
    '{"status_code":"BAD_JSON_REQUEST"}; no b_no list → 411 REQUEST_DATA_MALFORMED; more than 100 → 413 '
    "TOO_LARGE_REQUEST (codes from the service's error table; exact bodies unconfirmed).",
)
def business_status(ctx, params):
    numbers = [_number(n) for n in _batch(_json_body(ctx), "b_no")]
    today = ctx.now.date()
    records = [status_record(n, today) for n in numbers]
    matched = sum(1 for r in records if r["b_stt_cd"])
    return Result(records, total=len(records), meta={"request_cnt": len(numbers), "match_cnt": matched})


OPTIONAL = ("p_nm2", "b_nm", "corp_no", "b_sector", "b_type", "b_adr")
# (name, 설명, example) of one /validate entry, as the service's request model lists them.
VALIDATE_ENTRY = (
    ("b_no", "사업자등록번호 (하이픈 없이 10자리, 필수)", "2208162517"),
    ("start_dt", "개업일자 (YYYYMMDD, 필수)", "20200131"),
    ("p_nm", "대표자성명 (필수)", "홍길동"),
    ("p_nm2", "대표자성명2 (외국인 한글명)", ""),
    ("b_nm", "상호", ""),
    ("corp_no", "법인등록번호 (13자리)", ""),
    ("b_sector", "주업태명", ""),
    ("b_type", "주종목명", ""),
    ("b_adr", "사업장주소", ""),
)


def _example_entry() -> dict[str, str]:
    """A /validate entry that matches the registry (valid 01), for the operation's example."""
    found = business(active_number("nts-validate-example"))
    return {"b_no": found.b_no, "start_dt": _ymd(found.start_dt), "p_nm": found.p_nm}


def _matches(found: Business, request: dict[str, str]) -> bool:
    if request["start_dt"] != _ymd(found.start_dt) or request["p_nm"].replace(" ", "") != found.p_nm:
        return False
    held = {"b_nm": found.b_nm, "corp_no": found.corp_no, "b_sector": found.b_sector, "b_type": found.b_type}
    for name in OPTIONAL:
        given = request.get(name, "").strip()
        if not given:
            continue
        if name in held:
            if given.replace("-", "") != held[name].replace("-", ""):
                return False
        else:
            return False  # p_nm2 and b_adr are not held by the sandbox registry: a given value cannot match
    return True


@NTS.operation(
    id="nts_business_validate",
    path="/validate",
    method="POST",
    summary_ko="사업자등록정보 진위확인",
    summary_en="Check a business's 개업일자 and 대표자명 (and optional details) against the registry",
    params=[
        Param(
            "businesses",
            "진위확인 대상 배열 (최대 100개): b_no, start_dt, p_nm 필수; p_nm2, b_nm, corp_no, b_sector, b_type, b_adr 선택",
            required=True,
            location="body",
            schema={
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["b_no", "start_dt", "p_nm"],
                    "properties": {
                        name: {"type": "string", "description": description, **({"example": ex} if ex else {})}
                        for name, description, ex in VALIDATE_ENTRY
                    },
                },
                "minItems": 1,
                "maxItems": MAX_NUMBERS,
            },
        )
    ],
    fields=[
        Field("b_no", "사업자등록번호", example="2208162517"),
        Field("valid", "진위확인 결과 (01 일치, 02 확인할 수 없음)", example="02"),
        Field("valid_msg", "02일 때: 확인할 수 없습니다.", example="확인할 수 없습니다."),
        Field("request_param", "요청 값 그대로", example="{…}"),
        Field("status", "01일 때: 상태조회와 같은 항목", example="{…}"),
    ],
    example_body={"businesses": [_example_entry(), {"b_no": "2208162517", "start_dt": "20200131", "p_nm": "홍길동"}]},
    notes="valid 01 when b_no is registered on the sandbox day and start_dt and p_nm (spaces ignored) match; b_nm, "
    "corp_no, b_sector and b_type are compared when given; a given p_nm2 or b_adr never matches (the sandbox "
    "does not hold them). Entries missing b_no, start_dt or p_nm → 411 REQUEST_DATA_MALFORMED.",
)
def business_validate(ctx, params):
    today = ctx.now.date()
    records = []
    for entry in _batch(_json_body(ctx), "businesses"):
        if not isinstance(entry, dict):
            raise ServiceError("REQUEST_DATA_MALFORMED", http_status=411)
        request = {
            name: _number(entry[name])
            for name in ("b_no", "start_dt", "p_nm", *OPTIONAL)
            if entry.get(name) is not None
        }
        if not all(request.get(name) for name in ("b_no", "start_dt", "p_nm")):
            raise ServiceError("REQUEST_DATA_MALFORMED", http_status=411)
        found = registered_on(request["b_no"], today)
        if found is not None and _matches(found, request):
            records.append(
                {
                    "b_no": request["b_no"],
                    "valid": "01",
                    "request_param": request,
                    "status": status_record(request["b_no"], today),
                }
            )
        else:
            records.append({"b_no": request["b_no"], "valid": "02", "valid_msg": NOT_VALID, "request_param": request})
    valid = sum(1 for r in records if r["valid"] == "01")
    return Result(records, total=len(records), meta={"request_cnt": len(records), "valid_cnt": valid})
