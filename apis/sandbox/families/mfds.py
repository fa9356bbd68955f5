"""식품의약품안전처 의약품개요정보 (e약은요, 1471000/DrbEasyDrugInfoService/getDrbEasyDrugList): about 400
일반의약품 built from ingredient, dosage-form, brand and company building blocks.

The leaflet texts are short, generic sentences written for the sandbox per drug class (no label text
is copied). Companies carry a 사업자등록번호 that the NTS family reports as 계속사업자.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from apis.sandbox.datagokr import datagokr_service
from apis.sandbox.envelopes.mfds import MfdsEnvelope
from apis.sandbox.families.nts import active_number
from apis.sandbox.rand import rng, stable_int
from apis.sandbox.registry import Field, LazyRecords, Param

STORE = "습기와 빛을 피해 실온에서 보관하십시오. 어린이의 손이 닿지 않는 곳에 보관하십시오."
STORE_COOL = "개봉 후에는 마개를 꼭 닫아 서늘한 곳에 보관하고, 어린이의 손이 닿지 않는 곳에 두십시오."
ASK = "의사 또는 약사와 상의하십시오."


@dataclass(frozen=True)
class DrugClass:
    key: str
    ingredients: tuple[tuple[str, tuple[str, ...]], ...]  # (성분, 함량) —함량 "" for combination products
    forms: tuple[str, ...]
    suffixes: tuple[str, ...]  # brand endings typical of the class
    count: int
    efcy: str
    use: str
    warn: str | None
    atpn: str
    intrc: str | None
    se: str
    deposit: str = STORE


CLASSES = (
    DrugClass(
        "해열진통",
        (("아세트아미노펜", ("500밀리그램", "325밀리그램", "650밀리그램")),),
        ("정", "서방정", "연질캡슐"),
        ("펜", "놀", "타민", "세타", "노펜"),
        44,
        "이 약은 감기로 인한 발열과 두통, 치통, 근육통, 생리통 같은 여러 통증을 줄이는 데 사용합니다.",
        "만 12세 이상 및 성인은 1회 1~2정씩, 필요할 때 4~6시간 간격을 두고 복용합니다. 하루 최대 용량을 넘기지 마십시오.",
        "매일 세 잔 이상 술을 마시는 사람은 이 약을 복용하기 전 " + ASK + " 간 손상이 나타날 수 있습니다.",
        "이 약에 과민반응이 있었던 사람은 복용하지 마십시오. 간 질환이나 신장 질환이 있는 사람, 임부와 수유부는 복용 전 "
        + ASK,
        "같은 성분이 든 다른 감기약, 해열진통제와 함께 복용하지 마십시오.",
        "드물게 발진, 가려움, 구역, 구토가 나타날 수 있습니다. 이런 증상이 나타나면 복용을 멈추고 " + ASK,
    ),
    DrugClass(
        "소염진통",
        (
            ("이부프로펜", ("200밀리그램", "400밀리그램")),
            ("덱시부프로펜", ("300밀리그램",)),
            ("나프록센나트륨", ("250밀리그램",)),
        ),
        ("정", "연질캡슐", "시럽"),
        ("프로펜", "펜", "덱스", "엔", "록스"),
        40,
        "이 약은 두통, 치통, 생리통, 근육통, 관절통 같은 통증과 감기로 인한 발열을 줄이는 데 사용합니다.",
        "성인은 1회 1정씩 하루 3~4회 식후에 복용합니다. 공복 복용은 피하고, 증상에 따라 적절히 줄이십시오.",
        "위궤양이 있었거나 위장 출혈 경험이 있는 사람은 복용 전 " + ASK,
        "이 약이나 다른 소염진통제에 과민반응이 있었던 사람, 임신 후기의 임부는 복용하지 마십시오. 고혈압, 심장 질환이 있는 사람은 "
        + ASK,
        "다른 소염진통제, 아스피린, 항응고제와 함께 복용하기 전에 " + ASK,
        "속쓰림, 구역, 소화불량이 나타날 수 있습니다. 검은 변이나 피를 토하는 증상이 있으면 즉시 복용을 멈추고 " + ASK,
    ),
    DrugClass(
        "종합감기",
        (("아세트아미노펜·클로르페니라민·슈도에페드린", ("",)),),
        ("정", "연질캡슐", "내복액", "시럽", "과립"),
        ("콜", "콜드", "코프", "플루", "콜에이", "콜에스"),
        46,
        "이 약은 감기의 여러 증상(콧물, 코막힘, 재채기, 인후통, 기침, 가래, 오한, 발열, 두통)을 완화하는 데 사용합니다.",
        "만 15세 이상 및 성인은 1회 1정(포)씩 하루 3회 식후 30분에 복용합니다. 복용 간격은 4시간 이상으로 하십시오.",
        "이 약을 복용하는 동안 졸음이 올 수 있으니 운전이나 기계 조작은 피하십시오.",
        "다른 감기약, 해열진통제, 진정제와 함께 복용하지 마십시오. 고혈압, 심장 질환, 당뇨, 녹내장, 전립선비대증이 있는 사람은 "
        + ASK,
        "진정제, 항히스타민제가 든 다른 약과 함께 복용하면 졸음이 심해질 수 있습니다.",
        "졸음, 입마름, 가슴 두근거림, 발진이 나타날 수 있습니다. 증상이 계속되면 복용을 멈추고 " + ASK,
    ),
    DrugClass(
        "진해거담",
        (
            ("덱스트로메토르판·구아이페네신", ("",)),
            ("암브록솔염산염", ("30밀리그램",)),
            ("아세틸시스테인", ("200밀리그램",)),
        ),
        ("정", "시럽", "캡슐", "과립"),
        ("코프", "솔", "담", "시스", "브론"),
        28,
        "이 약은 감기나 기관지염으로 인한 기침과 가래를 줄이는 데 사용합니다.",
        "성인은 1회 1정(10밀리리터)씩 하루 3회 복용합니다. 시럽은 잘 흔들어 계량컵으로 재어 복용하십시오.",
        None,
        "만 2세 미만의 영아, 이 약에 과민반응이 있었던 사람은 복용하지 마십시오. 천식이 있는 사람은 복용 전 " + ASK,
        "모노아민산화효소 억제제를 복용 중이거나 최근 2주 이내에 복용한 사람은 함께 복용하지 마십시오.",
        "구역, 구토, 식욕부진, 졸음이 나타날 수 있습니다.",
        STORE_COOL,
    ),
    DrugClass(
        "소화제",
        (("판크레아틴·비오디아스타제·리파아제", ("",)), ("우르소데옥시콜산·판크레아틴", ("",))),
        ("정", "캡슐", "과립"),
        ("자임", "지스", "베스", "다제", "소화"),
        30,
        "이 약은 소화불량, 식욕감퇴, 과식, 체함, 소화가 잘 되지 않아 생기는 더부룩함을 줄이는 데 사용합니다.",
        "성인은 1회 1~2정씩 하루 3회 식후에 복용합니다.",
        None,
        "이 약에 과민반응이 있었던 사람은 복용하지 마십시오. 2주 정도 복용해도 증상이 나아지지 않으면 " + ASK,
        None,
        "드물게 발진, 설사, 변비가 나타날 수 있습니다.",
    ),
    DrugClass(
        "제산제",
        (
            ("알마게이트", ("500밀리그램", "1그램")),
            ("수산화마그네슘·수산화알루미늄겔", ("",)),
            ("탄산칼슘·탄산수소나트륨", ("",)),
        ),
        ("정", "현탁액", "츄어블정", "내복현탁액"),
        ("겔", "산", "포스", "탄", "메이트"),
        30,
        "이 약은 위산과다, 속쓰림, 위부불쾌감, 위의 더부룩함, 신트림을 완화하는 데 사용합니다.",
        "성인은 1회 1포(1정)씩 하루 3회 식간 또는 취침 전에 복용합니다. 현탁액은 잘 흔들어 복용하십시오.",
        None,
        "신장 질환이 있는 사람, 투석을 받는 사람은 복용 전 " + ASK + " 장기간 계속 복용하지 마십시오.",
        "테트라사이클린계 항생제, 철분제와는 2시간 이상 간격을 두고 복용하십시오.",
        "변비나 설사가 나타날 수 있습니다.",
    ),
    DrugClass(
        "지사제",
        (("로페라미드염산염", ("2밀리그램",)), ("디오스멕타이트", ("3그램",))),
        ("캡슐", "정", "현탁액", "산"),
        ("스탑", "멕", "디아", "로페"),
        18,
        "이 약은 급성 설사와 그에 따른 복통을 줄이는 데 사용합니다.",
        "성인은 처음에 2캡슐, 이후 설사가 있을 때마다 1캡슐씩 복용합니다. 하루 최대 용량을 넘기지 마십시오.",
        "고열이나 혈변을 동반한 설사에는 복용하지 마십시오.",
        "만 6세 미만의 어린이는 복용하지 마십시오. 이틀 이상 복용해도 설사가 멎지 않으면 복용을 멈추고 " + ASK,
        None,
        "복부팽만감, 변비, 어지러움이 나타날 수 있습니다.",
    ),
    DrugClass(
        "변비약",
        (("비사코딜·도큐세이트나트륨", ("",)), ("락툴로오스농축액", ("",)), ("차전자피", ("",))),
        ("장용정", "시럽", "산", "과립"),
        ("락스", "코락", "바이", "솔"),
        20,
        "이 약은 변비와 변비로 인한 복부팽만, 장내 이상발효를 완화하는 데 사용합니다.",
        "성인은 1회 1~2정을 하루 1회 취침 전에 충분한 물과 함께 복용합니다. 장용정은 씹거나 부수지 마십시오.",
        None,
        "급성 복통이 있거나 장폐색이 의심되는 사람은 복용하지 마십시오. 1주 이상 계속 복용하지 마십시오.",
        "제산제, 우유와 함께 복용하면 약효가 떨어질 수 있으니 1시간 이상 간격을 두십시오.",
        "복통, 설사, 복부 불쾌감이 나타날 수 있습니다.",
    ),
    DrugClass(
        "알레르기",
        (
            ("세티리진염산염", ("10밀리그램",)),
            ("로라타딘", ("10밀리그램",)),
            ("펙소페나딘염산염", ("120밀리그램", "180밀리그램")),
        ),
        ("정", "필름코팅정", "캡슐", "시럽"),
        ("텍", "진", "타딘", "알러", "페나"),
        30,
        "이 약은 계절성 및 다년성 알레르기성 비염의 재채기, 콧물, 코 가려움과 두드러기의 가려움을 줄이는 데 사용합니다.",
        "만 12세 이상 및 성인은 1회 1정을 하루 1회 복용합니다.",
        None,
        "이 약에 과민반응이 있었던 사람은 복용하지 마십시오. 신장 질환이 있는 사람, 임부와 수유부는 복용 전 " + ASK,
        "술이나 진정제와 함께 복용하면 졸음이 심해질 수 있습니다.",
        "졸음, 피로감, 입마름, 두통이 나타날 수 있습니다.",
    ),
    DrugClass(
        "비타민",
        (
            ("아스코르브산", ("500밀리그램", "1000밀리그램")),
            ("벤포티아민·피리독신염산염·시아노코발라민", ("",)),
            ("종합비타민·미네랄", ("",)),
        ),
        ("정", "필름코팅정", "연질캡슐", "츄어블정"),
        ("비타", "씨", "비", "골드", "멀티"),
        42,
        "이 약은 육체피로, 영양 불균형, 병을 앓는 동안이나 회복 후의 체력 저하 시 비타민 보급에 사용합니다.",
        "만 12세 이상 및 성인은 1회 1정씩 하루 1회 식후에 복용합니다.",
        None,
        "정해진 용법과 용량을 지키십시오. 신장결석이 있었던 사람, 임부와 수유부는 복용 전 " + ASK,
        None,
        "위부불쾌감, 설사, 소변 색이 진해지는 일이 있을 수 있습니다. 소변 색의 변화는 걱정하지 않아도 됩니다.",
    ),
    DrugClass(
        "외용소염",
        (("케토프로펜", ("30밀리그램",)), ("록소프로펜나트륨", ("100밀리그램",)), ("피록시캄", ("48밀리그램",))),
        ("플라스타", "카타플라스마", "첩부제", "겔"),
        ("파스", "플라스트", "케토", "록소"),
        26,
        "이 약은 어깨결림, 요통, 근육통, 관절통, 타박상, 삔 곳의 통증과 부기를 줄이는 데 사용합니다.",
        "하루 1~2회 환부에 붙이거나 적당량을 바릅니다. 상처나 습진이 있는 피부에는 사용하지 마십시오.",
        "사용 부위를 햇빛에 노출하면 피부염이 생길 수 있으니, 사용 중과 사용 후 몇 주 동안은 옷이나 천으로 가리십시오.",
        "이 약이나 다른 소염진통제에 과민반응이 있었던 사람은 사용하지 마십시오. 눈 주위와 점막에는 사용하지 마십시오.",
        None,
        "붙인 곳에 가려움, 발적, 발진이 생길 수 있습니다. 이런 증상이 나타나면 떼어내고 " + ASK,
    ),
    DrugClass(
        "무좀",
        (("테르비나핀염산염", ("1%",)), ("클로트리마졸", ("1%",)), ("부테나핀염산염", ("1%",))),
        ("크림", "외용액", "스프레이", "겔"),
        ("나핀", "클로", "풋", "테르"),
        22,
        "이 약은 무좀, 완선, 체부백선 같은 피부 진균 감염에 사용합니다.",
        "하루 1~2회 환부를 깨끗이 씻고 말린 뒤 적당량을 얇게 바릅니다. 증상이 나아져도 1~2주 더 바르십시오.",
        None,
        "눈, 입 주위와 점막에는 바르지 마십시오. 짓무른 곳이나 상처에는 주의하여 사용하십시오.",
        None,
        "바른 곳이 가렵거나 따끔거리고, 붉어질 수 있습니다.",
    ),
    DrugClass(
        "인공눈물",
        (("카르복시메틸셀룰로오스나트륨", ("0.5%",)), ("포비돈", ("5%",)), ("히프로멜로오스", ("0.3%",))),
        ("점안액", "일회용점안액"),
        ("아이", "드롭", "티어", "아이즈"),
        24,
        "이 약은 눈의 건조감, 이물감, 피로를 줄이고 하드콘택트렌즈를 착용할 때 눈을 촉촉하게 하는 데 사용합니다.",
        "1회 1~2방울씩 하루 5~6회 점안합니다. 일회용 용기는 한 번 쓰고 버리십시오.",
        None,
        "소프트콘택트렌즈를 낀 채 점안하지 마십시오. 용기 끝이 눈에 닿지 않게 하고, 다른 사람과 함께 쓰지 마십시오.",
        None,
        "눈이 따갑거나 충혈될 수 있습니다. 증상이 계속되면 사용을 멈추고 " + ASK,
        STORE_COOL,
    ),
    DrugClass(
        "멀미",
        (("디멘히드리네이트", ("50밀리그램",)), ("메클리진염산염", ("25밀리그램",))),
        ("정", "츄어블정", "내복액"),
        ("멀미", "보드", "트래블", "키미"),
        12,
        "이 약은 배, 자동차, 비행기 등을 탈 때 생기는 멀미의 어지러움, 구역, 구토, 두통을 예방하고 줄이는 데 사용합니다.",
        "만 15세 이상 및 성인은 1회 1정을 타기 30분 전에 복용합니다. 추가 복용은 4시간 이상 간격을 두십시오.",
        "복용 후 졸음이 올 수 있으니 운전이나 기계 조작을 하지 마십시오.",
        "녹내장, 전립선비대증이 있는 사람은 복용하지 마십시오.",
        "술, 진정제, 다른 항히스타민제와 함께 복용하면 졸음이 심해질 수 있습니다.",
        "졸음, 입마름, 시야 흐림이 나타날 수 있습니다.",
    ),
    DrugClass(
        "수면유도",
        (("디펜히드라민염산염", ("50밀리그램",)), ("독시라민숙신산염", ("25밀리그램",))),
        ("정", "연질캡슐"),
        ("슬립", "잠", "나이트", "드림"),
        12,
        "이 약은 일시적인 불면증(잠들기 어려움)의 완화에 사용합니다.",
        "만 15세 이상 및 성인은 1회 1정을 취침 30분 전에 복용합니다. 2주 이상 계속 복용하지 마십시오.",
        "복용 다음 날에도 졸음이 남을 수 있으니 운전이나 위험한 기계 조작에 주의하십시오.",
        "녹내장, 전립선비대증, 천식이 있는 사람과 임부는 복용하지 마십시오.",
        "술이나 다른 진정제와 함께 복용하지 마십시오.",
        "입마름, 어지러움, 두통, 변비가 나타날 수 있습니다.",
    ),
    DrugClass(
        "구내염",
        (("트리암시놀론아세토니드", ("0.1%",)), ("클로르헥시딘글루콘산염", ("0.12%",))),
        ("구강용연고", "가글액", "구강용첩부제"),
        ("오라", "솔", "덴", "케어"),
        16,
        "이 약은 입안이 헐거나 염증이 생긴 구내염, 설염의 통증과 염증을 줄이는 데 사용합니다.",
        "하루 1~4회 환부에 적당량을 바르거나 붙입니다. 가글액은 1회 15밀리리터로 30초 정도 헹군 뒤 뱉습니다.",
        None,
        "입안에 감염이 있는 경우에는 사용하지 마십시오. 1주 정도 사용해도 나아지지 않으면 " + ASK,
        None,
        "드물게 입안 자극감, 미각 변화가 나타날 수 있습니다.",
    ),
    DrugClass(
        "철분제",
        (("푸마르산제일철·엽산", ("",)), ("폴리사카라이드철착염", ("150밀리그램",))),
        ("연질캡슐", "정", "내복액"),
        ("훼", "철", "헤모", "페로"),
        14,
        "이 약은 임신·수유기, 월경, 출혈 등으로 생기는 철 결핍성 빈혈의 예방과 보조 치료에 사용합니다.",
        "성인은 1회 1캡슐씩 하루 1회 식후에 복용합니다.",
        None,
        "철분 과잉 상태이거나 철분 흡수에 장애가 있는 사람은 복용하지 마십시오.",
        "제산제, 녹차, 우유와 함께 복용하면 흡수가 줄어들 수 있으니 2시간 간격을 두십시오.",
        "변이 검게 변할 수 있고 변비, 속쓰림이 나타날 수 있습니다.",
    ),
    DrugClass(
        "여드름",
        (("과산화벤조일", ("2.5%", "5%")), ("아다팔렌", ("0.1%",))),
        ("겔", "크림"),
        ("클리어", "벤조", "에크네", "스킨"),
        12,
        "이 약은 여드름(모낭염을 포함한 보통 여드름)의 치료에 사용합니다.",
        "하루 1~2회 세안 후 물기를 닦고 여드름 부위에 얇게 바릅니다.",
        None,
        "눈, 입술, 점막, 상처 부위에는 바르지 마십시오. 머리카락이나 옷이 탈색될 수 있습니다.",
        None,
        "피부가 건조해지거나 붉어지고 벗겨질 수 있습니다.",
    ),
)

COMPANIES = (
    "동아제약(주)",
    "(주)유한양행",
    "한미약품(주)",
    "(주)종근당",
    "(주)대웅제약",
    "일동제약(주)",
    "광동제약(주)",
    "(주)보령",
    "삼진제약(주)",
    "동화약품(주)",
    "(주)녹십자",
    "조아제약(주)",
    "경동제약(주)",
    "대원제약(주)",
    "현대약품(주)",
    "부광약품(주)",
    "일양약품(주)",
    "삼일제약(주)",
    "신신제약(주)",
    "(주)한독",
    "국제약품(주)",
    "영진약품(주)",
    "동국제약(주)",
    "태극제약(주)",
)
BRAND_HEADS = (
    "타",
    "세",
    "그린",
    "뉴",
    "하이",
    "베아",
    "이지",
    "코",
    "노",
    "메디",
    "에이",
    "굿",
    "파워",
    "알",
    "트리",
    "엘",
    "큐",
    "프로",
    "베스트",
    "뉴트",
    "씨",
    "바로",
    "한",
    "미",
    "솔",
    "테라",
    "케이",
    "제이",
    "모아",
    "에스",
)
# Real, well-known brands (the leaflet text is still the sandbox's generic class text).
KNOWN = (
    ("타이레놀정500밀리그람(아세트아미노펜)", "한국얀센(주)", "해열진통", "1989"),
    ("타이레놀8시간이알서방정(아세트아미노펜)", "한국얀센(주)", "해열진통", "2000"),
    ("판콜에이내복액", "동화약품(주)", "종합감기", "1982"),
    ("판피린큐액", "동아제약(주)", "종합감기", "1995"),
    ("부루펜정200밀리그램(이부프로펜)", "삼일제약(주)", "소염진통", "1978"),
    ("베아제정", "(주)대웅제약", "소화제", "1991"),
    ("훼스탈플러스정", "(주)한독", "소화제", "1990"),
    ("겔포스엠현탁액(인산알루미늄겔)", "(주)보령", "제산제", "1986"),
    ("지르텍정(세티리진염산염)", "한국유씨비제약(주)", "알레르기", "1993"),
    ("케토톱플라스타(케토프로펜)", "(주)한독", "외용소염", "1994"),
)


@dataclass(frozen=True)
class Drug:
    item_seq: str
    item_name: str
    entp_name: str
    cls: DrugClass
    open_de: date
    update_de: date
    image: str | None
    bizrno: str


@cache
def bizrno_of(company: str) -> str:
    return active_number("mfds-company", company)


def _paragraphs(text: str | None) -> str | None:
    """Leaflet text as the service sends it: each sentence in <p>…</p>."""
    if text is None:
        return None
    sentences = [s.strip() + ("" if s.strip().endswith(".") else ".") for s in text.split(". ") if s.strip()]
    return "".join(f"<p>{s}</p>" for s in sentences)


def _dates(r) -> tuple[date, date]:
    opened = date(2021, 1, 29) if r.random() < 0.5 else date(2021, 1, 29) + timedelta(days=r.randint(30, 1900))
    updated = opened + timedelta(days=r.randint(0, max(0, (date(2026, 9, 30) - opened).days)))
    return opened, updated


def _image(r, form: str, item_seq: str) -> str | None:
    if not any(form.endswith(f) for f in ("정", "캡슐")) or r.random() < 0.3:
        return None
    return f"https://nedrug.mfds.go.kr/pbp/cmn/itemImageDownload/{15 * 10**16 + stable_int('mfds-image', item_seq) % 10**16}"


@cache
def catalogue() -> tuple[Drug, ...]:
    """Every drug, in the order the service lists them (a stable shuffle of registration order)."""
    classes = {c.key: c for c in CLASSES}
    drugs: list[Drug] = []
    seqs: set[str] = set()
    names: set[str] = set()

    def add(name: str, company: str, cls: DrugClass, year: int, r) -> None:
        item_seq = f"{year}{r.randint(0, 99999):05d}"
        while item_seq in seqs:
            item_seq = f"{year}{r.randint(0, 99999):05d}"
        seqs.add(item_seq)
        names.add(name)
        opened, updated = _dates(r)
        form = next((f for f in sorted(cls.forms, key=len, reverse=True) if f in name), "")
        drugs.append(Drug(item_seq, name, company, cls, opened, updated, _image(r, form, item_seq), bizrno_of(company)))

    for name, company, key, year in KNOWN:
        add(name, company, classes[key], int(year), rng("mfds-known", name))
    for cls in CLASSES:
        r = rng("mfds", cls.key)
        made = 0
        while made < cls.count:
            ingredient, strengths = cls.ingredients[r.randrange(len(cls.ingredients))]
            form = r.choice(cls.forms)
            brand = r.choice(BRAND_HEADS) + r.choice(cls.suffixes)
            year = r.randint(1975, 2025)
            strength = r.choice(strengths)
            if year < 2000:
                strength = strength.replace("밀리그램", "밀리그람")
            name = f"{brand}{form}{strength}({ingredient})" if strength else f"{brand}{form}"
            if name in names:
                continue
            add(name, r.choice(COMPANIES), cls, year, r)
            made += 1
    order = rng("mfds-order")
    order.shuffle(drugs)
    return tuple(drugs)


def record(drug: Drug) -> dict:
    cls = drug.cls
    return {
        "entpName": drug.entp_name,
        "itemName": drug.item_name,
        "itemSeq": drug.item_seq,
        "efcyQesitm": _paragraphs(cls.efcy),
        "useMethodQesitm": _paragraphs(cls.use),
        "atpnWarnQesitm": _paragraphs(cls.warn),
        "atpnQesitm": _paragraphs(cls.atpn),
        "intrcQesitm": _paragraphs(cls.intrc),
        "seQesitm": _paragraphs(cls.se),
        "depositMethodQesitm": _paragraphs(cls.deposit),
        "openDe": drug.open_de.strftime("%Y-%m-%d 00:00:00"),
        "updateDe": drug.update_de.strftime("%Y%m%d"),
        "itemImage": drug.image,
        "bizrno": drug.bizrno,
    }


EASY_DRUG = datagokr_service(
    id="DrbEasyDrugInfoService",
    org="1471000",
    provider_ko="식품의약품안전처",
    provider_en="Ministry of Food and Drug Safety (MFDS)",
    title_ko="식품의약품안전처_의약품개요정보(e약은요)",
    envelope=MfdsEnvelope(success_code="00", success_msg="NORMAL SERVICE."),
)


@EASY_DRUG.operation(
    id="mfds_easy_drug",
    path="/getDrbEasyDrugList",
    summary_ko="e약은요 의약품 개요정보 조회",
    summary_en="Over-the-counter drug leaflets by name, company or item code",
    params=[
        Param("itemName", "제품명 (부분일치)", example="타이레놀"),
        Param("entpName", "업체명 (부분일치)", example="한미약품(주)"),
        Param("itemSeq", "품목기준코드 (9자리, 일치)", example="198900001"),
        Param("efcyQesitm", "효능 (부분일치)", example="두통"),
    ],
    fields=[
        Field("entpName", "업체명", example="한국얀센(주)"),
        Field("itemName", "제품명", example="타이레놀정500밀리그람(아세트아미노펜)"),
        Field("itemSeq", "품목기준코드", example="198900001"),
        Field("efcyQesitm", "이 약의 효능은 무엇입니까?", example="<p>이 약은 …에 사용합니다.</p>"),
        Field("useMethodQesitm", "이 약은 어떻게 사용합니까?", example="<p>…</p>"),
        Field("atpnWarnQesitm", "이 약을 사용하기 전에 반드시 알아야 할 내용은 무엇입니까? (없으면 null)", example=""),
        Field("atpnQesitm", "이 약의 사용상 주의사항은 무엇입니까?", example="<p>…</p>"),
        Field("intrcQesitm", "이 약을 사용하는 동안 주의해야 할 약 또는 음식은 무엇입니까? (없으면 null)", example=""),
        Field("seQesitm", "이 약은 어떤 이상반응이 나타날 수 있습니까?", example="<p>…</p>"),
        Field("depositMethodQesitm", "이 약은 어떻게 보관해야 합니까?", example="<p>…</p>"),
        Field("openDe", "공개일자 (YYYY-MM-DD HH:MM:SS)", example="2021-01-29 00:00:00"),
        Field("updateDe", "수정일자 (YYYYMMDD)", example="20210129"),
        Field("itemImage", "낱알 이미지 URL (없으면 null)", example=""),
        Field("bizrno", "사업자등록번호", example="2208162517"),
    ],
    example={"itemName": "타이레놀", "type": "json"},
    notes="About 400 synthetic 일반의약품 plus ten well-known brand names; leaflet texts are generic sentences per "
    "drug class written for the sandbox, wrapped in <p> as live. itemName, entpName and efcyQesitm match any "
    'part, itemSeq exactly. JSON has no "response" root, items is a bare array, missing texts are null and '
    '"</" is written "<\\/" (all as captured). bizrno is registered as 계속사업자 in the NTS family.',
)
def easy_drug_list(ctx, params):
    name = params.text("itemName").strip()
    company = params.text("entpName").strip()
    item_seq = params.text("itemSeq").strip()
    efficacy = params.text("efcyQesitm").strip()
    found = [
        d
        for d in catalogue()
        if (not name or name in d.item_name)
        and (not company or company in d.entp_name)
        and (not item_seq or item_seq == d.item_seq)
        and (not efficacy or efficacy in d.cls.efcy)
    ]
    return LazyRecords(found, record)
