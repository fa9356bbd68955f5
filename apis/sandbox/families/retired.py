"""Retired services that live clients still call: every request answers the gateway's 12
NO_OPENAPI_SERVICE_ERROR, as the live gateway does after a retirement.

- MOLIT RTMSOBJSvc on openapi.molit.go.kr (replaced by 1613000/RTMSDataSvc* in 2024);
- 건축물대장 BldRgstService_v2 (replaced by BldRgstHubService in 2025).
"""

from __future__ import annotations

from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.standard import StandardEnvelope
from apis.sandbox.registry import Param

RETIRED_ENVELOPE = StandardEnvelope(json_switch=("_type", "json"))
RTMS_OPS = (
    "getRTMSDataSvcAptTradeDev",
    "getRTMSDataSvcAptTrade",
    "getRTMSDataSvcAptRent",
    "getRTMSDataSvcOffiTrade",
    "getRTMSDataSvcOffiRent",
    "getRTMSDataSvcRHTrade",
    "getRTMSDataSvcRHRent",
    "getRTMSDataSvcSHTrade",
    "getRTMSDataSvcSHRent",
    "getRTMSDataSvcLandTrade",
    "getRTMSDataSvcNrgTrade",
)
BLD_V2_OPS = (
    "getBrTitleInfo",
    "getBrBasisOulnInfo",
    "getBrRecapTitleInfo",
    "getBrFlrOulnInfo",
    "getBrAtchJibunInfo",
    "getBrExposPubuseAreaInfo",
    "getBrWclfInfo",
    "getBrHsprcInfo",
    "getBrExposInfo",
    "getBrJijiguInfo",
)


def _retired(ctx, params):
    raise AssertionError("the engine answers retired services before any handler runs")


for host, suffix in (("openapi.molit.go.kr", ""), ("openapi.molit.go.kr:8081", "8081")):
    old_rtms = datagokr_service(
        id=f"RTMSOBJSvc{suffix}",
        org="",
        host=host,
        base_path="/OpenAPI_ToolInstallPackage/service/rest/RTMSOBJSvc",
        provider_ko="국토교통부",
        provider_en="MOLIT",
        title_ko="국토교통부 실거래가 정보 (구 RTMSOBJSvc, 2024년 폐기)",
        envelope=RETIRED_ENVELOPE,
        schemes=("http",),
        retired=True,
    )
    for op in RTMS_OPS:
        old_rtms.operation(
            id=f"molit_retired_rtmsobjsvc{suffix}_{op}",
            path=f"/{op}",
            summary_ko=f"(폐기) {op}",
            params=[Param("LAWD_CD", "지역코드", required=True), Param("DEAL_YMD", "계약월", required=True)],
        )(_retired)

BLD_V2 = datagokr_service(
    id="BldRgstService_v2",
    org="1613000",
    provider_ko="국토교통부",
    provider_en="MOLIT",
    title_ko="국토교통부_건축물대장정보 서비스 (v2, 2025년 폐기)",
    envelope=RETIRED_ENVELOPE,
    retired=True,
)
for op in BLD_V2_OPS:
    BLD_V2.operation(
        id=f"molit_retired_bldrgst_v2_{op}",
        path=f"/{op}",
        summary_ko=f"(폐기) {op}",
        params=[Param("sigunguCd", "시군구코드", required=True), Param("bjdongCd", "법정동코드", required=True)],
    )(_retired)
