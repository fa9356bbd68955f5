"""NTS 사업자등록 상태조회/진위확인 on api.odcloud.kr: POST JSON bodies, both key forms, odcloud auth errors,
the registry (checksum, states moving with the clock), batch limits and research §5 chain 12 over HTTP."""

from __future__ import annotations

import json
from datetime import date, timedelta

import httpx
import pytest

from apis.sandbox.config import DEMO_KEY
from apis.sandbox.families import mfds, nts

STATUS = "api.odcloud.kr/api/nts-businessman/v1/status"
VALIDATE = "api.odcloud.kr/api/nts-businessman/v1/validate"


def post(sandbox_get, path, body, *, key=DEMO_KEY, headers=None, raw: bytes | None = None):
    query = {"serviceKey": key} if key is not None else {}
    data = raw if raw is not None else json.dumps(body).encode("utf-8")
    return sandbox_get(path, query, service_key=None, method="POST", body=data, headers=headers or {})


def numbers(state_cd: str, count: int, *, start: int = 100_000) -> list[str]:
    """Registered numbers in a given state today (found by walking the registry)."""
    found, serial = [], start
    while len(found) < count:
        number = nts.with_check_digit(f"{serial:09d}")
        entry = nts.registered_on(number, date(2026, 11, 18))
        if entry is not None and nts.status_record(number, date(2026, 11, 18))["b_stt_cd"] == state_cd:
            found.append(number)
        serial += 7919
    return found


def test_the_check_digit_is_the_real_algorithm():
    assert nts.check_digit_ok("2208657343") and nts.check_digit_ok("2208162517")
    assert not nts.check_digit_ok("1234567890") and not nts.check_digit_ok("220865734")
    assert all(nts.check_digit_ok(nts.with_check_digit(f"{n:09d}")) for n in range(100_000_000, 100_001_000, 37))


def test_it_reports_status_in_the_requests_order_with_the_live_envelope(sandbox_get):
    active = numbers("01", 2)
    response = post(sandbox_get, STATUS, {"b_no": [active[0], "1234567890", active[1]]})
    body = json.loads(response.text())
    assert response.status == 200 and list(body) == ["request_cnt", "match_cnt", "status_code", "data"]
    assert body["request_cnt"] == 3 and body["match_cnt"] == 2 and body["status_code"] == "OK"
    assert [d["b_no"] for d in body["data"]] == [active[0], "1234567890", active[1]]
    assert body["data"][0]["b_stt"] == "계속사업자" and body["data"][0]["tax_type_cd"]
    unknown = body["data"][1]
    assert unknown["b_stt"] == "" and unknown["tax_type"] == "국세청에 등록되지 않은 사업자등록번호입니다."


def test_it_has_suspended_and_closed_businesses_with_dates(sandbox_get):
    closed = numbers("03", 3)
    data = json.loads(post(sandbox_get, STATUS, {"b_no": closed}).text())["data"]
    assert all(d["b_stt"] == "폐업자" and len(d["end_dt"]) == 8 and d["end_dt"] <= "20261118" for d in data)
    suspended = json.loads(post(sandbox_get, STATUS, {"b_no": numbers("02", 1)}).text())["data"][0]
    assert suspended["b_stt"] == "휴업자" and suspended["end_dt"] == ""


def test_states_follow_the_sandbox_clock(sandbox_get):
    closed = numbers("03", 1)[0]
    entry = nts.business(closed)
    before = (entry.state_dt - timedelta(days=1)).isoformat() + "T09:00"
    earlier = json.loads(post(sandbox_get, STATUS, {"b_no": [closed]}, headers={"X-Sandbox-Now": before}).text())
    assert earlier["data"][0]["b_stt_cd"] == "01"
    before_opening = (entry.start_dt - timedelta(days=1)).isoformat() + "T09:00"
    unopened = json.loads(
        post(sandbox_get, STATUS, {"b_no": [closed]}, headers={"X-Sandbox-Now": before_opening}).text()
    )
    assert unopened["match_cnt"] == 0


def test_tax_types_follow_the_numbers_middle_digits():
    def registered(middle: str) -> list[nts.Business]:
        candidates = (nts.business(nts.with_check_digit(f"220{middle}{serial:04d}")) for serial in range(0, 4000, 97))
        return [b for b in candidates if b is not None]

    corporate, exempt, group = registered("81"), registered("93"), registered("89")
    assert corporate and all(b.tax_type_cd == "01" and len(b.corp_no) == 13 for b in corporate)
    assert exempt and all(b.tax_type_cd == "04" and not b.corp_no for b in exempt)
    assert group and all(b.tax_type_cd == "06" for b in group)
    personal = registered("12")
    assert {b.tax_type_cd for b in personal} == {"01", "02", "07"}


def test_it_takes_the_key_in_the_authorization_header(sandbox_get):
    response = post(
        sandbox_get, STATUS, {"b_no": ["2208162517"]}, key=None, headers={"Authorization": f"Infuser {DEMO_KEY}"}
    )
    assert response.status == 200 and json.loads(response.text())["match_cnt"] == 1


def test_it_answers_key_problems_with_odcloud_401s(sandbox_get):
    missing = post(sandbox_get, STATUS, {"b_no": ["2208162517"]}, key=None)
    assert missing.status == 401 and json.loads(missing.text()) == {"code": -401, "msg": "인증키는 필수 항목 입니다."}
    wrong = post(sandbox_get, STATUS, {"b_no": ["2208162517"]}, key="not-a-key")
    assert wrong.status == 401 and json.loads(wrong.text())["code"] == -4
    assert DEMO_KEY not in wrong.text()


def test_it_refuses_bad_bodies_and_batches_over_100(sandbox_get):
    bad_json = post(sandbox_get, STATUS, None, raw=b'{"b_no": ["2208162517"')
    assert bad_json.status == 400 and json.loads(bad_json.text()) == {"status_code": "BAD_JSON_REQUEST"}
    no_numbers = post(sandbox_get, STATUS, {"numbers": ["2208162517"]})
    assert no_numbers.status == 411 and json.loads(no_numbers.text())["status_code"] == "REQUEST_DATA_MALFORMED"
    too_many = post(sandbox_get, STATUS, {"b_no": ["2208162517"] * 101})
    assert too_many.status == 413 and json.loads(too_many.text())["status_code"] == "TOO_LARGE_REQUEST"
    assert post(sandbox_get, STATUS, {"b_no": ["2208162517"] * 100}).status == 200
    wrong_method = sandbox_get(STATUS, {"serviceKey": DEMO_KEY}, service_key=None)
    assert wrong_method.status == 405


def test_it_validates_start_date_and_name_against_the_registry(sandbox_get):
    number = numbers("01", 1)[0]
    entry = nts.business(number)
    truth = {"b_no": number, "start_dt": entry.start_dt.strftime("%Y%m%d"), "p_nm": entry.p_nm}
    body = json.loads(
        post(
            sandbox_get,
            VALIDATE,
            {
                "businesses": [
                    truth,
                    {**truth, "p_nm": "홍길동"},
                    {**truth, "b_nm": entry.b_nm},
                    {**truth, "b_nm": "다른상호"},
                ]
            },
        ).text()
    )
    assert list(body) == ["request_cnt", "valid_cnt", "status_code", "data"] and body["valid_cnt"] == 2
    ok, wrong_name, with_name, wrong_b_nm = body["data"]
    assert ok["valid"] == "01" and ok["status"]["b_stt_cd"] == "01" and ok["request_param"] == truth
    assert wrong_name == {
        "b_no": number,
        "valid": "02",
        "valid_msg": "확인할 수 없습니다.",
        "request_param": {**truth, "p_nm": "홍길동"},
    }
    assert with_name["valid"] == "01" and wrong_b_nm["valid"] == "02"
    missing = post(sandbox_get, VALIDATE, {"businesses": [{"b_no": number, "p_nm": entry.p_nm}]})
    assert missing.status == 411


@pytest.mark.slow
def test_chain_12_status_then_validate_over_http(sandbox_server):
    """Research §5 chain 12: status(b_no) → if b_stt_cd is 01 → validate(b_no, start_dt, p_nm). The numbers
    are the MFDS companies' bizrno, so the chain starts from another API's output."""
    wanted = sorted({d.bizrno for d in mfds.catalogue()})[:5]
    with httpx.Client(timeout=30) as client:
        status = client.post(sandbox_server.live(STATUS), params={"serviceKey": DEMO_KEY}, json={"b_no": wanted}).json()
        active = [d["b_no"] for d in status["data"] if d["b_stt_cd"] == "01"]
        assert active == wanted
        businesses = [
            {"b_no": n, "start_dt": nts.business(n).start_dt.strftime("%Y%m%d"), "p_nm": nts.business(n).p_nm}
            for n in active
        ]
        validated = client.post(
            sandbox_server.live(VALIDATE),
            headers={"Authorization": f"Infuser {DEMO_KEY}"},
            json={"businesses": businesses},
        ).json()
    assert validated["valid_cnt"] == len(active) and all(d["valid"] == "01" for d in validated["data"])
