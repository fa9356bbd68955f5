"""한국부동산원 청약홈 (api.odcloud.kr): APT 분양정보 상세 (getAPTLttotPblancDetail), 주택형별 상세
(getAPTLttotPblancMdl) and 경쟁률 (getAPTLttotPblancCmpet), over about fifty notices a month since 2020.

Notices appear on their 모집공고일 and competition rates once the 1순위 접수 day has passed, both on the
sandbox clock. cond[FIELD::OP]=value filters (EQ, NE, LT, LTE, GT, GTE, LIKE) narrow matchCount while
totalCount stays the whole set, as live.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache, lru_cache

from apis.sandbox.envelopes.odcloud import OdcloudAuth, OdcloudEnvelope
from apis.sandbox.errors import ServiceError
from apis.sandbox.families._places import lawds_in_sido, leaves, poisson, romanize, stem
from apis.sandbox.rand import pick_weighted, rng
from apis.sandbox.registry import Field, Param, Result, service
from apis.sandbox.world import buildings, regions

FIRST_MONTH = date(2020, 1, 1)
# 청약홈 공급지역코드 -> (법정동 시도, short name, share of notices)
AREAS = {
    "100": ("11", "서울", 0.08),
    "400": ("28", "인천", 0.08),
    "410": ("41", "경기", 0.3),
    "600": ("26", "부산", 0.06),
    "700": ("27", "대구", 0.05),
    "500": ("29", "광주", 0.03),
    "300": ("30", "대전", 0.03),
    "680": ("31", "울산", 0.02),
    "338": ("36", "세종", 0.02),
    "200": ("51", "강원", 0.04),
    "360": ("43", "충북", 0.05),
    "312": ("44", "충남", 0.06),
    "560": ("52", "전북", 0.04),
    "513": ("46", "전남", 0.04),
    "712": ("47", "경북", 0.05),
    "621": ("48", "경남", 0.06),
    "690": ("50", "제주", 0.01),
}
BUILDERS = {
    "힐스테이트": "현대건설(주)",
    "자이": "GS건설(주)",
    "래미안": "삼성물산(주)",
    "푸르지오": "(주)대우건설",
    "e편한세상": "DL이앤씨(주)",
    "롯데캐슬": "롯데건설(주)",
    "아이파크": "HDC현대산업개발(주)",
    "더샵": "(주)포스코이앤씨",
    "SK뷰": "SK에코플랜트(주)",
    "포레나": "(주)한화 건설부문",
    "호반써밋": "(주)호반건설",
    "중흥S클래스": "중흥토건(주)",
    "하늘채": "코오롱글로벌(주)",
    "어울림": "금호건설(주)",
    "두산위브": "두산건설(주)",
}
AREA_TYPES = (
    (59.98, "A"),
    (59.94, "B"),
    (74.92, "A"),
    (84.97, "A"),
    (84.96, "B"),
    (84.91, "C"),
    (101.9, "A"),
    (114.8, "A"),
)


@dataclass(frozen=True)
class Model:
    model_no: str
    house_ty: str
    supply_area: float
    households: int
    special: int
    top_amount: int  # 만원


@dataclass(frozen=True)
class Notice:
    house_manage_no: str
    pblanc_no: str
    name: str
    area_code: str
    region_code: str  # leaf 법정동
    public: bool
    announced: date
    builder: str
    developer: str
    models: tuple[Model, ...]
    bun: int

    @property
    def special_start(self) -> date:
        return self.announced + timedelta(days=10)

    @property
    def first_rank(self) -> date:
        return self.announced + timedelta(days=11)

    @property
    def second_rank(self) -> date:
        return self.announced + timedelta(days=12)

    @property
    def winners(self) -> date:
        return self.announced + timedelta(days=19)

    @property
    def total(self) -> int:
        return sum(m.households for m in self.models)


def _months(until: date) -> list[date]:
    months, current = [], FIRST_MONTH
    while current <= until:
        months.append(current)
        current = date(current.year + current.month // 12, current.month % 12 + 1, 1)
    return months


@cache
def notices_in(year: int, month: int) -> tuple[Notice, ...]:
    """Every notice announced in one month (before the clock decides which are out yet)."""
    r = rng("applyhome", year, month)
    found = []
    for serial in range(poisson(r, 52)):
        nr = rng("applyhome-notice", year, month, serial)
        area_code = pick_weighted(nr, [(code, share) for code, (_, _, share) in AREAS.items()])
        sido = AREAS[area_code][0]
        leaf = nr.choice(leaves(nr.choice(lawds_in_sido(sido))))
        local = stem(leaf.eupmyeondong if leaf.ri else leaf.leaf_name)
        public = nr.random() < 0.15
        brand = nr.choice(tuple(BUILDERS))
        if public:
            name = f"{local}지구 A-{nr.randint(1, 12)}블록 {nr.choice(('신혼희망타운(공공분양)', '공공분양', '공공분양주택'))}"
            builder, developer = nr.choice(tuple(BUILDERS.values())), "한국토지주택공사"
        else:
            name = pick_weighted(
                nr,
                [
                    (f"{local} {brand}", 0.45),
                    (f"{brand} {local}", 0.3),
                    (f"{local}역 {brand} {nr.randint(2, 4)}차", 0.25),
                ],
            )
            builder, developer = (
                BUILDERS[brand],
                f"{local}{nr.choice(('개발', '디앤씨', '피에프브이', '산업개발'))}(주)",
            )
        price_m2 = {"11": 1700, "41": 800, "28": 650, "26": 650, "36": 600}.get(sido, 450) * nr.uniform(0.8, 1.3)
        types = sorted(nr.sample(AREA_TYPES, nr.randint(2, 5)))
        models = []
        for index, (area, letter) in enumerate(types, start=1):
            households = nr.randint(15, 320)
            models.append(
                Model(
                    model_no=f"{index:02d}",
                    house_ty=f"{int(area):03d}.{round((area % 1) * 10000):04d}{letter}",
                    supply_area=round(area * nr.uniform(1.32, 1.38), 4),
                    households=households,
                    special=int(households * nr.uniform(0.35, 0.55)),
                    top_amount=int(round(area * price_m2 * 1.33 / 10) * 10),
                )
            )
        announced = date(year, month, nr.randint(1, 28))
        number = f"{year}{'9' if public else '0'}{month:02d}{serial:03d}"
        found.append(
            Notice(
                number,
                number,
                name,
                area_code,
                leaf.code,
                public,
                announced,
                builder,
                developer,
                tuple(models),
                nr.randint(1, 900),
            )
        )
    return tuple(sorted(found, key=lambda n: (n.announced, n.house_manage_no)))


@lru_cache(maxsize=8)
def visible_notices(today: date) -> tuple[Notice, ...]:
    """Notices announced by the sandbox day, newest first (the service's order)."""
    found = [n for month in _months(today) for n in notices_in(month.year, month.month) if n.announced <= today]
    return tuple(sorted(found, key=lambda n: (n.announced, n.house_manage_no), reverse=True))


def _day(value: date) -> str:
    return value.isoformat()


def _zip(n: Notice) -> str:
    """A 우편번호 in the 시도's range (the world's buildings use the same ranges)."""
    r = rng("applyhome-zip", n.house_manage_no)
    first, span = buildings.ZIP_RANGE.get(n.region_code[:2], (1, 8))
    return f"{first + r.randrange(span):02d}{r.randint(0, 999):03d}"


def detail_record(n: Notice) -> dict:
    leaf = regions.region(n.region_code)
    sido_short = AREAS[n.area_code][1]
    return {
        "HOUSE_MANAGE_NO": n.house_manage_no,
        "PBLANC_NO": n.pblanc_no,
        "HOUSE_NM": n.name,
        "HOUSE_SECD": "01",
        "HOUSE_SECD_NM": "APT",
        "HOUSE_DTL_SECD": "03" if n.public else "01",
        "HOUSE_DTL_SECD_NM": "국민" if n.public else "민영",
        "RENT_SECD": "0",
        "RENT_SECD_NM": "분양주택",
        "SUBSCRPT_AREA_CODE": n.area_code,
        "SUBSCRPT_AREA_CODE_NM": sido_short,
        "HSSPLY_ZIP": _zip(n),
        "HSSPLY_ADRES": f"{leaf.full_name} {n.bun}번지 일원",
        "TOT_SUPLY_HSHLDCO": n.total,
        "RCRIT_PBLANC_DE": _day(n.announced),
        "NSPRC_NM": "",
        "RCEPT_BGNDE": _day(n.special_start),
        "RCEPT_ENDDE": _day(n.second_rank),
        "SPSPLY_RCEPT_BGNDE": _day(n.special_start),
        "SPSPLY_RCEPT_ENDDE": _day(n.special_start),
        "GNRL_RNK1_CRSPAREA_RCPTDE": _day(n.first_rank),
        "GNRL_RNK1_CRSPAREA_ENDDE": _day(n.first_rank),
        "GNRL_RNK2_CRSPAREA_RCPTDE": _day(n.second_rank),
        "GNRL_RNK2_CRSPAREA_ENDDE": _day(n.second_rank),
        "PRZWNER_PRESNATN_DE": _day(n.winners),
        "CNTRCT_CNCLS_BGNDE": _day(n.announced + timedelta(days=33)),
        "CNTRCT_CNCLS_ENDDE": _day(n.announced + timedelta(days=35)),
        "HMPG_ADRES": f"http://www.{romanize(n.name.split(' ')[0])[:20]}.co.kr",
        "CNSTRCT_ENTRPS_NM": n.builder,
        "MDHS_TELNO": f"1{rng('applyhome-tel', n.house_manage_no).choice(('588', '600', '661', '644', '899'))}{rng('applyhome-tel', n.house_manage_no).randint(0, 9999):04d}",
        "BSNS_MBY_NM": n.developer,
        "MVN_PREARNGE_YM": (n.announced + timedelta(days=900)).strftime("%Y%m"),
        "SPECLT_RDN_EARTH_AT": "Y"
        if AREAS[n.area_code][0] == "11" and leaf.lawd_cd in ("11650", "11680", "11710", "11170")
        else "N",
        "PARCPRC_ULS_AT": "Y" if n.public else "N",
        "PUBLIC_HOUSE_EARTH_AT": "Y" if n.public else "N",
        "PBLANC_URL": f"https://www.applyhome.co.kr/ai/aia/selectAPTLttotPblancDetail.do?houseManageNo={n.house_manage_no}&pblancNo={n.pblanc_no}",
    }


def model_record(n: Notice, m: Model) -> dict:
    r = rng("applyhome-model", n.house_manage_no, m.model_no)
    newlywed = int(m.special * 0.4)
    first = int(m.special * 0.25)
    multi = int(m.special * 0.1)
    elder = int(m.special * 0.05)
    agency = m.special - newlywed - first - multi - elder
    return {
        "HOUSE_MANAGE_NO": n.house_manage_no,
        "PBLANC_NO": n.pblanc_no,
        "MODEL_NO": m.model_no,
        "HOUSE_TY": m.house_ty,
        "SUPLY_AR": f"{m.supply_area:.4f}",
        "SUPLY_HSHLDCO": m.households - m.special,
        "SPSPLY_HSHLDCO": m.special,
        "MNYCH_HSHLDCO": multi,
        "NWWDS_HSHLDCO": newlywed,
        "LFE_FRST_HSHLDCO": first,
        "OLD_PARNTS_SUPORT_HSHLDCO": elder,
        "INSTT_RECOMEND_HSHLDCO": agency,
        "ETC_HSHLDCO": 0,
        "TRANSR_INSTT_ENFSN_HSHLDCO": 0,
        "LTTOT_TOP_AMOUNT": str(m.top_amount + r.randint(0, 9) * 10),
    }


RESIDENCES = (("01", "해당지역", 0.7), ("02", "기타경기", 0.2), ("03", "기타지역", 0.1))


@cache
def _demand(n: Notice, m: Model) -> float:
    """Applicants per 일반공급 home: hot in the capital region, often short elsewhere."""
    return rng("applyhome-demand", n.house_manage_no, m.model_no).lognormvariate(
        1.6 if AREAS[n.area_code][0] in ("11", "41") else 0.3, 1.1
    )


def _ranks(n: Notice, m: Model, today: date) -> list[tuple[str, date]]:
    """The 순위 whose 접수일 has passed; 2순위 only where 1순위 fell short."""
    return [
        (rank, day)
        for rank, day in (("1", n.first_rank), ("2", n.second_rank))
        if day <= today and (rank == "1" or _demand(n, m) < 1)
    ]


def competition_count(n: Notice, today: date) -> int:
    return sum(len(_ranks(n, m, today)) * len(RESIDENCES) for m in n.models)


def competition_records(n: Notice, today: date) -> list[dict]:
    """1순위 (and 2순위 where 1순위 fell short) by 거주지역, once each 접수일 has passed."""
    rows = []
    for m in n.models:
        supply = m.households - m.special
        demand = _demand(n, m)
        for rank, _ in _ranks(n, m, today):
            for reside, name, share in RESIDENCES:
                requests = int(supply * demand * share * (0.6 if rank == "2" else 1))
                quota = max(1, int(supply * share))
                shortfall = quota - requests
                rate = f"{requests / quota:.2f}" if shortfall <= 0 else f"(△{shortfall})"
                rows.append(
                    {
                        "HOUSE_MANAGE_NO": n.house_manage_no,
                        "PBLANC_NO": n.pblanc_no,
                        "MODEL_NO": m.model_no,
                        "HOUSE_TY": m.house_ty,
                        "SUPLY_HSHLDCO": supply,
                        "SUBSCRPT_RANK_CODE": rank,
                        "RESIDE_SECD": reside,
                        "RESIDE_SENM": name,
                        "REQ_CNT": str(requests),
                        "CMPET_RATE": rate,
                    }
                )
    return rows


_COND = re.compile(r"^cond\[(\w+)::(EQ|NE|LT|LTE|GT|GTE|LIKE)\]$")


@lru_cache(maxsize=65536)
def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


_MISSING = (None, None)
_COMPARE = {"EQ": operator.eq, "NE": operator.ne, "LT": operator.lt, "LTE": operator.le, "GT": operator.gt,
            "GTE": operator.ge}  # fmt: skip


class Table:
    """Rows of one answer, with each filtered field read once as (text, number) for the cond[…] filters."""

    def __init__(self, rows: Iterable[dict]):
        self.rows = tuple(rows)
        self._columns: dict[str, tuple[tuple[str | None, float | None], ...]] = {}

    def column(self, name: str) -> tuple[tuple[str | None, float | None], ...]:
        found = self._columns.get(name)
        if found is None:
            found = tuple(
                _MISSING if (value := row.get(name)) is None else (text := str(value), _number(text))
                for row in self.rows
            )
            self._columns[name] = found
        return found


def _conditions(ctx) -> list[tuple[str, str, str]]:
    """(field, operator, value) of every cond[FIELD::OP]=value of the query; a malformed cond[ is an error."""
    conditions = []
    for name, values in ctx.req.query.items():
        match = _COND.match(name)
        if match:
            conditions.append((match.group(1), match.group(2), values[0]))
        elif name.startswith("cond["):
            raise ServiceError("-1", f"잘못된 조건 형식입니다: {name}", http_status=400)
    return conditions


def _passing(column: Sequence[tuple[str | None, float | None]], kept: Iterable[int], op: str, wanted: str) -> list[int]:
    """The positions of kept whose cell satisfies one condition (a missing field satisfies none)."""
    if op == "LIKE":
        return [p for p in kept if (text := column[p][0]) is not None and wanted in text]
    compare, right = _COMPARE[op], _number(wanted)
    if right is None:
        return [p for p in kept if (text := column[p][0]) is not None and compare(text, wanted)]
    return [
        p
        for p in kept
        if (cell := column[p])[0] is not None
        and (compare(cell[1], right) if cell[1] is not None else compare(cell[0], wanted))
    ]


def apply_conditions(ctx, table: Table) -> Sequence[dict]:
    """The rows that satisfy every cond[FIELD::OP]=value of the query: numbers compare as numbers when both
    sides read as one, as text otherwise; LIKE is a substring test; unknown fields match nothing."""
    conditions = _conditions(ctx)
    if not conditions:
        return table.rows
    kept: Iterable[int] = range(len(table.rows))
    for field_name, op, wanted in conditions:
        kept = _passing(table.column(field_name), kept, op, wanted)
    rows = table.rows
    return [rows[p] for p in kept]


def _service(id: str, title: str):
    return service(
        id=id,
        provider_ko="한국부동산원 (청약홈)",
        provider_en="Korea Real Estate Board (Applyhome)",
        family="odcloud",
        host="api.odcloud.kr",
        base_path=f"/api/{id}/v1",
        title_ko=title,
        envelope=OdcloudEnvelope(),
        auth=OdcloudAuth(),
        schemes=("https",),
    )


DETAIL_SVC = _service("ApplyhomeInfoDetailSvc", "한국부동산원_청약홈 분양정보 조회 서비스")
CMPET_SVC = _service("ApplyhomeInfoCmpetRtSvc", "한국부동산원_청약홈 청약 신청·당첨자 정보 조회 서비스")
COND_PARAMS = [
    Param(
        "cond[RCRIT_PBLANC_DE::GTE]",
        "모집공고일 이후 (YYYY-MM-DD); 연산자 EQ, NE, LT, LTE, GT, GTE, LIKE",
        example="2026-09-01",
    ),
    Param("cond[SUBSCRPT_AREA_CODE_NM::EQ]", "공급지역명 (서울, 경기 …)", example="경기"),
    Param("cond[HOUSE_NM::LIKE]", "주택명 (부분일치)", example="힐스테이트"),
]
NOTICE_PARAMS = [
    Param("cond[HOUSE_MANAGE_NO::EQ]", "주택관리번호", example="2026010001"),
    Param("cond[PBLANC_NO::EQ]", "공고번호", example="2026010001"),
]


@DETAIL_SVC.operation(
    id="applyhome_apt_detail",
    path="/getAPTLttotPblancDetail",
    summary_ko="APT 분양정보 상세조회",
    summary_en="Apartment subscription notices (분양공고) with their schedule",
    params=COND_PARAMS,
    fields=[
        Field("HOUSE_MANAGE_NO", "주택관리번호", example="2026010001"),
        Field("PBLANC_NO", "공고번호", example="2026010001"),
        Field("HOUSE_NM", "주택명", example="힐스테이트 OO"),
        Field("HOUSE_SECD", "주택구분코드 (01 APT)", example="01"),
        Field("HOUSE_SECD_NM", "주택구분코드명", example="APT"),
        Field("HOUSE_DTL_SECD", "주택상세구분코드 (01 민영, 03 국민)", example="01"),
        Field("HOUSE_DTL_SECD_NM", "주택상세구분코드명 (민영, 국민)", example="민영"),
        Field("RENT_SECD", "분양구분코드 (0 분양주택)", example="0"),
        Field("RENT_SECD_NM", "분양구분코드명", example="분양주택"),
        Field("SUBSCRPT_AREA_CODE", "공급지역코드", example="410"),
        Field("SUBSCRPT_AREA_CODE_NM", "공급지역명", example="경기"),
        Field("HSSPLY_ZIP", "공급위치 우편번호", example="14900"),
        Field("HSSPLY_ADRES", "공급위치", example="경기도 시흥시 하중동 101번지 일원"),
        Field("TOT_SUPLY_HSHLDCO", "공급규모 (세대)", type="integer", example="612"),
        Field("RCRIT_PBLANC_DE", "모집공고일", example="2026-09-18"),
        Field("NSPRC_NM", "모집공고 게재 신문사", example=""),
        Field("RCEPT_BGNDE", "청약접수시작일", example="2026-09-28"),
        Field("RCEPT_ENDDE", "청약접수종료일", example="2026-09-30"),
        Field("SPSPLY_RCEPT_BGNDE", "특별공급 접수시작일", example="2026-09-28"),
        Field("SPSPLY_RCEPT_ENDDE", "특별공급 접수종료일", example="2026-09-28"),
        Field("GNRL_RNK1_CRSPAREA_RCPTDE", "1순위 해당지역 접수시작일", example="2026-09-29"),
        Field("GNRL_RNK1_CRSPAREA_ENDDE", "1순위 해당지역 접수종료일", example="2026-09-29"),
        Field("GNRL_RNK2_CRSPAREA_RCPTDE", "2순위 해당지역 접수시작일", example="2026-09-30"),
        Field("GNRL_RNK2_CRSPAREA_ENDDE", "2순위 해당지역 접수종료일", example="2026-09-30"),
        Field("PRZWNER_PRESNATN_DE", "당첨자발표일", example="2026-10-07"),
        Field("CNTRCT_CNCLS_BGNDE", "계약시작일", example="2026-10-21"),
        Field("CNTRCT_CNCLS_ENDDE", "계약종료일", example="2026-10-23"),
        Field("HMPG_ADRES", "홈페이지주소", example="http://www.hillstate.co.kr"),
        Field("CNSTRCT_ENTRPS_NM", "건설업체명(시공사)", example="현대건설(주)"),
        Field("MDHS_TELNO", "문의처", example="16001234"),
        Field("BSNS_MBY_NM", "사업주체명(시행사)", example="OO개발(주)"),
        Field("MVN_PREARNGE_YM", "입주예정월", example="202903"),
        Field("SPECLT_RDN_EARTH_AT", "투기과열지구 여부 (Y/N)", example="N"),
        Field("PARCPRC_ULS_AT", "분양가상한제 여부 (Y/N)", example="N"),
        Field("PUBLIC_HOUSE_EARTH_AT", "공공주택지구 여부 (Y/N)", example="N"),
        Field("PBLANC_URL", "분양정보 URL", example="https://www.applyhome.co.kr/…"),
    ],
    example={"cond[SUBSCRPT_AREA_CODE_NM::EQ]": "경기", "perPage": "5"},
    notes="About fifty synthetic notices a month since 2020-01, newest first, shown from their 모집공고일 on the "
    "sandbox clock. totalCount counts every notice, matchCount those passing the cond[…] filters (as live). "
    "Numbers such as TOT_SUPLY_HSHLDCO are JSON numbers, dates YYYY-MM-DD. The XML form (returnType=XML) and "
    'the error bodies (HTTP 400 {"code":-1,…} for a malformed cond or page) are our reading.',
)
def apt_detail(ctx, params):
    table = _detail_table(ctx.now.date())
    return Result(apply_conditions(ctx, table), meta={"totalCount": len(table.rows)})


@lru_cache(maxsize=4)
def _detail_table(today: date) -> Table:
    return Table(detail_record(n) for n in visible_notices(today))


def _model_rows(n: Notice, today: date) -> list[dict]:
    return [model_record(n, m) for m in n.models]


def _model_count(n: Notice, today: date) -> int:
    return len(n.models)


@lru_cache(maxsize=8)
def _row_total(count: Callable[[Notice, date], int], today: date) -> int:
    return sum(count(n, today) for n in visible_notices(today))


@lru_cache(maxsize=8)
def _notices_by(attribute: str, today: date) -> dict[str, tuple[Notice, ...]]:
    found: dict[str, list[Notice]] = {}
    for n in visible_notices(today):
        found.setdefault(getattr(n, attribute), []).append(n)
    return {value: tuple(notices) for value, notices in found.items()}


@lru_cache(maxsize=2)
def _every_row(build: Callable[[Notice, date], list[dict]], today: date) -> Table:
    return Table(row for n in visible_notices(today) for row in build(n, today))


def _notice_rows(ctx, build, count) -> Result:
    """Rows of every visible notice, filtered by cond[…]; notices named by cond[…::EQ] are picked first so a
    lookup does not build every row (totalCount still counts them all)."""
    today = ctx.now.date()
    notices: Sequence[Notice] | None = None
    for field_name, attribute in (("HOUSE_MANAGE_NO", "house_manage_no"), ("PBLANC_NO", "pblanc_no")):
        wanted = ctx.req.arg(f"cond[{field_name}::EQ]")
        if wanted is not None:
            if notices is None:
                notices = _notices_by(attribute, today).get(wanted.strip(), ())
            else:
                notices = [n for n in notices if getattr(n, attribute) == wanted.strip()]
    table = _every_row(build, today) if notices is None else Table(row for n in notices for row in build(n, today))
    return Result(apply_conditions(ctx, table), meta={"totalCount": _row_total(count, today)})


@DETAIL_SVC.operation(
    id="applyhome_apt_mdl",
    path="/getAPTLttotPblancMdl",
    summary_ko="APT 분양정보 주택형별 상세조회",
    summary_en="House types of a notice: sizes, households by supply kind, top price",
    params=NOTICE_PARAMS,
    fields=[
        Field("HOUSE_MANAGE_NO", "주택관리번호", example="2026010001"),
        Field("PBLANC_NO", "공고번호", example="2026010001"),
        Field("MODEL_NO", "모델번호", example="01"),
        Field("HOUSE_TY", "주택형", example="084.9700A"),
        Field("SUPLY_AR", "공급면적 (㎡)", example="112.6700"),
        Field("SUPLY_HSHLDCO", "일반공급세대수", type="integer", example="120"),
        Field("SPSPLY_HSHLDCO", "특별공급세대수", type="integer", example="98"),
        Field("MNYCH_HSHLDCO", "특별공급 다자녀가구 세대수", type="integer", example="9"),
        Field("NWWDS_HSHLDCO", "특별공급 신혼부부 세대수", type="integer", example="39"),
        Field("LFE_FRST_HSHLDCO", "특별공급 생애최초 세대수", type="integer", example="24"),
        Field("OLD_PARNTS_SUPORT_HSHLDCO", "특별공급 노부모부양 세대수", type="integer", example="4"),
        Field("INSTT_RECOMEND_HSHLDCO", "특별공급 기관추천 세대수", type="integer", example="22"),
        Field("ETC_HSHLDCO", "특별공급 기타 세대수", type="integer", example="0"),
        Field("TRANSR_INSTT_ENFSN_HSHLDCO", "특별공급 이전기관 세대수", type="integer", example="0"),
        Field("LTTOT_TOP_AMOUNT", "분양최고금액 (만원)", example="72500"),
    ],
    example={"cond[HOUSE_MANAGE_NO::EQ]": "", "perPage": "10"},
    notes="One row per 주택형; chain from getAPTLttotPblancDetail with cond[HOUSE_MANAGE_NO::EQ] and "
    "cond[PBLANC_NO::EQ] (research §5 chain 14).",
)
def apt_models(ctx, params):
    return _notice_rows(ctx, _model_rows, _model_count)


@CMPET_SVC.operation(
    id="applyhome_apt_cmpet",
    path="/getAPTLttotPblancCmpet",
    summary_ko="APT 분양정보 주택형별 경쟁률 조회",
    summary_en="Subscription competition rates by house type, rank and residence",
    params=NOTICE_PARAMS,
    fields=[
        Field("HOUSE_MANAGE_NO", "주택관리번호", example="2026010001"),
        Field("PBLANC_NO", "공고번호", example="2026010001"),
        Field("MODEL_NO", "모델번호", example="01"),
        Field("HOUSE_TY", "주택형", example="084.9700A"),
        Field("SUPLY_HSHLDCO", "공급세대수", type="integer", example="120"),
        Field("SUBSCRPT_RANK_CODE", "순위 (1, 2)", example="1"),
        Field("RESIDE_SECD", "거주코드 (01 해당지역, 02 기타경기, 03 기타지역)", example="01"),
        Field("RESIDE_SENM", "거주구분", example="해당지역"),
        Field("REQ_CNT", "접수건수", example="1532"),
        Field("CMPET_RATE", "경쟁률 (미달은 (△N))", example="12.77"),
    ],
    example={"cond[HOUSE_MANAGE_NO::EQ]": "", "perPage": "10"},
    notes="Rows appear once the 1순위 (2순위) 접수일 has passed on the sandbox clock; 2순위 only where 1순위 fell "
    'short. An undersubscribed line shows its shortfall as "(△N)", as 청약홈 does.',
)
def apt_competition(ctx, params):
    return _notice_rows(ctx, competition_records, competition_count)


def _example_notice() -> str:
    """A notice well before the default clock, so its competition rates are out."""
    return notices_in(2026, 9)[0].house_manage_no


for _op in (DETAIL_SVC.operations[-1], CMPET_SVC.operations[-1]):
    _op.example["cond[HOUSE_MANAGE_NO::EQ]"] = _example_notice()


def warm(now: datetime) -> None:
    """Build the notices visible on this clock and the rows of all three lists (apis.sandbox.warm)."""
    today = now.date()
    _detail_table(today)
    for attribute in ("house_manage_no", "pblanc_no"):
        _notices_by(attribute, today)
    for build, count in ((_model_rows, _model_count), (competition_records, competition_count)):
        _row_total(count, today)
        _every_row(build, today)
