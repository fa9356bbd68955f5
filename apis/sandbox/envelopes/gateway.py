"""The data.go.kr gateway's own error answer (OpenAPI_ServiceResponse/cmmMsgHeader), variants A and B.

Key, quota and retired-service problems come from the gateway, before the service sees the call.
"""

from __future__ import annotations

from apis.sandbox.envelopes.base import dumps
from apis.sandbox.wire import JSON_UTF8, SandboxResponse, respond

# returnReasonCode -> (error name, Korean text) as the portal's guides list them.
GATEWAY_CODES: dict[str, tuple[str, str]] = {
    "01": ("APPLICATION_ERROR", "어플리케이션 에러"),
    "04": ("HTTP_ERROR", "HTTP 에러"),
    "05": ("SERVICETIME_OUT", "서비스 연결실패 에러"),
    "10": ("INVALID_REQUEST_PARAMETER_ERROR", "잘못된 요청 파라메터 에러"),
    "11": ("NO_MANDATORY_REQUEST_PARAMETERS_ERROR", "필수요청 파라메터가 없음"),
    "12": ("NO_OPENAPI_SERVICE_ERROR", "해당 오픈API서비스가 없거나 폐기됨"),
    "20": ("SERVICE_ACCESS_DENIED_ERROR", "서비스 접근거부"),
    "21": ("TEMPORARILY_DISABLE_THE_SERVICEKEY_ERROR", "일시적으로 사용할 수 없는 서비스 키"),
    "22": ("LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR", "서비스 요청제한횟수 초과에러"),
    "30": ("SERVICE_KEY_IS_NOT_REGISTERED_ERROR", "등록되지 않은 서비스키"),
    "31": ("DEADLINE_HAS_EXPIRED_ERROR", "기한만료된 서비스키"),
    "32": ("UNREGISTERED_IP_ERROR", "등록되지 않은 IP"),
    "33": ("UNSIGNED_CALL_ERROR", "서명되지 않은 호출"),
    "99": ("UNKNOWN_ERROR", "기타에러"),
}

GATEWAY_XML = "text/xml;charset=UTF-8"


def gateway_header(code: str, variant: str) -> dict[str, str]:
    name, korean = GATEWAY_CODES.get(code, GATEWAY_CODES["99"])
    if variant == "A":
        return {"errMsg": "SERVICE ERROR", "returnAuthMsg": name, "returnReasonCode": code}
    return {"errMsg": name, "returnAuthMsg": korean, "returnReasonCode": code}


def gateway_error(
    code: str,
    *,
    variant: str = "B",
    as_json: bool = False,
    status: int = 200,
    json_root: bool = True,
) -> SandboxResponse:
    """The gateway envelope; json_root=False drops OpenAPI_ServiceResponse (seen for retired services)."""
    header = gateway_header(code, variant)
    if as_json:
        body = {"cmmMsgHeader": header}
        return respond(dumps({"OpenAPI_ServiceResponse": body} if json_root else body), JSON_UTF8, status)
    inner = "".join(f"\t\t<{k}>{v}</{k}>\n" for k, v in header.items())
    xml = f"<OpenAPI_ServiceResponse>\n\t<cmmMsgHeader>\n{inner}\t</cmmMsgHeader>\n</OpenAPI_ServiceResponse>"
    return respond(xml, GATEWAY_XML, status)
