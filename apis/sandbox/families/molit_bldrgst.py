"""국토교통부 건축HUB 건축물대장정보 서비스 (1613000/BldRgstHubService): 표제부 (getBrTitleInfo).

One record per building (per 동 of an apartment complex), describing the same buildings MOLIT trades
refer to: a trade's sggCd/umdCd/bonbun/bubun are this operation's sigunguCd/bjdongCd/bun/ji.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.standard import StandardEnvelope
from apis.sandbox.errors import InvalidParam
from apis.sandbox.rand import stable_int
from apis.sandbox.registry import Field, Param
from apis.sandbox.world import buildings, regions

BLD_RGST_HUB = datagokr_service(
    id="BldRgstHubService",
    org="1613000",
    provider_ko="국토교통부",
    provider_en="Ministry of Land, Infrastructure and Transport (MOLIT)",
    title_ko="국토교통부_건축HUB_건축물대장정보 서비스",
    envelope=StandardEnvelope(json_switch=("_type", "json"), success_code="00", success_msg="NORMAL SERVICE"),
)

PURPOSE = {
    "apt": ("02000", "공동주택", "아파트"),
    "offi": ("14000", "업무시설", "오피스텔"),
    "rh": ("02000", "공동주택", ""),
    "house": ("01000", "단독주택", ""),
    "commercial": ("03000", "제1종근린생활시설", "소매점"),
}


def created_day(use_apr_day: str) -> str:
    """When the register row was made: a month after use approval, or the 2009 digitisation for older ones."""
    approved = datetime.strptime(use_apr_day, "%Y%m%d").date()
    return max(approved + timedelta(days=30), date(2009, 3, 20)).strftime("%Y%m%d")


def title_records(b: buildings.Building) -> list[dict]:
    """표제부 rows of one building: one per 동 of a complex, else one."""
    region = b.region
    purpose_cd, purpose_nm, etc = PURPOSE[b.kind]
    if b.kind == "rh":
        etc = b.house_type if b.house_type == "연립" else "다세대주택"
    if b.kind == "house":
        etc = "단독주택" if b.house_type == "단독" else "다가구주택"
    collective = b.kind in ("apt", "offi") or (b.kind == "rh")
    structure = ("21", "철근콘크리트구조") if b.kind != "house" or b.build_year >= 1990 else ("11", "벽돌구조")
    plat_plc = f"{region.full_name} {'산' if b.plat_gb_cd == '1' else ''}{b.bun}{'-' + str(b.ji) if b.ji else ''}번지"
    new_plat = f" {region.sido} {region.sigungu + ' ' if region.sigungu else ''}{b.road_name} {b.road_bonbun}{'-' + str(b.road_bubun) if b.road_bubun else ''}"
    dongs = b.dong_names or ("",)
    rows = []
    for index, dong in enumerate(dongs):
        share = 1 / len(dongs)
        households = b.households // len(dongs) + (1 if index < b.households % len(dongs) else 0)
        tot_area = round(b.tot_area * share, 3)
        arch = round(b.arch_area * share, 3)
        pk = f"{b.sigungu_cd}-{stable_int('mgmBldrgstPk', b.region_code, b.bun, b.ji, dong) % 90000000 + 1000000}"
        rows.append(
            {
                "archArea": arch,
                "atchBldArea": 0,
                "atchBldCnt": 0,
                "bcRat": round(b.arch_area / b.plat_area * 100, 2) if b.plat_area else 0,
                "bjdongCd": b.bjdong_cd,
                "bldNm": b.name,
                "block": " ",
                "bun": b.bonbun,
                "bylotCnt": 0,
                "crtnDay": created_day(b.use_apr_day),
                "dongNm": dong,
                "emgenUseElvtCnt": 1 if b.grnd_flr > 10 else 0,
                "etcPurps": etc,
                "fmlyCnt": households if b.kind == "house" else 0,
                "grndFlrCnt": b.grnd_flr,
                "heit": round(b.grnd_flr * 2.9 + 1.5, 1),
                "hhldCnt": households if b.kind != "house" else 0,
                "hoCnt": households if b.kind == "offi" else 0,
                "ji": b.bubun,
                "lot": " ",
                "mainAtchGbCd": "0",
                "mainAtchGbCdNm": "주건축물",
                "mainPurpsCd": purpose_cd,
                "mainPurpsCdNm": purpose_nm,
                "mgmBldrgstPk": pk,
                "naBjdongCd": b.bjdong_cd,
                "naMainBun": b.road_bonbun,
                "naRoadCd": b.road_code,
                "naSubBun": b.road_bubun,
                "naUgrndCd": b.underground,
                "newPlatPlc": new_plat,
                "platArea": round(b.plat_area, 3) if index == 0 else 0,
                "platGbCd": b.plat_gb_cd,
                "platPlc": plat_plc,
                "pmsDay": f"{int(b.use_apr_day[:4]) - 3}{b.use_apr_day[4:]}",
                "regstrGbCd": "2" if collective else "1",
                "regstrGbCdNm": "집합" if collective else "일반",
                "regstrKindCd": "3" if collective else "2",
                "regstrKindCdNm": "표제부" if collective else "일반건축물",
                "rideUseElvtCnt": (2 if b.grnd_flr > 15 else 1) if b.grnd_flr > 5 else 0,
                "rnum": 0,
                "sigunguCd": b.sigungu_cd,
                "splotNm": " ",
                "stcnsDay": f"{int(b.use_apr_day[:4]) - 2}{b.use_apr_day[4:]}",
                "strctCd": structure[0],
                "strctCdNm": structure[1],
                "totArea": tot_area,
                "ugrndFlrCnt": b.ugrnd_flr,
                "useAprDay": b.use_apr_day,
                "vlRat": round(b.tot_area / b.plat_area * 100, 2) if b.plat_area else 0,
            }
        )
    return rows


FIELDS = [
    Field("archArea", "건축면적 (㎡)", type="number", example="1520.35"),
    Field("atchBldArea", "부속건축물면적 (㎡)", type="number", example="0"),
    Field("atchBldCnt", "부속건축물수", type="integer", example="0"),
    Field("bcRat", "건폐율 (%)", type="number", example="18.2"),
    Field("bjdongCd", "법정동코드", example="10300"),
    Field("bldNm", "건물명", example="개포래미안"),
    Field("block", "블록", example=" "),
    Field("bun", "번", example="0012"),
    Field("bylotCnt", "외필지수", type="integer", example="0"),
    Field("crtnDay", "생성일자", example="20090320"),
    Field("dongNm", "동명칭", example="101동"),
    Field("emgenUseElvtCnt", "비상용승강기수", type="integer", example="1"),
    Field("etcPurps", "기타용도", example="아파트"),
    Field("fmlyCnt", "가구수", type="integer", example="0"),
    Field("grndFlrCnt", "지상층수", type="integer", example="15"),
    Field("heit", "높이 (m)", type="number", example="45.0"),
    Field("hhldCnt", "세대수", type="integer", example="120"),
    Field("hoCnt", "호수", type="integer", example="0"),
    Field("ji", "지", example="0000"),
    Field("lot", "로트", example=" "),
    Field("mainAtchGbCd", "주부속구분코드 (0 주건축물, 1 부속건축물)", example="0"),
    Field("mainAtchGbCdNm", "주부속구분코드명", example="주건축물"),
    Field("mainPurpsCd", "주용도코드", example="02000"),
    Field("mainPurpsCdNm", "주용도코드명", example="공동주택"),
    Field("mgmBldrgstPk", "관리건축물대장PK", example="11680-8520602"),
    Field("naBjdongCd", "새주소법정동코드", example="10300"),
    Field("naMainBun", "새주소본번", type="integer", example="123"),
    Field("naRoadCd", "새주소도로코드", example="116803123456"),
    Field("naSubBun", "새주소부번", type="integer", example="0"),
    Field("naUgrndCd", "새주소지상지하코드 (0 지상, 1 지하)", example="0"),
    Field("newPlatPlc", "도로명대지위치", example=" 서울특별시 강남구 개포로 123"),
    Field("platArea", "대지면적 (㎡)", type="number", example="8500.2"),
    Field("platGbCd", "대지구분코드 (0 대지, 1 산, 2 블록)", example="0"),
    Field("platPlc", "대지위치", example="서울특별시 강남구 개포동 12번지"),
    Field("pmsDay", "허가일", example="19800520"),
    Field("regstrGbCd", "대장구분코드 (1 일반, 2 집합)", example="2"),
    Field("regstrGbCdNm", "대장구분코드명", example="집합"),
    Field("regstrKindCd", "대장종류코드 (2 일반건축물, 3 표제부)", example="3"),
    Field("regstrKindCdNm", "대장종류코드명", example="표제부"),
    Field("rideUseElvtCnt", "승용승강기수", type="integer", example="2"),
    Field("rnum", "순번", type="integer", example="1"),
    Field("sigunguCd", "시군구코드", example="11680"),
    Field("splotNm", "특수지명", example=" "),
    Field("stcnsDay", "착공일", example="19810520"),
    Field("strctCd", "구조코드 (11 벽돌구조, 21 철근콘크리트구조)", example="21"),
    Field("strctCdNm", "구조코드명", example="철근콘크리트구조"),
    Field("totArea", "연면적 (㎡)", type="number", example="12000.5"),
    Field("ugrndFlrCnt", "지하층수", type="integer", example="1"),
    Field("useAprDay", "사용승인일", example="19830520"),
    Field("vlRat", "용적률 (%)", type="number", example="210.5"),
]


@BLD_RGST_HUB.operation(
    id="molit_bldrgst_title",
    path="/getBrTitleInfo",
    summary_ko="건축물대장 표제부 조회",
    summary_en="Building register: title section",
    params=[
        Param("sigunguCd", "시군구코드 (법정동코드 앞 5자리)", required=True, example="11680"),
        Param("bjdongCd", "법정동코드 (법정동코드 뒤 5자리)", required=True, example="10100"),
        Param("platGbCd", "대지구분코드 (0 대지, 1 산, 2 블록)", example="0", enum=("0", "1", "2")),
        Param("bun", "번 (4자리)", example="0023"),
        Param("ji", "지 (4자리)", example="0000"),
        Param("startDate", "검색시작일 (YYYYMMDD, 생성일자 기준)", example=""),
        Param("endDate", "검색종료일 (YYYYMMDD, 생성일자 기준)", example=""),
    ],
    fields=FIELDS,
    example={
        "sigunguCd": "11680",
        "bjdongCd": "10100",
        "platGbCd": "0",
        "bun": "0023",
        "ji": "0000",
        "numOfRows": "10",
        "pageNo": "1",
    },
    missing_param_code="10",
    notes="Synthetic registers for the sandbox's buildings (all of a 법정동 when bun is left out, which can "
    "run to hundreds of rows). Numbers are JSON numbers, codes strings; newPlatPlc keeps a leading space.",
)
def title_info(ctx, params):
    sigungu, bjdong = params.digits("sigunguCd", 5), params.digits("bjdongCd", 5)
    plat = params.text("platGbCd").strip()
    if plat and plat not in ("0", "1", "2"):
        raise InvalidParam("platGbCd")
    bun = params.text("bun").strip()
    ji = params.text("ji").strip()
    for name, value in (("bun", bun), ("ji", ji)):
        if value and (not value.isdigit() or len(value) > 4):
            raise InvalidParam(name)
    start, end = params.text("startDate").strip(), params.text("endDate").strip()
    if regions.region(sigungu + bjdong) is None:
        return []
    rows = []
    for b in buildings.buildings_in(sigungu + bjdong):
        if plat and b.plat_gb_cd != plat:
            continue
        if bun and b.bun != int(bun):
            continue
        if ji and b.ji != int(ji):
            continue
        for record in title_records(b):
            if (start and record["crtnDay"] < start) or (end and record["crtnDay"] > end):
                continue
            rows.append(record)
    for number, record in enumerate(rows, start=1):
        record["rnum"] = number
    return rows
