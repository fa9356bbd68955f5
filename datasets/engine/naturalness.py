"""The naturalness and coherence stage: would a real user type this request, and does every step serve it?

Each check returns reasons in the form "<class>: <detail>", stored with the trajectory's filter results, so a run
counts rejections per class. The classes are the annotator's failure classes (../shared/research/
annotation_rubric.md):

- procedure       the request narrates API calls ("~을 조회해서 그중 첫 번째 ~을 골라 …")
- raw_code        the request types an internal code (a parameter name, LAWD_CD 11620, an ykiho, a node id)
- copied_label    the request copies a parameter's description or a tool's label
- placeholder     a template artifact: "(으)로", "과(와)", "{slot}", None
- unused_hop      a call whose output feeds no later call and is not in the answer
- unstated_pick   a record picked by position, or with no criterion the request states
- mixed_ranking   a max/min over records of several categories (TMP, VEC, REH …)
- constant_condition  a test every record passes (설치년도 ≥ 1000), or with no threshold source
- constant_comparison a comparison of values fixed by the request (two page sizes)
- split_pair      one of a coordinate pair bound without its twin, or the two from different records
- missing_value   a value the request asks for is not in the answer
- list_cut        a list of 10 or fewer cut short, or a longer one without its total

Items of the need-first synthesizer carry the facts every check reads (picks, conditions, comparisons,
requested values, lists). Items of graph walks carry fewer; for them the stage is advisory (see filters.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from apis.engine.korean_text import find_word, numbers_match, read_quantities
from datasets.engine.korean import ARTIFACTS

PROCEDURE = re.compile(
    r"조회해서|조회하고|조회한 (?:뒤|후|다음)|조회 결과|그중 첫 ?번째|첫 ?번째 (?:것|항목|결과)|골라서|골라 |호출|API|"
    r"파라미터|엔드포인트|결과를 (?:이용|사용)|값을 넣어|레코드|응답에서"
)
CODE_TOKEN = re.compile(
    r"\b[A-Z]{2,5}\d{5,}\b"  # DJB8001934, C1100001
    r"|\b\d{7,}\b"  # 1162000000, an arsId-like run of digits nobody types
    r"|[A-Za-z0-9+/]{24,}={0,2}"  # an ykiho
    r"|\b\d+\.\d{4,}\b"  # 200231.591577, a projected coordinate
)
JARGON = (
    "발표시각",
    "발표일자",
    "예보지점",
    "요양기호",
    "법정동코드",
    "지역코드",
    "콘텐츠ID",
    "콘텐츠 ID",
    "격자",
    "측정망",
)
PAIRS = (("nx", "ny"), ("tmX", "tmY"), ("gpsLati", "gpsLong"), ("mapx", "mapy"), ("xPos", "yPos"), ("entX", "entY"))
CRITERIA = ("named", "nearest", "max", "min", "latest", "match")
CONDITION_SOURCES = ("user", "clock", "domain")
SHORT_LIST = 10
PAGE_SIZE_PARAMS = ("numOfRows", "perPage", "countPerPage", "resultCount")


def _plain(text: str) -> str:
    return re.sub(r"\s*\([^)]*\)", "", str(text or "")).strip()


def _named(item: Mapping[str, Any]) -> list[str]:
    return [v for options in item.get("named") or [] for v in options]


def procedure(item: Mapping[str, Any]) -> list[str]:
    match = PROCEDURE.search(str(item.get("request") or ""))
    return [f"procedure: the request narrates the calls ({match.group(0)!r})"] if match else []


def raw_code(item: Mapping[str, Any]) -> list[str]:
    request = str(item.get("request") or "")
    named = _named(item)
    problems = []
    for match in CODE_TOKEN.finditer(request):
        if not any(match.group(0) in n for n in named):
            problems.append(f"raw_code: {match.group(0)!r} is a code the user could not know")
    params = set()
    for schema in item.get("schemas") or []:
        params |= set(((schema.get("function") or {}).get("parameters") or {}).get("properties") or {})
    for name in sorted(params):
        if len(name) >= 2 and re.search(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", request):
            problems.append(f"raw_code: the request names the parameter {name!r}")
    return problems


def copied_label(item: Mapping[str, Any]) -> list[str]:
    request = str(item.get("request") or "")
    problems = []
    for schema in item.get("schemas") or []:
        function = schema.get("function") or {}
        texts = [function.get("description") or ""]
        texts += [
            p.get("description") or "" for p in ((function.get("parameters") or {}).get("properties") or {}).values()
        ]
        for text in texts:
            plain = _plain(text)
            if len(plain.replace(" ", "")) >= 6 and plain in request:
                problems.append(f"copied_label: the request copies {plain!r} from {function.get('name')}")
    for word in JARGON:
        if word in request:
            problems.append(f"copied_label: {word!r} is an API's label, not a user's word")
    return problems


def placeholder(item: Mapping[str, Any]) -> list[str]:
    problems = []
    for key in ("request", "answer"):
        text = str(item.get(key) or "")
        match = ARTIFACTS.search(text)
        if match:
            problems.append(f"placeholder: {key} holds the template artifact {match.group(0)!r}")
        if re.search(r"\bNone\b|\bnan\b|\{\}|\[\]", text):
            problems.append(f"placeholder: {key} holds an empty value")
    return problems


def unused_hop(item: Mapping[str, Any]) -> list[str]:
    calls = item.get("calls") or []
    steps = sorted({c.get("step") for c in calls if c.get("step") is not None})
    if len(steps) < 2:
        return []
    fed = {b.get("from_step") for c in calls for b in c.get("bindings") or [] if b.get("from_step") is not None}
    answered = {f.get("step") for f in (item.get("facts") or {}).get("answer") or []}
    last = max(steps)
    return [
        f"unused_hop: step {s} ({next(c['name'] for c in calls if c.get('step') == s)}) feeds nothing and is not answered"
        for s in steps
        if s != last and s not in fed and s not in answered
    ]


def unstated_pick(item: Mapping[str, Any]) -> list[str]:
    problems = []
    for pick in (item.get("facts") or {}).get("picks") or []:
        criterion = pick.get("criterion") or ""
        if criterion not in CRITERIA:
            problems.append(f"unstated_pick: step {pick.get('step')} picks by {criterion or 'position'!r}")
        if criterion in ("max", "min") and len(pick.get("categories") or ()) > 1:
            problems.append(
                f"mixed_ranking: step {pick.get('step')} ranks {pick.get('field')} over {', '.join(pick['categories'])}"
            )
    return problems


def constant_condition(item: Mapping[str, Any]) -> list[str]:
    problems = []
    for cond in (item.get("facts") or {}).get("conditions") or []:
        source = str(cond.get("source") or "")
        if not source.startswith(CONDITION_SOURCES):
            problems.append(
                f"constant_condition: the threshold of {cond.get('field')} comes from nowhere the user knows"
            )
        kept, of = cond.get("kept"), cond.get("of")
        if (
            cond.get("op") not in ("==", "in")
            and isinstance(kept, int)
            and isinstance(of, int)
            and of >= 3
            and kept == of
        ):
            problems.append(
                f"constant_condition: every one of {of} records passes {cond.get('field')} {cond.get('op')} {cond.get('value')}"
            )
    return problems


def constant_comparison(item: Mapping[str, Any]) -> list[str]:
    problems = []
    calls = item.get("calls") or []
    sizes = {str(v) for c in calls for k, v in (c.get("arguments") or {}).items() if k in PAGE_SIZE_PARAMS}
    for comparison in (item.get("facts") or {}).get("comparisons") or []:
        values = [str(v) for v in comparison.get("values") or []]
        if comparison.get("metric") == "count" and values and all(v in sizes for v in values):
            problems.append(f"constant_comparison: the counts {values} are the page size the calls asked for")
    return problems


def split_pair(item: Mapping[str, Any]) -> list[str]:
    problems = []
    for call in item.get("calls") or []:
        bindings = {b.get("param"): b for b in call.get("bindings") or []}
        arguments = call.get("arguments") or {}
        for x, y in PAIRS:
            if (x in arguments) != (y in arguments):
                problems.append(f"split_pair: {call['name']} gets {x if x in arguments else y} without its twin")
                continue
            if x not in arguments:
                continue
            bx, by = bindings.get(x) or {}, bindings.get(y) or {}
            if (bx.get("source"), bx.get("from_step")) != (by.get("source"), by.get("from_step")):
                problems.append(f"split_pair: {call['name']}'s {x} and {y} come from different places")
            elif (
                bx.get("source") == "edge"
                and bx.get("source_values") != by.get("source_values")
                and len(bx.get("fields") or ()) == 1
            ):
                continue  # two single-field edges from the same record: fine (checked by from_step above)
    return problems


def _stated(value: str, answer: str) -> bool:
    if find_word(value, answer):
        return True
    try:
        number = float(value.replace(",", ""))
    except ValueError:
        return False
    return numbers_match(read_quantities(answer), number) is not None


def missing_value(item: Mapping[str, Any]) -> list[str]:
    answer = str(item.get("answer") or "")
    problems = []
    for wanted in (item.get("facts") or {}).get("requested") or []:
        values = [str(v) for v in wanted.get("values") or [] if str(v).strip()]
        if not values or not any(_stated(v, answer) for v in values):
            problems.append(f"missing_value: the request asks for {wanted.get('label')} and the answer does not say it")
    return problems


def list_cut(item: Mapping[str, Any]) -> list[str]:
    answer = str(item.get("answer") or "")
    problems = []
    for listing in (item.get("facts") or {}).get("lists") or []:
        total, shown = int(listing.get("total") or 0), int(listing.get("shown") or 0)
        if total <= SHORT_LIST and shown < total:
            problems.append(f"list_cut: {shown} of {total} items shown; a list this short is given whole")
        elif total > shown and not re.search(rf"(?<!\d){total}(?!\d)", answer.replace(",", "")):
            problems.append(f"list_cut: {shown} of {total} items shown without the total")
    return problems


CHECKS = (
    procedure,
    raw_code,
    copied_label,
    placeholder,
    unused_hop,
    unstated_pick,
    constant_condition,
    constant_comparison,
    split_pair,
    missing_value,
    list_cut,
)


def naturalness_problems(item: Mapping[str, Any], checks: Sequence = CHECKS) -> list[str]:
    problems: list[str] = []
    for check in checks:
        problems.extend(check(item))
    return problems


PROBLEM_CLASSES = tuple(check.__name__ for check in CHECKS)


def problem_classes(problems: Sequence[str]) -> list[str]:
    return sorted({p.split(":", 1)[0] for p in problems})
